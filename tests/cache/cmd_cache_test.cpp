// `gi-tool cache ...` as the CMake module and people run it: exit codes, messages, files written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/gi_tool_run.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

const std::string kCacheKernelPath = std::string(GI_TEST_DATA_DIR) + "/cache/scale.cu";
const std::vector<std::string> kRegistration = {"--function", "scaleKernel", "--param", "SCALE=2,3,4", "--param",
                                                "BLOCK=64,128,256", "--flag", "-use_fast_math", "--block-size",
                                                "BLOCK", "--grid", "(n+BLOCK-1)/BLOCK", "--tolerance", "exact"};

ProcessResult tool(std::vector<std::string> args, const std::vector<std::string>& more = {}) {
    args.insert(args.end(), more.begin(), more.end());
    return test::gi_tool(std::move(args));
}


class CmdCache : public ::testing::Test {
protected:
    TemporaryDirectory dir{"gi-cmd-cache"};
    std::string cache() const { return (dir.path() / "gi-cache").string(); }
    // A hand-picked genome, written with the opt-in these tests of the cache's mechanics need.
    ProcessResult write(const std::string& genome, const std::string& arch,
                        const std::vector<std::string>& more = {"--allow-unvalidated"}) {
        std::vector<std::string> args = {"cache", "write", kCacheKernelPath};
        args.insert(args.end(), kRegistration.begin(), kRegistration.end());
        std::vector<std::string> rest = {"--arch", arch, "--cache-dir", cache(), "--genome", genome};
        rest.insert(rest.end(), more.begin(), more.end());
        return tool(args, rest);
    }
    ProcessResult apply(const std::vector<std::string>& more) {
        std::vector<std::string> args = {"cache", "apply", kCacheKernelPath};
        args.insert(args.end(), kRegistration.begin(), kRegistration.end());
        args.insert(args.end(), {"--cache-dir", cache(), "--wrapper", out("k.gi.cu"), "--header", out("k.gi.h"),
                                 "--options-file", out("k.options")});
        return tool(args, more);
    }
    std::string out(const std::string& name) const { return (dir.path() / "out" / name).string(); }
};

