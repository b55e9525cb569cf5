#pragma once
// The workers of the asynchronous search (seed 003 3.2, Fig. 8): N threads, each with its own
// Evaluator, each taking the next job as soon as it is free. A job is a small batch of variants on
// one case (usually one variant). The master submits jobs and waits for whichever finishes first,
// so nothing waits for a generation to end. The pool also measures how busy its workers were, so
// tests and reports can show that the master kept them fed.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "evaluate/evaluator.hpp"

namespace gi {

// Serialises evaluate() calls on one Evaluator that several users share (a pool worker and the
// run's tuning and minimisation, so they never run on one GPU at the same time). The checker is
// the inner one, which keeps its calls apart from evaluate() itself (evaluate/variant_checker.hpp).
class LockedEvaluator : public Evaluator {
public:
    explicit LockedEvaluator(Evaluator& inner) : inner_(inner) {}
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        std::lock_guard lock(mutex_);
        return inner_.evaluate(variants, case_index);
    }
    EvaluatorTraits traits() const override { return inner_.traits(); }
    EvaluatorReport report() override {
        std::lock_guard lock(mutex_);
        return inner_.report();
    }
    VariantChecker* checker() override { return inner_.checker(); }

private:
    Evaluator& inner_;
    std::mutex mutex_;
};

// The run's evaluator, serialised with anneal's first worker.
std::unique_ptr<LockedEvaluator> make_locked(Evaluator& inner);

struct PoolResult {
    std::uint64_t ticket = 0;
    int worker = 0;
    BatchResult result;
    double started_s = 0;   // seconds since the pool started
    double finished_s = 0;
};

class EvaluatorPool {
public:
    // One thread per evaluator; the evaluators must outlive the pool and each is used by its own
    // thread only. Throws gi::Error when `evaluators` is empty.
    explicit EvaluatorPool(std::vector<Evaluator*> evaluators);
    // Waits for the jobs being evaluated to finish; queued jobs are dropped.
    ~EvaluatorPool();
    EvaluatorPool(const EvaluatorPool&) = delete;
    EvaluatorPool& operator=(const EvaluatorPool&) = delete;

    std::size_t workers() const { return threads_.size(); }
    int case_count() const { return case_count_; }

    // Queues a job; returns its ticket.
    std::uint64_t submit(std::vector<Variant> variants, int case_index);
    // Jobs submitted and not yet returned by wait_any().
    std::size_t in_flight() const;
    // Blocks until some job has finished and returns it (finishing order). Rethrows an exception
    // an evaluator threw. Throws gi::Error when nothing is in flight.
    PoolResult wait_any();
    // Blocks until job `ticket` has finished and returns it; jobs that finish meanwhile wait for
    // their own call. Taking results in submission order makes what a master does with them
    // independent of thread timing. Rethrows an evaluator's exception; throws gi::Error for a
    // ticket that is not in flight.
    PoolResult wait_for(std::uint64_t ticket);

    // Seconds since the pool started, and each worker's seconds spent inside evaluate().
    double elapsed_s() const;
    std::vector<double> busy_s() const;

private:
    struct Job {
        std::uint64_t ticket;
        std::vector<Variant> variants;
        int case_index;
    };
    void run(std::size_t worker);
    double now_s() const;

    std::vector<Evaluator*> evaluators_;
    std::vector<std::thread> threads_;
    int case_count_ = 0;
    mutable std::mutex mutex_;
    std::condition_variable work_ready_, result_ready_;
    std::deque<Job> queue_;
    std::deque<PoolResult> done_;
    std::set<std::uint64_t> outstanding_;  // submitted, not yet returned
    std::exception_ptr failure_;
    std::vector<double> busy_;
    std::uint64_t next_ticket_ = 1;
    std::size_t in_flight_ = 0;
    bool stopping_ = false;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace gi
