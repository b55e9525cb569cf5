#include "grammar/transforms.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "grammar/functions.hpp"
#include "grammar/loop_shape.hpp"
#include "grammar/shared_stage.hpp"
#include "grammar/thread_coarsen.hpp"
#include "grammar/vector_load.hpp"
#include "grammar/warp_reduce.hpp"

namespace gi::grammar_detail {
namespace {

// A file name as a gene name may spell it (letters, digits, '_', '-', '.').
std::string gene_file_part(const std::string& file_name) {
    std::string part = file_name;
    for (char& c : part)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    return part;
}

class TransformMaker {
public:
    TransformMaker(const GeneInputs& inputs, const std::string& file_name)
        : in_(inputs), file_(gene_file_part(file_name)) {
        for (const FunctionDefinition& f : in_.functions)
            if (f.is_global) kernels_.insert(f.name);
    }

    std::vector<GeneDraft> run() {
        // Sites in file order, each kind apart: a gene's name says its line.
        for (const IfDraft& check : in_.bodies.ifs) unguard(check);
        for (const LoopDraft& loop : in_.bodies.loops) hoist(loop);
        for (const LoopDraft& loop : in_.bodies.loops) unroll(loop);
        for (const LoopDraft& loop : in_.bodies.loops) vectorize(loop);
        for (const LoopDraft& loop : in_.bodies.loops) warp_reduce(loop);
        for (const FunctionDefinition& f : in_.functions) coarsen(f);
        for (const LoopDraft& loop : in_.bodies.loops) stage(loop);
        std::stable_sort(genes_.begin(), genes_.end(), [](const GeneDraft& a, const GeneDraft& b) {
            if (a.gene.kind != b.gene.kind) return kind_order(a.gene.kind) < kind_order(b.gene.kind);
            return a.gene.site.begin < b.gene.site.begin;
        });
        std::map<std::string, int> per_line;
        for (GeneDraft& draft : genes_) {
            const int count = ++per_line[draft.gene.name];
            if (count > 1) draft.gene.name += "." + std::to_string(count);
        }
        return std::move(genes_);
    }

private:
    // Listed by kind (the order the variant stage applies the kinds in), each kind in file order.
    static int kind_order(GeneKind kind) {
        return kind == GeneKind::Unguard ? 0 : kind == GeneKind::Hoist ? 1 : kind == GeneKind::Unroll ? 2
               : kind == GeneKind::Vectorize ? 3 : kind == GeneKind::WarpReduce ? 4 : kind == GeneKind::Coarsen ? 5 : 6;
    }

    const std::string& text() const { return in_.scan.source->text; }
    const Token& tok(int index) const { return in_.scan.tokens[static_cast<std::size_t>(index)]; }
    std::string between(std::size_t begin, std::size_t end) const { return text().substr(begin, end - begin); }
    std::string tokens_text(int first, int last) const { return between(tok(first).begin, tok(last).end); }

    void add(GeneKind kind, const std::string& prefix, int line, std::vector<std::string> values, TransformSite site) {
        GeneDraft draft;
        draft.gene.name = prefix + "_" + file_ + "_" + std::to_string(line);
        draft.gene.kind = kind;
        draft.gene.values = std::move(values);
        draft.gene.default_value = draft.gene.values.front();
        draft.gene.numeric = true;
        draft.gene.line = line;
        draft.gene.site = std::move(site);
        genes_.push_back(std::move(draft));
    }

    std::string condition_text(const LoopDraft& loop) const {
        return between(tok(loop.first_semicolon).end, tok(loop.second_semicolon).begin);
    }
    std::string step_text(const LoopDraft& loop) const { return between(tok(loop.second_semicolon).end, tok(loop.close).begin); }

    // A loop's body, condition and step: what Unroll and Vectorize read and rewrite.
    TransformSite loop_site(const LoopDraft& loop) const {
        TransformSite site;
        site.begin = tok(loop.body_first).begin;
        site.end = tok(loop.body_end - 1).end;
        site.cond_begin = tok(loop.first_semicolon).end;
        site.cond_end = tok(loop.second_semicolon).begin;
        site.step_begin = tok(loop.second_semicolon).end;
        site.step_end = tok(loop.close).begin;
        return site;
    }

    void unroll(const LoopDraft& loop) {
        std::string why;
        const std::optional<CountedLoop> counted = counted_loop(condition_text(loop), step_text(loop), why);
        if (!counted) return;
        if (!unroll_blocker(tokens_text(loop.body_first, loop.body_end - 1), *counted).empty()) return;
        TransformSite site = loop_site(loop);
        add(GeneKind::Unroll, "unroll", tok(loop.for_token).line, {"1", "2", "4", "8"}, site);
    }

