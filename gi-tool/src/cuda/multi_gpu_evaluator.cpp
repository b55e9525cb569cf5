#include "cuda/multi_gpu_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <future>
#include <map>
#include <thread>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

// Runs `work(g)` for g in [0, count) at once, the first on this thread; rethrows the first error
// once every one has ended.
template <typename Work>
void on_every_gpu(std::size_t count, const Work& work) {
    std::vector<std::exception_ptr> errors(count);
    std::vector<std::thread> threads;
    for (std::size_t g = 1; g < count; ++g)
        threads.emplace_back([&, g] {
            try {
                work(g);
            } catch (...) {
                errors[g] = std::current_exception();
            }
        });
    if (count > 0) {
        try {
            work(0);
        } catch (...) {
            errors[0] = std::current_exception();
        }
    }
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

// `result`, run on a GPU whose original took `own`, put on the scale of the batch's original
// (`first`, the first GPU's): see EvalResult::original.
void judge_on_own_gpu(EvalResult& result, const Timing& own, const Timing& first) {
    if (!own.valid() || !first.valid() || !(own.median_ms > 0) || !(first.median_ms > 0)) {
        result.original = own;
        return;
    }
    const double scale = first.median_ms / own.median_ms;
    if (result.time.valid()) {
        result.time.median_ms *= scale;
        if (std::isfinite(result.time.spread_ms)) result.time.spread_ms *= scale;
    }
    result.original = own;
    result.original.median_ms = first.median_ms;
    if (std::isfinite(own.spread_ms)) result.original.spread_ms = own.spread_ms * scale;
}

}  // namespace

MultiGpuEvaluator::MultiGpuEvaluator(const Grammar& grammar, CudaEvaluatorOptions options, GpuSelection gpus, bool mixed)
    : grammar_(grammar), options_(std::move(options)), selection_(std::move(gpus)), mixed_(mixed) {
    CudaEvaluatorOptions first = options_;
    first.device = selection_.first();
    gpus_.push_back(std::make_unique<CudaEvaluator>(grammar_, std::move(first)));
}

MultiGpuEvaluator::~MultiGpuEvaluator() = default;

void MultiGpuEvaluator::ensure_gpus() {
    std::call_once(resolved_, [this] {
        // The first GPU's worker says how many the driver sees (and fails as one GPU's would when none).
        const int devices = gpus_[0]->device_count();
        std::vector<int> ordinals = resolve_gpu_selection(selection_, devices);
        const std::size_t n = ordinals.size();
        if (n > 1) {
            // The cores are shared: each GPU compiles its part of a batch and checks its variants.
            const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
            const int gpus = static_cast<int>(n);
            compile_jobs_ = std::max(1, (options_.jobs > 0 ? options_.jobs : cores) / gpus);
            const int sanitize_total = options_.sanitize_jobs > 0 ? options_.sanitize_jobs : std::min(8 * gpus, std::max(1, cores / 2));
            sanitize_jobs_ = std::max(1, sanitize_total / gpus);
            sanitize_sessions_ = options_.sanitize_sessions < 0    ? -1
                                 : options_.sanitize_sessions == 0 ? 0
                                                                   : std::max(1, (options_.sanitize_sessions + gpus - 1) / gpus);
            gpus_[0]->share_machine(compile_jobs_, sanitize_jobs_, sanitize_sessions_);
            // Kept only once all are checked: a refusal leaves the first GPU's evaluator alone.
            std::vector<std::unique_ptr<CudaEvaluator>> others;
            for (std::size_t g = 1; g < n; ++g) others.push_back(make_worker(ordinals[g]));
            std::vector<std::string> names(n);
            on_every_gpu(n, [&](std::size_t g) { names[g] = g == 0 ? gpus_[0]->device_name() : others[g - 1]->device_name(); });
            if (!mixed_) {
                for (std::size_t g = 1; g < n; ++g) {
                    if (names[g] == names[0]) continue;
                    std::string listed;
                    for (std::size_t k = 0; k < n; ++k)
                        listed += (k ? ", " : "") + std::string("GPU ") + std::to_string(ordinals[k]) + " " + names[k];
                    throw UsageError("--gpus " + selection_.text + ": these GPUs are not all one model (" + listed +
                                     "), so their timings cannot be compared; choose GPUs of one model (--gpus 0,2), or "
                                     "pass --gpus-mixed to use them together, each variant then judged only against "
                                     "the original timed on its own GPU and the final checks run on GPU " +
                                     std::to_string(ordinals[0]));
                }
            }
            for (auto& gpu : others) gpus_.push_back(std::move(gpu));
        }
        ordinals_ = std::move(ordinals);
    });
}

