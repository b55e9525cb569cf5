#include "evaluate/sanitizer_batches.hpp"

#include <algorithm>
#include <map>

namespace gi {

std::vector<std::vector<std::size_t>> sanitizer_batches(const std::vector<std::vector<std::string>>& tools_of,
                                                        std::size_t processes, std::size_t max_batch,
                                                        const std::string& slow_alone) {
    processes = std::max<std::size_t>(processes, 1);
    max_batch = std::max<std::size_t>(max_batch, 1);
    std::vector<std::vector<std::size_t>> batches;
    // Groups in order of first appearance, so the batches come out in a stable, input-like order.
    std::vector<std::vector<std::size_t>> groups;
    std::map<std::vector<std::string>, std::size_t> group_of;
    std::size_t total = 0;  // variants batched together below
    for (std::size_t i = 0; i < tools_of.size(); ++i) {
        if (!slow_alone.empty() && std::find(tools_of[i].begin(), tools_of[i].end(), slow_alone) != tools_of[i].end()) {
            batches.push_back({i});
            continue;
        }
        auto [it, added] = group_of.emplace(tools_of[i], groups.size());
        if (added) groups.emplace_back();
        groups[it->second].push_back(i);
        ++total;
    }
    // Enough variants per batch that all of them fit in about `processes` batches, so every process
    // slot has work and none holds a disproportionate share.
    const std::size_t per_batch = std::min(max_batch, std::max<std::size_t>(1, (total + processes - 1) / processes));
    for (const std::vector<std::size_t>& group : groups) {
        const std::size_t count = (group.size() + per_batch - 1) / per_batch;
        for (std::size_t b = 0; b < count; ++b) {
            // Even split: batch b takes [b*n/count, (b+1)*n/count).
            const std::size_t from = b * group.size() / count, to = (b + 1) * group.size() / count;
            batches.emplace_back(group.begin() + static_cast<std::ptrdiff_t>(from),
                                 group.begin() + static_cast<std::ptrdiff_t>(to));
        }
    }
    return batches;
}

}  // namespace gi
