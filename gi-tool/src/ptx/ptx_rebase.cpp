#include "ptx/ptx_rebase.hpp"

#include <algorithm>
#include <map>

#include "ptx/random_ptx_edit.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

std::string trimmed_text(const PtxInstruction& instruction) {
    std::string code = instruction.text.substr(0, instruction.text.find("//"));
    const std::size_t b = code.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return code.substr(b, code.find_last_not_of(" \t\r\n") - b + 1);
}

bool same_instruction(const PtxInstruction& a, const PtxInstruction& b) {
    return a.guard == b.guard && a.opcode == b.opcode && a.operands == b.operands;
}

// The .reg declarations of a function's blocks, as text, in order.
std::vector<std::string> registers_of(const PtxModule& module, int function) {
    std::vector<std::string> out;
    for (const PtxRegisters& r : module.registers)
        if (r.block >= 0 && module.blocks[static_cast<std::size_t>(r.block)].function == function)
            out.push_back("." + r.type + " " + r.name + (r.count >= 0 ? "<" + std::to_string(r.count) + ">" : ""));
    return out;
}

int kernel_in(const PtxModule& module, const std::string& function) {
    const int f = find_entry(module, function);
    if (f < 0)
        throw Error("kernel " + function + " is not an entry of " + module.name +
                    " (was the PTX made from the kernel's file, and are the edits for this kernel?)");
    return f;
}

}  // namespace

std::vector<Edit> rebase_ptx_edits(const PtxModule& from, const PtxModule& to, const std::vector<Edit>& edits,
                                   const std::string& function) {
    const int f_from = kernel_in(from, function), f_to = kernel_in(to, function);
    const std::string& name = from.functions[static_cast<std::size_t>(f_from)].name;
    const std::string differs = "kernel " + function + " (" + name + ") in " + to.name +
                                " is not the code its PTX edits were made on (" + from.name + "): ";
    if (to.functions[static_cast<std::size_t>(f_to)].name != name)
        throw Error(differs + "its mangled name there is " + to.functions[static_cast<std::size_t>(f_to)].name);
    const std::vector<int> a = instructions_of(from, f_from), b = instructions_of(to, f_to);
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
        auto show = [&](const PtxModule& m, const std::vector<int>& list) {
            if (i >= list.size()) return std::string("(the kernel ends after ") + std::to_string(list.size()) + " instructions)";
            const PtxInstruction& ins = m.instructions[static_cast<std::size_t>(list[i])];
            return "'" + trimmed_text(ins) + "' (line " + std::to_string(ins.line) + ")";
        };
        if (i < a.size() && i < b.size() &&
            same_instruction(from.instructions[static_cast<std::size_t>(a[i])], to.instructions[static_cast<std::size_t>(b[i])]))
            continue;
        throw Error(differs + "its instruction " + std::to_string(i) + " is " + show(to, b) + " there and " +
                    show(from, a) + " in " + from.name);
    }
    const std::vector<std::string> regs_from = registers_of(from, f_from), regs_to = registers_of(to, f_to);
    if (regs_from != regs_to)
        throw Error(differs + "it declares other registers (" + to.name + ": " + join(regs_to, " ") + "; " + from.name +
                    ": " + join(regs_from, " ") + ")");

    std::map<std::string, std::string> position;  // index in `from` -> index in `to`
    for (std::size_t i = 0; i < a.size(); ++i) position[std::to_string(a[i])] = std::to_string(b[i]);
    auto moved = [&](const Edit& edit, const std::string& index) {
        const auto it = position.find(index);
        if (it == position.end())
            throw Error("PTX edit " + edit_to_text(edit) + ": instruction " + index + " of " + from.name +
                        " is not in kernel " + function + " (PTX edits are shipped for the kernel's own code only)");
        return it->second;
    };
    std::vector<Edit> out;
    for (Edit edit : edits) {
        if (!is_ptx_edit(edit)) continue;
        edit.target = moved(edit, edit.target);
        if (edit.op == Edit::Op::PtxCopy || edit.op == Edit::Op::PtxMove || edit.op == Edit::Op::PtxSwap)
            edit.source = moved(edit, edit.source);
        out.push_back(std::move(edit));
    }
    return out;
}

}  // namespace gi
