#pragma once
// Workers started ahead of need with the current case and its reference outputs loaded, so a
// variant that kills its worker costs a swap, not a CUDA start-up, a case load and a run of the
// original. As many as failures come faster than a CUDA context starts (adaptive), fewer when
// their copies of the case would crowd the GPU's memory. They keep the cases they were given
// before too while the GPU's memory allows, so a search that goes back to an earlier case finds it
// on the worker it adopted (issue 19: row_filter's evaluation spent 19.7 of 93.6 s loading its two
// 190 MB cases into adopted workers, H200). The cuda evaluator owns the cases and the main
// worker; this pool asks it, through Owner, what it needs to know about them.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "worker/protocol.hpp"
#include "worker/worker_process.hpp"

namespace gi {

struct SpareWorkerStats {
    long ready = 0;           // replacements that found their spare ready
    long waited = 0;          // replacements that waited for their spare's start-up
    double wait_ms = 0;       // time spent waiting for a spare to be ready
    int target = 0;           // spares kept at the end (adaptive)
    double startup_ms = 0;    // mean time from a spare's start to its GPU being up (as polled)
};

// The GPU memory a gi-worker holding cases of `case_bytes` together is reckoned to take: its
// context, and each case's pristine, poison and up to 8 working copies. Workers beside the
// evaluator's (spares, cuda/first_runs_ahead.hpp) are kept within half the GPU's memory by it.
inline double worker_memory_estimate(double case_bytes) { return 512.0 * (1 << 20) + 10.0 * case_bytes; }

class SpareWorkers {
public:
    // How hard the evaluator's workers are being used, for the pool's size.
    struct Demand {
        long restarts = 0;              // workers replaced so far
        double ms_since_first_use = 0;  // since the first worker started
        std::uint64_t gpu_memory = 0;   // bytes; 0 = unknown
    };
    // What the pool asks the evaluator.
    class Owner {
    public:
        virtual ~Owner() = default;
        virtual worker::WorkerOptions worker_options() const = 0;
        virtual worker::Message load_message(int case_index) const = 0;
        // "put-case": the case's files, for a worker whose node does not see them (worker/case_store.hpp).
        virtual worker::Message put_case_message(int case_index) = 0;
        // What a "case-loaded" reply says about the handed-over reference; true when it was taken.
        virtual bool took_reference(int case_index, const worker::Message& reply) = 0;
        virtual std::uint64_t case_bytes(int case_index) const = 0;
        virtual Demand demand() const = 0;
    };
    // A spare taken over as the main worker.
    struct Adopted {
        std::unique_ptr<worker::WorkerProcess> process;
        // The cases it has loaded (verified), each with whether it took the original's outputs
        // from the hand-over file.
        std::map<int, bool> cases;
    };

    // `minimum`: --spare-workers (0: no spares at all).
    SpareWorkers(int minimum, Owner& owner) : minimum_(minimum), target_(minimum), owner_(owner) {}
    ~SpareWorkers();
    SpareWorkers(const SpareWorkers&) = delete;
    SpareWorkers& operator=(const SpareWorkers&) = delete;

    // Reads the replies the spares have ready, drops broken ones.
    void poll();
    // Starts or ends spares to the wanted number.
    void top_up();
    // Points the spares at `index` (after the original's outputs for it are on file).
    void prepare(int index);
    // The spare furthest along (one holding `want_case` first), waiting for it if need be; none
    // when every spare failed or there are none.
    std::optional<Adopted> adopt(int want_case);

    const SpareWorkerStats& stats() const { return stats_; }

private:
    // A worker started ahead of need. Its requests are pipelined; `expect` lists the replies not
    // read yet, in order.
    struct Spare {
        std::unique_ptr<worker::WorkerProcess> process;
        std::chrono::steady_clock::time_point spawned;
        // Requests whose replies are pending, in order: their type and the case they name.
        std::deque<std::pair<std::string, int>> expect;
        std::set<int> sent;                 // the cases sent to it and not unloaded
        std::map<int, bool> loaded;         // of them, those it loaded: whether it took the reference
        bool ready = false;                 // every reply read, hello and case loads succeeded
        bool broken = false;
    };

    int wanted();
    void advance(Spare& spare, bool wait);
    void send_case(Spare& spare);
    // Whether a worker may keep every case given so far: their copies (10 x a case's bytes each,
    // as wanted() counts them) for it and each spare within half the GPU's memory.
    bool keep_all_cases() const;
    double given_bytes() const;  // the bytes of every case given so far, one copy each

    int minimum_;
    int target_;
    Owner& owner_;
    std::deque<Spare> spares_;
    int case_ = -1;
    std::set<int> given_;  // every case prepare() was given
    double startup_ms_ = 0;  // mean observed time from a spare's start to its GPU being up
    long startups_ = 0;
    SpareWorkerStats stats_;
};

}  // namespace gi
