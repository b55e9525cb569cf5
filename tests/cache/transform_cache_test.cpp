// A cache entry whose genome holds a transformation gene (issue 46): written, verified, compiled by
// `cache verify --compile` and applied as the build applies it, like any other gene.
#include <gtest/gtest.h>

#include "../support/gi_tool_run.hpp"
#include "../support/toolkit.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

const std::string kTransformCacheKernel = std::string(GI_TEST_DATA_DIR) + "/cache/scale.cu";

std::vector<std::string> transform_cache_args(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), {kTransformCacheKernel, "--function", "scaleKernel", "--param", "SCALE=2,3,4",
                             "--tolerance", "exact"});
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

TEST(TransformCache, AnEntryWithATransformationVerifiesCompilesAndApplies) {
    TemporaryDirectory dir("gi-transform-cache");
    const std::string cache = (dir.path() / "gi-cache").string();
    // scale.cu line 7 is "if (i < n) {": its bounds check dropped.
    ProcessResult r = test::gi_tool(transform_cache_args(
        {"cache", "write"}, {"--arch", "90", "--cache-dir", cache, "--genome", "SCALE=3 unguard_scale.cu_7=1",
                             "--allow-unvalidated"}));
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    const std::string wrapper = (dir.path() / "out" / "k.gi.cu").string();
    r = test::gi_tool(transform_cache_args(
        {"cache", "apply"}, {"--cache-dir", cache, "--arch", "90", "--wrapper", wrapper, "--header",
                             (dir.path() / "out" / "k.gi.h").string(), "--options-file",
                             (dir.path() / "out" / "k.options").string()}));
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    const std::string applied = test::file_text((dir.path() / "out" / "scaleKernel.sm_90.cu").string());
    EXPECT_NE(applied.find("if (true) {"), std::string::npos) << applied;
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc: cache verify --compile needs it";
    r = test::gi_tool(transform_cache_args({"cache", "verify", cache}, {"--arch", "90", "--compile"}));
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("scaleKernel.sm_90.xml: valid"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("compiled for sm_90"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gi
