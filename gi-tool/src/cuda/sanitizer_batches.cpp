#include "cuda/sanitizer_batches.hpp"

#include <algorithm>
#include <map>

namespace gi {

std::vector<std::vector<std::size_t>> sanitizer_batches(const std::vector<std::vector<std::string>>& tools_of,
                                                        std::size_t processes, std::size_t max_batch,
                                                        const std::string& slow, std::size_t slow_per_batch) {
    processes = std::max<std::size_t>(processes, 1);
    max_batch = std::max<std::size_t>(max_batch, 1);
    std::vector<std::vector<std::size_t>> batches;
    // `group` in ceil(size / per_batch) batches of even size: batch b takes [b*n/count, (b+1)*n/count).
    auto split = [&](const std::vector<std::size_t>& group, std::size_t per_batch) {
        const std::size_t count = (group.size() + per_batch - 1) / per_batch;
        for (std::size_t b = 0; b < count; ++b) {
            const std::size_t from = b * group.size() / count, to = (b + 1) * group.size() / count;
            batches.emplace_back(group.begin() + static_cast<std::ptrdiff_t>(from),
                                 group.begin() + static_cast<std::ptrdiff_t>(to));
        }
    };
    // Groups in order of first appearance, so the batches come out in a stable, input-like order.
    std::vector<std::vector<std::size_t>> groups, slow_groups;
    std::map<std::vector<std::string>, std::size_t> group_of, slow_group_of;
    std::size_t total = 0;  // variants batched together below
    for (std::size_t i = 0; i < tools_of.size(); ++i) {
        const bool is_slow = !slow.empty() && std::find(tools_of[i].begin(), tools_of[i].end(), slow) != tools_of[i].end();
        auto& where = is_slow ? slow_groups : groups;
        auto [it, added] = (is_slow ? slow_group_of : group_of).emplace(tools_of[i], where.size());
        if (added) where.emplace_back();
        where[it->second].push_back(i);
        total += is_slow ? 0 : 1;
    }
    for (const std::vector<std::size_t>& group : slow_groups) split(group, std::max<std::size_t>(1, slow_per_batch));
    // Enough variants per batch that all of them fit in about `processes` batches, so every process
    // slot has work and none holds a disproportionate share.
    const std::size_t per_batch = std::min(max_batch, std::max<std::size_t>(1, (total + processes - 1) / processes));
    for (const std::vector<std::size_t>& group : groups) split(group, per_batch);
    return batches;
}

}  // namespace gi
