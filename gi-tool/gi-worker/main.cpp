// gi-worker: owns the CUDA context for gi-tool's cuda evaluator. Talks the worker protocol
// (worker/protocol.hpp) on stdin/stdout; a kernel's printf output goes to /dev/null so it cannot
// corrupt the protocol, and diagnostics go to stderr (the parent's log file). The requests are
// answered by server.hpp; --once runs listed variants (listed_variants.hpp) under compute-sanitizer.
//
//   gi-worker                      serve requests until "quit" or end of input
//   gi-worker --once --case DIR --cubin FILE --kernel NAME [--grid X,Y,Z --block X,Y,Z --shared N]
//                                  run the kernel once on the case (under compute-sanitizer);
//                                  exit 0 when it ran, 1 when it failed
//   gi-worker --once --case DIR --variants LIST --kernel NAME [--side-by-side N] [--print-times 1]
//                                  the same for several variants in turn, in one process, or N at
//                                  once (side_by_side.hpp); --print-times: the load, launch and
//                                  unload times on stderr
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "cuda_driver.hpp"
#include "gpu.hpp"
#include "listed_variants.hpp"
#include "replay.hpp"
#include "server.hpp"
#include "side_by_side.hpp"
#include "testcase/case_io.hpp"
#include "worker/protocol.hpp"

namespace gi::worker {
namespace {

// True when nothing is waiting to be read on `fd` (end of input counts as waiting: it is read next).
bool input_idle(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 0;
}

int serve() {
    // Keep the protocol on a private descriptor; fd 1 (where device printf goes) becomes /dev/null.
    int out_fd = -1;
    try {
        out_fd = protocol_stdout();
    } catch (const std::exception& e) {
        std::cerr << "gi-worker: " << e.what() << "\n";
        return 1;
    }
    std::unique_ptr<Server> server;
    MessageReader reader;
    try {
        for (;;) {
            std::optional<Message> request = reader.next();
            // Idle: retired modules are unloaded one at a time while no request waits, so one
            // that arrives meanwhile waits for one unload at most.
            while (!request && server && input_idle(0) && server->unload_one()) {
            }
            if (!request) request = read_message(0, reader);
            if (!request) break;
            if (!server) {
                try {
                    server = std::make_unique<Server>(open_gpu(), out_fd);
                } catch (const std::exception& e) {
                    write_message(out_fd, error_reply(e.what(), true));
                    return 1;
                }
            }
            if (!server->handle(*request)) return 0;
        }
    } catch (const std::exception& e) {
        std::cerr << "gi-worker: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

int once(int argc, char** argv) {
    std::map<std::string, std::string> opts;
    for (int i = 2; i + 1 < argc; i += 2) opts[argv[i]] = argv[i + 1];
    for (const char* required : {"--case", "--kernel"})
        if (!opts.count(required)) {
            std::cerr << "gi-worker --once: missing " << required << "\n";
            return 2;
        }
    if (opts.count("--cubin") == opts.count("--variants")) {
        std::cerr << "gi-worker --once: give one of --cubin FILE and --variants FILE\n";
        return 2;
    }
    try {
        std::vector<OnceVariant> variants;
        if (opts.count("--variants")) {
            variants = read_variant_list(opts["--variants"]);
        } else {
            OnceVariant v;
            v.cubin_path = opts["--cubin"];
            for (const char* field : {"grid", "block", "shared"})
                if (opts.count(std::string("--") + field)) v.shape.fields[field] = opts[std::string("--") + field];
            variants.push_back(std::move(v));
        }
        Gpu gpu = open_gpu();
        if (opts.count("--side-by-side")) {
            // Up to N at once, as a sanitizer session's side-by-side request runs them.
            const long n = std::strtol(opts["--side-by-side"].c_str(), nullptr, 10);
            if (n < 1) {
                std::cerr << "gi-worker --once: --side-by-side needs a count of at least 1, got '" << opts["--side-by-side"] << "'\n";
                return 2;
            }
            SideBySideLanes lanes(opts["--case"]);
            const std::size_t at_once = lanes.lanes_for(std::min<std::size_t>(static_cast<std::size_t>(n), variants.size()));
            ListedRunTimes times;
            if (const SideBySideLanes::Outcome o = lanes.run_all(variants, at_once, opts["--kernel"], times);
                o.result != CUDA_SUCCESS) {
                std::cerr << "gi-worker: variants " << o.from + 1 << "-" << o.to << " (side by side): a kernel failed: "
                          << cuda_error_name(o.result) << " (" << cuda_error_text(o.result) << ")\n";
                return 1;
            }
            std::cout << "gi-worker: ran " << variants.size() << " variant(s)" << std::endl;
            if (opts.count("--print-times"))
                std::cerr << "gi-worker: side by side, " << at_once << " at once: module loads " << times.load_ms << " ms, launches "
                      << times.launch_ms << " ms, unloads " << times.unload_ms << " ms\n";
            return 0;
        }
        Replay replay(read_test_case(opts["--case"], CaseLoad::Data), {}, 0, gpu.stream);
        ListedRunTimes times;
        for (std::size_t k = 0; k < variants.size(); ++k) {
            const std::string label = variants.size() > 1 ? "variant " + std::to_string(k + 1) + ": " : "";
            const CUresult r = run_listed_variant(replay, variants[k], opts["--kernel"], label, &times);
            if (r != CUDA_SUCCESS) {
                std::cerr << "gi-worker: " << label << "the kernel failed: " << cuda_error_name(r) << " ("
                          << cuda_error_text(r) << ")\n";
                return 1;
            }
        }
        // The caller counts this line: a batch that stopped early must not pass for a checked one.
        std::cout << "gi-worker: ran " << variants.size() << " variant(s)" << std::endl;
        if (opts.count("--print-times"))
            std::cerr << "gi-worker: one at a time: module loads " << times.load_ms << " ms, launches " << times.launch_ms
                  << " ms, unloads " << times.unload_ms << " ms\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gi-worker: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace
}  // namespace gi::worker

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--once") == 0) return gi::worker::once(argc, argv);
    if (argc > 1) {
        std::cerr << "usage: gi-worker            (serve gi-tool's requests on stdin/stdout)\n"
                     "       gi-worker --once --case DIR --cubin FILE --kernel NAME [--grid X,Y,Z] [--block X,Y,Z] [--shared N]\n"
                     "       gi-worker --once --case DIR --variants LIST --kernel NAME [--side-by-side N] [--print-times 1]\n"
                     "                                  (LIST: CUBIN, GRID, BLOCK, SHARED per line, tab-separated; each\n"
                     "                                  run in turn, or N at once on streams of their own)\n";
        return std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    return gi::worker::serve();
}
