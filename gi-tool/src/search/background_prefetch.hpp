#pragma once
// A DrawPrefetch run off the caller's thread. The annealing master has no generation to prefetch
// for: it hands each individual that may become a parent to add() as it joins, and goes on
// handing out children while that individual's PTX compiles (nvcc's front end: 0.3-0.5 s a
// genome, bench/results/2026-11-29-cpu-ptx-front-ends.md). A draw that comes first waits for the
// compile in progress instead of starting its own (PtxEditDrawer's cache), so draws never differ.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "genome/genome.hpp"
#include "search/code_edit.hpp"

namespace gi {

class BackgroundPrefetch {
public:
    explicit BackgroundPrefetch(DrawPrefetch prefetch);  // empty: add() does nothing
    BackgroundPrefetch(const BackgroundPrefetch&) = delete;
    BackgroundPrefetch& operator=(const BackgroundPrefetch&) = delete;
    // Waits for the prefetch in progress (a draw may be waiting on it); drops what is queued.
    ~BackgroundPrefetch();

    void add(const Genome& genome);
    // Blocks until everything added so far has been prefetched (tests, and a caller about to draw
    // from all of them).
    void wait_idle();

private:
    void loop();

    DrawPrefetch prefetch_;
    std::mutex mutex_;
    std::condition_variable wake_, idle_;
    std::vector<Genome> queued_;
    bool busy_ = false;
    bool stopping_ = false;
    std::thread thread_;  // started by the first add()
};

}  // namespace gi
