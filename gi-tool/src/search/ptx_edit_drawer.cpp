#include "search/ptx_edit_drawer.hpp"

#include <map>
#include <mutex>

#include "genome/genome_ops.hpp"
#include "ptx/random_ptx_edit.hpp"

namespace gi {

Genome source_part(const Genome& genome) {
    Genome part = genome;
    std::erase_if(part.edits, is_ptx_edit);
    return part;
}

EditDrawer with_ptx_edits(EditDrawer source, PtxOf ptx_of, std::string function, double rate) {
    if (rate <= 0) return source;
    // A parent's children share its PTX: compiled once per source part, by its text.
    struct Modules {
        std::mutex mutex;
        std::map<std::string, std::shared_ptr<const PtxModule>> by_source;
    };
    auto modules = std::make_shared<Modules>();
    return [source = std::move(source), ptx_of = std::move(ptx_of), function = std::move(function), rate,
            modules](const Genome& genome, Rng& rng) -> std::optional<Edit> {
        if (!rng.chance(rate)) return source(genome, rng);
        const Genome part = source_part(genome);
        const std::string key = genome_to_text(part);
        std::shared_ptr<const PtxModule> module;
        {
            std::lock_guard lock(modules->mutex);
            auto it = modules->by_source.find(key);
            if (it == modules->by_source.end()) it = modules->by_source.emplace(key, ptx_of(part)).first;
            module = it->second;
        }
        if (module) {
            const int entry = find_entry(*module, function);
            if (entry >= 0)
                if (std::optional<Edit> edit = random_ptx_edit(*module, entry, rng)) return edit;
        }
        return source(genome, rng);
    };
}

}  // namespace gi
