#include "search/anneal_draw.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "search/anneal_pool.hpp"
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
    std::string name() const override { return "sleepy"; }
    int case_count() const override { return 3; }
    bool measures_time() const override { return true; }
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

}  // namespace
}  // namespace gi
