#pragma once
// The cuda evaluator's compile threads: a fixed set fed from a queue, futures carrying the results
// back, so the next batch's variants compile while the GPU runs this one's.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gi {

class CompilePool {
public:
    explicit CompilePool(int threads) {
        for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
    }
    ~CompilePool() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }
    template <typename Result>
    std::shared_future<Result> submit(std::function<Result()> job) {
        auto task = std::make_shared<std::packaged_task<Result()>>(std::move(job));
        auto future = task->get_future().share();
        {
            std::lock_guard lock(mutex_);
            queue_.push_back([task] { (*task)(); });
        }
        wake_.notify_one();
        return future;
    }

private:
    void loop();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> threads_;
    bool stopping_ = false;
};

}  // namespace gi
