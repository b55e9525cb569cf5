#include "cuda/cuda_run_notes.hpp"

#include <algorithm>

#include "compile/nvrtc_compiler.hpp"
#include "process/process.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

// The variant runs' stages, over the runs that reported them (those that finished: no timeouts or
// crashes): what the worker's time went to, restoring the case and comparing outputs included.
std::string stages_note(const VariantRunStats& r) {
    if (r.staged_runs == 0) return "";
    auto seconds = [](double ms) { return fixed(ms / 1000.0, 1) + " s"; };
    return "; by stage, over the " + std::to_string(r.staged_runs) + " runs that finished: module loads " +
           seconds(r.stage_load_ms) + ", check runs (restoring the case included) " + seconds(r.stage_check_ms) +
           ", comparing outputs " + seconds(r.stage_compare_ms) + ", timed runs " + seconds(r.stage_timed_ms) +
           ", checking the worker's copies of the case " + seconds(r.stage_integrity_ms) +
           ", the rest (pipes, payload) " +
           seconds(std::max(0.0, r.stage_request_ms - r.stage_load_ms - r.stage_check_ms - r.stage_compare_ms -
                                     r.stage_timed_ms - r.stage_integrity_ms));
}

// How often the original's two timings in a batch (before and after its variants, the faster kept:
// cuda/original_yardstick.hpp) disagreed beyond noise; "" when it was timed once a batch.
std::string twice_note(const CudaEvaluatorStats& t) {
    if (t.originals_timed_twice == 0) return "";
    std::string note = "timed twice in " + std::to_string(t.originals_timed_twice) + " batches, the faster kept: " +
                       std::to_string(t.original_first_slower) + " times the first was slower beyond noise, " +
                       std::to_string(t.original_second_slower) + " times the second; ";
    if (t.original_closing_failed > 0)
        note += "the second timing failed in " + std::to_string(t.original_closing_failed) +
                " batches, which kept the first (the first failure: " + t.original_closing_failure.substr(0, 300) + "); ";
    return note;
}

// Where evaluate()'s time went (the sanitizer gate's is the search's "gate" figure), so a user
// sees what bounds a budget: compiles, GPU runs, or workers replaced after failing variants.
std::string time_note(const CudaEvaluatorStats& t) {
    auto seconds = [](double ms) { return fixed(ms / 1000.0, 1) + " s"; };
    const BuildStats& b = t.build;
    const CaseWorkerStats& w = t.workers;
    return "cuda evaluator time: waiting for compiles " + seconds(t.compile_wait_ms) + " (" + std::to_string(b.compiled) +
           " compiles with " + (b.compiler.empty() ? "nvrtc" : b.compiler) +
           (b.nvrtc_processes.started > 0
                ? " in " + std::to_string(b.nvrtc_processes.started) + " processes of its own" +
                      (b.nvrtc_processes.lost > 0 ? " (" + std::to_string(b.nvrtc_processes.lost) + " lost on a variant)" : "")
                : "") +
           ", " + (b.compiled > 0 ? fixed(b.compile_cpu_ms / static_cast<double>(b.compiled), 0) : std::string("0")) +
           " ms each, " + std::to_string(b.cache_hits) + " cache hits" +
           (b.guard_options.empty() ? "" : "; " + std::to_string(b.guard_compiled) + " of them guarded builds at " + b.guard_options) +
           (b.built_ahead > 0 ? "; " + std::to_string(b.built_ahead) + " variants' builds started while the sanitizer gate ran" : "") +
           "), variant runs " + seconds(t.runs.run_ms) + " (of which variants that timed out " + seconds(t.runs.timeout_ms) +
           stages_note(t.runs) +
           "; output buffers found equal to the original's on the GPU " + std::to_string(t.runs.compared_on_gpu) +
           ", compared on the host " + std::to_string(t.runs.compared_on_host) + "), original runs " + seconds(w.original_ms) +
           " (" + twice_note(t) + "of which readying a worker with the batch's case: replacing one a batch's final variant killed, loading the case " +
           seconds(w.original_load_ms) + ", waiting for killed workers to exit " + seconds(w.reap_wait_ms) +
           "), worker restarts " + seconds(w.restart_ms) + " (" + std::to_string(w.worker_restarts) + "), for " +
           std::to_string(t.variants) + " variants";
}

}  // namespace

