#include "search/anneal_draw.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "evaluate/fake_evaluator.hpp"
#include "history/history.hpp"
#include "search/anneal.hpp"
#include "search/anneal_pool.hpp"
#include "search/code_edit.hpp"
#include "../support/search_test_support.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

Score score(double mean, double deviation) { return {mean, deviation, 1}; }

TEST(AnnealDraw, LowTemperaturePrefersHighScoresAndHighTemperatureDoesNot) {
    const std::vector<Score> scores{score(1.0, 0.01), score(2.0, 0.01), score(1.5, 0.01), score(0, 0)};
    EXPECT_EQ(best_index(scores), 1u);
    const auto cold = draw_probabilities(scores, 0.01);
    const auto hot = draw_probabilities(scores, 100.0);
    double sum = 0;
    for (double p : cold) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_GT(cold[1], 0.99) << "a cold draw all but always takes the best";
    EXPECT_GT(cold[2], cold[0]);
    EXPECT_GT(cold[0], cold[3]);
    EXPECT_LT(hot[1], 0.3) << "a hot draw barely cares about score";
    EXPECT_GT(hot[3], 0.2);
}

TEST(AnnealDraw, DifferencesWithinTheNoiseAreIgnored) {
    // Two individuals 0.01 apart with deviations of 0.5: about equally likely even when cold.
    const auto p = draw_probabilities({score(2.0, 0.5), score(1.99, 0.5)}, 0.01);
    EXPECT_NEAR(p[0] / p[1], 1.0, 0.03);
    // The same gap with exact timings decides the draw.
    const auto q = draw_probabilities({score(2.0, 0), score(1.99, 0)}, 0.0001);
    EXPECT_GT(q[0], 0.99);
}

TEST(AnnealDraw, TemperatureIsLogUniformBetweenDeviationAndMeanOfTheBest) {
    Rng rng(9);
    const Score top = score(2.0, 0.02);
    double log_sum = 0;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
        const double t = draw_temperature(top, rng);
        ASSERT_GE(t, 0.02 * (1 - 1e-12));
        ASSERT_LE(t, 2.0 * (1 + 1e-12));
        log_sum += std::log(t);
    }
    EXPECT_NEAR(log_sum / n, (std::log(0.02) + std::log(2.0)) / 2, 0.05);
    EXPECT_EQ(draw_temperature(score(0, 0), rng), 1.0) << "nothing has run yet";
    const double exact = draw_temperature(score(2.0, 0), rng);
    EXPECT_GE(exact, 2e-6);
    EXPECT_LE(exact, 2.0);
}

Grammar one_gene_grammar() {
    Grammar g;
    Gene x;
    x.name = "X";
    x.values = {"0", "1", "2"};
    x.default_value = "0";
    x.numeric = true;
    g.genes.push_back(x);
    return g;
}

Genome with_x(const std::string& value) {
    Genome g;
    if (value != "0") g.settings.push_back({"X", value});
    return g;
}

Genome with_edit(bool present) {
    Genome g;
    if (present) g.edits.push_back({Edit::Op::Delete, "_k.cu_7", ""});
    return g;
}

TEST(AnnealDraw, TriangulationFollowsTable4) {
    const Grammar grammar = one_gene_grammar();
    // Table 4 of the seed: columns Base, Secondary, Primary -> Child.
    const int table[8][4] = {{0, 0, 0, 0}, {0, 0, 1, 1}, {0, 1, 0, 1}, {0, 1, 1, 1},
                             {1, 0, 0, 0}, {1, 0, 1, 0}, {1, 1, 0, 0}, {1, 1, 1, 1}};
    for (const auto& row : table) {
        const auto s = [](int bit) { return std::to_string(bit); };
        const Genome gene_child = triangulate(with_x(s(row[0])), with_x(s(row[1])), with_x(s(row[2])), grammar);
        EXPECT_EQ(setting_or(gene_child, "X", "0"), s(row[3])) << "gene, row " << row[0] << row[1] << row[2];
        const Genome edit_child = triangulate(with_edit(row[0]), with_edit(row[1]), with_edit(row[2]), grammar);
        EXPECT_EQ(edit_child.edits.size(), static_cast<std::size_t>(row[3])) << "edit, row " << row[0] << row[1] << row[2];
    }
    // Many-valued genes: Primary's change wins a conflict; a default value is not written out.
    EXPECT_EQ(setting_or(triangulate(with_x("0"), with_x("1"), with_x("2"), grammar), "X", "0"), "2");
    EXPECT_TRUE(triangulate(with_x("1"), with_x("0"), with_x("1"), grammar).settings.empty());
}

