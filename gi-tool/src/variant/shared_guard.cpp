#include "variant/shared_guard.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "grammar/scan.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"
#include "variant/source_edit.hpp"

namespace gi {
namespace {

using grammar_detail::Scan;
using grammar_detail::Token;

constexpr int kMaxRank = 3;

struct SharedArray {
    int rank = 0;         // subscripts of a full access: `tile[4][144]` has 2
    bool dynamic = false;  // extern __shared__ T name[]: its size is the launch's
    bool consistent = true;  // every declaration of the name agrees on rank and kind
};

class SharedGuarder {
public:
    explicit SharedGuarder(const Scan& scan) : scan_(scan), tokens_(scan.tokens) {}

    SharedGuardResult run(const std::string& source) {
        SharedGuardResult result;
        result.source = source;
        for (std::size_t i = 0; i < tokens_.size(); ++i)
            if (tokens_[i].is("__shared__")) declare(i, result);
        std::vector<SourceEdit> edits;
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            if (!tokens_[i].identifier() || declarations_.count(i)) continue;
            const auto found = arrays_.find(std::string(tokens_[i].text));
            if (found == arrays_.end() || !found->second.consistent) continue;
            const SharedArray& array = found->second;
            if (!is_full_access(i, array.rank) || is_member(i) || is_address_taken(i) || is_declared(i)) continue;
            // tile[a][b] -> gi_shared_ix(tile, (a), (b)): each index evaluated once, as before.
            edits.push_back({tokens_[i].begin, 0, "gi_shared_ix("});
            std::size_t open = i + 1;
            for (int d = 0; d < array.rank; ++d) {
                const std::size_t close = static_cast<std::size_t>(scan_.match[open]);
                edits.push_back({tokens_[open].begin, 1, ", ("});
                edits.push_back({tokens_[close].begin, 1, ")"});
                if (d + 1 == array.rank) edits.push_back({tokens_[close].end, 0, ")"});
                open = close + 1;
            }
            ++result.accesses;
        }
        if (result.accesses == 0) return {source, 0, {}};
        // From the back. At one position a ']' replaced and an inner access's closing ')' inserted
        // can meet (`a[b[i]]`): the replacement goes first, so the insertion lands before it.
        std::stable_sort(edits.begin(), edits.end(),
                         [](const SourceEdit& a, const SourceEdit& b) { return a.at != b.at ? a.at > b.at : a.erase > b.erase; });
        for (const SourceEdit& e : edits) result.source.replace(e.at, e.erase, e.text);
        return result;
    }

private:
    // The declaration statement around the `__shared__` at `at`: from after the previous ';', '{'
    // or '}' to its ';'. Each declarator with a subscript names an array.
    void declare(std::size_t at, SharedGuardResult& result) {
        std::size_t first = at;
        while (first > 0 && !ends_statement(tokens_[first - 1])) --first;
        std::size_t end = at;
        while (end < tokens_.size() && !tokens_[end].is(";")) end = skip_group(end) + 1;
        bool is_extern = false;
        for (std::size_t k = first; k < end; ++k) is_extern = is_extern || tokens_[k].is("extern");
        // One declarator at a time, split at top-level commas; in each, the identifier before the
        // first top-level '[' is an array's name.
        for (std::size_t k = first; k < end;) {
            std::size_t stop = k;
            while (stop < end && !tokens_[stop].is(",")) stop = skip_group(stop) + 1;
            for (std::size_t j = k; j < stop; j = skip_group(j) + 1) {
                if (tokens_[j].is("[") && j > k && tokens_[j - 1].identifier() && !tokens_[j - 1].is("__shared__")) {
                    add_array(j - 1, is_extern, result);
                    break;
                }
            }
            k = stop + 1;
        }
    }

    // The index of the token that closes the group opened at `k`, or `k` itself.
    std::size_t skip_group(std::size_t k) const {
        return opens(tokens_[k]) && scan_.match[k] > static_cast<int>(k) ? static_cast<std::size_t>(scan_.match[k]) : k;
    }