    // The kernel's `const float*` parameters (`float const*`, with or without __restrict__): what
    // a float2/float4 load may read, the address checked at run time.
    std::vector<VectorRead> float_pointers(const std::string& kernel) const {
        std::vector<VectorRead> out;
        for (const FunctionDefinition& f : in_.functions) {
            if (f.name != kernel || !f.is_global || f.body_open < 0) continue;
            for (const ParameterTokens& p : parse_parameters(in_.scan, f)) {
                const auto type = code_tokens(p.parameter.type);
                if (!type || p.is_reference || p.is_array) continue;
                std::vector<std::string> words;
                bool restricted = false;
                for (const CodeToken& t : *type) {
                    if (t.text == "__restrict__" || t.text == "__restrict") restricted = true;
                    else words.push_back(t.text);
                }
                if (words == std::vector<std::string>{"const", "float", "*"} ||
                    words == std::vector<std::string>{"float", "const", "*"})
                    out.push_back({p.parameter.name, restricted});
            }
        }
        return out;
    }

    // A unit-step counted loop whose body reads `const float*` parameters only as p[V] (all of
    // them loaded as vectors: a dot product's two arrays in one trip).
    void vectorize(const LoopDraft& loop) {
        std::string why;
        const std::optional<CountedLoop> counted = counted_loop(condition_text(loop), step_text(loop), why);
        if (!counted || counted->stride != "1") return;
        const std::string body = tokens_text(loop.body_first, loop.body_end - 1);
        // The loop's own header must not declare a name that hides a parameter.
        const auto header = code_tokens(between(tok(loop.open).end, tok(loop.first_semicolon).begin));
        if (!header) return;
        const std::set<std::string> header_names = read_names(*header);
        std::vector<VectorRead> reads;
        for (const VectorRead& candidate : float_pointers(loop.function)) {
            if (header_names.count(candidate.pointer) || shadowed(candidate.pointer, loop)) continue;
            if (vector_load_blocker(body, *counted, {candidate}).empty()) reads.push_back(candidate);
        }
        if (reads.empty() || !vector_load_blocker(body, *counted, reads).empty()) return;
        TransformSite site = loop_site(loop);
        site.reads = std::move(reads);
        add(GeneKind::Vectorize, "vec", tok(loop.for_token).line, {"1", "2", "4"}, site);
    }

    // A shared-memory tree reduction at the top level of its function's body (grammar/warp_reduce.hpp):
    // inside another loop, the next trip could read the elements the warp leaves as they were.
    void warp_reduce(const LoopDraft& loop) {
        if (loop.loop_depth > 0) return;
        for (const FunctionDefinition& f : in_.functions) {
            if (f.name != loop.function || f.body_open < 0 || f.body_open > loop.for_token || loop.for_token > f.body_close)
                continue;
            TransformSite site;
            site.begin = loop.pragma_begin;
            site.end = tok(loop.body_end - 1).end;
            site.scope_begin = tok(f.body_open).end;
            site.scope_end = tok(f.body_close).begin;
            std::string why;
            if (!tree_reduction(between(site.scope_begin, site.begin), between(site.begin, site.end),
                                between(site.end, site.scope_end), why))
                return;
            add(GeneKind::WarpReduce, "shfl", tok(loop.for_token).line, {"0", "1"}, site);
            return;
        }
    }

    // A one-dimensional kernel whose threads each do one element (grammar/thread_coarsen.hpp), where
    // the file's own host code sizes the grid, so the build launches the coarsened grid too. The
    // file's only kernel: another's grid function would be divided for it.
    void coarsen(const FunctionDefinition& f) {
        if (!f.is_global || f.body_open < 0) return;
        const auto kernels = std::count_if(in_.scan.tokens.begin(), in_.scan.tokens.end(),
                                           [](const Token& t) { return t.is("__global__"); });
        if (kernels != 1) return;
        const std::optional<std::pair<std::size_t, std::size_t>> grid = grid_expression();
        if (!grid) return;
        TransformSite site;
        site.begin = tok(f.body_open).end;
        site.end = tok(f.body_close).begin;
        site.grid_begin = grid->first;
        site.grid_end = grid->second;
        std::string why;
        if (!coarsen_plan(between(site.begin, site.end), why)) return;
        add(GeneKind::Coarsen, "coarsen", tok(f.body_open + 1).line, {"1", "2", "4"}, site);
    }

