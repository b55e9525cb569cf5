#include "compare/write_set.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "compare/compare.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

enum class Kind { Written, Untouched, ReadModifyWrite };

// Appends [begin, end) to `ranges`, joining it to the last range when they touch.
void add_range(std::vector<ByteRange>& ranges, std::uint64_t begin, std::uint64_t end) {
    if (!ranges.empty() && ranges.back().end == begin) ranges.back().end = end;
    else ranges.push_back({begin, end});
}

// Keeps the kMaxPoisonedRanges largest ranges (the earliest of equal ones), in buffer order.
void keep_largest(std::vector<ByteRange>& ranges) {
    if (ranges.size() <= kMaxPoisonedRanges) return;
    std::vector<std::size_t> order(ranges.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return ranges[a].end - ranges[a].begin > ranges[b].end - ranges[b].begin;
    });
    order.resize(kMaxPoisonedRanges);
    std::sort(order.begin(), order.end());
    std::vector<ByteRange> kept;
    kept.reserve(order.size());
    for (std::size_t i : order) kept.push_back(ranges[i]);
    ranges = std::move(kept);
}

std::uint64_t units_of(const CaseBuffer& buffer) {
    const std::uint64_t size = element_size(buffer.element);
    return buffer.size / size + (buffer.size % size ? 1 : 0);
}

// A decimal number at `at` of `token`, moving `at` past it; throws naming `what`.
std::uint64_t read_number(const std::string& token, std::size_t& at, const std::string& what) {
    if (at >= token.size() || token[at] < '0' || token[at] > '9') throw Error(what + ": a number was expected at character " + std::to_string(at + 1));
    errno = 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(token.c_str() + at, &end, 10);
    if (errno == ERANGE) throw Error(what + ": a number is out of range");
    at = static_cast<std::size_t>(end - token.c_str());
    return value;
}

}  // namespace

WriteSet learn_write_set(ElementType type, std::size_t bytes, const unsigned char* reference,
                         const unsigned char* from_first, const unsigned char* from_second, bool others_changed) {
    WriteSet set;
    set.known = true;
    set.input = others_changed;
    const std::size_t size = element_size(type);
    const Bytes first = poison_element(type, Poison::First), second = poison_element(type, Poison::Second);
    auto kind_of = [&](std::size_t at, std::size_t n) {
        const bool same_first = std::memcmp(from_first + at, reference + at, n) == 0;
        const bool same_second = std::memcmp(from_second + at, reference + at, n) == 0;
        if (same_first && same_second) return Kind::Written;
        if (std::memcmp(from_first + at, first.data(), n) == 0 && std::memcmp(from_second + at, second.data(), n) == 0)
            return Kind::Untouched;
        return Kind::ReadModifyWrite;
    };
    // Blocks of whole elements written entirely are the common case: one memcmp pair a block.
    const std::size_t block = size * 1024;
    std::size_t at = 0;
    while (at < bytes) {
        const std::size_t n = std::min(block, bytes - at);
        if (std::memcmp(from_first + at, reference + at, n) == 0 && std::memcmp(from_second + at, reference + at, n) == 0) {
            set.written += n / size + (n % size ? 1 : 0);
            add_range(set.poisoned, at, at + n);
            at += n;
            continue;
        }
        for (const std::size_t stop = at + n; at < stop;) {
            const std::size_t unit = std::min(size, stop - at);
            switch (kind_of(at, unit)) {
                case Kind::Written:
                    ++set.written;
                    add_range(set.poisoned, at, at + unit);
                    break;
                case Kind::Untouched: ++set.untouched; break;
                case Kind::ReadModifyWrite: ++set.read_modify_write; break;
            }
            at += unit;
        }
    }
    if (others_changed) set.poisoned.clear();
    keep_largest(set.poisoned);
    return set;
}

bool other_outputs_differ(const std::vector<Bytes>& reference, const std::vector<Bytes>& probed, std::size_t buffer) {
    for (std::size_t b = 0; b < reference.size() && b < probed.size(); ++b)
        if (b != buffer && probed[b] != reference[b]) return true;
    return false;
}

std::uint64_t poisoned_bytes(const WriteSet& set) {
    std::uint64_t total = 0;
    for (const ByteRange& r : set.poisoned) total += r.end - r.begin;
    return total;
}

bool restores_each_launch(const WriteSet& set, bool changed) {
    if (!set.known) return changed;
    if (set.read_modify_write > 0) return true;
    // Read (by itself or for another buffer) and written: a second launch would read its first's results.
    return (set.input || set.unverified) && set.written > 0;
}

void apply_poison(unsigned char* image, const WriteSet& set, ElementType type) {
    for (const ByteRange& r : set.poisoned) fill_poison(image + r.begin, r.end - r.begin, type, Poison::First);
}

std::string write_set_token(const WriteSet& set) {
    if (!set.known) return "0";
    std::string token = "w" + std::to_string(set.written) + "r" + std::to_string(set.read_modify_write) + "u" +
                        std::to_string(set.untouched);
    if (set.input) token += "i";
    if (set.unverified) token += "f";
    for (std::size_t i = 0; i < set.poisoned.size(); ++i)
        token += (i ? "+" : ":") + std::to_string(set.poisoned[i].begin) + "-" + std::to_string(set.poisoned[i].end);
    return token;
}

