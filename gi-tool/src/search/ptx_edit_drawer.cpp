#include "search/ptx_edit_drawer.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "genome/genome_ops.hpp"
#include "ptx/random_ptx_edit.hpp"

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
    explicit PtxCache(PtxOf ptx_of) : ptx_of_(std::move(ptx_of)) {}

    std::shared_ptr<const PtxModule> module_for(const Genome& part) {
        auto [future, mine] = claim(genome_to_text(part));
        if (mine) compile(part, genome_to_text(part));
        return future.get();
    }

    void prefetch(const std::vector<Genome>& parents, unsigned jobs) {
        std::vector<Genome> todo;
        for (const Genome& parent : parents) {
            Genome part = source_part(parent);
            if (claim(genome_to_text(part)).second) todo.push_back(std::move(part));
        }
        if (todo.empty()) return;
        jobs = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(todo.size())));
        std::atomic<std::size_t> next{0};
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < jobs; ++t)
            threads.emplace_back([&] {
                for (std::size_t k; (k = next++) < todo.size();) compile(todo[k], genome_to_text(todo[k]));
            });
        for (std::thread& t : threads) t.join();
    }

private:
    using Module = std::shared_ptr<const PtxModule>;
    // The key's future, and whether the caller is to compile it (the first to ask).
    std::pair<std::shared_future<Module>, bool> claim(const std::string& key) {
        std::lock_guard lock(mutex_);
        if (auto it = modules_.find(key); it != modules_.end()) return {it->second, false};
        auto promise = std::make_shared<std::promise<Module>>();
        std::shared_future<Module> future = promise->get_future().share();
        modules_.emplace(key, future);
        promises_.emplace(key, std::move(promise));
        return {future, true};
    }
    void compile(const Genome& part, const std::string& key) {
        Module module;
        try {
            module = ptx_of_(part);
        } catch (...) {  // no PTX to draw on: the source drawer answers, as when ptx_of says null
        }
        std::shared_ptr<std::promise<Module>> promise;
        {
            std::lock_guard lock(mutex_);
            promise = std::move(promises_.at(key));
            promises_.erase(key);
        }
        promise->set_value(std::move(module));
    }

    PtxOf ptx_of_;
    std::mutex mutex_;
    std::map<std::string, std::shared_future<Module>> modules_;
    std::map<std::string, std::shared_ptr<std::promise<Module>>> promises_;
};

}  // namespace

PtxEditDrawer ptx_edit_drawer(EditDrawer source, PtxOf ptx_of, std::string function, double rate, unsigned prefetch_jobs) {
    if (rate <= 0) return {std::move(source), {}};
    auto cache = std::make_shared<PtxCache>(std::move(ptx_of));
    PtxEditDrawer drawer;
    drawer.draw = [source = std::move(source), function = std::move(function), rate, cache](const Genome& genome,
                                                                                          Rng& rng) -> std::optional<Edit> {
        if (!rng.chance(rate)) return source(genome, rng);
        const std::shared_ptr<const PtxModule> module = cache->module_for(source_part(genome));
        if (module) {
            const int entry = find_entry(*module, function);
            if (entry >= 0)
                if (std::optional<Edit> edit = random_ptx_edit(*module, entry, rng)) return edit;
        }
        return source(genome, rng);
    };
    const unsigned jobs = prefetch_jobs > 0 ? prefetch_jobs : std::max(1u, std::thread::hardware_concurrency());
    drawer.prefetch = [cache, jobs](const std::vector<Genome>& parents) { cache->prefetch(parents, jobs); };
    return drawer;
}

EditDrawer with_ptx_edits(EditDrawer source, PtxOf ptx_of, std::string function, double rate) {
    return ptx_edit_drawer(std::move(source), std::move(ptx_of), std::move(function), rate).draw;
}

}  // namespace gi
