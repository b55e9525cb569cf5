// Does NVRTC scale across threads of one process as it does across processes? (issue 19: stereo's
// search waits on NVRTC, whose time a compile was 282-694 ms on the device's 16 cores against about
// 120 ms for the same file alone on a 2-core machine.) Compiles KERNEL.cu COUNT times for sm_90 with
// T threads in this process, then with T processes of one thread each (forked before any NVRTC
// call), for each T given, and prints the wall time, compiles a second and ms a compile.
//
//   g++ -O2 -std=c++17 -pthread bench/nvrtc_scaling.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lnvrtc -o nvrtc_scaling
//   ./nvrtc_scaling kernels/stereo/stereo.cu 64 1 4 8 16 [-DNAME=VALUE -I DIR ...]
//
// Arguments: KERNEL.cu, COUNT (compiles per setting), the thread/process counts, then options
// passed to NVRTC (after a "--").
#include <nvrtc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string source_text;
std::vector<std::string> extra_options;

// One compile; exits with NVRTC's log when it fails.
void compile_once() {
    nvrtcProgram program;
    nvrtcCreateProgram(&program, source_text.c_str(), "variant.cu", 0, nullptr, nullptr);
    std::vector<const char*> options{"--gpu-architecture=sm_90", "-std=c++17"};
    for (const std::string& o : extra_options) options.push_back(o.c_str());
    if (nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data()) != NVRTC_SUCCESS) {
        std::size_t size = 0;
        nvrtcGetProgramLogSize(program, &size);
        std::string log(size, '\0');
        nvrtcGetProgramLog(program, log.data());
        std::fprintf(stderr, "compile failed:\n%s\n", log.substr(0, 2000).c_str());
        std::exit(1);
    }
    nvrtcDestroyProgram(&program);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `count` compiles over `workers` threads of this process; wall seconds.
double with_threads(int count, int workers) {
    std::atomic<int> next{0};
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w)
        threads.emplace_back([&] {
            while (next.fetch_add(1) < count) compile_once();
        });
    for (std::thread& t : threads) t.join();
    return seconds_since(start);
}

// The same over `workers` forked processes (each its share); wall seconds.
double with_processes(int count, int workers) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<pid_t> children;
    for (int w = 0; w < workers; ++w) {
        const int share = count / workers + (w < count % workers ? 1 : 0);
        const pid_t pid = fork();
        if (pid == 0) {
            for (int k = 0; k < share; ++k) compile_once();
            std::_Exit(0);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "a compiling process failed\n");
            std::exit(1);
        }
    }
    return seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: nvrtc_scaling KERNEL.cu COUNT T... [-- NVRTC-OPTION...]\n");
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 2;
    }
    std::ostringstream text;
    text << in.rdbuf();
    source_text = text.str();
    const int count = std::atoi(argv[2]);
    std::vector<int> workers;
    int a = 3;
    for (; a < argc && std::strcmp(argv[a], "--") != 0; ++a) workers.push_back(std::atoi(argv[a]));
    for (++a; a < argc; ++a) extra_options.push_back(argv[a]);
    // Processes first: forked before this process has called NVRTC (its state is not copied).
    std::vector<double> process_s;
    for (int w : workers) process_s.push_back(with_processes(count, w));
    compile_once();  // warm-up for the threads' runs
    std::printf("%-8s %-10s %10s %12s %14s\n", "workers", "kind", "wall s", "compiles/s", "ms a compile");
    for (std::size_t k = 0; k < workers.size(); ++k) {
        const int w = workers[k];
        const double threads_s = with_threads(count, w);
        std::printf("%-8d %-10s %10.2f %12.1f %14.1f\n", w, "threads", threads_s, count / threads_s, 1000 * threads_s * w / count);
        std::printf("%-8d %-10s %10.2f %12.1f %14.1f\n", w, "processes", process_s[k], count / process_s[k],
                    1000 * process_s[k] * w / count);
    }
    return 0;
}
