#include "worker/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstdio>
#include <condition_variable>
#include <mutex>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "process/process.hpp"
#include "process/spawn_lock.hpp"
#include "util/elapsed.hpp"
#include "util/long_wait.hpp"
#include "worker/launcher.hpp"

namespace gi::worker {
namespace bp = boost::process;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct WorkerProcess::Impl {
    WorkerOptions options;
    bp::pipe to_worker;
    bp::pipe from_worker;
    bp::child child;
    MessageReader reader;
    fs::path log_file;
    bool owns_log = false;
    bool alive = false;
    bool answered = true;  // a reply came since the last request was sent
    int exit_status = 0;   // waitpid's, once describe_exit() has reaped it

    bool launched() const { return !options.launcher.empty(); }
    std::string launcher_text() const { return command_line_text(options.launcher); }

    std::string describe_exit() {
        std::error_code ec;
        if (launched()) {
            exit_status = reap_launcher();
        } else {
            child.wait(ec);
            exit_status = child.native_exit_code();
        }
        const int status = exit_status;
        std::string text;
        if (WIFSIGNALED(status)) text = "was killed by signal " + std::to_string(WTERMSIG(status));
        else if (WIFEXITED(status)) text = "exited with status " + std::to_string(WEXITSTATUS(status));
        else text = "ended";
        return text;
    }

