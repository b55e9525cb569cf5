#include "search/anneal.hpp"

#include <algorithm>

#include "search/anneal_draw.hpp"
#include "genome/genome_ops.hpp"
#include "search/operators.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

std::size_t parents_needed(Birth method) {
    switch (method) {
        case Birth::Crossover: return 2;
        case Birth::Triangulation: return 3;
        default: return 1;
    }
}

}  // namespace

AnnealMaster::AnnealMaster(const Grammar& grammar, Genome base, EditDrawer draw, EvaluatorPool& pool, History* history,
                           AnnealOptions options, std::uint64_t seed)
    : grammar_(grammar),
      base_(std::move(base)),
      draw_(std::move(draw)),
      pool_(pool),
      history_(history),
      options_(options),
      rng_(seed) {
    if (options_.batch < 1) throw UsageError("--anneal-batch must be at least 1");
    if (pool_.case_count() < 1) throw Error("the asynchronous search needs at least one training case");
}

void AnnealMaster::load_history() {
    if (history_ == nullptr) return;
    IndividualFilter filter;
    filter.strategy = "anneal";
    for (const IndividualRow& row : history_->individuals(filter)) {
        AnnealIndividual ind;
        ind.id = row.id;
        try {
            ind.genome = parse_genome(row.genome);
        } catch (const Error& e) {
            throw Error(history_->path().string() + ": individual #" + std::to_string(row.id) + ": " + e.what());
        }
        ind.text = row.genome;
        ind.key = row.variant_key;
        ind.case_index = row.case_index;
        ind.result = {row.status, row.error, row.time, row.detail};
        ind.original = row.original;
        ind.speedup = row.status == EvalStatus::Ok ? speedup(row.original, row.time) : 0;
        ind.accepted = row.accepted;
        if (row.status == EvalStatus::Ok && row.error <= options_.acceptance.max_error)
            ind.score = {row.mean, row.deviation, 1};
        ind.birth = row.birth;
        ind.parents = row.parents;
        ind.step = row.generation;
        next_step_ = std::max(next_step_, ind.step + 1);
        seen_texts_.insert(ind.text);
        if (!ind.key.empty()) seen_keys_.insert(ind.key);
        if (ind.score.mean > 0) eligible_.push_back(individuals_.size());
        individuals_.push_back(std::move(ind));
    }
    if (!individuals_.empty()) base_sent_ = true;
}

bool AnnealMaster::passes_gate(std::size_t index) {
    AnnealIndividual& ind = individuals_[index];
    if (options_.checker == nullptr || ind.gate == AnnealIndividual::Gate::Passed) return true;
    if (ind.gate == AnnealIndividual::Gate::Unchecked) {
        const EvalResult gate = options_.checker->sanitize(make_variant(ind.genome, grammar_), options_.checker->gate_case(std::max(ind.case_index, 0)));
        ind.gate = gate.status == EvalStatus::Ok ? AnnealIndividual::Gate::Passed : AnnealIndividual::Gate::Failed;
        if (ind.gate == AnnealIndividual::Gate::Failed) {
            ind.result.status = gate.status;
            ind.result.detail = gate.detail;
            ind.accepted = false;
            ind.score = {};
        }
    }
    if (ind.gate == AnnealIndividual::Gate::Failed) {
        eligible_.erase(std::remove(eligible_.begin(), eligible_.end(), index), eligible_.end());
        return false;
    }
    return true;
}

std::vector<std::size_t> AnnealMaster::draw_parents(std::size_t count, double temperature) {
    std::vector<std::size_t> chosen;
    // The seed retries draws that repeat a parent; a bounded number of tries keeps a population
    // that one individual dominates from spinning.
    std::vector<double> p;
    auto weigh = [&] {
        std::vector<Score> scores;
        for (std::size_t i : eligible_) scores.push_back(individuals_[i].score);
        p = draw_probabilities(scores, temperature);
    };
    weigh();
    for (int tries = 0; chosen.size() < count && tries < kAnnealDistinctParentTries && !eligible_.empty(); ++tries) {
        const std::size_t pick = eligible_[rng_.weighted_index(p)];
        if (std::find(chosen.begin(), chosen.end(), pick) != chosen.end()) continue;
        if (!passes_gate(pick)) {  // it left the eligible ones: draw again among the rest
            weigh();
            continue;
        }
        chosen.push_back(pick);
    }
    if (chosen.size() < count) return {};
    return chosen;
}

