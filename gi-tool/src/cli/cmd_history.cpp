// `gi-tool history`: lists and filters the database of every individual a run evaluated
// (DIR/history.sqlite): a summary, the best N, the family tree of one individual, failures by cause.
// It opens the database read-only, so it is safe while the run is still going.
#include <algorithm>
#include <iostream>
#include <limits>

#include "cli/command_line.hpp"
#include "cli/command.hpp"
#include "history/history.hpp"
#include "history/history_report.hpp"
#include "search/strategy_table.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi::cli {
namespace {

int run_history(const std::vector<std::string>& arguments) {
    std::string out, strategy;
    long long best = 5, lineage = 0;
    bool failures = false, curve = false;
    CommandLine app(
        "usage: gi-tool history --out DIR [--best N | --lineage ID | --failures | --curve] [--strategy S]\n",
        "  Reads DIR/history.sqlite, the database `gi-tool evolve --out DIR` writes as it evaluates,\n"
        "  and prints a summary of the run (counts by strategy, status and birth, and the best 5).\n"
        "  Exit status 1 for no or an unreadable database, or no such individual.\n",
        "examples:\n"
        "  gi-tool history --out run1 --best 10\n"
        "  gi-tool history --out run1 --lineage 412\n"
        "  gi-tool history --out run1 --failures --strategy anneal\n");
    app.add_text("--out", out, "DIR", "the run's output directory (or the database file itself)").required();
    app.add_integer("--best", best, 1, 1000000,
                "the N individuals with the highest speedup (mean over their measurements, with its deviation), one "
                "line per genome");
    app.add_integer("--lineage", lineage, 1, std::numeric_limits<long long>::max(),
                "individual ID and its ancestors: how it was born and from whom", "-");
    app.add_switch("--failures", failures, "failed individuals grouped by status and cause, with examples");
    app.add_switch("--curve", curve,
               "the search's progress: 'evaluated wall_s best_speedup' per individual (best accepted speedup so far), "
               "for plotting strategies against each other");
    std::vector<std::string> table_order;
    for (const StrategyEntry& entry : strategy_table()) table_order.push_back(entry.name);
    app.add_text("--strategy", strategy, "S",
                 "only individuals of strategy S (" + join(table_order, ", ") +
                     "; or the phases pre-tune, minimise, post-tune)");
    if (!app.parse(arguments)) return kExitOk;
    const bool has_best = app.given("--best"), has_lineage = app.given("--lineage");
    if (has_best + has_lineage + failures + curve > 1) throw UsageError("give only one of --best, --lineage, --failures and --curve");
    std::filesystem::path path = out;
    if (std::filesystem::is_directory(path)) path /= kHistoryFileName;

    IndividualFilter filter;
    if (app.given("--strategy")) filter.strategy = strategy;
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
    if (filter.strategy && rows.empty() && !has_lineage)
        std::cout << "no individuals of strategy '" << *filter.strategy << "' in " << path.string() << "\n";

    if (has_lineage) {
        // Ancestors may come from another strategy's phase, so the tree is drawn from every row.
        std::cout << lineage_tree(filter.strategy ? history->individuals() : rows, lineage);
    } else if (curve) {
        std::cout << progress_curve(rows);
    } else if (failures) {
        std::cout << failure_report(rows);
    } else if (has_best) {
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
