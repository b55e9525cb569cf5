#include "cuda/original_yardstick.hpp"

namespace gi {
namespace {

bool slower_beyond(const Timing& candidate, const Timing& reference) {
    return candidate.median_ms - reference.median_ms > kOriginalDisagreementK * combined_spread(candidate, reference);
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
