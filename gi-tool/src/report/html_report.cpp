#include "report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "genome/genome.hpp"
#include "report/svg_chart.hpp"
#include "search/strategy_table.hpp"
#include "util/format.hpp"
#include "util/median.hpp"

namespace gi {
namespace {

std::string timing_text(const Timing& t) {
    if (!t.valid()) return "-";
    return significant(t.median_ms, 4) + " ms &plusmn; " + significant(t.spread_ms, 4) + " (" + std::to_string(t.repetitions) + " runs)";
}


// A knock-out cost as a small bar from 1x (no cost) to the ratio without/with the item, with a
// whisker of the ratio's noise (the uncertainties of the two medians that minimisation compared
// combined; the two timings' spreads in records from before those were kept); the grey band is
// 1x +- that noise, so a bar ending inside it is a cost the measurement cannot tell from none.
std::string knockout_bar(const MinimiseStep& step) {
    const double ratio = step.candidate.median_ms / step.reference.median_ms;
    const bool errors = std::isfinite(step.candidate_error_ms) && std::isfinite(step.reference_error_ms);
    const auto relative = [errors](const Timing& t, double error_ms) {
        const double noise = errors ? error_ms : t.spread_ms;
        return std::isfinite(noise) && t.median_ms > 0 ? noise / t.median_ms : 0.0;
    };
    const double noise = ratio * std::hypot(relative(step.candidate, step.candidate_error_ms),
                                            relative(step.reference, step.reference_error_ms));
    const double top = std::max(2.0, ratio + noise);
    const double width = 120, height = 12;
    auto at = [&](double value) { return std::clamp(value / top, 0.0, 1.0) * width; };
    std::ostringstream svg;
    svg << "<svg class=\"bar\" width=\"" << width << "\" height=\"" << height << "\" data-ratio=\"" << fixed(ratio, 4)
        << "\" data-noise=\"" << fixed(noise, 4) << "\"><rect x=\"" << at(1 - noise) << "\" y=\"0\" width=\""
        << at(1 + noise) - at(1 - noise) << "\" height=\"" << height << "\" fill=\"#e0e0e0\"/>"
        << "<rect x=\"" << std::min(at(1), at(ratio)) << "\" y=\"3\" width=\"" << std::abs(at(ratio) - at(1))
        << "\" height=\"6\" fill=\"" << (ratio >= 1 ? "#1f77b4" : "#2ca02c") << "\"/>"
        << "<line x1=\"" << at(ratio - noise) << "\" x2=\"" << at(ratio + noise) << "\" y1=\"6\" y2=\"6\" stroke=\"#000\"/>"
        << "<line x1=\"" << at(1) << "\" x2=\"" << at(1) << "\" y1=\"0\" y2=\"" << height << "\" stroke=\"#555\"/></svg>";
    return svg.str();
}

LineChart speedup_chart(const RunRecord& r) {
    ChartSeries best{"best of the generation", "#1f77b4", {}, {}};
    ChartSeries so_far{"best so far", "#d62728", {}, {}, false};
    ChartSeries median{"median of accepted", "#2ca02c", {}, {}};
    double running = NAN;
    for (const GenerationRecord& g : r.generations) {
        const double x = g.index + 1;
        std::vector<double> accepted;
        for (const IndividualRecord& i : g.individuals)
            if (i.accepted && i.speedup > 0) accepted.push_back(i.speedup);
        const double gen_best = g.best_speedup > 0 ? g.best_speedup : NAN;
        if (std::isfinite(gen_best)) running = std::isfinite(running) ? std::max(running, gen_best) : gen_best;
        best.x.push_back(x);
        best.y.push_back(gen_best);
        so_far.x.push_back(x);
        so_far.y.push_back(running);
        median.x.push_back(x);
        median.y.push_back(median_of(accepted));
    }
    return {"Speedup over the original, per generation", "generation", "speedup (x)", {best, so_far, median}};
}

LineChart shares_chart(const RunRecord& r) {
    ChartSeries compiled{"compiled", "#7f7f7f", {}, {}};
    ChartSeries accepted{"accepted (right and faster)", "#2ca02c", {}, {}};
    ChartSeries wrong{"wrong answer", "#ff7f0e", {}, {}};
    ChartSeries failed{"crashed, timed out or sanitizer error", "#d62728", {}, {}};
    for (const GenerationRecord& g : r.generations) {
        if (g.evaluated == 0) continue;
        int wrong_count = 0, failed_count = 0;
        for (const IndividualRecord& i : g.individuals) {
            wrong_count += i.status == EvalStatus::WrongAnswer || (i.status == EvalStatus::Ok && !i.accepted && i.error > 0);
            failed_count += i.status == EvalStatus::Crash || i.status == EvalStatus::Timeout || i.status == EvalStatus::SanitizerError;
        }
        const double x = g.index + 1, n = g.evaluated;
        compiled.x.push_back(x), compiled.y.push_back(100.0 * g.compiled / n);
        accepted.x.push_back(x), accepted.y.push_back(100.0 * g.accepted / n);
        wrong.x.push_back(x), wrong.y.push_back(100.0 * wrong_count / n);
        failed.x.push_back(x), failed.y.push_back(100.0 * failed_count / n);
    }
    return {"What the search tried: share of each generation", "generation", "% of individuals", {compiled, accepted, wrong, failed}};
}

LineChart timing_chart(const RunRecord& r) {
    ChartSeries spread{"original's spread, % of its median", "#9467bd", {}, {}};
    for (const GenerationRecord& g : r.generations) {
        if (!g.original.valid() || g.original.median_ms <= 0) continue;
        spread.x.push_back(g.index + 1);
        spread.y.push_back(100.0 * g.original.spread_ms / g.original.median_ms);
    }
    return {"Timing trust: the original kernel's noise in each generation's batch", "generation", "spread (%)", {spread}};
}

// Gene values in numeric order when both are numbers ("2" before "10"), else as text.
struct ValueOrder {
    bool operator()(const std::string& a, const std::string& b) const {
        char* end_a = nullptr;
        char* end_b = nullptr;
        const double x = std::strtod(a.c_str(), &end_a), y = std::strtod(b.c_str(), &end_b);
        const bool numbers = !a.empty() && !b.empty() && *end_a == '\0' && *end_b == '\0';
        if (numbers && x != y) return x < y;
        return a < b;
    }
};

// The parameter sweep of a tuning phase: per gene, the best speedup over the original among the
// points with each value (a point without the gene has its default), drawn as bars.
void sweep_section(std::ostringstream& out, const TuneResult& tune, const std::string& title) {
    std::map<std::string, std::map<std::string, double, ValueOrder>> best;  // gene -> value -> best speedup
    for (const TunePoint& p : tune.points) {
        if (p.status != EvalStatus::Ok || !p.accepted || !p.time.valid() || !p.original.valid() || p.time.median_ms <= 0) continue;
        const double speedup = p.original.median_ms / p.time.median_ms;
        Genome genome;
        try {
            genome = parse_genome(p.genome);
        } catch (const std::exception&) {
            continue;
        }
        for (const GeneSetting& g : genome.settings) best[g.name][g.value] = std::max(best[g.name][g.value], speedup);
    }
    if (best.empty()) return;
    out << "<h3>" << html_escape(title) << ": speedup per value of each gene</h3>\n<p>The best point with each value, "
           "over the original kernel (" << tune.points.size() << " points).</p>\n";
    double top = 0;
    for (const auto& [gene, values] : best)
        for (const auto& [value, speedup] : values) top = std::max(top, speedup);
    for (const auto& [gene, values] : best) {
        out << "<table class=\"sweep\"><tr><th colspan=\"2\"><code>" << html_escape(gene) << "</code></th></tr>\n";
        for (const auto& [value, speedup] : values)
            out << "<tr><td><code>" << html_escape(value) << "</code></td><td><svg width=\"300\" height=\"12\"><rect class=\"bar\" "
                   "width=\"" << fixed(top > 0 ? 240 * speedup / top : 0, 1) << "\" height=\"12\" fill=\"#1f77b4\"/><text x=\""
                << fixed(top > 0 ? 244 * speedup / top : 0, 1) << "\" y=\"10\" class=\"tick\">" << fixed(speedup, 2)
                << "x</text></svg></td></tr>\n";
        out << "</table>\n";
    }
}

}  // namespace

std::string table_row(const std::string& name, const std::string& value_html) {
    return "<tr><th>" + html_escape(name) + "</th><td>" + value_html + "</td></tr>\n";
}

void append_table_row(std::ostringstream& out, const std::string& name, const std::string& value_html) {
    out << table_row(name, value_html);
}

std::string report_style() {
    return "body{font-family:sans-serif;margin:24px;max-width:1100px;color:#222}"
           "table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;"
           "vertical-align:top}th{background:#f3f3f3}code{font-size:90%}.chart{display:block;margin:8px 0 24px}"
           ".chart-title{font-weight:bold;font-size:13px}.tick,.legend{font-size:11px}.axis{font-size:12px}"
           ".removed{color:#888}.kept{font-weight:bold}.failed{color:#b00}.passed{color:#070}"
           "pre.diff{border:1px solid #ccc;padding:4px 0;margin:4px 0 14px;font-size:12px;overflow-x:auto}"
           "pre.diff span{display:block;padding:0 8px}.del{background:#fde8e8}.add{background:#e6f6e6}";
}

std::string source_view_html(const SourceView& view, const std::string& hint) {
    std::ostringstream out;
    if (view.items.empty()) out << "<p>" << html_escape(view.note.empty() ? hint : view.note) << "</p>\n";
    for (const ItemDiff& item : view.items) {
        out << "<p><code>" << html_escape(item.item) << "</code>";
        // A PTX edit acts on the compiled instructions (ptx/ptx_edit.hpp), not on a line or an option.
        if (item.hunks.empty())
            out << (item.item.rfind("ptx:", 0) == 0 ? ": an instruction edit on the kernel's PTX (changes no source line)"
                                                    : ": changes no source line (a compile option)");
        out << "</p>\n";
        for (const DiffHunk& hunk : item.hunks) {
            out << "<pre class=\"diff\">";
            for (std::size_t k = 0; k < hunk.before.size(); ++k)
                out << "<span class=\"del\">- " << hunk.first_line + static_cast<int>(k) << "  " << html_escape(hunk.before[k])
                    << "</span>";
            for (const std::string& line : hunk.after) out << "<span class=\"add\">+ " << html_escape(line) << "</span>";
            out << "</pre>\n";
        }
    }
    return out.str();
}

namespace {

// What the sanitizer gate refused during search (run/gate.hpp gives a refused individual the
// gate's status and detail), one row per program, and what the final checks said.
void sanitizer_section(std::ostringstream& out, const RunRecord& r) {
    struct Refusal {
        std::string genome, verdict;
        int generation = 0;
    };
    std::vector<Refusal> refusals;
    std::set<std::string> seen;
    for (const GenerationRecord& g : r.generations)
        for (const IndividualRecord& i : g.individuals) {
            const bool gate = i.status == EvalStatus::SanitizerError || i.detail.find("compute-sanitizer") != std::string::npos;
            if (!gate || !seen.insert(i.genome).second) continue;
            refusals.push_back({i.genome, to_string(i.status) + ": " + i.detail.substr(0, i.detail.find('\n')), g.index + 1});
        }
    out << "<h2>Sanitizer verdicts</h2>\n<p>";
    if (r.search_gate_seconds > 0 || !refusals.empty()) {
        out << "Before a variant becomes a parent it runs under compute-sanitizer (memcheck; racecheck and synccheck when "
               "it has fewer barriers than the original). "
            << (refusals.empty() ? std::string("It refused no program.")
                                 : std::to_string(refusals.size()) + " program(s) were refused:");
    } else {
        out << "No sanitizer gate ran in this run's search (the " << html_escape(r.evaluator) << " evaluator has none, "
            << "or no variant was accepted).";
    }
    out << "</p>\n";
    if (!refusals.empty()) {
        out << "<table><tr><th>generation</th><th>genome</th><th>verdict</th></tr>\n";
        const std::size_t shown = std::min<std::size_t>(refusals.size(), 25);
        for (std::size_t k = 0; k < shown; ++k)
            out << "<tr><td>" << refusals[k].generation << "</td><td><code>" << html_escape(refusals[k].genome)
                << "</code></td><td>" << html_escape(refusals[k].verdict) << "</td></tr>\n";
        out << "</table>\n";
        if (refusals.size() > shown) out << "<p>... and " << refusals.size() - shown << " more (run.xml has them all).</p>\n";
    }
    out << "<p><b>The final genome</b>: "
        << html_escape(r.final_check.note.empty() ? (r.final_check.ran ? "passed the sanitizer and held-out validation"
                                                                         : "not checked")
                                                  : r.final_check.note)
        << "</p>\n";
}

}  // namespace

std::string html_report(const RunRecord& r, const std::string& source, const SourceView& view) {
    std::ostringstream out;
    out << kReportPageStart << html_escape(source) << "</title>\n<style>\n" << report_style() << "\n</style></head><body>\n<h1>gi-optimize run report</h1>\n<p>Run folder <code>" << html_escape(source)
        << "</code>, evaluator <code>" << html_escape(r.evaluator) << "</code>.</p>\n";

    out << "<h2>Result</h2>\n<table>\n";
    append_table_row(out, "final genome", r.final_genome.empty() ? "(none: the original kernel)" : "<code>" + html_escape(r.final_genome) + "</code>");
    append_table_row(out, "best speedup in search",
        r.best.found ? fixed(r.best.speedup, 3) + "x in generation " + std::to_string(r.best.generation + 1) + " (" +
                           timing_text(r.best.time) + " against " + timing_text(r.best.original) + ")"
                     : std::string("none"));
    const std::string validation_class = !r.final_check.ran ? "" : r.final_check.passed ? "passed" : "failed";
    append_table_row(out, "validation",
        "<span class=\"" + validation_class + "\">" +
            html_escape(r.final_check.ran ? r.final_check.summary : "not run") + "</span>" +
            (r.final_check.note.empty() ? "" : "<br>" + html_escape(r.final_check.note)));
    append_table_row(out, "finished", r.finished ? "yes" : "no: the run stopped before its final checks");
    append_table_row(out, "stopped by", html_escape(r.stop_reason.empty() ? "(still running)" : r.stop_reason));
    append_table_row(out, "generations", std::to_string(r.generations.size()));
    append_table_row(out, "individuals", std::to_string(r.individuals()) + " (" + std::to_string(r.distinct_evaluated()) + " distinct programs, " +
                                std::to_string(r.compiled()) + " compiled)");
    const double search_s = r.search_evaluate_seconds + r.search_gate_seconds;
    append_table_row(out, "where the time went",
        fixed(r.wall_seconds, 1) + " s in all; search: evaluating " + fixed(r.search_evaluate_seconds, 1) + " s, sanitizer gate " +
            fixed(r.search_gate_seconds, 1) + " s" +
            (search_s > 0 ? " (" + fixed(100 * r.search_gate_seconds / search_s, 0) + "% gate)" : std::string()) +
            (r.wall_seconds > 0 ? "; " + fixed(60.0 * static_cast<double>(r.distinct_evaluated()) / r.wall_seconds, 0) +
                                      " distinct programs a minute"
                                : std::string()));
    out << "</table>\n";

    out << "<h2>Progress</h2>\n" << svg_line_chart(speedup_chart(r)) << svg_line_chart(shares_chart(r))
        << svg_line_chart(timing_chart(r));
    // The strategy's own charts (search/strategy_table.hpp), for a strategy this gi-tool knows.
    for (const auto& [name, value] : r.settings)
        if (name == "strategy")
            if (const StrategyEntry* strategy = find_strategy(value); strategy != nullptr && strategy->charts)
                for (const LineChart& chart : strategy->charts(r.generations)) out << svg_line_chart(chart);

    out << "<h2>The final genome explained</h2>\n";
    if (!r.minimise.ran) {
        out << "<p>Minimisation did not run: " << html_escape(r.minimise.note) << "</p>\n";
    } else {
        out << "<p>Evolved <code>" << html_escape(r.minimise.before) << "</code>, minimised to <code>"
            << html_escape(r.minimise.after.empty() ? "(nothing)" : r.minimise.after)
            << "</code>. Each item was knocked out in turn; it is kept when the genome without it is slower by more than "
               "the noise, fails or adds error (those are tried again, in a further pass, once others went).</p>\n<table><tr><th>item</th><th>verdict</th><th>with it</th><th>without it</th>"
               "<th>knock-out cost</th><th>why</th></tr>\n";
        for (const MinimiseStep& s : r.minimise.steps) {
            const bool timed = s.reference.valid() && s.candidate.valid() && s.reference.median_ms > 0;
            out << "<tr class=\"" << (s.removed ? "removed" : "kept") << "\"><td><code>" << html_escape(s.item) << "</code></td><td>"
                << (s.removed ? "removed" : "kept") << "</td><td>" << timing_text(s.reference) << "</td><td>"
                << (s.status == EvalStatus::Ok ? timing_text(s.candidate) : html_escape(to_string(s.status))) << "</td><td>"
                << (timed ? fixed(s.candidate.median_ms / s.reference.median_ms, 3) + "x " + knockout_bar(s) : std::string("-"))
                << "</td><td>"
                << html_escape(s.reason) << (s.pass > 1 ? " (pass " + std::to_string(s.pass) + ")" : std::string())
                << "</td></tr>\n";
        }
        out << "</table>\n";
    }
    if (!r.final_genome.empty()) {
        out << "<h3>What each item changes in the source</h3>\n";
        out << source_view_html(view, "Give the kernel to see it: gi-tool report --out DIR KERNEL.cu --function NAME "
                                      "(with the run's registration).");
    }
    for (const auto* tune : {&r.pre_tune, &r.post_tune}) {
        out << "<p><b>" << (tune == &r.pre_tune ? "Pre-tuning" : "Post-tuning") << "</b>: ";
        if (!tune->ran) out << "not run (" << html_escape(tune->note) << ")";
        else
            out << tune->points.size() << " points; best <code>" << html_escape(tune->best)
                << "</code>, " << timing_text(tune->best_time) << " against " << timing_text(tune->original);
        out << "</p>\n";
    }

    if (r.pre_tune.ran || r.post_tune.ran) out << "<h2>Parameter sweeps</h2>\n";
    if (r.pre_tune.ran) sweep_section(out, r.pre_tune, "Pre-tuning");
    if (r.post_tune.ran) sweep_section(out, r.post_tune, "Post-tuning");

    sanitizer_section(out, r);

    out << "<h2>Settings</h2>\n<table>\n";
    for (const auto& [name, value] : r.settings) append_table_row(out, name, "<code>" + html_escape(value) + "</code>");
    out << "</table>\n</body></html>\n";
    return out.str();
}

}  // namespace gi
