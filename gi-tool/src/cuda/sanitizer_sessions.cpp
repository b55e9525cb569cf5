#include "cuda/sanitizer_sessions.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <utility>

#include "util/elapsed.hpp"
#include "util/error.hpp"
#include "worker/case_messages.hpp"

namespace gi {
namespace fs = std::filesystem;

std::string sanitizer_log_report(const std::string& text) {
    static const std::regex errors_counted("([1-9][0-9]*) errors?");
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("========= ", 0) != 0) continue;
        const std::string said = line.substr(10);
        // Indented lines continue a report; the banner and warnings (racecheck's hazards of warning
        // severity, "Maximum number of hazards reached") are not errors, as for the exit code.
        if (said.empty() || said[0] == ' ' || said[0] == '\r') continue;
        if (said.rfind("COMPUTE-SANITIZER", 0) == 0 || said.rfind("Warning", 0) == 0) continue;
        if (said.find("SUMMARY") != std::string::npos && !std::regex_search(said, errors_counted)) continue;
        return line;
    }
    return "";
}

std::vector<std::string> sanitizer_tool_arguments(const std::string& tool) {
    std::vector<std::string> args{"--tool", tool};
    if (tool == "racecheck") args.insert(args.end(), {"--racecheck-detect-level", "error"});
    return args;
}

SanitizerSession::SanitizerSession(const std::string& sanitizer, const std::string& worker, const std::string& tool,
                                   const std::vector<std::string>& cases_ahead, std::uint64_t guard_bytes,
                                   const std::map<std::string, std::string>& env, bool guard_pages)
    : tool_(tool), guard_bytes_(tool == kGuardZonesTool ? guard_bytes : 0), guard_pages_(tool == kGuardZonesTool && guard_pages),
      dir_("gi-sanitizer-session"),
      log_(dir_.path() / "sanitizer.log") {
    if (tool == kGuardZonesTool && guard_bytes == 0) throw Error("a guard-zones session needs guard zones of at least a byte");
    worker::WorkerOptions options;
    options.env = env;
    if (tool == kGuardZonesTool) {
        options.executable = worker;  // no sanitizer, so no log of its own: the replies say it all
    } else {
        options.executable = sanitizer;
        // No --error-exitcode: the process outlives many requests; its log says what it found.
        options.args = sanitizer_tool_arguments(tool);
        options.args.insert(options.args.end(), {"--print-limit", "20", "--log-file", log_.string(), worker});
    }
    options.log_file = dir_.path() / "worker.log";
    // Killing compute-sanitizer alone would leave gi-worker, and a hung kernel, on the GPU.
    options.own_process_group = true;
    process_ = std::make_unique<worker::WorkerProcess>(std::move(options));
    // gi-worker opens the GPU at its first request: asked now, it creates its CUDA context under
    // the sanitizer (the seconds-long part of a session's start-up) while the caller goes on,
    // instead of in front of the first check. Issue 19: without it, stereo's first gate took
    // 13-17 s on the H200 with the sessions started 20 s before.
    try {
        process_->send(worker::hello_message(), std::chrono::seconds(10));
        hello_pending_ = true;
        // Opening the case under the sanitizer takes time too (row_filter's 385 MB training case:
        // 24.9 s over 8 memcheck sessions' first checks; its 509 x 250 gate case 0.3 s in all, H200),
        // so that goes ahead as well.
        for (const std::string& case_path : cases_ahead) {
            if (case_path.empty()) continue;
            process_->send(to_message(worker::CheckVariants{case_path, "", "", guard_bytes_, 1, guard_pages_}),
                           std::chrono::seconds(10));
            ++opens_pending_;
            opened_ahead_.push_back(case_path);
            note_open(case_path);
        }
    } catch (const worker::WorkerFailure&) {
        // Gone already: the first check says so, with the worker's log.
    }
}

bool SanitizerSession::alive() const { return process_ && process_->running(); }

bool SanitizerSession::holds(const std::string& case_path) const {
    return std::find(open_cases_.begin(), open_cases_.end(), case_path) != open_cases_.end();
}

void SanitizerSession::note_open(const std::string& case_path) {
    std::erase(open_cases_, case_path);
    open_cases_.push_back(case_path);
    if (open_cases_.size() > worker::kCheckCasesKept) open_cases_.erase(open_cases_.begin());
}

