#include "cuda/sanitizer_gate.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "cuda/cuda_classify.hpp"
#include "cuda/sanitizer_batches.hpp"
#include "process/process.hpp"
#include "util/parallel.hpp"

namespace gi {
namespace fs = std::filesystem;

namespace {

// Counts of the long-lived sessions' work, shared by the threads of one sanitize_many call.
struct SessionCounts {
    std::atomic<int> checks{0}, passed{0}, judged{0}, guard_judged{0};
    std::atomic<int> side_by_side_requests{0}, side_by_side_variants{0}, side_by_side_failed{0};
    std::mutex mutex;
    std::string first_failure;  // why the first session check that did not pass did not
    std::string first_side_by_side_failure;  // the same for the side-by-side requests
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
        t.case_opens = c.case_ms > 0 ? 1 : 0;
        t.ahead_used = session.opened_ahead_ms() > 0 && session.missed_case().empty() ? 1 : 0;
        t.ahead_missed = session.missed_case().empty() ? 0 : 1;
        std::lock_guard lock(mutex);
        times[tool] += t;
    }
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs `request`, a sanitizer run of kernels, in a check's turn on the GPU (none while evaluate()
// times a variant); `took` is its wall time, the wait for the turn left out.
template <class Request>
auto in_check_turn(GpuTurns* turns, double& took, Request&& request) {
    GpuTurns::Checking turn(turns);
    const auto start = std::chrono::steady_clock::now();
    auto result = request();
    took = seconds_since(start);
    return result;
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

constexpr int kErrorExit = 86;

// A variant the guard zones' run rejected, as memcheck would have (the same status), without
// running it under compute-sanitizer: its launch faulted with each buffer's end at an unmapped page
// (it touched memory past a buffer's end, or outside every allocation), or it wrote into a zone.
EvalResult guard_verdict(const SanitizerSession& session) {
    EvalResult r;
    r.status = EvalStatus::SanitizerError;
    r.detail = session.guard_page_fault()
                   ? "the gate's guard pages found it reading or writing past a buffer's end (its launch faulted with "
                     "every buffer ending at an unmapped page, before compute-sanitizer ran): "
                   : "the gate's guard zones found it writing outside its buffers (before compute-sanitizer ran): ";
    r.detail += session.reported();
    return r;
}

// What the sessions made of one variant of a batch.
struct SessionOutcome {
    enum class Kind { Passed, Judged, Process } kind = Kind::Process;
    EvalResult judged;          // Judged: the verdict from its session's report
    std::size_t tools_passed = 0;  // its first checkers that passed it in sessions
    bool alone = false;         // Process: a session failed on it without a report; it runs alone
};

// A session taken from its pool, given back whatever happens: one kept away would make later
// checks of its checker wait for it forever.
struct Lease {
    SanitizerSessions& pools;
    std::unique_ptr<SanitizerSession> session;
    ~Lease() { pools.release(std::move(session)); }
};

// Runs the `pending` members of `group` at once in one session of `tool` (SanitizeContext::
// side_by_side): true when that request passed, so each of them passed `tool`. False when no
// session could be had or the request did not pass; a report then names no variant, so the caller
// checks each again one a request and judges nothing by this one.
bool check_side_by_side(const SanitizeContext& c, const std::vector<const SanitizeJob*>& group,
                        const std::vector<std::size_t>& pending, const std::string& tool, const fs::path& dir,
                        SessionCounts& counts) {
    Lease lease{*c.sessions, c.sessions->acquire(tool, c.case_path)};
    SanitizerSession* const session = lease.session.get();
    if (!session) return false;
    std::vector<const SanitizeJob*> members;
    for (std::size_t k : pending) members.push_back(group[k]);
    const fs::path own = dir / ("side-by-side-" + tool);
    fs::create_directories(own);
    const auto [list, allowance] = write_variant_list(own, members, c.shared_bytes);
    ++counts.checks;
    ++counts.side_by_side_requests;
    counts.side_by_side_variants += static_cast<int>(members.size());
    double took = 0;
    const bool passed = in_check_turn(c.turns, took, [&] {
        return session->check(c.case_path, c.kernel, list, members.size(), allowance, c.side_by_side);
    });
    counts.add(tool, took, members.size());
    counts.add_session(tool, took, *session);
    if (!passed) {
        ++counts.side_by_side_failed;
        std::lock_guard lock(counts.mutex);
        if (counts.first_side_by_side_failure.empty()) counts.first_side_by_side_failure = tool + ": " + session->failure();
    }
    return passed;
}

// Checks `group` in long-lived sessions, one checker after another, one variant a request, so a
// report is the variant's own (every request before it in that session passed clean): that
// variant is judged and the session ends; the variants after it go on in another. A variant a
// session failed on without a report (it died, timed out, a launch failed silently), and the
// variants no session could be had for, are left for processes of their own.
std::vector<SessionOutcome> check_in_sessions(const SanitizeContext& c, const std::vector<const SanitizeJob*>& group,
                                              SessionCounts& counts) {
    std::vector<SessionOutcome> outcomes(group.size());
    if (!c.sessions) return outcomes;
    TemporaryDirectory dir("gi-sanitize");
    std::vector<std::pair<fs::path, std::chrono::milliseconds>> lists;
    for (std::size_t k = 0; k < group.size(); ++k) {
        const fs::path own = dir.path() / std::to_string(k);
        fs::create_directories(own);
        lists.push_back(write_variant_list(own, {group[k]}, c.shared_bytes));
    }
    const std::vector<std::string>& tools = group.front()->tools;
    for (std::size_t t = 0; t < tools.size(); ++t) {
        const std::string& tool = tools[t];
        std::vector<std::size_t> pending;
        for (std::size_t k = 0; k < group.size(); ++k)
            if (outcomes[k].kind == SessionOutcome::Kind::Process && !outcomes[k].alone && outcomes[k].tools_passed == t)
                pending.push_back(k);
        if (c.side_by_side > 1 && pending.size() > 1 && runs_side_by_side(tool) &&
            check_side_by_side(c, group, pending, tool, dir.path(), counts)) {
            for (std::size_t k : pending) ++outcomes[k].tools_passed;
            continue;
        }
        for (std::size_t next = 0; next < pending.size();) {
            Lease lease{*c.sessions, c.sessions->acquire(tool, c.case_path)};
            if (!lease.session && tool == kGuardZonesTool) {
                // No guard zones to be had (turned off after failing, below): memcheck decides alone.
                for (; next < pending.size(); ++next) ++outcomes[pending[next]].tools_passed;
                break;
            }
            if (!lease.session) break;  // the rest go to a process from this checker on
            SanitizerSession* const session = lease.session.get();
            while (next < pending.size()) {
                const std::size_t k = pending[next++];
                ++counts.checks;
                double took = 0;
                const bool passed = in_check_turn(c.turns, took, [&] {
                    return session->check(c.case_path, c.kernel, lists[k].first, 1, lists[k].second);
                });
                counts.add(tool, took, 1);
                counts.add_session(tool, took, *session);
                if (!session->missed_case().empty()) {
                    static std::atomic<bool> said{false};
                    if (!said.exchange(true))
                        std::cerr << "gi-tool: note: a " << tool << " session opened " << session->missed_case()
                                  << " ahead, but its first check was on " << c.case_path << "\n";
                }
                if (passed) {
                    ++outcomes[k].tools_passed;
                    if (tool == kGuardZonesTool) c.sessions->guard_worked();
                    continue;
                }
                if (tool != kGuardZonesTool) {  // the note's "first that did not pass" is compute-sanitizer's
                    std::lock_guard lock(counts.mutex);
                    if (counts.first_failure.empty()) counts.first_failure = tool + ": " + session->failure();
                }
                if (tool == kGuardZonesTool && session->reported().empty()) {
                    // The guard zones only reject: a run that failed otherwise (a fault on this
                    // case, a timeout) is memcheck's to judge, in a session as any other.
                    ++outcomes[k].tools_passed;
                    c.sessions->guard_failed(*session);
                } else if (tool == kGuardZonesTool) {
                    ++counts.guard_judged;
                    outcomes[k].kind = SessionOutcome::Kind::Judged;
                    outcomes[k].judged = guard_verdict(*session);
                } else if (!session->reported().empty()) {
                    ++counts.judged;
                    outcomes[k].kind = SessionOutcome::Kind::Judged;
                    outcomes[k].judged = classify_sanitizer_exit(kErrorExit, false, kErrorExit, session->reported(), tool);
                } else {
                    outcomes[k].alone = true;
                    // Said at once: a gate that stalls (sessions timing out) would otherwise be
                    // silent until its generation's line.
                    std::cerr << "gi-tool: note: a " << tool
                              << " session failed on a variant without a report (checked again in a process of its own): "
                              << session->failure().substr(0, 300) << "\n";
                }
                break;  // that session has ended (or, guard zones kept, goes back to its pool)
            }
        }
    }
    for (SessionOutcome& o : outcomes)
        if (o.kind == SessionOutcome::Kind::Process && !o.alone && o.tools_passed == tools.size()) {
            o.kind = SessionOutcome::Kind::Passed;
            ++counts.passed;
        }
    return outcomes;
}

// Runs `members` (same checkers) in the long-lived sessions, which pass or judge each variant
// (above); the rest under compute-sanitizer in processes, from the first checker no session
// passed them under: those left together run in one process, and when that does not pass as a
// whole (any error, crash, timeout, or fewer variants run than given), each is checked again
// alone, so every verdict that is not Ok is a single variant's own and no variant passes unless it
// ran. One result per member, in order.
std::vector<EvalResult> sanitize_batch(const SanitizeContext& c, const std::vector<const SanitizeJob*>& members,
                                       std::atomic<int>& reruns, SessionCounts& counts) {
    const std::vector<SessionOutcome> in_sessions = check_in_sessions(c, members, counts);
    const std::vector<std::string>& all_tools = members.front()->tools;
    auto run = [&](const std::vector<const SanitizeJob*>& group, std::size_t first_tool) {
        TemporaryDirectory dir("gi-sanitize");
        const auto [list_path, allowance] = write_variant_list(dir.path(), group, c.shared_bytes);
        ProcessOptions po;
        po.timeout = allowance;
        po.environment = c.environment;
        EvalResult result;
        const std::string ran_line = "gi-worker: ran " + std::to_string(group.size()) + " variant(s)";
        for (std::size_t t = first_tool; t < all_tools.size(); ++t) {
            const std::string& tool = all_tools[t];
            if (tool == kGuardZonesTool) continue;  // sessions only; it can only reject, memcheck decides
            std::vector<std::string> argv = sanitizer_tool_arguments(tool);
            argv.insert(argv.begin(), c.sanitizer);
            argv.insert(argv.end(), {"--error-exitcode", std::to_string(kErrorExit), "--print-limit", "20", c.worker, "--once",
                                     "--case", c.case_path, "--kernel", c.kernel, "--variants", list_path.string()});
            double took = 0;
            const ProcessResult pr = in_check_turn(c.turns, took, [&] { return run_process(argv, po); });
            counts.add(tool, took, group.size());
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
    std::vector<EvalResult> results(members.size());
    // Left for processes: by the checker they start from, those that may share one (in order).
    std::map<std::size_t, std::vector<std::size_t>> together;
    for (std::size_t k = 0; k < members.size(); ++k) {
        const SessionOutcome& o = in_sessions[k];
        if (o.kind == SessionOutcome::Kind::Judged) results[k] = o.judged;
        if (o.kind != SessionOutcome::Kind::Process) continue;
        if (o.alone) results[k] = run({members[k]}, o.tools_passed);
        else together[o.tools_passed].push_back(k);
    }
    for (const auto& [first_tool, ks] : together) {
        std::vector<const SanitizeJob*> group;
        for (std::size_t k : ks) group.push_back(members[k]);
        const EvalResult shared = run(group, first_tool);
        if (shared.status == EvalStatus::Ok || ks.size() == 1) {
            for (std::size_t k : ks) results[k] = shared;
            continue;
        }
        ++reruns;
        for (std::size_t k : ks) results[k] = run({members[k]}, first_tool);
    }
    return results;
}

}  // namespace

bool runs_side_by_side(const std::string& tool) { return tool == "racecheck" || tool == "synccheck"; }

std::vector<EvalResult> check_under_sanitizer(const SanitizeContext& context, const std::vector<SanitizeJob>& jobs,
                                              std::size_t parallel, std::size_t max_batch, SanitizerGateStats& stats) {
    // Several at once: each is a separate process with its own CUDA context, mostly waiting on
    // instrumentation; the gate runs between evaluate() calls, so no timed launch shares the GPU.
    // A freed slot takes the next batch at once: a batch whose variants removed a barrier runs
    // three checkers one after another and would otherwise hold back memcheck-only ones.
    std::vector<std::vector<std::string>> tools_of;
    for (const SanitizeJob& job : jobs) tools_of.push_back(job.tools);
    const std::vector<std::vector<std::size_t>> batches =
        sanitizer_batches(tools_of, parallel, std::max<std::size_t>(1, max_batch), context.sessions ? "racecheck" : "",
                          context.side_by_side);
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
    // A racecheck batch waits for one of racecheck's few sessions (a quarter of them; more do not
    // help, processes take turns on the GPU: bench/results/2026-11-26-h200-gate-sessions.md; a
    // session runs its batch side by side instead) and must not hold a place the memcheck-only
    // batches need meanwhile: each gets a thread of its own.
    std::size_t slow = 0;
    if (context.sessions)
        for (const std::vector<std::size_t>& batch : batches)
            slow += std::count(jobs[batch.front()].tools.begin(), jobs[batch.front()].tools.end(), "racecheck") > 0 ? 1 : 0;
    const std::vector<std::vector<EvalResult>> ran = run_in_parallel(runs, parallel + slow);
    std::vector<EvalResult> results(jobs.size());
    for (std::size_t b = 0; b < batches.size(); ++b)
        for (std::size_t k = 0; k < batches[b].size(); ++k) results[batches[b][k]] = ran[b][k];
    SanitizerGateStats these;
    these.checked = static_cast<long long>(jobs.size());
    these.batches = static_cast<long long>(batches.size());
    these.batch_reruns = batch_reruns;
    these.session_checks = session_counts.checks;
    these.session_passes = session_counts.passed;
    these.session_judged = session_counts.judged;
    these.guard_judged = session_counts.guard_judged;
    these.side_by_side_requests = session_counts.side_by_side_requests;
    these.side_by_side_variants = session_counts.side_by_side_variants;
    these.side_by_side_failed = session_counts.side_by_side_failed;
    these.session_failure = session_counts.first_failure;
    these.side_by_side_failure = session_counts.first_side_by_side_failure;
    these.tool_seconds = session_counts.seconds;
    these.tool_variants = session_counts.variants;
    these.session_times = session_counts.times;
    stats.add_checks(these);
    return results;
}

void SanitizerGateStats::add_checks(const SanitizerGateStats& more) {
    checked += more.checked;
    batches += more.batches;
    batch_reruns += more.batch_reruns;
    session_checks += more.session_checks;
    session_passes += more.session_passes;
    session_judged += more.session_judged;
    guard_judged += more.guard_judged;
    side_by_side_requests += more.side_by_side_requests;
    side_by_side_variants += more.side_by_side_variants;
    side_by_side_failed += more.side_by_side_failed;
    if (session_failure.empty()) session_failure = more.session_failure;
    if (side_by_side_failure.empty()) side_by_side_failure = more.side_by_side_failure;
    for (const auto& [tool, s] : more.tool_seconds) tool_seconds[tool] += s;
    for (const auto& [tool, n] : more.tool_variants) tool_variants[tool] += n;
    for (const auto& [tool, t] : more.session_times) session_times[tool] += t;
}

std::string SanitizerGateStats::note(int batch_size) const {
    if (checked == 0) return "";
    // Variants the guard zones judged never ran under compute-sanitizer: said first, apart.
    const bool guarded = tool_variants.count(kGuardZonesTool) > 0;
    std::string line = "sanitizer gate: " + std::to_string(checked) + " variants checked" +
                       (guarded ? ", " + std::to_string(guard_judged) +
                                      " of them judged by guard zones around their buffers (gi-worker without a "
                                      "sanitizer: writes outside them) and the others then by compute-sanitizer"
                                : std::string(" under compute-sanitizer")) +
                       ", in " + std::to_string(batches) + " batches (--sanitize-batch " + std::to_string(batch_size) + "), " +
                       std::to_string(batch_reruns) +
                       " of them checked again one variant at a time because the batch did not pass in one process";
    if (sessions_started > 0) {
        line += "; in " + std::to_string(sessions_started) + " long-lived compute-sanitizer processes (--sanitize-sessions; " +
                std::to_string(sessions_replaced) + " started in place of one a report ended, " +
                std::to_string(sessions_with_case) + " told a case to open ahead, " + std::to_string(session_waits) +
                " checks waited for a busy one or a start-up, " + fmt::format("{:.1f}", session_wait_ms / 1000) + " s in all) " +
                std::to_string(session_passes) + " variants passed and " + std::to_string(session_judged) +
                " were judged by a report, one variant a request; the others ran in processes of their own";
        if (!session_failure.empty()) line += " (the first that did not pass there: " + session_failure + ")";
        if (side_by_side_requests > 0)
            line += fmt::format(
                "; {} racecheck/synccheck requests ran {} variants side by side (--sanitize-side-by-side), {} of them did "
                "not pass and their variants were checked again one a request{}",
                side_by_side_requests, side_by_side_variants, side_by_side_failed,
                side_by_side_failure.empty() ? "" : " (the first: " + side_by_side_failure + ")");
    }
    if (prescreens > 0)
        line += fmt::format("; before {} of the search's guesses at its next generation the would-be parents were "
                            "prescreened (the guard zones alone, or a verdict already known) and {} rejected (their verdicts "
                            "kept for the gate), in {:.1f} s ({:.1f} s of it on the recording's other gate cases)",
                            prescreens, prescreen_rejected, prescreen_seconds, prescreen_other_seconds);
    // Where the gate's time went, per checker: wall seconds of its checks (several run at once,
    // so they add up to more than the gate's own time) and the variants they ran.
    std::string per_tool;
    for (const auto& [tool, s] : tool_seconds) {
        const auto n = tool_variants.count(tool) ? tool_variants.at(tool) : 0;
        per_tool += fmt::format("{}{} {:.1f} s for {} variant runs", per_tool.empty() ? "" : ", ", tool, s, n);
    }
    if (!per_tool.empty()) line += "; checks' wall time: " + per_tool;
    // And where the sessions' part of it went, so a slow checker says what is slow about it.
    std::string parts;
    for (const auto& [tool, t] : session_times) {
        parts += fmt::format(
            "{}{}: start-up waited {:.1f}, cases opened ahead {:.1f} (the session's own time; {} used by the first check, {} "
            "not), cases {:.1f} ({} opened at a check), module loads {:.1f}, launches {:.1f}, unloads {:.1f}, syncs {:.1f}, "
            "the rest {:.1f}",
            parts.empty() ? "" : "; ", tool, t.startup, t.opened_ahead, t.ahead_used, t.ahead_missed, t.cases, t.case_opens,
            t.loads, t.launches, t.unloads, t.syncs, t.other);
    }
    if (!parts.empty()) line += "; in sessions, seconds: " + parts;
    return line;
}

}  // namespace gi
