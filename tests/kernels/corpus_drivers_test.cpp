// The gate corpus's drivers (kernels/<k>/<k>_driver, issue 44), each run once at a small size: with
// a GPU it must check itself and print PASS; without one it must say it is waived and exit 2, as
// the CUDA samples do, rather than fail. Skips where nvcc was not found (no drivers were built).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"

namespace gi {
namespace {

#ifdef GI_KERNELS_BIN_DIR
const char* const kKernelsBin = GI_KERNELS_BIN_DIR;
#else
const char* const kKernelsBin = "";
#endif

struct SmallRun {
    std::string kernel;
    std::vector<std::string> args;
};

// The sizes of each kernel's hand-made gate case (bench/common.sh record_args): partial tiles,
// every edge, a few launches.
const std::vector<SmallRun>& small_runs() {
    static const std::vector<SmallRun> runs = {
        {"thermal", {"--rows", "40", "--cols", "37", "--iterations", "2", "--reps", "2"}},
        {"aniso_diffusion", {"--rows", "40", "--cols", "37", "--iterations", "2", "--reps", "2"}},
        {"dp_sweep", {"--cols", "1000", "--rows", "3", "--reps", "2"}},
        {"wavefront", {"--n", "40", "--m", "37", "--reps", "2"}},
        {"lu_update", {"--n", "48", "--reps", "2"}},
        {"elimination", {"--n", "37", "--reps", "2"}},
        {"matmul", {"--m", "40", "--k", "37", "--n", "50", "--reps", "2"}},
        {"fir_decimate", {"--outputs", "1000", "--decimation", "3", "--taps", "37", "--phases", "3", "--reps", "2"}},
        {"row_norms", {"--rows", "37", "--cols", "300", "--seed", "3", "--reps", "2"}},
        {"pcm_to_float", {"--count", "1000", "--seed", "3", "--reps", "2"}},
        {"conv1d", {"--n", "1000", "--seed", "3", "--reps", "2"}},
        {"frame_corr", {"--frames", "37", "--frame", "30", "--seed", "3", "--reps", "2"}},
        {"channel_gamma", {"--rows", "37", "--cols", "300", "--seed", "3", "--reps", "2"}},
    };
    return runs;
}

TEST(CorpusDrivers, SmallRunsPassWithAGpuAndAreWaivedWithout) {
    if (std::string(kKernelsBin).empty()) GTEST_SKIP() << "the drivers were not built (no CUDA compiler at build time)";
    for (const SmallRun& run : small_runs()) {
        SCOPED_TRACE(run.kernel);
        const std::filesystem::path driver = std::filesystem::path(kKernelsBin) / (run.kernel + "_driver");
        ASSERT_TRUE(std::filesystem::exists(driver)) << driver;
        std::vector<std::string> argv{driver.string()};
        argv.insert(argv.end(), run.args.begin(), run.args.end());
        ProcessOptions options;
        options.timeout = std::chrono::minutes(2);
        const ProcessResult result = run_process(argv, options);
        const std::string output = result.out + result.err;
        if (result.exit_code == 2 && output.find("No CUDA device found") != std::string::npos) {
            EXPECT_NE(output.find("waived"), std::string::npos) << output;
            continue;
        }
        EXPECT_TRUE(result.succeeded()) << output;
        EXPECT_NE(result.out.find("\nPASS\n"), std::string::npos) << output;
    }
}

TEST(CorpusDrivers, HelpNeedsNoGpuAndABadArgumentIsAUsageError) {
    if (std::string(kKernelsBin).empty()) GTEST_SKIP() << "the drivers were not built (no CUDA compiler at build time)";
    for (const SmallRun& run : small_runs()) {
        SCOPED_TRACE(run.kernel);
        const std::string driver = (std::filesystem::path(kKernelsBin) / (run.kernel + "_driver")).string();
        const ProcessResult help = run_process({driver, "--help"});
        EXPECT_EQ(help.exit_code, 0) << help.err;
        EXPECT_NE(help.out.find("usage: " + run.kernel + "_driver"), std::string::npos) << help.out;
        const ProcessResult bad = run_process({driver, "--no-such-option", "1"});
        EXPECT_EQ(bad.exit_code, 2);
        EXPECT_NE(bad.err.find("unknown argument '--no-such-option'"), std::string::npos) << bad.err;
    }
}

}  // namespace
}  // namespace gi
