#include "genome/genome_ops.hpp"

#include <set>

#include "util/error.hpp"

namespace gi {

Genome canonical_genome(const Genome& genome, const Grammar& grammar) {
    Genome canonical;
    std::set<std::string> seen;
    for (const GeneSetting& setting : genome.settings) {
        if (!seen.insert(setting.name).second) continue;
        const std::string value = setting_or(genome, setting.name, setting.value);
        const Gene* gene = grammar.find_gene(setting.name);
        if (gene != nullptr && value == gene->default_value) continue;
        canonical.settings.push_back({setting.name, value});
    }
    canonical.edits = genome.edits;
    return canonical;
}

std::vector<std::string> genome_items(const Genome& genome) {
    std::vector<std::string> items;
    for (const GeneSetting& setting : genome.settings) items.push_back(setting.name + "=" + setting.value);
    for (const Edit& edit : genome.edits) items.push_back(edit_to_text(edit));
    return items;
}

std::size_t genome_item_count(const Genome& genome) { return genome.settings.size() + genome.edits.size(); }

Genome without_item(const Genome& genome, std::size_t index) {
    if (index >= genome_item_count(genome))
        throw Error("without_item: item " + std::to_string(index) + " is past the genome's " +
                    std::to_string(genome_item_count(genome)) + " items");
    Genome result = genome;
    if (index < result.settings.size())
        result.settings.erase(result.settings.begin() + static_cast<std::ptrdiff_t>(index));
    else
        result.edits.erase(result.edits.begin() + static_cast<std::ptrdiff_t>(index - result.settings.size()));
    return result;
}

Genome settings_only(const Genome& genome) {
    Genome result;
    result.settings = genome.settings;
    return result;
}

}  // namespace gi
