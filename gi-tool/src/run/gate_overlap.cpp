#include "run/gate_overlap.hpp"

#include <map>

#include <algorithm>
#include <set>

#include "genome/genome_ops.hpp"
#include "run/gate.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "variant/apply.hpp"

namespace gi {

std::string spent_between(const std::vector<Evaluator::TimeSpent>& before, const std::vector<Evaluator::TimeSpent>& after) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < after.size() && i < before.size(); ++i)
        parts.push_back(after[i].what + " " + fixed(after[i].seconds - before[i].seconds, 1) + " s");
    return parts.empty() ? std::string() : " (" + join(parts, ", ") + ")";
}

GateOverlap::GateOverlap(const Grammar& grammar, Evaluator& evaluator, VariantChecker* checker,
                         const EvolveOptions& options, const RunBudget& budget,
                         std::function<ScoredBatch(const std::vector<Genome>&, int)> evaluate, RunRecord& record)
    : grammar_(grammar),
      evaluator_(evaluator),
      checker_(checker),
      options_(options),
      parents_(options.population / 2),
      budget_(budget),
      evaluate_(std::move(evaluate)),
      record_(record) {}

bool GateOverlap::guess_is_next(const std::vector<Genome>& population, int case_index) const {
    return guess_ && guess_->case_index == case_index && guess_->population == population;
}

void GateOverlap::discard_guess() {
    if (!guess_) return;
    checker_->discard_evaluation(guess_->case_index);
    ++record_.guesses_discarded;
    const double wasted = guess_->evaluate_s;
    record_.search_gate_discarded_seconds += wasted;
    record_.search_gate_seconds += wasted;
    guess_.reset();
}

ScoredBatch GateOverlap::evaluate(const std::vector<Genome>& population, int case_index,
                                  const std::function<ScoredBatch()>& evaluate_population, GenerationTimes& times) {
    if (guess_is_next(population, case_index)) {
        ScoredBatch batch = std::move(guess_->batch);
        times.evaluate_s = guess_->evaluate_s;
        times.spent = guess_->spent;
        ++record_.guesses_kept;
        guess_.reset();
        return batch;
    }
    if (guess_) {
        // A would-be parent failed the gate, so the next generation is not the guess; most of it is
        // (GP breeds each parent slot from a stream of its own), and the history's fitness cache
        // answers for what the guess measured on this case. The guess's evaluation counts as
        // evaluating; evaluating again, what the failure cost, as the gate.
        std::set<std::string> guessed;
        for (const Genome& g : guess_->population) guessed.insert(genome_to_text(g));
        std::size_t shared = 0;
        for (const Genome& g : population) shared += guessed.count(genome_to_text(g));
        checker_->discard_evaluation(guess_->case_index);
        ++record_.guesses_discarded;
        times.evaluate_s = guess_->evaluate_s;
        times.spent = guess_->spent;
        const double again_start = budget_.clock();
        ScoredBatch batch = evaluate_population();
        const double again_s = budget_.clock() - again_start;
        times.gate_s += again_s;
        record_.search_gate_discarded_seconds += again_s;
        times.overlap_note = "; a would-be parent failed: evaluated again in " + fixed(again_s, 1) + " s (" +
                             std::to_string(shared) + " of " + std::to_string(population.size()) +
                             " individuals as guessed" + (guess_->case_index == case_index ? "" : ", another case") + ")";
        guess_.reset();
        return batch;
    }
    const std::vector<Evaluator::TimeSpent> before = evaluator_.report().time_spent;
    const double evaluate_start = budget_.clock();
    ScoredBatch batch = evaluate_population();
    times.evaluate_s = budget_.clock() - evaluate_start;
    times.spent = spent_between(before, evaluator_.report().time_spent);
    return batch;
}

void GateOverlap::gate(ScoredBatch& batch, const Strategy& strategy, const Rng& rng, bool last,
                       const std::function<bool()>& breeds_again, GenerationTimes& times) {
    const bool overlap = !last && options_.overlap_gate && checker_ != nullptr &&
                         checker_->checks_alongside_evaluation() && breeds_again();
    if (last) {
        // The search ends with this generation: no parents to choose, but the best must pass.
        gate_now(batch, 0, times);
    } else if (overlap) {
        gate_alongside_guess(batch, strategy, rng, times);
    } else {
        if (checker_ != nullptr && breeds_again()) compile_ahead(batch, strategy, rng);
        gate_now(batch, parents_, times);
    }
}