bool SanitizerSession::take_startup_replies(std::optional<std::chrono::milliseconds> timeout) {
    auto next = [&](const std::string& request) {
        return timeout ? std::optional<worker::Message>(process_->receive(request, *timeout)) : process_->try_receive(request);
    };
    auto expect = [](const worker::Message& reply, const std::string& wanted, const std::string& what) {
        if (reply.type != wanted)
            throw worker::WorkerFailure(worker::WorkerFailure::Kind::Protocol, "the worker answered '" + reply.type + "' to " +
                                                                                   what + ": " + worker::error_reply_from(reply).message);
    };
    if (hello_pending_) {
        const std::optional<worker::Message> reply = next("hello");
        if (!reply) return false;
        hello_pending_ = false;
        expect(*reply, "ready", "hello");
    }
    while (opens_pending_ > 0) {
        const std::optional<worker::Message> reply = next("check-variants");
        if (!reply) return false;
        --opens_pending_;
        expect(*reply, "checked", "opening the case ahead");
        taken_ahead_ms_ += worker::checked_from(*reply).case_ms;
    }
    return true;
}

bool SanitizerSession::ready() {
    if (!startup_error_.empty() || !alive()) return true;
    try {
        return take_startup_replies(std::nullopt);
    } catch (const worker::WorkerFailure& e) {
        // Said no, or gone (then the next check says so first, with the worker's log).
        hello_pending_ = false;
        opens_pending_ = 0;
        startup_error_ = e.what();
        return true;
    }
}

bool SanitizerSession::check(const std::string& case_path, const std::string& kernel, const fs::path& list,
                             std::size_t count, std::chrono::milliseconds timeout, std::size_t side_by_side) {
    if (!alive()) {
        failure_ = "the session's compute-sanitizer is not running; its log ends: " + process_->log_tail(400);
        return false;
    }
    failure_.clear();
    checked_ = {};
    startup_wait_ms_ = 0;
    opened_ahead_ms_ = 0;
    last_case_ = case_path;
    missed_case_ = !opened_ahead_.empty() && std::find(opened_ahead_.begin(), opened_ahead_.end(), case_path) == opened_ahead_.end()
                       ? opened_ahead_.front()
                       : "";
    opened_ahead_.clear();
    note_open(case_path);
    try {
        const auto start = std::chrono::steady_clock::now();
        if (!startup_error_.empty())
            throw worker::WorkerFailure(worker::WorkerFailure::Kind::Protocol, std::exchange(startup_error_, ""));
        // The replies to what the start-up sent ahead, in order (ready() may have taken them).
        take_startup_replies(timeout);
        opened_ahead_ms_ = std::exchange(taken_ahead_ms_, 0.0);
        startup_wait_ms_ = ms_since(start);
        const worker::Message reply =
            process_->request(to_message(worker::CheckVariants{case_path, kernel, list.string(), guard_bytes_,
                                                               guard_bytes_ > 0 ? 1 : std::max<std::size_t>(1, side_by_side),
                                                               guard_pages_}),
                              timeout);
        if (reply.type != "checked") {
            failure_ = "the worker answered '" + reply.type + "': " + worker::error_reply_from(reply).message;
        } else {
            checked_ = worker::checked_from(reply);
            if (!checked_.error.empty() || checked_.ran != count)
                failure_ = "the worker ran " + std::to_string(checked_.ran) + " of " + std::to_string(count) + " variants: " + checked_.error;
        }
    } catch (const worker::WorkerFailure& e) {
        failure_ = std::string(e.what()) + "; its log ends: " + process_->log_tail(400);
    } catch (const Error& e) {  // a malformed reply
        failure_ = e.what();
    }
    // The reply comes after the worker synchronised its context, so the sanitizer has written its
    // reports on these launches by now.
    std::ifstream in(log_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(log_read_));
    std::ostringstream text;
    text << in.rdbuf();
    log_read_ += text.str().size();
    reported_.clear();
    guard_page_fault_ = false;
    if (const std::string report = sanitizer_log_report(text.str()); !report.empty()) {
        // The worker's own words too, where it failed first ("Target application returned an
        // error" alone says nothing of why).
        failure_ = "it reported: " + report + (failure_.empty() ? std::string() : " (the worker: " + failure_.substr(0, 300) + ")");
        reported_ = text.str();
    } else if (!checked_.outside.empty()) {
        failure_ = "it wrote outside its buffers: " + checked_.outside;
        reported_ = checked_.outside;
    } else if (guard_pages_ && variant_launch_failed() && checked_.error.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos) {
        // Its own launch faulted with every buffer's end at an unmapped page: an access past an
        // end, or through a pointer into no allocation, either of which memcheck reports too.
        // Not a misaligned fault: the buffers here start at 16-byte boundaries, not cuMemAlloc's 256.
        reported_ = checked_.error;
        guard_page_fault_ = true;
    }
    // A guard-zones worker that says its copies survived the variant's stray write serves on.
    if (!failure_.empty() && !(tool_ == kGuardZonesTool && checked_.kept)) process_->kill();
    return failure_.empty();
}

