#include "grammar/preprocessed_identity.hpp"

#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "grammar/directives.hpp"
#include "grammar/preprocessor.hpp"
#include "grammar/scan.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

using grammar_detail::Directive;

// The name an #ifdef, #ifndef, #define or #undef is about: the identifier its text starts with.
std::string leading_name(const std::string& rest) {
    std::size_t end = 0;
    while (end < rest.size() && grammar_detail::is_identifier_char(rest[end])) ++end;
    return end > 0 && !(rest[0] >= '0' && rest[0] <= '9') ? rest.substr(0, end) : std::string();
}

// Every name a directive's text mentions (a condition, a macro body, a pragma's arguments).
std::vector<std::string> identifiers(const std::string& text) {
    std::vector<std::string> names, calls;
    grammar_detail::condition_names(text, names, calls);
    names.insert(names.end(), calls.begin(), calls.end());
    return names;
}

// One #if ... #endif chain: whether its branch now is kept, whether an earlier one was, and
// whether its conditions could not be evaluated (then every branch counts as kept).
struct Frame {
    bool parent_live = true;
    bool live = true;
    bool taken = false;
    bool unknown = false;
};

class Preprocessor {
public:
    explicit Preprocessor(const std::string& source) : file_(make_source_file("variant.cu", source)) {}

    // The source with its comments blanked but its literals as written: the masked text keeps each
    // literal's quotes and blanks what lies between them. A digit separator (1'000) reads as a quote
    // here, which only keeps more text than needed. nullopt for a raw string literal.
    static std::optional<std::string> without_comments(const std::string& text, const std::string& masked) {
        std::string out = masked;
        char quote = 0;
        for (std::size_t i = 0; i < masked.size(); ++i) {
            const char c = masked[i];
            if (quote) {
                out[i] = text[i];
                if (c == quote) quote = 0;
            } else if (c == '"' || c == '\'') {
                if (c == '"' && i > 0 && text[i - 1] == 'R') return std::nullopt;
                quote = c;
            }
        }
        return out;
    }

    // Runs of blanks outside literals as one: a blanked comment leaves as many blanks as it had
    // characters, and the variant's header comment names its genome.
    static std::string collapse_blanks(const std::string& text) {
        std::string out;
        out.reserve(text.size());
        char quote = 0;
        for (std::size_t i = 0; i < text.size(); ++i) {
            const char c = text[i];
            if (quote) {
                out += c;
                if (c == '\\' && i + 1 < text.size()) out += text[++i];
                else if (c == quote || c == '\n') quote = 0;
            } else if (c == ' ' || c == '\t' || c == '\r') {
                if (out.empty() || out.back() != ' ') out += ' ';
            } else {
                if (c == '"' || c == '\'') quote = c;
                out += c;
            }
        }
        return out;
    }

    std::optional<std::string> identity() {
        const grammar_detail::Scan scan = grammar_detail::scan_source(file_);
        std::optional<std::string> code = without_comments(file_.text, scan.masked);
        if (!code) return std::nullopt;
        code_ = std::move(*code);
        std::size_t position = 0;
        for (const Directive& d : scan.directives) {
            keep_code(scan, position, d.line_begin);
            if (!directive(d)) return std::nullopt;
            position = d.next;
        }
        keep_code(scan, position, scan.masked.size());
        if (!frames_.empty()) return std::nullopt;
        return finish();
    }

private:
    bool live() const { return frames_.empty() || frames_.back().live; }
    bool inside_unknown() const {
        for (const Frame& f : frames_)
            if (f.unknown) return true;
        return false;
    }

    // The code between two directives, [begin, end): its names come from the scan's tokens, which
    // are in file order, so one cursor walks them once over all calls.
    void keep_code(const grammar_detail::Scan& scan, std::size_t begin, std::size_t end) {
        for (; next_token_ < scan.tokens.size() && scan.tokens[next_token_].begin < end; ++next_token_)
            if (live() && scan.tokens[next_token_].identifier()) used_.insert(std::string(scan.tokens[next_token_].text));
        if (!live() || begin >= end) return;
        kept_.append(code_, begin, end - begin);
        if (std::string_view(scan.masked).substr(begin, end - begin).find("##") != std::string_view::npos) pasting_ = true;
    }

    // The value of a kept #if/#elif expression, or nullopt when it cannot be evaluated here.
    std::optional<bool> condition(const std::string& expression) const {
        for (const std::string& name : identifiers(expression))
            if (function_like_.count(name) || name.rfind("__", 0) == 0) return std::nullopt;
        const std::optional<long long> value = evaluate_condition(expression, macros_);
        if (!value) return std::nullopt;
        return *value != 0;
    }

