#include "tune/tune.hpp"

#include <algorithm>
#include <set>

#include "search/genome_ops.hpp"
#include "search/scored.hpp"
#include "util/error.hpp"

namespace gi {

std::vector<int> tunable_genes(const Grammar& grammar) {
    std::vector<int> genes;
    for (std::size_t i = 0; i < grammar.genes.size(); ++i) {
        const Gene& gene = grammar.genes[i];
        if ((gene.kind == GeneKind::Param || gene.kind == GeneKind::Flag) && gene.numeric && gene.values.size() >= 2)
            genes.push_back(static_cast<int>(i));
    }
    return genes;
}

std::vector<Genome> tune_points(const Genome& start, const Grammar& grammar, int max_points, Rng& rng, bool& sampled,
                                double& space_size) {
    const std::vector<int> genes = tunable_genes(grammar);
    sampled = false;
    space_size = genes.empty() ? 0 : 1;
    for (int g : genes) space_size *= static_cast<double>(grammar.genes[static_cast<std::size_t>(g)].values.size());
    std::vector<Genome> points;
    if (genes.empty() || max_points < 1) return points;
    std::set<std::string> seen{genome_to_text(canonical_genome(start, grammar))};
    auto point_from = [&](const std::vector<std::size_t>& digits) {
        Genome point = start;
        for (std::size_t i = 0; i < genes.size(); ++i) {
            const Gene& gene = grammar.genes[static_cast<std::size_t>(genes[i])];
            set_gene(point, gene.name, gene.values[digits[i]]);
        }
        return canonical_genome(point, grammar);
    };
    auto add = [&](Genome point) {
        if (seen.insert(genome_to_text(point)).second) points.push_back(std::move(point));
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

TuneResult tune(const Genome& start, const Grammar& grammar, Evaluator& evaluator, const TuneOptions& options, Rng& rng) {
    TuneResult result;
    result.start = result.best = genome_to_text(start);
    if (!evaluator.measures_time()) {
        result.note = "not run: the " + evaluator.name() + " evaluator gives no timings to tune by";
        return result;
    }
    if (tunable_genes(grammar).empty()) {
        result.note = "not run: no numeric --param or --flag gene to tune";
        return result;
    }
    const std::vector<Genome> points =
        tune_points(start, grammar, options.max_points, rng, result.sampled, result.space_size);
    result.case_index = static_cast<int>(rng.index(static_cast<std::size_t>(evaluator.case_count())));
    result.ran = true;
    result.note = (result.sampled ? "sampled " : "swept all ") + std::to_string(points.size()) + " of " +
                  std::to_string(static_cast<long long>(result.space_size)) + " points";
    const std::size_t batch_size = std::max<std::size_t>(1, options.batch);
    double best_gain = 0;
    bool first_batch = true;
    for (std::size_t from = 0; from < points.size(); from += batch_size) {
        std::vector<Genome> batch{start};
        for (std::size_t i = from; i < std::min(points.size(), from + batch_size); ++i) batch.push_back(points[i]);
        const ScoredBatch scored = evaluate_genomes(evaluator, grammar, batch, result.case_index, options.rule);
        const EvalResult& start_result = scored.scored[0].result;
        if (first_batch) {
            result.start_time = result.best_time = start_result.time;
            result.original = scored.original;
            first_batch = false;
        }
        for (std::size_t i = 1; i < scored.scored.size(); ++i) {
            const Scored& s = scored.scored[i];
            TunePoint point;
            point.genome = genome_to_text(s.genome);
            point.status = s.result.status;
            point.error = s.result.error;
            point.time = s.result.time;
            point.start = start_result.time;
            // The point must beat the start measured in the same batch, as a variant must beat the original.
            point.accepted = start_result.status == EvalStatus::Ok &&
                             is_accepted(s.result, start_result.time, options.rule);
            point.gain = s.result.status == EvalStatus::Ok ? speedup(start_result.time, s.result.time) : 0;
            if (point.accepted && point.gain > best_gain) {
                best_gain = point.gain;
                result.best = point.genome;
                result.best_time = s.result.time;
                result.start_time = start_result.time;
                result.original = scored.original;
            }
            result.points.push_back(std::move(point));
        }
    }
    return result;
}

}  // namespace gi
