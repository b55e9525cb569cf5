#pragma once
// `--strategy anneal`: Paraiso's parallel asynchronous genetic simulated annealing (seed 003
// sections 3.2-3.3, Fig. 8). A master keeps every worker of an EvaluatorPool busy: whenever one
// finishes, the result joins the individuals ever seen and a new child is made at once and
// handed out, with no generation barrier. A child is born by mutation, crossover or triangulation
// with equal probability; its parents are drawn from every individual that ran within the error
// budget, with the probability of the seed's equation 17 at a temperature drawn log-uniformly
// between the best individual's deviation and mean (anneal_draw.hpp). A child whose genome or
// program was already seen (or is in flight) is discarded and made again at 1.2 times the
// temperature. Each child is measured on one case drawn at random; its score is its speedup over
// the original on that case, with the deviation the timing spreads imply.
//
// The same seed, --workers and --anneal-batch give the same run, whatever the threads' timing:
// the master keeps as many jobs out as there are workers (its window) and takes their results back
// in the order it handed them out (EvaluatorPool::wait_for), not as they finish, so every draw sees
// the same individuals. (Taking them as they finished made two runs of one seed differ with more
// than one worker: issue 39.) The price is that a worker that finishes before the oldest job idles
// until that one is back. The master's state (its generator, the jobs out, the gate's refusals)
// goes into the checkpoint, so a resumed run continues exactly as the uninterrupted one would,
// with the window it started with.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "evaluate/variant_checker.hpp"
#include "history/birth.hpp"
#include "history/history.hpp"
#include "history/score.hpp"
#include "search/anneal_pool.hpp"
#include "search/background_prefetch.hpp"
#include "fitness/acceptance.hpp"
#include "search/code_edit.hpp"
#include "fitness/scored.hpp"
#include "search/strategy.hpp"
#include "util/rng.hpp"

namespace gi {

struct AnnealIndividual {
    std::int64_t id = 0;  // the history database's id (or 1, 2, ... without a database)
    Genome genome;
    std::string text;     // genome_to_text(genome)
    std::string key;      // variant key; "" when the genome does not apply
    int case_index = -1;
    EvalResult result;
    Timing original;
    double speedup = 0;
    bool accepted = false;  // the run's acceptance rule (may be a parent in gp terms; reported as best)
    Score score;            // 0 unless it ran within the error budget
    Birth birth = Birth::Unknown;
    std::vector<std::int64_t> parents;
    int step = 0;           // completion order over the whole run
    double temperature = 0; // of the draw that made it; 0 for the starting genome
    enum class Gate { Unchecked, Passed, Failed } gate = Gate::Unchecked;
};

struct AnnealOptions {
    AcceptanceRule acceptance;
    std::size_t batch = 1;  // children per evaluator call (a GPU evaluator compiles a batch in parallel)
    // The correctness gate (run/gate.hpp): an individual is sanitised the first time it is drawn
    // as a parent, and never becomes one if it fails. Null: every individual passes.
    VariantChecker* checker = nullptr;
    // Readies the drawer for an individual that may be drawn as a parent (the PTX edit drawer's
    // compile of its source), off the master's thread. Empty: draws compile what they need.
    DrawPrefetch prefetch;
};

inline constexpr int kAnnealBirthTries = 200;       // temperature x1.2 each; 1.2^200 is hot enough for anything
inline constexpr int kAnnealDistinctParentTries = 50;
inline constexpr int kAnnealRecombineTries = 20;  // then a crossover or triangulation falls back to mutation

class AnnealMaster {
public:
    // `pool`, `grammar` and `history` (may be null) must outlive the master.
    AnnealMaster(const Grammar& grammar, Genome base, EditDrawer draw, EvaluatorPool& pool, History* history,
                 AnnealOptions options, std::uint64_t seed);

    // Continues from the anneal individuals in the history database (after --resume): they are the
    // population parents are drawn from, and their genomes count as seen. For a checkpoint without
    // the master's state (from before it was kept): the run goes on, but not as it would have.
    void load_history();

