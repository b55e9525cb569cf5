#include "ptx/ptx_module.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string trimmed(const std::string& s) {
    std::size_t b = 0, e = s.size();
    while (b < e && is_blank(s[b])) ++b;
    while (e > b && is_blank(s[e - 1])) --e;
    return s.substr(b, e - b);
}

// A line without its "//" comment (PTX from NVRTC has no string literals in function bodies).
std::string code_of(const std::string& line) { return line.substr(0, line.find("//")); }

bool is_register_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool is_register_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

bool is_label(const std::string& code) {
    const std::string t = trimmed(code);
    if (t.size() < 2 || t.back() != ':') return false;
    for (std::size_t i = 0; i + 1 < t.size(); ++i)
        if (!is_register_char(t[i]) && t[i] != '.') return false;
    return true;
}

// Operands split at the commas outside (), [] and {}.
std::vector<std::string> split_operands(const std::string& text) {
    std::vector<std::string> out;
    int depth = 0;
    std::string current;
    for (const char c : text) {
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) {
            out.push_back(trimmed(current));
            current.clear();
            continue;
        }
        current += c;
    }
    if (!trimmed(current).empty()) out.push_back(trimmed(current));
    return out;
}

// The function a header line declares (".visible .entry NAME(", ".func (.param .b32 r) NAME("), or
// nothing when the line declares none.
std::optional<PtxFunction> function_header(const std::string& code) {
    for (const char* keyword : {".entry", ".func"}) {
        std::size_t at = code.find(keyword);
        if (at == std::string::npos) continue;
        const std::size_t after = at + std::string(keyword).size();
        if (after < code.size() && !is_blank(code[after]) && code[after] != '(') continue;
        std::size_t pos = after;
        while (pos < code.size() && is_blank(code[pos])) ++pos;
        if (pos < code.size() && code[pos] == '(') {  // a device function's return parameter
            int depth = 0;
            for (; pos < code.size(); ++pos) {
                if (code[pos] == '(') ++depth;
                if (code[pos] == ')' && --depth == 0) break;
            }
            if (pos >= code.size()) return std::nullopt;  // the return parameter's list does not close
            ++pos;
            while (pos < code.size() && is_blank(code[pos])) ++pos;
        }
        const std::size_t name_start = pos;
        while (pos < code.size() && (is_register_char(code[pos]) || code[pos] == '.')) ++pos;
        PtxFunction f;
        f.name = code.substr(name_start, pos - name_start);
        f.entry = std::string(keyword) == ".entry";
        return f;
    }
    return std::nullopt;
}

class Parser {
public:
    Parser(const std::string& text, const std::string& name) : text_(text) { module_.name = name; }

    PtxModule run() {
        std::size_t pos = 0;
        int line_number = 0;
        while (pos < text_.size()) {
            const std::size_t end = text_.find('\n', pos);
            const std::size_t next = end == std::string::npos ? text_.size() : end + 1;
            ++line_number;
            line(text_.substr(pos, next - pos), line_number);
            pos = next;
        }
        if (!statement_.empty())
            fail(statement_line_, "a statement that is not ended by ';' before the end of the text");
        if (!open_.empty()) fail(line_number, "a '{' block is not closed before the end of the text");
        return std::move(module_);
    }

private:
    [[noreturn]] void fail(int line, const std::string& what) const {
        throw_at(module_.name, line, what, "is this NVRTC's PTX for one kernel file?");
    }

    void raw(const std::string& text) {
        if (module_.pieces.empty() || module_.pieces.back().instruction >= 0) module_.pieces.push_back({});
        module_.pieces.back().text += text;
    }

    void line(const std::string& text, int number) {
        const std::string code = trimmed(code_of(text));
        if (!statement_.empty()) {
            continue_statement(text, number);
            return;
        }
        if (code == "{") {
            const int function = open_.empty() ? static_cast<int>(module_.functions.size()) : module_.blocks[open_.back()].function;
            if (open_.empty()) {
                if (!pending_) fail(number, "a '{' outside a function (no .entry or .func header before it)");
                PtxFunction f = *pending_;
                f.body = static_cast<int>(module_.blocks.size());
                module_.functions.push_back(f);
                pending_.reset();
            }
            module_.blocks.push_back({open_.empty() ? -1 : open_.back(), function});
            open_.push_back(static_cast<int>(module_.blocks.size()) - 1);
            raw(text);
            return;
        }
        if (code == "}") {
            if (open_.empty()) fail(number, "a '}' without a '{' before it");
            open_.pop_back();
            raw(text);
            return;
        }
        if (open_.empty()) {
            // Module level: directives, declarations, function headers; no edit addresses them.
            if (auto header = function_header(code)) pending_ = header;
            if (!code.empty() && code.back() == ';') pending_.reset();  // a prototype (".extern .func ... ;") has no body
            if (code.find('{') != std::string::npos && code.find('}') == std::string::npos && code.front() != '.')
                fail(number, "a '{' that does not stand on a line of its own ('" + excerpt(code) + "')");
            raw(text);
            return;
        }
        if (code.empty() || is_label(code)) {
            raw(text);
            return;
        }
        statement_line_ = number;
        continue_statement(text, number);
    }

