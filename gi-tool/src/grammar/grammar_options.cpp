#include "grammar/grammar_options.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "util/error.hpp"

namespace gi {
namespace {

// Ranges larger than this are almost certainly typos (1..100000) and would make genes nobody can sweep.
constexpr long long kMaxRangeValues = 4096;

bool is_identifier(const std::string& text) {
    if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return false;
    return std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::optional<long long> parse_integer(const std::string& text) {
    if (text.empty()) return std::nullopt;
    long long value = 0;
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    if (*begin == '+') ++begin;
    const auto [stop, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || stop != end) return std::nullopt;
    return value;
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// "32,64,128", "1..48", "1..18,20,24" (or '|' between items): values in order, duplicates dropped.
std::vector<std::string> parse_value_list(const std::string& list, const std::string& whole,
                                          const std::string& argument) {
    std::vector<std::string> values;
    auto add = [&](const std::string& value) {
        if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    };
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t stop = list.find_first_of(",|", start);
        if (stop == std::string::npos) stop = list.size();
        const std::string item = trim(list.substr(start, stop - start));
        if (item.empty())
            throw UsageError(argument + " '" + whole + "': empty value in the list (write values like 32,64,128 or 1..48)");
        const std::size_t dots = item.find("..");
        if (dots != std::string::npos) {
            const auto low = parse_integer(trim(item.substr(0, dots)));
            const auto high = parse_integer(trim(item.substr(dots + 2)));
            if (!low || !high)
                throw UsageError(argument + " '" + whole + "': range '" + item +
                                 "' needs integer ends (like 1..48)");
            if (*low > *high)
                throw UsageError(argument + " '" + whole + "': range '" + item +
                                 "' runs backwards (write the smaller end first)");
            if (*high - *low >= kMaxRangeValues)
                throw UsageError(argument + " '" + whole + "': range '" + item + "' has more than " +
                                 std::to_string(kMaxRangeValues) + " values (list fewer)");
            for (long long v = *low; v <= *high; ++v) add(std::to_string(v));
        } else {
            if (item.find_first_of(" \t\"'{}") != std::string::npos)
                throw UsageError(argument + " '" + whole + "': value '" + item +
                                 "' contains spaces, quotes or braces (values are single words)");
            add(item);
        }
        start = stop + 1;
    }
    return values;
}


// Flag gene names appear in genome text as NAME=value: keep them to word characters.
std::string gene_name_from_word(std::string word) {
    while (!word.empty() && word.front() == '-') word.erase(word.begin());
    word = word.substr(0, word.find('='));
    for (char& c : word)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) c = '_';
    return word;
}

}  // namespace

bool all_integers(const std::vector<std::string>& values) {
    return !values.empty() &&
           std::all_of(values.begin(), values.end(), [](const std::string& v) { return parse_integer(v).has_value(); });
}

ParamDeclaration parse_param_declaration(const std::string& text, const std::string& argument) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos)
        throw UsageError(argument + " '" + text + "': expected NAME=VALUES, e.g. BLOCK_W=32,64,128 or ROWS=1..48");
    ParamDeclaration declaration;
    declaration.name = trim(text.substr(0, equals));
    if (!is_identifier(declaration.name))
        throw UsageError(argument + " '" + text + "': '" + declaration.name +
                         "' is not a macro name (letters, digits and '_', not starting with a digit)");
    const std::string list = text.substr(equals + 1);
    if (trim(list).empty())
        throw UsageError(argument + " '" + text + "': no values after '=' (e.g. " + declaration.name + "=32,64,128)");
    declaration.values = parse_value_list(list, text, argument);
    declaration.numeric = all_integers(declaration.values);
    return declaration;
}

FlagDeclaration parse_flag_declaration(const std::string& text, const std::string& argument) {
    FlagDeclaration declaration;
    std::string spec = trim(text);
    std::string explicit_name;
    // "name:-option": a colon before the first dash names the gene.
    const std::size_t colon = spec.find(':');
    if (colon != std::string::npos && colon < spec.find('-')) {
        explicit_name = trim(spec.substr(0, colon));
        spec = trim(spec.substr(colon + 1));
        if (!is_identifier(explicit_name))
            throw UsageError(argument + " '" + text + "': gene name '" + explicit_name +
                             "' must be letters, digits and '_' (e.g. dlcm:-Xptxas -dlcm={ca|cg})");
    }
    if (spec.empty() || spec[0] != '-')
        throw UsageError(argument + " '" + text + "': a flag is a compiler option starting with '-' "
                         "(e.g. -use_fast_math, -maxrregcount={32..255}, -Xptxas -dlcm={ca|cg})");
    const std::size_t open = spec.find('{');
    const std::size_t close = spec.find('}');
    std::string varying_word;  // the option word the values go into
    if (open != std::string::npos || close != std::string::npos) {
        if (open == std::string::npos || close == std::string::npos || close < open ||
            spec.find('{', open + 1) != std::string::npos || spec.find('}', close + 1) != std::string::npos)
            throw UsageError(argument + " '" + text + "': write exactly one {VALUES} group, e.g. -maxrregcount={32..255}");
        const std::string list = spec.substr(open + 1, close - open - 1);
        if (trim(list).empty())
            throw UsageError(argument + " '" + text + "': the {} group has no values (e.g. {ca|cg} or {32..255})");
        declaration.values = parse_value_list(list, text, argument);
        declaration.flag_template = spec.substr(0, open) + "{}" + spec.substr(close + 1);
        const std::size_t word_start = spec.rfind(' ', open);
        varying_word = spec.substr(word_start == std::string::npos ? 0 : word_start + 1,
                                   open - (word_start == std::string::npos ? 0 : word_start + 1));
    } else {
        // "-dlcm=ca|cg" and "-maxrregcount=32..255" without braces: the values follow the last '='.
        const std::size_t equals = spec.rfind('=');
        const std::string tail = equals == std::string::npos ? std::string() : spec.substr(equals + 1);
        if (equals != std::string::npos && tail.find(' ') == std::string::npos &&
            (tail.find('|') != std::string::npos || tail.find("..") != std::string::npos)) {
            declaration.values = parse_value_list(tail, text, argument);
            declaration.flag_template = spec.substr(0, equals + 1) + "{}";
            const std::size_t word_start = spec.rfind(' ', equals);
            varying_word = spec.substr(word_start == std::string::npos ? 0 : word_start + 1);
        } else {
            declaration.flag_template = spec;
        }
    }
    if (!explicit_name.empty()) {
        declaration.name = explicit_name;
    } else {
        // The option that varies names the gene ("dlcm" for "-Xptxas -dlcm={ca|cg}"); an on/off flag
        // is named by its first word.
        const std::string word = !varying_word.empty() ? varying_word : spec.substr(0, spec.find(' '));
        declaration.name = gene_name_from_word(word);
    }
    if (declaration.name.empty() || declaration.name.find_first_not_of('_') == std::string::npos)
        throw UsageError(argument + " '" + text + "': cannot derive a gene name; give one as NAME:" + spec);
    declaration.numeric = all_integers(declaration.values);
    return declaration;
}

}  // namespace gi