std::optional<AnnealMaster::Child> AnnealMaster::birth_of(Birth method, double temperature) {
    Child child;
    child.birth = method;
    std::vector<std::size_t> parents;
    if (!eligible_.empty()) {
        parents = draw_parents(parents_needed(method), temperature);
        if (parents.empty()) {  // too few distinct (or gated) individuals for this birth
            child.birth = Birth::Mutation;
            parents = draw_parents(1, temperature);
        }
    }
    if (parents.empty()) {
        // Nothing has run yet: mutants of the starting genome keep the workers busy meanwhile.
        child.birth = Birth::Mutation;
        child.genome = mutate(base_, grammar_, draw_, rng_);
        if (!individuals_.empty() && individuals_.front().text == genome_to_text(base_))
            child.parents = {individuals_.front().id};
    } else {
        for (std::size_t i : parents) child.parents.push_back(individuals_[i].id);
        const auto& ind = [&](std::size_t k) -> const AnnealIndividual& { return individuals_[parents[k]]; };
        if (child.birth == Birth::Mutation) {
            child.genome = mutate(ind(0).genome, grammar_, draw_, rng_);
        } else if (child.birth == Birth::Crossover) {
            std::optional<Genome> crossed = crossover_once(ind(0).genome, ind(1).genome, grammar_, rng_);
            if (!crossed) return std::nullopt;
            child.genome = std::move(*crossed);
        } else {
            // Table 4 names the parents by ascending score: Base, Secondary, Primary.
            std::sort(parents.begin(), parents.end(), [&](std::size_t a, std::size_t b) {
                return individuals_[a].score.mean < individuals_[b].score.mean;
            });
            child.parents.clear();
            for (std::size_t i : parents) child.parents.push_back(individuals_[i].id);
            child.genome = canonical_genome(
                triangulate(individuals_[parents[0]].genome, individuals_[parents[1]].genome,
                            individuals_[parents[2]].genome, grammar_),
                grammar_);
        }
    }
    child.text = genome_to_text(child.genome);
    if (seen_texts_.count(child.text)) return std::nullopt;
    try {
        Variant variant = make_variant(child.genome, grammar_);
        if (seen_keys_.count(variant.key)) return std::nullopt;
        child.variant = std::move(variant);
    } catch (const Error& e) {
        child.apply_error = std::string("the genome does not apply: ") + e.what();
    }
    return child;
}

std::optional<AnnealMaster::Child> AnnealMaster::make_child() {
    std::optional<Child> child;
    if (!base_sent_) {
        base_sent_ = true;
        child = Child{};
        child->genome = base_;
        child->text = genome_to_text(base_);
        child->birth = Birth::Init;
        child->variant = make_variant(base_, grammar_);
    } else {
        static const Birth methods[] = {Birth::Mutation, Birth::Crossover, Birth::Triangulation};
        Birth method = methods[rng_.index(3)];
        std::vector<Score> scores;
        for (std::size_t i : eligible_) scores.push_back(individuals_[i].score);
        double temperature = scores.empty() ? 1.0 : draw_temperature(scores[best_index(scores)], rng_);
        for (int tries = 0; tries < kAnnealBirthTries && !child; ++tries, temperature *= 1.2) {
            // Parents that only ever recombine into genomes already seen (the original and one
            // mutant) cannot give a new child: "retry the mutation" as the seed does.
            if (tries == kAnnealRecombineTries) method = Birth::Mutation;
            child = birth_of(method, temperature);
            if (child) child->temperature = temperature;
        }
        if (!child) return std::nullopt;
    }
    seen_texts_.insert(child->text);
    if (child->variant) seen_keys_.insert(child->variant->key);
    ++births_made_[child->birth];
    return child;
}

