#include "grammar/grammar.hpp"

#include <charconv>

namespace gi {

std::string template_base_name(const std::string& name) {
    const std::size_t angle = name.find('<');
    if (angle == std::string::npos) return name;
    std::string base = name.substr(0, angle);
    while (!base.empty() && (base.back() == ' ' || base.back() == '\t')) base.pop_back();
    return base;
}

std::vector<std::string> template_arguments(const std::string& name) {
    const std::size_t open = name.find('<');
    const std::size_t close = name.rfind('>');
    std::vector<std::string> arguments;
    if (open == std::string::npos || close == std::string::npos || close < open) return arguments;
    auto push = [&](std::size_t from, std::size_t to) {
        std::string argument = name.substr(from, to - from);
        const std::size_t first = argument.find_first_not_of(" \t");
        const std::size_t last = argument.find_last_not_of(" \t");
        arguments.push_back(first == std::string::npos ? std::string() : argument.substr(first, last - first + 1));
    };
    int depth = 0;
    std::size_t start = open + 1;
    for (std::size_t i = open + 1; i < close; ++i) {
        const char c = name[i];
        if (c == '<' || c == '(' || c == '[') ++depth;
        if (c == '>' || c == ')' || c == ']') --depth;
        if (c == ',' && depth == 0) {
            push(start, i);
            start = i + 1;
        }
    }
    push(start, close);
    return arguments;
}

std::string with_template_arguments(const std::string& name, const std::map<std::string, std::string>& values) {
    const std::vector<std::string> arguments = template_arguments(name);
    bool replaced = false;
    std::string joined;
    for (const std::string& argument : arguments) {
        const auto it = values.find(argument);
        replaced = replaced || it != values.end();
        joined += (joined.empty() ? "" : ", ") + (it != values.end() ? it->second : argument);
    }
    return replaced ? template_base_name(name) + "<" + joined + ">" : name;
}

std::string rule_id_file_part(const std::string& file_name) {
    std::string part = file_name;
    for (char& c : part) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u == 0x7f || c == '<' || c == '>') c = '_';
    }
    return part;
}

const std::vector<RuleKindInfo>& rule_kinds() {
    static const std::vector<RuleKindInfo> kinds{
#define GI_RULE_KIND(kind, prefix, words, label, category, may_delete, may_insert) \
    {RuleKind::kind, prefix, words, label, category, may_delete, may_insert},
#include "grammar/rule_kinds.def"
#undef GI_RULE_KIND
    };
    return kinds;
}

const RuleKindInfo& rule_kind_info(RuleKind kind) {
    // The table's rows are the enum's values in order (grammar.hpp makes the enum from it).
    return rule_kinds().at(static_cast<std::size_t>(kind));
}

std::string_view rule_kind_prefix(RuleKind kind) { return rule_kind_info(kind).prefix; }

std::string rule_name(const Rule& rule) { return "<" + rule.id + ">"; }

std::string pragma_constant_id(int unroll) { return "pragma_K" + std::to_string(unroll); }

std::optional<int> parse_pragma_constant_id(std::string_view id) {
    if (id.size() >= 2 && id.front() == '<' && id.back() == '>') id = id.substr(1, id.size() - 2);
    constexpr std::string_view prefix = "pragma_K";
    if (id.substr(0, prefix.size()) != prefix) return std::nullopt;
    const std::string_view digits = id.substr(prefix.size());
    // One canonical spelling per constant: no sign, no leading zeros ("pragma_K04" is not K4).
    if (digits.empty() || digits.size() > 2 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
    int value = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    if (value < 0 || value > kMaxPragmaUnroll) return std::nullopt;
    return value;
}

std::string pragma_constant_text(int unroll) {
    return unroll == 0 ? std::string("#pragma unroll") : "#pragma unroll " + std::to_string(unroll);
}

namespace {
std::string_view strip_angles(std::string_view id) {
    if (id.size() >= 2 && id.front() == '<' && id.back() == '>') return id.substr(1, id.size() - 2);
    return id;
}
}  // namespace

int Grammar::rule_index(std::string_view id) const {
    id = strip_angles(id);
    for (std::size_t i = 0; i < rules.size(); ++i)
        if (rules[i].id == id) return static_cast<int>(i);
    return -1;
}

int Grammar::gene_index(std::string_view name) const {
    for (std::size_t i = 0; i < genes.size(); ++i)
        if (genes[i].name == name) return static_cast<int>(i);
    return -1;
}

const Rule* Grammar::find_rule(std::string_view id) const {
    const int index = rule_index(id);
    return index < 0 ? nullptr : &rules[static_cast<std::size_t>(index)];
}

const Gene* Grammar::find_gene(std::string_view name) const {
    const int index = gene_index(name);
    return index < 0 ? nullptr : &genes[static_cast<std::size_t>(index)];
}

}  // namespace gi

namespace gi {

bool is_transform_gene(GeneKind kind) {
    return kind == GeneKind::Unroll || kind == GeneKind::Hoist || kind == GeneKind::Unguard ||
           kind == GeneKind::Vectorize || kind == GeneKind::WarpReduce ||
           kind == GeneKind::Coarsen || kind == GeneKind::Stage;
}

}  // namespace gi
