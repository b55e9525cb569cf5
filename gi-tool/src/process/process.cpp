#include "process/process.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <boost/asio/io_context.hpp>
#include <boost/process/args.hpp>
#include <boost/process/async_pipe.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exception.hpp>
#include <boost/process/group.hpp>
#include <boost/process/io.hpp>
#include <boost/process/search_path.hpp>
#include <boost/process/start_dir.hpp>
#include <mutex>
#include <optional>
#include <thread>

#include "process/spawn_lock.hpp"
#include "util/error.hpp"

namespace gi {

std::mutex& spawn_mutex() {
    static std::mutex mutex;
    return mutex;
}

namespace {

namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

void set_close_on_exec(int fd) { ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC); }

// Reads one pipe to its end, keeping at most `limit` bytes.
class Capture {
public:
    Capture(boost::asio::io_context& io, std::size_t limit) : pipe_(io), limit_(limit) {
        set_close_on_exec(pipe_.native_source());
        set_close_on_exec(pipe_.native_sink());
    }
    bp::async_pipe& pipe() { return pipe_; }
    void start() {
        pipe_.async_read_some(boost::asio::buffer(buffer_), [this](const boost::system::error_code& ec, std::size_t n) {
            const std::size_t keep = std::min(n, limit_ - std::min(limit_, text_.size()));
            text_.append(buffer_.data(), keep);
            truncated_ = truncated_ || keep < n;
            if (!ec) start();
        });
    }
    std::string take() { return std::move(text_); }
    bool truncated() const { return truncated_; }

private:
    bp::async_pipe pipe_;
    std::size_t limit_;
    std::array<char, 8192> buffer_{};
    std::string text_;
    bool truncated_ = false;
};

bool needs_quotes(const std::string& word) {
    if (word.empty()) return true;
    for (const char c : word)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_=./:,+@%").find(c) != std::string_view::npos))
            return true;
    return false;
}

std::string resolve_program(const std::string& program) {
    if (program.empty()) throw Error("cannot run a program with an empty name");
    if (program.find('/') != std::string::npos) return program;
    const auto found = bp::search_path(program);
    if (found.empty()) throw Error("cannot run '" + program + "': not found on PATH (install it or give its full path)");
    return found.string();
}

}  // namespace

TemporaryDirectory::TemporaryDirectory(const std::string& prefix, const std::filesystem::path& parent) {
    std::string pattern = ((parent.empty() ? std::filesystem::temp_directory_path() : parent) / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
        throw Error("cannot create a temporary directory like " + pattern + ": " + std::strerror(errno) +
                    (parent.empty() ? " (set TMPDIR to a writable folder)" : " (is the folder writable?)"));
    path_ = std::filesystem::absolute(pattern);
    on_signal_ = std::make_unique<RemovedOnFatalSignal>(path_);
}

TemporaryDirectory::~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

std::string command_line_text(const std::vector<std::string>& argv) {
    std::string text;
    for (const std::string& word : argv) {
        if (!text.empty()) text += ' ';
        if (!needs_quotes(word)) {
            text += word;
            continue;
        }
        text += '\'';
        for (const char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
        text += '\'';
    }
    return text;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
    if (argv.empty()) throw Error("run_process: no program given");
    const std::string program = resolve_program(argv[0]);
    const std::vector<std::string> arguments(argv.begin() + 1, argv.end());
    const std::string directory = options.working_directory.empty()
                                      ? std::filesystem::current_path().string()
                                      : options.working_directory.string();
    // Boost.Process (1.74) ignores chdir's result in the child: a folder that is not there would
    // run the program, and whatever it writes, in the caller's folder instead.
    std::error_code folder_error;
    if (!options.working_directory.empty() && !std::filesystem::is_directory(options.working_directory, folder_error))
        throw Error("cannot run " + command_line_text(argv) + " in " + directory +
                    ": that folder does not exist or is not a folder (create it first)");

    boost::asio::io_context io;
    ProcessResult result;
    const auto start = Clock::now();
    const auto deadline = start + options.timeout;
    bp::group group;
    std::optional<Capture> out, err;
    std::optional<bp::child> started;
    bp::environment environment = boost::this_process::environment();
    for (const auto& [name, value] : options.environment) environment[name] = value;
    {
        // Pipes are created and children forked under one lock (process/spawn_lock.hpp): between a
        // pipe's creation and the parent closing its write end, a child forked by another thread
        // would inherit that end, hold it open and make this child look alive until the other one
        // ends. Close-on-exec on every end also keeps children started elsewhere from inheriting them.
        const std::lock_guard<std::mutex> lock(spawn_mutex());
        out.emplace(io, options.max_output_bytes);
        err.emplace(io, options.max_output_bytes);
        try {
            started.emplace(program, bp::args(arguments), bp::std_in < bp::null, bp::std_out > out->pipe(),
                            bp::std_err > err->pipe(), bp::start_dir(directory), environment, group);
        } catch (const bp::process_error& e) {
            throw Error("cannot run " + command_line_text(argv) + ": " + e.what() +
                        " (check that the program exists and is executable)");
        }
    }
    bp::child& child = *started;
    out->start();
    err->start();

    std::error_code ec;
    while (child.running(ec)) {
        if (Clock::now() >= deadline) {
            result.timed_out = true;
            break;
        }
        const auto slice = std::min<Clock::duration>(deadline - Clock::now(), std::chrono::milliseconds(10));
        if (io.stopped()) {
            // Both pipes reached their end but the child lives on; poll its state.
            std::this_thread::sleep_for(std::min<Clock::duration>(slice, std::chrono::milliseconds(2)));
        } else {
            io.run_for(slice);
        }
    }
    if (ec) throw Error("lost track of " + command_line_text(argv) + ": " + ec.message());
    // Whatever the child left running in its group (or all of it, on a timeout) goes now, so its
    // pipes close and nothing outlives the call.
    std::error_code ignored;
    group.terminate(ignored);
    if (result.timed_out) child.wait(ignored);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();

    io.restart();
    io.run_for(std::chrono::seconds(1));
    result.out = out->take();
    result.err = err->take();
    result.truncated = out->truncated() || err->truncated();

    const int status = child.native_exit_code();
    if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    }
    return result;
}

}  // namespace gi
