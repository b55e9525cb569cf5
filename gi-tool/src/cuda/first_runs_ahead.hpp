#pragma once
// The original's first runs on the cases, made ahead in extra gi-workers at once (issue 44). The
// oracle gate (cuda/oracle_gate.hpp) replays the original on every case before search: on
// aniso_diffusion's 18 cases of 43 MB that took 17.4 s of a 45 s search on the H200, one case
// after another in the evaluator's one worker (loading 7.0 s, write-set probes 5.4 s, the rest of
// the first runs, reference outputs written, 4.7 s). Here `processes` workers each load a share of
// the cases, run the original once with the probes and write its outputs to the hand-over folder;
// the evaluator's worker then loads each case with those outputs (as a replacement worker does)
// and only replays the original once more, which the gate does anyway.
//
// Only an optimisation: a case whose run ahead failed in any way is left to the evaluator's worker,
// which runs it as before and says why it failed. The threads touch no CaseSlot: take() hands each
// reply to the caller's thread, which applies it.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "worker/protocol.hpp"
#include "worker/worker_process.hpp"

namespace gi {

class FirstRunsAhead {
public:
    struct Job {
        int index = -1;
        worker::Message load;  // "load-case", verifying the blobs
        worker::Message run;   // the original's run, probing write sets, writing reference outputs
        // Then, after a first run that ended in a result, the oracle's replays of the original as
        // variants are run ("rerun"), `reruns` of them: for a held-out case, which the evaluator's
        // worker then need not load until validation. Their waits: for "started" 30 s, then these.
        worker::Message rerun;
        int reruns = 0;
        std::chrono::milliseconds rerun_kernel{0}, rerun_rest{0};
    };
    // A case's run ahead: the first run's "result", and the reruns' replies (fewer than asked when
    // the worker failed meanwhile: the rest are the evaluator's worker's).
    struct Ran {
        worker::Message first;
        std::vector<worker::Message> reruns;
    };
    // The wait for the reply after the worker said "probing" with these fields (the plain run's
    // time, the probes' launches and bytes): CaseRunner's allowance, so a hang is cut off alike.
    using ProbeAllowance = std::function<std::chrono::milliseconds(const worker::Message& probing)>;

    // Starts `processes` workers (at least one) on `jobs`, dealt out in order, so the first cases
    // are ready first.
    FirstRunsAhead(worker::WorkerOptions options, std::vector<Job> jobs, int processes, ProbeAllowance allowance);
    ~FirstRunsAhead();  // starts no further case, waits for the threads; their workers are told to quit
    FirstRunsAhead(const FirstRunsAhead&) = delete;
    FirstRunsAhead& operator=(const FirstRunsAhead&) = delete;

    // Blocks until case `index`'s run ahead has ended: what it ran, or nullopt when it was not one
    // of the jobs or its first run failed (failure(index) says how).
    std::optional<Ran> take(int index);
    std::string failure(int index) const;

    // Wall time from the start until the last thread ended (ms), for the oracle's line.
    double wall_ms() const;

private:
    void serve(std::vector<Job> jobs);
    void finish(int index, std::optional<Ran> ran, std::string failure);

    worker::WorkerOptions options_;
    ProbeAllowance allowance_;
    mutable std::mutex mutex_;
    std::condition_variable done_;
    std::map<int, std::optional<Ran>> replies_;
    std::map<int, std::string> failures_;
    std::vector<int> expected_;
    std::chrono::steady_clock::time_point start_;
    double wall_ms_ = 0;
    int running_ = 0;
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

}  // namespace gi
