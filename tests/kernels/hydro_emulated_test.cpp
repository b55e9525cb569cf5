// hydro.cu itself, run on the CPU emulator under the Paraiso genes (Delayed, Manifest face states,
// Manifest fluxes, both, extra barriers, other tiles) must match the CPU solver stage by stage on a
// grid that leaves partial tiles, with both boundary kinds, whichever order threads run in.
#include <gtest/gtest.h>

#include <cmath>

#include "emulator/emulated_kernels.hpp"
#include "hydro/reference.hpp"

namespace gi::hydro {
namespace {

void expect_close(const State<float>& got, const State<float>& expected, const std::string& what) {
    ASSERT_EQ(got.u.size(), expected.u.size()) << what;
    long long bad = 0;
    for (std::size_t k = 0; k < got.u.size(); ++k) {
        if (!(std::abs(got.u[k] - expected.u[k]) <= 1e-5f * (1 + std::abs(expected.u[k])))) {
            if (bad++ < 3) ADD_FAILURE() << what << ": value " << k << " kernel " << got.u[k] << " reference " << expected.u[k];
        }
    }
    EXPECT_EQ(bad, 0) << what;
}

TEST(HydroEmulated, EveryConfigurationMatchesTheReferenceOverTwoSteps) {
    ASSERT_GE(emu::hydro_configs().size(), 4u);
    const float gamma = 1.4f;
    for (Problem problem : {Problem::Blasts, Problem::SodX, Problem::KelvinHelmholtz}) {
        const Boundaries boundaries = setup_for(problem).boundaries;
        const State<float> start = initial_state<float>(problem, 37, 29, 3);
        for (const emu::HydroConfig& config : emu::hydro_configs()) {
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                const std::string what = config.name + " " + to_string(problem) +
                                         (order == emu::Order::Forward ? " forward" : " reverse");
                State<float> u = start, expected = start;
                for (int n = 0; n < 2; ++n) {
                    const double dt = cfl_time_step(expected, gamma, 0.4);
                    const float half_x = float(0.5 * dt * u.nx), half_y = float(0.5 * dt * u.ny);
                    const State<float> half = config.run(u, u, half_x, half_y, gamma, boundaries, order);
                    u = config.run(half, u, float(dt * u.nx), float(dt * u.ny), gamma, boundaries, order);
                    step(expected, dt, gamma, boundaries);
                }
                expect_close(u, expected, what);
            }
        }
    }
}

}  // namespace
}  // namespace gi::hydro
