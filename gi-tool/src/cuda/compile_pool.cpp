#include "cuda/compile_pool.hpp"

#include <sys/resource.h>
#include <unistd.h>

namespace gi {

namespace {
constexpr int kCompileNice = 10;
}  // namespace

void CompilePool::loop() {
    // Compiles are throughput work; the GPU worker and this process's main thread are latency
    // work (a variant's run waits on their replies, its allowance is counted in milliseconds).
    // With every core compiling, an equal share left the worker waiting several ms per step.
    // Failure is harmless (the thread keeps the normal priority). nvcc children inherit it.
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kCompileNice);
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;
            task = std::move(queue_.front());
            queue_.pop_front();
        }
        task();
    }
}

}  // namespace gi
