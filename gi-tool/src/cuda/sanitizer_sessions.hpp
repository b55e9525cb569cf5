#pragma once
// The sanitizer gate's long-lived compute-sanitizer processes (issue 19). Each is gi-worker serving
// "check-variants" requests under one checker, with the sanitizer's reports going to a log file
// that is read after every request. Starting compute-sanitizer, a CUDA context under it and the
// case's upload cost seconds (about 8 s a process for stereo on the H100) where checking a small
// kernel takes milliseconds, and the gate used to start a process per batch in every wave.
//
// The gate sends a session one variant a request (cuda/sanitizer_gate.cpp), so what it logs
// during a request is that variant's own, and every request before it passed clean: a report
// judges that variant. A session that dies, times out or fails a launch without a report judges
// nothing; the variant is checked again in a process of its own. Either way the session ends.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "process/process.hpp"
#include "worker/case_messages.hpp"
#include "worker/worker_process.hpp"

namespace gi {

// The first error the sanitizer logged in `text`: a report line of its own ("========= ...") that is
// not the banner, a warning or a summary without errors; "" when there is none.
std::string sanitizer_log_report(const std::string& text);
inline bool sanitizer_log_reports(const std::string& text) { return !sanitizer_log_report(text).empty(); }

// compute-sanitizer's arguments for `tool`: "--tool TOOL" and what the gate needs of it. Racecheck
// detects errors only: its warning-level hazards never fail a variant (as for the exit code), and
// tracking them cost a variant of row_filter without its barrier 0.67 s a launch against 0.02
// (H200, bench/results/2026-11-26-h200-sanitizer-gate.md, section 5); error hazards are the same.
std::vector<std::string> sanitizer_tool_arguments(const std::string& tool);

// The gate's first checker, ahead of compute-sanitizer's: gi-worker alone, its case's buffers between
// guard zones (CheckVariants::guard_bytes). A variant that writes into them is judged at once; one
// that does not, or whose run fails otherwise, goes on to memcheck, which decides as before. Issue
// 19: such a variant cost memcheck 2-4 s (reporting thousands of faulting threads, then a new
// session), the guard zones a read-back of a few hundred KB.
inline constexpr const char* kGuardZonesTool = "guard-zones";

class SanitizerSession {
public:
    // Starts compute-sanitizer running `worker` (for kGuardZonesTool, `worker` alone with guard
    // zones of `guard_bytes`); throws gi::Error when it cannot be started.
    // The worker opens `cases_ahead` right after its start-up, in turn, ahead of the first check.
    // `env`: variables the process starts with (GI_WORKER_DEVICE: the GPU of several it checks on).
    // `guard_pages` (kGuardZonesTool only): each buffer's end at an unmapped page (worker::
    // CheckVariants::guard_pages); a run that faults with CUDA_ERROR_ILLEGAL_ADDRESS is then judged
    // (guard_page_fault()) instead of left to memcheck.
    SanitizerSession(const std::string& sanitizer, const std::string& worker, const std::string& tool,
                     const std::vector<std::string>& cases_ahead = {}, std::uint64_t guard_bytes = 0,
                     const std::map<std::string, std::string>& env = {}, bool guard_pages = false);

    // Runs the variants of `list` (gi-worker --variants lines, `count` of them) on the case, in
    // turn, or up to `side_by_side` of them at once (worker::CheckVariants): true only when every
    // one ran and the sanitizer reported nothing meanwhile. After false the session is ended
    // (alive() is false), except a guard-zones session whose worker found its own copies of the
    // case intact after the variant's write (Checked::kept): it serves on.
    bool check(const std::string& case_path, const std::string& kernel, const std::filesystem::path& list,
               std::size_t count, std::chrono::milliseconds timeout, std::size_t side_by_side = 1);

