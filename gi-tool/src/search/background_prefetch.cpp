#include "search/background_prefetch.hpp"

#include <utility>

namespace gi {

BackgroundPrefetch::BackgroundPrefetch(DrawPrefetch prefetch) : prefetch_(std::move(prefetch)) {}

BackgroundPrefetch::~BackgroundPrefetch() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        queued_.clear();
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void BackgroundPrefetch::add(const Genome& genome) {
    if (!prefetch_) return;
    {
        std::lock_guard lock(mutex_);
        queued_.push_back(genome);
        if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    }
    wake_.notify_one();
}

void BackgroundPrefetch::wait_idle() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return queued_.empty() && !busy_; });
}

void BackgroundPrefetch::loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
        if (stopping_) break;
        // Everything queued at once: the prefetch compiles those not yet known in parallel.
        std::vector<Genome> batch = std::exchange(queued_, {});
        busy_ = true;
        lock.unlock();
        try {
            prefetch_(batch);
        } catch (...) {
            // Nothing lost: a draw on one of these compiles it itself, as without a prefetch.
        }
        lock.lock();
        busy_ = false;
        if (queued_.empty()) idle_.notify_all();
    }
    busy_ = false;
    idle_.notify_all();
}

}  // namespace gi
