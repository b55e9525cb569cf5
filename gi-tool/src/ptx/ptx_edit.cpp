#include "ptx/ptx_edit.hpp"

#include <algorithm>
#include <iterator>
#include <optional>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

// One piece of the module being edited: raw text, or an instruction with the index it had in the
// unedited PTX (-1 for a copy, which no edit addresses).
struct WorkPiece {
    std::string text;
    int id = -1;
    int base = -1;  // the unedited instruction it is (or is a copy of), for its opcode and block
    bool raw() const { return base < 0; }
};

class Editor {
public:
    explicit Editor(const PtxModule& base) : base_(base) {
        for (const PtxPiece& piece : base.pieces) {
            if (piece.instruction < 0) pieces_.push_back({piece.text, -1, -1});
            else pieces_.push_back({base.instructions[static_cast<std::size_t>(piece.instruction)].text, piece.instruction, piece.instruction});
        }
    }

    void apply(const Edit& edit, std::vector<std::string>& skipped) {
        text_ = edit_to_text(edit);
        const int target = index(edit.target);
        const int source = edit.op == Edit::Op::PtxCopy || edit.op == Edit::Op::PtxMove || edit.op == Edit::Op::PtxSwap
                               ? index(edit.source)
                               : -1;
        if (source >= 0 && instruction(source).function != instruction(target).function)
            fail("instructions " + edit.target + " and " + edit.source + " lie in different functions (" +
                 base_.functions[static_cast<std::size_t>(instruction(target).function)].name + ", " +
                 base_.functions[static_cast<std::size_t>(instruction(source).function)].name + ")");
        const std::optional<std::size_t> at = find(target);
        auto skip = [&] { skipped.push_back(text_); };
        switch (edit.op) {
            case Edit::Op::PtxDelete:
                if (!at) return skip();
                pieces_.erase(pieces_.begin() + static_cast<std::ptrdiff_t>(*at));
                return;
            case Edit::Op::PtxCopy:
                if (!at) return skip();
                pieces_.insert(pieces_.begin() + static_cast<std::ptrdiff_t>(*at), WorkPiece{instruction(source).text, -1, source});
                return;
            case Edit::Op::PtxMove: {
                const std::optional<std::size_t> from = find(source);
                if (!at || !from || target == source) return skip();
                WorkPiece moved = std::move(pieces_[*from]);
                pieces_.erase(pieces_.begin() + static_cast<std::ptrdiff_t>(*from));
                pieces_.insert(pieces_.begin() + static_cast<std::ptrdiff_t>(*find(target)), std::move(moved));
                return;
            }
            case Edit::Op::PtxSwap: {
                const std::optional<std::size_t> other = find(source);
                if (!at || !other || target == source) return skip();
                std::swap(pieces_[*at], pieces_[*other]);
                return;
            }
            case Edit::Op::PtxOperand:
                if (!at) return skip();
                replace_operand(pieces_[*at], edit.operand, edit.source);
                return;
            default: fail("not a PTX edit");
        }
    }

    std::string text() const {
        std::string out;
        for (const WorkPiece& piece : pieces_) out += piece.text;
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw Error("PTX edit " + text_ + " in " + base_.name + ": " + what); }

    int index(const std::string& text) const {
        const long long i = std::stoll(text);  // the genome's parser admits digits only
        if (i >= static_cast<long long>(base_.instructions.size()))
            fail("instruction " + text + " is past the PTX's " + std::to_string(base_.instructions.size()) +
                 " instructions (was the genome made for this kernel and compiler?)");
        return static_cast<int>(i);
    }

    const PtxInstruction& instruction(int i) const { return base_.instructions[static_cast<std::size_t>(i)]; }

    std::optional<std::size_t> find(int id) const {
        for (std::size_t i = 0; i < pieces_.size(); ++i)
            if (pieces_[i].id == id) return i;
        return std::nullopt;
    }

    void replace_operand(WorkPiece& piece, int operand, const std::string& value) {
        PtxInstruction now = instruction(piece.base);
        now.text = piece.text;
        const std::vector<PtxRegisterUse> reads = read_registers(base_, now);
        const std::string where = "instruction " + std::to_string(piece.id) + " (line " + std::to_string(now.line) + ": '" +
                                  excerpt(now.guard.empty() ? now.opcode : now.guard + " " + now.opcode) + "')";
        if (operand < 0 || operand >= static_cast<int>(reads.size()))
            fail(where + " reads " + std::to_string(reads.size()) + " register" + (reads.size() == 1 ? "" : "s") +
                 ", so it has no read operand " + std::to_string(operand));
        const PtxRegisterUse& use = reads[static_cast<std::size_t>(operand)];
        const PtxRegisters* old_decl = find_register(base_, use.name, now.block);
        const PtxRegisters* new_decl = find_register(base_, value, now.block);
        if (new_decl == nullptr) fail("register " + excerpt(value) + " is not declared where " + where + " is");
        if (new_decl->type != old_decl->type)
            fail("register " + value + " is ." + new_decl->type + ", but " + use.name + ", which it would replace in " + where +
                 ", is ." + old_decl->type);
        piece.text.replace(use.offset, use.name.size(), value);
    }

    const PtxModule& base_;
    std::vector<WorkPiece> pieces_;
    std::string text_;  // the edit being applied, for messages
};

}  // namespace

std::vector<Edit> ptx_edits_of(const Genome& genome) {
    std::vector<Edit> edits;
    std::copy_if(genome.edits.begin(), genome.edits.end(), std::back_inserter(edits), is_ptx_edit);
    return edits;
}

std::string ptx_edits_refusal(const Genome& genome) {
    std::vector<std::string> texts;
    for (const Edit& edit : ptx_edits_of(genome)) texts.push_back(edit_to_text(edit));
    if (texts.empty()) return "";
    return "its PTX edits (" + join(texts, " ") +
           ") ship only where the wrapper is compiled through gi-tool nvcc-launcher (the CMake module does that with "
           "gi-tool, for a .cu kernel registered alone in its file, under Ninja or Makefiles; configure says why not)";
}

PtxEditResult apply_ptx_edits(const PtxModule& base, const std::vector<Edit>& edits) {
    Editor editor(base);
    PtxEditResult result;
    for (const Edit& edit : edits)
        if (is_ptx_edit(edit)) editor.apply(edit, result.skipped);
    result.ptx = editor.text();
    return result;
}

}  // namespace gi
