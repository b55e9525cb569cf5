#include "genome/genome.hpp"

#include <algorithm>
#include <cctype>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Gene names are macro names or flag names ("use_fast_math", "Xptxas", "const_width"); dots and
// dashes are allowed so a flag named after an option like "-ftz-mode" still reads back.
bool is_gene_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// A value is any run of printable characters that cannot be confused with the genome's syntax.
bool is_value_char(char c) { return !is_space(c) && c != '<' && c != '>' && c != '='; }

// Rule ids are "<kind prefix><file>_<line>[.n]"; a file name may hold almost anything, so only the
// characters that delimit items are refused.
bool is_rule_id_char(char c) { return !is_space(c) && c != '<' && c != '>'; }

[[noreturn]] void fail(const std::string& item, std::size_t position, const std::string& what) {
    throw Error("genome item '" + excerpt(item) + "' at character " + std::to_string(position + 1) + ": " + what);
}

// Reads "<id>" starting at item[pos] == '<'; returns the id and moves pos past '>'.
std::string read_rule_id(const std::string& item, std::size_t item_start, std::size_t& pos) {
    const std::size_t open = pos;
    ++pos;
    const std::size_t id_start = pos;
    while (pos < item.size() && item[pos] != '>') {
        if (!is_rule_id_char(item[pos]))
            fail(item, item_start + pos,
                 "'" + std::string(1, item[pos]) + "' inside a rule name (a rule is written <id>, e.g. <_k.cu_12>)");
        ++pos;
    }
    if (pos >= item.size())
        fail(item, item_start + open, "unterminated rule name: '<' without a closing '>'");
    if (pos == id_start) fail(item, item_start + open, "empty rule name '<>'");
    std::string id = item.substr(id_start, pos - id_start);
    ++pos;
    return id;
}

Edit parse_edit(const std::string& item, std::size_t start) {
    Edit edit;
    std::size_t pos = 0;
    edit.target = read_rule_id(item, start, pos);
    if (pos == item.size()) {
        edit.op = Edit::Op::Delete;
        return edit;
    }
    if (item[pos] == '+') {
        ++pos;
        if (pos == item.size() || item[pos] != '<')
            fail(item, start + pos,
                 "'+' must be followed by the rule to insert, as in <" + edit.target + ">+<B>");
        edit.op = Edit::Op::Insert;
    } else if (item[pos] == '<') {
        edit.op = Edit::Op::Replace;
    } else {
        fail(item, start + pos,
             "unexpected '" + std::string(1, item[pos]) +
                 "' after a rule name (an edit is <A>, <A><B> or <A>+<B>; separate items with spaces)");
    }
    edit.source = read_rule_id(item, start, pos);
    if (pos != item.size())
        fail(item, start + pos,
             "an edit names at most two rules (<A>, <A><B> or <A>+<B>); separate edits with spaces");
    return edit;
}

// "12": an instruction index, written without leading zeros so the text reads back the same.
bool is_index(const std::string& s) {
    return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos && (s == "0" || s[0] != '0');
}

bool is_register_name(const std::string& s) {
    if (s.size() < 2 || s[0] != '%' || !(std::isalpha(static_cast<unsigned char>(s[1])) || s[1] == '_' || s[1] == '$')) return false;
    return std::all_of(s.begin() + 1, s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; });
}

struct PtxForm {
    Edit::Op op;
    const char* name;
    int arguments;
};
constexpr PtxForm kPtxForms[] = {{Edit::Op::PtxDelete, "del", 1},
                                 {Edit::Op::PtxCopy, "copy", 2},
                                 {Edit::Op::PtxMove, "move", 2},
                                 {Edit::Op::PtxSwap, "swap", 2},
                                 {Edit::Op::PtxOperand, "opnd", 3}};
constexpr const char* kPtxFormsText = "ptx:del(A), ptx:copy(A,B), ptx:move(A,B), ptx:swap(A,B) or ptx:opnd(A,K,%reg)";

Edit parse_ptx_edit(const std::string& item, std::size_t start) {
    const std::size_t open = item.find('(');
    if (open == std::string::npos || item.back() != ')')
        fail(item, start, std::string("a PTX edit is written ") + kPtxFormsText);
    const std::string name = item.substr(4, open - 4);
    const PtxForm* form = nullptr;
    for (const PtxForm& f : kPtxForms)
        if (name == f.name) form = &f;
    if (form == nullptr)
        fail(item, start + 4, "unknown PTX edit '" + excerpt(name) + "' (" + kPtxFormsText + ")");
    std::vector<std::string> args;
    std::string current;
    for (std::size_t i = open + 1; i + 1 < item.size(); ++i) {
        if (item[i] == ',') {
            args.push_back(current);
            current.clear();
        } else {
            current += item[i];
        }
    }
    args.push_back(current);
    if (static_cast<int>(args.size()) != form->arguments)
        fail(item, start + open, "ptx:" + name + " takes " + std::to_string(form->arguments) + " argument" +
                                     (form->arguments == 1 ? "" : "s") + " (" + kPtxFormsText + ")");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const bool register_argument = form->op == Edit::Op::PtxOperand && i == 2;
        if (register_argument ? !is_register_name(args[i]) : !is_index(args[i]))
            fail(item, start + open + 1,
                 "'" + excerpt(args[i]) + "' is not " +
                     (register_argument ? "a register name (%r12, %f3)" : "an instruction index (0, 1, 2, ... without leading zeros)"));
    }
    Edit edit;
    edit.op = form->op;
    edit.target = args[0];
    if (form->op == Edit::Op::PtxOperand) {
        edit.operand = std::stoi(args[1]);
        edit.source = args[2];
    } else if (args.size() > 1) {
        edit.source = args[1];
    }
    return edit;
}