    // Statements end with ';' and may span lines (a call's argument lists).
    void continue_statement(const std::string& text, int number) {
        statement_ += text;
        const std::string code = code_of(text);
        const std::size_t semicolon = code.find(';');
        if (semicolon == std::string::npos) {
            if (trimmed(code) == "{" || trimmed(code) == "}")
                fail(number, "a block brace inside a statement that began on line " + std::to_string(statement_line_) +
                                 " without its ';'");
            return;
        }
        if (!trimmed(code.substr(semicolon + 1)).empty())
            fail(number, "two statements on one line ('" + excerpt(trimmed(code)) + "'): edits address one statement a line");
        std::string statement;
        statement.swap(statement_);
        finish_statement(statement, statement_line_);
    }

    void finish_statement(const std::string& text, int number) {
        std::string code;
        for (std::size_t pos = 0; pos < text.size();) {
            const std::size_t end = text.find('\n', pos);
            const std::size_t next = end == std::string::npos ? text.size() : end + 1;
            code += code_of(text.substr(pos, next - pos)) + " ";
            pos = next;
        }
        code = trimmed(code);
        code = trimmed(code.substr(0, code.rfind(';')));
        if (code.front() == '.') {
            if (code.rfind(".reg", 0) == 0) declare_registers(code, number);
            raw(text);
            return;
        }
        PtxInstruction ins;
        ins.text = text;
        ins.line = number;
        ins.block = open_.back();
        ins.function = module_.blocks[open_.back()].function;
        std::size_t pos = 0;
        if (code[0] == '@') {
            while (pos < code.size() && !is_blank(code[pos])) ++pos;
            ins.guard = code.substr(0, pos);
            while (pos < code.size() && is_blank(code[pos])) ++pos;
        }
        const std::size_t opcode_start = pos;
        while (pos < code.size() && !is_blank(code[pos])) ++pos;
        ins.opcode = code.substr(opcode_start, pos - opcode_start);
        if (ins.opcode.empty()) fail(number, "a guard '" + ins.guard + "' without an instruction");
        ins.operands = split_operands(code.substr(pos));
        module_.pieces.push_back({"", static_cast<int>(module_.instructions.size())});
        module_.instructions.push_back(std::move(ins));
    }

    // ".reg .b32 %r<398>;", ".reg .pred %p, %q;", ".reg .b64 %SP;"
    void declare_registers(const std::string& code, int number) {
        std::size_t pos = 4;
        std::string type;
        while (true) {
            while (pos < code.size() && is_blank(code[pos])) ++pos;
            if (pos >= code.size() || code[pos] != '.') break;
            const std::size_t start = ++pos;
            while (pos < code.size() && !is_blank(code[pos])) ++pos;
            type += (type.empty() ? "" : ".") + code.substr(start, pos - start);
        }
        if (type.empty()) fail(number, "a .reg declaration without a type ('" + excerpt(code) + "')");
        for (const std::string& item : split_operands(code.substr(pos))) {
            PtxRegisters regs;
            regs.type = type;
            regs.block = open_.back();
            const std::size_t angle = item.find('<');
            regs.name = trimmed(item.substr(0, angle));
            if (angle != std::string::npos) {
                const std::size_t close = item.find('>', angle);
                const std::string count = close == std::string::npos ? "" : item.substr(angle + 1, close - angle - 1);
                if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos || count.size() > 9)
                    fail(number, "a register range '" + excerpt(item) + "' without a count (write %r<10>)");
                regs.count = std::stoi(count);
            }
            if (regs.name.size() < 2 || regs.name[0] != '%' || !is_register_start(regs.name[1]))
                fail(number, "'" + excerpt(item) + "' is not a register name (%name or %name<count>)");
            module_.registers.push_back(std::move(regs));
        }
    }

    const std::string& text_;
    PtxModule module_;
    std::vector<int> open_;  // the blocks open here, innermost last
    std::optional<PtxFunction> pending_;
    std::string statement_;
    int statement_line_ = 0;
};

