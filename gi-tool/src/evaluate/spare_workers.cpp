#include "evaluate/spare_workers.hpp"

#include <algorithm>
#include <cmath>

namespace gi {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

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
        // A worker: its context, plus the case (pristine, poison and up to 8 working copies).
        const double per_worker = 512.0 * (1 << 20) + 10.0 * static_cast<double>(owner_.case_bytes(case_));
        const int fit = static_cast<int>(0.5 * static_cast<double>(d.gpu_memory) / per_worker) - 1;
        want = std::min(want, std::max(fit, 0));
    }
    target_ = std::max(target_, want);
    stats_.target = want;
    return want;
}

// Reads whatever replies a spare has ready (or waits for all of them when `wait`). A spare
// that fails is marked broken.
void SpareWorkers::advance(Spare& spare, bool wait) {
    if (spare.broken) return;
    try {
        while (!spare.expect.empty()) {
            const std::string type = spare.expect.front();
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
            } else if (type == "load-case") {
                spare.case_loaded = reply->type == "case-loaded";
                spare.reference = spare.case_loaded && owner_.took_reference(spare.case_index, *reply);
            } else if (type == "unload-case") {
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

// Sends a spare its case: the current one, with the original's outputs when they are known.
void SpareWorkers::send_case(Spare& spare) {
    if (case_ < 0 || spare.case_index == case_) return;
    try {
        if (spare.case_index >= 0) {
            // Only the current case is kept on a spare, so spares never crowd the GPU's memory.
            spare.process->send({"unload-case", {{"slot", std::to_string(spare.case_index)}}, {}}, std::chrono::seconds(5));
            spare.expect.push_back("unload-case");
        }
        spare.process->send(owner_.load_message(case_), std::chrono::seconds(5));
        spare.expect.push_back("load-case");
        spare.case_index = case_;
        spare.case_loaded = spare.reference = false;
        spare.ready = false;
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
            spare.process->send({"hello", {}, {}}, std::chrono::seconds(5));
            spare.expect.push_back("hello");
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
            return (s.case_index == want_case ? 2 : 0) + (s.ready ? 1 : 0);
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
        if (spare.case_loaded) {
            adopted.case_index = spare.case_index;
            adopted.reference = spare.reference;
        }
        return adopted;
    }
    return std::nullopt;
}

}  // namespace gi
