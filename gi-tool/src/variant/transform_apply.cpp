#include "variant/transform_apply.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "grammar/loop_shape.hpp"
#include "grammar/shared_stage.hpp"
#include "grammar/thread_coarsen.hpp"
#include "grammar/vector_load.hpp"
#include "grammar/warp_reduce.hpp"

namespace gi {
namespace {

class TransformSegments {
public:
    explicit TransformSegments(std::vector<TextSegment>& segments) : s_(segments) {}

    // The variant's text for the original's [begin, end), or nullopt when a changed run crosses
    // either end (the range no longer has text of its own).
    std::optional<std::string> read(std::size_t begin, std::size_t end) {
        const auto range = span(begin, end);
        if (!range) return std::nullopt;
        std::string out;
        for (std::size_t k = range->first; k < range->second; ++k) out += s_[k].text;
        return out;
    }

    // The original's [begin, end) now reads `text`; false, changing nothing, where read() fails.
    bool replace(std::size_t begin, std::size_t end, const std::string& text) {
        const auto range = span(begin, end);
        if (!range) return false;
        TextSegment merged;
        merged.begin = begin;
        merged.line = range->first < s_.size() ? s_[range->first].line : 0;
        for (std::size_t k = range->first; k < range->second; ++k) merged.original += s_[k].original;
        merged.text = text;
        s_.erase(s_.begin() + static_cast<std::ptrdiff_t>(range->first), s_.begin() + static_cast<std::ptrdiff_t>(range->second));
        s_.insert(s_.begin() + static_cast<std::ptrdiff_t>(range->first), std::move(merged));
        return true;
    }

    // `text` put in at the original's offset `at`, before anything else inserted there.
    bool insert(std::size_t at, const std::string& text) {
        if (!split(at)) return false;
        std::size_t k = 0;
        while (k < s_.size() && s_[k].begin < at) ++k;
        s_.insert(s_.begin() + static_cast<std::ptrdiff_t>(k), TextSegment{at, "", text, k < s_.size() ? s_[k].line : 0});
        return true;
    }

private:
    // Cuts an unchanged run in two at `at`; false when a changed run covers it.
    bool split(std::size_t at) {
        for (std::size_t k = 0; k < s_.size(); ++k) {
            TextSegment& seg = s_[k];
            if (at <= seg.begin || at >= seg.end()) continue;
            if (seg.text != seg.original) return false;
            const std::size_t cut = at - seg.begin;
            TextSegment tail{at, seg.original.substr(cut), seg.original.substr(cut), seg.line};
            for (std::size_t i = 0; i < cut; ++i)
                if (seg.original[i] == '\n') ++tail.line;
            seg.original.resize(cut);
            seg.text = seg.original;
            s_.insert(s_.begin() + static_cast<std::ptrdiff_t>(k + 1), std::move(tail));
            return true;
        }
        return true;
    }

    // Segments [first, second) that make up the original's [begin, end): those inside it, with
    // empty ones at `begin` (an empty pragma slot before a loop) but not at `end`.
    std::optional<std::pair<std::size_t, std::size_t>> span(std::size_t begin, std::size_t end) {
        if (!split(begin) || !split(end)) return std::nullopt;
        std::size_t first = 0;
        while (first < s_.size() && s_[first].begin < begin) ++first;
        std::size_t last = first;
        while (last < s_.size() && (s_[last].end() < end || (s_[last].end() == end && s_[last].begin < end) ||
                                    (begin == end && s_[last].begin == begin && s_[last].original.empty())))
            ++last;
        return std::make_pair(first, last);
    }

