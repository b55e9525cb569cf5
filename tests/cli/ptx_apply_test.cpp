// `gi-tool apply` and PTX edits (issue 46): the variant file is source, so a genome's PTX edits
// cannot be in it; apply writes the source part and says which edits it leaves out.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {

TEST(PtxApply, SaysWhichPtxEditsTheVariantFileLeavesOut) {
    const std::filesystem::path dir = test::fresh_temp_dir("gi-ptx-apply");
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "k.cu") << "#define BLOCK 64\n__global__ void k(float* a) {\n    a[threadIdx.x] = BLOCK;\n}\n";
    const ProcessResult r = test::gi_tool({"apply", (dir / "k.cu").string(), "--function", "k", "--param", "BLOCK=32,64",
                                           "--genome", "BLOCK=32 ptx:del(4) ptx:swap(1,2)", "-o", (dir / "v.cu").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.err.find("the variant file leaves out the genome's PTX edits (ptx:del(4) ptx:swap(1,2))"), std::string::npos)
        << r.err;
    EXPECT_NE(test::file_text(dir / "v.cu").find("#define BLOCK 32"), std::string::npos);
    // Without PTX edits, no such note.
    const ProcessResult plain = test::gi_tool({"apply", (dir / "k.cu").string(), "--function", "k", "--param", "BLOCK=32,64",
                                               "--genome", "BLOCK=32", "-o", (dir / "w.cu").string()});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(plain.err.find("PTX"), std::string::npos) << plain.err;
}

}  // namespace
}  // namespace gi
