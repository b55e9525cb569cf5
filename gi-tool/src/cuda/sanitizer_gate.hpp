#pragma once
// The sanitizer gate's fan-out (issue 3, issue 19): variants already compiled for the gate's case,
// grouped into batches of the same checkers (cuda/sanitizer_batches.hpp), several batches at
// once. A batch goes to the long-lived sessions first (cuda/sanitizer_sessions.hpp), one
// variant a request: a request passes its variant, or its report judges it and the session ends
// (the variants after it go on in another). What no session passed or judged runs under
// compute-sanitizer in processes of its own, and a process that does not pass as a whole is
// checked again one variant per process, so every verdict that is not Ok is a single variant's
// own, from a sanitizer run that was clean before it.
// What the gate checks and why (memcheck always, racecheck and synccheck after a removed barrier)
// is the cuda evaluator's choice; this is how the checks run.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "cuda/gpu_turns.hpp"
#include "cuda/sanitizer_sessions.hpp"

namespace gi {

// One variant the gate checks: its checkers, launch shape and module, and the original's time on
// the case (for the timeout allowance).
struct SanitizeJob {
    std::size_t variant = 0;  // the caller's index for it
    std::vector<std::string> tools;
    std::string grid, block;
    std::string kernel;       // the instantiation it runs, when not the case's ("" = the case's)
    std::string cubin;
    double base_ms = 100;
};

// What every compute-sanitizer run of one gate shares.
struct SanitizeContext {
    std::string sanitizer, worker, case_path, kernel, shared_bytes;
    SanitizerSessions* sessions = nullptr;  // long-lived processes, or none
    // With sessions: how many variants a racecheck or synccheck session runs at once
    // (--sanitize-side-by-side; 1: one a request, as memcheck's always are).
    std::size_t side_by_side = 1;
    // Every request that runs kernels (a session's check, a process of its own) takes a check's
    // turn on the GPU, so none runs while evaluate() times a variant; nullptr: no turns.
    GpuTurns* turns = nullptr;
    // Variables a process of its own starts with (GI_WORKER_DEVICE: the GPU of several it checks on).
    std::vector<std::pair<std::string, std::string>> environment{};
};

// The checkers whose session requests may run several variants at once (SanitizeContext::side_by_side):
// the slow ones, whose instrumented launches of a few blocks leave the GPU nearly idle.
bool runs_side_by_side(const std::string& tool);

// The gate's counters over a run.
// Where a checker's session checks spent their time (seconds): waiting for a session's start-up,
// and in the worker loading cases, loading modules (the sanitizer instruments each as it loads),
// launching, unloading and synchronising; `other` is the rest of their wall time (the request,
// the log read, the parent).
struct SessionTimes {
    double startup = 0, cases = 0, loads = 0, launches = 0, unloads = 0, syncs = 0, other = 0;
    double opened_ahead = 0;  // opening the case ahead, in the start-up (not part of the checks' time)
    // How often: cases a check had to open (case_ms > 0), cases opened ahead that a first check
    // used, and ones it did not (the session had guessed another case).
    long case_opens = 0, ahead_used = 0, ahead_missed = 0;

    SessionTimes& operator+=(const SessionTimes& t) {
        startup += t.startup;
        cases += t.cases;
        loads += t.loads;
        launches += t.launches;
        unloads += t.unloads;
        syncs += t.syncs;
        other += t.other;
        opened_ahead += t.opened_ahead;
        case_opens += t.case_opens;
        ahead_used += t.ahead_used;
        ahead_missed += t.ahead_missed;
        return *this;
    }
};

struct SanitizerGateStats {
    long long checked = 0;          // variants the gate checked (guard zones, then compute-sanitizer)
    long long batches = 0;          // batches they were run in
    long long batch_reruns = 0;     // batches that did not pass in a process and were checked one by one
    long long session_checks = 0;   // variant x checker runs in long-lived sessions
    long long session_passes = 0;   // variants that passed there under all their checkers
    long long session_judged = 0;   // variants a session's report judged (no process of their own)
    long long guard_judged = 0;     // variants the guard zones judged (kGuardZonesTool), before any sanitizer
    long long sessions_started = 0; // long-lived sessions started
    long long sessions_replaced = 0; // of them, started in place of one a report ended
    long long sessions_with_case = 0; // of them, told a case to open ahead (prewarmed, replacements)
    long long session_waits = 0;    // checks that waited for a busy session of their checker, or one
    double session_wait_ms = 0;     //   still starting to finish, and how long in all
    long long side_by_side_requests = 0;  // session requests that ran several variants at once
    long long side_by_side_variants = 0;  // the variants they ran
    long long side_by_side_failed = 0;    // of those requests, ones that did not pass: their variants were
                                          // checked again one a request (a report names no variant)
    long prescreens = 0;            // prescreen() calls: guard zones alone on would-be parents, before
    long prescreen_rejected = 0;    //   the search's guess at its next generation, and those they rejected
    double prescreen_seconds = 0;   // their wall time, and of it the part on a recording's other gate
    double prescreen_other_seconds = 0;  //   cases (the would-be parents that passed the asked one)
    long binary_reuses = 0;         // verdicts taken from a program checked before (any text, same
                                    // module, launch and checkers), no sanitizer run
    std::string session_failure;    // why the first batch that did not pass in a session did not
    std::string side_by_side_failure;  // why the first side-by-side request that did not pass did not
    std::map<std::string, double> tool_seconds;  // wall seconds of each checker's checks (they overlap)
    std::map<std::string, long> tool_variants;   // variant runs under each checker (reruns included)
    std::map<std::string, SessionTimes> session_times;  // each checker's session checks, by part

    // Adds what check_under_sanitizer() counts of its checks (the sessions' own counters and the
    // prescreen's are their owners' to set): several gates' checks, counted apart, into one.
    void add_checks(const SanitizerGateStats& more);

    // One line for the run's notes ("" when the gate checked nothing); `batch_size` is
    // --sanitize-batch, which the line names.
    std::string note(int batch_size) const;
};

// Checks `jobs` (one result each, in order): batches of at most `max_batch` variants, `parallel`
// of them at once. Adds to `stats`; the sessions' own counters (started, replaced, waits) stay with
// SanitizerSessions, whose owner copies them in.
std::vector<EvalResult> check_under_sanitizer(const SanitizeContext& context, const std::vector<SanitizeJob>& jobs,
                                              std::size_t parallel, std::size_t max_batch, SanitizerGateStats& stats);

}  // namespace gi
