// Parsing PTX into instructions (issue 46): exact text back, instructions with their operands,
// functions, blocks and registers, and parse errors that name the line.
#include <gtest/gtest.h>

#include "ptx/ptx_module.hpp"
#include "ptx_sample.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using ptx_test::kSamplePtx;

TEST(PtxModule, PrintsTheParsedTextBackExactly) {
    const PtxModule m = parse_ptx(kSamplePtx, "sample.ptx");
    EXPECT_EQ(print_ptx(m), kSamplePtx);
    EXPECT_EQ(print_ptx(parse_ptx("")), "");
    const std::string no_final_newline = ".version 9.0\n.visible .entry k()\n{\n\tret;\n}";
    EXPECT_EQ(print_ptx(parse_ptx(no_final_newline)), no_final_newline);
}

TEST(PtxModule, FindsFunctionsInstructionsAndTheirParts) {
    const PtxModule m = parse_ptx(kSamplePtx, "sample.ptx");
    ASSERT_EQ(m.functions.size(), 2u);
    EXPECT_EQ(m.functions[0].name, "_Z3twof");
    EXPECT_FALSE(m.functions[0].entry);
    EXPECT_EQ(m.functions[1].name, "_Z5scalePfi");
    EXPECT_TRUE(m.functions[1].entry);
    ASSERT_EQ(m.instructions.size(), 19u);
    EXPECT_EQ(m.instructions[0].line, 15);
    EXPECT_EQ(m.instructions[0].opcode, "ld.param.f32");
    EXPECT_EQ(m.instructions[0].operands, (std::vector<std::string>{"%f1", "[_Z3twof_param_0]"}));
    EXPECT_EQ(m.instructions[0].function, 0);
    const PtxInstruction& branch = m.instructions[8];
    EXPECT_EQ(branch.line, 36);
    EXPECT_EQ(branch.guard, "@%p1");
    EXPECT_EQ(branch.opcode, "bra");
    EXPECT_EQ(branch.operands, (std::vector<std::string>{"$L__BB1_2"}));
    // A call spans five lines and is one instruction; its text is all of them.
    const PtxInstruction& call = m.instructions[14];
    EXPECT_EQ(call.line, 46);
    EXPECT_EQ(call.opcode, "call.uni");
    ASSERT_EQ(call.operands.size(), 3u);
    EXPECT_EQ(call.operands[0], "(retval0)");
    EXPECT_EQ(call.text, "\tcall.uni (retval0), \n\t_Z3twof, \n\t(\n\tparam0\n\t);\n");
    // The call sequence is a block inside the kernel's body.
    EXPECT_EQ(m.instructions[12].block, m.functions[1].body);
    EXPECT_NE(m.instructions[13].block, m.functions[1].body);
    EXPECT_EQ(m.blocks[static_cast<std::size_t>(m.instructions[13].block)].parent, m.functions[1].body);
    EXPECT_EQ(m.instructions[16].text, "\tmul.f32 \t%f3, %f2, 0f40400000; // times three\n");
    EXPECT_EQ(m.instructions[16].operands, (std::vector<std::string>{"%f3", "%f2", "0f40400000"}));
    EXPECT_EQ(m.instructions[18].opcode, "ret");
    EXPECT_TRUE(m.instructions[18].operands.empty());
}

TEST(PtxModule, RegistersByBlockAndType) {
    const PtxModule m = parse_ptx(kSamplePtx);
    const int body = m.functions[1].body;
    ASSERT_NE(find_register(m, "%rd3", body), nullptr);
    EXPECT_EQ(find_register(m, "%rd3", body)->type, "b64");
    EXPECT_EQ(find_register(m, "%r3", body)->type, "b32");
    EXPECT_EQ(find_register(m, "%p1", body)->type, "pred");
    EXPECT_EQ(find_register(m, "%rd4", body), nullptr);  // %rd<4> is %rd0 .. %rd3
    EXPECT_EQ(find_register(m, "%tid", body), nullptr);
    // The device function's %f registers are its own.
    EXPECT_NE(find_register(m, "%f1", m.functions[0].body), find_register(m, "%f1", body));
}