    bool alive() const;
    const std::string& tool() const { return tool_; }
    // Why the last check did not pass ("" when it did): a report line, the worker's failure with
    // the end of its log, or the reply's error.
    const std::string& failure() const { return failure_; }
    // The sanitizer's log of the last check when it reported an error there ("" otherwise): the
    // report, for the verdict of the variant that check ran. For kGuardZonesTool: where that
    // variant wrote outside its buffers.
    const std::string& reported() const { return reported_; }
    // Whether what reported() holds is a fault at a guard page, not a write into a guard zone.
    bool guard_page_fault() const { return guard_page_fault_; }
    // The last check's reply (its times in the worker), and how long it waited for the session's
    // start-up to finish first (ms; 0 once started).
    const worker::Checked& last_checked() const { return checked_; }
    // Whether the last check failed in its variant's own launch ("variant 1: the kernel failed:
    // ..."), the worker and its case having been fine.
    bool variant_launch_failed() const { return checked_.error.rfind("variant ", 0) == 0; }
    double startup_wait_ms() const { return startup_wait_ms_; }
    // What opening the case ahead took in the worker (ms), reported with the first check.
    double opened_ahead_ms() const { return opened_ahead_ms_; }
    // The case the session opened ahead when its first check named none of those ("" otherwise):
    // the guess was wrong, and the check paid for opening its own case.
    const std::string& missed_case() const { return missed_case_; }
    const std::string& last_case() const { return last_case_; }  // the case of the last check
    // The cases the worker holds open, as far as this side can tell (opened ahead or checked on,
    // the last worker::kCheckCasesKept; the worker may have let one go to make room), the most
    // recently used last.
    const std::vector<std::string>& open_cases() const { return open_cases_; }
    bool holds(const std::string& case_path) const;

    // Whether the start-up has finished (the worker's context made and the case opened ahead),
    // without waiting: the replies already there are taken, and the next check does not wait for
    // them. A start-up that failed counts as finished; the next check says why.
    bool ready();

private:
    // Takes the start-up's replies in order, waiting up to `timeout` for each, or without one only
    // those already there: false while one is still to come. Throws WorkerFailure when the worker
    // is gone or answered otherwise than it should.
    bool take_startup_replies(std::optional<std::chrono::milliseconds> timeout);
    void note_open(const std::string& case_path);  // the worker holds it open now, the last used

    std::string tool_;
    std::uint64_t guard_bytes_ = 0;
    bool guard_pages_ = false;
    bool guard_page_fault_ = false;
    TemporaryDirectory dir_;
    std::filesystem::path log_;
    std::unique_ptr<worker::WorkerProcess> process_;
    std::uintmax_t log_read_ = 0;  // bytes of the log already read
    bool hello_pending_ = false;   // the start-up's hello is sent, its reply not yet read
    std::size_t opens_pending_ = 0;  // likewise the cases opened ahead
    std::vector<std::string> opened_ahead_;  // their paths, until the first check
    std::vector<std::string> open_cases_;
    std::string failure_;
    std::string reported_;
    worker::Checked checked_;
    double startup_wait_ms_ = 0;
    std::string missed_case_;
    std::string last_case_;
    double opened_ahead_ms_ = 0;
    double taken_ahead_ms_ = 0;   // opening the case ahead, its reply taken by ready()
    std::string startup_error_;   // a start-up reply that said no, taken by ready()
};

// The sessions kept across the gate's waves, a pool for each checker: memcheck (every variant's)
// up to the limit, the guard zones as many, racecheck and synccheck (only variants that removed
// a barrier) up to a quarter of it, at least one each (racecheck: `racecheck_limit` when given;
// processes take turns on the GPU, so more than two gained nothing on the H200). A checker whose
// sessions are all busy waits for one to come back (each check ends within its timeout) rather
// than paying compute-sanitizer's start-up again. Issue 19: with one pool shared by all checkers,
// racecheck and synccheck sessions ended idle memcheck ones (17 started for 35 batches), and
// stereo's 45 s searches got 661 evaluations a minute against 1,240 with a pool each (medians of
// three pairs, bench/results/2026-11-26-h200-sanitizer-gate.md). Thread-safe.
class SanitizerSessions {
public:
    // `guard_bytes`: the guard zones of kGuardZonesTool's sessions. `racecheck_limit`: racecheck's
    // sessions (0: a quarter of `limit`, at least one).
    // `env`: what every session starts with (SanitizerSession).
    // `guard_pages`: the guard-zones sessions' buffers end at unmapped pages (SanitizerSession).
    SanitizerSessions(std::string sanitizer, std::string worker, int limit, std::uint64_t guard_bytes = 0,
                      int racecheck_limit = 0, std::map<std::string, std::string> env = {}, bool guard_pages = false);

