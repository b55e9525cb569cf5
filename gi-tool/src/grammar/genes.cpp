#include "grammar/genes.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "grammar/grammar_options.hpp"
#include "util/error.hpp"

namespace gi::grammar_detail {
namespace {

std::size_t skip_blanks(const std::string& text, std::size_t offset) {
    while (offset < text.size() && (text[offset] == ' ' || text[offset] == '\t')) ++offset;
    return offset;
}

class GeneMaker {
public:
    GeneMaker(const GeneInputs& inputs, std::vector<std::string>& notes) : in_(inputs), notes_(notes) {
        // Alternative definitions of one kernel (in #if branches) count once.
        std::set<std::string> kernels;
        for (const FunctionDefinition& function : in_.functions)
            if (function.is_global) kernels.insert(function.name);
        kernel_count_ = static_cast<int>(kernels.size());
    }

    std::vector<GeneDraft> run() {
        params();
        guards();
        flags();
        for (const FunctionDefinition& function : in_.functions) {
            if (!function.is_global) continue;
            launch_bounds(function);
            restrict_pointers(function);
            const_scalars(function);
        }
        volatile_shared();
        return std::move(genes_);
    }

private:
    const SourceFile& source() const { return *in_.scan.source; }
    const Token& tok(int index) const { return in_.scan.tokens[static_cast<std::size_t>(index)]; }
    const Directive& directive(int index) const { return in_.scan.directives[static_cast<std::size_t>(index)]; }