    // A stencil loop at its kernel's loop level that re-reads a `const T*` parameter through
    // i + k (grammar/shared_stage.hpp): the first such array the premise holds for.
    void stage(const LoopDraft& loop) {
        if (loop.loop_depth > 0 || !kernels_.count(loop.function)) return;
        for (const FunctionDefinition& f : in_.functions) {
            if (f.name != loop.function || !f.is_global || f.body_open < 0 || f.body_open > loop.for_token ||
                loop.for_token > f.body_close)
                continue;
            StageContext context;
            context.constants = constant_names(f);
            context.block = block_size(f, context.constants);
            std::vector<std::pair<std::string, std::string>> arrays;
            for (const ParameterTokens& p : parse_parameters(in_.scan, f)) {
                context.parameters.insert(p.parameter.name);
                const auto type = code_tokens(p.parameter.type);
                if (!type || p.is_reference || p.is_array) continue;
                std::vector<std::string> words;
                for (const CodeToken& t : *type)
                    if (t.text != "__restrict__" && t.text != "__restrict") words.push_back(t.text);
                if (words.size() == 3 && words[2] == "*" && (words[0] == "const" || words[1] == "const"))
                    arrays.emplace_back(p.parameter.name, words[0] == "const" ? words[1] : words[0]);
            }
            TransformSite site;
            site.begin = loop.pragma_begin;
            site.end = tok(loop.body_end - 1).end;
            site.scope_begin = tok(f.body_open).end;
            site.scope_end = tok(f.body_close).begin;
            for (const auto& [array, element] : arrays) {
                context.array = array;
                context.element = element;
                std::string why;
                if (!stage_plan(between(site.scope_begin, site.begin), between(site.begin, site.end),
                                between(site.end, site.scope_end), context, why))
                    continue;
                site.stage = context;
                add(GeneKind::Stage, "stage", tok(loop.for_token).line, {"0", "1"}, site);
                return;
            }
            return;
        }
    }

    // Names the file makes compile-time constants: #define'd (by a parameter gene too), constexpr
    // or static const ones, and the kernel's template parameters.
    std::set<std::string> constant_names(const FunctionDefinition& f) const {
        std::set<std::string> names;
        static const std::regex kDefine(R"(#\s*define\s+([A-Za-z_]\w*)(?![\w(]))");
        for (std::sregex_iterator m(text().begin(), text().end(), kDefine), end; m != end; ++m) names.insert((*m)[1]);
        const std::vector<Token>& t = in_.scan.tokens;
        for (std::size_t k = 0; k + 2 < t.size(); ++k) {
            const bool constexpr_ = t[k].is("constexpr");
            const bool static_const = t[k].is("static") && t[k + 1].is("const");
            if (!constexpr_ && !static_const) continue;
            for (std::size_t j = k + 1; j + 1 < t.size() && !t[j].is(";") && !t[j].is("("); ++j)
                if (t[j].identifier() && t[j + 1].is("=")) {
                    names.insert(std::string(t[j].text));
                    break;
                }
        }
        if (f.is_template && tok(f.first_token).is("template")) {
            const int open = f.first_token + 1;
            for (int k = open + 1; k < f.name_token && !(tok(k).is(">") && tok(k - 1).text != "-"); ++k)
                if (tok(k).identifier() && (tok(k + 1).is(",") || tok(k + 1).is(">") || tok(k + 1).is("=")))
                    names.insert(std::string(tok(k).text));
        }
        return names;
    }

    // The kernel's block size where the file fixes it: __launch_bounds__(B ...) on the kernel, the
    // file's launches of it all with the one <<<grid, B>>>, or the file's one host function
    // dim3 *block*() { return dim3(B); }, B a number or a constant name. "" where it does not.
    std::string block_size(const FunctionDefinition& f, const std::set<std::string>& constants) const {
        auto constant = [&](const std::string& b) {
            return !b.empty() && (std::isdigit(static_cast<unsigned char>(b[0])) || constants.count(b));
        };
        for (int k = f.first_token; k + 2 < f.params_open; ++k)
            if (tok(k).is("__launch_bounds__") && tok(k + 1).is("(")) {
                const std::string b(tok(k + 2).text);
                if (constant(b) && (tok(k + 3).is(")") || tok(k + 3).is(","))) return b;
            }
        const std::regex launch("\\b" + f.name + "\\s*(<[^<>;]*>)?\\s*<<<[^,;]*,\\s*([A-Za-z_0-9]+)\\s*[,>]");
        std::set<std::string> found;
        const std::string& masked = in_.scan.masked;
        for (std::sregex_iterator m(masked.begin(), masked.end(), launch), end; m != end; ++m) found.insert((*m)[2]);
        if (found.size() == 1 && constant(*found.begin())) return *found.begin();
        if (!found.empty()) return "";
        // The corpus's and examples' style: the file's one kernel and one host function
        // `dim3 NAME_block(...) { return dim3(B); }` that sizes its block.
        const std::vector<Token>& t = in_.scan.tokens;
        if (std::count_if(t.begin(), t.end(), [](const Token& token) { return token.is("__global__"); }) != 1) return "";
        std::set<std::string> blocks;
        for (std::size_t k = 0; k + 9 < t.size(); ++k) {
            if (!t[k].is("dim3") || !t[k + 1].identifier() || !t[k + 2].is("(")) continue;
            std::string name(t[k + 1].text);
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (name.find("block") == std::string::npos) continue;
            if (in_.scan.match[k + 2] < 0) return "";
            const std::size_t close = static_cast<std::size_t>(in_.scan.match[k + 2]);
            if (close + 8 >= t.size() || !t[close + 1].is("{") || !t[close + 2].is("return") || !t[close + 3].is("dim3") ||
                !t[close + 4].is("(") || !t[close + 6].is(")") || !t[close + 7].is(";") || !t[close + 8].is("}"))
                return "";
            blocks.insert(std::string(t[close + 5].text));
        }
        return blocks.size() == 1 && constant(*blocks.begin()) ? *blocks.begin() : "";
    }