WriteSet write_set_from_token(const std::string& token, const CaseBuffer& buffer) {
    WriteSet set;
    if (token == "0") return set;
    const std::string what = "write set '" + excerpt(token, 60) + "'";
    if (token == "1") {
        // The old format: the whole buffer is overwritten.
        if (buffer.read_only) throw Error(what + ": a read-only buffer cannot be poisoned");
        set.known = true;
        set.written = units_of(buffer);
        if (buffer.size > 0) set.poisoned.push_back({0, buffer.size});
        return set;
    }
    if (token.empty() || token[0] != 'w') throw Error(what + ": expected 0, 1 or w<written>r<read-modify-write>u<untouched>");
    set.known = true;
    std::size_t at = 1;
    set.written = read_number(token, at, what);
    if (at >= token.size() || token[at++] != 'r') throw Error(what + ": 'r' was expected after the written count");
    set.read_modify_write = read_number(token, at, what);
    if (at >= token.size() || token[at++] != 'u') throw Error(what + ": 'u' was expected after the read-modify-write count");
    set.untouched = read_number(token, at, what);
    for (; at < token.size() && token[at] != ':'; ++at) {
        if (token[at] == 'i') set.input = true;
        else if (token[at] == 'f') set.unverified = true;
        else throw Error(what + ": unknown flag '" + excerpt(std::string(1, token[at])) + "'");
    }
    const std::uint64_t size = element_size(buffer.element);
    const std::uint64_t units = units_of(buffer);
    // Each count within the buffer first, so their sum cannot wrap around.
    if (set.written > units || set.read_modify_write > units || set.untouched > units ||
        set.written + set.read_modify_write + set.untouched > units)
        throw Error(what + ": it counts more elements than the buffer's " + std::to_string(units));
    if (at < token.size()) {
        if (buffer.read_only) throw Error(what + ": a read-only buffer cannot be poisoned");
        ++at;  // ':'
        for (;;) {
            ByteRange r;
            r.begin = read_number(token, at, what);
            if (at >= token.size() || token[at++] != '-') throw Error(what + ": a range needs BEGIN-END");
            r.end = read_number(token, at, what);
            if (r.end <= r.begin || r.end > buffer.size || r.begin % size != 0 || (r.end % size != 0 && r.end != buffer.size))
                throw Error(what + ": the range " + std::to_string(r.begin) + "-" + std::to_string(r.end) +
                            " is empty, outside the buffer's " + std::to_string(buffer.size) + " bytes or off its " +
                            std::to_string(size) + "-byte elements");
            if (!set.poisoned.empty() && r.begin < set.poisoned.back().end)
                throw Error(what + ": ranges overlap or are out of order at " + std::to_string(r.begin));
            if (set.poisoned.size() == kMaxPoisonedRanges)
                throw Error(what + ": more than " + std::to_string(kMaxPoisonedRanges) + " ranges");
            set.poisoned.push_back(r);
            if (at == token.size()) break;
            if (token[at++] != '+') throw Error(what + ": ranges are separated by '+'");
        }
    }
    if (poisoned_bytes(set) > set.written * size)  // written <= units: no overflow
        throw Error(what + ": it poisons more bytes than its " + std::to_string(set.written) + " written elements hold");
    return set;
}

std::string write_sets_text(const std::vector<WriteSet>& sets) {
    std::string text;
    for (std::size_t b = 0; b < sets.size(); ++b) text += (b ? "," : "") + write_set_token(sets[b]);
    return text;
}

std::vector<WriteSet> write_sets_from_text(const std::string& text, const std::vector<CaseBuffer>& buffers) {
    std::vector<WriteSet> sets(buffers.size());
    if (text.empty()) return sets;
    std::size_t b = 0, at = 0;
    for (;; ++b) {
        const std::size_t comma = text.find(',', at);
        const std::string token = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (b >= buffers.size())
            throw Error("the write sets name " + std::to_string(b + 1) + " or more buffers, but the case has " +
                        std::to_string(buffers.size()));
        try {
            sets[b] = write_set_from_token(token, buffers[b]);
        } catch (const Error& e) {
            throw Error("buffer " + std::to_string(b) + ": " + e.what());
        }
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return sets;
}

bool give_up_unverified(std::vector<WriteSet>& sets, const std::vector<bool>& outputs_differ, bool last_try) {
    bool own = false;
    for (std::size_t b = 0; b < sets.size(); ++b) own = own || (!sets[b].poisoned.empty() && b < outputs_differ.size() && outputs_differ[b]);
    bool still = false;
    for (std::size_t b = 0; b < sets.size(); ++b) {
        WriteSet& set = sets[b];
        if (set.poisoned.empty()) continue;
        if (last_try || !own || (b < outputs_differ.size() && outputs_differ[b])) {
            set.poisoned.clear();
            set.unverified = true;
        } else {
            still = true;
        }
    }
    return still;
}

std::string describe(const WriteSet& set, ElementType type) {
    if (!set.known) return "not probed, nothing poisoned";
    const std::uint64_t total = set.written + set.read_modify_write + set.untouched;
    const std::uint64_t size = element_size(type);
    const std::uint64_t poisoned = (poisoned_bytes(set) + size - 1) / size;
    std::string text = (poisoned > 0 ? std::to_string(poisoned) : std::string("none")) + " of " + std::to_string(total) +
                       " elements poisoned";
    if (set.input) text += " (the kernel reads it: poisoning it changed other outputs)";
    else if (set.unverified) text += " (the original did not reproduce its outputs from the poisoned images)";
    else if (poisoned < set.written) text += " (" + std::to_string(set.written) + " written, in more than " +
                                             std::to_string(kMaxPoisonedRanges) + " pieces)";
    if (set.read_modify_write > 0) text += ", " + std::to_string(set.read_modify_write) + " read-modify-write";
    if (set.untouched > 0) text += ", " + std::to_string(set.untouched) + " never written";
    return text;
}

}  // namespace gi