    // An idle session for `tool`, or a new one while its pool has room; nullptr when one cannot be
    // started. Release it before acquiring another: a thread that waits holds none, so waiting
    // cannot deadlock. Of the idle ones, a session whose start-up has finished comes first (a
    // replacement started a moment ago is still making its context), then one holding `case_path`
    // open, then the last one given back. When only sessions still starting are idle and some
    // handed out ready are busy, it waits for whichever is first, one of those given back or a
    // start-up finished, up to kStartingWait; then it hands out one still starting.
    std::unique_ptr<SanitizerSession> acquire(const std::string& tool, const std::string& case_path = "");
    // Kept when still alive; one a report ended is replaced at once by a new session (see replaced()).
    void release(std::unique_ptr<SanitizerSession> session);

    // Starts `count` sessions of `tool` now (within its pool), so their start-up (compute-sanitizer
    // and a CUDA context under it: seconds) overlaps whatever comes before the first check. Sessions
    // that cannot be started are skipped: acquire() tries again when needed.
    // `case_path` (may be empty): the case their first checks will most likely run on.
    void prewarm(const std::string& tool, int count, const std::string& case_path = "");

    // How many sessions of `tool` may exist at once (for kGuardZonesTool, none once turned off).
    int capacity(const std::string& tool) const;

    // The guard zones' health: a check that ran its variant (passed, or judged it, or the variant's
    // own launch failed) counts as working; kGuardZonesOff checks in a row that failed otherwise (its
    // worker could not start or open the case: too little GPU memory, say) turn them off for the
    // rest of the run, said once on stderr, and memcheck checks alone, as with --gate-guard-kib 0.
    void guard_worked();
    void guard_failed(const SanitizerSession& session);
    bool guard_off() const;
    static constexpr int kGuardZonesOff = 3;

    long started() const;  // sessions started so far
    long replaced() const; // sessions started on release in place of one a report ended
    long with_case() const; // sessions started with a case to open ahead (prewarm, replacements)
    long waited() const;   // acquire() calls that waited for a busy session of their checker
    double waited_ms() const;  // their waits, summed (ms)
    static constexpr std::chrono::milliseconds kStartingWait{2000};

private:
    struct Pool {
        std::vector<std::unique_ptr<SanitizerSession>> idle;
        int busy = 0;
        std::set<const SanitizerSession*> checking;  // of the busy ones, those handed out ready
    };
    int live(const std::string& tool) const;  // with mutex_ held: sessions counted against `tool`'s pool
    std::unique_ptr<SanitizerSession> start(const std::string& tool, std::unique_lock<std::mutex>& lock);
    std::unique_ptr<SanitizerSession> make(const std::string& tool, const std::vector<std::string>& cases_ahead) const;

    std::string sanitizer_, worker_;
    int limit_;
    int racecheck_limit_ = 0;
    std::uint64_t guard_bytes_ = 0;
    bool guard_pages_ = false;
    std::map<std::string, std::string> env_;
    mutable std::mutex mutex_;
    std::condition_variable returned_;
    std::map<std::string, Pool> pools_;
    long started_ = 0, waited_ = 0, replaced_ = 0, with_case_ = 0;
    double waited_ms_ = 0;
    mutable std::mutex guard_mutex_;  // apart from mutex_: capacity() runs with mutex_ held
    int guard_failures_ = 0;  // guard-zone checks in a row that failed without running their variant
    bool guard_off_ = false;
};

}  // namespace gi
