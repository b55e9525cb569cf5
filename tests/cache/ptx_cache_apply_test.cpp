// `cache apply --ptx-edits` (issue 46): what the build's launcher (gi-tool nvcc-launcher) needs for a
// variant whose genome has PTX edits: the variant's source used, its genome and the list of edited
// architectures beside the wrapper, and a fallback wrapper whose edited architectures compile the
// original kernel. Without the switch (gi-apply, light builds) the entry is left out as before.
#include <gtest/gtest.h>

#include "../support/gi_tool_run.hpp"
#include "cache/ptx_manifest.hpp"
#include "process/process.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

const std::string kPtxApplyKernel = std::string(GI_TEST_DATA_DIR) + "/cache/scale.cu";

std::vector<std::string> ptx_apply_args(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), {kPtxApplyKernel, "--function", "scaleKernel", "--param", "SCALE=2,3,4", "--tolerance", "exact"});
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

class PtxCacheApply : public ::testing::Test {
protected:
    void SetUp() override {
        cache_ = (dir_.path() / "gi-cache").string();
        out_ = dir_.path() / "out";
        for (const auto& [arch, genome] : {std::pair<std::string, std::string>{"80", "SCALE=4"}, {"90", "SCALE=3 ptx:del(2) ptx:swap(4,5)"}}) {
            const ProcessResult r = test::gi_tool(ptx_apply_args(
                {"cache", "write"}, {"--arch", arch, "--cache-dir", cache_, "--genome", genome, "--allow-unvalidated"}));
            ASSERT_TRUE(r.succeeded()) << r.out << r.err;
        }
    }
    ProcessResult apply(const std::vector<std::string>& more) {
        std::vector<std::string> args = {"--cache-dir", cache_, "--arch", "80", "--arch", "90", "--wrapper",
                                          (out_ / "scaleKernel.gi.cu").string(), "--header", (out_ / "k.gi.h").string(),
                                          "--options-file", (out_ / "scaleKernel.options").string()};
        args.insert(args.end(), more.begin(), more.end());
        return test::gi_tool(ptx_apply_args({"cache", "apply"}, args));
    }
    TemporaryDirectory dir_{"gi-ptx-cache-apply"};
    std::string cache_;
    std::filesystem::path out_;
};

TEST_F(PtxCacheApply, TheSwitchUsesTheVariantAndListsItsEditsWithAFallback) {
    const ProcessResult r = apply({"--ptx-edits"});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_EQ((r.out + r.err).find("ship only where"), std::string::npos) << r.out << r.err;
    EXPECT_NE(test::file_text(out_ / "scaleKernel.sm_90.cu").find("#define SCALE 3"), std::string::npos);
    EXPECT_EQ(test::file_text(out_ / "scaleKernel.sm_90.ptx-edits"), "SCALE=3 ptx:del(2) ptx:swap(4,5)\n");
    EXPECT_EQ(test::file_text(out_ / "scaleKernel.sm_80.ptx-edits"), "");  // no PTX edits there
    EXPECT_EQ(test::file_text(out_ / "scaleKernel.ptx-edits"),
              "90\tscaleKernel\tscaleKernel.sm_90.cu\tscaleKernel.sm_90.ptx-edits\n");
    const std::vector<PtxEditedArchitecture> listed =
        parse_ptx_manifest(test::file_text(out_ / "scaleKernel.ptx-edits"), "the list");
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].architecture, 90);
    EXPECT_EQ(listed[0].function, "scaleKernel");

    // The wrapper compiles both variants; the fallback sm_80's and, for sm_90, the original kernel.
    const std::string wrapper = test::file_text(out_ / "scaleKernel.gi.cu");
    EXPECT_NE(wrapper.find("#elif __CUDA_ARCH__ == 900\n#include \"scaleKernel.sm_90.cu\""), std::string::npos) << wrapper;
    const std::string fallback = test::file_text(out_ / "scaleKernel.fallback.gi.cu");
    EXPECT_NE(fallback.find("#elif __CUDA_ARCH__ == 800\n#include \"scaleKernel.sm_80.cu\""), std::string::npos) << fallback;
    EXPECT_EQ(fallback.find("#include \"scaleKernel.sm_90.cu\""), std::string::npos) << fallback;
    EXPECT_NE(fallback.find("sm_90: original kernel (its variant's PTX edits could not be applied"), std::string::npos) << fallback;
    EXPECT_TRUE(std::filesystem::exists(out_ / "scaleKernel.fallback.options"));
    // Which of the two the build compiled, for the header's lookups: sm_90's row only without the fallback.
    EXPECT_NE(wrapper.find("const int gi_scaleKernel_ptx_fallback = 0;"), std::string::npos) << wrapper;
    EXPECT_NE(fallback.find("const int gi_scaleKernel_ptx_fallback = 1;"), std::string::npos) << fallback;
    const std::string header = test::file_text(out_ / "k.gi.h");
    EXPECT_NE(header.find("    if (gi_scaleKernel_ptx_fallback && (architecture == 90)) return &gi_scaleKernel_variants["
                          "gi_scaleKernel_variants_count - 1];\n"),
              std::string::npos)
        << header;
}

TEST_F(PtxCacheApply, WithoutTheSwitchTheEntryIsLeftOut) {
    const ProcessResult r = apply({});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE((r.out + r.err).find("ship only where the wrapper is compiled through gi-tool nvcc-launcher"), std::string::npos)
        << r.out << r.err;
    EXPECT_EQ(test::file_text(out_ / "scaleKernel.sm_90.cu").find("#define SCALE 3"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(out_ / "scaleKernel.ptx-edits"));
}

TEST(PtxManifest, RefusesALineItDidNotWrite) {
    EXPECT_THROW(parse_ptx_manifest("90\tscale\t../../etc/passwd\tg\n", "list"), Error);
    EXPECT_THROW(parse_ptx_manifest("ninety\tscale\tv.cu\tg\n", "list"), Error);
    EXPECT_THROW(parse_ptx_manifest("90\tscale\tv.cu\n", "list"), Error);
    const std::vector<PtxEditedArchitecture> ok = parse_ptx_manifest("90\tscale\tv.cu\tg\t-use_fast_math\n", "list");
    ASSERT_EQ(ok.size(), 1u);
    EXPECT_EQ(ok[0].compile_options, std::vector<std::string>{"-use_fast_math"});
}

}  // namespace
}  // namespace gi
