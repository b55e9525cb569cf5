// `--gpus` and `--gpus-mixed` as gi-tool evolve and cuda-bench read them (cli/cuda_options.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cuda_options.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {

CudaEvaluatorOptions options_with_gpus(const std::vector<std::string>& args) {
    CompilerChoice compiler;
    CudaCommandLine cuda;
    CommandLine app{"usage: test\n", ""};
    add_compiler_options(app, compiler, "cuda evaluator options");
    add_cuda_options(app, cuda, "cuda evaluator options");
    std::vector<std::string> all{"--cases", "c"};
    all.insert(all.end(), args.begin(), args.end());
    app.parse(all);
    return cuda_evaluator_options(app, cuda, compiler, "");
}

std::string gpus_refusal(const std::vector<std::string>& args) {
    try {
        options_with_gpus(args);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

TEST(MultiGpuOption, WithoutItOneGpuAsBefore) {
    const CudaEvaluatorOptions o = options_with_gpus({});
    EXPECT_EQ(o.gpus, "");
    EXPECT_FALSE(o.gpus_mixed);
    EXPECT_EQ(o.device, -1);
}

TEST(MultiGpuOption, TakesAllACountOrAList) {
    EXPECT_EQ(options_with_gpus({"--gpus", "all"}).gpus, "all");
    EXPECT_EQ(options_with_gpus({"--gpus", "2"}).gpus, "2");
    const CudaEvaluatorOptions o = options_with_gpus({"--gpus", "0,2", "--gpus-mixed"});
    EXPECT_EQ(o.gpus, "0,2");
    EXPECT_TRUE(o.gpus_mixed);
}

TEST(MultiGpuOption, ABadValueIsRefusedNamingTheOption) {
    for (const std::string bad : {"none", "0", "1,1", "0,", "-2"}) {
        const std::string why = gpus_refusal({"--gpus", bad});
        EXPECT_EQ(why.rfind("--gpus " + bad + ": ", 0), 0u) << "'" << bad << "': " << why;
    }
    const std::string launched = gpus_refusal({"--gpus", "all", "--worker-launcher", "srun --gres=gpu:1"});
    EXPECT_EQ(launched.rfind("--gpus spreads the evaluation over this host's GPUs, but --worker-launcher", 0), 0u) << launched;
    const std::string mixed_alone = gpus_refusal({"--gpus-mixed"});
    EXPECT_EQ(mixed_alone.rfind("--gpus-mixed has no effect without --gpus", 0), 0u) << mixed_alone;
}

}  // namespace
}  // namespace gi::cli