void GateOverlap::gate_evaluated(ScoredBatch& batch, double evaluated_since, GenerationTimes& times) {
    const double gate_start = budget_.clock();
    if (checker_ != nullptr) gate_batch(batch, *checker_, grammar_, parents_);
    times.gate_s = budget_.clock() - gate_start;
    times.evaluate_s = gate_start - evaluated_since;
}

void GateOverlap::gate_now(ScoredBatch& batch, std::size_t parents, GenerationTimes& times) {
    const double gate_start = budget_.clock();
    if (checker_ != nullptr) gate_batch(batch, *checker_, grammar_, parents);
    times.gate_s += budget_.clock() - gate_start;
}

void GateOverlap::compile_ahead(const ScoredBatch& evaluated, const Strategy& strategy, const Rng& rng) {
    Rng copy = rng;
    const std::optional<std::vector<Genome>> next = strategy.guess_next_population(evaluated, copy);
    if (!next) return;
    std::vector<Variant> variants;
    for (const Genome& g : *next) {
        try {
            variants.push_back(make_variant(g, grammar_));
        } catch (const Error&) {
            // Not a program: evaluate() will say so when it comes.
        }
    }
    checker_->prepare_ahead(variants);
}

void GateOverlap::gate_alongside_guess(ScoredBatch& batch, const Strategy& strategy, const Rng& rng,
                                       GenerationTimes& times) {
    // The gate's checks run in the background while the guess at the next generation is evaluated:
    // it is the next generation when every would-be parent passes, as nearly all do. The two take
    // turns on the GPU (no variant is timed beside a sanitizer's launches); how much later
    // evaluation ended for those turns is the gate's cost, as is a guess thrown away.
    const double gate_start = budget_.clock();
    // The guess is bred as if every would-be parent passes. The commonest failure, a write outside
    // the buffers, the checker's prescreen finds in milliseconds a variant (dp_sweep, H200, 45 s:
    // the guard zones judged 34 of 122 would-be parents, and 21 of 35 guesses were thrown away, 4.2
    // s of its 4.4 s of gate), so the guess and the gate's first wave see the batch without those.
    // The batch itself is left for the gate's walk: the run is the same either way.
    ScoredBatch screened = batch;
    std::map<std::string, EvalResult> prescreened;
    const int rejected = options_.prescreen_gate ? prescreen_parents(screened, *checker_, grammar_, parents_, prescreened) : 0;
    record_.gate_prescreen_rejected += rejected;
    StartedGate started = start_gate(screened, *checker_, grammar_, parents_);
    started.prescreened = std::move(prescreened);
    Rng ahead = rng;
    std::optional<std::vector<Genome>> next = strategy.guess_next_population(screened, ahead);
    const double started_s = budget_.clock() - gate_start;
    if (rejected > 0)
        times.overlap_note += "; " + std::to_string(rejected) + " would-be parent" + (rejected == 1 ? "" : "s") +
                              " rejected by the prescreen before the guess";
    if (next) {
        Guess g;
        g.population = std::move(*next);
        g.case_index = static_cast<int>(ahead.index(static_cast<std::size_t>(evaluator_.case_count())));
        const EvaluatorReport before = evaluator_.report();
        const double guess_start = budget_.clock();
        g.batch = evaluate_(g.population, g.case_index);
        const double guess_s = budget_.clock() - guess_start;
        const EvaluatorReport after = evaluator_.report();
        // What the gate's GPU turns cost the evaluation is how much later it ended for them (the
        // cuda evaluator's estimate), not the waits: compiles went on meanwhile.
        const double delayed = std::min(guess_s, after.delayed_by_checks_s - before.delayed_by_checks_s);
        const double waited = after.waited_for_checks_s - before.waited_for_checks_s;
        g.spent = spent_between(before.time_spent, after.time_spent);
        g.evaluate_s = guess_s - delayed;
        times.gate_s += delayed;
        times.overlap_note += "; the next generation's runs waited " + fixed(waited, 1) + " s for its GPU turns, ending " +
                              fixed(delayed, 1) + " s later";
        record_.search_gate_turn_wait_seconds += waited;
        record_.search_gate_delay_seconds += delayed;
        record_.search_gate_alongside_seconds += g.evaluate_s;
        guess_ = std::move(g);
    }
    const double join_start = budget_.clock();
    finish_gate(started, batch, *checker_, grammar_, parents_);
    const double joined = budget_.clock() - join_start;
    times.gate_s += started_s + joined;
    times.overlap_note += (times.overlap_note.empty() ? "; " : ", then ") + fixed(joined, 1) + " s for its checks to end";
    record_.search_gate_join_seconds += joined;
}

}  // namespace gi
