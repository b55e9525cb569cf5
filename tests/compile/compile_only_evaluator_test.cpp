#include <gtest/gtest.h>

#include <fstream>

#include "evaluate/compile_only_evaluator.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

Variant variant_of(const std::string& source, std::vector<std::string> options = {}) {
    std::string key_text = source;
    for (const std::string& option : options) key_text += "|" + option;
    return Variant{Genome{}, source, std::move(options), sha256_hex(key_text)};
}

// A stand-in for nvcc that counts its calls, fails on sources containing "BAD", and hangs on "HANG".
std::string counting_nvcc(const std::filesystem::path& dir) {
    const std::filesystem::path script = dir / "fake-nvcc";
    std::ofstream(script) << "#!/bin/sh\n"
                             "for last; do :; done\n"
                             "echo call >> '" << (dir / "calls").string() << "'\n"
                             "if grep -q BAD \"$last\"; then echo \"$last(1): error: bad thing\" >&2; exit 1; fi\n"
                             "if grep -q HANG \"$last\"; then sleep 30; fi\n"
                             "exit 0\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    return script.string();
}

int calls(const std::filesystem::path& dir) {
    std::ifstream in(dir / "calls");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
}

TEST(CompileOnlyEvaluator, DescribesItself) {
    TemporaryDirectory dir("gi-test");
    CompileOnlyOptions options;
    options.nvcc.nvcc = counting_nvcc(dir.path());
    CompileOnlyEvaluator evaluator(options);
    EXPECT_EQ(evaluator.name(), "compile-only");
    EXPECT_EQ(evaluator.case_count(), 1);
    EXPECT_FALSE(evaluator.traits().measures_time);
    EXPECT_THROW(evaluator.evaluate({}, 1), Error);
    EXPECT_TRUE(evaluator.evaluate({}, 0).results.empty());
    options.jobs = 0;
    EXPECT_THROW(CompileOnlyEvaluator{options}, UsageError);
}

TEST(CompileOnlyEvaluator, ClassifiesEachVariantAndCompilesEqualKeysOnce) {
    TemporaryDirectory dir("gi-test");
    CompileOnlyOptions options;
    options.nvcc.nvcc = counting_nvcc(dir.path());
    options.nvcc.timeout = std::chrono::milliseconds(500);
    options.jobs = 3;
    CompileOnlyEvaluator evaluator(options);
    const std::vector<Variant> batch = {variant_of("ok 1"), variant_of("BAD"), variant_of("HANG"),
                                        variant_of("ok 1"), variant_of("ok 2")};
    const BatchResult result = evaluator.evaluate(batch, 0);
    ASSERT_EQ(result.results.size(), 5u);
    EXPECT_FALSE(result.original.valid());
    EXPECT_EQ(result.results[0].status, EvalStatus::Ok);
    EXPECT_EQ(result.results[1].status, EvalStatus::CompileError);
    EXPECT_EQ(result.results[1].detail, "variant.cu(1): error: bad thing");
    EXPECT_EQ(result.results[2].status, EvalStatus::Timeout);
    EXPECT_EQ(result.results[3].status, EvalStatus::Ok);
    EXPECT_EQ(result.results[4].status, EvalStatus::Ok);
    for (const EvalResult& r : result.results) EXPECT_FALSE(r.time.valid());
    EXPECT_EQ(calls(dir.path()), 4);
    // Known keys are not compiled again in a later batch.
    evaluator.evaluate({variant_of("BAD"), variant_of("ok 2"), variant_of("ok 3")}, 0);
    EXPECT_EQ(calls(dir.path()), 5);
}

TEST(CompileOnlyEvaluator, PassesTheVariantsOptionsToTheCompiler) {
    TemporaryDirectory dir("gi-test");
    const std::filesystem::path script = dir.path() / "fake-nvcc";
    std::ofstream(script) << "#!/bin/sh\necho \"$@\" > '" << (dir.path() / "args").string() << "'\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    CompileOnlyOptions options;
    options.nvcc.nvcc = script.string();
    options.nvcc.arch = "sm_80";
    CompileOnlyEvaluator evaluator(options);
    evaluator.evaluate({variant_of("x", {"-Xptxas", "-dlcm=cg"})}, 0);
    std::string args;
    std::getline(std::ifstream(dir.path() / "args"), args);
    EXPECT_EQ(args.rfind("-arch=sm_80 -cubin -Xptxas -dlcm=cg -o ", 0), 0u) << args;
}

TEST(CompileOnlyEvaluator, OriginalThatDoesNotCompileIsASetUpError) {
    TemporaryDirectory dir("gi-test");
    CompileOnlyOptions options;
    options.nvcc.nvcc = counting_nvcc(dir.path());
    CompileOnlyEvaluator evaluator(options);
    EXPECT_NO_THROW(require_original_compiles(evaluator, variant_of("fine"), "kernels/k.cu"));
    try {
        require_original_compiles(evaluator, variant_of("BAD"), "kernels/k.cu");
        FAIL();
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind("kernels/k.cu: the unedited kernel does not compile", 0), 0u) << m;
        EXPECT_NE(m.find("error: bad thing"), std::string::npos) << m;
        EXPECT_NE(m.find("reproduce with: "), std::string::npos) << m;
    }
}

TEST(CompileOnlyEvaluator, CompilerThatCannotStartIsAnError) {
    CompileOnlyOptions options;
    options.nvcc.nvcc = "/nonexistent/nvcc";
    CompileOnlyEvaluator evaluator(options);
    EXPECT_THROW(evaluator.evaluate({variant_of("x")}, 0), Error) << "a compiler that cannot start is no variant's fault";
}

TEST(CompileOnlyEvaluator, RealNvccCompilesAndRejects) {
    try {
        find_nvcc();
    } catch (const Error&) {
        GTEST_SKIP() << "no nvcc: install the CUDA toolkit to run this test";
    }
    CompileOnlyOptions options;
    CompileOnlyEvaluator evaluator(options);
    const BatchResult r = evaluator.evaluate(
        {variant_of("__global__ void k(int* o) { o[0] = 1; }\n"), variant_of("__global__ void k(int* o) { o[0] = q; }\n")}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::CompileError);
    EXPECT_NE(r.results[1].detail.find("variant.cu(1): error: identifier \"q\" is undefined"), std::string::npos)
        << r.results[1].detail;
}

TEST(KernelIncludeDir, IsTheKernelsFolder) {
    EXPECT_EQ(kernel_include_dir("/a/b/k.cu"), "/a/b");
    EXPECT_EQ(kernel_include_dir("k.cu"), std::filesystem::current_path().string());
}

}  // namespace
}  // namespace gi
