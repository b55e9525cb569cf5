#include "compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "util/format.hpp"

namespace gi {
namespace {

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float value;
    if (exponent == 0) value = std::ldexp(static_cast<float>(mantissa), -24);
    else if (exponent == 31) value = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else value = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
    return sign ? -value : value;
}

float bf16_to_float(std::uint16_t b) {
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}

template <typename T>
T load(const unsigned char* p) {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

long long ulp_distance(ElementType type, const unsigned char* a, const unsigned char* b) {
    auto dist = [](auto x, auto y) {
        const long double d = static_cast<long double>(x) - static_cast<long double>(y);
        return d < 0 ? -d : d;
    };
    // Sign-magnitude to a signed ordering: negative values map below zero.
    auto key32 = [](std::uint32_t bits) -> long long {
        return (bits & 0x80000000u) ? -static_cast<long long>(bits & 0x7fffffffu) : static_cast<long long>(bits);
    };
    auto key64 = [](std::uint64_t bits) -> long double {
        return (bits >> 63) ? -static_cast<long double>(bits & 0x7fffffffffffffffull) : static_cast<long double>(bits);
    };
    auto key16 = [](std::uint16_t bits) -> long long {
        return (bits & 0x8000u) ? -static_cast<long long>(bits & 0x7fffu) : static_cast<long long>(bits);
    };
    long double d = 0;
    switch (type) {
        case ElementType::F32: d = dist(key32(load<std::uint32_t>(a)), key32(load<std::uint32_t>(b))); break;
        case ElementType::F64: d = dist(key64(load<std::uint64_t>(a)), key64(load<std::uint64_t>(b))); break;
        default: d = dist(key16(load<std::uint16_t>(a)), key16(load<std::uint16_t>(b))); break;
    }
    return d > 9.0e18L ? std::numeric_limits<long long>::max() : static_cast<long long>(d);
}

double float_value(ElementType type, const unsigned char* p) {
    switch (type) {
        case ElementType::F32: return load<float>(p);
        case ElementType::F64: return load<double>(p);
        case ElementType::F16: return half_to_float(load<std::uint16_t>(p));
        case ElementType::BF16: return bf16_to_float(load<std::uint16_t>(p));
        default: return 0;
    }
}

long double integer_value(ElementType type, const unsigned char* p) {
    switch (type) {
        case ElementType::I8: return load<std::int8_t>(p);
        case ElementType::U8: return load<std::uint8_t>(p);
        case ElementType::I16: return load<std::int16_t>(p);
        case ElementType::U16: return load<std::uint16_t>(p);
        case ElementType::I32: return load<std::int32_t>(p);
        case ElementType::U32: return load<std::uint32_t>(p);
        case ElementType::I64: return static_cast<long double>(load<std::int64_t>(p));
        case ElementType::U64: return static_cast<long double>(load<std::uint64_t>(p));
        default: return *p;
    }
}

bool within(const Tolerance& t, ElementType type, double e, double a, const unsigned char* ep, const unsigned char* ap) {
    if (e == a) return true;  // +0 == -0; NaN never passes here
    if (t.exact() || !std::isfinite(e) || !std::isfinite(a)) return false;
    const double diff = std::fabs(e - a);
    if (t.abs > 0 && diff <= t.abs) return true;
    if (t.rel > 0 && diff <= t.rel * std::max(std::fabs(e), std::fabs(a))) return true;
    if (t.ulp > 0 && ulp_distance(type, ep, ap) <= t.ulp) return true;
    return false;
}

// Adds `c`'s counts and worst error to `into`, a BufferComparison (parts of one buffer) or an
// ErrorSummary (a run's buffers).
template <typename Into>
void add_counts(Into& into, const BufferComparison& c) {
    into.elements += c.elements;
    into.mismatches += c.mismatches;
    into.unwritten += c.unwritten;
    into.non_finite += c.non_finite;
    into.worst_error = std::max(into.worst_error, c.worst_error);
}

void record_mismatch(BufferComparison& c, std::size_t index, double penalty) {
    ++c.mismatches;
    c.penalty += penalty;
    if (c.first_mismatch < 0) c.first_mismatch = static_cast<std::int64_t>(index);
}

// One float element's verdict, whichever walk read it: `same_bytes` whether its bytes equal the
// expected ones, `left_poison` whether it still holds the poison pattern, `within_tolerance`
// (called only when needed) whether the values are within the tolerance.
template <typename Within>
void judge_float(BufferComparison& c, std::size_t i, double ev, double av, bool same_bytes, bool left_poison,
                 const Within& within_tolerance) {
    if (same_bytes && !std::isnan(ev)) return;
    if (left_poison && !same_bytes) {
        ++c.unwritten;
        record_mismatch(c, i, kUnwrittenPenalty);
        return;
    }
    if (within_tolerance()) {
        if (std::isfinite(ev) && std::isfinite(av)) c.worst_error = std::max(c.worst_error, std::fabs(ev - av));
        return;
    }
    if (!std::isfinite(av) || !std::isfinite(ev)) {
        if (std::isfinite(ev)) ++c.non_finite;
        record_mismatch(c, i, kNonFinitePenalty);
        return;
    }
    const double diff = std::fabs(ev - av);
    c.worst_error = std::max(c.worst_error, diff);
    record_mismatch(c, i, std::min(kMaxPenalty, diff));
}

// compare_buffer's element walk for F32 and F64 outputs, the common types, with the type known at
// compile time: the same verdicts in the same order as the generic walk below (so the same counts
// and the same penalty sum, bit for bit; CompareBuffer.TypedWalkEqualsTheGenericOne*), without its
// per-element type switches and memcmp calls. A 16M-element output that differs everywhere took
// about 150 ms the generic way on one core, 58 ms this way.
template <typename Float, typename Bits>
void compare_float_elements(BufferComparison& c, ElementType type, const unsigned char* expected, const unsigned char* actual,
                            std::size_t whole, const Tolerance& tolerance, bool poisoned, const Bits poison_bits) {
    static_assert(sizeof(Float) == sizeof(Bits));
    const bool exact = tolerance.exact();
    for (std::size_t i = 0; i < whole; ++i) {
        const unsigned char* e = expected + i * sizeof(Float);
        const unsigned char* a = actual + i * sizeof(Float);
        ++c.elements;
        const Bits eb = load<Bits>(e), ab = load<Bits>(a);
        const double ev = load<Float>(e), av = load<Float>(a);
        // within() is only ev == av for an exact tolerance.
        judge_float(c, i, ev, av, eb == ab, poisoned && ab == poison_bits,
                    [&] { return exact ? ev == av : within(tolerance, type, ev, av, e, a); });
    }
}

// Identical outputs: only a NaN (which never equals) is a mismatch.
template <typename Float>
void count_nans(BufferComparison& c, const unsigned char* expected, std::size_t whole) {
    for (std::size_t i = 0; i < whole; ++i)
        if (std::isnan(load<Float>(expected + i * sizeof(Float)))) record_mismatch(c, i, kNonFinitePenalty);
}

// The words of a detail that detail_says_unwritten() looks for.
constexpr const char* kLeftUnwritten = " left unwritten";

}  // namespace

bool detail_says_unwritten(const std::string& detail) {
    for (std::size_t at = detail.find(kLeftUnwritten); at != std::string::npos; at = detail.find(kLeftUnwritten, at + 1))
        if (at > 0 && detail[at - 1] >= '0' && detail[at - 1] <= '9') return true;
    return false;
}

Bytes poison_element(ElementType type, Poison which) {
    if (which == Poison::Second) switch (type) {
            case ElementType::F32: return {0xda, 0xda, 0xda, 0x7f};  // NaN, payload 0x5adada
            case ElementType::F64: return {0xda, 0xda, 0xda, 0xda, 0xda, 0xda, 0xfa, 0x7f};
            case ElementType::F16: return {0xda, 0x7e};
            case ElementType::BF16: return {0xda, 0x7f};
            default: return Bytes(element_size(type), 0xda);
        }
    switch (type) {
        case ElementType::F32: return {0xa5, 0xa5, 0xa5, 0x7f};  // NaN, payload 0x25a5a5
        case ElementType::F64: return {0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xf5, 0x7f};
        case ElementType::F16: return {0xa5, 0x7e};
        case ElementType::BF16: return {0xa5, 0x7f};
        default: return Bytes(element_size(type), 0xa5);
    }
}

void fill_poison(unsigned char* data, std::size_t bytes, ElementType type, Poison which) {
    const Bytes pattern = poison_element(type, which);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = pattern[i % pattern.size()];
}

BufferComparison compare_buffer(ElementType type, const unsigned char* expected, const unsigned char* actual,
                                std::size_t bytes, const Tolerance& tolerance, bool poisoned) {
    return compare_buffer(type, expected, actual, bytes, tolerance, poisoned, ElementWalk::Typed);
}

BufferComparison compare_buffer(ElementType type, const unsigned char* expected, const unsigned char* actual,
                                std::size_t bytes, const Tolerance& tolerance, bool poisoned, ElementWalk walk) {
    BufferComparison c;
    const std::size_t size = element_size(type);
    const std::size_t whole = bytes / size;
    const Bytes poison = poison_element(type);
    const bool floats = is_float(type);
    // The common case, identical bytes, needs one memcmp (and for floats a scan for NaN, which
    // never equals) instead of the per-element walk.
    if (std::memcmp(expected, actual, bytes) == 0) {
        c.elements = whole + (bytes - whole * size);
        if (walk == ElementWalk::Typed && type == ElementType::F32) count_nans<float>(c, expected, whole);
        else if (walk == ElementWalk::Typed && type == ElementType::F64) count_nans<double>(c, expected, whole);
        else if (floats)
            for (std::size_t i = 0; i < whole; ++i)
                if (std::isnan(float_value(type, expected + i * size))) record_mismatch(c, i, kNonFinitePenalty);
        return c;
    }
    if (walk == ElementWalk::Typed && type == ElementType::F32)
        compare_float_elements<float, std::uint32_t>(c, type, expected, actual, whole, tolerance, poisoned,
                                                     load<std::uint32_t>(poison.data()));
    else if (walk == ElementWalk::Typed && type == ElementType::F64)
        compare_float_elements<double, std::uint64_t>(c, type, expected, actual, whole, tolerance, poisoned,
                                                      load<std::uint64_t>(poison.data()));
    else
    for (std::size_t i = 0; i < whole; ++i) {
        const unsigned char* e = expected + i * size;
        const unsigned char* a = actual + i * size;
        ++c.elements;
        const bool same_bytes = std::memcmp(e, a, size) == 0;
        if (floats) {
            const double ev = float_value(type, e), av = float_value(type, a);
            judge_float(c, i, ev, av, same_bytes, poisoned && std::memcmp(a, poison.data(), size) == 0,
                        [&] { return within(tolerance, type, ev, av, e, a); });
        } else {
            if (same_bytes) continue;
            if (poisoned && std::memcmp(a, poison.data(), size) == 0) {
                ++c.unwritten;
                record_mismatch(c, i, kUnwrittenPenalty);
                continue;
            }
            if (type == ElementType::Bytes) {
                c.worst_error = std::max(c.worst_error, std::fabs(static_cast<double>(*e) - *a));
                record_mismatch(c, i, 1);
                continue;
            }
            const long double diff = std::fabs(integer_value(type, e) - integer_value(type, a));
            c.worst_error = std::max(c.worst_error, static_cast<double>(diff));
            record_mismatch(c, i, std::min<double>(kMaxPenalty, static_cast<double>(diff)));
        }
    }
    for (std::size_t i = whole * size; i < bytes; ++i) {
        ++c.elements;
        if (expected[i] != actual[i]) record_mismatch(c, whole + (i - whole * size), 1);
    }
    return c;
}

BufferComparison compare_buffer_parallel(ElementType type, const unsigned char* expected, const unsigned char* actual,
                                         std::size_t bytes, const Tolerance& tolerance, bool poisoned, unsigned threads) {
    const std::size_t size = element_size(type);
    const std::size_t whole = bytes / size;
    const std::size_t parts = std::min<std::size_t>(threads, whole / kParallelCompareElements);
    if (parts <= 1) return compare_buffer(type, expected, actual, bytes, tolerance, poisoned);
    // Parts of whole elements; the last one takes the rest, a partial last element included.
    const std::size_t per_part = whole / parts;
    std::vector<BufferComparison> results(parts);
    std::vector<std::thread> walkers;
    walkers.reserve(parts);
    for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t first = p * per_part * size;
        const std::size_t length = p + 1 == parts ? bytes - first : per_part * size;
        walkers.emplace_back([&, p, first, length] {
            results[p] = compare_buffer(type, expected + first, actual + first, length, tolerance, poisoned);
        });
    }
    for (std::thread& walker : walkers) walker.join();
    BufferComparison c;
    for (std::size_t p = 0; p < parts; ++p) {
        const BufferComparison& r = results[p];
        add_counts(c, r);
        c.penalty += r.penalty;
        if (c.first_mismatch < 0 && r.first_mismatch >= 0)
            c.first_mismatch = static_cast<std::int64_t>(p * per_part) + r.first_mismatch;
    }
    return c;
}

ErrorSummary summarise_comparisons(const std::vector<BufferComparison>& buffers, const std::vector<std::string>& labels) {
    ErrorSummary s;
    double penalty = 0;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        const BufferComparison& c = buffers[i];
        add_counts(s, c);
        penalty += c.penalty;
        if (c.mismatches == 0) continue;
        const std::string label = i < labels.size() ? labels[i] : "buffer " + std::to_string(i);
        if (!s.detail.empty()) s.detail += "; ";
        s.detail += label + ": " + std::to_string(c.mismatches) + " of " + std::to_string(c.elements) +
                    " elements differ, first at " + std::to_string(c.first_mismatch);
        if (c.unwritten) s.detail += ", " + std::to_string(c.unwritten) + kLeftUnwritten;
        if (c.non_finite) s.detail += ", " + std::to_string(c.non_finite) + " NaN/Inf where the original is finite";
        if (c.worst_error > 0) s.detail += ", worst |diff| " + significant(c.worst_error, 6);
    }
    s.error = s.elements ? penalty / static_cast<double>(s.elements) : 0;
    s.hard_failure = s.unwritten > 0 || s.non_finite > 0;
    return s;
}

}  // namespace gi