    // The launcher closed the pipe: it is exiting, or (a launcher that outlives its worker) is
    // ended here after 5 s, so a failure never waits on it.
    int reap_launcher() {
        const pid_t pid = child.id();
        int status = 0;
        const auto deadline = Clock::now() + std::chrono::seconds(5);
        for (;;) {
            const pid_t done = ::waitpid(pid, &status, WNOHANG);
            if (done == pid) break;
            if (done < 0 && errno != EINTR) break;
            if (Clock::now() > deadline) {
                ::kill(-pid, SIGKILL);
                while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
                }
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        child.detach();  // reaped here: Boost must not wait for (or signal) the pid again
        return status;
    }
};

namespace {
// Leaked on purpose: detached reaper threads may outlive static destruction.
struct Reaping {
    std::mutex mutex;
    std::condition_variable done;
    int pending = 0;
    long reaped = 0;
    double exit_ms = 0;  // summed over `reaped`: from SIGKILL until waitpid returned
};
Reaping& reaping() {
    static Reaping* r = new Reaping;
    return *r;
}

}  // namespace

void remove_orphaned_worker_logs(const fs::path& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        unsigned long owner = 0;
        char tail[8] = {};
        if (std::sscanf(name.c_str(), "gi-worker-%lu-%*u%7s", &owner, tail) != 2 || std::strcmp(tail, ".log") != 0) continue;
        if (owner == 0 || owner == static_cast<unsigned long>(::getpid())) continue;
        if (::kill(static_cast<pid_t>(owner), 0) == -1 && errno == ESRCH) {
            std::error_code ignored;
            fs::remove(it->path(), ignored);
        }
    }
}

namespace {
std::string temp_log_name() {
    const fs::path dir = fs::temp_directory_path();
    static std::once_flag swept;
    std::call_once(swept, [&] { remove_orphaned_worker_logs(dir); });
    std::random_device device;
    return (dir / ("gi-worker-" + std::to_string(::getpid()) + "-" + std::to_string(device()) + ".log")).string();
}
}  // namespace

WorkerProcess::WorkerProcess(WorkerOptions options) {
    // From the pipes' creation (in Impl) until the child has exec'd, no other thread may fork: it
    // would inherit ends that are not close-on-exec yet (process/spawn_lock.hpp).
    std::unique_lock spawning(spawn_mutex());
    impl_ = std::make_unique<Impl>();
    // A worker that dies while we write to it must give us EPIPE, not kill gi-tool with SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
    impl_->options = std::move(options);
    impl_->log_file = impl_->options.log_file;
    if (impl_->log_file.empty()) {
        impl_->log_file = temp_log_name();
        impl_->owns_log = true;
    }
    bp::environment env = boost::this_process::environment();
    for (const auto& [key, value] : impl_->options.env) env[key] = value;
    if (impl_->launched()) {
        // The launcher runs first; the worker, its environment and arguments are its arguments.
        const WorkerOptions& o = impl_->options;
        std::vector<std::string> argv = launched_command(o.launcher, o.env, o.executable, o.args);
        impl_->options.executable = argv.front();
        if (impl_->options.executable.find('/') == std::string::npos) {
            const fs::path found = bp::search_path(impl_->options.executable).string();
            if (found.empty())
                throw Error("cannot start " + impl_->options.role + " through the launcher '" + impl_->launcher_text() + "': '" +
                            argv.front() + "' is not on PATH (check " + impl_->options.launcher_option + ")");
            impl_->options.executable = found.string();
        }
        impl_->options.args.assign(argv.begin() + 1, argv.end());
        impl_->options.own_process_group = true;
    }
    // Close-on-exec, so processes other threads start (nvcc, other workers) never inherit these
    // ends and keep a dead worker's pipe open.
    for (int fd : {impl_->to_worker.native_source(), impl_->to_worker.native_sink(),
                   impl_->from_worker.native_source(), impl_->from_worker.native_sink()})
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    std::error_code ec;
    if (impl_->options.own_process_group)
        impl_->child = bp::child(bp::exe = impl_->options.executable, bp::args = impl_->options.args,
                                 bp::std_in < impl_->to_worker, bp::std_out > impl_->from_worker,
                                 bp::std_err > impl_->log_file.string(), env, ec,
                                 bp::extend::on_exec_setup = [](auto&) { ::setpgid(0, 0); });
    else
        impl_->child = bp::child(bp::exe = impl_->options.executable, bp::args = impl_->options.args,
                                 bp::std_in < impl_->to_worker, bp::std_out > impl_->from_worker,
                                 bp::std_err > impl_->log_file.string(), env, ec);
    if (ec && impl_->launched())
        throw Error("cannot start " + impl_->options.role + " through the launcher '" + impl_->launcher_text() + "': " + ec.message() +
                    " (check " + impl_->options.launcher_option + ")");
    if (ec)
        throw Error("cannot start the GPU worker '" + impl_->options.executable + "': " + ec.message() +
                    " (build the gi-worker target, or pass its path with --worker)");
    // Boost.Process closed our copies of the child's ends; forget them so they are not closed twice.
    impl_->to_worker.assign_source(-1);
    impl_->from_worker.assign_sink(-1);
    impl_->alive = true;
}

WorkerProcess::~WorkerProcess() {
    kill();
    if (impl_->owns_log) {
        std::error_code ec;
        fs::remove(impl_->log_file, ec);
    }
}

bool WorkerProcess::running() const { return impl_->alive; }

int WorkerProcess::pid() const { return impl_->child.id(); }

void WorkerProcess::kill() {
    if (!impl_->alive) return;
    impl_->alive = false;
    std::error_code ec;
    // Boost's terminate() does not wait for the child, which would leave a zombie; waiting here
    // would block on the driver tearing down a context with a hung kernel. So: kill, reap on a
    // thread of its own, and detach so Boost never signals the (possibly reused) pid again.
    if (impl_->child.running(ec)) {
        const pid_t pid = impl_->child.id();
        const bool launched = impl_->launched();
        // A launcher is asked first (srun cancels its step on SIGTERM; killed, it leaves the step to
        // Slurm's own timeouts), and killed with its group 2 s later if it is still there.
        ::kill(impl_->options.own_process_group ? -pid : pid, launched ? SIGTERM : SIGKILL);
        {
            std::lock_guard lock(reaping().mutex);
            ++reaping().pending;
        }
        std::thread([pid, launched, killed = Clock::now()] {
            int status = 0;
            if (launched) {
                pid_t done = 0;
                while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && ms_since(killed) < 2000)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                ::kill(-pid, SIGKILL);  // the launcher if still there, and whatever it left in its group
                if (done == 0)
                    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
                    }
            } else {
                while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
                }
            }
            const double ms = ms_since(killed);
            Reaping& r = reaping();
            {
                std::lock_guard lock(r.mutex);
                --r.pending;
                ++r.reaped;
                r.exit_ms += ms;
            }
            r.done.notify_all();
        }).detach();
    }
    impl_->child.detach();
    impl_->to_worker.close();
    impl_->from_worker.close();
}

std::string WorkerProcess::log_tail(std::size_t bytes) const {
    std::ifstream in(impl_->log_file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (text.size() > bytes) text = "..." + text.substr(text.size() - bytes);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

namespace {
int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::max<long long>(0, std::min<long long>(left, 1 << 30)));
}
}  // namespace

WorkerFailure WorkerProcess::died(const std::string& when) {
    impl_->alive = false;
    const std::string exit = impl_->describe_exit();
    impl_->to_worker.close();
    impl_->from_worker.close();
    const std::string tail = log_tail(1500);
    const std::string last_words = tail.empty() ? "" : "; its last words: " + tail;
    if (impl_->launched() && launcher_lost(impl_->exit_status, impl_->answered))
        return WorkerFailure(WorkerFailure::Kind::LauncherLost,
                             impl_->options.role + " started through the launcher '" + impl_->launcher_text() + "' was lost: the launcher " +
                                 exit + " " + when + (impl_->answered ? "" : ", before the worker answered it") + last_words);
    if (impl_->launched()) return WorkerFailure(WorkerFailure::Kind::Died, impl_->options.role + " (through the launcher '" + impl_->launcher_text() + "') " + exit + " " + when + last_words);
    return WorkerFailure(WorkerFailure::Kind::Died, "the GPU worker " + exit + " " + when + last_words);
}

