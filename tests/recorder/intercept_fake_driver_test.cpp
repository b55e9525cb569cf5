// gi-tool's launch intercept on a fake CUDA driver (tests/recorder/fake_driver/), without a GPU:
// a program that launches as the CUDA runtime does (dlopen of the driver, dlsym of
// cuGetProcAddress_v2, the launch functions through it) runs with the intercept preloaded, and its
// launches of the registered kernel become cases, as gi::launch would record them (issue 42).
#include <gtest/gtest.h>

#include <filesystem>

#include "../support/same_case.hpp"
#include "process/process.hpp"
#include "record/intercept_settings.hpp"
#include "testcase/case_io.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

#if defined(GI_FAKE_LAUNCHER) && defined(GI_FAKE_LIBCUDA) && defined(GI_INTERCEPT_LIBRARY)

class InterceptFakeDriver : public ::testing::Test {
protected:
    // Runs the fake launcher in `mode` recording `kernel` into `folder` (inside the test's own).
    ProcessResult run(const std::string& mode, const std::string& kernel, const std::string& folder,
                      std::vector<std::pair<std::string, std::string>> more = {}, const std::string& count = "1") {
        ProcessOptions options;
        options.timeout = std::chrono::seconds(60);
        options.environment = {{"LD_PRELOAD", GI_INTERCEPT_LIBRARY},
                               {"GI_RECORD_DIR", (dir_.path() / folder).string()},
                               {"GI_RECORD_FUNCTION", kernel},
                               {"GI_RECORD_BY", "intercept"}};
        for (auto& variable : more) options.environment.push_back(std::move(variable));
        return run_process({GI_FAKE_LAUNCHER, GI_FAKE_LIBCUDA, mode, count}, options);
    }
    std::vector<fs::path> cases(const std::string& folder, const std::string& kernel = {}) const {
        const fs::path dir = dir_.path() / folder;
        return fs::is_directory(dir) ? list_test_cases(dir, kernel) : std::vector<fs::path>{};
    }
    std::vector<std::string> side_file(const std::string& folder, const char* name) const {
        return read_side_file(dir_.path() / folder, name);
    }
    TemporaryDirectory dir_{"gi-intercept-test"};
};

TEST_F(InterceptFakeDriver, ATimingLoopIsRecordedOnceItsLaunchesRepeat) {
    const ProcessResult r = run("timing-loop", "scaleKernel", "cases", {}, "20");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    const std::vector<fs::path> found = cases("cases", "scaleKernel");
    ASSERT_EQ(found.size(), 2u) << r.err;
    EXPECT_NE(r.err.find("gi-intercept recording 'scaleKernel': 2 distinct launches recorded, 19 skipped as identical "
                         "to an earlier one\n"),
              std::string::npos)
        << r.err;
    const TestCase tc = read_test_case(found[0]);
    EXPECT_EQ(tc.kernel, "scaleKernel");
    EXPECT_EQ(tc.symbol, "_Z11scaleKernelPKfPfif");
    EXPECT_EQ(tc.device, "Fake GPU");
    EXPECT_EQ(tc.compute_capability, 90);
    EXPECT_EQ(tc.block, (Dim3{64, 1, 1}));
    ASSERT_EQ(tc.args.size(), 4u);
    EXPECT_EQ(tc.args[0].kind, CaseArg::Kind::Pointer);
    EXPECT_TRUE(tc.args[0].is_const);
    EXPECT_EQ(tc.args[0].element, ElementType::F32);
    EXPECT_TRUE(tc.buffers[tc.args[0].buffer].read_only);
    EXPECT_EQ(tc.buffers[tc.args[0].buffer].size, 64u * sizeof(float));
    EXPECT_FALSE(tc.buffers[tc.args[1].buffer].read_only);
    EXPECT_TRUE(tc.buffers[tc.args[1].buffer].changed);
    EXPECT_EQ(tc.args[2].kind, CaseArg::Kind::Scalar);
    EXPECT_EQ(tc.args[2].element, ElementType::I32);
    EXPECT_EQ(scalar_as_integer(tc.args[2]), 64);
    EXPECT_EQ(tc.args[3].element, ElementType::F32);
    EXPECT_EQ(side_file("cases", kLaunchedKernelsFile), std::vector<std::string>{"scaleKernel"});
    EXPECT_TRUE(side_file("cases", kInterceptErrorsFile).empty());
}

TEST_F(InterceptFakeDriver, ArgumentsInAnExtraBufferOrThroughLaunchKernelExGiveTheSameCase) {
    for (const std::string mode : {"params", "extra", "ex"}) {
        const ProcessResult r = run(mode, "scaleKernel", mode);
        ASSERT_TRUE(r.succeeded()) << mode << ": " << r.out << r.err;
        ASSERT_EQ(cases(mode).size(), 1u) << mode << ": " << r.err;
    }
    test::expect_same_case(cases("params")[0], cases("extra")[0]);
    test::expect_same_case(cases("params")[0], cases("ex")[0]);
}