// Whether the instruction has no destination operand: stores, branches, barriers and the like.
bool writes_nothing(const std::string& opcode) {
    const std::string base = opcode.substr(0, opcode.find('.'));
    for (const char* name : {"st", "stu", "red", "bar", "barrier", "bra", "brx", "ret", "exit", "membar", "fence", "prefetch",
                             "prefetchu", "call", "trap", "brkpt", "nanosleep", "cp", "pmevent", "griddepcontrol", "stmatrix"})
        if (base == name) return true;
    return false;
}

}  // namespace

PtxModule parse_ptx(const std::string& text, const std::string& name) { return Parser(text, name).run(); }

std::string print_ptx(const PtxModule& module) {
    std::string out;
    for (const PtxPiece& piece : module.pieces)
        out += piece.instruction >= 0 ? module.instructions[static_cast<std::size_t>(piece.instruction)].text : piece.text;
    return out;
}

bool block_within(const PtxModule& module, int inner, int outer) {
    for (int b = inner; b >= 0; b = module.blocks[static_cast<std::size_t>(b)].parent)
        if (b == outer) return true;
    return false;
}

const PtxRegisters* find_register(const PtxModule& module, const std::string& name, int block) {
    for (const PtxRegisters& regs : module.registers) {
        if (!block_within(module, block, regs.block)) continue;
        if (regs.count < 0) {
            if (regs.name == name) return &regs;
            continue;
        }
        if (name.size() <= regs.name.size() || name.compare(0, regs.name.size(), regs.name) != 0) continue;
        const std::string number = name.substr(regs.name.size());
        if (number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos) continue;
        if (std::stoi(number) < regs.count) return &regs;
    }
    return nullptr;
}

std::vector<PtxRegisterUse> register_uses(const PtxModule& module, const PtxInstruction& instruction) {
    std::vector<PtxRegisterUse> uses;
    const std::string& text = instruction.text;
    // Where the destination operand lies: after the opcode, up to the first top-level comma.
    std::size_t dest_begin = std::string::npos, dest_end = std::string::npos;
    if (!writes_nothing(instruction.opcode) && !instruction.operands.empty() && instruction.operands[0].front() != '[') {
        std::size_t at = text.find(instruction.opcode);
        if (!instruction.guard.empty()) at = text.find(instruction.opcode, text.find(instruction.guard) + instruction.guard.size());
        dest_begin = at + instruction.opcode.size();
        dest_end = text.find(instruction.operands[0], dest_begin);
        if (dest_end != std::string::npos) dest_end += instruction.operands[0].size();
    }
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t end = text.find('\n', pos);
        const std::size_t line_end = end == std::string::npos ? text.size() : end;
        const std::size_t code_end = std::min(line_end, text.find("//", pos));
        for (std::size_t i = pos; i < code_end; ++i) {
            if (text[i] != '%' || i + 1 >= code_end || !is_register_start(text[i + 1])) continue;
            std::size_t j = i + 1;
            while (j < code_end && is_register_char(text[j])) ++j;
            std::string name = text.substr(i, j - i);
            if (find_register(module, name, instruction.block) != nullptr)
                uses.push_back({name, i, dest_begin != std::string::npos && i >= dest_begin && i < dest_end});
            i = j - 1;
        }
        pos = line_end + 1;
    }
    return uses;
}

std::vector<PtxRegisterUse> read_registers(const PtxModule& module, const PtxInstruction& instruction) {
    std::vector<PtxRegisterUse> reads;
    for (PtxRegisterUse& use : register_uses(module, instruction))
        if (!use.written) reads.push_back(std::move(use));
    return reads;
}

int find_entry(const PtxModule& module, const std::string& function) {
    const std::string counted = std::to_string(function.size()) + function;
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
        const PtxFunction& f = module.functions[i];
        if (!f.entry) continue;
        if (f.name == function) return static_cast<int>(i);
        const std::size_t at = f.name.find(counted);
        if (at != std::string::npos && at > 0 && !std::isdigit(static_cast<unsigned char>(f.name[at - 1])) &&
            (at + counted.size() == f.name.size() || !is_register_char(f.name[at + counted.size()]) ||
             !std::isdigit(static_cast<unsigned char>(function.back()))))
            return static_cast<int>(i);
    }
    return -1;
}

}  // namespace gi
