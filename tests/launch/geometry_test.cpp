#include "launch/geometry.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

TestCase blur_case() {
    TestCase tc;
    tc.kernel = "blurKernel";
    tc.path = "cases/blurKernel-0000";
    tc.grid = {10, 15, 1};
    tc.block = {32, 4, 1};
    auto int_arg = [](int v) {
        CaseArg a;
        a.kind = CaseArg::Kind::Scalar;
        a.size = 4;
        a.element = ElementType::I32;
        a.value = {static_cast<unsigned char>(v & 0xff), static_cast<unsigned char>((v >> 8) & 0xff), 0, 0};
        return a;
    };
    CaseArg pointer;
    pointer.kind = CaseArg::Kind::Pointer;
    pointer.size = 8;
    pointer.buffer = 0;
    CaseArg threshold;
    threshold.kind = CaseArg::Kind::Scalar;
    threshold.size = 4;
    threshold.element = ElementType::F32;
    threshold.value = {0, 0, 0, 0x3f};
    tc.args = {pointer, int_arg(320), int_arg(240), threshold};
    return tc;
}

const std::vector<std::string> kNames{"in", "width", "height", "threshold"};

TEST(LaunchGeometry, CaseNamesOfferIntegerScalars) {
    const NameValues names = case_names(blur_case(), kNames);
    EXPECT_EQ(names.at("width"), 320);
    EXPECT_EQ(names.at("arg1"), 320);
    EXPECT_EQ(names.at("height"), 240);
    EXPECT_EQ(names.count("threshold"), 0u);  // floats are not geometry
    EXPECT_EQ(names.count("in"), 0u);
}

TEST(LaunchGeometry, ResolvesUnderParameters) {
    const LaunchGeometry g = parse_launch_geometry("BLOCK_W,4", "ceil(width/BLOCK_W), ceil(height/(4*ROWS))");
    auto r = resolve_geometry(g, blur_case(), {{"BLOCK_W", 32}, {"ROWS", 4}}, kNames);
    EXPECT_EQ(r.block, (Dim3{32, 4, 1}));
    EXPECT_EQ(r.grid, (Dim3{10, 15, 1}));
    r = resolve_geometry(g, blur_case(), {{"BLOCK_W", 64}, {"ROWS", 5}}, kNames);
    EXPECT_EQ(r.block, (Dim3{64, 4, 1}));
    EXPECT_EQ(r.grid, (Dim3{5, 12, 1}));
    EXPECT_NO_THROW(check_recorded_geometry(g, blur_case(), {{"BLOCK_W", 32}, {"ROWS", 4}}, kNames));
}

TEST(LaunchGeometry, UndeclaredKeepsTheRecordedGeometry) {
    const LaunchGeometry g = parse_launch_geometry("", "");
    EXPECT_FALSE(g.declared());
    const auto r = resolve_geometry(g, blur_case(), {}, {});
    EXPECT_EQ(r.grid, (Dim3{10, 15, 1}));
    EXPECT_NO_THROW(check_recorded_geometry(g, blur_case(), {}, {}));
}

TEST(LaunchGeometry, MismatchShowsBoth) {
    const LaunchGeometry g = parse_launch_geometry("BLOCK_W,4", "ceil(width/BLOCK_W),ceil(height/ROWS)");
    try {
        check_recorded_geometry(g, blur_case(), {{"BLOCK_W", 32}, {"ROWS", 4}}, kNames);
        FAIL() << "expected a mismatch";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("cases/blurKernel-0000"), std::string::npos) << m;
        EXPECT_NE(m.find("declared: grid ceil(width/BLOCK_W),ceil(height/ROWS) = 10,60,1"), std::string::npos) << m;
        EXPECT_NE(m.find("recorded: grid 10,15,1, block 32,4,1"), std::string::npos) << m;
        EXPECT_NE(m.find("BLOCK_W=32 ROWS=4"), std::string::npos) << m;
    }
}

TEST(LaunchGeometry, BadDimensionNamesTheCase) {
    const LaunchGeometry g = parse_launch_geometry("BLOCK_W - 32", "");
    try {
        resolve_geometry(g, blur_case(), {{"BLOCK_W", 32}}, kNames);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cases/blurKernel-0000: block expression 'BLOCK_W - 32' gives 0"),
                  std::string::npos) << e.what();
    }
    const LaunchGeometry unknown = parse_launch_geometry("", "ceil(w/BLOCK_W)");
    EXPECT_THROW(resolve_geometry(unknown, blur_case(), {{"BLOCK_W", 32}}, kNames), Error);
}

}  // namespace
}  // namespace gi