WorkerFailure WorkerProcess::timed_out(std::chrono::milliseconds timeout, const std::string& when) {
    kill();
    return WorkerFailure(WorkerFailure::Kind::Timeout, "the GPU worker did not answer within " +
                                                           std::to_string(timeout.count()) + " ms " + when + " and was killed");
}

void WorkerProcess::send(const Message& request, std::chrono::milliseconds timeout) {
    if (!impl_->alive) throw WorkerFailure(WorkerFailure::Kind::Died, "the GPU worker is not running");
    const auto deadline = Clock::now() + timeout;
    impl_->answered = false;
    const std::string bytes = encode(request);
    const int out_fd = impl_->to_worker.native_sink();
    std::size_t done = 0;
    while (done < bytes.size()) {
        pollfd p{out_fd, POLLOUT, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) throw timed_out(timeout, "while taking a '" + request.type + "' request");
        const ssize_t n = ::write(out_fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) throw died("before taking a '" + request.type + "' request");
        done += static_cast<std::size_t>(n);
    }
}

Message WorkerProcess::receive(const std::string& request_type, std::chrono::milliseconds timeout) {
    return receive_until(request_type, Clock::now() + timeout, timeout);
}

Message WorkerProcess::receive_until(const std::string& request_type, std::chrono::steady_clock::time_point deadline,
                                     std::chrono::milliseconds timeout) {
    if (!impl_->alive) throw WorkerFailure(WorkerFailure::Kind::Died, "the GPU worker is not running");
    const int in_fd = impl_->from_worker.native_source();
    const LongWait noted("gi-worker (pid " + std::to_string(pid()) + ") to answer a '" + request_type + "' request (killed after " +
                         std::to_string(timeout.count() / 1000) + " s)");
    for (;;) {
        try {
            if (auto reply = impl_->reader.next()) {
                impl_->answered = true;
                return *reply;
            }
        } catch (const Error& e) {
            kill();
            throw WorkerFailure(WorkerFailure::Kind::Protocol, e.what());
        }
        pollfd p{in_fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) throw timed_out(timeout, "on a '" + request_type + "' request");
        char chunk[65536];
        const ssize_t n = ::read(in_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw died("while answering a '" + request_type + "' request");
        impl_->reader.feed(chunk, static_cast<std::size_t>(n));
    }
}

Message request_in_stages(WorkerProcess& process, const Message& run, std::chrono::milliseconds check_wait,
                          std::chrono::milliseconds rest_wait) {
    process.send(run, std::chrono::seconds(30));
    Message reply = process.receive(run.type, std::chrono::seconds(30));
    if (reply.type == "started") reply = process.receive(run.type, check_wait);
    if (reply.type == "checked") reply = process.receive(run.type, rest_wait);
    return reply;
}

std::optional<Message> WorkerProcess::try_receive(const std::string& request_type) {
    if (!impl_->alive) throw WorkerFailure(WorkerFailure::Kind::Died, "the GPU worker is not running");
    const int in_fd = impl_->from_worker.native_source();
    for (;;) {
        try {
            if (auto reply = impl_->reader.next()) {
                impl_->answered = true;
                return reply;
            }
        } catch (const Error& e) {
            kill();
            throw WorkerFailure(WorkerFailure::Kind::Protocol, e.what());
        }
        pollfd p{in_fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, 0);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return std::nullopt;
        char chunk[65536];
        const ssize_t n = ::read(in_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw died("while answering a '" + request_type + "' request");
        impl_->reader.feed(chunk, static_cast<std::size_t>(n));
    }
}

bool wait_for_killed_workers(std::chrono::milliseconds timeout) {
    Reaping& r = reaping();
    std::unique_lock lock(r.mutex);
    return r.done.wait_for(lock, timeout, [&] { return r.pending == 0; });
}

int killed_workers_exiting() {
    Reaping& r = reaping();
    std::lock_guard lock(r.mutex);
    return r.pending;
}

KilledWorkerExits killed_worker_exits() {
    Reaping& r = reaping();
    std::lock_guard lock(r.mutex);
    return {r.reaped, r.reaped ? r.exit_ms / static_cast<double>(r.reaped) : 0.0};
}

Message WorkerProcess::request(const Message& request, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    send(request, timeout);
    return receive_until(request.type, deadline, timeout);
}

}  // namespace gi::worker
