#include "util/long_wait.hpp"

#include <iostream>
#include <vector>

namespace gi {

LongWaits::LongWaits(std::chrono::milliseconds threshold, Sink sink) : threshold_(threshold), sink_(std::move(sink)) {}

LongWaits::~LongWaits() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    if (watcher_.joinable()) watcher_.join();
}

long LongWaits::begin(std::string what) {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    const long id = next_id_++;
    waits_.emplace(id, Wait{std::move(what), now, now + threshold_, threshold_});
    if (!watcher_.joinable()) watcher_ = std::thread([this] { watch(); });
    changed_.notify_all();
    return id;
}

void LongWaits::end(long id) {
    std::lock_guard lock(mutex_);
    waits_.erase(id);
}

namespace {
std::string seconds_text(std::chrono::steady_clock::duration d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + " s";
}
}  // namespace

void LongWaits::watch() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        auto wake = std::chrono::steady_clock::time_point::max();
        for (const auto& [id, wait] : waits_) wake = std::min(wake, wait.next_note);
        if (wake == std::chrono::steady_clock::time_point::max()) {
            changed_.wait(lock);
            continue;
        }
        changed_.wait_until(lock, wake);
        const auto now = std::chrono::steady_clock::now();
        std::vector<std::string> due;
        for (auto& [id, wait] : waits_) {
            if (now < wait.next_note) continue;
            due.push_back("still waiting after " + seconds_text(now - wait.start) + " for " + wait.what);
            wait.next_after *= 2;
            wait.next_note = wait.start + wait.next_after;
        }
        // Printed without the lock: a sink that blocks must not hold up the waits it reports.
        lock.unlock();
        for (const std::string& line : due) sink_(line);
        lock.lock();
    }
}

LongWaits& long_waits() {
    static LongWaits waits(std::chrono::seconds(20), [](const std::string& line) {
        std::cerr << ("gi-tool: " + line + "\n") << std::flush;
    });
    return waits;
}

}  // namespace gi
