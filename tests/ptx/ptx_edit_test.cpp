// PTX edits applied (issue 46): exact PTX text in, exact text out, for each kind; skipped edits;
// edits that cannot mean anything are errors naming the edit; random edits always apply.
#include <gtest/gtest.h>

#include <map>

#include "genome/genome.hpp"
#include "ptx/ptx_edit.hpp"
#include "ptx_sample.hpp"
#include "ptx/random_ptx_edit.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

const std::string kSmallPtx =
    ".visible .entry k(\n"
    "\t.param .u64 k_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b32 \t%r<4>;\n"
    "\t.reg .b64 \t%rd<2>;\n"
    "\n"
    "\tld.param.u64 \t%rd1, [k_param_0];\n"  // 0
    "\tmov.u32 \t%r1, %tid.x;\n"             // 1
    "\tadd.s32 \t%r2, %r1, 7;\n"             // 2
    "\tmul.lo.s32 \t%r3, %r2, %r1;\n"        // 3
    "\tst.global.u32 \t[%rd1], %r3;\n"       // 4
    "\tret;\n"                               // 5
    "}\n";

std::string edited(const std::string& genome, const std::string& ptx = kSmallPtx) {
    return apply_ptx_edits(parse_ptx(ptx, "small.ptx"), ptx_edits_of(parse_genome(genome))).ptx;
}

// kSmallPtx with `from` replaced by `to` (each a whole line or lines).
std::string small_with(const std::string& from, const std::string& to) {
    std::string text = kSmallPtx;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

TEST(PtxEdit, NoEditsGiveTheTextBack) { EXPECT_EQ(edited(""), kSmallPtx); }

TEST(PtxEdit, DeleteRemovesTheInstructionsLine) {
    EXPECT_EQ(edited("ptx:del(2)"), small_with("\tadd.s32 \t%r2, %r1, 7;\n", ""));
}

TEST(PtxEdit, CopyInsertsTheOtherInstructionBefore) {
    EXPECT_EQ(edited("ptx:copy(4,2)"),
              small_with("\tst.global.u32", "\tadd.s32 \t%r2, %r1, 7;\n\tst.global.u32"));
}

TEST(PtxEdit, MoveTakesTheOtherInstructionBefore) {
    EXPECT_EQ(edited("ptx:move(1,3)"), small_with("\tmov.u32 \t%r1, %tid.x;\n\tadd.s32 \t%r2, %r1, 7;\n\tmul.lo.s32 \t%r3, %r2, %r1;\n",
                                                  "\tmul.lo.s32 \t%r3, %r2, %r1;\n\tmov.u32 \t%r1, %tid.x;\n\tadd.s32 \t%r2, %r1, 7;\n"));
}

TEST(PtxEdit, SwapExchangesTwoInstructions) {
    EXPECT_EQ(edited("ptx:swap(2,3)"), small_with("\tadd.s32 \t%r2, %r1, 7;\n\tmul.lo.s32 \t%r3, %r2, %r1;\n",
                                                  "\tmul.lo.s32 \t%r3, %r2, %r1;\n\tadd.s32 \t%r2, %r1, 7;\n"));
}

TEST(PtxEdit, OperandReplacesOneReadRegister) {
    // mul reads %r2 (operand 0) and %r1 (operand 1); the destination %r3 is no read operand.
    EXPECT_EQ(edited("ptx:opnd(3,1,%r2)"), small_with("%r3, %r2, %r1;", "%r3, %r2, %r2;"));
    EXPECT_EQ(edited("ptx:opnd(3,0,%r3)"), small_with("%r3, %r2, %r1;", "%r3, %r3, %r1;"));
    // The address of a store is read: its base register may change too.
    EXPECT_EQ(edited("ptx:opnd(4,1,%r2)"), small_with("[%rd1], %r3;", "[%rd1], %r2;"));
    // Two operand edits on one instruction compose.
    EXPECT_EQ(edited("ptx:opnd(3,0,%r1) ptx:opnd(3,1,%r3)"), small_with("%r3, %r2, %r1;", "%r3, %r1, %r3;"));
}

TEST(PtxEdit, IndexesStayThoseOfTheUneditedPtx) {
    // After the delete, "3" still names the mul and "2" the deleted add: the move is skipped.
    const PtxModule base = parse_ptx(kSmallPtx, "small.ptx");
    const PtxEditResult r = apply_ptx_edits(base, ptx_edits_of(parse_genome("ptx:del(2) ptx:move(1,2) ptx:del(3)")));
    EXPECT_EQ(r.ptx, small_with("\tadd.s32 \t%r2, %r1, 7;\n\tmul.lo.s32 \t%r3, %r2, %r1;\n", ""));
    EXPECT_EQ(r.skipped, (std::vector<std::string>{"ptx:move(1,2)"}));
    // A copy is of the instruction as it was, even after it was deleted or changed.
    EXPECT_EQ(edited("ptx:opnd(2,0,%r3) ptx:del(2) ptx:copy(5,2)"),
              small_with("\tadd.s32 \t%r2, %r1, 7;\n", "").replace(small_with("\tadd.s32 \t%r2, %r1, 7;\n", "").find("\tret;"), 0,
                                                                   "\tadd.s32 \t%r2, %r1, 7;\n"));
    // Source edits in the genome are no concern of the PTX stage.
    EXPECT_EQ(edited("<_k.cu_3> ptx:del(2)"), edited("ptx:del(2)"));
}

struct BadPtxEdit {
    std::string genome;
    std::string says;
};

class PtxEditErrors : public ::testing::TestWithParam<BadPtxEdit> {};

TEST_P(PtxEditErrors, NameTheEdit) {
    const BadPtxEdit& bad = GetParam();
    try {
        edited(bad.genome, ptx_test::kSamplePtx);
        FAIL() << "applied: " << bad.genome;
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("PTX edit " + bad.genome + " in small.ptx: "), std::string::npos) << message;
        EXPECT_NE(message.find(bad.says), std::string::npos) << message;
    }
}

