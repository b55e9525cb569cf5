#include "cuda/original_yardstick.hpp"

#include <cmath>

namespace gi {
namespace {

double spread_or_zero(const Timing& t) { return std::isfinite(t.spread_ms) ? t.spread_ms : 0.0; }

bool slower_beyond(const Timing& candidate, const Timing& reference) {
    const double noise = std::hypot(spread_or_zero(candidate), spread_or_zero(reference));
    return candidate.median_ms - reference.median_ms > kOriginalDisagreementK * noise;
}

}  // namespace

OriginalYardstick original_yardstick(const Timing& opening, const Timing& closing) {
    if (!closing.valid()) return {opening, SlowerTiming::Neither};
    if (!opening.valid()) return {closing, SlowerTiming::Neither};
    const SlowerTiming slower = slower_beyond(opening, closing)   ? SlowerTiming::Opening
                                : slower_beyond(closing, opening) ? SlowerTiming::Closing
                                                                  : SlowerTiming::Neither;
    return {closing.median_ms < opening.median_ms ? closing : opening, slower};
}

}  // namespace gi
