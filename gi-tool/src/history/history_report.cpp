#include "history/history_report.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

std::string short_genome(const std::string& genome) {
    if (genome.empty()) return "(original)";
    return genome.size() <= 100 ? genome : genome.substr(0, 97) + "...";
}

std::string score_text(const IndividualRow& row) {
    if (row.status != EvalStatus::Ok) return to_string(row.status);
    return fixed_or_dash(row.mean, 3) + "x+-" + fixed_or_dash(row.deviation, 3);
}

std::string first_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    return line.size() <= 120 ? line : line.substr(0, 117) + "...";
}

}  // namespace

std::vector<IndividualRow> best_individuals(const std::vector<IndividualRow>& rows, std::size_t count) {
    std::vector<IndividualRow> ok;
    std::set<std::string> seen;  // one line per genome: its latest row carries the most measurements
    for (auto it = rows.rbegin(); it != rows.rend(); ++it)
        if (it->status == EvalStatus::Ok && seen.insert(it->genome).second) ok.push_back(*it);
    std::stable_sort(ok.begin(), ok.end(), [](const IndividualRow& a, const IndividualRow& b) {
        if (a.mean != b.mean) return a.mean > b.mean;
        return a.id < b.id;
    });
    if (ok.size() > count) ok.resize(count);
    return ok;
}

std::string best_table(const std::vector<IndividualRow>& best) {
    std::ostringstream out;
    if (best.empty()) return "no individual ran successfully\n";
    out << "    id  strategy  gen  birth          speedup         time ms    error     genome\n";
    for (const IndividualRow& r : best)
        out << fmt::format("{:>6}  {:<8} {:>4}  {:<13}  {:<14}  {:>9}  {:<9} ", r.id, r.strategy, r.generation,
                           to_string(r.birth), score_text(r), fixed_or_dash(r.time.median_ms, 4), fixed_or_dash(r.error, 6))
            << short_genome(r.genome) << (r.accepted ? "" : "  (not accepted)") << "\n";
    return out.str();
}

std::string history_summary(const HistoryIdentity& identity, const std::vector<IndividualRow>& rows,
                            std::int64_t evaluations, std::size_t best) {
    std::ostringstream out;
    out << "kernel sha256 " << identity.kernel_sha256.substr(0, 16) << "..., grammar version "
        << identity.grammar_version << "\n";
    if (!identity.options.empty()) {
        out << "options:";
        for (const auto& [key, value] : identity.options) out << " " << key << "=" << value;
        out << "\n";
    }
    std::set<std::string> genomes;
    std::map<std::string, int> strategies, statuses, births;
    int accepted = 0;
    for (const IndividualRow& r : rows) {
        genomes.insert(r.genome);
        ++strategies[r.strategy];
        ++statuses[to_string(r.status)];
        ++births[to_string(r.birth)];
        accepted += r.accepted;
    }
    out << rows.size() << " individuals (" << genomes.size() << " distinct genomes, " << accepted << " accepted), "
        << evaluations << " measurements of a program on a case\n";
    auto counts = [&](const char* title, const std::map<std::string, int>& m) {
        out << title << ":";
        for (const auto& [name, n] : m) out << " " << name << " " << n;
        out << "\n";
    };
    counts("by strategy", strategies);
    counts("by status", statuses);
    counts("by birth", births);
    if (best > 0) {
        out << "\nbest " << best << ":\n" << best_table(best_individuals(rows, best));
    }
    return out.str();
}