TEST_F(InterceptFakeDriver, ATemplateIsMatchedByItsNameOrByItsInstantiation) {
    ProcessResult r = run("template", "sumBlocks", "all");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    const std::vector<fs::path> found = cases("all", "sumBlocks");
    ASSERT_EQ(found.size(), 1u) << r.err;
    const TestCase tc = read_test_case(found[0]);
    EXPECT_EQ(tc.symbol, "_Z9sumBlocksIfLi4EEvPKT_PS0_j");
    ASSERT_EQ(tc.args.size(), 3u);
    EXPECT_TRUE(tc.args[0].is_const);
    EXPECT_EQ(tc.args[1].element, ElementType::F32);
    EXPECT_EQ(tc.args[2].element, ElementType::U32);

    r = run("template", "sumBlocks<float, 4>", "one");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_EQ(cases("one", "sumBlocks<float, 4>").size(), 1u) << r.err;
    r = run("template", "sumBlocks<double, 4>", "other");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_TRUE(cases("other").empty());
    EXPECT_EQ(side_file("other", kLaunchedKernelsFile), std::vector<std::string>{"sumBlocks<float,4>"});
}

TEST_F(InterceptFakeDriver, AnExternCKernelIsDescribedByItsSourceSignature) {
    ProcessResult r = run("extern-c", "vector_add", "typed",
                          {{"GI_RECORD_SIGNATURE", "float* c;const float* __restrict__;const float*;int"}});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    const std::vector<fs::path> found = cases("typed", "vector_add");
    ASSERT_EQ(found.size(), 1u) << r.err;
    const TestCase tc = read_test_case(found[0]);
    EXPECT_EQ(tc.symbol, "vector_add");
    ASSERT_EQ(tc.args.size(), 4u);
    EXPECT_FALSE(tc.args[0].is_const);
    EXPECT_TRUE(tc.args[1].is_const);
    EXPECT_EQ(tc.args[1].buffer, tc.args[2].buffer);  // both read `in`
    EXPECT_EQ(tc.args[3].element, ElementType::I32);

    r = run("extern-c", "vector_add", "untyped");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;  // the launch is made all the same
    EXPECT_TRUE(cases("untyped").empty());
    const std::vector<std::string> errors = side_file("untyped", kInterceptErrorsFile);
    ASSERT_EQ(errors.size(), 1u) << r.err;
    EXPECT_NE(errors[0].find("'vector_add': the kernel's compiled name 'vector_add' carries no parameter types"),
              std::string::npos)
        << errors[0];
}

TEST_F(InterceptFakeDriver, PointersInAStructAndModuleVariablesAreCaptured) {
    ProcessResult r = run("struct", "axpyStruct", "struct");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    std::vector<fs::path> found = cases("struct", "axpyStruct");
    ASSERT_EQ(found.size(), 1u) << r.err;
    TestCase tc = read_test_case(found[0]);
    ASSERT_EQ(tc.args.size(), 1u);
    EXPECT_EQ(tc.args[0].kind, CaseArg::Kind::Scalar);
    EXPECT_EQ(tc.args[0].pointers.size(), 2u);
    EXPECT_EQ(tc.buffers.size(), 2u);
    // Another run, its buffers elsewhere: the same case but for the addresses.
    r = run("struct", "axpyStruct", "again");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    ASSERT_EQ(cases("again").size(), 1u) << r.err;
    test::expect_same_case(found[0], cases("again")[0]);

    r = run("params", "scaleKernel", "globals", {{"GI_RECORD_GLOBALS", "const:c_scale"}});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    found = cases("globals", "scaleKernel");
    ASSERT_EQ(found.size(), 1u) << r.err;
    tc = read_test_case(found[0]);
    ASSERT_EQ(tc.buffers.size(), 3u);
    EXPECT_EQ(tc.buffers[0].variable, "c_scale");
    EXPECT_TRUE(tc.buffers[0].read_only);
}

TEST_F(InterceptFakeDriver, WhatCannotBeRecordedIsSaidAndTheProgramGoesOn) {
    ProcessResult r = run("host-pointer", "scaleKernel", "host");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_TRUE(cases("host").empty());
    std::vector<std::string> errors = side_file("host", kInterceptErrorsFile);
    ASSERT_EQ(errors.size(), 1u) << r.err;
    EXPECT_NE(errors[0].find("gi-intercept recording 'scaleKernel': argument 0 points to host memory"), std::string::npos)
        << errors[0];
    EXPECT_NE(r.err.find(errors[0]), std::string::npos) << r.err;

    r = run("cooperative-ex", "scaleKernel", "cooperative");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_TRUE(cases("cooperative").empty());
    errors = side_file("cooperative", kInterceptErrorsFile);
    ASSERT_EQ(errors.size(), 1u) << r.err;
    EXPECT_NE(errors[0].find("launched cooperatively"), std::string::npos) << errors[0];

    // Recording synchronises, which stream capture forbids: the launch is made, not recorded.
    r = run("capture", "scaleKernel", "capture");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_TRUE(cases("capture").empty());
    EXPECT_TRUE(side_file("capture", kInterceptErrorsFile).empty());
    EXPECT_NE(r.err.find("a launch into a stream being captured"), std::string::npos) << r.err;
}

TEST_F(InterceptFakeDriver, OnlyTheRegisteredKernelAndOnlyWhenGiToolAsks) {
    ProcessResult r = run("timing-loop", "reduce7", "other", {}, "3");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_TRUE(cases("other").empty());
    EXPECT_EQ(side_file("other", kLaunchedKernelsFile), std::vector<std::string>{"scaleKernel"});

    // Without GI_RECORD_BY=intercept gi::launch would record: the intercept does nothing.
    r = run("timing-loop", "scaleKernel", "off", {{"GI_RECORD_BY", "launch"}}, "3");
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_FALSE(fs::exists(dir_.path() / "off"));
}

#endif

}  // namespace
}  // namespace gi
