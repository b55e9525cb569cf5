// project_headers: the project's own headers a kernel file includes, found as the compiler finds
// them, each with its host code set aside for NVRTC.
#include "compile/project_headers.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "../support/gpu_fixture.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

void write_project_file(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

std::vector<std::string> names(const std::vector<ProjectHeader>& headers) {
    std::vector<std::string> out;
    for (const ProjectHeader& h : headers) out.push_back(h.include_name);
    return out;
}

TEST(ProjectHeaders, FoundAsTheCompilerFindsThemAndCutLikeTheKernelFile) {
    gpu_test::TempFolder folder;
    const fs::path src = folder.path() / "src", inc = folder.path() / "include", toolkit = folder.path() / "toolkit";
    write_project_file(src / "local.cuh", "#pragma once\n#include \"nested.cuh\"\nvoid host_only() { }\n__device__ int one() { return 1; }\n");
    write_project_file(inc / "nested.cuh", "#pragma once\n#define N 4\n");
    write_project_file(inc / "sub/angled.hpp", "#pragma once\nint host_declared(int);\n");
    write_project_file(toolkit / "cuda_fp16.h", "#pragma once\n");
    write_project_file(inc / "broken.cuh", "__device__ int f() {\n");
    const std::string kernel = "#include \"local.cuh\"\n#include <sub/angled.hpp>\n#include <cuda_fp16.h>\n"
                               "#include <vector>\n#include \"missing.h\"\n#include \"broken.cuh\"\n";
    const std::vector<ProjectHeader> headers =
        project_headers(kernel, src, {inc.string(), toolkit.string()}, {toolkit.string()}, {"vector"});
    EXPECT_EQ(names(headers), (std::vector<std::string>{"local.cuh", "sub/angled.hpp", "nested.cuh"}));
    ASSERT_EQ(headers.size(), 3u);
    EXPECT_EQ(headers[0].device_side.find("host_only"), std::string::npos) << headers[0].device_side;
    EXPECT_NE(headers[0].device_side.find("__device__ int one()"), std::string::npos);
    EXPECT_NE(headers[0].device_side.find("#include \"nested.cuh\""), std::string::npos);
    EXPECT_EQ(headers[1].device_side.find("host_declared"), std::string::npos) << headers[1].device_side;
    // An angled include is not looked for in the including file's folder.
    write_project_file(src / "only_here.hpp", "int h();\n");
    EXPECT_TRUE(project_headers("#include <only_here.hpp>\n", src, {}, {}, {}).empty());
}

TEST(ProjectHeaders, OneNameForTwoFilesStandsInForNone) {
    gpu_test::TempFolder folder;
    const fs::path a = folder.path() / "a", b = folder.path() / "b";
    write_project_file(a / "k.cuh", "#include \"util.h\"\n#include \"../b/k2.cuh\"\n");
    write_project_file(a / "util.h", "int a();\n");
    write_project_file(b / "k2.cuh", "#include \"util.h\"\n");
    write_project_file(b / "util.h", "int b();\n");
    EXPECT_TRUE(project_headers("#include \"k.cuh\"\n", a, {}, {}, {}).empty());
}

}  // namespace
}  // namespace gi
