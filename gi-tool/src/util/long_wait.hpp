#pragma once
// A wait that lasts long says so. A run that prints nothing for a minute looks hung, and one that
// is hung cannot tell where; a LongWait names what a thread waits for (a compile, a worker's
// answer), and when it has lasted the threshold (20 s by default) one line on standard error says
// what and for how long, again at twice, four times ... the threshold. Nothing is printed for waits
// that end sooner, so a healthy run's output is unchanged.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace gi {

class LongWaits {
public:
    using Sink = std::function<void(const std::string& line)>;
    LongWaits(std::chrono::milliseconds threshold, Sink sink);
    ~LongWaits();
    LongWaits(const LongWaits&) = delete;
    LongWaits& operator=(const LongWaits&) = delete;

    // Registers a wait (returns its id) and forgets it.
    long begin(std::string what);
    void end(long id);

private:
    struct Wait {
        std::string what;
        std::chrono::steady_clock::time_point start, next_note;
        std::chrono::milliseconds next_after;
    };
    void watch();

    const std::chrono::milliseconds threshold_;
    const Sink sink_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<long, Wait> waits_;
    long next_id_ = 0;
    bool stopping_ = false;
    std::thread watcher_;  // started at the first wait
};

// The process's own: notes go to standard error as "gi-tool: still waiting after 20 s for ...".
LongWaits& long_waits();

// Registers `what` with long_waits() for the scope's life.
class LongWait {
public:
    explicit LongWait(std::string what, LongWaits& waits = long_waits()) : waits_(waits), id_(waits.begin(std::move(what))) {}
    ~LongWait() { waits_.end(id_); }
    LongWait(const LongWait&) = delete;
    LongWait& operator=(const LongWait&) = delete;

private:
    LongWaits& waits_;
    long id_;
};

}  // namespace gi
