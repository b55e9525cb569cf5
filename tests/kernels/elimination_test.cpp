// kernels/elimination: the CPU reference solves the system (back substitution recovers the known
// solution), and elimination.cu itself, run on the CPU emulator, does each step as the reference
// does, for sizes around the block sizes.
#include <gtest/gtest.h>

#include <cmath>

#include "elimination/reference.hpp"
#include "emulator/corpus_kernels.hpp"

namespace gi::elimination {
namespace {

TEST(EliminationReference, EliminationAndBackSubstitutionRecoverTheSolution) {
    const int n = 40;
    const System s = make_system(n, 2);
    std::vector<double> a(s.a.begin(), s.a.end()), b(s.b.begin(), s.b.end());
    eliminate_reference(a, b, n);
    for (int i = 1; i < n; ++i)
        for (int j = 0; j < i; ++j) EXPECT_NEAR(a[i * n + j], 0.0, 1e-12) << i << "," << j;
    const std::vector<double> x = back_substitute(std::vector<float>(a.begin(), a.end()), std::vector<float>(b.begin(), b.end()), n);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(x[i], s.x_true[i], 1e-5) << i;
}

TEST(EliminationReference, TheFloatStepsMatchTheDoubleElimination) {
    const int n = 25;
    const System s = make_system(n, 3);
    std::vector<float> a = s.a, b = s.b, m(a.size(), 0.0f);
    for (int t = 0; t + 1 < n; ++t) {
        multipliers_reference(a, m, n, t);
        rows_reference(a, b, m, n, t);
    }
    std::vector<double> da(s.a.begin(), s.a.end()), db(s.b.begin(), s.b.end());
    eliminate_reference(da, db, n);
    for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], da[k], 1e-4 * (1 + std::abs(da[k]))) << k;
    for (int i = 0; i < n; ++i) EXPECT_NEAR(b[i], db[i], 1e-4 * (1 + std::abs(db[i]))) << i;
}

TEST(EliminationReference, TheSystemIsSeeded) {
    EXPECT_EQ(make_system(30, 1).a, make_system(30, 1).a);
    EXPECT_NE(make_system(30, 1).b, make_system(30, 2).b);
    EXPECT_THROW(make_system(0, 1), std::invalid_argument);
}

TEST(EliminationEmulated, EveryConfigurationStepsAsTheReference) {
    ASSERT_GE(emu::elimination_configs().size(), 2u);
    for (int n : {2, 17, 37}) {
        const System s = make_system(n, n);
        for (const emu::EliminationConfig& config : emu::elimination_configs()) {
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                SCOPED_TRACE(config.name + " n=" + std::to_string(n) + (order == emu::Order::Forward ? " forward" : " reverse"));
                std::vector<float> a = s.a, b = s.b, m(a.size(), 0.0f);
                std::vector<float> ea = s.a, eb = s.b, em(a.size(), 0.0f);
                for (int t = 0; t + 1 < n; ++t) {
                    config.step(a, b, m, n, t, order);
                    multipliers_reference(ea, em, n, t);
                    rows_reference(ea, eb, em, n, t);
                    ASSERT_EQ(a, ea) << "step " << t;
                    ASSERT_EQ(b, eb) << "step " << t;
                    ASSERT_EQ(m, em) << "step " << t;
                }
            }
        }
    }
}

}  // namespace
}  // namespace gi::elimination