    // The x expression of the grid the file's host code computes: its one `dim3` named *grid*
    // (any case) is a function `dim3 NAME(...) { return dim3(X ...); }`. nullopt where the file has
    // none, or another such dim3 (a launcher's variable), whichever sizes the launch.
    std::optional<std::pair<std::size_t, std::size_t>> grid_expression() const {
        const std::vector<Token>& t = in_.scan.tokens;
        std::optional<std::pair<std::size_t, std::size_t>> found;
        int named = 0;
        for (std::size_t k = 0; k + 2 < t.size(); ++k) {
            if (!t[k].is("dim3") || !t[k + 1].identifier()) continue;
            std::string name(t[k + 1].text);
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (name.find("grid") == std::string::npos) continue;
            ++named;
            if (!t[k + 2].is("(")) continue;
            std::size_t p = k + 2;
            for (int depth = 0; p < t.size(); ++p) {
                if (t[p].is("(")) ++depth;
                if (t[p].is(")") && --depth == 0) break;
            }
            if (p + 5 >= t.size() || !t[p + 1].is("{") || !t[p + 2].is("return") || !t[p + 3].is("dim3") || !t[p + 4].is("("))
                continue;
            std::size_t x = p + 5, end = x;
            for (int depth = 0; end < t.size(); ++end) {
                if (t[end].is("(")) ++depth;
                if (t[end].is(")") && depth-- == 0) break;
                if (t[end].is(",") && depth == 0) break;
            }
            if (end == x || end >= t.size()) continue;
            found = std::make_pair(t[x].begin, t[end - 1].end);
        }
        return named == 1 ? found : std::nullopt;
    }

    // Whether a declaration of the kernel's body before the loop's end declares `name` again
    // (a local that hides the parameter need not be a const float*).
    bool shadowed(const std::string& name, const LoopDraft& loop) const {
        for (const FunctionDefinition& f : in_.functions) {
            if (f.name != loop.function || f.body_open < 0 || f.body_open > loop.for_token || loop.for_token > f.body_close)
                continue;
            for (const DeclarationDraft& declaration : in_.bodies.declarations) {
                if (declaration.first_token < f.body_open || declaration.first_token > loop.body_end) continue;
                for (const Declared& d : declaration.names)
                    if (d.name == name) return true;
            }
        }
        return false;
    }

