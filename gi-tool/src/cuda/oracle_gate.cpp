#include "cuda/oracle_gate.hpp"

#include <algorithm>

#include "compare/write_set.hpp"
#include "cuda/cuda_evaluator_options.hpp"
#include "util/elapsed.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

// Why a case might not reproduce its recording, for the gate's errors.
std::string likely_causes() {
    return "Likely causes: state the kernel reads that the case does not hold (module variables recorded "
           "without `gi-tool record`, pointers the recorder could not follow), a kernel whose outputs change "
           "from run to run (atomics on floats, races: declare it with --nondeterministic / NONDETERMINISTIC "
           "and a TOLERANCE), or a kernel compiled here with other macros or options than in the program "
           "(pass them with -D / --compile-option)";
}

// What a case's write sets (slot.poisonable, learnt by its first replay) say, for the notes.
struct CaseWrites {
    bool changed = false;     // the recorded launch changed a buffer
    bool poisoned = false;    // some element is poisoned before a variant runs
    std::string what;         // " (buffer 0: 4096 of 4096 elements poisoned, ...)"
    std::string unverified;   // the buffers whose poisoning was given up, described
};

CaseWrites case_writes(const CaseSlot& slot) {
    CaseWrites w;
    const std::vector<CaseBuffer>& buffers = slot.manifest.buffers;
    w.changed = std::any_of(buffers.begin(), buffers.end(), [](const CaseBuffer& b) { return b.changed; });
    std::vector<WriteSet> sets;
    try {
        sets = write_sets_from_text(slot.poisonable, buffers);
    } catch (const Error&) {
        sets.assign(buffers.size(), WriteSet{});  // the worker checked them; an unreadable text poisons nothing
    }
    std::vector<std::string> parts, given_up;
    for (std::size_t b = 0; b < buffers.size(); ++b) {
        if (buffers[b].read_only) continue;
        w.poisoned = w.poisoned || !sets[b].poisoned.empty();
        const std::string described = "buffer " + std::to_string(b) + ": " + describe(sets[b], buffers[b].element);
        parts.push_back(described);
        if (sets[b].unverified) given_up.push_back(described);
    }
    if (!parts.empty()) w.what = " (" + join(parts, ", ") + ")";
    if (!given_up.empty()) w.unverified = " (" + join(given_up, ", ") + ")";
    return w;
}

// Case names grouped by what is said of them, so sixteen cases of one program read as one group:
// "case-0001, case-0002 (buffer 0: 4096 of 4096 elements poisoned)".
struct CaseGroups {
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // what, names; in order of first use
    int cases = 0;
    void add(const std::string& name, const std::string& what) {
        ++cases;
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == what; });
        if (it == groups.end()) groups.push_back({what, {name}});
        else it->second.push_back(name);
    }
    std::string text() const {
        std::vector<std::string> parts;
        for (const auto& [what, names] : groups) parts.push_back(join(names, ", ") + what);
        return join(parts, "; ");
    }
};

}  // namespace

void check_module_variables(const std::vector<ModuleVariable>& variables, const std::vector<CaseSlot>& slots,
                            std::ostream& notes) {
    std::string private_names;
    for (const ModuleVariable& v : variables) {
        if (file_private_name(v.name)) {
            private_names += (private_names.empty() ? "" : ", ") + v.name;
            continue;
        }
        for (const CaseSlot& slot : slots) {
            const bool held = std::any_of(slot.manifest.buffers.begin(), slot.manifest.buffers.end(),
                                          [&](const CaseBuffer& b) { return b.variable == v.name; });
            if (!held)
                throw Error(slot.path.string() + ": this case does not hold the " +
                            std::string(v.constant ? "__constant__" : "__device__") + " variable '" + v.name +
                            "' that the kernel's file defines, so replay would run with its initial value, not "
                            "the one the program set (cudaMemcpyToSymbol). Record the cases with `gi-tool record " +
                            "KERNEL.cu --function NAME --out DIR -- PROGRAM ARGS`, which captures every module "
                            "variable (docs/cmake.md, 'What is captured')");
        }
    }
    if (!private_names.empty())
        notes << "gi-tool: note: the kernel's file has variables private to it (static inside a namespace, or "
                 "in an anonymous namespace: " << private_names << "); their compiled names depend on the path "
                 "the file was compiled from, so they cannot be captured. Replay uses their initial values; "
                 "if the program changes them, the oracle check below fails\n";
}

