// nvcc's compile trajectory read from `nvcc --dryrun` (compile/nvcc_dryrun.hpp, issue 46): its
// environment (values that are not shell), its steps, the cicc step that writes each virtual
// architecture's PTX; dependency options split off into their own `nvcc -M`.
#include "compile/nvcc_dryrun.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

// CUDA 13.0's output for `nvcc --dryrun -c k.cu -o k.o -arch=sm_90`, shortened.
const char* kDryrun =
    "#$ _NVVM_BRANCH_=nvvm\n"
    "#$ _SPACE_= \n"
    "#$ CICC_PATH=/usr/local/cuda/bin/../nvvm/bin\n"
    "#$ SYSTEM_INCLUDES=\"-isystem\" \"/usr/local/cuda/include/cccl\"  \n"
    "nvcc warning : a warning nvcc prints between its steps\n"
    "#$ gcc -D__CUDA_ARCH__=900 -E -x c++ \"k.cu\" -o \"/tmp/x/tmpxft_1-5_k.cpp1.ii\" \n"
    "#$ \"$CICC_PATH/cicc\" --c++17 -arch compute_90 -m64 \"/tmp/x/tmpxft_1-5_k.cpp1.ii\" -o \"/tmp/x/tmpxft_1-6_k.ptx\"\n"
    "#$ ptxas -arch=sm_90 -m64  \"/tmp/x/tmpxft_1-6_k.ptx\"  -o \"/tmp/x/tmpxft_1-8_k.sm_90.cubin\" \n"
    "#$ rm /tmp/x/tmpxft_1-3_k.fatbin\n"
    "#$ gcc -c -x c++ \"/tmp/x/tmpxft_1-6_k.cudafe1.cpp\" -o \"k.o\" \n";

TEST(NvccDryrun, EnvironmentStepsAndThePtxEachCiccStepWrites) {
    const NvccTrajectory t = parse_nvcc_dryrun(kDryrun);
    ASSERT_EQ(t.environment.size(), 4u);
    EXPECT_EQ(t.environment[2], (std::pair<std::string, std::string>{"CICC_PATH", "/usr/local/cuda/bin/../nvvm/bin"}));
    EXPECT_EQ(t.environment[3].second, "-isystem /usr/local/cuda/include/cccl");
    ASSERT_EQ(t.steps.size(), 5u);
    EXPECT_EQ(t.steps[1].virtual_arch, "compute_90");
    EXPECT_EQ(t.steps[1].ptx_output, "/tmp/x/tmpxft_1-6_k.ptx");
    EXPECT_TRUE(t.steps[0].ptx_output.empty());
    EXPECT_TRUE(t.steps[2].virtual_arch.empty());
    EXPECT_TRUE(t.steps[3].cleanup);
    EXPECT_FALSE(t.steps[4].cleanup);
    EXPECT_EQ(t.steps[4].command, "gcc -c -x c++ \"/tmp/x/tmpxft_1-6_k.cudafe1.cpp\" -o \"k.o\" ");
}

TEST(NvccDryrun, NvccsOwnStepsAreRefusedNamingTheLine) {
    try {
        parse_nvcc_dryrun("#$ A=1\n#$ -- Filter Dependencies -- > k.d\n");
        FAIL() << "an internal step was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("line 2: step '-- Filter Dependencies -- > k.d' is nvcc's own"), std::string::npos)
            << e.what();
    }
}

TEST(NvccDryrun, DependencyOptionsBecomeAnNvccDashMOfTheirOwn) {
    const NvccDependencySplit s = split_dependency_options(
        {"-x", "cu", "-DX=1", "-MD", "-MT", "obj/k.cu.o", "-MF", "obj/k.cu.o.d", "-arch=sm_90", "-c", "k.cu", "-o", "obj/k.cu.o"});
    EXPECT_EQ(s.compile, (std::vector<std::string>{"-x", "cu", "-DX=1", "-arch=sm_90", "-c", "k.cu", "-o", "obj/k.cu.o"}));
    EXPECT_EQ(s.depend, (std::vector<std::string>{"-x", "cu", "-DX=1", "-arch=sm_90", "k.cu", "-M", "-MT", "obj/k.cu.o", "-o",
                                                  "obj/k.cu.o.d"}));
    const NvccDependencySplit none = split_dependency_options({"-c", "k.cu", "--output-file=k.o"});
    EXPECT_EQ(none.compile, (std::vector<std::string>{"-c", "k.cu", "-o", "k.o"}));
    EXPECT_TRUE(none.depend.empty());
    EXPECT_EQ(split_dependency_options({"-MMD", "-MP", "-c", "k.cu", "-o", "k.o"}).depend,
              (std::vector<std::string>{"k.cu", "-MM", "-MT", "k.o", "-MP", "-o", "k.d"}));
}

TEST(NvccDryrun, ShellWords) {
    EXPECT_EQ(shell_words("a \"b c\" 'd e' f\\ g \"h\\\"i\""), (std::vector<std::string>{"a", "b c", "d e", "f g", "h\"i"}));
    EXPECT_EQ(shell_words("  "), std::vector<std::string>{});
}

}  // namespace
}  // namespace gi