std::unique_ptr<CudaEvaluator> MultiGpuEvaluator::make_worker(int ordinal) {
    CudaEvaluatorOptions o = options_;
    o.device = ordinal;
    auto evaluator = std::make_unique<CudaEvaluator>(grammar_, std::move(o));
    if (compile_jobs_ > 0) evaluator->share_machine(compile_jobs_, sanitize_jobs_, sanitize_sessions_);
    return evaluator;
}

const std::vector<std::unique_ptr<CudaEvaluator>>& MultiGpuEvaluator::gpus() {
    ensure_gpus();
    return gpus_;
}

std::vector<int> MultiGpuEvaluator::ordinals() {
    ensure_gpus();
    return ordinals_;
}

EvaluatorTraits MultiGpuEvaluator::traits() const { return gpus_[0]->traits(); }

int MultiGpuEvaluator::gate_case(int case_index) const { return gpus_[0]->gate_case(case_index); }
std::vector<int> MultiGpuEvaluator::gate_only_cases() const { return gpus_[0]->gate_only_cases(); }

std::vector<std::size_t> MultiGpuEvaluator::assign(const std::vector<Variant>& variants, std::size_t used) {
    // Each program once: a repeat goes where its first copy goes (the evaluator copies its result).
    std::map<std::string, std::size_t> first_of;
    std::vector<std::size_t> firsts;
    for (std::size_t i = 0; i < variants.size(); ++i)
        if (first_of.emplace(variants[i].key, i).second) firsts.push_back(i);
    std::vector<std::size_t> room(used, firsts.size() / used);
    for (std::size_t g = 0; g < firsts.size() % used; ++g) ++room[g];
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::vector<std::size_t> gpu(variants.size(), none);
    std::lock_guard lock(homes_mutex_);
    for (std::size_t i : firsts)
        if (auto it = homes_.find(variants[i].key); it != homes_.end() && it->second < used && room[it->second] > 0) {
            gpu[i] = it->second;
            --room[it->second];
        }
    for (std::size_t i : firsts) {
        if (gpu[i] != none) continue;
        const std::size_t g = static_cast<std::size_t>(std::max_element(room.begin(), room.end()) - room.begin());
        gpu[i] = g;
        --room[g];
        homes_[variants[i].key] = g;
    }
    for (std::size_t i = 0; i < variants.size(); ++i)
        if (gpu[i] == none) gpu[i] = gpu[first_of.at(variants[i].key)];
    return gpu;
}

BatchResult MultiGpuEvaluator::evaluate(const std::vector<Variant>& variants, int case_index) {
    ensure_gpus();
    const std::size_t used = std::min(gpus_.size(), std::max<std::size_t>(1, variants.size() / kMinVariantsPerGpu));
    if (used == 1) {
        {
            std::lock_guard lock(homes_mutex_);
            for (const Variant& v : variants) homes_.emplace(v.key, 0);
        }
        return gpus_[0]->evaluate(variants, case_index);
    }
    const std::vector<std::size_t> gpu = assign(variants, used);
    std::vector<std::vector<Variant>> parts(used);
    std::vector<std::vector<std::size_t>> positions(used);
    for (std::size_t i = 0; i < variants.size(); ++i) {
        parts[gpu[i]].push_back(variants[i]);
        positions[gpu[i]].push_back(i);
    }
    std::vector<BatchResult> results(used);
    on_every_gpu(used, [&](std::size_t g) { results[g] = gpus_[g]->evaluate(parts[g], case_index); });
    BatchResult batch;
    batch.original = results[0].original;
    batch.results.resize(variants.size());
    for (std::size_t g = 0; g < used; ++g) {
        if (results[g].results.size() != parts[g].size())
            throw Error("the evaluator of GPU " + std::to_string(ordinals_[g]) + " returned " + std::to_string(results[g].results.size()) +
                        " results for " + std::to_string(parts[g].size()) + " variants");
        for (std::size_t k = 0; k < parts[g].size(); ++k) {
            EvalResult r = std::move(results[g].results[k]);
            if (g > 0) judge_on_own_gpu(r, results[g].original, batch.original);
            batch.results[positions[g][k]] = std::move(r);
        }
    }
    return batch;
}

void MultiGpuEvaluator::prepare_ahead(const std::vector<Variant>& variants) {
    ensure_gpus();
    const std::size_t used = std::min(gpus_.size(), std::max<std::size_t>(1, variants.size() / kMinVariantsPerGpu));
    std::vector<std::vector<Variant>> parts(gpus_.size());
    if (used == 1) {
        parts[0] = variants;
        std::lock_guard lock(homes_mutex_);
        for (const Variant& v : variants) homes_.emplace(v.key, 0);
    } else {
        const std::vector<std::size_t> gpu = assign(variants, used);
        for (std::size_t i = 0; i < variants.size(); ++i) parts[gpu[i]].push_back(variants[i]);
    }
    // Every GPU's, an empty part too: each forgets what it was given ahead before.
    for (std::size_t g = 0; g < gpus_.size(); ++g) gpus_[g]->prepare_ahead(parts[g]);
}

