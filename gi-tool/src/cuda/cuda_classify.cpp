#include "cuda/cuda_classify.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "util/error.hpp"
#include "worker/case_messages.hpp"
#include "worker/run_result.hpp"

namespace gi {

RunVerdict classify_run_reply(const worker::Message& reply) {
    RunVerdict v;
    if (reply.type == "error") {
        // The worker's own failure around the variant (its CUDA calls, memory): not the variant's
        // fault as such, but its run produced nothing, so it counts as a crash and the worker is
        // replaced when it said so.
        v.result.status = EvalStatus::Crash;
        const worker::ErrorReply error = worker::error_reply_from(reply);
        v.result.detail = "GPU worker error: " + error.message;
        v.restart_worker = error.fatal;
        return v;
    }
    if (reply.type != "result") throw Error("GPU worker answered a run request with '" + reply.type + "'");
    const worker::RunResult r = worker::run_result_from(reply);
    const std::string& outcome = r.outcome;
    v.restart_worker = r.sticky;
    v.result.detail = r.detail;
    v.guard_unusable = r.loop_guard.rfind("unusable", 0) == 0;
    v.compared_on_gpu = r.compared_on_gpu;
    v.compared_on_host = r.compared_on_host;
    v.integrity_on_gpu = r.integrity_on_gpu;
    v.integrity_on_host = r.integrity_on_host;
    if (r.stages) {
        const worker::RunStages& s = *r.stages;
        v.has_stages = true;
        v.load_ms = s.load_ms;
        v.check_ms = s.check_ms;
        v.compare_ms = s.compare_ms;
        v.timed_ms = s.timed_ms;
        v.integrity_ms = s.integrity_ms;
        v.worker_ms = s.worker_ms;
        v.unload_ms = s.unload_ms;
        v.load_plain_ms = s.load_plain_ms;
        v.load_find_ms = s.load_find_ms;
        v.load_guard_ms = s.load_guard_ms;
    }
    if (outcome == "loop-overrun") {
        // Stopped by the guard, so the worker and its context are fine: no restart.
        v.result.status = EvalStatus::Timeout;
        v.loop_overrun = true;
        return v;
    }
    if (outcome == "out-of-bounds") {
        // Where the plain build would have faulted and ruined its context, the guarded one went on:
        // a crash, and the worker stays.
        v.result.status = EvalStatus::Crash;
        v.out_of_bounds = true;
        return v;
    }
    if (outcome == "corrupted") {
        // It wrote past its buffers into the worker's own copies of a case without faulting. A
        // crash, so it is never accepted whatever its outputs; the worker is replaced even if an
        // older worker forgot to say so, since its copies are damaged.
        v.result.status = EvalStatus::Crash;
        v.corrupting = true;
        v.restart_worker = true;
        return v;
    }
    if (outcome == "load-error" || outcome == "no-kernel") {
        v.result.status = EvalStatus::CompileError;
        return v;
    }
    if (outcome == "launch-error" || outcome == "fault") {
        v.result.status = EvalStatus::Crash;
        return v;
    }
    if (outcome != "ok") throw Error("GPU worker sent an unknown outcome '" + outcome + "'");
    v.elements = r.elements;
    v.mismatches = r.mismatches;
    v.worst_error = r.worst;
    v.result.error = r.error;
    if (r.hard_failure) {
        v.result.status = EvalStatus::WrongAnswer;
        return v;
    }
    v.result.status = EvalStatus::Ok;
    v.times_ms = r.times_ms;
    return v;
}

RunVerdict classify_worker_failure(const worker::WorkerFailure& failure) {
    RunVerdict v;
    v.restart_worker = true;
    v.result.detail = failure.what();
    v.result.status = failure.kind() == worker::WorkerFailure::Kind::Timeout ? EvalStatus::Timeout : EvalStatus::Crash;
    return v;
}

std::string sanitizer_report_excerpt(const std::string& output, int max_lines) {
    std::stringstream in(output);
    std::string line, out;
    int taken = 0;
    while (std::getline(in, line) && taken < max_lines) {
        if (line.rfind("=========", 0) != 0) continue;
        const std::string body = line.substr(9);
        if (body.find_first_not_of(' ') == std::string::npos) continue;
        if (body.find("COMPUTE-SANITIZER") != std::string::npos) continue;
        out += (out.empty() ? "" : "\n") + line;
        ++taken;
    }
    return out;
}

EvalResult classify_sanitizer_exit(int exit_code, bool timed_out, int error_exit_code, const std::string& output,
                                   const std::string& tools) {
    EvalResult r;
    if (timed_out) {
        r.status = EvalStatus::Timeout;
        r.detail = "compute-sanitizer (" + tools + ") did not finish in time";
        return r;
    }
    if (exit_code == 0) return r;
    const std::string excerpt = sanitizer_report_excerpt(output);
    if (exit_code == error_exit_code) {
        r.status = EvalStatus::SanitizerError;
        r.detail = "compute-sanitizer " + tools + " found errors:\n" + excerpt;
        return r;
    }
    r.status = EvalStatus::Crash;
    r.detail = "the variant failed under compute-sanitizer " + tools + " (exit " + std::to_string(exit_code) + ")" +
               (excerpt.empty() ? "" : ":\n" + excerpt);
    return r;
}

std::string find_compute_sanitizer(const std::string& given) {
    if (!given.empty()) {
        if (!std::filesystem::exists(given)) throw Error("--sanitizer: no compute-sanitizer at '" + given + "'");
        return given;
    }
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        std::string dir;
        while (std::getline(dirs, dir, ':'))
            if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / "compute-sanitizer"))
                return (std::filesystem::path(dir) / "compute-sanitizer").string();
    }
    for (const char* candidate : {"/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer"})
        if (std::filesystem::exists(candidate)) return candidate;
    throw Error("compute-sanitizer not found on PATH or in /usr/local/cuda/bin; it comes with the CUDA toolkit "
                "(install the toolkit's compute-sanitizer package, or pass --sanitizer PATH)");
}

bool needs_race_checks(const std::string& variant_source, int original_barriers) {
    return count_barriers(variant_source) < original_barriers;
}

int count_barriers(const std::string& source) {
    int count = 0;
    for (const char* name : {"__syncthreads", "__syncwarp", ".sync()"}) {
        for (std::size_t at = source.find(name); at != std::string::npos; at = source.find(name, at + 1)) ++count;
    }
    return count;
}

}  // namespace gi