    std::vector<TextSegment>& s_;
};

// "++k" for a step written " ++k ".
std::string step_statement(const std::string& step) {
    const std::size_t first = step.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    return step.substr(first, step.find_last_not_of(" \t\r\n") - first + 1);
}

// A loop site's header and body as the edits left them, its premise as a counted loop checked.
struct LoopText {
    std::string step;
    std::string body;
    CountedLoop loop;
};

std::optional<LoopText> read_loop(const TransformSite& site, TransformSegments& text, std::string& why) {
    const std::optional<std::string> condition = text.read(site.cond_begin, site.cond_end);
    const std::optional<std::string> step = text.read(site.step_begin, site.step_end);
    const std::optional<std::string> body = text.read(site.begin, site.end);
    if (!condition || !step || !body) {
        why = "another transformation rewrote the loop";
        return std::nullopt;
    }
    const std::optional<CountedLoop> loop = counted_loop(*condition, *step, why);
    if (!loop) return std::nullopt;
    return LoopText{*step, *body, *loop};
}

// Why the unrolled loop could not be written ("" when it was).
std::string unroll_site(const Gene& gene, int factor, TransformSegments& text) {
    const TransformSite& site = gene.site;
    std::string why;
    const std::optional<LoopText> read = read_loop(site, text, why);
    if (!read) return why;
    const std::string& body = read->body;
    why = unroll_blocker(body, read->loop);
    if (!why.empty()) return why;
    // The body's copies each in a block of their own (their declarations do not clash); the
    // header's step runs after the last copy as it did after the body.
    const std::string copy = !body.empty() && body.front() == '{' ? body : "{\n" + body + "\n}";
    std::string unrolled = "{ if (" + unrolled_condition(read->loop, factor) + ") {\n";
    for (int k = 0; k < factor; ++k) unrolled += copy + (k + 1 < factor ? " " + step_statement(read->step) + ";\n" : "\n");
    unrolled += "} else " + copy + " }";
    text.replace(site.begin, site.end, unrolled);
    return "";
}

// Why the vector loads could not be written ("" when they were).
std::string vectorize_site(const Gene& gene, int width, TransformSegments& text) {
    const TransformSite& site = gene.site;
    std::string why;
    const std::optional<LoopText> read = read_loop(site, text, why);
    if (!read) return why;
    why = vector_load_blocker(read->body, read->loop, site.reads);
    if (!why.empty()) return why;
    text.replace(site.begin, site.end,
                 vector_load_body(read->body, step_statement(read->step), read->loop, site.reads, width,
                                  "gi_vec" + std::to_string(gene.line)));
    return "";
}

// A loop site's text and its function's body before and after it, as edits and the other
// transformations left them (WarpReduce, Stage): nullopt when a changed run crosses a boundary.
struct LoopInScope {
    std::string before, loop, after;
};

std::optional<LoopInScope> read_in_scope(const TransformSite& site, TransformSegments& text) {
    std::optional<std::string> before = text.read(site.scope_begin, site.begin);
    std::optional<std::string> loop = text.read(site.begin, site.end);
    std::optional<std::string> after = text.read(site.end, site.scope_end);
    if (!before || !loop || !after) return std::nullopt;
    return LoopInScope{std::move(*before), std::move(*loop), std::move(*after)};
}

// Why the warp could not finish the reduction ("" when it does): the premise read again on the
// loop and on the function's text around it, as edits and the other transformations left them.
std::string warp_reduce_site(const Gene& gene, TransformSegments& text) {
    const TransformSite& site = gene.site;
    const std::optional<LoopInScope> read = read_in_scope(site, text);
    if (!read) return "an edit rewrote the loop together with the code around it";
    std::string why;
    const std::optional<TreeReduction> reduction = tree_reduction(read->before, read->loop, read->after, why);
    if (!reduction) return why;
    text.replace(site.begin, site.end, warp_reduce_text(*reduction, "gi_shfl" + std::to_string(gene.line)));
    return "";
}

// Why the kernel could not be coarsened ("" when it was): the body and the host code's grid
// rewritten together, or neither.
std::string coarsen_site(const Gene& gene, int factor, TransformSegments& text) {
    const TransformSite& site = gene.site;
    const std::optional<std::string> body = text.read(site.begin, site.end);
    const std::optional<std::string> grid = text.read(site.grid_begin, site.grid_end);
    if (!body || !grid) return "an edit rewrote the kernel's body or its grid";
    std::string why;
    const std::optional<CoarsenPlan> plan = coarsen_plan(*body, why);
    if (!plan) return why;
    text.replace(site.begin, site.end, coarsened_body(*body, *plan, factor, "gi_coarsen" + std::to_string(gene.line)));
    text.replace(site.grid_begin, site.grid_end, coarsened_grid(*grid, factor));
    return "";
}

// Why the array could not be staged ("" when it was): the premise read again on the loop and the
// kernel's body around it; the tile and its load go at the top of the body, the loop reads it.
std::string stage_site(const Gene& gene, TransformSegments& text) {
    const TransformSite& site = gene.site;
    const std::optional<LoopInScope> read = read_in_scope(site, text);
    if (!read) return "an edit rewrote the loop together with the code around it";
    std::string why;
    const std::optional<StagePlan> plan = stage_plan(read->before, read->loop, read->after, site.stage, why);
    if (!plan) return why;
    const std::string name = "gi_stage" + std::to_string(gene.line);
    if (!text.insert(site.scope_begin, staged_prologue(*plan, site.stage, name)))
        return "an edit rewrote the start of the kernel's body";
    text.replace(site.begin, site.end, staged_loop(*plan, site.stage, name));
    return "";
}

std::string hoist_site(const Gene& gene, TransformSegments& text) {
    const TransformSite& site = gene.site;
    const std::optional<std::string> declaration = text.read(site.begin, site.end);
    if (!declaration) return "another transformation rewrote the declaration";
    if (!text.replace(site.begin, site.end, "")) return "another transformation rewrote the declaration";
    if (!text.insert(site.at, *declaration + "\n" + site.indent)) return "another transformation rewrote the loop";
    return "";
}

}  // namespace

void apply_transforms(const Genome& genome, const Grammar& grammar, std::vector<TextSegment>& segments,
                      std::vector<std::string>& skipped) {
    // Conditions first, then declarations out of loops, then loops from the innermost out: an
    // outer loop's copies hold its inner loops as already unrolled, and the declarations moved.
    std::vector<const Gene*> order;
    for (const Gene& gene : grammar.genes)
        if (is_transform_gene(gene.kind)) order.push_back(&gene);
    // Unroll and Vectorize both rewrite a loop's body: one rank, and the first set on a loop
    // takes it (the other's premise, no write to V, no longer holds on the rewritten body).
    // WarpReduce, Stage, then Coarsen last: their premises read the whole function as the others
    // left it, and Coarsen wraps all of it (a staged kernel's body no longer starts with its index:
    // Coarsen is then skipped with its reason).
    auto rank = [](const Gene* gene) {
        return gene->kind == GeneKind::Unguard ? 0 : gene->kind == GeneKind::Hoist ? 1 : gene->kind == GeneKind::WarpReduce ? 3
               : gene->kind == GeneKind::Stage ? 4 : gene->kind == GeneKind::Coarsen ? 5 : 2;
    };
    std::stable_sort(order.begin(), order.end(), [&](const Gene* a, const Gene* b) {
        if (rank(a) != rank(b)) return rank(a) < rank(b);
        return rank(a) == 2 && a->site.begin > b->site.begin;
    });
    std::set<std::size_t> rewritten_loops;
    TransformSegments text(segments);
    for (const Gene* transform : order) {
        const Gene& gene = *transform;
        const std::string value = setting_or(genome, gene.name, gene.default_value);
        if (value == gene.default_value) continue;
        std::string why;
        const bool loop_kind = gene.kind == GeneKind::Unroll || gene.kind == GeneKind::Vectorize;
        if (loop_kind && rewritten_loops.count(gene.site.begin)) {
            why = "another transformation rewrote the loop";
        } else if (gene.kind == GeneKind::Unroll) {
            why = unroll_site(gene, std::stoi(value), text);
        } else if (gene.kind == GeneKind::Vectorize) {
            why = vectorize_site(gene, std::stoi(value), text);
        } else if (gene.kind == GeneKind::Hoist) {
            why = hoist_site(gene, text);
        } else if (gene.kind == GeneKind::WarpReduce) {
            why = warp_reduce_site(gene, text);
        } else if (gene.kind == GeneKind::Stage) {
            why = stage_site(gene, text);
        } else if (gene.kind == GeneKind::Coarsen) {
            why = coarsen_site(gene, std::stoi(value), text);
        } else if (!text.replace(gene.site.begin, gene.site.end, gene.site.replacement)) {
            why = "another transformation rewrote the condition";
        }
        if (loop_kind && why.empty()) rewritten_loops.insert(gene.site.begin);
        if (!why.empty()) skipped.push_back(gene.name + "=" + value + " (not applied: " + why + ")");
    }
}

}  // namespace gi