std::vector<std::string> names_of(const std::vector<PtxRegisterUse>& uses, bool written_only = false) {
    std::vector<std::string> names;
    for (const PtxRegisterUse& use : uses)
        if (!written_only || use.written) names.push_back(use.name);
    return names;
}

TEST(PtxModule, TellsReadRegistersFromWrittenOnes) {
    const PtxModule m = parse_ptx(kSamplePtx);
    EXPECT_EQ(names_of(register_uses(m, m.instructions[11])), (std::vector<std::string>{"%rd3", "%rd2", "%rd3"}));
    EXPECT_EQ(names_of(register_uses(m, m.instructions[11]), true), (std::vector<std::string>{"%rd3"}));
    EXPECT_EQ(names_of(read_registers(m, m.instructions[11])), (std::vector<std::string>{"%rd2", "%rd3"}));
    EXPECT_EQ(names_of(read_registers(m, m.instructions[8])), (std::vector<std::string>{"%p1"}));      // the guard
    EXPECT_EQ(names_of(read_registers(m, m.instructions[17])), (std::vector<std::string>{"%rd3", "%f3"}));  // a store writes none
    EXPECT_TRUE(read_registers(m, m.instructions[6]).empty());  // %tid.x is no declared register
    EXPECT_TRUE(read_registers(m, m.instructions[16]).size() == 1u);  // the comment's words are not read
}

TEST(PtxModule, FindsTheKernelEntryByItsSourceName) {
    const PtxModule m = parse_ptx(kSamplePtx);
    EXPECT_EQ(find_entry(m, "scale"), 1);
    EXPECT_EQ(find_entry(m, "scal"), -1);
    EXPECT_EQ(find_entry(m, "two"), -1);  // a device function, not a kernel
    EXPECT_EQ(find_entry(parse_ptx(".visible .entry plain()\n{\n\tret;\n}\n"), "plain"), 0);  // extern "C"
}

struct BadPtx {
    std::string text;
    std::string line;
    std::string says;
};

class PtxParseErrors : public ::testing::TestWithParam<BadPtx> {};

TEST_P(PtxParseErrors, NameTheLine) {
    const BadPtx& bad = GetParam();
    try {
        parse_ptx(bad.text, "variant.ptx");
        FAIL() << "parsed: " << bad.text;
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("variant.ptx:" + bad.line + ":"), std::string::npos) << message;
        EXPECT_NE(message.find(bad.says), std::string::npos) << message;
    }
}

INSTANTIATE_TEST_SUITE_P(
    All, PtxParseErrors,
    ::testing::Values(BadPtx{".visible .entry k()\n{\n\tret;\n", "3", "not closed"},
                      BadPtx{".visible .entry k()\n{\n\tadd.s32 %r1, %r2, %r3\n}\n", "4", "brace inside a statement"},
                      BadPtx{".visible .entry k()\n{\n\tret;\n}\n}\n", "5", "without a '{'"},
                      BadPtx{".version 9.0\n{\n}\n", "2", "outside a function"},
                      BadPtx{".visible .entry k()\n{\n\tmov.u32 %r1, 0; mov.u32 %r2, 1;\n}\n", "3", "two statements on one line"},
                      BadPtx{".visible .entry k()\n{\n\t.reg %r<4>;\n}\n", "3", "without a type"},
                      BadPtx{".visible .entry k()\n{\n\t.reg .b32 %r<x>;\n}\n", "3", "without a count"},
                      BadPtx{".visible .entry k()\n{\n\t.reg .b32 r1;\n}\n", "3", "not a register name"},
                      BadPtx{".visible .entry k()\n{\n\t@%p1 ;\n}\n", "3", "without an instruction"},
                      BadPtx{".visible .entry k()\n{\n\tret\n", "3", "not ended by ';'"}));

}  // namespace
}  // namespace gi
