#include "search/ptx_edit_drawer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "genome/genome_ops.hpp"
#include "util/elapsed.hpp"
#include "ptx/random_ptx_edit.hpp"
#include "util/parallel.hpp"

namespace gi {

Genome source_part(const Genome& genome) {
    Genome part = genome;
    std::erase_if(part.edits, is_ptx_edit);
    return part;
}

namespace {

// A parent's children share its PTX: compiled once per source part, by its text. A part being
// compiled is a future the other askers wait on, so parts compile in parallel, each once.
class PtxCache {
public:
    using Module = std::shared_ptr<const PtxModule>;
    explicit PtxCache(PtxOf ptx_of) : ptx_of_(std::move(ptx_of)) {}

    Module module_for(const Genome& part) {
        Claim claim = claim_for(part);
        if (claim.promise) claim.promise->set_value(compile(part));
        return claim.future.get();
    }

    void prefetch(const std::vector<Genome>& parents, unsigned jobs) {
        const auto start = std::chrono::steady_clock::now();
        prefetch_parts(parents, jobs);
        add([&](PtxDrawerStats& s) { s.prefetch_wall_s += ms_since(start) / 1000; });
    }

    void add(const std::function<void(PtxDrawerStats&)>& change) {
        std::lock_guard lock(stats_mutex_);
        change(stats_);
    }
    PtxDrawerStats stats() const {
        std::lock_guard lock(stats_mutex_);
        return stats_;
    }

private:
    void prefetch_parts(const std::vector<Genome>& parents, unsigned jobs) {
        std::vector<Genome> parts;
        std::vector<std::promise<Module>> promises;
        for (const Genome& parent : parents) {
            Genome part = source_part(parent);
            Claim claim = claim_for(part);
            if (!claim.promise) continue;
            parts.push_back(std::move(part));
            promises.push_back(std::move(*claim.promise));
        }
        std::vector<std::function<Module()>> tasks;
        for (const Genome& part : parts) tasks.push_back([this, &part] { return compile(part); });
        std::vector<Module> modules = run_in_parallel(tasks, jobs);
        for (std::size_t k = 0; k < modules.size(); ++k) promises[k].set_value(std::move(modules[k]));
    }

    struct Claim {
        std::shared_future<Module> future;
        std::optional<std::promise<Module>> promise;  // the caller's to keep, when it asked first
    };
    Claim claim_for(const Genome& part) {
        const std::string key = genome_to_text(part);
        std::lock_guard lock(mutex_);
        if (auto it = modules_.find(key); it != modules_.end()) return {it->second, std::nullopt};
        std::promise<Module> promise;
        std::shared_future<Module> future = promise.get_future().share();
        modules_.emplace(key, future);
        return {future, std::move(promise)};
    }
    Module compile(const Genome& part) {
        const auto start = std::chrono::steady_clock::now();
        Module module;
        try {
            module = ptx_of_(part);
        } catch (...) {  // no PTX to draw on: the source drawer answers, as when ptx_of says null
        }
        add([&](PtxDrawerStats& s) {
            ++s.parts_compiled;
            s.compile_s += ms_since(start) / 1000;
        });
        return module;
    }

    PtxOf ptx_of_;
    mutable std::mutex stats_mutex_;
    PtxDrawerStats stats_;
    std::mutex mutex_;
    std::map<std::string, std::shared_future<Module>> modules_;
};

}  // namespace

PtxEditDrawer ptx_edit_drawer(EditDrawer source, PtxOf ptx_of, std::string function, double rate, unsigned prefetch_jobs) {
    if (rate <= 0) return {std::move(source), {}};
    auto cache = std::make_shared<PtxCache>(std::move(ptx_of));
    PtxEditDrawer drawer;
    drawer.draw = [source = std::move(source), function = std::move(function), rate, cache](const Genome& genome,
                                                                                          Rng& rng) -> std::optional<Edit> {
        if (!rng.chance(rate)) return source(genome, rng);
        const auto start = std::chrono::steady_clock::now();
        const std::shared_ptr<const PtxModule> module = cache->module_for(source_part(genome));
        const double waited = ms_since(start) / 1000;
        std::optional<Edit> edit;
        if (module)
            if (const int entry = find_entry(*module, function); entry >= 0) edit = random_ptx_edit(*module, entry, rng);
        cache->add([&](PtxDrawerStats& s) {
            ++s.ptx_draws;
            s.ptx_edits += edit.has_value();
            s.draw_wait_s += waited;
        });
        return edit ? edit : source(genome, rng);
    };
    const unsigned jobs = prefetch_jobs > 0 ? prefetch_jobs : std::max(1u, std::thread::hardware_concurrency());
    drawer.prefetch = [cache, jobs](const std::vector<Genome>& parents) { cache->prefetch(parents, jobs); };
    drawer.stats = [cache] { return cache->stats(); };
    return drawer;
}

std::string describe(const PtxDrawerStats& s, double rate) {
    char text[640];
    std::snprintf(text, sizeof text,
                  "PTX edits (--ptx-edits %g): %ld draws went for one, %ld drew a PTX edit (the others a source edit: "
                  "no PTX or nothing to edit there); the PTX of %ld source parts made in %.1f s (%.2f s each), "
                  "prefetched in %.1f s of wall time; the draws waited %.1f s for it",
                  rate, s.ptx_draws, s.ptx_edits, s.parts_compiled, s.compile_s,
                  s.parts_compiled > 0 ? s.compile_s / static_cast<double>(s.parts_compiled) : 0.0, s.prefetch_wall_s,
                  s.draw_wait_s);
    return text;
}

EditDrawer with_ptx_edits(EditDrawer source, PtxOf ptx_of, std::string function, double rate) {
    return ptx_edit_drawer(std::move(source), std::move(ptx_of), std::move(function), rate).draw;
}

}  // namespace gi
