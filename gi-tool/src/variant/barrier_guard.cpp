#include "variant/barrier_guard.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "grammar/functions.hpp"
#include "grammar/scan.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"
#include "variant/source_edit.hpp"

namespace gi {
namespace {

using grammar_detail::FunctionDefinition;
using grammar_detail::Scan;
using grammar_detail::Token;

bool is_plain_barrier(const Scan& scan, std::size_t i) {
    return i + 2 < scan.tokens.size() && scan.tokens[i].is("__syncthreads") && scan.tokens[i + 1].is("(") &&
           scan.tokens[i + 2].is(")");
}

// `scan` is of `source`.
BarrierGuardResult guard_scanned(const Scan& scan, const std::string& source) {
    BarrierGuardResult result;
    result.source = source;
    std::vector<SourceEdit> edits;
    for (std::size_t i = 0; i < scan.tokens.size(); ++i) {
        if (!is_plain_barrier(scan, i)) continue;
        // Each call site its own number: a warp whose threads reach different sites in one phase
        // is what hangs a hardware barrier.
        const Token& first = scan.tokens[i];
        const Token& last = scan.tokens[i + 2];
        ++result.barriers;
        edits.push_back({first.begin, last.end - first.begin, "gi_guarded_syncthreads(" + std::to_string(result.barriers) + ")"});
    }
    if (result.barriers == 0) return result;
    int kernels = 0;
    for (const FunctionDefinition& f : grammar_detail::find_cuda_functions(scan)) {
        if (!f.is_global || f.body_open < 0) continue;
        ++kernels;
        const Token& open = scan.tokens[static_cast<std::size_t>(f.body_open)];
        const Token& close = scan.tokens[static_cast<std::size_t>(f.body_close)];
        edits.push_back({open.end, 0, " gi_barrier_enter();"});
        for (int k = f.body_open + 1; k + 1 < f.body_close; ++k) {
            const Token& t = scan.tokens[static_cast<std::size_t>(k)];
            if (t.is("return") && scan.tokens[static_cast<std::size_t>(k + 1)].is(";"))
                edits.push_back({t.end, 0, " gi_thread_exit()"});
        }
        edits.push_back({close.begin, 0, "gi_thread_exit(); "});
    }
    // The barrier's counters are set up where a kernel starts; with the kernel in another file (the
    // barriers in a header's device functions) they never would be, so leave the barriers alone.
    if (kernels == 0) return {source, 0};
    std::stable_sort(edits.begin(), edits.end(), [](const SourceEdit& a, const SourceEdit& b) { return a.at > b.at; });
    for (const SourceEdit& e : edits) result.source.replace(e.at, e.erase, e.text);
    return result;
}

}  // namespace

BarrierGuardResult guard_barriers(const std::string& source, const std::string& name) {
    const SourceFile file = make_source_file(name, source);
    try {
        // Tokens view the scan's own text, so the scan stays where it was made.
        Scan scan = grammar_detail::scan_source(file);
        if (!grammar_detail::match_brackets(scan).empty()) return {source, 0};
        return guard_scanned(scan, source);
    } catch (const Error&) {
        return {source, 0};
    }
}

}  // namespace gi
