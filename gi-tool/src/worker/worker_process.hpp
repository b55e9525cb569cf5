#pragma once
// The parent's handle on one gi-worker process (Boost.Process, pipes on stdin/stdout, stderr to a
// log file). Every request has a deadline: a worker that does not answer in time is killed, so a
// variant that loops forever costs its timeout and a restart, never the run.
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "worker/protocol.hpp"

namespace gi::worker {

// A request that got no reply: the worker timed out (and was killed), died, or spoke nonsense; or,
// started through a launcher, was lost with it (worker/launcher.hpp: its node or connection went,
// so what it was asked to run is not to blame).
class WorkerFailure : public Error {
public:
    enum class Kind { Timeout, Died, Protocol, LauncherLost };
    WorkerFailure(Kind kind, const std::string& what) : Error(what), kind_(kind) {}
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

struct WorkerOptions {
    std::string executable;                   // path of gi-worker (or a test's stand-in)
    std::vector<std::string> args;
    std::map<std::string, std::string> env;   // added to this process's environment
    std::filesystem::path log_file;           // the worker's stderr; "" = a temporary file
    bool own_process_group = false;           // kill() ends the whole group (a program that runs the worker)
    // A command prefix that starts the worker elsewhere (worker/launcher.hpp); `env` then goes on
    // its command line. Implies own_process_group, and kill() asks the launcher to end (SIGTERM: srun
    // then cancels its step) before it kills the group.
    std::vector<std::string> launcher;
    // How the launcher's messages name the process and the option the launcher came from (NVRTC's
    // compile processes have a launcher of their own, cuda/nvrtc_processes.hpp).
    std::string role = "the GPU worker";
    std::string launcher_option = "--worker-launcher / GI_WORKER_LAUNCHER";
};

// Killed workers are reaped on threads of their own; a killed worker's CUDA context (and a hung
// kernel in it) is gone only once it is reaped. Waits until every worker killed so far is reaped
// or `timeout` passes; returns whether they all were.
bool wait_for_killed_workers(std::chrono::milliseconds timeout);

// How many killed workers are not reaped yet (their contexts may still be on the GPU).
int killed_workers_exiting();

// Over this process's life: workers killed and reaped, and their mean time from the kill until
// the kernel let them exit (the driver tearing down their context).
struct KilledWorkerExits {
    long reaped = 0;
    double mean_ms = 0;
};
KilledWorkerExits killed_worker_exits();

class WorkerProcess {
public:
    // Starts the worker; throws gi::Error naming the executable when it cannot be started.
    explicit WorkerProcess(WorkerOptions options);
    ~WorkerProcess();
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    // Sends `request` and returns the reply. On timeout the worker is killed first. Throws
    // WorkerFailure; after one the worker is gone and running() is false.
    Message request(const Message& request, std::chrono::milliseconds timeout);

    // The two halves of request(), for pipelining: several requests sent before their replies are
    // read (the worker answers in order). Send only small requests ahead: a large one would block
    // until the worker reads it.
    void send(const Message& request, std::chrono::milliseconds timeout);
    Message receive(const std::string& request_type, std::chrono::milliseconds timeout);

    // A reply that has already arrived, without waiting: nullopt when none is complete yet.
    // Throws WorkerFailure (the worker is then gone) when it died or spoke nonsense.
    std::optional<Message> try_receive(const std::string& request_type);

    bool running() const;
    void kill();                               // idempotent
    std::string log_tail(std::size_t bytes = 4000) const;  // the end of the worker's stderr
    int pid() const;

private:
    Message receive_until(const std::string& request_type, std::chrono::steady_clock::time_point deadline,
                          std::chrono::milliseconds timeout);  // `timeout` only names the limit in messages
    WorkerFailure died(const std::string& when);
    WorkerFailure timed_out(std::chrono::milliseconds timeout, const std::string& when);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A "run" request, answered in stages: "started" before its check launch (module load and copies:
// 30 s), "checked" after it (`check_wait`: the kernel's allowance), then the result (`rest_wait`:
// comparison and timed launches), so a hung kernel is cut off at its own deadline. Throws
// WorkerFailure as request() does.
Message request_in_stages(WorkerProcess& process, const Message& run, std::chrono::milliseconds check_wait,
                          std::chrono::milliseconds rest_wait);

// Removes the logs in `dir` that workers of processes no longer running left behind
// (gi-worker-<owner pid>-<n>.log: an owner killed before it could remove its workers' logs). A
// WorkerProcess without a log file of its own names its log so, and sweeps the temporary
// directory once per process.
void remove_orphaned_worker_logs(const std::filesystem::path& dir);

}  // namespace gi::worker