std::future<std::vector<EvalResult>> MultiGpuEvaluator::sanitize_many_async(const std::vector<Variant>& variants, int case_index) {
    ensure_gpus();
    if (gpus_.size() == 1) return gpus_[0]->sanitize_many_async(variants, case_index);
    // Each variant on its home GPU, where its build and any verdict of it are cached; one never
    // evaluated goes to the GPU with the fewest checks in this call.
    std::vector<std::vector<Variant>> parts(gpus_.size());
    std::vector<std::vector<std::size_t>> positions(gpus_.size());
    {
        std::lock_guard lock(homes_mutex_);
        for (std::size_t i = 0; i < variants.size(); ++i) {
            auto it = homes_.find(variants[i].key);
            if (it == homes_.end()) {
                std::size_t fewest = 0;
                for (std::size_t g = 1; g < parts.size(); ++g)
                    if (parts[g].size() < parts[fewest].size()) fewest = g;
                it = homes_.emplace(variants[i].key, fewest).first;
            }
            parts[it->second].push_back(variants[i]);
            positions[it->second].push_back(i);
        }
    }
    std::vector<std::future<std::vector<EvalResult>>> checks(gpus_.size());
    for (std::size_t g = 0; g < gpus_.size(); ++g)
        if (!parts[g].empty()) checks[g] = gpus_[g]->sanitize_many_async(parts[g], case_index);
    return std::async(std::launch::async, [checks = std::move(checks), positions = std::move(positions), n = variants.size()]() mutable {
        std::vector<EvalResult> out(n);
        std::exception_ptr error;
        for (std::size_t g = 0; g < checks.size(); ++g) {
            if (!checks[g].valid()) continue;
            try {
                std::vector<EvalResult> verdicts = checks[g].get();
                for (std::size_t k = 0; k < verdicts.size() && k < positions[g].size(); ++k) out[positions[g][k]] = std::move(verdicts[k]);
            } catch (...) {
                if (!error) error = std::current_exception();
            }
        }
        if (error) std::rethrow_exception(error);
        return out;
    });
}

std::vector<std::optional<EvalResult>> MultiGpuEvaluator::prescreen(const std::vector<Variant>& variants, int case_index) {
    return gpus_[0]->prescreen(variants, case_index);
}

std::vector<EvalResult> MultiGpuEvaluator::sanitize_many(const std::vector<Variant>& variants, int case_index) {
    return sanitize_many_async(variants, case_index).get();
}

ValidationReport MultiGpuEvaluator::validate(const Variant& variant) { return gpus_[0]->validate(variant); }

void MultiGpuEvaluator::expect_checks() {
    ensure_gpus();
    for (const auto& gpu : gpus_) gpu->expect_checks();
}

void MultiGpuEvaluator::discard_evaluation(int case_index) {
    for (const auto& gpu : gpus_) gpu->discard_evaluation(case_index);
}

EvaluatorReport MultiGpuEvaluator::report() {
    EvaluatorReport r = gpus_[0]->report();
    if (gpus_.size() < 2) return r;
    // The GPUs work at once: where evaluation spent its time is the slowest GPU's.
    std::string spread = "evaluated on " + std::to_string(gpus_.size()) + " GPUs (--gpus " + selection_.text + "):";
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
        const CudaEvaluatorStats& s = gpus_[g]->stats();
        spread += (g ? "; " : " ") + std::string("GPU ") + std::to_string(ordinals_[g]) + " " + std::to_string(s.variants) + " variants";
        if (g == 0) continue;
        const EvaluatorReport other = gpus_[g]->report();
        for (std::size_t t = 0; t < r.time_spent.size() && t < other.time_spent.size(); ++t)
            r.time_spent[t].seconds = std::max(r.time_spent[t].seconds, other.time_spent[t].seconds);
        r.waited_for_checks_s = std::max(r.waited_for_checks_s, other.waited_for_checks_s);
        r.delayed_by_checks_s = std::max(r.delayed_by_checks_s, other.delayed_by_checks_s);
    }
    spread += " (the other notes are GPU " + std::to_string(ordinals_[0]) + "'s, which ran the final checks" +
              (mixed_ ? "; GPUs of different models, each variant judged against its own GPU's original)" : ")");
    if (!r.notes.empty()) r.notes.push_back(spread);
    return r;
}

}  // namespace gi
