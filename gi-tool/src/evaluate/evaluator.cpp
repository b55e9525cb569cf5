#include "evaluate/evaluator.hpp"

#include <algorithm>
#include <cmath>

#include "grammar/grammar.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/median.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

struct StatusName {
    EvalStatus status;
    const char* name;
};

constexpr StatusName kStatusNames[] = {
    {EvalStatus::Ok, "ok"},
    {EvalStatus::CompileError, "compile-error"},
    {EvalStatus::Crash, "crash"},
    {EvalStatus::Timeout, "timeout"},
    {EvalStatus::SanitizerError, "sanitizer-error"},
    {EvalStatus::WrongAnswer, "wrong-answer"},
};


}  // namespace

std::string to_string(EvalStatus status) {
    for (const StatusName& entry : kStatusNames)
        if (entry.status == status) return entry.name;
    return "unknown";
}

EvalStatus eval_status_from_string(const std::string& text) {
    std::string known;
    for (const StatusName& entry : kStatusNames) {
        if (text == entry.name) return entry.status;
        known += known.empty() ? entry.name : std::string(", ") + entry.name;
    }
    throw Error("unknown evaluation status '" + text + "' (known: " + known + ")");
}

Variant make_variant(const Genome& genome, const Grammar& grammar) {
    AppliedVariant applied = apply_genome(genome, grammar);
    // Length-prefixed parts, so ("a", {"b"}) and ("ab", {}) cannot share a key.
    Sha256 hash;
    auto add = [&hash](const std::string& part) {
        hash.update(std::to_string(part.size()) + ":");
        hash.update(part);
    };
    // The header line only names the genome; leaving it out gives genomes that make the same
    // program (a skipped edit, a setting at its default) the same key, so it is compiled once.
    add(applied.source.substr(applied.source.find('\n') + 1));
    for (const std::string& option : applied.compile_options) add(option);
    // PTX edits act after the source (ptx/ptx_edit.hpp): the same source with other PTX edits is
    // another program. Added only when there are some, so every other variant keeps its key.
    for (const Edit& edit : genome.edits)
        if (is_ptx_edit(edit)) add("ptx-edit " + edit_to_text(edit));
    return Variant{genome, std::move(applied.source), std::move(applied.compile_options), hash.hex_digest()};
}

Timing summarise_timings(std::vector<double> samples_ms) {
    for (const double sample : samples_ms)
        if (!std::isfinite(sample) || sample < 0)
            throw Error("timing sample " + std::to_string(sample) +
                        " ms is not a finite, non-negative duration (the timer or the worker misbehaved)");
    Timing timing;
    timing.repetitions = static_cast<int>(samples_ms.size());
    if (samples_ms.empty()) return timing;
    timing.median_ms = median_of(samples_ms);
    std::vector<double> deviations;
    deviations.reserve(samples_ms.size());
    for (const double sample : samples_ms) deviations.push_back(std::fabs(sample - timing.median_ms));
    // 1.4826 x MAD estimates the standard deviation of normal noise while ignoring outliers.
    timing.spread_ms = 1.4826 * median_of(std::move(deviations));
    return timing;
}

double combined_spread(const Timing& a, const Timing& b) {
    const double sa = std::isfinite(a.spread_ms) ? a.spread_ms : 0.0;
    const double sb = std::isfinite(b.spread_ms) ? b.spread_ms : 0.0;
    return std::sqrt(sa * sa + sb * sb);
}

}  // namespace gi