SanitizerSessions::SanitizerSessions(std::string sanitizer, std::string worker, int limit, std::uint64_t guard_bytes,
                                     int racecheck_limit, std::map<std::string, std::string> env, bool guard_pages)
    : sanitizer_(std::move(sanitizer)), worker_(std::move(worker)), limit_(limit), racecheck_limit_(racecheck_limit),
      guard_bytes_(guard_bytes), guard_pages_(guard_pages), env_(std::move(env)) {}

std::unique_ptr<SanitizerSession> SanitizerSessions::make(const std::string& tool, const std::vector<std::string>& cases_ahead) const {
    return std::make_unique<SanitizerSession>(sanitizer_, worker_, tool, cases_ahead, guard_bytes_, env_, guard_pages_);
}

int SanitizerSessions::capacity(const std::string& tool) const {
    if (tool == kGuardZonesTool && guard_off()) return 0;
    if (tool == "memcheck") return limit_;
    // Every variant meets the guard zones first, and the prescreen runs each would-be parent on every
    // gate case: as many as memcheck's, so none of the gate's threads waits for one. With half as
    // many, wavefront's prescreen (5 gate cases, 16 parents) made 90 checks a run wait (H200).
    if (tool == kGuardZonesTool) return limit_ > 0 ? limit_ : 0;
    if (tool == "racecheck" && racecheck_limit_ > 0) return limit_ > 0 ? racecheck_limit_ : 0;
    return limit_ > 0 ? std::max(1, limit_ / 4) : 0;
}

int SanitizerSessions::live(const std::string& tool) const {
    const auto it = pools_.find(tool);
    return it == pools_.end() ? 0 : it->second.busy + static_cast<int>(it->second.idle.size());
}

std::unique_ptr<SanitizerSession> SanitizerSessions::start(const std::string& tool, std::unique_lock<std::mutex>& lock) {
    ++pools_[tool].busy;
    ++started_;
    lock.unlock();
    try {
        return make(tool, {});
    } catch (const Error&) {
        lock.lock();
        --pools_[tool].busy;
        returned_.notify_all();
        return nullptr;
    }
}

std::unique_ptr<SanitizerSession> SanitizerSessions::acquire(const std::string& tool, const std::string& case_path) {
    std::unique_lock lock(mutex_);
    const int cap = capacity(tool);
    if (cap <= 0) return nullptr;
    bool waited = false;
    const auto asked = std::chrono::steady_clock::now();
    for (;;) {
        Pool& pool = pools_[tool];
        // One that died while idle (a replacement whose start-up failed) is dropped, not handed out.
        std::erase_if(pool.idle, [](const std::unique_ptr<SanitizerSession>& idle) { return !idle->alive(); });
        if (!pool.idle.empty()) {
            // With guard pages every stray read ends its session, and the replacement goes in last:
            // taken first, the next check waited out its start-up while ready sessions stood idle
            // (dp_sweep: 35.7 s of waits for 48 such ends in a 110 s search, H200).
            auto score = [&](SanitizerSession& s) {
                if (!s.ready()) return !case_path.empty() && s.holds(case_path) ? 1 : 0;
                if (!s.alive()) return -1;  // died since: handed out only when nothing else is idle
                return 2 + (!case_path.empty() && s.holds(case_path) ? 1 : 0);
            };
            std::size_t chosen = pool.idle.size() - 1;
            int best = score(*pool.idle[chosen]);
            for (std::size_t k = chosen; k-- > 0 && best < 3;)
                if (const int s = score(*pool.idle[k]); s > best) {
                    best = s;
                    chosen = k;
                }
            // Only sessions still starting are idle. One handed out ready is in a check and comes back
            // within it (milliseconds for the guard zones) where a start-up takes a second or more, so
            // wait for whichever comes first, up to kStartingWait. wavefront's prescreen: 41.7 s of 85 s
            // of search waited out replacements' start-ups, 52 of them, while ready sessions were busy
            // (H200). Busy ones that were starting too are no sooner back: then take this one.
            const bool starting = best >= 0 && best < 2;
            if (!starting || pool.checking.empty() || std::chrono::steady_clock::now() - asked >= kStartingWait) {
                std::unique_ptr<SanitizerSession> session = std::move(pool.idle[chosen]);
                pool.idle.erase(pool.idle.begin() + static_cast<std::ptrdiff_t>(chosen));
                ++pool.busy;
                if (!starting) pool.checking.insert(session.get());
                if (waited) waited_ms_ += ms_since(asked);
                return session;
            }
            if (!waited) ++waited_;
            waited = true;
            returned_.wait_for(lock, std::chrono::milliseconds(5));  // and look at the start-ups again
            continue;
        }
        if (live(tool) < cap) {
            if (waited) waited_ms_ += ms_since(asked);
            return start(tool, lock);
        }
        if (!waited) ++waited_;
        waited = true;
        returned_.wait(lock);
    }
}