TEST(AnnealDraw, TriangulationCombinesIndependentImprovements) {
    const Grammar grammar = one_gene_grammar();
    Genome base;  // the original
    Genome secondary = with_x("2");                                     // found a better X
    Genome primary;                                                     // found a useful edit
    primary.edits = {{Edit::Op::Delete, "_k.cu_9", ""}, {Edit::Op::Replace, "_k.cu_4", "_k.cu_5"}};
    const Genome child = triangulate(base, secondary, primary, grammar);
    EXPECT_EQ(setting_or(child, "X", "0"), "2");
    EXPECT_EQ(child.edits, primary.edits) << "Primary's edits in Primary's order";
}

// Sleeps a fixed time per call; counts concurrent calls.
class SleepyEvaluator : public Evaluator {
public:
    explicit SleepyEvaluator(int ms, std::atomic<int>* running, std::atomic<int>* peak)
        : ms_(ms), running_(running), peak_(peak) {}
    EvaluatorTraits traits() const override { return {"sleepy", 3, true, false}; }
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        const int now = ++*running_;
        int seen = peak_->load();
        while (now > seen && !peak_->compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
        --*running_;
        if (case_index < 0) throw Error("bad case");
        BatchResult out;
        out.original.median_ms = 1;
        out.results.resize(variants.size());
        return out;
    }

private:
    int ms_;
    std::atomic<int>*running_, *peak_;
};

TEST(AnnealPool, RunsJobsConcurrentlyAndReturnsThemAsTheyFinish) {
    std::atomic<int> running{0}, peak{0};
    std::vector<std::unique_ptr<SleepyEvaluator>> owned;
    std::vector<Evaluator*> workers;
    for (int i = 0; i < 4; ++i) {
        owned.push_back(std::make_unique<SleepyEvaluator>(20, &running, &peak));
        workers.push_back(owned.back().get());
    }
    EvaluatorPool pool(workers);
    EXPECT_EQ(pool.workers(), 4u);
    EXPECT_EQ(pool.case_count(), 3);
    EXPECT_THROW(pool.wait_any(), Error);
    for (int i = 0; i < 8; ++i) pool.submit({Variant{}}, 0);
    EXPECT_EQ(pool.in_flight(), 8u);
    std::set<std::uint64_t> tickets;
    for (int i = 0; i < 8; ++i) {
        const PoolResult r = pool.wait_any();
        EXPECT_EQ(r.result.results.size(), 1u);
        EXPECT_GE(r.finished_s, r.started_s);
        tickets.insert(r.ticket);
    }
    EXPECT_EQ(tickets.size(), 8u);
    EXPECT_EQ(peak.load(), 4) << "all four workers ran at once";
    double busy = 0;
    for (double b : pool.busy_s()) busy += b;
    EXPECT_GT(busy, 8 * 0.019);
}

TEST(AnnealPool, AnEvaluatorFailureReachesTheMaster) {
    std::atomic<int> running{0}, peak{0};
    SleepyEvaluator one(1, &running, &peak);
    EvaluatorPool pool({&one});
    pool.submit({}, -1);
    EXPECT_THROW(pool.wait_any(), Error);
    EXPECT_THROW(EvaluatorPool({}), Error);
}

TEST(AnnealPool, LockedEvaluatorSerialisesSharedUse) {
    std::atomic<int> running{0}, peak{0};
    SleepyEvaluator shared(10, &running, &peak);
    LockedEvaluator locked(shared);
    EvaluatorPool pool({&locked, &locked, &locked});
    for (int i = 0; i < 6; ++i) pool.submit({}, 0);
    for (int i = 0; i < 6; ++i) pool.wait_any();
    EXPECT_EQ(peak.load(), 1);
}

// ---- the master (appended to tests/search/anneal_test.cpp once the search stage is on main) ----

