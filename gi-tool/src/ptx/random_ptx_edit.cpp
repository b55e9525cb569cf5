#include "ptx/random_ptx_edit.hpp"

#include <iterator>
#include <set>

namespace gi {
namespace {

constexpr int kDrawAttempts = 16;

// Whether every name `moved` uses is declared, as the same thing, where block `to` is. An inner
// block (a call sequence) declares .param names too, which are no registers: what lies in one
// stays in it.
bool names_fit(const PtxModule& module, const PtxInstruction& moved, int to) {
    if (moved.block != module.functions[static_cast<std::size_t>(moved.function)].body && moved.block != to) return false;
    for (const PtxRegisterUse& use : register_uses(module, moved))
        if (find_register(module, use.name, to) != find_register(module, use.name, moved.block)) return false;
    return true;
}

std::optional<Edit> operand_edit(const PtxModule& module, const std::vector<int>& body, std::size_t position, Rng& rng) {
    const int target = body[position];
    const PtxInstruction& ins = module.instructions[static_cast<std::size_t>(target)];
    const std::vector<PtxRegisterUse> reads = read_registers(module, ins);
    if (reads.empty()) return std::nullopt;
    const std::size_t operand = rng.index(reads.size());
    const PtxRegisters* type = find_register(module, reads[operand].name, ins.block);
    // Registers of that type written before it (in text order), other than the one it reads now.
    std::set<std::string> seen;
    std::vector<std::string> candidates;
    for (std::size_t i = 0; i < position; ++i) {
        const PtxInstruction& earlier = module.instructions[static_cast<std::size_t>(body[i])];
        for (const PtxRegisterUse& use : register_uses(module, earlier)) {
            if (!use.written || use.name == reads[operand].name || !seen.insert(use.name).second) continue;
            const PtxRegisters* decl = find_register(module, use.name, ins.block);
            if (decl != nullptr && decl->type == type->type) candidates.push_back(use.name);
        }
    }
    if (candidates.empty()) return std::nullopt;
    return Edit{Edit::Op::PtxOperand, std::to_string(target), candidates[rng.index(candidates.size())], static_cast<int>(operand)};
}

}  // namespace

std::vector<int> instructions_of(const PtxModule& module, int function) {
    std::vector<int> body;
    for (std::size_t i = 0; i < module.instructions.size(); ++i)
        if (module.instructions[i].function == function) body.push_back(static_cast<int>(i));
    return body;
}

std::optional<Edit> random_ptx_edit(const PtxModule& module, int function, Rng& rng) {
    const std::vector<int> body = instructions_of(module, function);
    if (body.empty()) return std::nullopt;
    constexpr Edit::Op kOps[] = {Edit::Op::PtxDelete, Edit::Op::PtxCopy, Edit::Op::PtxMove, Edit::Op::PtxSwap, Edit::Op::PtxOperand};
    for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
        const Edit::Op op = kOps[rng.index(std::size(kOps))];
        const std::size_t a = rng.index(body.size());
        const PtxInstruction& target = module.instructions[static_cast<std::size_t>(body[a])];
        if (op == Edit::Op::PtxDelete) return Edit{op, std::to_string(body[a]), ""};
        if (op == Edit::Op::PtxOperand) {
            if (auto edit = operand_edit(module, body, a, rng)) return edit;
            continue;
        }
        const std::size_t b = rng.index(body.size());
        if (a == b) continue;
        const PtxInstruction& source = module.instructions[static_cast<std::size_t>(body[b])];
        if (!names_fit(module, source, target.block)) continue;
        if (op == Edit::Op::PtxSwap && !names_fit(module, target, source.block)) continue;
        return Edit{op, std::to_string(body[a]), std::to_string(body[b])};
    }
    return std::nullopt;
}

}  // namespace gi