std::string lineage_tree(const std::vector<IndividualRow>& rows, std::int64_t id) {
    std::map<std::int64_t, const IndividualRow*> by_id;
    for (const IndividualRow& r : rows) by_id[r.id] = &r;
    if (!by_id.count(id))
        throw Error("no individual #" + std::to_string(id) + " in this history (ids run from 1 to " +
                    std::to_string(rows.empty() ? 0 : rows.back().id) + "; list them with --best N)");
    std::ostringstream out;
    std::set<std::int64_t> printed;
    // Depth first with a stack of its own, not recursion: a run of --generations 1000000 can have an
    // ancestry that deep, and 60,000 recursive calls crashed (issue 39). Lines deeper than
    // kLineageIndentLevels keep that indentation and say their depth, so the output stays linear.
    struct Visit {
        std::int64_t id;
        std::size_t depth;
    };
    std::vector<Visit> stack{{id, 0}};
    while (!stack.empty()) {
        const Visit at = stack.back();
        stack.pop_back();
        std::string indent(std::min(at.depth, kLineageIndentLevels) * 2, ' ');
        if (at.depth > kLineageIndentLevels) indent += "[depth " + std::to_string(at.depth) + "] ";
        auto it = by_id.find(at.id);
        if (it == by_id.end()) {
            out << indent << "#" << at.id << " (not in this selection)\n";
            continue;
        }
        if (!printed.insert(at.id).second) {
            out << indent << "(#" << at.id << " above)\n";
            continue;
        }
        const IndividualRow& r = *it->second;
        out << indent << "#" << r.id << " " << r.strategy << " gen " << r.generation << " " << to_string(r.birth);
        if (!r.parents.empty()) {
            out << " of";
            for (std::int64_t p : r.parents) out << " #" << p;
        }
        out << ": " << score_text(r) << " " << short_genome(r.genome) << "\n";
        // Pushed last to first, so the first parent's branch is printed first.
        for (auto p = r.parents.rbegin(); p != r.parents.rend(); ++p) stack.push_back({*p, at.depth + 1});
    }
    return out.str();
}

std::string failure_report(const std::vector<IndividualRow>& rows) {
    struct Group {
        std::string status, cause;
        int count = 0;
        std::vector<std::int64_t> examples;
    };
    std::map<std::pair<std::string, std::string>, Group> groups;
    std::map<std::string, int> per_status;
    int failures = 0;
    for (const IndividualRow& r : rows) {
        if (r.status == EvalStatus::Ok) continue;
        ++failures;
        const std::string status = to_string(r.status);
        ++per_status[status];
        Group& g = groups[{status, first_line(r.detail)}];
        g.status = status;
        g.cause = first_line(r.detail);
        ++g.count;
        if (g.examples.size() < 3) g.examples.push_back(r.id);
    }
    std::ostringstream out;
    out << failures << " of " << rows.size() << " individuals failed";
    if (failures == 0) return out.str() + "\n";
    out << ":";
    for (const auto& [status, n] : per_status) out << " " << status << " " << n;
    out << "\n";
    std::vector<Group> sorted;
    for (auto& [key, g] : groups) sorted.push_back(g);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Group& a, const Group& b) { return a.count > b.count; });
    for (const Group& g : sorted) {
        out << "  " << g.count << " x " << g.status << ": " << (g.cause.empty() ? "(no cause recorded)" : g.cause)
            << "  e.g.";
        for (std::int64_t id : g.examples) out << " #" << id;
        out << "\n";
    }
    return out.str();
}

std::string progress_curve(const std::vector<IndividualRow>& rows) {
    std::ostringstream out;
    out << "evaluated wall_s best_speedup\n";
    double best = 0;
    long long evaluated = 0;
    for (const IndividualRow& r : rows) {
        if (r.strategy == "pre-tune" || r.strategy == "minimise" || r.strategy == "post-tune") continue;
        ++evaluated;
        if (r.accepted && r.status == EvalStatus::Ok && r.time.valid() && r.original.valid() && r.time.median_ms > 0)
            best = std::max(best, r.original.median_ms / r.time.median_ms);
        out << evaluated << " " << fixed_or_dash(r.wall_s, 3) << " " << fixed_or_dash(best, 4) << "\n";
    }
    return out.str();
}

}  // namespace gi
