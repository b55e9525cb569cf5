// A cache entry whose genome has PTX edits (issue 46): `cache write` keeps them, `cache verify
// --compile` replays them as the evaluator built the variant (its PTX, edited, ptxas) and fails
// naming the edit when one does not apply, and `cache apply` without --ptx-edits (a build that
// compiles the wrapper from source alone) leaves the entry out with the reason, so the original
// kernel is built.
#include <gtest/gtest.h>

#include "../support/gi_tool_run.hpp"
#include "../support/toolkit.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/nvcc_ptx_edits.hpp"
#include "ptx/ptx_module.hpp"
#include "util/file_read.hpp"

namespace gi {
namespace {

const std::string kPtxCacheKernel = std::string(GI_TEST_DATA_DIR) + "/cache/scale.cu";

std::vector<std::string> ptx_cache_args(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), {kPtxCacheKernel, "--function", "scaleKernel", "--param", "SCALE=2,3,4", "--tolerance", "exact"});
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// The index of the kernel's first `opcode` instruction in the PTX the edits index (the
// evaluator's: ptx_as_evaluated) of scale.cu with SCALE 3.
int ptx_index_of(const std::string& opcode) {
    DeviceCompileRequest request;
    request.source = read_input_file(kPtxCacheKernel, 1 << 20, "kernel");
    request.source.replace(request.source.find("#define SCALE 2"), 15, "#define SCALE 3");
    request.arch = "sm_90";
    const DeviceCompileResult r = ptx_as_evaluated(request);
    EXPECT_TRUE(r.ok) << r.log;
    const PtxModule module = parse_ptx(r.ptx);
    for (std::size_t i = 0; i < module.instructions.size(); ++i)
        if (module.instructions[i].opcode == opcode) return static_cast<int>(i);
    ADD_FAILURE() << "no " << opcode << " in\n" << r.ptx;
    return 0;
}

TEST(PtxCacheVerify, EditsAreKeptReplayedAndLeftOutOfTheBuild) {
    if (!nvrtc_available() || !test::have_nvcc()) GTEST_SKIP() << "no NVRTC or nvcc: the replay needs both";
    TemporaryDirectory dir("gi-ptx-cache-verify");
    const std::string cache = (dir.path() / "gi-cache").string();
    const std::string genome = "SCALE=3 ptx:del(" + std::to_string(ptx_index_of("fma.rn.f32")) + ")";
    ProcessResult r = test::gi_tool(ptx_cache_args(
        {"cache", "write"}, {"--arch", "90", "--cache-dir", cache, "--genome", genome, "--allow-unvalidated"}));
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;

    r = test::gi_tool(ptx_cache_args({"cache", "verify", cache}, {"--arch", "90", "--compile"}));
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("scaleKernel.sm_90.xml: valid"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  PTX edits (ptx:del("), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(") replayed for sm_90: nvcc's PTX of the variant, edited, assembled by ptxas"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("the build leaves this entry out"), std::string::npos) << r.out;

    // A build without the launcher: the entry is left out, saying why; the wrapper builds the original kernel.
    const std::string wrapper = (dir.path() / "out" / "k.gi.cu").string();
    r = test::gi_tool(ptx_cache_args({"cache", "apply"}, {"--cache-dir", cache, "--arch", "90", "--wrapper", wrapper,
                                                          "--header", (dir.path() / "out" / "k.gi.h").string(),
                                                          "--options-file", (dir.path() / "out" / "k.options").string()}));
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE((r.out + r.err).find("ship only where the wrapper is compiled through gi-tool nvcc-launcher"), std::string::npos)
        << r.out << r.err;
    EXPECT_EQ(test::file_text(dir.path() / "out" / "scaleKernel.sm_90.cu").find("#define SCALE 3"), std::string::npos);

    // An edit past the PTX: written (nothing checks PTX indexes without compiling), and the replay fails naming it.
    r = test::gi_tool(ptx_cache_args(
        {"cache", "write"}, {"--arch", "90", "--cache-dir", cache, "--genome", "SCALE=3 ptx:del(9999)", "--allow-unvalidated"}));
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    r = test::gi_tool(ptx_cache_args({"cache", "verify", cache}, {"--arch", "90", "--compile"}));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("PTX edits (ptx:del(9999)) do not apply for sm_90: PTX edit ptx:del(9999) in the variant's PTX: "
                         "instruction 9999 is past the PTX's"),
              std::string::npos)
        << r.out;
}

}  // namespace
}  // namespace gi
