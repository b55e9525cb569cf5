// The hydrodynamics example's CPU solver: the seed's convergence tests (003 section 4.1) against
// analytic solutions at low resolution, symmetry between the axes, conservation, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "hydro/reference.hpp"
#include "util/error.hpp"

namespace gi::hydro {
namespace {

// L1 density error at the problem's end time on an n-cell line (4 cells across, periodic).
double error_at(Problem problem, int n) {
    const ProblemSetup setup = setup_for(problem);
    const bool along_y = problem == Problem::EntropyWaveY || problem == Problem::SodY;
    State<double> s = initial_state<double>(problem, along_y ? 4 : n, along_y ? n : 4);
    evolve(s, setup.end_time, setup.gamma, setup.boundaries);
    return density_l1_error(s, problem, setup.end_time, setup.gamma);
}

double order(double coarse, double fine) { return std::log2(coarse / fine); }

TEST(HydroReference, ExactRiemannSolverGivesSodsStarStates) {
    const std::array<double, 3> left{1, 0, 1}, right{0.125, 0, 0.1};
    const auto star_left = exact_riemann(left, right, 1.4, 0.9);
    EXPECT_NEAR(star_left[0], 0.42632, 1e-5);
    EXPECT_NEAR(star_left[1], 0.92745, 1e-5);
    EXPECT_NEAR(star_left[2], 0.30313, 1e-5);
    const auto star_right = exact_riemann(left, right, 1.4, 1.0);
    EXPECT_NEAR(star_right[0], 0.26557, 1e-5);
    EXPECT_EQ(exact_riemann(left, right, 1.4, -2.0), left);   // ahead of the rarefaction head
    EXPECT_EQ(exact_riemann(left, right, 1.4, 2.0), right);   // ahead of the shock
    const auto fan = exact_riemann(left, right, 1.4, -0.5);   // inside the rarefaction
    EXPECT_LT(fan[0], 1.0);
    EXPECT_GT(fan[0], 0.42632);
    EXPECT_EQ(exact_riemann(left, left, 1.4, 0.3), left);
}

TEST(HydroReference, EntropyWaveConvergesAtSecondOrder) {
    const double e32 = error_at(Problem::EntropyWaveX, 32), e64 = error_at(Problem::EntropyWaveX, 64),
                 e128 = error_at(Problem::EntropyWaveX, 128);
    EXPECT_GT(order(e32, e64), 1.5) << e32 << " " << e64;
    EXPECT_GT(order(e64, e128), 1.7) << e64 << " " << e128;
    EXPECT_LT(e128, 1e-2);
}

TEST(HydroReference, SoundWaveConvergesAtSecondOrder) {
    const double e32 = error_at(Problem::SoundWaveX, 32), e64 = error_at(Problem::SoundWaveX, 64),
                 e128 = error_at(Problem::SoundWaveX, 128);
    EXPECT_GT(order(e32, e64), 1.5) << e32 << " " << e64;
    EXPECT_GT(order(e64, e128), 1.7) << e64 << " " << e128;
    EXPECT_LT(e128 / (1.4e-5), 1e-2);  // relative to the wave's density amplitude
}

TEST(HydroReference, SodShockTubeConverges) {
    const double e32 = error_at(Problem::SodX, 32), e64 = error_at(Problem::SodX, 64),
                 e128 = error_at(Problem::SodX, 128);
    // Discontinuities limit L1 convergence to below first order.
    EXPECT_GT(order(e32, e64), 0.7) << e32 << " " << e64;
    EXPECT_GT(order(e64, e128), 0.7) << e64 << " " << e128;
    EXPECT_LT(e128, 7e-3);
}

TEST(HydroReference, AxesAreTreatedAlike) {
    EXPECT_NEAR(error_at(Problem::EntropyWaveY, 32), error_at(Problem::EntropyWaveX, 32), 1e-12);
    EXPECT_NEAR(error_at(Problem::SodY, 32), error_at(Problem::SodX, 32), 1e-12);
}

TEST(HydroReference, PeriodicStepsConserveMassMomentumAndEnergy) {
    State<double> s = initial_state<double>(Problem::KelvinHelmholtz, 32, 32, 4);
    const auto totals = [](const State<double>& st) {
        std::array<double, 4> t{};
        for (int q = 0; q < 4; ++q)
            for (int j = 0; j < st.ny; ++j)
                for (int i = 0; i < st.nx; ++i) t[q] += st.at(q, i, j);
        return t;
    };
    const auto before = totals(s);
    const State<double> start = s;
    for (int n = 0; n < 5; ++n) step(s, cfl_time_step(s, 1.4, 0.4), 1.4, {true, true});
    const auto after = totals(s);
    for (int q = 0; q < 4; ++q) EXPECT_NEAR(after[q], before[q], 1e-10 * (1 + std::abs(before[q]))) << q;
    EXPECT_NE(s.u, start.u);
}

TEST(HydroReference, FloatAndDoubleSolversAgree) {
    State<float> f = initial_state<float>(Problem::Blasts, 24, 20, 2);
    State<double> d = initial_state<double>(Problem::Blasts, 24, 20, 2);
    for (int n = 0; n < 4; ++n) {
        const double dt = cfl_time_step(d, 1.4, 0.4);
        step(f, dt, 1.4, {true, true});
        step(d, dt, 1.4, {true, true});
    }
    for (std::size_t k = 0; k < d.u.size(); ++k) ASSERT_NEAR(f.u[k], d.u[k], 1e-4 * (1 + std::abs(d.u[k]))) << k;
}

TEST(HydroReference, SeededFlowsDependOnTheSeed) {
    EXPECT_EQ(initial_state<float>(Problem::Blasts, 32, 32, 5).u, initial_state<float>(Problem::Blasts, 32, 32, 5).u);
    EXPECT_NE(initial_state<float>(Problem::Blasts, 32, 32, 5).u, initial_state<float>(Problem::Blasts, 32, 32, 6).u);
    EXPECT_NE(initial_state<float>(Problem::KelvinHelmholtz, 32, 32, 5).u,
              initial_state<float>(Problem::KelvinHelmholtz, 32, 32, 6).u);
}

TEST(HydroReference, RejectsBadInput) {
    EXPECT_THROW(initial_state<double>(Problem::SodX, 0, 4), Error);
    EXPECT_THROW(initial_state<double>(Problem::SodX, 4, 70000), Error);
    EXPECT_THROW(exact_solution(Problem::Blasts, 0.5, 0.5, 0.1, 1.4), Error);
    EXPECT_THROW(exact_riemann({1, -10, 0.1}, {1, 10, 0.1}, 1.4, 0.0), Error);  // vacuum
    State<double> a = initial_state<double>(Problem::SodX, 8, 4), b = initial_state<double>(Problem::SodX, 8, 5);
    EXPECT_THROW(stage(a, b, a, 0.1, 0.1, 1.4, {false, true}), Error);
    a.at(3, 2, 1) = -1.0;  // negative energy: no sound speed
    EXPECT_THROW(cfl_time_step(a, 1.4, 0.4), Error);
}

}  // namespace
}  // namespace gi::hydro
