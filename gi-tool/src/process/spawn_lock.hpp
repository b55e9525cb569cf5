#pragma once
// One lock for every child process gi-tool starts (run_process, worker::WorkerProcess), held from
// the creation of the child's pipes until it has exec'd. Boost.Process 1.74 creates the pipe that
// tells it whether exec failed with pipe(2) and marks its write end close-on-exec only afterwards,
// and reads it until every copy of that end is closed. A child forked by another thread in between
// inherits the end, execs, and keeps it open for its whole life: the first thread then waits in
// the child's constructor until that other child ends. With long-lived siblings (NVRTC servers,
// sanitizer sessions, gi-workers) that was forever: issue 44's 350 s "still waiting for a
// variant's NVRTC compile" on the H200, and the stalls of 60-80 s seen before (issue 41).
#include <mutex>

namespace gi {

std::mutex& spawn_mutex();

}  // namespace gi
