#pragma once
// The gi-worker process the cuda evaluator runs variants in, and what it holds: which cases it has
// loaded (their checksums verified) and on which it has the original's reference outputs, run
// there or taken from the hand-over file. A worker a variant killed is replaced by a spare that has
// the case loaded already (cuda/spare_workers.hpp), else started cold.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cuda/case_set.hpp"
#include "cuda/part_stats.hpp"
#include "cuda/spare_workers.hpp"
#include "worker/protocol.hpp"
#include "worker/worker_process.hpp"

namespace gi {


class CaseWorker : public SpareWorkers::Owner {
public:
    // `slots`: the evaluator's cases, which outlive this; a rejected hand-over file is forgotten in them.
    CaseWorker(std::string program, std::string arch_option, int spare_workers, std::vector<CaseSlot>& slots);
    ~CaseWorker() override;
    CaseWorker(const CaseWorker&) = delete;
    CaseWorker& operator=(const CaseWorker&) = delete;
    // Starts every worker (spares too) through this command prefix (worker/launcher.hpp), replacing
    // one lost with it at most `retries` times in a row.
    void set_launcher(std::vector<std::string> launcher, int retries);
    // A worker lost with its launcher (worker::WorkerFailure::Kind::LauncherLost), the `losses`-th
    // time in a row for one request: drops it, so the next start() replaces it, and counts it.
    // Throws gi::Error naming the launcher after more than the retries allowed; `on` says on what
    // the workers were lost.
    void replace_lost(const worker::WorkerFailure& failure, int losses, const std::string& on = "one request");
    // Whether a request lost on `losses` workers in a row may be run again.
    bool may_retry_lost(int losses) const { return losses <= launcher_retries_; }

    // Starts the worker (or adopts a spare, preferring one holding `want_case`) unless one is running.
    // Throws gi::Error when the GPU cannot be used.
    void start(int want_case = -1);
    void drop();  // kills it: the next start() replaces it
    // Whether a worker was started and has since died (a variant killed it).
    bool lost() const { return process_ && !process_->running(); }
    // Whether it is alive with `index` loaded and the original's outputs for it present.
    bool ready(int index) const { return process_ && process_->running() && loaded_.count(index) && referenced_.count(index); }
    bool has_reference(int index) const { return referenced_.count(index) > 0; }
    void set_referenced(int index) { referenced_.insert(index); }
    bool has_loaded(int index) const { return loaded_.count(index) > 0; }
    // A case whose blobs another worker of this run has checked: loaded without checking them again.
    void mark_verified(int index) { verified_.insert(index); }
    // Whether workers start through a launcher (elsewhere: the hand-over folder may not be shared).
    bool launched() const { return !launcher_.empty(); }

    // Loads case `index` into the worker (starting one first) unless it holds it already.
    void ensure_loaded(int index);
    void unload(int index);
    // A request to the running worker (started first if need be); throws worker::WorkerFailure.
    worker::Message request(const worker::Message& m, std::chrono::milliseconds timeout);
    worker::WorkerProcess& process() { return *process_; }
    // The original's cubin checksum, which a handed-over reference file must name to be taken.
    void set_original_sha256(std::string sha256) { original_sha256_ = std::move(sha256); }
    SpareWorkers& spares() { return *spares_; }

    // Variables every worker of this one's (spares and replacements too) starts with: the GPU it
    // opens (GI_WORKER_DEVICE) when the evaluator has one of several (cuda/multi_gpu_evaluator.hpp).
    void set_environment(std::map<std::string, std::string> env) { env_ = std::move(env); }

    const std::string& device() const { return device_; }
    int device_count() const { return devices_; }  // the GPUs its driver sees; 0: the worker did not say
    const std::string& arch() const { return arch_; }  // the option's, else the GPU's own ("sm_90")
    const CaseWorkerStats& stats() const { return stats_; }
    CaseWorkerStats& stats() { return stats_; }

    // SpareWorkers::Owner
    worker::WorkerOptions worker_options() const override;
    worker::Message load_message(int index) const override;
    worker::Message put_case_message(int index) override;
    bool took_reference(int index, const worker::Message& reply) override;
    std::uint64_t case_bytes(int index) const override;
    SpareWorkers::Demand demand() const override;

private:
    void start_once(int want_case);
    void load_once(int index);
    // Runs `step` again on a new worker each time the worker is lost with its launcher, until it
    // succeeds or replace_lost() gives up.
    template <typename Step>
    void replacing_lost(Step step) {
        for (int losses = 0;;) {
            try {
                return step();
            } catch (const worker::WorkerFailure& e) {
                if (e.kind() != worker::WorkerFailure::Kind::LauncherLost) throw;
                replace_lost(e, ++losses);
            }
        }
    }

    std::string program_;
    std::vector<std::string> launcher_;
    int launcher_retries_ = 0;
    mutable std::map<int, std::string> case_sha256_;  // with a launcher: each case's content hash, read once
    std::string arch_;
    std::vector<CaseSlot>& slots_;
    std::unique_ptr<worker::WorkerProcess> process_;
    std::set<int> loaded_, referenced_;
    std::set<int> verified_;  // cases whose checksums a worker has already checked
    std::unique_ptr<SpareWorkers> spares_;
    std::chrono::steady_clock::time_point first_use_{};
    std::string device_;
    int devices_ = 0;
    std::map<std::string, std::string> env_;
    std::string original_sha256_;
    std::uint64_t gpu_memory_ = 0;
    CaseWorkerStats stats_;
};

}  // namespace gi
