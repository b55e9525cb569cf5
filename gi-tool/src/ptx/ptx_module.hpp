#pragma once
// Stage ptx: a variant's PTX (what NVRTC emits for its source) as a value, for instruction-level
// edits (GEVO's, seed 002, on PTX instead of LLVM IR). The text is kept in pieces of whole lines,
// so printing them gives the text back byte for byte; each instruction is a piece of its own,
// with its guard, opcode and operands, the function and the { } block it lies in. Labels,
// declarations and directives are pieces no edit addresses, so they stay where they are.
#include <string>
#include <vector>

namespace gi {

struct PtxInstruction {
    std::string text;                   // its lines as written (indentation, trailing comment, newline)
    int line = 0;                       // its first line in the PTX, from 1
    std::string guard;                  // "@%p1", "@!%p3", or ""
    std::string opcode;                 // "add.s32", "ld.global.nc.f32", "ret"
    std::vector<std::string> operands;  // top-level comma-separated operands, trimmed
    int function = -1;                  // index into PtxModule::functions
    int block = -1;                     // index into PtxModule::blocks: the innermost { } around it
};

// A { } block: a function's body, or a scope inside it (a call sequence, inline asm's registers).
struct PtxBlock {
    int parent = -1;  // enclosing block, -1 for a function's body
    int function = -1;
};

// One register name a .reg declaration makes: "%r" with count 398 for "%r<398>" (%r0 .. %r397),
// or a single name ("%SP") with count -1.
struct PtxRegisters {
    std::string type;  // "b32", "pred", "f32", "b64"
    std::string name;
    int count = -1;
    int block = -1;  // where it is declared: visible there and in the blocks inside it
};

struct PtxFunction {
    std::string name;  // the mangled name: "_Z13stereo_kernelPKhS0_PfPiii"
    bool entry = false;  // a kernel (.entry), not a device function (.func)
    int body = -1;       // its outermost block
};

struct PtxPiece {
    std::string text;      // raw lines (directives, labels, braces, comments); empty for an instruction
    int instruction = -1;  // index into PtxModule::instructions, or -1 for raw text
};

struct PtxModule {
    std::string name;  // shown in messages: "variant.ptx"
    std::vector<PtxPiece> pieces;
    std::vector<PtxInstruction> instructions;  // in text order: an instruction's index is its address
    std::vector<PtxFunction> functions;
    std::vector<PtxBlock> blocks;
    std::vector<PtxRegisters> registers;
};

// Throws gi::Error naming `name`, the line and what is wrong (an unclosed block, a statement
// without ';', two statements on one line, a malformed .reg).
PtxModule parse_ptx(const std::string& text, const std::string& name = "kernel.ptx");

// The module's text: its pieces in order (for a parsed module, exactly the parsed text).
std::string print_ptx(const PtxModule& module);

// A register an instruction names, where in its text (byte offset and length).
struct PtxRegisterUse {
    std::string name;  // "%r12"
    std::size_t offset = 0;
    bool written = false;  // a destination (the first operand of most instructions)
};

// Every declared register an instruction names, in text order (comments left out).
std::vector<PtxRegisterUse> register_uses(const PtxModule& module, const PtxInstruction& instruction);
// Only the ones it reads (guard, sources, addresses): what operand replacement may change.
std::vector<PtxRegisterUse> read_registers(const PtxModule& module, const PtxInstruction& instruction);

// The declaration of register `name` visible in `block` (its own or an enclosing block's), or null.
const PtxRegisters* find_register(const PtxModule& module, const std::string& name, int block);

// Whether block `inner` is `outer` or lies inside it.
bool block_within(const PtxModule& module, int inner, int outer);

// The kernel entry whose mangled name holds `function` as its identifier ("_Z13stereo_kernel...",
// or "stereo_kernel" for extern "C"), or -1.
int find_entry(const PtxModule& module, const std::string& function);

}  // namespace gi
