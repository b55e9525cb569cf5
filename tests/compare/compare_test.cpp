#include "compare/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "util/error.hpp"

namespace gi {
namespace {

template <typename T>
Bytes bytes_of(const std::vector<T>& values) {
    Bytes out(values.size() * sizeof(T));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

template <typename T>
BufferComparison cmp(ElementType type, const std::vector<T>& expected, const std::vector<T>& actual,
                     const Tolerance& t = {}, bool poisoned = false) {
    const Bytes e = bytes_of(expected), a = bytes_of(actual);
    return compare_buffer(type, e.data(), a.data(), e.size(), t, poisoned);
}

TEST(Compare, IntegersAreExact) {
    const auto c = cmp<int>(ElementType::I32, {1, 2, 3, -4}, {1, 2, 5, -4});
    EXPECT_EQ(c.elements, 4u);
    EXPECT_EQ(c.mismatches, 1u);
    EXPECT_EQ(c.first_mismatch, 2);
    EXPECT_DOUBLE_EQ(c.worst_error, 2);
    EXPECT_DOUBLE_EQ(c.penalty, 2);
    // A tolerance never loosens integers.
    EXPECT_EQ(cmp<int>(ElementType::I32, {1}, {2}, Tolerance{5, 0, 0}).mismatches, 1u);
    // Penalty is capped per element.
    EXPECT_DOUBLE_EQ(cmp<int>(ElementType::I32, {0}, {100000}).penalty, kMaxPenalty);
    EXPECT_DOUBLE_EQ(cmp<unsigned>(ElementType::U32, {0}, {0xffffffffu}).worst_error, 4294967295.0);
}

TEST(Compare, FloatsExactByDefault) {
    EXPECT_EQ(cmp<float>(ElementType::F32, {1.0f}, {1.0f + 1e-7f}).mismatches, 1u);
    EXPECT_EQ(cmp<float>(ElementType::F32, {0.0f}, {-0.0f}).mismatches, 0u);
}

TEST(Compare, AbsoluteRelativeAndUlp) {
    EXPECT_EQ(cmp<float>(ElementType::F32, {1.0f}, {1.0005f}, parse_tolerance("abs=1e-3", "t")).mismatches, 0u);
    EXPECT_EQ(cmp<float>(ElementType::F32, {1.0f}, {1.002f}, parse_tolerance("abs=1e-3", "t")).mismatches, 1u);
    EXPECT_EQ(cmp<float>(ElementType::F32, {1000.0f}, {1000.5f}, parse_tolerance("rel=1e-3", "t")).mismatches, 0u);
    EXPECT_EQ(cmp<float>(ElementType::F32, {1.0f}, {1.5f}, parse_tolerance("rel=1e-3", "t")).mismatches, 1u);
    const float one = 1.0f;
    const float two_ulps = std::nextafter(std::nextafter(one, 2.0f), 2.0f);
    EXPECT_EQ(cmp<float>(ElementType::F32, {one}, {two_ulps}, parse_tolerance("ulp=2", "t")).mismatches, 0u);
    EXPECT_EQ(cmp<float>(ElementType::F32, {one}, {two_ulps}, parse_tolerance("ulp=1", "t")).mismatches, 1u);
    // ULPs across zero: smallest positive and smallest negative subnormal are 2 apart.
    const float tiny = std::numeric_limits<float>::denorm_min();
    EXPECT_EQ(cmp<float>(ElementType::F32, {tiny}, {-tiny}, parse_tolerance("ulp=2", "t")).mismatches, 0u);
    EXPECT_EQ(cmp<double>(ElementType::F64, {1.0}, {std::nextafter(1.0, 2.0)}, parse_tolerance("ulp=1", "t")).mismatches, 0u);
    // Any one bound passing is enough.
    EXPECT_EQ(cmp<float>(ElementType::F32, {1000.0f}, {1000.5f}, parse_tolerance("abs=1e-6,rel=1e-3", "t")).mismatches, 0u);
}

TEST(Compare, NaNNeverEqual) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto c = cmp<float>(ElementType::F32, {nan}, {nan}, parse_tolerance("abs=1e9", "t"));
    EXPECT_EQ(c.mismatches, 1u);
    EXPECT_EQ(c.non_finite, 0u);  // the original was not finite either
    c = cmp<float>(ElementType::F32, {1.0f}, {nan});
    EXPECT_EQ(c.non_finite, 1u);
    EXPECT_DOUBLE_EQ(c.penalty, kNonFinitePenalty);
    c = cmp<float>(ElementType::F32, {1.0f}, {std::numeric_limits<float>::infinity()}, parse_tolerance("rel=1", "t"));
    EXPECT_EQ(c.non_finite, 1u);
}

TEST(Compare, PoisonIsDetectedPerType) {
    for (ElementType type : {ElementType::F32, ElementType::F64, ElementType::I32, ElementType::U8, ElementType::F16,
                             ElementType::BF16, ElementType::Bytes, ElementType::I64}) {
        const std::size_t n = 4 * element_size(type);
        Bytes expected(n, 0), actual(n, 0);
        fill_poison(actual.data() + element_size(type), element_size(type), type);  // element 1 unwritten
        const auto c = compare_buffer(type, expected.data(), actual.data(), n, {}, true);
        EXPECT_EQ(c.unwritten, 1u) << to_string(type);
        EXPECT_EQ(c.first_mismatch, 1) << to_string(type);
        EXPECT_DOUBLE_EQ(c.penalty, kUnwrittenPenalty) << to_string(type);
        // Without poisoning the same bytes are an ordinary mismatch.
        EXPECT_EQ(compare_buffer(type, expected.data(), actual.data(), n, {}, false).unwritten, 0u);
    }
    // Float poison is a NaN, so even an unpoisoned compare cannot pass it.
    float poison;
    const Bytes p = poison_element(ElementType::F32);
    std::memcpy(&poison, p.data(), 4);
    EXPECT_TRUE(std::isnan(poison));
}

TEST(Compare, PartialTailComparedByteWise) {
    Bytes e{1, 0, 0, 0, 9, 9}, a{1, 0, 0, 0, 9, 8};
    const auto c = compare_buffer(ElementType::I32, e.data(), a.data(), e.size(), {}, false);
    EXPECT_EQ(c.elements, 3u);
    EXPECT_EQ(c.mismatches, 1u);
    Bytes poisoned(6);
    fill_poison(poisoned.data(), poisoned.size(), ElementType::F32);
    EXPECT_EQ(poisoned[4], 0xa5);
    EXPECT_EQ(poisoned[3], 0x7f);
}

TEST(Compare, SummaryErrorIsMeanPenalty) {
    const auto a = cmp<int>(ElementType::I32, {1, 2, 3, 4}, {1, 2, 3, 7});
    const auto b = cmp<int>(ElementType::I32, {0, 0, 0, 0}, {0, 0, 0, 0});
    const ErrorSummary s = summarise_comparisons({a, b}, {"out", "count"});
    EXPECT_EQ(s.elements, 8u);
    EXPECT_EQ(s.mismatches, 1u);
    EXPECT_DOUBLE_EQ(s.error, 3.0 / 8);
    EXPECT_FALSE(s.hard_failure);
    EXPECT_NE(s.detail.find("out: 1 of 4 elements differ, first at 3"), std::string::npos) << s.detail;
    Bytes e(8, 0), x(8, 0);
    fill_poison(x.data(), 4, ElementType::I32);
    const ErrorSummary hard = summarise_comparisons({compare_buffer(ElementType::I32, e.data(), x.data(), 8, {}, true)}, {"out"});
    EXPECT_TRUE(hard.hard_failure);
    EXPECT_NE(hard.detail.find("left unwritten"), std::string::npos);
    EXPECT_DOUBLE_EQ(summarise_comparisons({}, {}).error, 0);
}

// The F32 and F64 walks of their own must say exactly what the generic walk says: the same counts,
// the same first mismatch, and the same worst error and penalty sum bit for bit (the search ranks
// variants by the mean penalty), whatever mix of equal, close, far, NaN, infinite, signed-zero and
// poisoned elements, for every kind of tolerance, poisoned or not.
template <typename Float>
void expect_typed_walk_equals_generic(ElementType type) {
    std::mt19937 rng(11);
    const Bytes poison = poison_element(type);
    const Float inf = std::numeric_limits<Float>::infinity(), nan = std::numeric_limits<Float>::quiet_NaN();
    const std::vector<Tolerance> tolerances = {{}, {1e-3, 0, 0}, {0, 1e-5, 0}, {0, 0, 4}, {1e-6, 1e-4, 2}};
    for (int round = 0; round < 40; ++round) {
        const std::size_t n = 1 + rng() % 3000;
        std::vector<Float> e(n), a(n);
        for (std::size_t i = 0; i < n; ++i) {
            e[i] = std::uniform_real_distribution<Float>(-50, 50)(rng);
            switch (rng() % 12) {
                case 0: a[i] = e[i] + std::uniform_real_distribution<Float>(-1e-4, 1e-4)(rng); break;
                case 1: a[i] = e[i] * Float(1.0000001); break;
                case 2: a[i] = std::nextafter(e[i], inf); break;
                case 3: a[i] = e[i] + 500; break;   // beyond the maximum penalty
                case 4: a[i] = nan; break;
                case 5: e[i] = nan; a[i] = nan; break;
                case 6: a[i] = -inf; break;
                case 7: e[i] = inf; a[i] = inf; break;
                case 8: e[i] = 0; a[i] = -Float(0); break;
                case 9: std::memcpy(&a[i], poison.data(), sizeof(Float)); break;
                default: a[i] = e[i]; break;
            }
        }
        Bytes eb = bytes_of(e), ab = bytes_of(a);
        // A partial element at the end now and then, compared byte by byte by both.
        if (round % 5 == 0) {
            eb.push_back(1);
            ab.push_back(static_cast<unsigned char>(round % 2));
        }
        for (const Tolerance& t : tolerances)
            for (bool poisoned : {false, true})
                for (const Bytes* actual : {&ab, &eb}) {
                    SCOPED_TRACE("round " + std::to_string(round) + ", tolerance " + to_string(t) + (poisoned ? ", poisoned" : "") +
                                 (actual == &eb ? ", identical" : ""));
                    const BufferComparison typed = compare_buffer(type, eb.data(), actual->data(), eb.size(), t, poisoned);
                    const BufferComparison generic =
                        compare_buffer(type, eb.data(), actual->data(), eb.size(), t, poisoned, ElementWalk::Generic);
                    EXPECT_EQ(typed.elements, generic.elements);
                    EXPECT_EQ(typed.mismatches, generic.mismatches);
                    EXPECT_EQ(typed.unwritten, generic.unwritten);
                    EXPECT_EQ(typed.non_finite, generic.non_finite);
                    EXPECT_EQ(typed.first_mismatch, generic.first_mismatch);
                    EXPECT_EQ(std::memcmp(&typed.worst_error, &generic.worst_error, sizeof(double)), 0)
                        << typed.worst_error << " vs " << generic.worst_error;
                    EXPECT_EQ(std::memcmp(&typed.penalty, &generic.penalty, sizeof(double)), 0)
                        << typed.penalty << " vs " << generic.penalty;
                    if (actual == &ab && round == 0 && t.exact() && !poisoned) EXPECT_GT(generic.mismatches, 0u);
                }
    }
}

TEST(CompareBuffer, TypedWalkEqualsTheGenericOneForF32) { expect_typed_walk_equals_generic<float>(ElementType::F32); }
TEST(CompareBuffer, TypedWalkEqualsTheGenericOneForF64) { expect_typed_walk_equals_generic<double>(ElementType::F64); }

TEST(Tolerance, ParsesAndPrints) {
    EXPECT_TRUE(parse_tolerance("exact", "--tolerance").exact());
    const Tolerance t = parse_tolerance("abs=1e-3,ulp=4", "--tolerance");
    EXPECT_DOUBLE_EQ(t.abs, 1e-3);
    EXPECT_EQ(t.ulp, 4);
    EXPECT_EQ(to_string(t), "abs=0.001,ulp=4");
    EXPECT_EQ(to_string(Tolerance{}), "exact");
    const ToleranceSpec spec = parse_tolerance_spec({"rel=1e-5", "out:abs=0.5", "arg3:ulp=1"}, "--tolerance");
    EXPECT_DOUBLE_EQ(spec.all.rel, 1e-5);
    EXPECT_DOUBLE_EQ(spec.for_names({"in", "out"}).abs, 0.5);
    EXPECT_EQ(spec.for_names({"arg3"}).ulp, 1);
    EXPECT_DOUBLE_EQ(spec.for_names({"other"}).rel, 1e-5);
}

TEST(Tolerance, MalformedIsAUsageErrorNamingTheOption) {
    for (const std::string bad : {"", "abs", "abs=", "abs=-1", "abs=x", "rel=nan", "ulp=1.5", "ulp=-2", "near=3",
                                  "abs=1e-3,", ":abs=1"}) {
        try {
            parse_tolerance_spec({bad}, "--tolerance");
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find("--tolerance"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// The worker compares a large differing output in parts on several threads: the same counts, worst
// error and first mismatch as one walk, the penalty equal up to the grouping of its sum.
void expect_parts_equal_one_walk(const Bytes& expected, const Bytes& actual, ElementType type, bool poisoned) {
    const Tolerance tolerance = parse_tolerance("abs=1e-3", "t");
    const BufferComparison one = compare_buffer(type, expected.data(), actual.data(), expected.size(), tolerance, poisoned);
    for (unsigned threads : {2u, 3u, 8u}) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        const BufferComparison parts =
            compare_buffer_parallel(type, expected.data(), actual.data(), expected.size(), tolerance, poisoned, threads);
        EXPECT_EQ(parts.elements, one.elements);
        EXPECT_EQ(parts.mismatches, one.mismatches);
        EXPECT_EQ(parts.unwritten, one.unwritten);
        EXPECT_EQ(parts.non_finite, one.non_finite);
        EXPECT_EQ(parts.first_mismatch, one.first_mismatch);
        EXPECT_EQ(parts.worst_error, one.worst_error);
        EXPECT_NEAR(parts.penalty, one.penalty, 1e-12 * std::max(1.0, one.penalty));
    }
}

TEST(CompareBuffer, PartsOnThreadsAgreeWithOneWalk) {
    std::mt19937 rng(5);
    const std::size_t n = 3 * kParallelCompareElements + 7;
    std::vector<float> e(n), a(n);
    for (std::size_t i = 0; i < n; ++i) e[i] = a[i] = std::uniform_real_distribution<float>(-5, 5)(rng);
    Bytes eb = bytes_of(e);
    expect_parts_equal_one_walk(eb, bytes_of(a), ElementType::F32, true);  // identical, one memcmp a part
    // Mismatches only in the last part: the first one's index is counted from the buffer's start.
    a[n - 3] += 1.0f;
    expect_parts_equal_one_walk(eb, bytes_of(a), ElementType::F32, true);
    const BufferComparison late = compare_buffer_parallel(ElementType::F32, eb.data(), bytes_of(a).data(), eb.size(), {}, true, 4);
    EXPECT_EQ(late.first_mismatch, static_cast<std::int64_t>(n - 3));
    // Differences, NaN, poison and values within tolerance all over, and a partial last element.
    const Bytes poison = poison_element(ElementType::F32);
    for (std::size_t i = 0; i < n; i += 1 + rng() % 97) {
        switch (rng() % 4) {
            case 0: a[i] = e[i] + 1e-4f; break;
            case 1: a[i] = e[i] + 7.0f; break;
            case 2: a[i] = std::numeric_limits<float>::quiet_NaN(); break;
            default: std::memcpy(&a[i], poison.data(), sizeof(float)); break;
        }
    }
    Bytes ab = bytes_of(a);
    eb.push_back(3);
    ab.push_back(4);
    expect_parts_equal_one_walk(eb, ab, ElementType::F32, true);
    expect_parts_equal_one_walk(eb, ab, ElementType::U8, false);
    // Small buffers and one thread: one walk, bit for bit.
    const BufferComparison small = compare_buffer_parallel(ElementType::F32, eb.data(), ab.data(), 4096, {}, true, 8);
    const BufferComparison small_one = compare_buffer(ElementType::F32, eb.data(), ab.data(), 4096, {}, true);
    EXPECT_EQ(std::memcmp(&small.penalty, &small_one.penalty, sizeof(double)), 0);
    EXPECT_EQ(small.mismatches, small_one.mismatches);
}

}  // namespace
}  // namespace gi