void run_oracle_gate(const std::vector<CaseSlot>& slots, OracleReplays& replays, bool nondeterministic, std::ostream& notes) {
    const int reruns = oracle_replays(nondeterministic);
    // Cases whose launch changed nothing, with their outputs poisoned or not (blind), and cases
    // where poisoning was given up: named, with what their write sets say.
    CaseGroups unchanged, blind, unverified;
    std::vector<std::string> changed_nothing;
    double spread = 0;
    int held_out = 0;
    // Where the gate's time goes, on its line: with hundreds of MB of cases it is a search's cold
    // start (issue 44: aniso_diffusion's 18 cases of 43 MB took 19 s of a 30 s search, H200).
    double first_ms = 0, rerun_ms = 0, passed_ms = 0;
    for (int index = 0; index < static_cast<int>(slots.size()); ++index) {
        const CaseSlot& slot = slots[index];
        held_out += slot.held_out;
        auto start = std::chrono::steady_clock::now();
        replays.first_replay(index);
        first_ms += ms_since(start);
        start = std::chrono::steady_clock::now();
        if (slot.oracle_mismatches > 0)
            throw Error(slot.path.string() + ": the original kernel, replayed on this GPU, does not reproduce the "
                        "outputs recorded from the program: " + slot.oracle_detail + " (" +
                        std::to_string(slot.oracle_mismatches) + " of " + std::to_string(slot.oracle_elements) +
                        " elements beyond the tolerance). Nothing can be checked against such a case. " + likely_causes());
        for (int r = 0; r < reruns; ++r) {
            const RunVerdict v = replays.rerun(index);
            if (v.result.status != EvalStatus::Ok)
                throw Error(slot.path.string() + ": the original kernel, replayed a second time, " +
                            std::string(to_string(v.result.status)) + ": " + v.result.detail);
            spread = std::max(spread, v.worst_error);
            const bool moved = v.mismatches > 0 || v.worst_error > 0 || v.result.error > 0;
            if (!nondeterministic && moved)
                throw Error(slot.path.string() + ": the original kernel's outputs change from one run to the next "
                            "on the same inputs (" + (v.result.detail.empty() ? "largest change " + significant(v.worst_error, 6)
                                                                               : v.result.detail) +
                            "). If that is expected (atomics on floats, races you accept), declare the kernel "
                            "nondeterministic (--nondeterministic, CMake NONDETERMINISTIC) with a TOLERANCE that covers "
                            "the spread; otherwise the kernel has a race");
            if (nondeterministic && v.mismatches > 0)
                throw Error(slot.path.string() + ": the original kernel (declared nondeterministic) varies beyond the "
                            "tolerance between runs on the same inputs: " + v.result.detail + ". Widen TOLERANCE "
                            "(--tolerance) to cover its spread, or variants would be judged against noise");
        }
        rerun_ms += ms_since(start);
        start = std::chrono::steady_clock::now();
        replays.case_passed(index);
        passed_ms += ms_since(start);
        const CaseWrites writes = case_writes(slot);
        const std::string name = slot.path.filename().string();
        if (!writes.changed) (writes.poisoned ? unchanged : blind).add(name, writes.what);
        if (!writes.unverified.empty()) unverified.add(name, writes.unverified);
        if (!writes.changed) changed_nothing.push_back(name);
    }
    if (blind.cases == static_cast<int>(slots.size()))
        throw Error("in every recorded case the launch changed nothing (each output buffer and variable already "
                    "held what the original wrote) and no output element could be poisoned (" + blind.text() +
                    "), so a variant that does nothing would look right. Record launches whose outputs start out "
                    "different from the results (a fresh or cleared output buffer)");
    if (!changed_nothing.empty())
        notes << "gi-tool: note: the launch changed nothing in " << changed_nothing.size() << " of " << slots.size() << " cases ("
              << join(changed_nothing, ", ") << "): the outputs already held the results, as "
              << "in a timing loop's repeated launch"
              << (unchanged.cases == 0 ? "" : "; the elements the original writes are poisoned before a variant runs, so one "
                                              "that skips writing them is wrong there too: " + unchanged.text())
              << (blind.cases == 0 ? "" : "; nothing could be poisoned in " + blind.text() +
                                              ", where a variant that does nothing passes (the other cases still judge it)")
              << "\n";
    if (unverified.cases > 0)
        notes << "gi-tool: note: the original did not reproduce its outputs with every buffer's written elements "
                 "poisoned at once, so those buffers are not poisoned (a variant that skips writing them is caught only "
                 "where the launch changed them): " << unverified.text() << "\n";
    notes << "gi-tool: the original kernel reproduces its recorded outputs on all " << slots.size() << " cases (" << held_out
          << " kept for validation), in " << fixed((first_ms + rerun_ms + passed_ms) / 1000, 1)
          << " s (first replays, with loading the case and finding what the kernel writes, "
          << fixed(first_ms / 1000, 1) << " s"
          << replays.first_replay_parts()
          << "; replays again " << fixed(rerun_ms / 1000, 1)
          << " s; the fast-compiled guarded build's check " << fixed(passed_ms / 1000, 1) << " s)";
    if (nondeterministic)
        notes << "; declared nondeterministic: over " << kNondeterministicReplays << " replays per case its outputs moved by up to "
              << significant(spread, 6) << ", within the tolerance";
    notes << "\n";
}

}  // namespace gi