    void add_array(std::size_t name_token, bool is_extern, SharedGuardResult& result) {
        SharedArray array;
        std::size_t k = name_token + 1;
        array.dynamic = is_extern && k + 1 < tokens_.size() && tokens_[k + 1].is("]");
        while (k < tokens_.size() && tokens_[k].is("[")) {
            ++array.rank;
            k = static_cast<std::size_t>(scan_.match[k]) + 1;
        }
        // The preamble's checks know arrays of up to three dimensions; deeper ones are left alone.
        if (array.rank > kMaxRank) array.consistent = false;
        declarations_.insert(name_token);
        const std::string name(tokens_[name_token].text);
        const auto [it, inserted] = arrays_.insert({name, array});
        if (inserted) {
            result.arrays.push_back(name);
        } else if (it->second.rank != array.rank || it->second.dynamic != array.dynamic) {
            it->second.consistent = false;
        }
    }

    static bool ends_statement(const Token& t) { return t.is(";") || t.is("{") || t.is("}"); }
    static bool opens(const Token& t) { return t.is("(") || t.is("[") || t.is("{"); }

    // `name` followed by exactly `rank` subscripts: a partial one is a row used as a pointer, one
    // more subscripts an element, and neither is an access of the array's own elements.
    bool is_full_access(std::size_t at, int rank) const {
        std::size_t k = at + 1;
        for (int d = 0; d < rank; ++d) {
            if (k >= tokens_.size() || !tokens_[k].is("[") || scan_.match[k] < 0) return false;
            k = static_cast<std::size_t>(scan_.match[k]) + 1;
        }
        return k >= tokens_.size() || !tokens_[k].is("[");
    }

    bool is_member(std::size_t at) const {
        return at > 0 && (tokens_[at - 1].is(".") || tokens_[at - 1].is("->") || tokens_[at - 1].is("::"));
    }

    // Another declaration of the name (a struct member, a local array, a parameter): `float tile[4]`,
    // `int *tile[2]`. One this misses (`Foo<int> tile[4]`) is rewritten into code that does not
    // compile, and the evaluator then runs without this guard (VariantBuilder::decide_shared_guard).
    bool is_declared(std::size_t at) const {
        if (at == 0) return false;
        const Token& before = tokens_[at - 1];
        if (before.identifier()) {
            static const char* const kExpressionWords[] = {"return", "case", "sizeof", "else", "do", "throw", "delete", "co_return",
                                                           "co_yield", "new", "alignof", "decltype"};
            return std::none_of(std::begin(kExpressionWords), std::end(kExpressionWords),
                                [&](const char* word) { return before.is(word); });
        }
        if (at >= 2 && (before.is("*") || before.is("&") || before.is("&&"))) {
            static const char* const kTypeWords[] = {"float", "double", "int", "char", "short", "long", "unsigned", "signed",
                                                     "bool", "void", "const", "volatile", "__restrict__", "auto", "half",
                                                     "size_t", "uint32_t", "int32_t", "uint64_t", "int64_t", "uint8_t"};
            const Token& type = tokens_[at - 2];
            return std::any_of(std::begin(kTypeWords), std::end(kTypeWords), [&](const char* word) { return type.is(word); });
        }
        return false;
    }

    // A unary `&` in front: the address of an element, which may lawfully be one past the end.
    bool is_address_taken(std::size_t at) const {
        if (at == 0 || !tokens_[at - 1].is("&")) return false;
        if (at == 1) return true;
        const Token& before = tokens_[at - 2];
        const bool operand_ends = before.identifier() || before.kind == Token::Kind::Number ||
                                  before.kind == Token::Kind::Literal || before.is(")") || before.is("]");
        // `return &tile[i]` and `sizeof &x` are unary too; other identifiers end an operand (`a & b`).
        return !operand_ends || before.is("return") || before.is("sizeof");
    }

    const Scan& scan_;
    const std::vector<Token>& tokens_;
    std::map<std::string, SharedArray> arrays_;
    std::set<std::size_t> declarations_;  // name tokens of the declarations, never rewritten
};

}  // namespace

SharedGuardResult guard_shared_arrays(const std::string& source, const std::string& name) {
    const SourceFile file = make_source_file(name, source);
    try {
        Scan scan = grammar_detail::scan_source(file);
        if (!grammar_detail::match_brackets(scan).empty()) return {source, 0, {}};
        return SharedGuarder(scan).run(source);
    } catch (const Error&) {
        return {source, 0, {}};
    }
}

}  // namespace gi
