#pragma once
// Comparing a variant's output buffers with the original's, and the error measure search uses.
//
// Poisoning: before each run, every output element that the original overwrites whatever it held
// (its write set, compare/write_set.hpp) is filled with a poison pattern (a NaN with a payload for
// floats, 0xA5 bytes otherwise), so an element the variant forgets to write still holds poison and
// is caught, even where the right value is zero or the buffer held the answer before the launch.
//
// Error measure (seeds 000 section 8.14, per-pixel penalty): per element, 0 when within tolerance;
// 200 when left unwritten; 100 for NaN/Inf where the original's value is finite, or for any NaN
// (NaN never equals); otherwise min(100, |expected - actual|) (1 per differing byte for raw bytes).
// The error of a run is the mean penalty over every compared element, so 0 means identical within
// tolerance. Unwritten or newly non-finite outputs make the variant a WrongAnswer outright.
#include <cstdint>
#include <string>
#include <vector>

#include "compare/tolerance.hpp"
#include "testcase/element_type.hpp"
#include "testcase/test_case.hpp"

namespace gi {

inline constexpr double kUnwrittenPenalty = 200;
inline constexpr double kNonFinitePenalty = 100;
inline constexpr double kMaxPenalty = 100;

// Two poison patterns per type, whose first bytes differ (so even a partial last element tells
// them apart): First is what a variant meets in the outputs it must write; Second only probes the
// original (compare/write_set.hpp: an element that holds each pattern after a run from it was not
// written). For floats both are NaNs with a payload; for integers both are negative as signed
// values, so a count read from a poisoned element ends a loop at once.
enum class Poison { First, Second };
// One element's poison bytes (element_size(type) of them).
Bytes poison_element(ElementType type, Poison which = Poison::First);
// Fills `bytes` bytes with the type's poison pattern repeated (a partial last element too).
void fill_poison(unsigned char* data, std::size_t bytes, ElementType type, Poison which = Poison::First);

struct BufferComparison {
    std::uint64_t elements = 0;    // compared
    std::uint64_t mismatches = 0;  // beyond tolerance, NaN included
    std::uint64_t unwritten = 0;   // poison left where the original wrote something else
    std::uint64_t non_finite = 0;  // NaN/Inf where the original's value is finite
    double worst_error = 0;        // largest |expected - actual| over finite pairs
    double penalty = 0;            // sum of per-element penalties
    std::int64_t first_mismatch = -1;  // element index, -1 when none
};

// Compares `bytes` bytes as elements of `type` (a tail shorter than one element byte by byte).
// With `poisoned`, an actual element equal to the poison pattern where the expected one is not
// counts as unwritten.
BufferComparison compare_buffer(ElementType type, const unsigned char* expected, const unsigned char* actual,
                                std::size_t bytes, const Tolerance& tolerance, bool poisoned);

// How compare_buffer walks elements that differ: Typed (the default) has F32 and F64 walks of their
// own, several times faster; Generic is the one walk for every type, kept so tests can show the
// typed walks give the same results bit for bit.
enum class ElementWalk { Typed, Generic };
BufferComparison compare_buffer(ElementType type, const unsigned char* expected, const unsigned char* actual,
                                std::size_t bytes, const Tolerance& tolerance, bool poisoned, ElementWalk walk);

// compare_buffer over up to `threads` contiguous parts of a large buffer, each walked on a thread of
// its own, combined in order: the same counts, worst error and first mismatch as one walk; the
// penalty is summed part by part, so its last bits can differ from one walk's (a sum of the same
// terms in another grouping). Buffers under kParallelCompareElements elements, or threads <= 1,
// get one walk. A variant's differing 64 MB output took 42-54 ms to compare on one thread (H200).
inline constexpr std::size_t kParallelCompareElements = std::size_t{1} << 20;
BufferComparison compare_buffer_parallel(ElementType type, const unsigned char* expected, const unsigned char* actual,
                                         std::size_t bytes, const Tolerance& tolerance, bool poisoned, unsigned threads);

struct ErrorSummary {
    std::uint64_t elements = 0, mismatches = 0, unwritten = 0, non_finite = 0;
    double worst_error = 0;
    double error = 0;         // mean penalty per element
    bool hard_failure = false;  // unwritten or new non-finite outputs: WrongAnswer
    std::string detail;       // "buffer 2 (out): 12 of 4096 elements differ, first at 17, worst |diff| 3"
};

// Adds up per-buffer comparisons; `labels[i]` names buffer i in the detail text.
ErrorSummary summarise_comparisons(const std::vector<BufferComparison>& buffers, const std::vector<std::string>& labels);

// Whether a comparison's detail (summarise_comparisons: "..., 12 left unwritten") says the outputs
// were left unwritten: poison where the original writes, so the variant skipped writing them. For
// counting such refusals from run records, which keep a variant's status and detail.
bool detail_says_unwritten(const std::string& detail);

}  // namespace gi
