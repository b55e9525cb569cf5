#include "search/anneal_pool.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace gi {

std::unique_ptr<LockedEvaluator> make_locked(Evaluator& inner) { return std::make_unique<LockedEvaluator>(inner); }

EvaluatorPool::EvaluatorPool(std::vector<Evaluator*> evaluators) : evaluators_(std::move(evaluators)) {
    if (evaluators_.empty()) throw Error("the asynchronous search needs at least one worker");
    case_count_ = evaluators_.front()->case_count();
    busy_.assign(evaluators_.size(), 0.0);
    for (std::size_t i = 0; i < evaluators_.size(); ++i) threads_.emplace_back([this, i] { run(i); });
}

EvaluatorPool::~EvaluatorPool() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        queue_.clear();
    }
    work_ready_.notify_all();
    for (std::thread& t : threads_) t.join();
}

double EvaluatorPool::now_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

double EvaluatorPool::elapsed_s() const { return now_s(); }

std::vector<double> EvaluatorPool::busy_s() const {
    std::lock_guard lock(mutex_);
    return busy_;
}

std::uint64_t EvaluatorPool::submit(std::vector<Variant> variants, int case_index) {
    std::uint64_t ticket;
    {
        std::lock_guard lock(mutex_);
        ticket = next_ticket_++;
        queue_.push_back({ticket, std::move(variants), case_index});
        outstanding_.insert(ticket);
        ++in_flight_;
    }
    work_ready_.notify_one();
    return ticket;
}

std::size_t EvaluatorPool::in_flight() const {
    std::lock_guard lock(mutex_);
    return in_flight_;
}

PoolResult EvaluatorPool::wait_any() {
    std::unique_lock lock(mutex_);
    if (in_flight_ == 0) throw Error("EvaluatorPool::wait_any: nothing is being evaluated");
    result_ready_.wait(lock, [this] { return !done_.empty() || failure_; });
    if (failure_) std::rethrow_exception(failure_);
    PoolResult result = std::move(done_.front());
    done_.pop_front();
    outstanding_.erase(result.ticket);
    --in_flight_;
    return result;
}

PoolResult EvaluatorPool::wait_for(std::uint64_t ticket) {
    std::unique_lock lock(mutex_);
    if (!outstanding_.count(ticket))
        throw Error("EvaluatorPool::wait_for: job " + std::to_string(ticket) + " is not being evaluated");
    auto finished = [&] {
        return std::find_if(done_.begin(), done_.end(), [&](const PoolResult& r) { return r.ticket == ticket; });
    };
    result_ready_.wait(lock, [&] { return failure_ || finished() != done_.end(); });
    if (failure_) std::rethrow_exception(failure_);
    const auto it = finished();
    PoolResult result = std::move(*it);
    done_.erase(it);
    outstanding_.erase(ticket);
    --in_flight_;
    return result;
}

void EvaluatorPool::run(std::size_t worker) {
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (stopping_) return;
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        PoolResult result;
        result.ticket = job.ticket;
        result.worker = static_cast<int>(worker);
        result.started_s = now_s();
        try {
            result.result = evaluators_[worker]->evaluate(job.variants, job.case_index);
        } catch (...) {
            std::lock_guard lock(mutex_);
            failure_ = std::current_exception();
            result_ready_.notify_all();
            return;
        }
        result.finished_s = now_s();
        {
            std::lock_guard lock(mutex_);
            busy_[worker] += result.finished_s - result.started_s;
            done_.push_back(std::move(result));
        }
        result_ready_.notify_all();
    }
}

}  // namespace gi
