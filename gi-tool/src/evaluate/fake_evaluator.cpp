#include "evaluate/fake_evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

// A uniform number in [0, 1) from a hash of the text, so effects are fixed by (seed, item) alone.
double hash01(const std::string& text) {
    const std::string hex = sha256_hex(text).substr(0, 13);  // 52 bits fit a double exactly
    return static_cast<double>(std::strtoull(hex.c_str(), nullptr, 16)) / 4503599627370496.0;
}

double between(double lo, double hi, double u) { return lo + (hi - lo) * u; }

double parse_number(const std::string& value, const std::string& item, const std::string& argument) {
    char* end = nullptr;
    const double parsed = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0')
        throw UsageError(argument + " '" + item + "': '" + value + "' is not a number");
    return parsed;
}

}  // namespace

void apply_fake_setting(FakeLandscapeOptions& options, const std::string& text, const std::string& argument) {
    const auto eq = text.find('=');
    if (eq == std::string::npos)
        throw UsageError(argument + " '" + text + "': expected NAME=VALUE with NAME one of seed, cases, noise, "
                         "delay-ms, random");
    const std::string name = text.substr(0, eq), value = text.substr(eq + 1);
    if (name != "seed" && name != "cases" && name != "noise" && name != "delay-ms" && name != "random")
        throw UsageError(argument + " '" + text + "': unknown fake-evaluator setting '" + name +
                         "' (known: seed, cases, noise, delay-ms, random)");
    const double number = parse_number(value, text, argument);
    auto require_integer = [&](double lo, double hi) {
        if (number != static_cast<double>(static_cast<long long>(number)) || number < lo || number > hi)
            throw UsageError(argument + " '" + text + "': " + name + " must be an integer from " +
                             std::to_string(static_cast<long long>(lo)) + " to " +
                             std::to_string(static_cast<long long>(hi)));
    };
    if (name == "seed") {
        require_integer(0, 9007199254740992.0);
        options.seed = static_cast<std::uint64_t>(number);
    } else if (name == "cases") {
        require_integer(1, 100000);
        options.cases = static_cast<int>(number);
    } else if (name == "noise") {
        if (!(number >= 0 && number <= 0.5))
            throw UsageError(argument + " '" + text + "': noise is a relative spread from 0 to 0.5");
        options.noise = number;
    } else if (name == "delay-ms") {
        require_integer(0, 600000);
        options.delay_ms = static_cast<int>(number);
    } else {
        require_integer(0, 1);
        options.random_effects = number != 0;
    }
}

FakeEvaluator::FakeEvaluator(Grammar grammar, FakeLandscapeOptions options)
    : grammar_(std::move(grammar)), options_(std::move(options)) {
    if (options_.cases < 1) throw UsageError("the fake evaluator needs at least one case");
}

EvaluatorTraits FakeEvaluator::traits() const {
    EvaluatorTraits t;
    t.name = "fake(seed=" + std::to_string(options_.seed) + ",cases=" + std::to_string(options_.cases) +
             ",random=" + (options_.random_effects ? "1" : "0") + ",declared=" + std::to_string(options_.declared.size()) +
             ")";
    t.case_count = options_.cases;
    t.measures_time = true;
    return t;
}

FakeEffect FakeEvaluator::effect_of(const std::string& item) const {
    if (auto it = options_.declared.find(item); it != options_.declared.end()) return it->second;
    if (!options_.random_effects) return FakeEffect::neutral();
    const std::string salt = std::to_string(options_.seed) + "|" + item;
    const double kind = hash01(salt + "|kind"), size = hash01(salt + "|size");
    // Proportions loosely follow what the seeds saw: most changes are neutral or harmful, a few help,
    // a few break the kernel.
    if (kind < 0.45) return FakeEffect::neutral();
    if (kind < 0.65) return FakeEffect::time(between(0.80, 0.98, size));
    if (kind < 0.85) return FakeEffect::time(between(1.02, 1.50, size));
    if (kind < 0.93) return FakeEffect::wrong(between(0.5, 5.0, size), between(0.7, 1.2, hash01(salt + "|t")));
    if (kind < 0.98) return FakeEffect::compile_error();
    return FakeEffect::crash();
}

double FakeEvaluator::base_time_ms(int case_index) const {
    return between(1.0, 2.0, hash01(std::to_string(options_.seed) + "|case|" + std::to_string(case_index)));
}

EvalResult FakeEvaluator::exact_result(const Genome& genome, int case_index) const {
    // Items as a set: a gene counts by its final value, a repeated edit once.
    std::vector<std::string> items;
    for (const GeneSetting& setting : genome.settings) {
        const std::string value = setting_or(genome, setting.name, "");
        if (value != setting.value) continue;  // a later setting of the same gene wins
        const Gene* gene = grammar_.find_gene(setting.name);
        if (gene == nullptr)
            return {EvalStatus::CompileError, 0, {}, "fake: unknown gene '" + setting.name + "'"};
        if (std::find(gene->values.begin(), gene->values.end(), value) == gene->values.end())
            return {EvalStatus::CompileError, 0, {}, "fake: value '" + value + "' not allowed for " + gene->name};
        if (value != gene->default_value) items.push_back(setting.name + "=" + value);
    }
    for (const Edit& edit : genome.edits) items.push_back(edit_to_text(edit));
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());

    EvalResult result;
    double time = base_time_ms(case_index);
    for (const std::string& item : items) {
        const FakeEffect effect = effect_of(item);
        switch (effect.kind) {
        case FakeEffect::Kind::CompileError:
            return {EvalStatus::CompileError, 0, {}, "fake: " + item + " does not compile"};
        case FakeEffect::Kind::Crash:
            return {EvalStatus::Crash, 0, {}, "fake: " + item + " crashes"};
        case FakeEffect::Kind::Error:
            result.error += effect.error;
            time *= effect.time_factor;
            break;
        case FakeEffect::Kind::Time:
            time *= effect.time_factor;
            break;
        }
    }
    result.time.median_ms = time;
    result.time.spread_ms = 0;
    result.time.repetitions = 1;
    return result;
}

Timing FakeEvaluator::noisy(double exact_ms, const std::string& key, int case_index) const {
    Timing timing;
    const double u = hash01(std::to_string(options_.seed) + "|noise|" + key + "|" + std::to_string(case_index));
    timing.median_ms = exact_ms * (1.0 + options_.noise * (2.0 * u - 1.0));
    timing.spread_ms = exact_ms * options_.noise;
    timing.repetitions = 5;
    return timing;
}

BatchResult FakeEvaluator::evaluate(const std::vector<Variant>& variants, int case_index) {
    if (case_index < 0 || case_index >= options_.cases)
        throw Error("fake evaluator: case " + std::to_string(case_index) + " is outside 0.." +
                    std::to_string(options_.cases - 1));
    ++calls_;
    variants_seen_ += static_cast<long long>(variants.size());
    if (options_.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(options_.delay_ms));
    BatchResult batch;
    batch.original = noisy(base_time_ms(case_index), "original", case_index);
    for (const Variant& variant : variants) {
        EvalResult result = exact_result(variant.genome, case_index);
        if (result.status == EvalStatus::Ok) result.time = noisy(result.time.median_ms, variant.key, case_index);
        batch.results.push_back(std::move(result));
    }
    return batch;
}

}  // namespace gi