INSTANTIATE_TEST_SUITE_P(All, PtxEditErrors,
                         ::testing::Values(BadPtxEdit{"ptx:del(19)", "past the PTX's 19 instructions"},
                                           BadPtxEdit{"ptx:copy(5,0)", "lie in different functions (_Z5scalePfi, _Z3twof)"},
                                           BadPtxEdit{"ptx:opnd(6,0,%r1)", "reads 0 registers"},
                                           BadPtxEdit{"ptx:opnd(11,2,%rd1)", "reads 2 registers"},
                                           BadPtxEdit{"ptx:opnd(11,0,%r1)", "%r1 is .b32, but %rd2"},
                                           BadPtxEdit{"ptx:opnd(11,0,%rd9)", "not declared where instruction 11 (line 40"},
                                           BadPtxEdit{"ptx:opnd(1,0,%r1)", "not declared"}));  // the kernel's %r, not the function's

// Every random edit of the sample's kernel applies; copies and moves keep a call sequence's
// scoped .param names inside their block; operands keep their type.
TEST(PtxEdit, RandomEditsApplyAndKeepScopedNamesInTheirBlock) {
    const PtxModule m = parse_ptx(ptx_test::kSamplePtx, "small.ptx");
    const int kernel = find_entry(m, "scale");
    Rng rng(46);
    std::map<Edit::Op, int> kinds;
    for (int i = 0; i < 400; ++i) {
        const std::optional<Edit> edit = random_ptx_edit(m, kernel, rng);
        ASSERT_TRUE(edit.has_value());
        ++kinds[edit->op];
        EXPECT_NO_THROW(apply_ptx_edits(m, {*edit})) << edit_to_text(*edit);
        const int target = std::stoi(edit->target);
        EXPECT_EQ(m.instructions[static_cast<std::size_t>(target)].function, kernel);
        if (edit->op == Edit::Op::PtxCopy || edit->op == Edit::Op::PtxMove) {
            const int source = std::stoi(edit->source);
            if (source == 13 || source == 15)  // the st.param/ld.param of the call sequence
                EXPECT_TRUE(target == 13 || target == 14 || target == 15) << edit_to_text(*edit);
        }
        if (edit->op == Edit::Op::PtxOperand) {
            const PtxInstruction& ins = m.instructions[static_cast<std::size_t>(target)];
            const std::string old = read_registers(m, ins)[static_cast<std::size_t>(edit->operand)].name;
            EXPECT_EQ(find_register(m, old, ins.block)->type, find_register(m, edit->source, ins.block)->type);
        }
    }
    EXPECT_EQ(kinds.size(), 5u);  // every kind is drawn
}

}  // namespace
}  // namespace gi
