#include "worker/guard_page_layout.hpp"

#include "util/error.hpp"

#include <string>

namespace gi::worker {
namespace {
bool power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }
std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
}  // namespace

GuardPageLayout guard_page_layout(std::size_t bytes, std::size_t zone_before, std::size_t granularity,
                                  std::size_t alignment) {
    if (!power_of_two(granularity) || !power_of_two(alignment) || alignment > granularity)
        throw Error("guard pages: the granularity (" + std::to_string(granularity) + ") and alignment (" +
                    std::to_string(alignment) + ") must be powers of two, the alignment at most the granularity");
    if (zone_before % alignment != 0)
        throw Error("guard pages: the zone before a buffer (" + std::to_string(zone_before) +
                    " bytes) must be a multiple of the alignment (" + std::to_string(alignment) + ")");
    const std::size_t span = round_up(bytes == 0 ? 1 : bytes, alignment);
    GuardPageLayout layout;
    layout.mapped = round_up(zone_before + span, granularity);
    layout.reserved = layout.mapped + granularity;
    layout.buffer = layout.mapped - span;
    return layout;
}

}  // namespace gi::worker
