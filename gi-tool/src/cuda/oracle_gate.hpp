#pragma once
// The oracle gate: before any variant is compared with the original's outputs on a GPU, the
// original itself must reproduce what the program recorded, twice alike (or, declared
// nondeterministic, within the tolerance), and some case must tell a variant that does nothing
// apart: its launch changed something, or it poisons an element the original writes
// (compare/write_set.hpp). Otherwise every verdict would be judged against a wrong or moving oracle. The decisions are pure; the
// replays come through OracleReplays (the cuda evaluator's worker, or a test's fake).
#include <ostream>
#include <string>
#include <vector>

#include "compile/module_variables.hpp"
#include "cuda/case_set.hpp"
#include "cuda/cuda_classify.hpp"

namespace gi {

class OracleReplays {
public:
    virtual ~OracleReplays() = default;
    // Readies case `index` with the original replayed on it once: its comparison with the recorded
    // outputs is then in the case's oracle_* fields.
    virtual void first_replay(int index) = 0;
    // The original once more on the case, as variants are run (written elements poisoned, compared with the
    // first replay's): how far its outputs move from one run to the next.
    virtual RunVerdict rerun(int index) = 0;
    // Called after each case passed (the evaluator checks its fast-compiled guarded build there).
    virtual void case_passed(int index) = 0;
    // Where the first replays' time went, where the replays know it: ", of which ..." or "".
    virtual std::string first_replay_parts() const { return ""; }
};

// Every capturable module variable of the kernel's file must be in every case: a case recorded
// without it replays with the module's initial bytes (zeros for weights a program sets with
// cudaMemcpyToSymbol), and a variant that ignores its inputs matches that oracle. Throws gi::Error
// naming the case and variable; file-private variables (uncapturable) get a note on `notes`.
void check_module_variables(const std::vector<ModuleVariable>& variables, const std::vector<CaseSlot>& slots,
                            std::ostream& notes);

// Replays the original on every case (`reruns` extra times each: 1, or kNondeterministicReplays
// when declared nondeterministic) and throws gi::Error naming the case and counts when it does not
// reproduce, moves between runs beyond what is allowed, or no case's launch changed anything and
// no case poisons an output element. Notes (unchanged cases with what is poisoned there, buffers
// whose poisoning was given up, the spread measured, the summary line) go to `notes`.
void run_oracle_gate(const std::vector<CaseSlot>& slots, OracleReplays& replays, bool nondeterministic, std::ostream& notes);

}  // namespace gi
