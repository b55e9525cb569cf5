#include "report/edit_diff.hpp"

#include "genome/genome_ops.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find('\n', start);
        lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return lines;
}

int line_of(const std::string& text, std::size_t offset) {
    int line = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
    return line;
}

}  // namespace

std::vector<ItemDiff> item_diffs(const Genome& genome, const Grammar& grammar, const std::string& original) {
    std::vector<ItemDiff> out;
    for (const std::string& item : genome_items(genome)) {
        ItemDiff diff;
        diff.item = item;
        const std::vector<SourceChange> changes = variant_changes(parse_genome(item), grammar);
        // Group changes whose whole lines touch: [line_begin, line_end) of the original.
        std::size_t k = 0;
        while (k < changes.size()) {
            std::size_t line_begin = 0;
            if (changes[k].begin > 0) {
                const std::size_t newline = original.rfind('\n', changes[k].begin - 1);
                line_begin = newline == std::string::npos ? 0 : newline + 1;
            }
            auto line_end_of = [&](const SourceChange& c) {
                const std::size_t last = c.end > c.begin ? c.end - 1 : c.begin;
                const std::size_t newline = original.find('\n', last);
                return newline == std::string::npos ? original.size() : newline;
            };
            std::size_t line_end = line_end_of(changes[k]);
            std::size_t group_end = k + 1;
            while (group_end < changes.size() && changes[group_end].begin <= line_end + 1) {
                line_end = std::max(line_end, line_end_of(changes[group_end]));
                ++group_end;
            }
            std::string after;
            std::size_t at = line_begin;
            for (std::size_t g = k; g < group_end; ++g) {
                after += original.substr(at, changes[g].begin - at) + changes[g].text;
                at = changes[g].end;
            }
            if (at < line_end) after += original.substr(at, line_end - at);
            DiffHunk hunk;
            hunk.first_line = line_of(original, line_begin);
            hunk.before = split_lines(original.substr(line_begin, line_end - line_begin));
            hunk.after = split_lines(after);
            diff.hunks.push_back(std::move(hunk));
            k = group_end;
        }
        out.push_back(std::move(diff));
    }
    return out;
}

}  // namespace gi
