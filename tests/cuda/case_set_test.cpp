// Which recorded cases a run takes (read_case_set, no GPU): those recorded under the kernel's name,
// for a template those whose symbol is one of its instantiations, never every case in the folder.
#include <gtest/gtest.h>

#include "../support/gi_tool_run.hpp"
#include "../support/gpu_fixture.hpp"
#include "cuda/case_set.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

// A launch of `kernel`(float* out, const float* in, int n).
TestCase case_set_launch(const std::string& kernel) {
    TestCase tc = gpu_test::scale_case(4);
    tc.kernel = kernel;
    return tc;
}

class CaseSetSelection : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = test::fresh_temp_dir("gi-case-set");
        kernel_.function = "k";
        kernel_.arg_names = {"out", "in", "n"};
        options_.cases = dir_ / "cases";
        options_.set_aside = 0;
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string error_of() const {
        try {
            read_case_set(options_, kernel_);
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    }
    fs::path dir_;
    CaseKernel kernel_;
    CudaEvaluatorOptions options_;
};

// Issue 39 class 17 (C17): with no case of the kernel's name the run took every case in the folder,
// another kernel's included, checking only the number of arguments.
TEST_F(CaseSetSelection, CasesOfAnotherKernelAreNotTakenAndTheMessageNamesThem) {
    write_test_case(case_set_launch("other"), options_.cases);
    const std::string message = error_of();
    EXPECT_NE(message.find("cases (--cases): no recorded test cases for 'k'; it holds cases recorded as 'other' (pass "
                           "--recorded-name NAME"),
              std::string::npos)
        << message;
    options_.recorded_name = "other";
    EXPECT_EQ(read_case_set(options_, kernel_).slots.size(), 1u);
}

TEST_F(CaseSetSelection, AHeldOutFolderWithoutTheKernelsCasesIsAnError) {
    write_test_case(case_set_launch("k"), options_.cases);
    write_test_case(case_set_launch("other"), dir_ / "held-out");
    options_.held_out = dir_ / "held-out";
    const std::string message = error_of();
    EXPECT_NE(message.find("held-out (--held-out): no recorded test cases for 'k'; it holds cases recorded as 'other'"),
              std::string::npos)
        << message;
    write_test_case(case_set_launch("k"), dir_ / "held-out");
    const CaseSet set = read_case_set(options_, kernel_);
    EXPECT_EQ(set.training, 1);
    EXPECT_EQ(set.slots.size(), 2u);
}

}  // namespace
}  // namespace gi
