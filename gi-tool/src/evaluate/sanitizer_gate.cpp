#include "evaluate/sanitizer_gate.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <map>
#include <utility>

#include "evaluate/cuda_classify.hpp"
#include "evaluate/sanitizer_batches.hpp"
#include "process/process.hpp"
#include "util/format.hpp"
#include "util/parallel.hpp"

namespace gi {
namespace fs = std::filesystem;

namespace {

// Counts of the long-lived sessions' work, shared by the threads of one sanitize_many call.
struct SessionCounts {
    std::atomic<int> checks{0}, passed{0};
    std::mutex mutex;
    std::string first_failure;  // why the first session check that did not pass did not
    std::map<std::string, double> seconds;  // wall seconds per checker, sessions and processes together
    std::map<std::string, long> variants;   // variants each checker ran
    std::map<std::string, SessionTimes> times;

    void add(const std::string& tool, double s, std::size_t count) {
        std::lock_guard lock(mutex);
        seconds[tool] += s;
        variants[tool] += static_cast<long>(count);
    }

    void add_session(const std::string& tool, double s, const SanitizerSession& session) {
        const worker::Checked& c = session.last_checked();
        SessionTimes t;
        t.startup = session.startup_wait_ms() / 1000;
        t.opened_ahead = session.opened_ahead_ms() / 1000;
        t.cases = c.case_ms / 1000;
        t.loads = c.load_ms / 1000;
        t.launches = c.launch_ms / 1000;
        t.unloads = c.unload_ms / 1000;
        t.syncs = c.sync_ms / 1000;
        t.other = std::max(0.0, s - (t.startup + t.cases + t.loads + t.launches + t.unloads + t.syncs));
        std::lock_guard lock(mutex);
        times[tool] += t;
    }
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Writes `group`'s modules and gi-worker's --variants list into `dir`; returns the list's path and
// the time its checks may take (a minute for the sanitizer's start-up, then each variant's share).
std::pair<fs::path, std::chrono::milliseconds> write_variant_list(const fs::path& dir, const std::vector<const SanitizeJob*>& group,
                                                                  const std::string& shared_bytes) {
    const fs::path list_path = dir / "variants.txt";
    std::ofstream list(list_path);
    double allowance_ms = 60000;
    for (std::size_t k = 0; k < group.size(); ++k) {
        const fs::path cubin = dir / ("variant-" + std::to_string(k) + ".cubin");
        std::ofstream out(cubin, std::ios::binary);
        out.write(group[k]->cubin.data(), static_cast<std::streamsize>(group[k]->cubin.size()));
        list << cubin.string() << "\t" << group[k]->grid << "\t" << group[k]->block << "\t" << shared_bytes;
        if (!group[k]->kernel.empty()) list << "\t" << group[k]->kernel;
        list << "\n";
        allowance_ms += 1000 * group[k]->base_ms + (k > 0 ? 5000 : 0);
    }
    return {list_path, std::chrono::milliseconds(static_cast<long long>(allowance_ms))};
}

enum class SessionVerdict { Passed, NotPassed, NoSession };

struct SessionOutcome {
    SessionVerdict verdict = SessionVerdict::NoSession;
    std::size_t tools_passed = 0;  // the group's first checkers that passed it in sessions
};

// Runs `group` in long-lived sessions, one per checker in turn. NotPassed when a session reported
// anything, died or timed out; NoSession when no session could be had for a checker, after the
// ones before it passed. Either way the caller checks the group in processes of its own.
SessionOutcome check_in_sessions(const SanitizeContext& c, const std::vector<const SanitizeJob*>& group, SessionCounts& counts) {
    SessionOutcome outcome;
    if (!c.sessions) return outcome;
    TemporaryDirectory dir("gi-sanitize");
    const auto [list_path, allowance] = write_variant_list(dir.path(), group, c.shared_bytes);
    // A session goes back to its pool whatever happens here: one kept away would make later
    // checks of its checker wait for it forever.
    struct Lease {
        SanitizerSessions& pools;
        std::unique_ptr<SanitizerSession> session;
        ~Lease() { pools.release(std::move(session)); }
    };
    for (const std::string& tool : group.front()->tools) {
        Lease lease{*c.sessions, c.sessions->acquire(tool)};
        if (!lease.session) return outcome;
        SanitizerSession* const session = lease.session.get();
        ++counts.checks;
        const auto start = std::chrono::steady_clock::now();
        const bool passed = session->check(c.case_path, c.kernel, list_path, group.size(), allowance);
        const double took = seconds_since(start);
        counts.add(tool, took, group.size());
        counts.add_session(tool, took, *session);
        if (!session->missed_case().empty()) {
            static std::atomic<bool> said{false};
            if (!said.exchange(true))
                std::cerr << "gi-tool: note: a " << tool << " session opened " << session->missed_case()
                          << " ahead, but its first check was on " << c.case_path << "\n";
        }
        if (!passed) {
            std::lock_guard lock(counts.mutex);
            if (counts.first_failure.empty()) counts.first_failure = tool + ": " + session->failure();
            // Said at once when the session failed rather than reported: a gate that stalls (sessions
            // timing out) would otherwise be silent until its generation's line.
            if (session->failure().rfind("it reported", 0) != 0)
                std::cerr << "gi-tool: note: a " << tool << " session did not pass a batch of " << group.size()
                          << " (checked again in processes of their own): " << session->failure().substr(0, 300) << "\n";
            outcome.verdict = SessionVerdict::NotPassed;
            return outcome;
        }
        ++outcome.tools_passed;
    }
    ++counts.passed;
    outcome.verdict = SessionVerdict::Passed;
    return outcome;
}

// Runs `members` (same checkers) in the long-lived sessions when it passes there; else under
// compute-sanitizer in one process per checker (only the checkers no session passed it under),
// and when that does not pass as a whole (any error, crash, timeout, or fewer variants run than
// given), each member is checked again alone under every checker, so every verdict that is not Ok
// is a single variant's own and no variant passes unless it ran. One result per member, in order.
std::vector<EvalResult> sanitize_batch(const SanitizeContext& c, const std::vector<const SanitizeJob*>& members,
                                       std::atomic<int>& reruns, SessionCounts& counts) {
    const SessionOutcome in_sessions = check_in_sessions(c, members, counts);
    if (in_sessions.verdict == SessionVerdict::Passed) return std::vector<EvalResult>(members.size(), EvalResult{});
    constexpr int kErrorExit = 86;
    const std::vector<std::string>& all_tools = members.front()->tools;
    auto run = [&](const std::vector<const SanitizeJob*>& group, std::size_t first_tool) {
        TemporaryDirectory dir("gi-sanitize");
        const auto [list_path, allowance] = write_variant_list(dir.path(), group, c.shared_bytes);
        ProcessOptions po;
        po.timeout = allowance;
        EvalResult result;
        const std::string ran_line = "gi-worker: ran " + std::to_string(group.size()) + " variant(s)";
        for (std::size_t t = first_tool; t < all_tools.size(); ++t) {
            const std::string& tool = all_tools[t];
            std::vector<std::string> argv = sanitizer_tool_arguments(tool);
            argv.insert(argv.begin(), c.sanitizer);
            argv.insert(argv.end(), {"--error-exitcode", std::to_string(kErrorExit), "--print-limit", "20", c.worker, "--once",
                                     "--case", c.case_path, "--kernel", c.kernel, "--variants", list_path.string()});
            const auto start = std::chrono::steady_clock::now();
            const ProcessResult pr = run_process(argv, po);
            counts.add(tool, seconds_since(start), group.size());
            result = classify_sanitizer_exit(pr.exit_code, pr.timed_out, kErrorExit, pr.out + "\n" + pr.err, tool);
            if (pr.timed_out)
                std::cerr << "gi-tool: note: compute-sanitizer " << tool << " did not finish " << group.size()
                          << " variant(s) within " << allowance.count() / 1000 << " s\n";
            if (pr.signal != 0 && !pr.timed_out) {
                result.status = EvalStatus::Crash;
                result.detail = "compute-sanitizer " + tool + " was killed by signal " + std::to_string(pr.signal);
            }
            if (result.status == EvalStatus::Ok && pr.out.find(ran_line) == std::string::npos) {
                result.status = EvalStatus::Crash;
                result.detail = "gi-worker under compute-sanitizer " + tool + " did not say it ran every variant";
            }
            if (result.status != EvalStatus::Ok) break;
        }
        return result;
    };
    // A batch a session reported on goes straight to one process per variant.
    if (in_sessions.verdict == SessionVerdict::NoSession || members.size() == 1) {
        const std::size_t first_tool = in_sessions.verdict == SessionVerdict::NoSession ? in_sessions.tools_passed : 0;
        const EvalResult together = run(members, first_tool);
        if (together.status == EvalStatus::Ok || members.size() == 1)
            return std::vector<EvalResult>(members.size(), together);
    }
    ++reruns;
    std::vector<EvalResult> alone;
    for (const SanitizeJob* member : members) alone.push_back(run({member}, 0));
    return alone;
}

}  // namespace

std::vector<EvalResult> check_under_sanitizer(const SanitizeContext& context, const std::vector<SanitizeJob>& jobs,
                                              std::size_t parallel, std::size_t max_batch, SanitizerGateStats& stats) {
    // Several at once: each is a separate process with its own CUDA context, mostly waiting on
    // instrumentation; the gate runs between evaluate() calls, so no timed launch shares the GPU.
    // A freed slot takes the next batch at once: a batch whose variants removed a barrier runs
    // three checkers one after another and would otherwise hold back memcheck-only ones.
    std::vector<std::vector<std::string>> tools_of;
    for (const SanitizeJob& job : jobs) tools_of.push_back(job.tools);
    const std::vector<std::vector<std::size_t>> batches = sanitizer_batches(tools_of, parallel, std::max<std::size_t>(1, max_batch));
    std::vector<std::function<std::vector<EvalResult>()>> runs;
    std::atomic<int> batch_reruns{0};
    SessionCounts session_counts;
    for (const std::vector<std::size_t>& batch : batches) {
        std::vector<const SanitizeJob*> members;
        for (std::size_t k : batch) members.push_back(&jobs[k]);
        runs.push_back([&context, members, &batch_reruns, &session_counts] {
            return sanitize_batch(context, members, batch_reruns, session_counts);
        });
    }
    const std::vector<std::vector<EvalResult>> ran = run_in_parallel(runs, parallel);
    std::vector<EvalResult> results(jobs.size());
    for (std::size_t b = 0; b < batches.size(); ++b)
        for (std::size_t k = 0; k < batches[b].size(); ++k) results[batches[b][k]] = ran[b][k];
    stats.checked += static_cast<long long>(jobs.size());
    stats.batches += static_cast<long long>(batches.size());
    stats.batch_reruns += batch_reruns;
    stats.session_checks += session_counts.checks;
    stats.session_passes += session_counts.passed;
    if (stats.session_failure.empty()) stats.session_failure = session_counts.first_failure;
    for (const auto& [tool, s] : session_counts.seconds) stats.tool_seconds[tool] += s;
    for (const auto& [tool, n] : session_counts.variants) stats.tool_variants[tool] += n;
    for (const auto& [tool, t] : session_counts.times) stats.session_times[tool] += t;
    return results;
}

std::string SanitizerGateStats::note(int batch_size) const {
    if (checked == 0) return "";
    std::string line = "sanitizer gate: " + std::to_string(checked) + " variants run under compute-sanitizer in " +
                       std::to_string(batches) + " batches (--sanitize-batch " + std::to_string(batch_size) + "), " +
                       std::to_string(batch_reruns) +
                       " of them checked again one variant at a time because the batch did not pass";
    if (sessions_started > 0) {
        line += "; " + std::to_string(session_passes) + " batches passed in " + std::to_string(sessions_started) +
                " long-lived compute-sanitizer processes (--sanitize-sessions; " + std::to_string(session_waits) +
                " checks waited for a busy one, " + std::to_string(sessions_evicted) +
                " ended for another checker's), the others ran in processes of their own";
        if (!session_failure.empty()) line += " (the first that did not pass there: " + session_failure + ")";
    }
    // Where the gate's time went, per checker: wall seconds of its checks (several run at once,
    // so they add up to more than the gate's own time) and the variants they ran.
    std::string per_tool;
    for (const auto& [tool, s] : tool_seconds) {
        const auto n = tool_variants.count(tool) ? tool_variants.at(tool) : 0;
        per_tool += (per_tool.empty() ? "" : ", ") + tool + " " + fixed(s, 1) + " s for " + std::to_string(n) + " variant runs";
    }
    if (!per_tool.empty()) line += "; checks' wall time: " + per_tool;
    // And where the sessions' part of it went, so a slow checker says what is slow about it.
    std::string parts;
    for (const auto& [tool, t] : session_times) {
        parts += (parts.empty() ? "" : "; ") + tool + ": start-up waited " + fixed(t.startup, 1) + ", cases opened ahead " +
                 fixed(t.opened_ahead, 1) + " (the session's own time), cases " + fixed(t.cases, 1) +
                 ", module loads " + fixed(t.loads, 1) + ", launches " + fixed(t.launches, 1) + ", unloads " +
                 fixed(t.unloads, 1) + ", syncs " + fixed(t.syncs, 1) + ", the rest " + fixed(t.other, 1);
    }
    if (!parts.empty()) line += "; in sessions, seconds: " + parts;
    return line;
}

}  // namespace gi
