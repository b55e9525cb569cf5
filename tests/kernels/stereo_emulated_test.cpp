// stereo.cu itself, run on the CPU emulator under several gene configurations (legacy defaults,
// XHALO, DPER 2..4, shared/local stores, other output types, plain multiplies), must give exactly
// the CPU reference's disparities and SSDs, on image sizes that leave partial tiles, whichever
// order the threads run in between barriers.
#include <gtest/gtest.h>

#include "emulator/emulated_kernels.hpp"
#include "stereo/reference.hpp"

namespace gi::stereo {
namespace {

void expect_same(const DisparityMap& got, const DisparityMap& expected, const std::string& what) {
    ASSERT_EQ(got.disparity.size(), expected.disparity.size()) << what;
    long long mismatches = 0;
    for (std::size_t i = 0; i < got.disparity.size(); ++i) {
        if (got.disparity[i] != expected.disparity[i] || got.min_ssd[i] != expected.min_ssd[i]) {
            if (mismatches++ < 3) {
                ADD_FAILURE() << what << ": pixel (" << i % got.width << "," << i / got.width << ") kernel "
                              << got.disparity[i] << "/" << got.min_ssd[i] << ", reference " << expected.disparity[i]
                              << "/" << expected.min_ssd[i];
            }
        }
    }
    EXPECT_EQ(mismatches, 0) << what;
}

TEST(StereoEmulated, EveryConfigurationMatchesTheReference) {
    ASSERT_GE(emu::stereo_configs().size(), 5u);
    const StereoPair pairs[] = {make_stereo_pair(70, 45, 21), make_stereo_pair(37, 16, 22)};
    for (const StereoPair& pair : pairs) {
        const DisparityMap expected = stereo_reference(pair.left, pair.right);
        for (const emu::StereoConfig& config : emu::stereo_configs()) {
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                const std::string what = config.name + (order == emu::Order::Forward ? " forward " : " reverse ") +
                                         std::to_string(pair.left.width) + "x" + std::to_string(pair.left.height);
                expect_same(config.run(pair.left, pair.right, order), expected, what);
            }
        }
    }
}

}  // namespace
}  // namespace gi::stereo