// For code review (issue 21): the entries as a page, with the source lines each item changes when
// the kernel they were made from is given, a note when the kernel has changed since.
TEST_F(CmdCache, ShowWritesAPageForReview) {
    ASSERT_TRUE(write("SCALE=3 use_fast_math=1 <_scale.cu_10>+<_scale.cu_9>", "90").succeeded());
    const std::string page = (dir.path() / "review.html").string();
    ProcessResult r = tool({"cache", "show", cache(), "--html", page, "--kernel", kCacheKernelPath});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("wrote " + page), std::string::npos);
    std::string html = test::file_text(page);
    EXPECT_NE(html.find("<code>SCALE=3 use_fast_math=1 &lt;_scale.cu_10&gt;+&lt;_scale.cu_9&gt;</code>"), std::string::npos);
    EXPECT_NE(html.find("<span class=\"del\">- 2  #define SCALE 2</span><span class=\"add\">+ #define SCALE 3</span>"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("use_fast_math=1</code>: changes no source line (a compile option)"), std::string::npos);
    EXPECT_NE(html.find("<span class=\"del\">- 10          out[i] = v + 1.0f;</span><span class=\"add\">+         v = v * SCALE;</span>"
                        "<span class=\"add\">+         out[i] = v + 1.0f;</span>"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("<span class=\"good\">ok</span>"), std::string::npos);
    // Another version of the kernel: the entry is stale for it, and the page says so.
    const fs::path edited = dir.path() / "src" / "scale.cu";
    fs::create_directories(edited.parent_path());
    std::ofstream(edited) << test::file_text(kCacheKernelPath) << "// edited\n";
    r = tool({"cache", "show", cache(), "--html", page, "--kernel", edited.string()});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    html = test::file_text(page);
    EXPECT_NE(html.find("is not the kernel source this entry was made from"), std::string::npos) << html;
    EXPECT_EQ(html.find("class=\"add\""), std::string::npos);
    r = tool({"cache", "show", cache(), "--kernel", kCacheKernelPath});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--kernel only serves the page: give --html FILE too"), std::string::npos) << r.err;
}

TEST_F(CmdCache, WriteShowVerifyApply) {
    ProcessResult r = write("SCALE=3 use_fast_math=1 <_scale.cu_10>+<_scale.cu_9>", "90");
    ASSERT_TRUE(r.succeeded()) << r.err;
    EXPECT_NE(r.out.find("scaleKernel.sm_90.xml"), std::string::npos) << r.out;

    r = tool({"cache", "show", cache()});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("genome       SCALE=3 use_fast_math=1 <_scale.cu_10>+<_scale.cu_9>"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("parameters   SCALE=3 BLOCK=128"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("provenance   hand-picked"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("checksum     ok"), std::string::npos) << r.out;

    std::vector<std::string> verify = {"cache", "verify", cache(), kCacheKernelPath};
    verify.insert(verify.end(), kRegistration.begin(), kRegistration.end());
    r = tool(verify);
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("scaleKernel.sm_90.xml: valid"), std::string::npos) << r.out;
    r = tool(verify, {"--arch", "80"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("scaleKernel.sm_80.xml: missing"), std::string::npos) << r.out;

    r = apply({"--arch", "80", "--arch", "90"});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("scaleKernel sm_80: original kernel: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("scaleKernel sm_90: variant from "), std::string::npos) << r.out;
    EXPECT_NE(test::file_text(out("k.gi.cu")).find("#elif __CUDA_ARCH__ == 900\n#include \"scaleKernel.sm_90.cu\""), std::string::npos);
    EXPECT_EQ(test::file_text(out("scaleKernel.sm_90.cu")).rfind("// gi-optimize variant: SCALE=3 use_fast_math=1", 0), 0u);
    EXPECT_NE(test::file_text(out("scaleKernel.sm_80.cu")).find("compiles the original kernel"), std::string::npos);
    EXPECT_EQ(test::file_text(out("k.options")), "-use_fast_math\n");
    EXPECT_NE(test::file_text(out("k.gi.h")).find("{90, \"SCALE=3 use_fast_math=1"), std::string::npos);

    // Nothing changed: nothing is rewritten, so the build recompiles nothing.
    const auto before = fs::last_write_time(out("k.gi.cu"));
    const auto header_before = fs::last_write_time(out("k.gi.h"));
    r = apply({"--arch", "80", "--arch", "90"});
    ASSERT_TRUE(r.succeeded()) << r.err;
    EXPECT_EQ(fs::last_write_time(out("k.gi.cu")), before);
    EXPECT_EQ(fs::last_write_time(out("k.gi.h")), header_before);
}

// Issue 17: a target built for many architectures with one entry got a line per architecture at
// every build. Routine outcomes are one line per kernel; each variant keeps its own line.
TEST_F(CmdCache, MissingEntriesOfSeveralArchitecturesAreSaidInOneLine) {
    ASSERT_TRUE(write("SCALE=3", "90").succeeded());
    const ProcessResult r = apply({"--arch", "75", "--arch", "80", "--arch", "86", "--arch", "90"});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    std::size_t lines = 0;
    for (std::size_t at = r.out.find("gi-optimize:"); at != std::string::npos; at = r.out.find("gi-optimize:", at + 1)) ++lines;
    EXPECT_EQ(lines, 2u) << r.out;
    EXPECT_NE(r.out.find("scaleKernel sm_75, sm_80, sm_86: original kernel: no cache entries in " + cache()), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("scaleKernel sm_90: variant from "), std::string::npos) << r.out;
    for (const char* arch : {"75", "80", "86"})
        EXPECT_NE(test::file_text(out(std::string("scaleKernel.sm_") + arch + ".cu")).find("compiles the original kernel"), std::string::npos);
}

TEST_F(CmdCache, RequireFailsForAMissingEntry) {
    ASSERT_TRUE(write("SCALE=3", "90").succeeded());
    const ProcessResult r = apply({"--arch", "80", "--arch", "90", "--require"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("scaleKernel sm_80: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("GI_REQUIRE_CACHE is on"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out("k.gi.cu")));
}

TEST_F(CmdCache, VariantsWithOtherCompileOptionsAreNotMixed) {
    ASSERT_TRUE(write("SCALE=3", "80").succeeded());
    ASSERT_TRUE(write("SCALE=4 use_fast_math=1", "90").succeeded());
    const ProcessResult r = apply({"--arch", "80", "--arch", "90"});
    ASSERT_TRUE(r.succeeded()) << r.err;
    EXPECT_NE(r.out.find("scaleKernel sm_90: original kernel: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("differ from the first variant's"), std::string::npos) << r.out;
    EXPECT_EQ(test::file_text(out("k.options")), "");
}

TEST_F(CmdCache, CorruptAndEditedEntriesFailVerifyAndShow) {
    ASSERT_TRUE(write("SCALE=3", "90").succeeded());
    const fs::path entry = fs::path(cache()) / "scaleKernel.sm_90.xml";
    std::string xml = test::file_text(entry);
    xml.replace(xml.find("SCALE=3]]"), 7, "SCALE=4");
    std::ofstream(entry) << xml;
    ProcessResult r = tool({"cache", "verify", cache()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("checksum mismatch"), std::string::npos) << r.out;
    r = tool({"cache", "show", cache()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("MISMATCH"), std::string::npos) << r.out;

    std::ofstream(entry) << "<gi-cache-entry";
    r = tool({"cache", "verify", cache()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find(entry.string() + ": invalid: "), std::string::npos) << r.out;
    r = tool({"cache", "show", entry.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("unreadable"), std::string::npos) << r.out;
}

TEST_F(CmdCache, WriteRefusesBadGenomesAndMissingRuns) {
    ProcessResult r = write("SCALE=9", "90");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("SCALE=9"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(fs::path(cache()) / "scaleKernel.sm_90.xml"));

    std::vector<std::string> args = {"cache", "write", kCacheKernelPath};
    args.insert(args.end(), kRegistration.begin(), kRegistration.end());
    r = tool(args, {"--arch", "90", "--cache-dir", cache(), "--from-run", (dir.path() / "no-run").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("best.genome"), std::string::npos) << r.err;
}

TEST_F(CmdCache, AHandPickedGenomeNeedsItsValidationOrTheOptIn) {
    ProcessResult r = write("SCALE=3", "90", {});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("a hand-picked genome is not validated by gi-tool"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--allow-unvalidated"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(fs::path(cache()) / "scaleKernel.sm_90.xml"));
    // The validation a person did, given with the provenance options.
    r = write("SCALE=3", "90", {"--cases", "3", "--elements", "3000"});
    ASSERT_TRUE(r.succeeded()) << r.err;
    r = tool({"cache", "show", cache()});
    EXPECT_EQ(r.out.find("UNCHECKED"), std::string::npos) << r.out;
    // The opt-in is recorded and shown, and the build says it uses the entry because of it.
    r = write("SCALE=3", "90");
    ASSERT_TRUE(r.succeeded()) << r.err;
    r = tool({"cache", "show", cache()});
    EXPECT_NE(r.out.find("UNCHECKED    --allow-unvalidated: a hand-picked genome, not validated by gi-tool"), std::string::npos)
        << r.out;
    r = apply({"--arch", "90"});
    ASSERT_TRUE(r.succeeded()) << r.err;
    EXPECT_NE(r.out.find("; NOT VALIDATED, used because its writer opted in"), std::string::npos) << r.out;
    // The original kernel needs no opt-in.
    EXPECT_TRUE(write("", "80", {}).succeeded());
    EXPECT_EQ(write("SCALE=3", "80", {"--allow-unfinished"}).exit_code, 2);
}

TEST(CmdCacheUsage, MalformedCommandLinesAreUsageErrors) {
    const std::string dir = std::string(GI_TEST_DATA_DIR) + "/cache";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"cache"}, "usage: gi-tool cache"},
        {{"cache", "bogus"}, "unknown cache subcommand 'bogus'"},
        {{"cache", "show"}, "missing DIR"},
        {{"cache", "verify"}, "missing DIR"},
        {{"cache", "verify", dir, "--arch", "90"}, "need the kernel file"},
        {{"cache", "verify", dir, kCacheKernelPath, "--function", "scaleKernel", "--arch", "9x"}, "--arch '9x' is not a CUDA architecture"},
        {{"cache", "verify", dir, kCacheKernelPath, kCacheKernelPath, "--function", "scaleKernel"}, "expected DIR and one KERNEL.cu"},
        {{"cache", "write", kCacheKernelPath, "--function", "scaleKernel", "--cache-dir", dir, "--genome", ""}, "--arch N is required once"},
        {{"cache", "write", kCacheKernelPath, "--function", "scaleKernel", "--arch", "90", "--arch", "90", "--cache-dir", dir,
          "--genome", ""}, "--arch 90 is given twice"},
        {{"cache", "write", kCacheKernelPath, "--function", "scaleKernel", "--arch", "90", "--cache-dir", dir}, "exactly one of --genome"},
        {{"cache", "write", kCacheKernelPath, "--arch", "90", "--cache-dir", dir, "--genome", ""}, "--function is required"},
        {{"cache", "apply", kCacheKernelPath, "--function", "scaleKernel", "--cache-dir", dir, "--wrapper", "w.cu", "--header",
          "h.h", "--options-file", "o"}, "--arch N is required"},
        {{"cache", "apply", kCacheKernelPath, "--function", "scaleKernel", "--arch", "90", "--cache-dir", dir}, "missing required option --wrapper"},
        {{"cache", "show", "--colour"}, "unknown option '--colour'"},
    };
    for (const auto& [args, expected] : cases) {
        const ProcessResult r = tool(args);
        EXPECT_EQ(r.exit_code, 2) << args.back() << "\n" << r.out << r.err;
        EXPECT_NE((r.out + r.err).find(expected), std::string::npos) << expected << "\n" << r.out << r.err;
    }
    const ProcessResult help = tool({"cache", "apply", "--help"});
    EXPECT_TRUE(help.succeeded());
    EXPECT_NE(help.out.find("example:"), std::string::npos);
    const ProcessResult missing = tool({"cache", "show", "/nonexistent/gi-cache"});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("/nonexistent/gi-cache: no such cache folder or entry file"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// Host code is compiled once for every architecture, with the first variant's macros: a host launch
// sized by a tuned #define launched the other architectures' kernels (the original, or another
// variant) with the variant's geometry (found building tests/programs/convolutionSeparable for 80
// and 90 with an entry for 90 only). Such a variant is used only where every architecture agrees.
TEST(CmdCacheHostMacros, AVariantWhoseMacroHostCodeReadsIsUsedOnlyWhereEveryArchitectureAgrees) {
    TemporaryDirectory dir("gi-cmd-cache-host");
    const std::string kernel = (dir.path() / "k.cu").string();
    std::ofstream(kernel) << "#define BLOCK 128\n"
                             "__global__ void k(float* a, int n) { int i = blockIdx.x * BLOCK + threadIdx.x; if (i < n) a[i] *= 2.0f; }\n"
                             "void launch(float* a, int n) { k<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(a, n); }\n";
    const std::string cache = (dir.path() / "cache").string();
    const std::vector<std::string> registration = {kernel, "--function", "k", "--param", "BLOCK=64,128,256"};
    auto write = [&](const std::string& arch, const std::string& genome) {
        std::vector<std::string> args = {"cache", "write"};
        args.insert(args.end(), registration.begin(), registration.end());
        args.insert(args.end(), {"--arch", arch, "--cache-dir", cache, "--genome", genome, "--cases", "1", "--elements", "1"});
        const ProcessResult r = test::gi_tool(args);
        ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    };
    const fs::path out = dir.path() / "gen";
    auto apply = [&](const std::vector<std::string>& arches) {
        std::vector<std::string> args = {"cache", "apply"};
        args.insert(args.end(), registration.begin(), registration.end());
        args.insert(args.end(), {"--cache-dir", cache, "--wrapper", (out / "k.gi.cu").string(), "--header",
                                 (out / "k.gi.h").string(), "--options-file", (out / "k.options").string()});
        args.insert(args.end(), arches.begin(), arches.end());
        const ProcessResult r = test::gi_tool(args);
        EXPECT_TRUE(r.succeeded()) << r.out << r.err;
        return r.out;
    };
    auto uses_variant = [&](int arch) {
        return test::file_text(out / ("k.sm_" + std::to_string(arch) + ".cu")).rfind("// gi-optimize variant:", 0) == 0;
    };
    write("90", "BLOCK=64");
    std::string said = apply({"--arch", "80", "--arch", "90"});
    EXPECT_FALSE(uses_variant(90));
    EXPECT_NE(said.find("k sm_90: original kernel: the variant of " + cache + "/k.sm_90.xml is left out: its BLOCK=64 is "
                        "read by host code of k.cu (line 3), which is compiled once for every architecture, and the "
                        "target also compiles sm_80 BLOCK=128"),
              std::string::npos)
        << said;
    // One architecture: the host pass and the device pass are the same variant.
    apply({"--arch", "90"});
    EXPECT_TRUE(uses_variant(90));
    // An architecture the target compiles without a registration compiles the original.
    said = apply({"--arch", "90", "--also-compiled", "80"});
    EXPECT_FALSE(uses_variant(90));
    EXPECT_NE(said.find("the target also compiles sm_80 BLOCK=128"), std::string::npos) << said;
    // Every architecture with the same value: both used.
    write("80", "BLOCK=64");
    apply({"--arch", "80", "--arch", "90"});
    EXPECT_TRUE(uses_variant(80));
    EXPECT_TRUE(uses_variant(90));
    // Two values: neither.
    write("80", "BLOCK=256");
    said = apply({"--arch", "80", "--arch", "90"});
    EXPECT_FALSE(uses_variant(80));
    EXPECT_FALSE(uses_variant(90));
    EXPECT_NE(said.find("its BLOCK=256 is read by host code"), std::string::npos) << said;
}

// Host code reading a macro defined from the tuned one reads the tuned one: HALF is (WIDTH / 2).
TEST(CmdCacheHostMacros, HostCodeReadingAMacroDefinedFromATunedOneCounts) {
    TemporaryDirectory dir("gi-cmd-cache-host-derived");
    const std::string kernel = (dir.path() / "k.cu").string();
    std::ofstream(kernel) << "#define WIDTH 128\n"
                             "#define HALF (WIDTH / 2)\n"
                             "__global__ void k(float* a, int n) { int i = blockIdx.x * WIDTH + threadIdx.x; if (i < n) a[i] *= 2.0f; }\n"
                             "void launch(float* a, int n) { k<<<(n + HALF - 1) / HALF, HALF>>>(a, n); }\n";
    const std::string cache = (dir.path() / "cache").string();
    const std::vector<std::string> registration = {kernel, "--function", "k", "--param", "WIDTH=64,128,256"};
    std::vector<std::string> args = {"cache", "write"};
    args.insert(args.end(), registration.begin(), registration.end());
    args.insert(args.end(), {"--arch", "90", "--cache-dir", cache, "--genome", "WIDTH=64", "--cases", "1", "--elements", "1"});
    ProcessResult r = test::gi_tool(args);
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    const fs::path out = dir.path() / "gen";
    args = {"cache", "apply"};
    args.insert(args.end(), registration.begin(), registration.end());
    args.insert(args.end(), {"--cache-dir", cache, "--wrapper", (out / "k.gi.cu").string(), "--header", (out / "k.gi.h").string(),
                             "--options-file", (out / "k.options").string(), "--arch", "90", "--also-compiled", "80"});
    r = test::gi_tool(args);
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(test::file_text(out / "k.sm_90.cu").rfind("// gi-optimize variant:", 0), 0u);
    EXPECT_NE(r.out.find("its WIDTH=64 is read by host code of k.cu (line 4)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gi
