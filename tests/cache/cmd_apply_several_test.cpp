// `gi-tool cache apply ... --and ...`: several registered kernels of one file, as the CMake module
// runs it when a file has several gi_optimize_cuda_kernel() calls. One generated file holds every
// variant that may be used together; a variant that may not is left out with the reason (an error
// under --require), and each registration gets its own header.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/gi_tool_run.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

const std::string kSum = std::string(GI_SOURCE_DIR) + "/tests/cmake/two_kernels/sum.cu";
const std::string kShared = std::string(GI_TEST_DATA_DIR) + "/cache/shared_macro.cu";

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

class CmdApplySeveral : public ::testing::Test {
protected:
    TemporaryDirectory dir{"gi-apply-several"};
    std::string cache() const { return (dir.path() / "gi-cache").string(); }
    std::string out(const std::string& name) const { return (dir.path() / "out" / name).string(); }
    void write(const std::string& kernel, const std::vector<std::string>& registration, const std::string& genome) {
        const ProcessResult r = test::gi_tool(std::vector<std::string>{"cache", "write", kernel} + registration +
                                     std::vector<std::string>{"--arch", "90", "--cache-dir", cache(), "--genome", genome,
                                                              "--allow-unvalidated"});
        ASSERT_TRUE(r.succeeded()) << r.err;
    }
    ProcessResult apply(const std::string& kernel, const std::vector<std::string>& first,
                        const std::vector<std::string>& second, const std::vector<std::string>& more = {}) {
        return test::gi_tool(std::vector<std::string>{"cache", "apply", kernel, "--arch", "90", "--cache-dir", cache(),
                                             "--wrapper", out("k.gi.cu"), "--options-file", out("k.options")} +
                    more + first + std::vector<std::string>{"--header", out("include/first.gi.h"), "--and"} + second +
                    std::vector<std::string>{"--header", out("include/second.gi.h")});
    }
};

const std::vector<std::string> kPartial = {"--function", "partial_sums", "--param", "BLOCK=64,128,256,512,1024",
                                           "--block-size", "BLOCK", "--tolerance", "rel=1e-4"};
const std::vector<std::string> kFinal = {"--function", "final_sum", "--param", "FINAL_THREADS=32,64,128,256,512",
                                         "--block-size", "FINAL_THREADS", "--tolerance", "rel=1e-4"};

TEST_F(CmdApplySeveral, OneFileHoldsBothVariantsEachHeaderItsOwn) {
    write(kSum, kPartial, "BLOCK=512 restrict=1");
    write(kSum, kFinal, "FINAL_THREADS=64");
    const ProcessResult r = apply(kSum, kPartial, kFinal);
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("partial_sums sm_90: variant from"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("final_sum sm_90: variant from"), std::string::npos) << r.out;
    const std::string variant = test::file_text(out("partial_sums+final_sum.sm_90.cu"));
    EXPECT_EQ(variant.rfind("// gi-optimize variant: partial_sums: BLOCK=512 restrict=1; final_sum: FINAL_THREADS=64\n", 0), 0u)
        << variant;
    EXPECT_NE(variant.find("#define BLOCK 512\n#define FINAL_THREADS 64\n"), std::string::npos) << variant;
    EXPECT_NE(test::file_text(out("k.gi.cu")).find("#include \"partial_sums+final_sum.sm_90.cu\""), std::string::npos);
    EXPECT_NE(test::file_text(out("include/first.gi.h")).find("gi_partial_sums_variants"), std::string::npos);
    const std::string second = test::file_text(out("include/second.gi.h"));
    EXPECT_NE(second.find("gi_final_sum_variants"), std::string::npos);
    EXPECT_NE(second.find("64"), std::string::npos) << second;
}

TEST_F(CmdApplySeveral, OneEntryMissingTheOtherStillUsed) {
    write(kSum, kFinal, "FINAL_THREADS=64");
    const ProcessResult r = apply(kSum, kPartial, kFinal);
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("partial_sums sm_90: original kernel: "), std::string::npos) << r.out;
    const std::string variant = test::file_text(out("partial_sums+final_sum.sm_90.cu"));
    EXPECT_NE(variant.find("partial_sums: (original); final_sum: FINAL_THREADS=64"), std::string::npos) << variant;
    EXPECT_NE(variant.find("#define BLOCK 64\n#define FINAL_THREADS 64\n"), std::string::npos) << variant;
    EXPECT_EQ(test::gi_tool(std::vector<std::string>{"cache", "apply", kSum, "--arch", "90", "--cache-dir", cache(), "--wrapper",
                                            out("k.gi.cu"), "--options-file", out("k.options"), "--require"} +
                   kPartial + std::vector<std::string>{"--header", out("a.h"), "--and"} + kFinal +
                   std::vector<std::string>{"--header", out("b.h")})
                  .exit_code,
              1);
}

TEST_F(CmdApplySeveral, AMacroAnotherKernelReadsIsNotTuned) {
    const std::vector<std::string> scale = {"--function", "scale", "--param", "TILE=32,64"};
    const std::vector<std::string> shift = {"--function", "shift", "--param", "SHIFT=1,2"};
    write(kShared, scale, "TILE=32 restrict=1");
    write(kShared, shift, "SHIFT=2");
    ProcessResult r = apply(kShared, scale, shift);
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("scale sm_90: original kernel: the variant of " + cache() +
                         "/scale.sm_90.xml is left out: its TILE=32 would change 'shift' too, which its evolution did "
                         "not run (leave TILE out of its PARAMS, or give the other kernel a macro of its own)"),
              std::string::npos)
        << r.out;
    const std::string variant = test::file_text(out("scale+shift.sm_90.cu"));
    EXPECT_NE(variant.find("#define TILE 64\n#define SHIFT 2\n"), std::string::npos) << variant;
    EXPECT_NE(test::file_text(out("include/first.gi.h")).find("original"), std::string::npos);
    r = apply(kShared, scale, shift, {"--require"});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find("scale sm_90: error: the variant of"), std::string::npos) << r.err;
}

TEST_F(CmdApplySeveral, UsageErrorsNameTheRegistration) {
    const std::vector<std::string> base = {"cache", "apply", kSum, "--arch", "90", "--cache-dir", cache(), "--wrapper",
                                           out("k.gi.cu"), "--options-file", out("k.options")};
    const std::vector<std::string> first = kPartial + std::vector<std::string>{"--header", out("a.h"), "--and"};
    ProcessResult r = test::gi_tool(base + first + kFinal + std::vector<std::string>{"--header", out("b.h"), kSum});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("registration 2 (after --and): '" + kSum + "': the kernel file is given once"), std::string::npos)
        << r.err;
    r = test::gi_tool(base + first + kFinal + std::vector<std::string>{"--header", out("b.h"), "--require"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("go before the first --and"), std::string::npos) << r.err;
    r = test::gi_tool(base + first + kPartial + std::vector<std::string>{"--header", out("b.h")});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("registration 2 (after --and): the kernel partial_sums is given twice"), std::string::npos) << r.err;
    r = test::gi_tool(base + first + kFinal);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("registration 2 (after --and): --header OUT.h is required"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gi
