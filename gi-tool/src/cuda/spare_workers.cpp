#include "cuda/spare_workers.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "util/elapsed.hpp"
#include "worker/case_messages.hpp"

namespace gi {

namespace {

using Clock = std::chrono::steady_clock;

// Not more: on the H100, 16 live contexts made every context slower (CUDA start-up 1.6 -> 3.0 s,
// a module load 17 -> 27 ms; bench/results/2026-11-23-h100-gpu-check-5.md), which cost more than
// the spares saved.
constexpr int kMaxAdaptiveSpares = 8;

}  // namespace

SpareWorkers::~SpareWorkers() {
    for (Spare& spare : spares_) spare.process->kill();
}

// How many spares to keep: at least --spare-workers; more (up to 8) when failures come faster
// than a spare's start-up takes, or an adoption had to wait; fewer when their copies of the
// case would crowd the GPU's memory.
int SpareWorkers::wanted() {
    if (minimum_ <= 0) return 0;
    const int cap = std::max(minimum_, kMaxAdaptiveSpares);
    int want = target_;
    const Demand d = owner_.demand();
    if (d.restarts >= 3 && startups_ > 0) {
        const double between = d.ms_since_first_use / static_cast<double>(d.restarts);
        want = std::max(want, static_cast<int>(std::ceil(startup_ms_ / std::max(1.0, between))) + 1);
    }
    want = std::min(want, cap);
    if (d.gpu_memory > 0 && case_ >= 0) {
        const double held = keep_all_cases() ? given_bytes() : static_cast<double>(owner_.case_bytes(case_));
        const double per_worker = worker_memory_estimate(held);
        const int fit = static_cast<int>(0.5 * static_cast<double>(d.gpu_memory) / per_worker) - 1;
        want = std::min(want, std::max(fit, 0));
    }
    target_ = std::max(target_, want);
    stats_.target = want;
    return want;
}

double SpareWorkers::given_bytes() const {
    double bytes = 0;
    for (int c : given_) bytes += static_cast<double>(owner_.case_bytes(c));
    return bytes;
}

bool SpareWorkers::keep_all_cases() const {
    const Demand d = owner_.demand();
    if (d.gpu_memory == 0) return false;  // the GPU's memory unknown: only the current case, as before
    const double per_worker = worker_memory_estimate(given_bytes());
    return static_cast<double>(std::max(target_, 1) + 1) * per_worker <= 0.5 * static_cast<double>(d.gpu_memory);
}

// Reads whatever replies a spare has ready (or waits for all of them when `wait`). A spare
// that fails is marked broken.
void SpareWorkers::advance(Spare& spare, bool wait) {
    if (spare.broken) return;
    try {
        while (!spare.expect.empty()) {
            const auto [type, case_index] = spare.expect.front();
            std::optional<worker::Message> reply;
            if (wait) reply = spare.process->receive(type, std::chrono::seconds(type == "hello" ? 120 : 300));
            else reply = spare.process->try_receive(type);
            if (!reply) return;
            spare.expect.pop_front();
            if (type == "hello") {
                if (reply->type != "ready") spare.broken = true;
                // Observed when polled, so at most this long: CUDA's start-up in a fresh process.
                const double ms = ms_since(spare.spawned);
                startup_ms_ = (startup_ms_ * static_cast<double>(startups_) + ms) /
                                   static_cast<double>(startups_ + 1);
                ++startups_;
                stats_.startup_ms = startup_ms_;
            } else if (type == "load-case" && reply->type == "case-missing") {
                // Its node does not see the case: sent once, then loaded again.
                spare.process->send(owner_.put_case_message(case_index), std::chrono::seconds(600));
                spare.expect.emplace_back("put-case", case_index);
                spare.process->send(owner_.load_message(case_index), std::chrono::seconds(5));
                spare.expect.emplace_back("load-case", case_index);
            } else if (type == "put-case") {
                if (reply->type != "case-stored") spare.broken = true;
            } else if (type == "load-case") {
                if (reply->type == "case-loaded") spare.loaded[case_index] = owner_.took_reference(case_index, *reply);
                else spare.sent.erase(case_index);  // not held: offered again with the next prepare()
            } else if (type == "unload-case") {
                // Replies come in order, so after the last one `loaded` is what the spare holds
                // (a case loaded, unloaded and loaded again ends loaded).
                spare.loaded.erase(case_index);
                if (reply->type != "case-unloaded") spare.broken = true;
            }
            if (spare.broken) {
                spare.process->kill();
                return;
            }
        }
    } catch (const worker::WorkerFailure&) {
        spare.broken = true;
        return;
    }
    spare.ready = true;
}

void SpareWorkers::poll() {
    for (Spare& s : spares_) advance(s, false);
    std::erase_if(spares_, [](const Spare& s) { return s.broken; });
}

// Sends a spare the current case, with the original's outputs when they are known; the cases it
// holds already stay unless keeping them all would crowd the GPU's memory.
void SpareWorkers::send_case(Spare& spare) {
    if (case_ < 0) return;
    const bool keep_all = keep_all_cases();
    try {
        if (!keep_all) {
            for (auto it = spare.sent.begin(); it != spare.sent.end();) {
                if (*it == case_) {
                    ++it;
                    continue;
                }
                spare.process->send(to_message(worker::UnloadCase{*it}), std::chrono::seconds(5));
                spare.expect.emplace_back("unload-case", *it);
                it = spare.sent.erase(it);
                spare.ready = false;
            }
        }
        // The current case first; with room for all, the earlier ones after it (a spare started
        // late gets them too).
        std::vector<int> wanted_cases{case_};
        if (keep_all)
            for (int c : given_)
                if (c != case_) wanted_cases.push_back(c);
        for (int c : wanted_cases) {
            if (spare.sent.count(c)) continue;
            spare.process->send(owner_.load_message(c), std::chrono::seconds(5));
            spare.expect.emplace_back("load-case", c);
            spare.sent.insert(c);
            spare.ready = false;
        }
    } catch (const worker::WorkerFailure&) {
        spare.broken = true;
    }
}

void SpareWorkers::top_up() {
    poll();
    const int want = wanted();
    while (static_cast<int>(spares_.size()) > want) {
        spares_.back().process->kill();
        spares_.pop_back();
    }
    while (static_cast<int>(spares_.size()) < want) {
        Spare spare;
        try {
            spare.process = std::make_unique<worker::WorkerProcess>(owner_.worker_options());
            spare.spawned = Clock::now();
            spare.process->send(worker::hello_message(), std::chrono::seconds(5));
            spare.expect.emplace_back("hello", -1);
        } catch (const std::exception&) {
            return;  // the main worker's path will report what is wrong
        }
        send_case(spare);
        if (spare.broken) return;
        spares_.push_back(std::move(spare));
    }
}

// Points the spares at `index` (after the original's outputs for it are on file).
void SpareWorkers::prepare(int index) {
    case_ = index;
    given_.insert(index);
    for (Spare& s : spares_) send_case(s);
    std::erase_if(spares_, [](const Spare& s) { return s.broken; });
    top_up();
}

// Replaces the worker with the spare furthest along (one holding `want_case` first).
std::optional<SpareWorkers::Adopted> SpareWorkers::adopt(int want_case) {
    const auto wait_start = Clock::now();
    struct WaitTimer {
        double& total;
        Clock::time_point start;
        ~WaitTimer() { total += ms_since(start); }
    } timer{stats_.wait_ms, wait_start};
    poll();
    while (!spares_.empty()) {
        auto best = spares_.begin();
        auto rank = [&](const Spare& s) {
            return (s.sent.count(want_case) ? 2 : 0) + (s.ready ? 1 : 0);
        };
        for (auto it = spares_.begin(); it != spares_.end(); ++it)
            if (rank(*it) > rank(*best)) best = it;
        Spare spare = std::move(*best);
        spares_.erase(best);
        const bool was_ready = spare.ready;
        advance(spare, true);
        if (spare.broken) continue;
        if (was_ready) ++stats_.ready;
        else {
            ++stats_.waited;
            // Failures outpace the spares: keep one more from now on.
            target_ = std::min(std::max(minimum_, kMaxAdaptiveSpares), target_ + 1);
        }
        Adopted adopted;
        adopted.process = std::move(spare.process);
        adopted.cases = spare.loaded;
        return adopted;
    }
    return std::nullopt;
}

}  // namespace gi
