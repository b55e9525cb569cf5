// kernels/thermal: the CPU reference behaves as heat does (a uniform die at ambient stays there,
// heat flows from hot to cold without overshooting, nothing leaves through the edges sideways),
// and thermal.cu itself, run on the CPU emulator, matches it on grids that leave partial tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "emulator/corpus_kernels.hpp"
#include "thermal/reference.hpp"

namespace gi::thermal {
namespace {

TEST(ThermalReference, AUniformDieAtAmbientWithoutPowerStaysThere) {
    const int rows = 9, cols = 13;
    const Coefficients k = coefficients_for(rows, cols);
    const std::vector<float> power(rows * cols, 0.0f), in(rows * cols, k.ambient);
    std::vector<float> out;
    thermal_step_reference(power, in, out, rows, cols, k);
    for (float t : out) EXPECT_EQ(t, k.ambient);
}

TEST(ThermalReference, AHotCellWarmsItsNeighboursAndCoolsWithoutOvershoot) {
    const int rows = 7, cols = 7;
    const Coefficients k = coefficients_for(rows, cols);
    ASSERT_GT(k.step_over_cap, 0.0f);
    // Stable: a cell keeps a positive weight of its own temperature.
    EXPECT_LE(k.step_over_cap * (2 * k.rx_inv + 2 * k.ry_inv + k.rz_inv), 1.0f);
    const std::vector<float> power(rows * cols, 0.0f);
    std::vector<float> in(rows * cols, k.ambient), out;
    in[3 * cols + 3] = k.ambient + 10;
    thermal_step_reference(power, in, out, rows, cols, k);
    EXPECT_LT(out[3 * cols + 3], k.ambient + 10);
    EXPECT_GT(out[3 * cols + 3], k.ambient);
    for (int n : {2 * cols + 3, 4 * cols + 3, 3 * cols + 2, 3 * cols + 4}) EXPECT_GT(out[n], k.ambient) << n;
    EXPECT_EQ(out[0], k.ambient);  // two cells away: not reached in one step
    // Square cells: the four neighbours warm alike.
    EXPECT_FLOAT_EQ(out[2 * cols + 3], out[3 * cols + 2]);
}

TEST(ThermalReference, NoHeatLeavesThroughTheEdgesSideways) {
    // Without the sink (rz = 0) and power, lateral flow only moves heat around: the total stays.
    const int rows = 6, cols = 11;
    Coefficients k = coefficients_for(rows, cols);
    k.rz_inv = 0;
    const Floorplan plan = make_floorplan(rows, cols, 4);
    const std::vector<float> power(rows * cols, 0.0f);
    std::vector<float> out;
    thermal_step_reference(power, plan.temperature, out, rows, cols, k);
    const double before = std::accumulate(plan.temperature.begin(), plan.temperature.end(), 0.0);
    const double after = std::accumulate(out.begin(), out.end(), 0.0);
    EXPECT_NEAR(after, before, 1e-6 * before);
    EXPECT_NE(out, plan.temperature);
}

TEST(ThermalReference, TheFloorplanIsSeededAndPhysical) {
    const Floorplan a = make_floorplan(40, 30, 7), b = make_floorplan(40, 30, 7), c = make_floorplan(40, 30, 8);
    EXPECT_EQ(a.power, b.power);
    EXPECT_EQ(a.temperature, b.temperature);
    EXPECT_NE(a.power, c.power);
    const Coefficients k = coefficients_for(40, 30);
    for (float p : a.power) EXPECT_GT(p, 0.0f);
    for (float t : a.temperature) EXPECT_GT(t, k.ambient);
    EXPECT_THROW(make_floorplan(0, 10, 1), std::invalid_argument);
}

TEST(ThermalEmulated, EveryConfigurationMatchesTheReferenceStepByStep) {
    ASSERT_GE(emu::thermal_configs().size(), 2u);
    for (auto [rows, cols] : {std::pair{37, 29}, std::pair{16, 16}, std::pair{1, 5}}) {
        const Floorplan plan = make_floorplan(rows, cols, 3);
        const Coefficients k = coefficients_for(rows, cols);
        for (const emu::ThermalConfig& config : emu::thermal_configs()) {
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                SCOPED_TRACE(config.name + " " + std::to_string(rows) + "x" + std::to_string(cols) +
                             (order == emu::Order::Forward ? " forward" : " reverse"));
                std::vector<float> got = plan.temperature, expected = plan.temperature, scratch;
                for (int step = 0; step < 3; ++step) {
                    got = config.run(plan.power, got, rows, cols, k, order);
                    thermal_step_reference(plan.power, expected, scratch, rows, cols, k);
                    std::swap(expected, scratch);
                }
                long long bad = 0;
                for (std::size_t i = 0; i < got.size(); ++i)
                    if (!(std::abs(got[i] - expected[i]) <= 1e-4f) && bad++ < 3)
                        ADD_FAILURE() << "cell " << i << ": kernel " << got[i] << ", reference " << expected[i];
                EXPECT_EQ(bad, 0);
            }
        }
    }
}

}  // namespace
}  // namespace gi::thermal
