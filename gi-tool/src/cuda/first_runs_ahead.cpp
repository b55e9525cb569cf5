#include "cuda/first_runs_ahead.hpp"

#include <algorithm>

#include "util/elapsed.hpp"
#include "worker/case_messages.hpp"

namespace gi {
using worker::Message;

FirstRunsAhead::FirstRunsAhead(worker::WorkerOptions options, std::vector<Job> jobs, int processes, ProbeAllowance allowance)
    : options_(std::move(options)), allowance_(std::move(allowance)), start_(std::chrono::steady_clock::now()) {
    processes = std::max(1, std::min<int>(processes, static_cast<int>(jobs.size())));
    std::vector<std::vector<Job>> shares(static_cast<std::size_t>(processes));
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        expected_.push_back(jobs[k].index);
        shares[k % shares.size()].push_back(std::move(jobs[k]));
    }
    running_ = jobs.empty() ? 0 : processes;
    if (jobs.empty()) return;
    for (std::vector<Job>& share : shares) threads_.emplace_back([this, share = std::move(share)]() mutable { serve(std::move(share)); });
}

FirstRunsAhead::~FirstRunsAhead() {
    stop_ = true;  // the oracle failed on a case, say: the rest are not wanted
    for (std::thread& t : threads_) t.join();
}

void FirstRunsAhead::finish(int index, std::optional<Ran> ran, std::string failure) {
    std::lock_guard lock(mutex_);
    replies_[index] = std::move(ran);
    if (!failure.empty()) failures_[index] = std::move(failure);
    done_.notify_all();
}

void FirstRunsAhead::serve(std::vector<Job> jobs) {
    std::size_t next = 0;
    // Whatever ends this thread early leaves its remaining cases to the evaluator's worker.
    auto give_up = [&](const std::string& why) {
        for (; next < jobs.size(); ++next) finish(jobs[next].index, std::nullopt, why);
    };
    try {
        worker::WorkerProcess process(options_);
        const Message hello = process.request(worker::hello_message(), std::chrono::seconds(120));
        if (hello.type != "ready") {
            give_up("the worker did not start: " + (hello.type == "error" ? worker::error_reply_from(hello).message : hello.type));
        }
        for (; next < jobs.size(); ++next) {
            if (stop_) {
                give_up("not wanted any more");
                break;
            }
            const Job& job = jobs[next];
            const Message loaded = process.request(job.load, std::chrono::seconds(300));
            if (loaded.type != "case-loaded") {
                finish(job.index, std::nullopt,
                       "loading the case: " + (loaded.type == "error" ? worker::error_reply_from(loaded).message : loaded.type));
                continue;
            }
            process.send(job.run, std::chrono::seconds(30));
            Message reply = process.receive(job.run.type, std::chrono::seconds(300));
            if (reply.type == "probing") reply = process.receive(job.run.type, allowance_(reply));
            // Only a plain result stands: an error reply, a fault or a crash (a probe can make an
            // original that reads a writable buffer as a count fault) is the evaluator's worker's
            // to retry with fewer probes and to report.
            if (reply.type == "result") {
                Ran ran{std::move(reply), {}};
                try {
                    for (int r = 0; r < job.reruns; ++r) {
                        ran.reruns.push_back(worker::request_in_stages(process, job.rerun, job.rerun_kernel, job.rerun_rest));
                    }
                } catch (const worker::WorkerFailure&) {
                    // The first run stands; the reruns not made are the evaluator's worker's.
                    finish(job.index, std::move(ran), "");
                    ++next;
                    give_up("the worker failed while replaying the original again");
                    break;
                }
                finish(job.index, std::move(ran), "");
            } else {
                finish(job.index, std::nullopt,
                       "the run: " + (reply.type == "error" ? worker::error_reply_from(reply).message : reply.type));
            }
            // One case at a time on the GPU beside the evaluator's worker, which holds them all.
            try {
                const Message unloaded = process.request(to_message(worker::UnloadCase{job.index}), std::chrono::seconds(30));
                (void)unloaded;
            } catch (const worker::WorkerFailure&) {
                ++next;
                give_up("the worker failed after a run");
                break;
            }
        }
        if (process.running()) {
            try {
                process.request(worker::quit_message(), std::chrono::seconds(5));
            } catch (const worker::WorkerFailure&) {
            }
        }
    } catch (const std::exception& e) {
        // A worker that cannot start, dies or hangs: its finished cases stand, the rest do not.
        give_up(e.what());
    }
    std::lock_guard lock(mutex_);
    if (--running_ == 0) wall_ms_ = ms_since(start_);
}

std::optional<FirstRunsAhead::Ran> FirstRunsAhead::take(int index) {
    std::unique_lock lock(mutex_);
    if (std::find(expected_.begin(), expected_.end(), index) == expected_.end()) return std::nullopt;
    done_.wait(lock, [&] { return replies_.count(index) > 0; });
    std::optional<Ran> ran = std::move(replies_[index]);
    replies_[index].reset();
    return ran;
}

std::string FirstRunsAhead::failure(int index) const {
    std::lock_guard lock(mutex_);
    const auto it = failures_.find(index);
    return it == failures_.end() ? "" : it->second;
}

double FirstRunsAhead::wall_ms() const {
    std::lock_guard lock(mutex_);
    return wall_ms_;
}

}  // namespace gi