    void hoist(const LoopDraft& loop) {
        if (!loop.braced) return;
        // The declaration goes before the loop, in the block the loop stands in: not where the
        // loop is the sole body of an if, else, for or label.
        const Token& before = tok(loop.for_token - 1);
        if (!before.is("{") && !before.is("}") && !before.is(";")) return;
        for (const DeclarationDraft& declaration : in_.bodies.declarations) {
            if (declaration.block != loop.body_first || declaration.names.size() != 1) continue;
            const std::optional<std::vector<CodeToken>> tokens =
                code_tokens(tokens_text(declaration.first_token, declaration.semicolon));
            if (!tokens) continue;
            const auto assign = std::find_if(tokens->begin(), tokens->end(), [](const CodeToken& t) { return t.text == "="; });
            if (assign == tokens->end()) continue;
            const std::vector<CodeToken> type(tokens->begin(), assign);
            if (std::any_of(type.begin(), type.end(), [](const CodeToken& t) {
                    return t.text == "__shared__" || t.text == "static" || t.text == "extern" || t.text == "[";
                }))
                continue;
            const std::vector<CodeToken> initialiser(assign + 1, tokens->end() - 1);  // without the ';'
            if (std::any_of(initialiser.begin(), initialiser.end(), [](const CodeToken& t) { return t.text == "{"; }))
                continue;
            if (calls_impure_function(initialiser)) continue;
            // Everything else the loop does: its header and its body without this declaration.
            const std::string rest = between(tok(loop.open).begin, tok(declaration.first_token).begin) + " ; " +
                                     between(tok(declaration.semicolon).end, tok(loop.body_end - 1).end);
            const std::optional<std::vector<CodeToken>> loop_tokens = code_tokens(rest);
            if (!loop_tokens) continue;
            const std::set<std::string> written = written_names(*loop_tokens);
            const std::string& name = declaration.names.front().name;
            const std::set<std::string> read = read_names(initialiser);
            if (written.count(name) || read.count(name)) continue;
            if (std::any_of(read.begin(), read.end(), [&](const std::string& r) { return written.count(r) > 0; })) continue;
            TransformSite site;
            site.begin = tok(declaration.first_token).begin;
            site.end = tok(declaration.semicolon).end;
            site.at = loop.pragma_begin;
            const SourceFile& source = *in_.scan.source;
            const std::size_t line_begin = source.line_starts[static_cast<std::size_t>(source.line_of(site.at) - 1)];
            const std::string lead = between(line_begin, site.at);
            site.indent = lead.find_first_not_of(" \t") == std::string::npos ? lead : std::string(lead.size(), ' ');
            add(GeneKind::Hoist, "hoist", tok(declaration.first_token).line, {"0", "1"}, site);
        }
    }

    // Locals of `function` computed from the thread's position: threadIdx and blockIdx, and each
    // local whose initialiser reads one of them, in declaration order.
    std::set<std::string> position_names(const IfDraft& check) const {
        std::set<std::string> names = {"threadIdx", "blockIdx"};
        const FunctionDefinition* function = nullptr;
        for (const FunctionDefinition& f : in_.functions)
            if (f.name == check.function && f.body_open >= 0 && f.body_open < check.if_token && check.if_token < f.body_close)
                function = &f;
        if (function == nullptr) return names;
        for (const DeclarationDraft& declaration : in_.bodies.declarations) {
            if (declaration.first_token < function->body_open || declaration.first_token > check.if_token) continue;
            const auto tokens = code_tokens(tokens_text(declaration.first_token, declaration.semicolon));
            if (!tokens) continue;
            const std::set<std::string> read = read_names(*tokens);
            if (std::any_of(read.begin(), read.end(), [&](const std::string& r) { return names.count(r) > 0; }))
                for (const Declared& d : declaration.names) names.insert(d.name);
        }
        return names;
    }

    void unguard(const IfDraft& check) {
        if (!kernels_.count(check.function) || check.loop_depth > 0 || check.has_else) return;
        const auto condition = code_tokens(between(tok(check.open).end, tok(check.close).begin));
        if (!condition || condition->empty()) return;
        static const std::set<std::string> kWrites = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"};
        bool compares = false;
        for (const CodeToken& t : *condition) {
            if (t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=") compares = true;
            if (kWrites.count(t.text)) return;
        }
        if (!compares || calls_impure_function(*condition)) return;
        const std::set<std::string> position = position_names(check);
        const std::set<std::string> read = read_names(*condition);
        if (std::none_of(read.begin(), read.end(), [&](const std::string& r) { return position.count(r) > 0; })) return;
        const auto then = code_tokens(tokens_text(check.close + 1, check.then_end - 1));
        if (!then) return;
        const bool early_return = then->size() == 2 && (*then)[0].text == "return" && (*then)[1].text == ";";
        const bool leaves = std::any_of(then->begin(), then->end(), [](const CodeToken& t) {
            return t.text == "return" || t.text == "break" || t.text == "continue" || t.text == "goto";
        });
        if (leaves && !early_return) return;
        TransformSite site;
        site.begin = tok(check.open).end;
        site.end = tok(check.close).begin;
        site.replacement = early_return ? "false" : "true";
        add(GeneKind::Unguard, "unguard", tok(check.if_token).line, {"0", "1"}, site);
    }

    const GeneInputs& in_;
    std::string file_;
    std::set<std::string> kernels_;
    std::vector<GeneDraft> genes_;
};

}  // namespace

std::vector<GeneDraft> make_transform_genes(const GeneInputs& inputs, const std::string& file_name) {
    return TransformMaker(inputs, file_name).run();
}

}  // namespace gi::grammar_detail
