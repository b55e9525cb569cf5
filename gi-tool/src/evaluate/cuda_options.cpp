#include "evaluate/cuda_options.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "util/error.hpp"

namespace gi {
namespace {

const std::string* last(const std::map<std::string, std::vector<std::string>>& values, const std::string& option) {
    auto it = values.find(option);
    return it == values.end() || it->second.empty() ? nullptr : &it->second.back();
}

long long integer(const std::map<std::string, std::vector<std::string>>& values, const std::string& option,
                  long long fallback, long long min, long long max) {
    const std::string* text = last(values, option);
    if (!text) return fallback;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text->c_str(), &end, 10);
    if (text->empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
        throw UsageError("option " + option + " needs an integer from " + std::to_string(min) + " to " +
                         std::to_string(max) + ", got '" + *text + "'");
    return v;
}

double number(const std::map<std::string, std::vector<std::string>>& values, const std::string& option, double fallback,
              double min, double max) {
    const std::string* text = last(values, option);
    if (!text) return fallback;
    char* end = nullptr;
    const double v = std::strtod(text->c_str(), &end);
    if (text->empty() || *end != '\0' || !(v >= min && v <= max))
        throw UsageError("option " + option + " needs a number from " + std::to_string(min) + " to " +
                         std::to_string(max) + ", got '" + *text + "'");
    return v;
}

}  // namespace

std::vector<std::string> cuda_value_options() {
    return {"--cases",    "--held-out", "--sanitize-cases", "--recorded-name", "--block",   "--grid",      "--tolerance",
            "--worker",   "--nvcc",     "--sanitizer",     "--arch",    "--jobs",      "--warmups",
            "--repetitions", "--timeout-factor", "--timeout-margin-ms", "--compile-cache", "--spare-workers",
            "--loop-guard-margin-ms", "--sanitize-jobs", "--sanitize-batch", "--sanitize-sessions", "--set-aside"};
}

std::vector<std::string> cuda_switch_options() {
    return {"--no-loop-guard", "--no-barrier-guard", "--separate-guard-build", "--run-binary-duplicates",
            "--nondeterministic", "--nvcc-only", "--no-sanitize-prewarm", "--sanitize-shared-sessions"};
}

std::string cuda_options_help() {
    return "  --cases DIR               cuda: recorded test cases (gi-tool record --out DIR); required\n"
           "  --held-out DIR            cuda: cases kept out of training, used to validate the result\n"
           "  --sanitize-cases DIR      cuda: small recorded cases (of the same kernel) on which the search's\n"
           "                            sanitizer gate runs each would-be parent, instead of the generation's\n"
           "                            case; the final checks still use the training and held-out cases, and\n"
           "                            the winner is validated on these too\n"
           "  --set-aside N             cuda: recorded cases (the last N of --cases) kept out of search to\n"
           "                            validate the result (default without --held-out: a quarter, at least\n"
           "                            one, from two cases up; 0 searches on all of them)\n"
           "  --nondeterministic        cuda: the kernel's outputs may change from run to run (float atomics,\n"
           "                            accepted races): the original is replayed 5 times per case and the\n"
           "                            --tolerance must cover how far its outputs move (default: a rerun must\n"
           "                            give the same outputs, or the run stops)\n"
           "  --recorded-name NAME      cuda: the name the program gave gi::launch (default: the function's)\n"
           "  --block EXPR              cuda: block size as X[,Y[,Z]] over parameters and integer kernel\n"
           "                            arguments, e.g. BLOCK_W,4 (default: as recorded)\n"
           "  --grid EXPR               cuda: grid, e.g. 'ceil(width/BLOCK_W),ceil(height/ROWS)' (default: as recorded)\n"
           "  --tolerance SPEC          cuda: float comparison: exact (default), abs=X, rel=X, ulp=N or a mix;\n"
           "                            NAME:SPEC for one pointer parameter (repeatable)\n"
           "  --worker PATH             cuda: the gi-worker program (default: next to gi-tool)\n"
           "  --nvcc PATH               cuda: nvcc for options NVRTC lacks (default: PATH, /usr/local/cuda)\n"
           "  --nvcc-only               cuda: compile every variant with nvcc, also where NVRTC takes the file\n"
           "                            or its device side (slower; to compare against NVRTC's builds)\n"
           "  --sanitizer PATH          cuda: compute-sanitizer (default: PATH, /usr/local/cuda/bin)\n"
           "  --arch sm_XX              cuda: architecture to compile for (default: the GPU's)\n"
           "  --jobs N                  cuda: compile threads (default: every core)\n"
           "  --warmups N / --repetitions N   cuda: untimed and timed runs per variant (default 2 / 10)\n"
           "  --timeout-factor X        cuda: a variant may run X times the original's time (default 10)\n"
           "  --timeout-margin-ms N     cuda: plus this for a variant's check launch (default 30); a fault\n"
           "                            the driver reports later counts as a timeout\n"
           "  --no-loop-guard           cuda: check variants as compiled, without guarding their loops and\n"
           "                            barriers; a loop that runs away or a barrier deadlock is then only\n"
           "                            stopped by killing its worker (slow)\n"
           "  --loop-guard-margin-ms N  cuda: a guarded loop stops, and a guarded barrier gives up, at the\n"
           "                            original's time x factor + N ms (default 2)\n"
           "  --no-barrier-guard        cuda: guard loops only; a barrier deadlock then costs a worker\n"
           "  --separate-guard-build    cuda: compile each variant's guarded build apart from its plain build\n"
           "                            (two compiles and two module loads instead of one; slower)\n"
           "  --run-binary-duplicates   cuda: run and sanitize every variant, also one whose build is the same\n"
           "                            program as one run before (by default it gets that one's result: within\n"
           "                            a batch for runs, across the whole search for sanitizer verdicts)\n"
           "  --compile-cache DIR       cuda: keep compiled variants here across runs\n"
           "  --spare-workers N         cuda: GPU workers kept ready to replace one a variant killed (default 4)\n"
           "  --sanitize-jobs N         cuda: compute-sanitizer processes at once in the correctness gate\n"
           "                            (default: half the cores, at most 8)\n"
           "  --sanitize-batch N        cuda: variants one compute-sanitizer process checks in turn (default 8;\n"
           "                            1: a process each); a batch that fails is checked again one by one\n"
           "  --sanitize-sessions N     cuda: compute-sanitizer processes kept running across the gate's waves,\n"
           "                            each checking batches in turn (default: --sanitize-jobs; 0: a process\n"
           "                            per batch). A batch they do not pass is checked in processes of its own\n"
           "  --no-sanitize-prewarm     cuda: start those processes at the first gate, not when search begins\n"
           "                            (their start-up, seconds each, then delays the first generations)\n"
           "  --sanitize-shared-sessions cuda: one pool of those processes for all checkers, as before issue 19's\n"
           "                            per-checker pools (memcheck up to N, racecheck and synccheck N/4 each)\n";
}

CudaEvaluatorOptions cuda_evaluator_options(const std::map<std::string, std::vector<std::string>>& values,
                                            const std::string& kernel_path, const std::set<std::string>& switches,
                                            const std::string& registered_block_size) {
    CudaEvaluatorOptions o;
    const std::string* cases = last(values, "--cases");
    if (!cases) throw UsageError("--evaluator cuda needs --cases DIR (the folder GI_RECORD_DIR pointed to when the program was recorded)");
    o.cases = *cases;
    if (auto* v = last(values, "--held-out")) o.held_out = *v;
    if (auto* v = last(values, "--sanitize-cases")) o.sanitize_cases = *v;
    if (auto* v = last(values, "--recorded-name")) o.recorded_name = *v;
    o.block = registered_block_size;
    if (auto* v = last(values, "--block")) o.block = *v;
    if (auto* v = last(values, "--grid")) o.grid = *v;
    if (auto it = values.find("--tolerance"); it != values.end()) o.tolerances = it->second;
    if (auto* v = last(values, "--worker")) o.worker = *v;
    if (auto* v = last(values, "--nvcc")) o.nvcc = *v;
    if (auto* v = last(values, "--sanitizer")) o.sanitizer = *v;
    if (auto* v = last(values, "--arch")) {
        if (v->rfind("sm_", 0) != 0 || v->size() < 5) throw UsageError("--arch needs a real architecture like sm_90, got '" + *v + "'");
        o.arch = *v;
    }
    if (auto* v = last(values, "--compile-cache")) o.compile_cache = *v;
    o.jobs = static_cast<int>(integer(values, "--jobs", 0, 0, 1024));
    o.warmups = static_cast<int>(integer(values, "--warmups", 2, 0, 1000));
    o.repetitions = static_cast<int>(integer(values, "--repetitions", 10, 1, 10000));
    o.timeout_factor = number(values, "--timeout-factor", 10, 1, 1e6);
    o.timeout_margin_ms = static_cast<int>(integer(values, "--timeout-margin-ms", 30, 0, 3600000));
    o.spare_workers = static_cast<int>(integer(values, "--spare-workers", 4, 0, 16));
    o.sanitize_jobs = static_cast<int>(integer(values, "--sanitize-jobs", 0, 1, 64));
    o.sanitize_batch = static_cast<int>(integer(values, "--sanitize-batch", 8, 1, 256));
    o.sanitize_sessions = static_cast<int>(integer(values, "--sanitize-sessions", -1, 0, 64));
    o.loop_guard = switches.count("--no-loop-guard") == 0;
    o.guard_margin_ms = static_cast<int>(integer(values, "--loop-guard-margin-ms", 2, 0, 3600000));
    if (!o.loop_guard && last(values, "--loop-guard-margin-ms"))
        throw UsageError("--loop-guard-margin-ms has no effect with --no-loop-guard; drop one of them");
    o.barrier_guard = o.loop_guard && switches.count("--no-barrier-guard") == 0;
    if (!o.loop_guard && switches.count("--no-barrier-guard"))
        throw UsageError("--no-barrier-guard has no effect with --no-loop-guard (which guards neither); drop one of them");
    const bool separate = switches.count("--separate-guard-build") > 0;
    if (!o.loop_guard && separate)
        throw UsageError("--separate-guard-build has no effect with --no-loop-guard (there is no guarded build); drop one of them");
    o.paired_guard_build = o.loop_guard && !separate;
    o.reuse_binary_duplicates = switches.count("--run-binary-duplicates") == 0;
    o.nvcc_only = switches.count("--nvcc-only") > 0;
    o.sanitize_prewarm = switches.count("--no-sanitize-prewarm") == 0;
    o.sanitize_shared_sessions = switches.count("--sanitize-shared-sessions") > 0;
    o.nondeterministic = switches.count("--nondeterministic") > 0;
    o.set_aside = static_cast<int>(integer(values, "--set-aside", -1, 0, 1000000));
    if (!kernel_path.empty()) {
        const std::filesystem::path folder = std::filesystem::path(kernel_path).parent_path();
        o.include_dirs.push_back(folder.empty() ? "." : folder.string());
    }
    return o;
}

}  // namespace gi