FakeLandscapeOptions anneal_landscape(int delay_ms = 0) {
    FakeLandscapeOptions options;
    options.random_effects = false;
    options.noise = 0.002;
    options.cases = 5;
    options.delay_ms = delay_ms;
    options.declared["BLOCK=128"] = FakeEffect::time(0.6);
    options.declared["<_k.cu_12>"] = FakeEffect::time(0.7);
    options.declared["<IF_k.cu_20><IF_k.cu_21>"] = FakeEffect::time(0.9);
    options.declared["ROWS=1"] = FakeEffect::time(1.5);
    options.declared["<_k.cu_10>"] = FakeEffect::wrong(3.0, 0.5);
    options.declared["<_k.cu_11>"] = FakeEffect::compile_error();
    return options;
}

// N fake evaluators over one landscape, as N workers would have.
struct Workers {
    std::vector<std::unique_ptr<FakeEvaluator>> owned;
    std::vector<Evaluator*> pointers;
    Workers(const Grammar& grammar, std::size_t n, const FakeLandscapeOptions& landscape) {
        for (std::size_t i = 0; i < n; ++i) {
            owned.push_back(std::make_unique<FakeEvaluator>(grammar, landscape));
            pointers.push_back(owned.back().get());
        }
    }
};

double best_speedup(const std::vector<AnnealIndividual>& individuals) {
    double best = 0;
    for (const AnnealIndividual& i : individuals)
        if (i.accepted) best = std::max(best, i.speedup);
    return best;
}

// One worker: with several, who is born from whom depends on which evaluation finishes first (thread
// timing), so whether 300 evaluations reach the optimum varied from run to run (it failed in CI at
// 1.86x). With one worker each seed's run is the same every time; annealing is a random search, so
// the claim is about seeds: 9 of these 10 reach the optimum in 300 evaluations (seed 7 stops at 1.86x).
TEST(AnnealMaster, ReachesTheKnownOptimum) {
    const Grammar grammar = testing::small_grammar();
    int reached = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        Workers workers(grammar, 1, anneal_landscape());
        EvaluatorPool pool(workers.pointers);
        AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, {}, seed);
        EXPECT_EQ(master.run(300).size(), 300u);
        reached += best_speedup(master.individuals()) > 1 / (0.6 * 0.7 * 0.9) * 0.99;
    }
    EXPECT_GE(reached, 9);
}

TEST(AnnealMaster, WithSeveralWorkersTheStartIsMeasuredOnce) {
    const Grammar grammar = testing::small_grammar();
    Workers workers(grammar, 4, anneal_landscape());
    EvaluatorPool pool(workers.pointers);
    AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, {}, 7);
    EXPECT_EQ(master.run(300).size(), 300u);
    // Individuals are kept in completion order, and with 4 workers a child may finish before the
    // starting genome: it must be there once, born Init, wherever it finished.
    const auto& all = master.individuals();
    EXPECT_EQ(std::count_if(all.begin(), all.end(), [](const auto& i) { return i.birth == Birth::Init; }), 1)
        << "the starting genome is measured, once";
}

TEST(AnnealMaster, KeepsEveryWorkerBusy) {
    const Grammar grammar = testing::small_grammar();
    Workers workers(grammar, 4, anneal_landscape(/*delay_ms=*/15));
    EvaluatorPool pool(workers.pointers);
    AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, {}, 8);
    master.run(80);
    // Work still in flight when run() returns counts towards the next call, not as idle time.
    EXPECT_EQ(master.in_flight(), 4u) << "no barrier: the workers are still busy after the block";
    double busy = 0;
    for (double b : pool.busy_s()) busy += b;
    const double utilisation = busy / (pool.elapsed_s() * 4);
    std::cout << "anneal worker utilisation (4 workers, 15 ms per evaluation): " << utilisation << "\n";
    EXPECT_GT(utilisation, 0.9) << "busy " << busy << " s of " << pool.elapsed_s() * 4;
}

