#include "history/history_evaluator.hpp"

#include <gtest/gtest.h>

#include "evaluate/variant_checker.hpp"
#include "history_test_util.hpp"

namespace gi {
namespace {

using test::CountingEvaluator;
using test::scratch_dir;
using test::test_identity;
using test::variant;

TEST(HistoryEvaluator, NeverMeasuresAProgramTwiceOnACase) {
    const auto dir = scratch_dir("evaluator");
    auto history = History::create(dir / kHistoryFileName, test_identity());
    CountingEvaluator inner;
    inner.times["fast"] = 0.5;
    HistoryEvaluator cached(inner, *history);

    BatchResult first = cached.evaluate({variant("fast"), variant("slow"), variant("fast"), variant("bad1")}, 1);
    ASSERT_EQ(first.results.size(), 4u);
    EXPECT_EQ(first.results[0].time.median_ms, 0.5);
    EXPECT_EQ(first.results[2].time.median_ms, 0.5) << "a repeat in the batch gets the same result";
    EXPECT_EQ(first.results[3].status, EvalStatus::CompileError);
    EXPECT_EQ((inner.seen[{"fast", 1}]), 1);
    EXPECT_EQ(cached.misses(), 3);

    BatchResult second = cached.evaluate({variant("slow"), variant("fast"), variant("new")}, 1);
    EXPECT_EQ((inner.seen[{"fast", 1}]), 1);
    EXPECT_EQ((inner.seen[{"slow", 1}]), 1);
    EXPECT_EQ((inner.seen[{"new", 1}]), 1);
    EXPECT_EQ(second.results[1].time.median_ms, 0.5);
    EXPECT_EQ(second.original.median_ms, 3.0);
    EXPECT_EQ(cached.hits(), 2);

    // Another case is a new measurement.
    cached.evaluate({variant("fast")}, 2);
    EXPECT_EQ((inner.seen[{"fast", 2}]), 1);

    // A batch answered wholly from the database does not call the evaluator and still has an original.
    const int calls = inner.calls;
    BatchResult third = cached.evaluate({variant("fast"), variant("bad1")}, 1);
    EXPECT_EQ(inner.calls, calls);
    EXPECT_EQ(third.original.median_ms, 3.0);
    EXPECT_EQ(third.results[1].detail, "error: expected ';'");
}

// The cache stands in for the evaluator everywhere search holds it: what the evaluator is, its report
// and its gate are the inner one's.
class ReportingCountingEvaluator : public CountingEvaluator, public VariantChecker {
public:
    EvaluatorReport report() override {
        EvaluatorReport r;
        r.device = "a GPU";
        r.time_spent = {{"variant runs", 1.5}};
        return r;
    }
    VariantChecker* checker() override { return this; }
    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int) override {
        return std::vector<EvalResult>(variants.size());
    }
    ValidationReport validate(const Variant&) override { return {}; }
};

TEST(HistoryEvaluator, IsTheInnerEvaluatorButForEvaluate) {
    const auto dir = scratch_dir("evaluator-view");
    auto history = History::create(dir / kHistoryFileName, test_identity());
    ReportingCountingEvaluator inner;
    HistoryEvaluator cached(inner, *history);
    EXPECT_EQ(cached.name(), "counting");
    EXPECT_EQ(cached.case_count(), 4);
    EXPECT_TRUE(cached.traits().measures_time);
    EXPECT_EQ(cached.report().device, "a GPU");
    ASSERT_EQ(cached.report().time_spent.size(), 1u);
    EXPECT_EQ(cached.report().time_spent[0].seconds, 1.5);
    EXPECT_EQ(cached.checker(), static_cast<VariantChecker*>(&inner));
}

TEST(HistoryEvaluator, TheCacheOutlivesTheSession) {
    const auto dir = scratch_dir("evaluator-resume");
    {
        auto history = History::create(dir / kHistoryFileName, test_identity());
        CountingEvaluator inner;
        HistoryEvaluator cached(inner, *history);
        cached.evaluate({variant("a"), variant("b")}, 0);
    }
    auto history = History::resume(dir / kHistoryFileName, test_identity());
    CountingEvaluator inner;
    HistoryEvaluator cached(inner, *history);
    cached.evaluate({variant("a"), variant("b"), variant("c")}, 0);
    EXPECT_EQ((inner.seen[{"a", 0}]), 0);
    EXPECT_EQ((inner.seen[{"c", 0}]), 1);
}

}  // namespace
}  // namespace gi
