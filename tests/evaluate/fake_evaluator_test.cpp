#include "evaluate/fake_evaluator.hpp"

#include <gtest/gtest.h>

#include <set>

#include "../support/search_test_support.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

std::vector<Variant> variants_of(const Grammar& grammar, const std::vector<std::string>& genomes) {
    std::vector<Variant> variants;
    for (const std::string& text : genomes) variants.push_back(make_variant(parse_genome(text), grammar));
    return variants;
}

TEST(FakeEvaluator, SameSeedSameNumbersDifferentSeedDifferentLandscape) {
    const Grammar grammar = testing::small_grammar();
    const auto variants = variants_of(grammar, {"", "BLOCK=32", "<_k.cu_10>", "<_k.cu_11>+<_k.cu_12>", "ROWS=1"});
    FakeLandscapeOptions options;
    options.seed = 4;
    FakeEvaluator a(grammar, options), b(grammar, options);
    options.seed = 5;
    FakeEvaluator c(grammar, options);
    bool differs = false;
    for (int case_index = 0; case_index < 8; ++case_index) {
        const BatchResult x = a.evaluate(variants, case_index), y = b.evaluate(variants, case_index);
        const BatchResult z = c.evaluate(variants, case_index);
        EXPECT_EQ(x.original.median_ms, y.original.median_ms);
        differs |= x.original.median_ms != z.original.median_ms;
        for (std::size_t i = 0; i < variants.size(); ++i) {
            EXPECT_EQ(x.results[i].status, y.results[i].status);
            EXPECT_EQ(x.results[i].time.median_ms, y.results[i].time.median_ms);
            EXPECT_EQ(x.results[i].error, y.results[i].error);
            differs |= x.results[i].status != z.results[i].status || x.results[i].time.median_ms != z.results[i].time.median_ms;
        }
    }
    EXPECT_TRUE(differs);
    // Calling again, in another order, gives the same numbers: nothing depends on call history.
    const BatchResult again = a.evaluate({variants[3], variants[1]}, 2);
    const BatchResult first = b.evaluate(variants, 2);
    EXPECT_EQ(again.results[0].time.median_ms, first.results[3].time.median_ms);
    EXPECT_EQ(again.results[1].time.median_ms, first.results[1].time.median_ms);
}

TEST(FakeEvaluator, DeclaredEffectsAreExact) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions options;
    options.noise = 0;
    options.random_effects = false;
    options.declared["BLOCK=128"] = FakeEffect::time(0.5);
    options.declared["<_k.cu_10>"] = FakeEffect::time(0.8);
    options.declared["<_k.cu_11>"] = FakeEffect::wrong(2.5, 0.9);
    options.declared["<_k.cu_12>"] = FakeEffect::compile_error();
    options.declared["<_k.cu_13>"] = FakeEffect::crash();
    FakeEvaluator fake(grammar, options);
    const double base = fake.base_time_ms(3);
    const BatchResult batch = fake.evaluate(
        variants_of(grammar, {"BLOCK=128 <_k.cu_10>", "<_k.cu_11>", "<_k.cu_10> <_k.cu_12>", "<_k.cu_13>",
                              "BLOCK=64 <_k.cu_14>", "<_k.cu_10> <_k.cu_10>"}),
        3);
    EXPECT_DOUBLE_EQ(batch.original.median_ms, base);
    EXPECT_DOUBLE_EQ(batch.results[0].time.median_ms, base * 0.5 * 0.8);
    EXPECT_EQ(batch.results[1].status, EvalStatus::Ok);
    EXPECT_DOUBLE_EQ(batch.results[1].error, 2.5);
    EXPECT_DOUBLE_EQ(batch.results[1].time.median_ms, base * 0.9);
    EXPECT_EQ(batch.results[2].status, EvalStatus::CompileError);
    EXPECT_NE(batch.results[2].detail.find("<_k.cu_12>"), std::string::npos);
    EXPECT_EQ(batch.results[3].status, EvalStatus::Crash);
    // A setting equal to the default and an undeclared edit are neutral; a repeated edit counts once.
    EXPECT_DOUBLE_EQ(batch.results[4].time.median_ms, base);
    EXPECT_DOUBLE_EQ(batch.results[5].time.median_ms, base * 0.8);
    EXPECT_EQ(fake.calls(), 1);
    EXPECT_EQ(fake.variants_seen(), 6);
}

TEST(FakeEvaluator, NoiseIsBoundedAndReportedAsSpread) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions options;
    options.noise = 0.02;
    options.random_effects = false;
    FakeEvaluator fake(grammar, options);
    std::set<double> medians;
    for (int case_index = 0; case_index < 8; ++case_index) {
        const BatchResult batch = fake.evaluate(variants_of(grammar, {"<_k.cu_10>"}), case_index);
        const double base = fake.base_time_ms(case_index);
        EXPECT_GE(base, 1.0);
        EXPECT_LT(base, 2.0);
        EXPECT_NEAR(batch.results[0].time.median_ms, base, 0.02 * base + 1e-12);
        EXPECT_DOUBLE_EQ(batch.results[0].time.spread_ms, 0.02 * base);
        medians.insert(batch.results[0].time.median_ms / base);
    }
    EXPECT_GT(medians.size(), 4u);  // the noise really varies between cases
}

TEST(FakeEvaluator, RandomLandscapeHasEveryKindOfEffect) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, FakeLandscapeOptions{});
    std::set<FakeEffect::Kind> kinds;
    int faster = 0, slower = 0;
    for (int i = 0; i < 400; ++i) {
        const FakeEffect effect = fake.effect_of("<_k.cu_" + std::to_string(i) + ">");
        kinds.insert(effect.kind);
        faster += effect.kind == FakeEffect::Kind::Time && effect.time_factor < 1;
        slower += effect.kind == FakeEffect::Kind::Time && effect.time_factor > 1;
    }
    EXPECT_EQ(kinds.size(), 4u);
    EXPECT_GT(faster, 40);
    EXPECT_GT(slower, 40);
}

TEST(FakeEvaluator, BadSettingsAndCasesAreErrors) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions options;
    apply_fake_setting(options, "seed=9", "--fake");
    apply_fake_setting(options, "cases=3", "--fake");
    apply_fake_setting(options, "noise=0.05", "--fake");
    apply_fake_setting(options, "delay-ms=0", "--fake");
    apply_fake_setting(options, "random=0", "--fake");
    EXPECT_EQ(options.seed, 9u);
    EXPECT_EQ(options.cases, 3);
    EXPECT_EQ(options.noise, 0.05);
    EXPECT_FALSE(options.random_effects);
    for (const char* bad : {"seed", "seed=x", "cases=0", "cases=2.5", "noise=-1", "noise=2", "random=2",
                            "colour=3", "delay-ms=-5"}) {
        try {
            apply_fake_setting(options, bad, "--fake");
            ADD_FAILURE() << bad << " was accepted";
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find("--fake"), std::string::npos) << e.what();
        }
    }
    FakeEvaluator fake(grammar, options);
    EXPECT_EQ(fake.case_count(), 3);
    EXPECT_THROW(fake.evaluate({}, 3), Error);
    EXPECT_THROW(fake.evaluate({}, -1), Error);
    // A setting the grammar does not allow cannot compile.
    Variant odd;
    odd.genome = parse_genome("BLOCK=7");
    EXPECT_EQ(fake.evaluate({odd}, 0).results[0].status, EvalStatus::CompileError);
}

}  // namespace
}  // namespace gi
