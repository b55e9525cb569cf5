#pragma once
// Which elements of an output buffer the original kernel writes, learnt per case by running it
// three times: from the recorded contents (the reference R), and with the buffer filled with each
// poison pattern (outputs O1, O2; every other buffer as recorded). Per element:
// - O1 == O2 == R: written whatever the element held. Poisoned before a variant runs, so a variant
//   that skips writing it is caught on every case, even one recorded when the buffer already held
//   the answer (a timing loop's repeated launch).
// - O1 == poison 1 and O2 == poison 2: never written. Left as recorded, and a variant that writes
//   it is caught by the comparison (the reference holds the recorded value there).
// - anything else: read-modify-write (`C += ...`): needs its recorded pre-launch contents, and a
//   timed repetition restores them before each launch.
// A buffer whose poisoning changed another buffer's outputs is read as an input (a buffer reached
// through a struct is writable for all the recorder knows): nothing of it is poisoned.
//
// Write sets travel as text between the worker and the evaluator, and in the reference file handed
// to later workers: one token per buffer, comma separated (write_sets_text). The old format's
// tokens keep their meaning: "1" the whole buffer poisoned, "0" nothing known (nothing poisoned; a
// buffer the recorded launch changed is restored before each timed launch).
#include <cstdint>
#include <string>
#include <vector>

#include "testcase/element_type.hpp"
#include "testcase/test_case.hpp"

namespace gi {

// Bytes [begin, end) of a buffer, on element boundaries (end may be the buffer's size, after a
// partial last element).
struct ByteRange {
    std::uint64_t begin = 0, end = 0;
    friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

struct WriteSet {
    bool known = false;             // probed (or the old format's "1"); false: nothing known
    std::vector<ByteRange> poisoned;  // sorted, disjoint: the elements poisoned for variants
    // Elements (a partial last element counts as one) by what the probes found. `written` may be
    // more than `poisoned` holds: an input's, or beyond kMaxPoisonedRanges.
    std::uint64_t written = 0, read_modify_write = 0, untouched = 0;
    bool input = false;       // poisoning it changed another buffer's outputs: nothing poisoned
    bool unverified = false;  // the original from every buffer's poisoned image did not reproduce
                              // the reference: nothing poisoned
    friend bool operator==(const WriteSet&, const WriteSet&) = default;
};

// A buffer written in more pieces than this keeps the largest ones poisoned (an element written but
// not poisoned still holds its recorded value, which the original overwrites anyway), so a write
// set's text stays far below the worker protocol's header limit.
inline constexpr std::size_t kMaxPoisonedRanges = 1024;

// The write set of one buffer of `bytes` bytes of `type` from the original's outputs there: from
// the recorded contents (`reference`), and from the buffer filled with Poison::First (`from_first`)
// and Poison::Second (`from_second`). `others_changed`: those two runs changed another buffer's
// outputs (other_outputs_differ).
WriteSet learn_write_set(ElementType type, std::size_t bytes, const unsigned char* reference,
                         const unsigned char* from_first, const unsigned char* from_second, bool others_changed);

// Whether `probed` (one run's outputs, per buffer; empty for read-only ones) differs from
// `reference` in any buffer but `buffer`.
bool other_outputs_differ(const std::vector<Bytes>& reference, const std::vector<Bytes>& probed, std::size_t buffer);

std::uint64_t poisoned_bytes(const WriteSet& set);

// Whether the buffer must get its pre-launch contents back before every launch of a timed
// repetition (then a repetition is one launch): it has read-modify-write elements, or is read as
// an input and written too. Without a write set, whether the recorded launch changed it.
bool restores_each_launch(const WriteSet& set, bool changed);

// Fills the poisoned ranges of `image` (a copy of the buffer's recorded contents) with Poison::First.
void apply_poison(unsigned char* image, const WriteSet& set, ElementType type);

// One buffer's token: "w<written>r<read-modify-write>u<untouched>", then "i" when an input, "f"
// when unverified, then ":<begin>-<end>+..." for the poisoned ranges when there are any. An
// unknown write set is "0", the old format's "nothing known".
std::string write_set_token(const WriteSet& set);
// Reads a token for `buffer` (its size and element type); "1" and "0" as the old format meant
// them. Throws gi::Error saying what is wrong (ranges outside the buffer, off element boundaries,
// out of order, poison in a read-only buffer).
WriteSet write_set_from_token(const std::string& token, const CaseBuffer& buffer);

std::string write_sets_text(const std::vector<WriteSet>& sets);
// One write set per buffer of `buffers` (missing tokens: unknown); throws gi::Error naming the
// buffer whose token is malformed, or when there are more tokens than buffers.
std::vector<WriteSet> write_sets_from_text(const std::string& text, const std::vector<CaseBuffer>& buffers);

// After the original ran from every buffer's poisoned image: `outputs_differ` per buffer, whether
// its outputs differed from the reference. Gives up poisoning (unverified) where that may be the
// cause: the first time, the poisoned buffers whose own outputs differ (or, when none of them do,
// every poisoned buffer); on the `last_try`, every poisoned buffer. Returns whether any buffer is
// still poisoned, so is to be verified again.
bool give_up_unverified(std::vector<WriteSet>& sets, const std::vector<bool>& outputs_differ, bool last_try);

// For notes: "2048 of 4096 elements poisoned, 2048 never written", "none of 4096 elements
// poisoned, 4096 read-modify-write", and why nothing is poisoned where that is so.
std::string describe(const WriteSet& set, ElementType type);

}  // namespace gi