void SanitizerSessions::release(std::unique_ptr<SanitizerSession> session) {
    if (!session) return;
    std::lock_guard lock(mutex_);
    Pool& pool = pools_[session->tool()];
    --pool.busy;
    pool.checking.erase(session.get());
    if (session->alive()) {
        pool.idle.push_back(std::move(session));
    } else if (!session->reported().empty()) {
        // Ended because a variant's report made it unusable: a replacement starts now, opening the
        // same case, so its start-up (seconds under the sanitizer) overlaps the gate's other checks
        // instead of waiting in front of the next one. A session that died otherwise is not
        // replaced ahead: its sanitizer may not start at all.
        try {
            // The guard zones' sessions serve every gate case (the prescreen runs each would-be
            // parent on all of them), so their replacement opens all the ended one held; the
            // sanitizers' only the last, whose opening under the sanitizer takes seconds a case.
            pool.idle.push_back(make(session->tool(), session->tool() == kGuardZonesTool
                                                          ? session->open_cases()
                                                          : std::vector<std::string>{session->last_case()}));
            ++started_;
            ++replaced_;
            ++with_case_;
        } catch (const Error&) {
        }
    }
    returned_.notify_all();
}

void SanitizerSessions::prewarm(const std::string& tool, int count, const std::string& case_path) {
    std::lock_guard lock(mutex_);
    for (int k = 0; k < count && live(tool) < capacity(tool); ++k) {
        try {
            // The process starts at once and initialises on its own; nothing here waits for it.
            pools_[tool].idle.push_back(make(tool, {case_path}));
            ++started_;
            if (!case_path.empty()) ++with_case_;
        } catch (const Error&) {
            return;
        }
    }
}

void SanitizerSessions::guard_worked() {
    std::lock_guard lock(guard_mutex_);
    guard_failures_ = 0;
}

void SanitizerSessions::guard_failed(const SanitizerSession& session) {
    // The variant's own launch failing says the worker and its case were fine.
    if (session.variant_launch_failed()) return guard_worked();
    std::lock_guard lock(guard_mutex_);
    if (guard_off_ || ++guard_failures_ < kGuardZonesOff) return;
    guard_off_ = true;
    std::cerr << "gi-tool: note: the sanitizer gate's guard zones failed " << kGuardZonesOff
              << " checks in a row without running their variant; memcheck checks alone from now on (as with "
                 "--gate-guard-kib 0). The last: "
              << session.failure().substr(0, 300) << "\n";
}

bool SanitizerSessions::guard_off() const {
    std::lock_guard lock(guard_mutex_);
    return guard_off_;
}

long SanitizerSessions::started() const {
    std::lock_guard lock(mutex_);
    return started_;
}

long SanitizerSessions::replaced() const {
    std::lock_guard lock(mutex_);
    return replaced_;
}

long SanitizerSessions::with_case() const {
    std::lock_guard lock(mutex_);
    return with_case_;
}

long SanitizerSessions::waited() const {
    std::lock_guard lock(mutex_);
    return waited_;
}

double SanitizerSessions::waited_ms() const {
    std::lock_guard lock(mutex_);
    return waited_ms_;
}

}  // namespace gi