TEST(AnnealMaster, BirthsAreEvenlySplitAndNoGenomeIsMeasuredTwice) {
    const Grammar grammar = testing::small_grammar();
    Workers workers(grammar, 3, anneal_landscape());
    EvaluatorPool pool(workers.pointers);
    AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, {}, 9);
    master.run(300);
    std::set<std::string> texts, keys;
    std::map<std::int64_t, const AnnealIndividual*> by_id;
    for (const AnnealIndividual& i : master.individuals()) {
        EXPECT_TRUE(texts.insert(i.text).second) << "measured twice: " << i.text;
        if (!i.key.empty()) EXPECT_TRUE(keys.insert(i.key).second) << "the same program twice: " << i.text;
        by_id[i.id] = &i;
    }
    const auto& made = master.births_made();
    int total = 0;
    for (Birth b : {Birth::Mutation, Birth::Crossover, Birth::Triangulation}) total += made.count(b) ? made.at(b) : 0;
    for (Birth b : {Birth::Crossover, Birth::Triangulation}) {
        ASSERT_TRUE(made.count(b)) << to_string(b);
        EXPECT_GT(made.at(b), total / 6) << to_string(b) << " is one of three equally likely births";
    }
    // Parents were measured before their children were made, and triangulation orders them by score.
    for (const AnnealIndividual& i : master.individuals()) {
        for (std::int64_t p : i.parents) EXPECT_LT(p, i.id);
        if (i.birth == Birth::Triangulation) {
            ASSERT_EQ(i.parents.size(), 3u);
            EXPECT_LE(by_id[i.parents[0]]->score.mean, by_id[i.parents[1]]->score.mean);
            EXPECT_LE(by_id[i.parents[1]]->score.mean, by_id[i.parents[2]]->score.mean);
        }
        if (i.birth == Birth::Crossover) EXPECT_EQ(i.parents.size(), 2u);
    }
}

TEST(AnnealMaster, OneWorkerAndOneSeedGiveOneRun) {
    const Grammar grammar = testing::small_grammar();
    auto genomes = [&](std::uint64_t seed) {
        Workers workers(grammar, 1, anneal_landscape());
        EvaluatorPool pool(workers.pointers);
        AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, {}, seed);
        master.run(60);
        std::vector<std::string> out;
        for (const AnnealIndividual& i : master.individuals()) out.push_back(i.text);
        return out;
    };
    EXPECT_EQ(genomes(5), genomes(5));
    EXPECT_NE(genomes(5), genomes(6));
}

TEST(AnnealMaster, ErrorBudgetDecidesWhoMayBeAParent) {
    const Grammar grammar = testing::small_grammar();
    Workers workers(grammar, 2, anneal_landscape());
    EvaluatorPool pool(workers.pointers);
    AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, {}, 10);
    master.run(200);
    std::set<std::int64_t> wrong;
    for (const AnnealIndividual& i : master.individuals()) {
        if (i.result.status != EvalStatus::Ok || i.result.error > 0) {
            EXPECT_EQ(i.score.mean, 0) << i.text;
            wrong.insert(i.id);
        }
    }
    ASSERT_FALSE(wrong.empty());
    for (const AnnealIndividual& i : master.individuals())
        for (std::int64_t p : i.parents) EXPECT_FALSE(wrong.count(p)) << "#" << i.id << " bred from failed #" << p;
}

TEST(AnnealMaster, SmallBatchesPerCallStillFillEveryWorker) {
    const Grammar grammar = testing::small_grammar();
    Workers workers(grammar, 2, anneal_landscape());
    EvaluatorPool pool(workers.pointers);
    AnnealOptions options;
    options.batch = 4;
    AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, options, 11);
    master.run(40);
    EXPECT_EQ(master.in_flight(), 2u);
    long long variants = 0;
    for (const auto& w : workers.owned) variants += w->variants_seen();
    long long calls = 0;
    for (const auto& w : workers.owned) calls += w->calls();
    EXPECT_GT(variants, 2 * calls - 2) << "calls carry several children";
    options.batch = 0;
    EXPECT_THROW(AnnealMaster(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, options, 1), UsageError);
}

// Issue 46: the PTX edit drawer compiles a parent's source once (0.3-0.5 s with nvcc's front end);
// the master hands it each individual that may be drawn as a parent, off its own thread, as it
// joins. The run is the one without a prefetch.
TEST(AnnealMaster, ReadiesTheDrawerForEachParentAsItJoinsAndDrawsAsWithout) {
    const Grammar grammar = testing::small_grammar();
    std::mutex mutex;
    std::vector<std::string> readied;
    std::atomic<int> calls{0};
    AnnealOptions options;
    options.prefetch = [&](const std::vector<Genome>& parents) {
        ++calls;
        std::lock_guard lock(mutex);
        for (const Genome& g : parents) readied.push_back(genome_to_text(g));
    };
    std::vector<std::string> with, without;
    std::set<std::string> parents;
    {
        Workers workers(grammar, 2, anneal_landscape());
        EvaluatorPool pool(workers.pointers);
        AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, options, 21);
        for (const AnnealIndividual& i : master.run(60)) with.push_back(i.text);
        master.wait_for_prefetch();
        parents.insert("");  // the starting genome, before anything ran
        for (const AnnealIndividual& i : master.individuals())
            if (i.score.mean > 0) parents.insert(i.text);
    }
    {
        Workers workers(grammar, 2, anneal_landscape());
        EvaluatorPool pool(workers.pointers);
        AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, AnnealOptions{}, 21);
        for (const AnnealIndividual& i : master.run(60)) without.push_back(i.text);
    }
    EXPECT_EQ(with, without);
    std::lock_guard lock(mutex);
    EXPECT_EQ(std::set<std::string>(readied.begin(), readied.end()), parents);
    EXPECT_EQ(readied.size(), parents.size()) << "each once";
    EXPECT_GT(parents.size(), 5u);
    EXPECT_GE(calls.load(), 1);
}

