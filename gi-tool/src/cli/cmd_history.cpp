// `gi-tool history`: lists and filters the database of every individual a run evaluated
// (DIR/history.sqlite): a summary, the best N, the family tree of one individual, failures by cause.
// It opens the database read-only, so it is safe while the run is still going.
#include <algorithm>
#include <iostream>
#include <limits>

#include "cli/args.hpp"
#include "cli/command.hpp"
#include "history/history.hpp"
#include "history/history_report.hpp"
#include "search/strategy.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {

const char* kHelp =
    "usage: gi-tool history --out DIR [--best N | --lineage ID | --failures | --curve] [--strategy S]\n"
    "  Reads DIR/history.sqlite, the database `gi-tool evolve --out DIR` writes as it evaluates,\n"
    "  and prints a summary of the run (counts by strategy, status and birth, and the best 5).\n\n"
    "  --out DIR         the run's output directory (or the database file itself)\n"
    "  --best N          the N individuals with the highest speedup (mean over their measurements,\n"
    "                    with its deviation), one line per genome\n"
    "  --lineage ID      individual ID and its ancestors: how it was born and from whom\n"
    "  --failures        failed individuals grouped by status and cause, with examples\n"
    "  --curve           the search's progress: 'evaluated wall_s best_speedup' per individual\n"
    "                    (best accepted speedup so far), for plotting strategies against each other\n"
    "  --strategy S      only individuals of strategy S (gp, nsga2, anneal; or the phases pre-tune,\n"
    "                    minimise, post-tune)\n\n"
    "examples:\n"
    "  gi-tool history --out run1 --best 10\n"
    "  gi-tool history --out run1 --lineage 412\n"
    "  gi-tool history --out run1 --failures --strategy anneal\n"
    "\nexit status: 0 ok, 1 failure (no or unreadable database, no such individual), 2 usage error\n";

int run_history(const std::vector<std::string>& arguments) {
    const Args args(arguments, {"--out", "--best", "--lineage", "--strategy"}, {"--failures", "--curve", "--help"});
    if (args.has("--help")) {
        std::cout << kHelp;
        return kExitOk;
    }
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional().front() + "' (give the run's folder with --out)");
    const int modes =
        static_cast<int>(args.has("--best")) + args.has("--lineage") + args.has("--failures") + args.has("--curve");
    if (modes > 1) throw UsageError("give only one of --best, --lineage, --failures and --curve");
    std::filesystem::path path = args.required("--out");
    if (std::filesystem::is_directory(path)) path /= kHistoryFileName;
    const long long best = args.integer("--best", 5, 1, 1000000);
    const long long lineage = args.integer("--lineage", 0, 1, std::numeric_limits<long long>::max());

    IndividualFilter filter;
    filter.strategy = args.value("--strategy");
    if (filter.strategy) {
        // Tuning and minimisation are stored under their phase's name.
        std::vector<std::string> known = strategy_names();
        for (const char* phase : {"pre-tune", "minimise", "post-tune"}) known.push_back(phase);
        if (std::find(known.begin(), known.end(), *filter.strategy) == known.end()) {
            std::string list;
            for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
            throw UsageError("--strategy: unknown strategy '" + *filter.strategy + "' (known: " + list + ")");
        }
    }
    auto history = History::read(path);
    const std::vector<IndividualRow> rows = history->individuals(filter);
    if (filter.strategy && rows.empty() && !args.has("--lineage"))
        std::cout << "no individuals of strategy '" << *filter.strategy << "' in " << path.string() << "\n";

    if (args.has("--lineage")) {
        // Ancestors may come from another strategy's phase, so the tree is drawn from every row.
        std::cout << lineage_tree(filter.strategy ? history->individuals() : rows, lineage);
    } else if (args.has("--curve")) {
        std::cout << progress_curve(rows);
    } else if (args.has("--failures")) {
        std::cout << failure_report(rows);
    } else if (args.has("--best")) {
        std::cout << best_table(best_individuals(rows, static_cast<std::size_t>(best)));
    } else {
        std::cout << path.string() << "\n"
                  << history_summary(history->identity(), rows, history->evaluation_count(), static_cast<std::size_t>(best));
    }
    return kExitOk;
}

const CommandRegistrar registrar({"history", "list and filter the database of every evaluated individual", run_history});

}  // namespace
}  // namespace gi::cli
