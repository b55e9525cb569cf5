// PTX edits carried from the PTX they were made on to another compile's PTX of the same kernel
// (ptx/ptx_rebase.hpp, issue 46): indexes move with the kernel's place in the module; a kernel
// that is other code is refused naming the first difference.
#include "ptx/ptx_rebase.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

const std::string kRebaseKernel =
    ".visible .entry k(\n"
    "\t.param .u64 k_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b32 \t%r<4>;\n"
    "\t.reg .b64 \t%rd<2>;\n"
    "\n"
    "\tld.param.u64 \t%rd1, [k_param_0];\n"
    "\tmov.u32 \t%r1, %tid.x;\n"
    "\tadd.s32 \t%r2, %r1, 7;\n"
    "\tmul.lo.s32 \t%r3, %r2, %r1;\n"
    "\tst.global.u32 \t[%rd1], %r3;\n"
    "\tret;\n"
    "}\n";

// Another module: a device function of three instructions before the same kernel.
const std::string kRebaseHelper =
    ".func (.param .b32 r) h(\n"
    "\t.param .b32 h_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b32 \t%r<3>;\n"
    "\tld.param.u32 \t%r1, [h_param_0];\n"
    "\tadd.s32 \t%r2, %r1, 1;\n"
    "\tret;\n"
    "}\n";

TEST(PtxRebase, IndexesFollowTheKernelIntoTheOtherModule) {
    const PtxModule from = parse_ptx(kRebaseKernel, "nvrtc.ptx");
    const PtxModule to = parse_ptx(kRebaseHelper + kRebaseKernel, "nvcc.ptx");
    const std::vector<Edit> edits = rebase_ptx_edits(from, to, ptx_edits_of(parse_genome("N=1 ptx:del(2) ptx:swap(1,3) ptx:opnd(3,1,%r2) <_k.cu_4>")), "k");
    EXPECT_EQ(genome_to_text(Genome{{}, edits}), "ptx:del(5) ptx:swap(4,6) ptx:opnd(6,1,%r2)");
}

TEST(PtxRebase, AnotherKernelIsRefusedNamingTheFirstDifferenceAndBothTexts) {
    const PtxModule from = parse_ptx(kRebaseKernel, "nvrtc.ptx");
    std::string other = kRebaseKernel;
    other.replace(other.find("%r1, 7"), 6, "%r1, 8");
    const PtxModule to = parse_ptx(other, "nvcc.ptx");
    try {
        rebase_ptx_edits(from, to, ptx_edits_of(parse_genome("ptx:del(0)")), "k");
        FAIL() << "the differing kernel was taken";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("kernel k (k) in nvcc.ptx is not the code its PTX edits were made on (nvrtc.ptx): its "
                            "instruction 2 is 'add.s32 \t%r2, %r1, 8;' (line 10) there and 'add.s32 \t%r2, %r1, 7;' "
                            "(line 10) in nvrtc.ptx"),
                  std::string::npos)
            << what;
    }
    // One instruction fewer: said as where the kernel ends.
    std::string shorter = kRebaseKernel;
    shorter.erase(shorter.find("\tmul.lo.s32"), std::string("\tmul.lo.s32 \t%r3, %r2, %r1;\n").size());
    EXPECT_THROW(rebase_ptx_edits(from, parse_ptx(shorter, "nvcc.ptx"), {}, "k"), Error);
}

TEST(PtxRebase, EditsOutsideTheKernelAndAMissingKernelAreRefused) {
    const PtxModule from = parse_ptx(kRebaseHelper + kRebaseKernel, "nvrtc.ptx");
    const PtxModule to = parse_ptx(kRebaseHelper + kRebaseKernel, "nvcc.ptx");
    try {
        rebase_ptx_edits(from, to, ptx_edits_of(parse_genome("ptx:del(1)")), "k");
        FAIL() << "an edit of the device function was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("instruction 1 of nvrtc.ptx is not in kernel k"), std::string::npos) << e.what();
    }
    try {
        rebase_ptx_edits(from, to, {}, "other");
        FAIL() << "a missing kernel was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("kernel other is not an entry of nvrtc.ptx"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace gi
