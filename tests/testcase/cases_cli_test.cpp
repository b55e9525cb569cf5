// `gi-tool cases` end to end (no GPU): verification of recorded cases and the geometry check.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "testcase/case_io.hpp"
#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

using test::ToolRun;


class CasesCli : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device device;
        dir_ = fs::temp_directory_path() / ("gi-cases-cli-" + std::to_string(device()));
        fs::create_directories(dir_);
        TestCase tc;
        tc.kernel = "k";
        tc.grid = {5, 1, 1};
        tc.block = {64, 1, 1};
        CaseBuffer out;
        out.size = 8;
        out.element = ElementType::F32;
        out.read_only = false;
        out.changed = true;
        out.before = Bytes(8, 0);
        out.after = Bytes(8, 1);
        tc.buffers = {out};
        CaseArg p;
        p.kind = CaseArg::Kind::Pointer;
        p.size = 8;
        p.element = ElementType::F32;
        p.buffer = 0;
        CaseArg n;
        n.kind = CaseArg::Kind::Scalar;
        n.size = 4;
        n.element = ElementType::I32;
        n.value = {64, 1, 0, 0};  // 320
        tc.args = {p, n};
        folder_ = write_test_case(tc, dir_);
        std::ofstream(dir_ / "k.cu") << "#define BLOCK_W 64\n__global__ void k(float* out, int n) {\n"
                                        "    int i = blockIdx.x * BLOCK_W + threadIdx.x;\n    if (i < n) out[i] = 1;\n}\n";
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_, folder_;
};

TEST_F(CasesCli, VerifiesAndChecksGeometry) {
    ToolRun r = test::run_gi_tool("cases " + dir_.string());
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("1 case(s) verified"), std::string::npos) << r.output;
    r = test::run_gi_tool("cases " + dir_.string() + " --kernel " + (dir_ / "k.cu").string() +
                " --function k --param BLOCK_W=32,64 --block BLOCK_W --grid 'ceil(n/BLOCK_W)'");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("reproduces every recorded launch"), std::string::npos) << r.output;
}

TEST_F(CasesCli, GeometryMismatchShowsBoth) {
    const ToolRun r = test::run_gi_tool("cases " + dir_.string() + " --kernel " + (dir_ / "k.cu").string() +
                          " --function k --param BLOCK_W=32,64 --block BLOCK_W --grid 'ceil(n/32)'");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("declared: grid ceil(n/32) = 10,1,1"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("recorded: grid 5,1,1"), std::string::npos) << r.output;
}

TEST_F(CasesCli, CorruptCaseNamesTheFile) {
    std::ofstream(folder_ / "buffer0.after.bin", std::ios::binary) << "12345678";
    const ToolRun r = test::run_gi_tool("cases " + dir_.string());
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("buffer0.after.bin"), std::string::npos) << r.output;
}

TEST_F(CasesCli, UsageErrors) {
    EXPECT_EQ(test::run_gi_tool("cases").status, 2);
    EXPECT_EQ(test::run_gi_tool("cases " + dir_.string() + " --grid 1").status, 2);
    EXPECT_EQ(test::run_gi_tool("cases " + dir_.string() + " --kernel x.cu --grid 'ceil('").status, 2);
    EXPECT_EQ(test::run_gi_tool("cases /nonexistent/dir").status, 1);
    EXPECT_EQ(test::run_gi_tool("cases --help").status, 0);
}

}  // namespace
}  // namespace gi