void AnnealMaster::submit(std::vector<Child> children) {
    const int case_index = static_cast<int>(rng_.index(static_cast<std::size_t>(pool_.case_count())));
    std::vector<Variant> variants;
    for (Child& c : children) {
        c.case_index = case_index;
        variants.push_back(*c.variant);
    }
    const std::uint64_t ticket = pool_.submit(std::move(variants), case_index);
    in_flight_[ticket] = std::move(children);
}

AnnealIndividual AnnealMaster::complete(Child child, const EvalResult& result, const Timing& original) {
    AnnealIndividual ind;
    ind.genome = std::move(child.genome);
    ind.text = std::move(child.text);
    ind.key = child.variant ? child.variant->key : std::string();
    ind.case_index = child.case_index;
    ind.result = result;
    ind.original = original;
    ind.speedup = result.status == EvalStatus::Ok ? speedup(original, result.time) : 0;
    ind.accepted = is_accepted(result, original, options_.acceptance);
    if (result.status == EvalStatus::Ok && result.error <= options_.acceptance.max_error)
        ind.score = measurement_score({result, original});
    ind.birth = child.birth;
    ind.temperature = child.temperature;
    ind.parents = std::move(child.parents);
    ind.step = next_step_++;
    if (history_ != nullptr) {
        IndividualRow row = individual_row(ind.text, ind.case_index, result, original, ind.accepted, "anneal", ind.step, 0);
        row.variant_key = ind.key;
        row.birth = ind.birth;
        row.parents = ind.parents;
        ind.id = history_->add_individual(row);
    } else {
        ind.id = static_cast<std::int64_t>(individuals_.size()) + 1;
    }
    if (ind.score.mean > 0) eligible_.push_back(individuals_.size());
    individuals_.push_back(ind);
    return ind;
}

std::vector<AnnealIndividual> AnnealMaster::run(std::size_t count) {
    std::vector<AnnealIndividual> completed;
    bool exhausted = false;
    for (;;) {
        // Fill every free worker, also when the block is complete: the master never lets one idle,
        // and what is in flight now is the next block's.
        while (!exhausted && pool_.in_flight() < pool_.workers()) {
            std::vector<Child> children;
            while (children.size() < options_.batch) {
                std::optional<Child> child = make_child();
                if (!child) {
                    exhausted = true;
                    break;
                }
                if (!child->variant) {  // not a program: recorded as it is, nothing to measure
                    EvalResult failed;
                    failed.status = EvalStatus::CompileError;
                    failed.detail = child->apply_error;
                    child->case_index = -1;
                    completed.push_back(complete(std::move(*child), failed, Timing{}));
                    continue;
                }
                children.push_back(std::move(*child));
            }
            if (!children.empty()) submit(std::move(children));
        }
        if (completed.size() >= count) break;
        if (pool_.in_flight() == 0) break;  // exhausted and nothing left to come back
        PoolResult done = pool_.wait_any();
        auto it = in_flight_.find(done.ticket);
        if (it == in_flight_.end()) continue;  // not ours (another master on the pool)
        std::vector<Child> children = std::move(it->second);
        in_flight_.erase(it);
        if (done.result.results.size() != children.size())
            throw Error("evaluator returned " + std::to_string(done.result.results.size()) + " results for " +
                        std::to_string(children.size()) + " variants");
        for (std::size_t i = 0; i < children.size(); ++i)
            completed.push_back(complete(std::move(children[i]), done.result.results[i], done.result.original));
    }
    return completed;
}

ScoredBatch anneal_batch(const std::vector<AnnealIndividual>& completed) {
    ScoredBatch batch;
    const AnnealIndividual* best = nullptr;
    for (const AnnealIndividual& ind : completed) {
        Scored s;
        s.genome = ind.genome;
        s.result = ind.result;
        s.accepted = ind.accepted;
        s.speedup = ind.speedup;
        s.temperature = ind.temperature;
        batch.scored.push_back(std::move(s));
        if (!ind.key.empty()) ++batch.distinct;
        if (ind.accepted && (best == nullptr || ind.speedup > best->speedup)) best = &ind;
    }
    if (best == nullptr && !completed.empty()) best = &completed.back();
    if (best != nullptr) {
        batch.case_index = std::max(best->case_index, 0);
        batch.original = best->original;
    }
    return batch;
}

}  // namespace gi