    // The master's state between two run() calls, as checkpoint text: its generator, the next
    // step, the window, the births made, the individuals the gate refused, and the jobs out with
    // their children. restore() continues from it: the history's anneal individuals of earlier steps
    // (those of later steps, completed by a session killed before its checkpoint, are made and
    // measured again, and the database keeps their first rows), then the jobs handed out again in
    // their order. Requires a history database. Throws gi::Error for text it cannot read.
    std::string save_state() const;
    void restore(const std::string& state);

    // Keeps all workers busy until at least `count` more individuals have completed and returns
    // them in completion order (a genome that does not apply completes at once, so a few more may
    // come back). Every worker is given a new child before returning, so the workers stay busy
    // while the caller checkpoints; those children belong to the next call. Returns fewer when no
    // new genome can be made and nothing is in flight (the space near the individuals is exhausted).
    std::vector<AnnealIndividual> run(std::size_t count);

    const std::vector<AnnealIndividual>& individuals() const { return individuals_; }
    std::size_t in_flight() const { return in_flight_.size(); }
    std::size_t window() const { return window_; }
    // Children made per birth method (tests check the three are used about equally).
    const std::map<Birth, int>& births_made() const { return births_made_; }
    // Blocks until the drawer has been readied for every individual that may be a parent so far
    // (AnnealOptions::prefetch; tests).
    void wait_for_prefetch() { prefetch_.wait_idle(); }

private:
    struct Child {
        Genome genome;
        std::string text;
        std::optional<Variant> variant;  // nullopt: the genome does not apply (recorded as a compile error)
        std::string apply_error;
        Birth birth = Birth::Unknown;
        std::vector<std::int64_t> parents;
        int case_index = 0;
        double temperature = 0;  // the draw's temperature that made it (0: the starting genome)
    };
    AnnealIndividual from_history(const IndividualRow& row) const;
    void adopt(AnnealIndividual individual);  // one more that may be drawn from (when it scored)
    std::optional<Child> make_child();
    std::optional<Child> birth_of(Birth method, double temperature);
    std::vector<std::size_t> draw_parents(std::size_t count, double temperature);
    bool passes_gate(std::size_t index);
    void submit(std::vector<Child> children);                  // on a case drawn now
    void hand_out(std::vector<Child> children, int case_index);
    AnnealIndividual complete(Child child, const EvalResult& result, const Timing& original);

    const Grammar& grammar_;
    Genome base_;
    EditDrawer draw_;
    EvaluatorPool& pool_;
    History* history_;
    AnnealOptions options_;
    Rng rng_;
    std::vector<AnnealIndividual> individuals_;
    std::vector<std::size_t> eligible_;           // indexes of individuals that may be parents
    std::set<std::string> seen_texts_, seen_keys_;  // individuals and children in flight
    std::map<std::uint64_t, std::vector<Child>> in_flight_;
    std::map<Birth, int> births_made_;
    int next_step_ = 0;
    bool base_sent_ = false;
    std::size_t window_ = 1;  // jobs kept out: the pool's workers, or a resumed run's
    BackgroundPrefetch prefetch_;  // last: stopped before the rest goes
};

// The Strategy face of annealing, so `--strategy anneal` is in the strategy table and run by the
// evolve loop: each "generation" its master (made at the first, on the run's workers) completes a
// block of `population` more individuals. Its own option: --anneal-batch (AnnealOptions::batch).
class AnnealStrategy : public Strategy {
public:
    explicit AnnealStrategy(StrategyContext context);
    ~AnnealStrategy() override;
    std::string name() const override { return "anneal"; }
    std::vector<Genome> initial_population(Rng&) override { return {}; }
    std::vector<Genome> next_population(const ScoredBatch&, Rng&) override { return {}; }
    std::size_t population_size(int) const override { return 0; }  // its individuals are in the history
    // The checkpoint holds the master's state once it runs, else what was restored.
    std::string save_state() const override { return master_ != nullptr ? master_->save_state() : restored_; }
    void restore_state(const std::string& state) override { restored_ = state; }
    std::optional<ScoredBatch> evaluate_generation(SearchServices& services, int generation) override;

private:
    StrategyContext context_;
    std::string restored_;
    std::unique_ptr<AnnealMaster> master_;
};

// The completed individuals as the evolve loop's batch: scored in completion order, with the case
// and original timing of the best accepted one (or of the last one when none is accepted).
ScoredBatch anneal_batch(const std::vector<AnnealIndividual>& completed);

}  // namespace gi
