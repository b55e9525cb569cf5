#include "variant/compose.hpp"

#include <algorithm>

#include "util/error.hpp"
#include "util/format.hpp"
#include "util/text_rule.hpp"

namespace gi {
namespace {

// Two changes touch the same text: overlapping ranges, or insertions at one place (their order
// would be a guess), or an insertion inside the other's range.
bool overlap(const SourceChange& a, const SourceChange& b) {
    if (a.begin == a.end || b.begin == b.end) {
        if (a.begin == b.begin) return true;
        const SourceChange& point = a.begin == a.end ? a : b;
        const SourceChange& range = a.begin == a.end ? b : a;
        return point.begin > range.begin && point.begin < range.end;
    }
    return a.begin < b.end && b.begin < a.end;
}

}  // namespace

ComposedVariant compose_variants(const std::string& original, const std::vector<VariantPart>& parts) {
    const std::size_t n = parts.size();
    ComposedVariant out;
    out.used.assign(n, false);
    out.left_out.assign(n, "");
    for (std::size_t i = 0; i < n; ++i)
        if (parts[i].has_variant) out.used[i] = true;

    std::vector<SourceChange> taken;
    std::vector<std::string> taken_by;  // per change in `taken`: the part's name
    for (std::size_t i = 0; i < n; ++i) {
        if (!out.used[i]) continue;
        std::string why = parts[i].macro_conflict;
        for (std::size_t k = 0; k < taken.size() && why.empty(); ++k)
            for (const SourceChange& c : parts[i].changes)
                if (overlap(c, taken[k])) {
                    why = "its change at line " + std::to_string(c.line) + " overlaps the variant of '" + taken_by[k] +
                          "', registered before it";
                    break;
                }
        if (!why.empty()) {
            out.used[i] = false;
            out.left_out[i] = why;
            continue;
        }
        for (const SourceChange& c : parts[i].changes) {
            taken.push_back(c);
            taken_by.push_back(parts[i].name);
        }
    }

    // Compile options apply to the whole file: variants with options are used only when every
    // part is a variant with the same ones (the original code of a part counts as none).
    bool same_everywhere = true;
    for (std::size_t i = 0; i < n; ++i)
        same_everywhere = same_everywhere && out.used[i] && parts[i].compile_options == parts[0].compile_options;
    if (!same_everywhere)
        for (std::size_t i = 0; i < n; ++i) {
            if (!out.used[i] || parts[i].compile_options.empty()) continue;
            std::string other;
            for (std::size_t k = 0; k < n && other.empty(); ++k)
                if (k != i && (!out.used[k] || parts[k].compile_options != parts[i].compile_options)) other = parts[k].name;
            out.used[i] = false;
            out.left_out[i] = "its compile options (" + join(parts[i].compile_options, " ") +
                              ") would apply to the whole file, and the code of '" + other +
                              "' there was not checked with them";
        }

    std::vector<SourceChange> changes;
    std::string first_line = "// gi-optimize variant:";
    for (std::size_t i = 0; i < n; ++i) {
        first_line += (i ? "; " : " ") +
                      comment_text(parts[i].name + ": " + (out.used[i] ? parts[i].genome_text : std::string("(original)")));
        if (!out.used[i]) continue;
        changes.insert(changes.end(), parts[i].changes.begin(), parts[i].changes.end());
        out.compile_options = parts[i].compile_options;
    }
    std::stable_sort(changes.begin(), changes.end(),
                     [](const SourceChange& a, const SourceChange& b) { return a.begin < b.begin; });
    std::string text;
    std::size_t at = 0;
    for (const SourceChange& c : changes) {
        if (c.begin < at || c.end > original.size())
            throw Error("composing variants: a change at line " + std::to_string(c.line) +
                        " does not fit the original file (this is a bug in gi-tool)");
        text.append(original, at, c.begin - at);
        text += c.text;
        at = c.end;
    }
    text.append(original, at, std::string::npos);
    out.source = headed(first_line, text);
    return out;
}

}  // namespace gi
