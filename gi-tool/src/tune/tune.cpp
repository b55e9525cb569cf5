#include "tune/tune.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "grammar/preprocessed_identity.hpp"
#include "genome/genome_ops.hpp"
#include "fitness/scored.hpp"
#include "util/error.hpp"

namespace gi {

std::vector<int> tunable_genes(const Grammar& grammar) {
    std::vector<int> genes;
    for (std::size_t i = 0; i < grammar.genes.size(); ++i) {
        const Gene& gene = grammar.genes[i];
        // Categorical values too (an on/off compile option, -dlcm=ca|cg, a type): an auto-tuner
        // such as Kernel Tuner sweeps those as well, so "parameters alone" must include them.
        if ((gene.kind == GeneKind::Param || gene.kind == GeneKind::Flag) && gene.values.size() >= 2)
            genes.push_back(static_cast<int>(i));
    }
    return genes;
}

std::vector<int> tunable_genes(const Grammar& grammar, const Genome& start) {
    std::vector<int> genes = tunable_genes(grammar);
    for (std::size_t i = 0; i < grammar.genes.size(); ++i) {
        const Gene& gene = grammar.genes[i];
        if (is_transform_gene(gene.kind) && setting_or(start, gene.name, gene.default_value) != gene.default_value)
            genes.push_back(static_cast<int>(i));
    }
    std::sort(genes.begin(), genes.end());
    return genes;
}

std::vector<Genome> tune_points(const Genome& start, const Grammar& grammar, int max_points, Rng& rng, bool& sampled,
                                double& space_size, std::size_t* same_program) {
    const std::vector<int> genes = tunable_genes(grammar, start);
    sampled = false;
    space_size = genes.empty() ? 0 : 1;
    for (int g : genes) space_size *= static_cast<double>(grammar.genes[static_cast<std::size_t>(g)].values.size());
    std::vector<Genome> points;
    if (genes.empty() || max_points < 1) return points;
    const Genome canonical_start = canonical_genome(start, grammar);
    std::set<std::string> seen{genome_to_text(canonical_start)};
    // The program a point compiles to, before compiling it: its preprocessed text and options.
    auto program_of = [&](const Genome& point) {
        const Variant variant = make_variant(point, grammar);
        std::string identity = preprocessed_identity(variant.source);
        if (identity.empty()) return variant.key;  // cannot tell: every text its own program
        for (const std::string& option : variant.compile_options) identity += '\n' + option;
        return identity;
    };
    std::set<std::string> programs;
    if (same_program) {
        *same_program = 0;
        programs.insert(program_of(canonical_start));
    }
    auto point_from = [&](const std::vector<std::size_t>& digits) {
        Genome point = start;
        for (std::size_t i = 0; i < genes.size(); ++i) {
            const Gene& gene = grammar.genes[static_cast<std::size_t>(genes[i])];
            set_gene(point, gene.name, gene.values[digits[i]]);
        }
        return canonical_genome(point, grammar);
    };
    auto add = [&](Genome point) {
        if (!seen.insert(genome_to_text(point)).second) return;
        if (!same_program || programs.insert(program_of(point)).second) {
            points.push_back(std::move(point));
        } else {
            ++*same_program;
        }
    };
    std::vector<std::size_t> digits(genes.size(), 0);
    if (space_size <= static_cast<double>(max_points)) {
        // Mixed-radix counting, first gene fastest.
        for (;;) {
            add(point_from(digits));
            std::size_t i = 0;
            while (i < genes.size() && ++digits[i] == grammar.genes[static_cast<std::size_t>(genes[i])].values.size())
                digits[i++] = 0;
            if (i == genes.size()) break;
        }
        return points;
    }
    sampled = true;
    // Far fewer samples than points, so duplicates are rare; the bound only guards odd spaces.
    for (long long tries = 0; points.size() < static_cast<std::size_t>(max_points) && tries < 100LL * max_points; ++tries) {
        for (std::size_t i = 0; i < genes.size(); ++i)
            digits[i] = rng.index(grammar.genes[static_cast<std::size_t>(genes[i])].values.size());
        add(point_from(digits));
    }
    return points;
}

namespace {

// Time and noise relative to the start in the same batch, so points from different batches compare.
struct Relative {
    double time;
    double spread;
};

Relative relative(const Timing& time, const Timing& start) {
    const double spread = std::isfinite(time.spread_ms) ? time.spread_ms : 0;
    return {time.median_ms / start.median_ms, spread / start.median_ms};
}

int genes_changed(const std::string& point, const Genome& start, const Grammar& grammar) {
    const Genome genome = parse_genome(point);
    int changed = 0;
    for (const Gene& gene : grammar.genes)
        changed += setting_or(genome, gene.name, gene.default_value) != setting_or(start, gene.name, gene.default_value);
    return changed;
}

// nullptr: the start stays.
const TunePoint* choose_winner(const std::vector<TunePoint>& points, const Genome& start, const Grammar& grammar,
                               double parsimony_k) {
    const TunePoint* fastest = nullptr;
    for (const TunePoint& point : points)
        if (point.accepted && (fastest == nullptr || point.gain > fastest->gain)) fastest = &point;
    if (fastest == nullptr) return nullptr;
    const Relative best = relative(fastest->time, fastest->start);
    auto as_fast = [&](const Relative& r) {
        return r.time - best.time <= parsimony_k * std::sqrt(r.spread * r.spread + best.spread * best.spread);
    };
    const Timing& start_time = fastest->start;
    if (as_fast(relative(start_time, start_time))) return nullptr;
    const TunePoint* winner = fastest;
    int fewest = genes_changed(fastest->genome, start, grammar);
    for (const TunePoint& point : points) {
        if (!point.accepted || &point == fastest || !as_fast(relative(point.time, point.start))) continue;
        const int changed = genes_changed(point.genome, start, grammar);
        if (changed < fewest || (changed == fewest && point.gain > winner->gain)) {
            winner = &point;
            fewest = changed;
        }
    }
    return winner;
}

}  // namespace

TuneResult tune(const Genome& start, const Grammar& grammar, Evaluator& evaluator, const TuneOptions& options, Rng& rng) {
    TuneResult result;
    result.start = result.best = genome_to_text(start);
    if (!evaluator.traits().measures_time) {
        result.note = "not run: the " + evaluator.name() + " evaluator gives no timings to tune by";
        return result;
    }
    if (tunable_genes(grammar, start).empty()) {
        result.note = "not run: no --param or --flag gene with two or more values to tune";
        return result;
    }
    std::vector<Genome> points =
        tune_points(start, grammar, options.max_points, rng, result.sampled, result.space_size,
                    evaluator.traits().judges_the_program ? &result.same_program : nullptr);
    result.case_index = static_cast<int>(rng.index(static_cast<std::size_t>(evaluator.case_count())));
    result.ran = true;
    const std::string all = std::to_string(static_cast<long long>(result.space_size));
    if (options.shards > 1) {
        // Interleaved, so every part holds every region of the space and takes about as long.
        std::vector<Genome> part;
        for (std::size_t i = static_cast<std::size_t>(options.shard - 1); i < points.size(); i += static_cast<std::size_t>(options.shards))
            part.push_back(std::move(points[i]));
        result.note = "part " + std::to_string(options.shard) + " of " + std::to_string(options.shards) +
                      (result.sampled ? " of a sampled sweep: " + std::to_string(part.size()) + " of " +
                                            std::to_string(points.size()) + " points sampled from " + all
                                      : " of an exhaustive sweep: " + std::to_string(part.size()) + " of " + all + " points");
        points = std::move(part);
    } else {
        result.note = (result.sampled ? "sampled " : "swept all ") + std::to_string(points.size()) + " of " + all + " points";
    }
    if (result.same_program > 0)
        result.note += " (" + std::to_string(result.same_program) +
                       (options.shards > 1 ? " points of the whole space left out as the same program as another)"
                                           : " more are the same program as one of these)");
    const std::size_t batch_size = std::max<std::size_t>(1, options.batch);
    const Deadline& deadline = options.deadline;
    result.planned = points.size();
    double seconds_a_point = -1;  // measured on the batches so far (the start counts as a point)
    std::size_t size = 0;
    for (std::size_t from = 0; from < points.size(); from += size) {
        size = std::min(batch_size, points.size() - from);
        if (deadline.set()) {
            // A batch cannot be interrupted, so it is sized to end by the deadline.
            if (deadline.passed()) break;
            if (seconds_a_point < 0) {
                size = std::min(size, kFirstTimedBatch);
            } else {
                const double fit = std::floor(deadline.left() / seconds_a_point) - 1;
                if (fit < 1) break;
                size = std::min(size, static_cast<std::size_t>(fit));
            }
        }
        std::vector<Genome> batch{start};
        for (std::size_t i = from; i < from + size; ++i) batch.push_back(points[i]);
        const double batch_start = deadline.now();
        const ScoredBatch scored = evaluate_genomes(evaluator, grammar, batch, result.case_index, options.rule);
        seconds_a_point = (deadline.now() - batch_start) / static_cast<double>(batch.size());
        const EvalResult& start_result = scored.scored[0].result;
        if (from == 0) {
            result.start_time = result.best_time = start_result.time;
            result.original = scored.original;
        }
        for (std::size_t i = 1; i < scored.scored.size(); ++i) {
            const Scored& s = scored.scored[i];
            TunePoint point;
            point.genome = genome_to_text(s.genome);
            point.status = s.result.status;
            point.error = s.result.error;
            point.time = s.result.time;
            point.start = start_result.time;
            point.original = scored.original;
            // The point must beat the start measured in the same batch, as a variant must beat the original.
            point.accepted = start_result.status == EvalStatus::Ok &&
                             is_accepted(s.result, start_result.time, options.rule);
            point.gain = s.result.status == EvalStatus::Ok ? speedup(start_result.time, s.result.time) : 0;
            result.points.push_back(std::move(point));
        }
    }
    if (result.points.size() < result.planned) {
        result.stopped = true;
        // The plan's words ("swept all 99 of 100 points") as a plan.
        std::string plan = result.note;
        for (const auto& [done, planned] : {std::pair<std::string, std::string>{"swept all ", "a sweep of all "},
                                            {"sampled ", "a sample of "}})
            if (plan.rfind(done, 0) == 0) plan = planned + plan.substr(done.size());
        result.note = "stopped at the time limit after " + std::to_string(result.points.size()) + " of " +
                      std::to_string(result.planned) + " points (" + plan + "); the best of those is kept";
    }
    if (const TunePoint* winner = choose_winner(result.points, start, grammar, options.parsimony_k)) {
        result.best = winner->genome;
        result.best_time = winner->time;
        result.start_time = winner->start;
        result.original = winner->original;
    }
    return result;
}

}  // namespace gi