std::vector<std::string> cuda_run_notes(const CudaRunFacts& facts) {
    const CudaEvaluatorStats& t = facts.stats;
    std::vector<std::string> notes;
    if (t.variants > 0) notes.push_back(time_note(t));
    if (const std::string gate = t.gate.note(facts.options.sanitize_batch); !gate.empty()) notes.push_back(gate);
    if (!facts.options.worker_launcher.empty())
        notes.push_back("workers were started through the launcher '" + command_line_text(facts.options.worker_launcher) +
                        "': " + std::to_string(t.workers.launcher_losses) +
                        " lost with it and replaced (their requests run again, never judged), " +
                        std::to_string(t.workers.cases_sent) + " cases sent to a worker whose node did not see them");
    if (!facts.options.compile_launcher.empty()) {
        const NvrtcProcessStats& p = t.build.nvrtc_processes;
        const std::string launcher = "'" + command_line_text(facts.options.compile_launcher) + "' (" +
                                     facts.options.compile_launcher_option.substr(0, facts.options.compile_launcher_option.find(' ')) + ")";
        if (p.started > 0)
            notes.push_back("NVRTC's compiles ran where the launcher " + launcher + " put them: " + std::to_string(p.started) +
                            " processes started, " + std::to_string(p.launcher_lost) +
                            " lost with it and replaced (their compiles run again, never judged)" +
                            (t.build.compiler == "nvcc" ? "" : "; nvcc's compiles and device links, if any, ran here"));
        else
            notes.push_back("the compile launcher " + launcher + " started nothing: every compile ran here (" +
                            (t.build.compiler.empty() ? std::string("none") : t.build.compiler) +
                            (t.build.compiler == "nvcc" ? ", which the launcher does not move" : "") + ")");
    }
    std::string batched;
    for (const CaseSlot& slot : facts.slots)
        if (slot.launches_per_time > 1)
            batched += (batched.empty() ? "" : ", ") + slot.path.filename().string() + " " + std::to_string(slot.launches_per_time);
    if (!batched.empty())
        notes.push_back("timing: the kernel takes under " + significant(facts.options.batch_timing_below_ms, 6) +
                        " ms, so each timed repetition was the mean of a batch of launches back to back, the original's "
                        "and every variant's alike (launches per case: " + batched + "; --batch-timing-below-ms 0 times "
                        "single launches)");
    if (facts.device_side)
        notes.push_back("variants were compiled with NVRTC from the kernel file's device side (its host code and host "
                        "headers set aside; nvcc built the same device code from it); the validated result was built by "
                        "nvcc from the whole file, as the build compiles it");
    if (!facts.builder_made || facts.nvrtc_refusal.empty() || t.build.compiled == 0) return notes;
    const double ms = t.build.compile_cpu_ms / static_cast<double>(t.build.compiled);
    if (!nvrtc_options_for(facts.options.compile_options)) {
        notes.push_back("every variant was compiled with nvcc, " + significant(ms, 6) + " ms a compile here, because " +
                        facts.nvrtc_refusal + " (docs/evaluation.md, \"Compilers\", lists the options NVRTC takes)");
        return notes;
    }
    notes.push_back("every variant was compiled with nvcc, " + significant(ms, 6) + " ms a compile here, because NVRTC cannot "
                    "take the kernel file: " + facts.nvrtc_refusal + ". NVRTC takes a file's device side when its kernels use "
                    "nothing of its host code and include only headers NVRTC has or gi-tool stands in for (docs/evaluation.md)");
    return notes;
}

}  // namespace gi