GeneSetting parse_setting(const std::string& item, std::size_t start) {
    const std::size_t eq = item.find('=');
    GeneSetting setting{item.substr(0, eq), item.substr(eq + 1)};
    if (setting.name.empty()) fail(item, start, "gene setting without a name (write NAME=value)");
    for (std::size_t i = 0; i < setting.name.size(); ++i)
        if (!is_gene_name_char(setting.name[i]))
            fail(item, start + i,
                 "'" + std::string(1, setting.name[i]) + "' in a gene name (letters, digits, '_', '-', '.')");
    if (setting.value.empty()) fail(item, start + eq, "gene setting without a value (write " + setting.name + "=value)");
    for (std::size_t i = 0; i < setting.value.size(); ++i)
        if (!is_value_char(setting.value[i]))
            fail(item, start + eq + 1 + i,
                 "'" + std::string(1, setting.value[i]) + "' in a gene value (values contain no '<', '>' or '=')");
    return setting;
}

}  // namespace

std::string edit_to_text(const Edit& edit) {
    switch (edit.op) {
        case Edit::Op::Delete: return "<" + edit.target + ">";
        case Edit::Op::Replace: return "<" + edit.target + "><" + edit.source + ">";
        case Edit::Op::Insert: return "<" + edit.target + ">+<" + edit.source + ">";
        case Edit::Op::PtxDelete: return "ptx:del(" + edit.target + ")";
        case Edit::Op::PtxCopy: return "ptx:copy(" + edit.target + "," + edit.source + ")";
        case Edit::Op::PtxMove: return "ptx:move(" + edit.target + "," + edit.source + ")";
        case Edit::Op::PtxSwap: return "ptx:swap(" + edit.target + "," + edit.source + ")";
        case Edit::Op::PtxOperand: return "ptx:opnd(" + edit.target + "," + std::to_string(edit.operand) + "," + edit.source + ")";
    }
    return {};
}

std::string genome_to_text(const Genome& genome) {
    std::string text;
    auto append = [&text](const std::string& item) {
        if (!text.empty()) text += ' ';
        text += item;
    };
    for (const GeneSetting& setting : genome.settings) append(setting.name + "=" + setting.value);
    for (const Edit& edit : genome.edits) append(edit_to_text(edit));
    return text;
}

Genome parse_genome(const std::string& text) {
    // A genome is text a person can read and write; a control character (a NUL from a binary
    // file, say) is never part of one and would match no rule name.
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && !is_space(text[i])) || c == 0x7f) {
            const std::size_t from = text.rfind(' ', i) == std::string::npos ? 0 : text.rfind(' ', i) + 1;
            fail(text.substr(from, i - from + 1), i,
                 "control character " + excerpt(text.substr(i, 1)) + " (a genome is plain text: is this a binary file?)");
        }
    }
    Genome genome;
    std::size_t pos = 0;
    while (pos < text.size()) {
        if (is_space(text[pos])) {
            ++pos;
            continue;
        }
        const std::size_t start = pos;
        while (pos < text.size() && !is_space(text[pos])) ++pos;
        const std::string item = text.substr(start, pos - start);
        if (item[0] == '<') {
            genome.edits.push_back(parse_edit(item, start));
        } else if (item.rfind("ptx:", 0) == 0) {
            genome.edits.push_back(parse_ptx_edit(item, start));
        } else if (item.find('=') != std::string::npos) {
            genome.settings.push_back(parse_setting(item, start));
        } else {
            fail(item, start, "neither a gene setting NAME=value nor an edit <A>, <A><B>, <A>+<B> or ptx:...(...)");
        }
    }
    return genome;
}

std::string setting_or(const Genome& genome, const std::string& name, const std::string& default_value) {
    for (auto it = genome.settings.rbegin(); it != genome.settings.rend(); ++it)
        if (it->name == name) return it->value;
    return default_value;
}

void set_gene(Genome& genome, const std::string& name, const std::string& value) {
    auto first = std::find_if(genome.settings.begin(), genome.settings.end(),
                              [&](const GeneSetting& s) { return s.name == name; });
    if (first == genome.settings.end()) {
        genome.settings.push_back({name, value});
        return;
    }
    first->value = value;
    // Later duplicates would override the value just set (setting_or reads the last one).
    genome.settings.erase(std::remove_if(first + 1, genome.settings.end(),
                                         [&](const GeneSetting& s) { return s.name == name; }),
                          genome.settings.end());
}

}  // namespace gi