    // The first line in the function's body where `name` is assigned, incremented or has its
    // address taken (so `const` would not compile), or 0.
    int modified_at(const FunctionDefinition& function, const std::string& name) const {
        for (int k = function.body_open + 1; k < function.body_close; ++k) {
            const Token& t = tok(k);
            if (!t.identifier() || t.text != name) continue;
            const Token& before = tok(k - 1);
            const Token& after = tok(k + 1);
            if (before.is(".") || before.is("->") || before.is("::")) continue;
            static const char* const kWrites[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"};
            for (const char* op : kWrites)
                if (after.is(op)) return t.line;
            if (before.is("++") || before.is("--") || before.is("&")) return t.line;
        }
        return 0;
    }

    // The first line where the shared variable `name` goes to a function whole (an argument on
    // its own, or its address taken): a volatile one would not convert to the parameter's type.
    int passed_at(const std::string& name) const {
        for (const FunctionDefinition& function : in_.functions) {
            for (int k = function.body_open + 1; k < function.body_close; ++k) {
                const Token& t = tok(k);
                if (!t.identifier() || t.text != name) continue;
                const Token& before = tok(k - 1);
                if (before.is("&")) return t.line;
                const bool argument_start = before.is(",") || (before.is("(") && (tok(k - 2).identifier() || tok(k - 2).is(">")));
                if (!argument_start) continue;
                // The argument is the array itself or an offset into it: s, s + i.
                const Token& after = tok(k + 1);
                if (after.is(",") || after.is(")") || after.is("+") || after.is("-")) return t.line;
            }
        }
        return 0;
    }

    std::string per_kernel(const std::string& base, const FunctionDefinition& function) const {
        return kernel_count_ > 1 ? base + "_" + function.name : base;
    }

    bool inside_selected(std::size_t offset) const {
        for (const FunctionDefinition& function : in_.functions)
            if (offset >= tok(function.first_token).begin && function.body_close >= 0 && offset < tok(function.body_close).end)
                return true;
        return false;
    }

    // The #define of `name` the tool may rewrite: object-like, outside the selected functions, and
    // unconditional or directly inside its own #ifndef.
    const MacroDefinition* file_level_define(const std::string& name) const {
        for (const MacroDefinition& macro : in_.directives.defines) {
            if (macro.name != name || macro.function_like) continue;
            if (inside_selected(directive(macro.directive).hash)) continue;
            if (!macro.conditional || macro.default_guarded) return &macro;
        }
        return nullptr;
    }

    void add(Gene gene, std::vector<GeneSlotDraft> slots) {
        if (std::any_of(genes_.begin(), genes_.end(), [&](const GeneDraft& g) { return g.gene.name == gene.name; }))
            throw UsageError("gene '" + gene.name + "' is declared twice (check the --param and --flag options)");
        genes_.push_back({std::move(gene), std::move(slots)});
    }

    // A header gene of a kernel defined more than once (alternatives in #if branches) is one gene
    // over the slots of every definition, when the definitions agree on its value.
    void add_header_gene(Gene gene, std::vector<GeneSlotDraft> slots) {
        for (GeneDraft& existing : genes_) {
            if (existing.gene.name != gene.name) continue;
            if (existing.gene.default_value == gene.default_value && existing.gene.launch_threads == gene.launch_threads) {
                existing.slots.insert(existing.slots.end(), slots.begin(), slots.end());
            } else {
                notes_.push_back(gene.name + ": the definitions of the kernel at lines " + std::to_string(existing.gene.line) +
                                 " and " + std::to_string(gene.line) + " disagree on it, so it covers only the first");
            }
            return;
        }
        genes_.push_back({std::move(gene), std::move(slots)});
    }

    GeneSlotDraft define_slot(const MacroDefinition& macro) const {
        const Directive& d = directive(macro.directive);
        return {d.hash, d.content_end, "#define " + macro.name + " "};
    }

    void params() {
        for (const ParamDeclaration& declaration : in_.options.params) {
            const MacroDefinition* macro = file_level_define(declaration.name);
            if (!macro) {
                for (const MacroDefinition& other : in_.directives.defines)
                    if (other.name == declaration.name)
                        throw_at(source().path, directive(other.directive).line,
                                 "parameter " + declaration.name + " is #defined only " +
                                     (other.function_like ? std::string("as a function-like macro")
                                                          : inside_selected(directive(other.directive).hash)
                                                                ? std::string("inside the kernel")
                                                                : std::string("inside an #if")),
                                 "give it one plain '#define " + declaration.name +
                                     " <default>' at file level (it may sit inside '#ifndef " + declaration.name +
                                     "') so the tool can vary it");
                throw_at(source().path, 0, "--param " + declaration.name + ": the file has no '#define " + declaration.name + "'",
                         "add '#define " + declaration.name + " <default value>' near the top of the file; "
                         "the tool varies the parameter by rewriting that line");
            }
            // The tool rewrites one definition; another outside any #if would undo it (the compiler
            // takes the last), so the variant would not be what its genome says.
            for (const MacroDefinition& other : in_.directives.defines) {
                if (&other == macro || other.name != declaration.name || other.conditional) continue;
                const int first = std::min(directive(macro->directive).line, directive(other.directive).line);
                const int second = std::max(directive(macro->directive).line, directive(other.directive).line);
                throw_at(source().path, second,
                         "parameter " + declaration.name + " is #defined twice outside any #if (lines " +
                             std::to_string(first) + " and " + std::to_string(second) +
                             "): the tool varies one of them and the other would undo it",
                         "keep one '#define " + declaration.name + " <default>' (alternatives may sit inside #if)");
            }
            if (macro->value.empty())
                throw_at(source().path, directive(macro->directive).line,
                         "parameter " + declaration.name + " is #defined without a value",
                         "write its default value: '#define " + declaration.name + " <value>'");
            Gene gene;
            gene.name = declaration.name;
            gene.kind = GeneKind::Param;
            gene.default_value = macro->value;
            gene.values = declaration.values;
            if (std::find(gene.values.begin(), gene.values.end(), gene.default_value) == gene.values.end())
                gene.values.insert(gene.values.begin(), gene.default_value);
            gene.numeric = all_integers(gene.values);
            gene.line = directive(macro->directive).line;
            add(std::move(gene), {define_slot(*macro)});
        }
    }

    void guards() {
        std::set<std::string> function_like;
        for (const MacroDefinition& macro : in_.directives.defines)
            if (macro.function_like) function_like.insert(macro.name);
        std::vector<std::pair<std::string, int>> tested;  // first use order
        std::map<std::string, int> compared;              // name -> line where it is not a truth value
        for (const Directive& d : in_.scan.directives) {
            if (d.keyword != "if" && d.keyword != "ifdef" && d.keyword != "ifndef" && d.keyword != "elif" &&
                d.keyword != "elifdef" && d.keyword != "elifndef")
                continue;
            if (!inside_selected(d.hash)) continue;
            std::vector<std::string> names;
            std::vector<std::string> calls;
            condition_names(d.rest, names, calls);
            const bool expression = d.keyword == "if" || d.keyword == "elif";
            if (!expression && !names.empty()) names.resize(1);
            for (const std::string& name : names) {
                if (std::none_of(tested.begin(), tested.end(), [&](const auto& t) { return t.first == name; }))
                    tested.emplace_back(name, d.line);
                if (expression && !compared.count(name) && !used_as_boolean(d.rest, name)) compared[name] = d.line;
            }
        }
        for (const auto& [name, line] : tested) {
            if (name.empty() || name[0] == '_' || function_like.count(name)) continue;
            if (std::any_of(in_.options.params.begin(), in_.options.params.end(),
                            [&](const ParamDeclaration& p) { return p.name == name; }))
                continue;
            if (compared.count(name)) {
                notes_.push_back(name + " is compared or computed with in the #if at line " + std::to_string(compared[name]) +
                                 ", so it is not an on/off gene; declare it with --param " + name + "=... to vary it");
                continue;
            }
            Gene gene;
            gene.name = name;
            gene.kind = GeneKind::Guard;
            gene.values = {"0", "1"};
            gene.numeric = true;
            const MacroDefinition* macro = file_level_define(name);
            const bool defined_elsewhere = std::any_of(in_.directives.defines.begin(), in_.directives.defines.end(),
                                                       [&](const MacroDefinition& m) { return m.name == name; });
            if (macro) {
                if (!macro->value.empty() && macro->value != "0" && macro->value != "1") {
                    notes_.push_back(name + " (tested by #if at line " + std::to_string(line) + ") is #defined as '" +
                                     macro->value + "', not 0/1: not an on/off gene; declare it with --param " + name +
                                     "=... to vary it");
                    continue;
                }
                gene.default_value = macro->value == "0" ? "0" : "1";
                gene.line = directive(macro->directive).line;
                add(std::move(gene), {define_slot(*macro)});
            } else if (defined_elsewhere) {
                notes_.push_back(name + " (tested by #if at line " + std::to_string(line) +
                                 ") is #defined only conditionally or inside the kernel: not an on/off gene");
            } else {
                gene.default_value = "0";
                gene.line = line;
                add(std::move(gene), {{0, 0, "#define " + name + " "}});
            }
        }
    }

    void flags() {
        for (const FlagDeclaration& declaration : in_.options.flags) {
            Gene gene;
            gene.name = declaration.name;
            gene.kind = GeneKind::Flag;
            gene.flag_template = declaration.values.empty() ? std::string() : declaration.flag_template;
            if (declaration.values.empty()) {
                // An on/off flag's option text travels in flag_template's place: the option itself.
                gene.flag_template = declaration.flag_template;
                gene.values = {"0", "1"};
                gene.default_value = "0";
                gene.numeric = false;
            } else {
                gene.values.push_back("off");
                gene.values.insert(gene.values.end(), declaration.values.begin(), declaration.values.end());
                gene.default_value = "off";
                // "off" aside, the values are integers: a tuner may sweep them.
                gene.numeric = declaration.numeric;
            }
            add(std::move(gene), {});
        }
    }

    void launch_bounds(const FunctionDefinition& function) {
        const std::string name = per_kernel("launch_bounds", function);
        const std::string& text = source().text;
        int existing = -1;
        for (int k = function.first_token; k < function.params_open; ++k)
            if (tok(k).is("__launch_bounds__") && tok(k + 1).is("(")) existing = k;
        Gene gene;
        gene.name = name;
        gene.kind = GeneKind::LaunchBounds;
        gene.values = {"off", "on", "1", "2", "3", "4", "5"};
        gene.line = tok(function.name_token).line;
        GeneSlotDraft slot;
        if (existing >= 0) {
            const int open = existing + 1;
            const int close = in_.scan.match[static_cast<std::size_t>(open)];
            if (close <= open) return;
            std::vector<std::string> arguments;
            int start = open + 1;
            for (int k = open + 1; k <= close; ++k) {
                if (k < close && (tok(k).is("(") || tok(k).is("["))) {
                    k = std::max(k, in_.scan.match[static_cast<std::size_t>(k)]);
                    continue;
                }
                if (k == close || tok(k).is(",")) {
                    arguments.push_back(k > start ? trim(std::string_view(text).substr(tok(start).begin, tok(k - 1).end - tok(start).begin)) : "");
                    start = k + 1;
                }
            }
            if (arguments.empty() || arguments[0].empty()) return;
            gene.launch_threads = arguments[0];
            if (arguments.size() == 1) {
                gene.default_value = "on";
            } else if (arguments.size() == 2 && (arguments[1] == "1" || arguments[1] == "2" || arguments[1] == "3" ||
                                                  arguments[1] == "4" || arguments[1] == "5")) {
                gene.default_value = arguments[1];
            } else {
                notes_.push_back("launch_bounds gene not offered for " + function.name + ": its __launch_bounds__ at line " +
                                 std::to_string(tok(existing).line) +
                                 " has arguments beyond (threads[, 1..5 blocks]) that the gene cannot express");
                return;
            }
            slot.begin = tok(existing).begin;
            slot.end = skip_blanks(text, tok(close).end);
        } else {
            if (in_.options.block_size.empty()) {
                notes_.push_back("launch_bounds gene not offered for " + function.name +
                                 ": the kernel has no __launch_bounds__ and no block size was given (pass --block-size X[,Y[,Z]])");
                return;
            }
            std::string threads;
            std::size_t start = 0;
            const std::string& size = in_.options.block_size;
            while (start <= size.size()) {
                std::size_t comma = size.find(',', start);
                if (comma == std::string::npos) comma = size.size();
                const std::string part = trim(std::string_view(size).substr(start, comma - start));
                if (part.empty())
                    throw UsageError("--block-size '" + size + "': empty dimension (write X[,Y[,Z]], e.g. BLOCK_W,4)");
                threads += (threads.empty() ? "(" : "*(") + part + ")";
                start = comma + 1;
            }
            // __launch_bounds__ needs constants: every name in the block size must be a macro.
            std::vector<std::string> names;
            std::vector<std::string> calls;
            condition_names(in_.options.block_size, names, calls);
            for (const std::string& used : names) {
                const bool macro = std::any_of(in_.directives.defines.begin(), in_.directives.defines.end(),
                                               [&](const MacroDefinition& m) { return m.name == used; }) ||
                                   std::any_of(in_.options.params.begin(), in_.options.params.end(),
                                               [&](const ParamDeclaration& p) { return p.name == used; });
                if (!macro) {
                    notes_.push_back("launch_bounds gene not offered for " + function.name + ": the block size '" +
                                     in_.options.block_size + "' uses " + used +
                                     ", which is not a macro of the file (__launch_bounds__ takes constants)");
                    return;
                }
            }
            gene.launch_threads = threads;
            gene.default_value = "off";
            slot.begin = slot.end = tok(function.name_token).begin;
        }
        add_header_gene(std::move(gene), {slot});
    }

    void restrict_pointers(const FunctionDefinition& function) {
        const std::vector<ParameterTokens> parameters = parse_parameters(in_.scan, function);
        std::vector<GeneSlotDraft> slots;
        std::vector<std::string> with;
        std::vector<std::string> without;
        for (const ParameterTokens& p : parameters) {
            if (p.last_star < 0 || p.is_reference) continue;
            const std::string label = p.parameter.name.empty() ? p.parameter.type : p.parameter.name;
            GeneSlotDraft slot;
            slot.begin = slot.end = tok(p.last_star).end;
            // What "on" must write here: "float *data" needs a space after the qualifier too.
            const char after = slot.begin < source().text.size() ? source().text[slot.begin] : ' ';
            slot.extra = (after == ' ' || after == '\t' || after == '\n' || after == '\r') ? " __restrict__" : " __restrict__ ";
            if (p.restrict_token >= 0) {
                with.push_back(label);
                slot.begin = tok(p.restrict_token - 1).end;
                slot.end = tok(p.restrict_token).end;
            } else {
                without.push_back(label);
            }
            slots.push_back(slot);
        }
        if (slots.empty()) return;
        const std::string name = per_kernel("restrict", function);
        if (!with.empty() && !without.empty()) {
            auto join = [](const std::vector<std::string>& names) {
                std::string out;
                for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
                return out;
            };
            notes_.push_back(name + " gene not offered: in " + function.name + " the pointer parameters " + join(with) +
                             " are __restrict__ but " + join(without) +
                             " are not (the gene sets all or none; make them agree to let the tool vary it)");
            return;
        }
        Gene gene;
        gene.name = name;
        gene.kind = GeneKind::Restrict;
        gene.values = {"0", "1"};
        gene.default_value = with.empty() ? "0" : "1";
        gene.numeric = true;
        gene.line = tok(function.params_open).line;
        add_header_gene(std::move(gene), std::move(slots));
    }

    void const_scalars(const FunctionDefinition& function) {
        const std::string& text = source().text;
        for (const ParameterTokens& p : parse_parameters(in_.scan, function)) {
            if (p.parameter.is_pointer || p.is_reference || p.parameter.name.empty()) continue;
            const std::string name = kernel_count_ > 1 ? "const_" + function.name + "_" + p.parameter.name
                                                       : "const_" + p.parameter.name;
            if (!p.parameter.is_const) {
                if (const int line = modified_at(function, p.parameter.name)) {
                    notes_.push_back(name + " gene not offered: " + function.name + " changes " + p.parameter.name +
                                     " at line " + std::to_string(line) + ", so it cannot be const");
                    continue;
                }
            }
            if (p.parameter.is_const && !p.const_first) {
                notes_.push_back(name + " gene not offered: the parameter's const is not its first word (write 'const " +
                                 p.parameter.type + "' style)");
                continue;
            }
            GeneSlotDraft slot;
            slot.begin = slot.end = tok(p.first_token).begin;
            if (p.const_first) slot.end = skip_blanks(text, tok(p.first_token).end);
            Gene gene;
            gene.name = name;
            gene.kind = GeneKind::Const;
            gene.values = {"0", "1"};
            gene.default_value = p.const_first ? "1" : "0";
            gene.numeric = true;
            gene.line = p.parameter.line;
            add_header_gene(std::move(gene), {slot});
        }
    }

    void volatile_shared() {
        const std::vector<SharedDeclaration>& shared = in_.bodies.shared;
        if (shared.empty()) return;
        std::size_t with = 0;
        for (const SharedDeclaration& s : shared) {
            if (s.volatile_elsewhere) {
                notes_.push_back("volatile gene not offered: the __shared__ declaration at line " + std::to_string(s.line) +
                                 " has volatile somewhere other than right after __shared__");
                return;
            }
            if (s.has_volatile) ++with;
        }
        // A volatile struct or vector (float4) cannot be assigned whole: only arithmetic types.
        static const std::set<std::string> kArithmetic = {"bool", "char", "short", "int", "long", "float", "double",
                                                          "signed", "unsigned", "size_t", "half", "__half"};
        auto arithmetic = [&](const std::string& word) {
            if (kArithmetic.count(word)) return true;
            for (const MacroDefinition& m : in_.directives.defines) {
                if (m.name != word || m.function_like) continue;
                std::vector<std::string> words;
                std::vector<std::string> calls;
                condition_names(m.value, words, calls);
                if (words.empty() || !calls.empty()) return false;
                for (const std::string& w : words)
                    if (!kArithmetic.count(w)) return false;
                return true;
            }
            return false;
        };
        for (const SharedDeclaration& s : shared)
            for (const std::string& word : s.type_words)
                if (!arithmetic(word)) {
                    notes_.push_back("volatile gene not offered: the __shared__ declaration at line " + std::to_string(s.line) +
                                     " has type " + word + ", and a volatile struct or vector cannot be assigned whole");
                    return;
                }
        if (with == 0) {
            for (const SharedDeclaration& s : shared)
                for (const std::string& variable : s.names)
                    if (const int line = passed_at(variable)) {
                        notes_.push_back("volatile gene not offered: the __shared__ " + variable + " is passed on at line " +
                                         std::to_string(line) + ", where a volatile one would not convert");
                        return;
                    }
        }
        if (with != 0 && with != shared.size()) {
            notes_.push_back("volatile gene not offered: " + std::to_string(with) + " of " + std::to_string(shared.size()) +
                             " __shared__ declarations are volatile (the gene sets all or none)");
            return;
        }
        Gene gene;
        gene.name = "volatile";
        gene.kind = GeneKind::Volatile;
        gene.values = {"0", "1"};
        gene.default_value = with ? "1" : "0";
        gene.numeric = true;
        gene.line = shared.front().line;
        std::vector<GeneSlotDraft> slots;
        for (const SharedDeclaration& s : shared) slots.push_back({s.slot_begin, s.slot_end, ""});
        add(std::move(gene), std::move(slots));
    }

    const GeneInputs& in_;
    std::vector<std::string>& notes_;
    std::vector<GeneDraft> genes_;
    int kernel_count_ = 0;
};

}  // namespace

std::vector<GeneDraft> make_genes(const GeneInputs& inputs, std::vector<std::string>& notes) {
    return GeneMaker(inputs, notes).run();
}

}  // namespace gi::grammar_detail
