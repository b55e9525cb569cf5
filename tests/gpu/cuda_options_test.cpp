#include "evaluate/cuda_options.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

TEST(CudaOptions, DefaultsAndValues) {
    const CudaEvaluatorOptions o = cuda_evaluator_options(
        {{"--cases", {"/tmp/c"}}, {"--tolerance", {"abs=1e-3", "out:exact"}}, {"--repetitions", {"20"}},
         {"--block", {"BLOCK_W,4"}}, {"--arch", {"sm_90"}}},
        "kernels/stereo/stereo.cu");
    EXPECT_EQ(o.cases, "/tmp/c");
    EXPECT_EQ(o.tolerances.size(), 2u);
    EXPECT_EQ(o.repetitions, 20);
    EXPECT_EQ(o.warmups, 2);
    EXPECT_EQ(o.block, "BLOCK_W,4");
    EXPECT_EQ(o.arch, "sm_90");
    EXPECT_EQ(o.spare_workers, 2);
    ASSERT_EQ(o.include_dirs.size(), 1u);
    EXPECT_EQ(o.include_dirs[0], "kernels/stereo");
}

TEST(CudaOptions, MalformedValuesNameTheOption) {
    auto fails = [](std::map<std::string, std::vector<std::string>> values, const std::string& option) {
        try {
            cuda_evaluator_options(values, "");
            ADD_FAILURE() << "accepted " << option;
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
        }
    };
    fails({}, "--cases");
    fails({{"--cases", {"c"}}, {"--arch", {"90"}}}, "--arch");
    fails({{"--cases", {"c"}}, {"--jobs", {"many"}}}, "--jobs");
    fails({{"--cases", {"c"}}, {"--repetitions", {"0"}}}, "--repetitions");
    fails({{"--cases", {"c"}}, {"--timeout-factor", {"0.5"}}}, "--timeout-factor");
    fails({{"--cases", {"c"}}, {"--spare-workers", {"99"}}}, "--spare-workers");
}

}  // namespace
}  // namespace gi
