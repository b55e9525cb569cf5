#include "util/long_wait.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gi {
namespace {

struct LongWaitLines {
    std::mutex mutex;
    std::vector<std::string> lines;
    LongWaits::Sink sink() {
        return [this](const std::string& line) {
            std::lock_guard lock(mutex);
            lines.push_back(line);
        };
    }
    std::vector<std::string> taken() {
        std::lock_guard lock(mutex);
        return lines;
    }
};

TEST(LongWait, AWaitShorterThanTheThresholdSaysNothing) {
    LongWaitLines out;
    {
        LongWaits waits(std::chrono::milliseconds(500), out.sink());
        { LongWait w("a quick compile", waits); }
        std::this_thread::sleep_for(std::chrono::milliseconds(700));
    }
    EXPECT_TRUE(out.taken().empty());
}

TEST(LongWait, ALongWaitIsNamedAtTheThresholdAndAgainAtTwiceIt) {
    LongWaitLines out;
    {
        LongWaits waits(std::chrono::milliseconds(100), out.sink());
        LongWait w("the compile of variant 7", waits);
        std::this_thread::sleep_for(std::chrono::milliseconds(330));
    }
    const std::vector<std::string> lines = out.taken();
    ASSERT_EQ(lines.size(), 2u);  // at 100 ms and 200 ms; the next is due at 400 ms
    EXPECT_EQ(lines[0], "still waiting after 0 s for the compile of variant 7");
    EXPECT_NE(lines[1].find("for the compile of variant 7"), std::string::npos);
}

TEST(LongWait, OnlyTheWaitStillOpenIsNamed) {
    LongWaitLines out;
    {
        LongWaits waits(std::chrono::milliseconds(150), out.sink());
        LongWait slow("gi-worker's answer to a 'run' request", waits);
        { LongWait quick("a cached compile", waits); }
        std::this_thread::sleep_for(std::chrono::milliseconds(220));
    }
    const std::vector<std::string> lines = out.taken();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("gi-worker's answer to a 'run' request"), std::string::npos);
}

}  // namespace
}  // namespace gi