// The gate's prescreen (the guard zones on every gate case) comes first: a variant it rejects is
// never a parent, and compute-sanitizer does not run on it.
class PrescreeningChecker : public testing::OneByOneChecker {
public:
    std::set<std::string> sanitized, rejected;
    std::vector<std::optional<EvalResult>> prescreen(const std::vector<Variant>& variants, int) override {
        std::vector<std::optional<EvalResult>> out(variants.size());
        for (std::size_t i = 0; i < variants.size(); ++i)
            if (genome_to_text(variants[i].genome).find("ROWS=2") != std::string::npos) {
                EvalResult r;
                r.status = EvalStatus::SanitizerError;
                r.detail = "on gate case 3: the gate's guard pages found it reading past a buffer's end";
                out[i] = r;
                rejected.insert(genome_to_text(variants[i].genome));
            }
        return out;
    }
    EvalResult sanitize_one(const Variant& variant, int) override {
        sanitized.insert(genome_to_text(variant.genome));
        return {};
    }
    ValidationReport validate(const Variant&) override { return {}; }
};

TEST(AnnealMaster, APrescreenRejectionIsTheGatesVerdict) {
    const Grammar grammar = testing::small_grammar();
    Workers workers(grammar, 2, anneal_landscape());
    EvaluatorPool pool(workers.pointers);
    PrescreeningChecker checker;
    AnnealOptions options;
    options.checker = &checker;
    AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, nullptr, options, 13);
    master.run(200);
    ASSERT_FALSE(checker.rejected.empty());
    std::map<std::int64_t, const AnnealIndividual*> by_id;
    for (const AnnealIndividual& i : master.individuals()) by_id[i.id] = &i;
    for (const AnnealIndividual& i : master.individuals()) {
        if (checker.rejected.count(i.text)) {
            EXPECT_EQ(checker.sanitized.count(i.text), 0u) << i.text << ": compute-sanitizer ran on a rejected variant";
            EXPECT_EQ(i.result.status, EvalStatus::SanitizerError) << i.text;
        }
        for (std::int64_t p : i.parents) EXPECT_EQ(checker.rejected.count(by_id[p]->text), 0u) << "bred from " << by_id[p]->text;
    }
}

TEST(AnnealMaster, ContinuesFromTheHistoryDatabase) {
    const Grammar grammar = testing::small_grammar();
    const auto dir = std::filesystem::temp_directory_path() / ("gi-anneal-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::set<std::string> first_texts;
    {
        auto history = History::create(dir / kHistoryFileName, history_identity(grammar));
        Workers workers(grammar, 1, anneal_landscape());
        EvaluatorPool pool(workers.pointers);
        AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, history.get(), {}, 12);
        master.run(40);
        for (const AnnealIndividual& i : master.individuals()) first_texts.insert(i.text);
        EXPECT_EQ(history->individual_count(), 40);
    }
    auto history = History::resume(dir / kHistoryFileName, history_identity(grammar));
    Workers workers(grammar, 1, anneal_landscape());
    EvaluatorPool pool(workers.pointers);
    AnnealMaster master(grammar, Genome{}, grammar_edit_drawer(grammar), pool, history.get(), {}, 13);
    master.load_history();
    EXPECT_EQ(master.individuals().size(), 40u);
    const auto more = master.run(20);
    for (const AnnealIndividual& i : more) {
        EXPECT_FALSE(first_texts.count(i.text)) << "measured again after resuming: " << i.text;
        EXPECT_NE(i.birth, Birth::Init);
        EXPECT_GE(i.step, 40);
    }
    EXPECT_EQ(history->individual_count(), 60);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gi
