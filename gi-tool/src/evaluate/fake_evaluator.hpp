#pragma once
// A deterministic synthetic fitness landscape over a grammar, so search, minimisation and tuning
// can be tested without a compiler or a GPU. Every genome item (a non-default gene setting
// "NAME=value" or an edit "<A><B>") has an effect: it multiplies the run time (speedup, neutral or
// slowdown), adds error, or makes the variant fail to compile or crash. Effects come from a hash of
// (seed, item), or exactly from `declared` for items a test names. Timings get pseudo-noise that
// depends only on (seed, variant key, case), never on call order: the same variant on the same case
// always measures the same, so a resumed run sees exactly what an uninterrupted one saw.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "grammar/grammar.hpp"

namespace gi {

struct FakeEffect {
    enum class Kind { Time, Error, CompileError, Crash } kind = Kind::Time;
    double time_factor = 1.0;  // multiplies run time; < 1 is a speedup (applies to Kind::Time and Kind::Error)
    double error = 0;          // Kind::Error: added to the variant's error

    static FakeEffect neutral() { return {}; }
    static FakeEffect time(double factor) { return {Kind::Time, factor, 0}; }
    static FakeEffect wrong(double error, double factor = 1.0) { return {Kind::Error, factor, error}; }
    static FakeEffect compile_error() { return {Kind::CompileError, 1.0, 0}; }
    static FakeEffect crash() { return {Kind::Crash, 1.0, 0}; }
    friend bool operator==(const FakeEffect&, const FakeEffect&) = default;
};

struct FakeLandscapeOptions {
    std::uint64_t seed = 1;
    int cases = 8;
    double noise = 0.01;   // relative spread of repeated timings (0 = exact timings)
    bool random_effects = true;  // false: every undeclared item is neutral
    // Exact effects by item text: "BLOCK_W=128", "<_k.cu_12>", "<_k.cu_12>+<_k.cu_40>".
    std::map<std::string, FakeEffect> declared;
    int delay_ms = 0;      // sleep per evaluate() call, to make runs slow enough to interrupt in tests
};

// Parses "fake" evaluator settings given on the command line as NAME=VALUE (seed, cases, noise,
// delay-ms, random=0|1). Throws gi::UsageError naming `argument` and the bad item.
void apply_fake_setting(FakeLandscapeOptions& options, const std::string& text, const std::string& argument);

class FakeEvaluator : public Evaluator {
public:
    FakeEvaluator(Grammar grammar, FakeLandscapeOptions options);

    EvaluatorTraits traits() const override;
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override;

    // The effect of one genome item, as evaluate() uses it.
    FakeEffect effect_of(const std::string& item) const;
    // The original kernel's noise-free time on a case.
    double base_time_ms(int case_index) const;
    // Noise-free result of a genome (what evaluate() reports before pseudo-noise).
    EvalResult exact_result(const Genome& genome, int case_index) const;
    // Number of evaluate() calls and of variants passed to them.
    long long calls() const { return calls_; }
    long long variants_seen() const { return variants_seen_; }

private:
    Timing noisy(double exact_ms, const std::string& key, int case_index) const;
    Grammar grammar_;
    FakeLandscapeOptions options_;
    long long calls_ = 0;
    long long variants_seen_ = 0;
};

}  // namespace gi