    void open(std::optional<bool> value) {
        Frame f;
        f.parent_live = live();
        f.unknown = f.parent_live && !value;
        f.live = f.parent_live && (f.unknown || *value);
        f.taken = f.live;
        frames_.push_back(f);
    }

    void next_branch(std::optional<bool> value, bool is_else) {
        Frame& f = frames_.back();
        if (!f.parent_live) return;
        if (f.unknown) {
            f.live = true;  // every branch of an undecided chain is kept
        } else if (f.taken) {
            f.live = false;
        } else if (is_else) {
            f.live = f.taken = true;
        } else if (!value) {
            f.unknown = f.live = f.taken = true;
        } else {
            f.live = f.taken = *value;
        }
    }

    bool directive(const Directive& d) {
        const std::string& k = d.keyword;
        if (k == "if") {
            open(live() ? condition(d.rest) : std::optional<bool>(false));
        } else if (k == "ifdef" || k == "ifndef") {
            const std::string name = leading_name(d.rest);
            if (name.empty()) return false;
            std::optional<bool> value;
            if (name.rfind("__", 0) != 0) {
                const bool defined = macros_.count(name) || function_like_.count(name);
                value = k == "ifdef" ? defined : !defined;
            }
            open(live() ? value : std::optional<bool>(false));
        } else if (k == "elif") {
            if (frames_.empty()) return false;
            const Frame& f = frames_.back();
            next_branch(f.parent_live && !f.taken && !f.unknown ? condition(d.rest) : std::optional<bool>(false), false);
        } else if (k == "else") {
            if (frames_.empty()) return false;
            next_branch(std::nullopt, true);
        } else if (k == "endif") {
            if (frames_.empty()) return false;
            frames_.pop_back();
        } else if (!live()) {
            return true;
        } else if (k == "define" || k == "undef") {
            // A definition that may or may not happen would make every later condition a guess.
            if (inside_unknown()) return false;
            const std::string name = leading_name(d.rest);
            if (name.empty()) return false;
            macros_.erase(name);
            function_like_.erase(name);
            definitions_.erase(name);
            if (k == "define") {
                const std::size_t after = name.size();
                const bool function_like = after < d.rest.size() && d.rest[after] == '(';
                std::string body = grammar_detail::trim(std::string_view(d.rest).substr(after));
                if (function_like) {
                    function_like_.insert(name);
                } else {
                    macros_[name] = body;
                }
                definitions_[name] = body;
            }
        } else if (k == "pragma" || k == "error" || k == "warning" || k == "line" || k.empty()) {
            kept_ += "#" + k + " " + d.rest + "\n";
            for (std::string& name : identifiers(d.rest)) used_.insert(std::move(name));
        } else {
            return false;  // #include (its text is not seen) and anything unknown
        }
        return true;
    }

    std::optional<std::string> finish() {
        // The definitions the kept code reaches, through macro bodies too.
        std::vector<std::string> pending(used_.begin(), used_.end());
        std::set<std::string> reached;
        while (!pending.empty()) {
            const std::string name = pending.back();
            pending.pop_back();
            const auto it = definitions_.find(name);
            if (it == definitions_.end() || !reached.insert(name).second) continue;
            if (it->second.find("##") != std::string::npos) pasting_ = true;
            for (std::string& inner : identifiers(it->second)) pending.push_back(std::move(inner));
        }
        if (pasting_) return std::nullopt;
        Sha256 hash;
        hash.update(collapse_blanks(kept_));
        for (const std::string& name : reached) {
            const std::string line = "\n#define " + name + " " + definitions_.at(name);
            hash.update(line);
        }
        return hash.hex_digest();
    }

    SourceFile file_;
    std::string code_;  // file_.text without comments
    std::size_t next_token_ = 0;  // the first scan token keep_code has not passed yet
    std::vector<Frame> frames_;
    MacroTable macros_;                               // object-like, as #if sees them
    std::set<std::string> function_like_;
    std::map<std::string, std::string> definitions_;  // every defined macro's body (function-like with its parameters)
    std::string kept_;
    std::set<std::string> used_;
    bool pasting_ = false;
};

}  // namespace

std::string preprocessed_identity(const std::string& source) {
    try {
        return Preprocessor(source).identity().value_or("");
    } catch (const Error&) {
        return "";  // unscannable text: the compile will say what is wrong with it
    }
}

}  // namespace gi
