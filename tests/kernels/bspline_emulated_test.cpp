// bspline.cu itself, run on the CPU emulator under several gene configurations (legacy, constant
// basis in either layout, x weights from the table, RemX, compile-time spline kind, other block
// sizes), must stay within the seed's 1e-3 of the double-precision reference for every component,
// for both spline kinds the kernel supports at run time, whichever order the threads run in.
#include <gtest/gtest.h>

#include <cmath>

#include "bspline/reference.hpp"
#include "emulator/emulated_kernels.hpp"

namespace gi::bspline {
namespace {

TEST(BsplineEmulated, EveryConfigurationMatchesTheReference) {
    ASSERT_GE(emu::bspline_configs().size(), 4u);
    const DeformationCase c = make_case(23, 12);
    for (int use_bspline : {1, 0}) {
        const auto expected = deformation_reference(c, use_bspline != 0);
        for (const emu::BsplineConfig& config : emu::bspline_configs()) {
            // A kind fixed at compile time is only right for the kind it fixes.
            if (use_bspline == 0 && config.name.find("c_UseBSpline=1") != std::string::npos) continue;
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                const auto got = config.run(c, use_bspline, order);
                ASSERT_EQ(got.size(), expected.size());
                double worst = 0;
                for (std::size_t i = 0; i < got.size(); ++i) {
                    const float values[3] = {got[i].x, got[i].y, got[i].z};
                    for (int a = 0; a < 3; ++a) {
                        const double error = std::abs(values[a] - expected[i][a]);
                        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
                    }
                }
                EXPECT_LE(worst, 1e-4) << config.name << " use_bspline=" << use_bspline
                                       << (order == emu::Order::Forward ? " forward" : " reverse");
            }
        }
    }
}

TEST(BsplineEmulated, CompileTimeSplineKindIgnoresTheArgument) {
    const DeformationCase c = make_case(15, 3);
    const auto bspline = deformation_reference(c, true);
    for (const emu::BsplineConfig& config : emu::bspline_configs()) {
        if (config.name.find("c_UseBSpline=1") == std::string::npos) continue;
        const auto got = config.run(c, 0, emu::Order::Forward);
        for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i].x, bspline[i][0], 1e-4);
        return;
    }
    FAIL() << "no configuration with c_UseBSpline=1";
}

}  // namespace
}  // namespace gi::bspline
