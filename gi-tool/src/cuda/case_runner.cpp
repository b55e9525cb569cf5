#include "cuda/case_runner.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <iostream>

#include "compile/nvcc_compiler.hpp"
#include "util/elapsed.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "worker/run_result.hpp"

namespace gi {
using Clock = std::chrono::steady_clock;
using worker::Message;

namespace {
// The original's first run is tried again this many times when it fails, each time probing less.
constexpr int kProbeRetries = 2;
}  // namespace

int launches_per_time_for(double median_ms, double below_ms) {
    if (!(median_ms > 0) || !(below_ms > 0) || median_ms >= below_ms) return 1;
    return static_cast<int>(std::clamp(std::ceil(1.0 / median_ms), 1.0, 64.0));
}

void VariantRunStats::add(const RunVerdict& v, double request_ms, bool beside_exiting) {
    if (v.loop_overrun) ++loop_overruns;
    if (v.out_of_bounds) ++out_of_bounds;
    if (v.corrupting) ++corrupting;
    if (v.guard_unusable) ++unguarded;
    if (!v.has_stages) return;
    ++staged_runs;
    stage_load_ms += v.load_ms;
    stage_check_ms += v.check_ms;
    stage_compare_ms += v.compare_ms;
    compared_on_gpu += v.compared_on_gpu;
    compared_on_host += v.compared_on_host;
    integrity_on_gpu += v.integrity_on_gpu;
    integrity_on_host += v.integrity_on_host;
    stage_timed_ms += v.timed_ms;
    stage_integrity_ms += v.integrity_ms;
    stage_worker_ms += v.worker_ms;
    stage_unload_ms += v.unload_ms;
    stage_load_plain_ms += v.load_plain_ms;
    stage_load_find_ms += v.load_find_ms;
    stage_load_guard_ms += v.load_guard_ms;
    stage_request_ms += request_ms;
    if (beside_exiting) {
        ++staged_beside_exiting;
        beside_exiting_load_ms += v.load_ms;
        beside_exiting_unload_ms += v.unload_ms;
        beside_exiting_timed_ms += v.timed_ms;
    }
}

void CaseRunner::ready_for(int index) {
    if (worker_.ready(index)) return;
    const bool restart = worker_.lost();
    const auto start = Clock::now();
    worker_.ensure_loaded(index);
    if (!worker_.has_reference(index)) {
        if (restart) ++worker_.stats().references_recomputed;
        run_original(index, false);
    }
    (restart ? worker_.stats().restart_ms : worker_.stats().original_ms) += ms_since(start);
}

// With a guarded build, separate (it rides in front of the plain one) or paired (one module),
// the request carries the guard's budget (worker/protocol.hpp).
worker::RunSpec CaseRunner::run_spec(int index, const std::string& role, const DeviceCompileResult& code, const ResolvedGeometry& g,
                                     bool time, const VariantBuild* build, const std::string& kernel) const {
    const CaseSlot& slot = slots_[index];
    worker::RunSpec spec;
    spec.slot = index;
    spec.role = role;
    spec.kernel = kernel.empty() ? slot.kernel : kernel;
    spec.grid = g.grid;
    spec.block = g.block;
    spec.shared_bytes = slot.manifest.shared_bytes;
    spec.warmups = options_.warmups;
    spec.repetitions = options_.repetitions;
    if (time) spec.launches_per_time = std::max(1, slot.launches_per_time);
    spec.time = time;
    spec.payload = code.cubin;
    if (build && (build->paired || build->guarded)) {
        const double base = slot.original_ms > 0 ? slot.original_ms : 1000.0;
        const double budget_ms = options_.timeout_factor * base + options_.guard_margin_ms;
        spec.guard_budget_us = std::max(1LL, static_cast<long long>(std::llround(1000 * budget_ms)));
        if (build->paired) {
            spec.guard_paired = true;
        } else {
            spec.guard_bytes = build->guarded->cubin.size();
            spec.payload = build->guarded->cubin + code.cubin;
        }
    }
    return spec;
}

Timing CaseRunner::run_original(int index, bool time) {
    CaseSlot& slot = slots_[index];
    const ResolvedGeometry g = resolve_geometry(kernel_.geometry, slot.manifest, kernel_.param_defaults, kernel_.arg_names);
    int losses = 0;  // workers lost with their launcher on this run: not the original's doing
    for (int attempt = 0;; ++attempt) {
        worker_.ensure_loaded(index);
        const bool first = !worker_.has_reference(index);
        worker::RunSpec spec = run_spec(index, "original", *original_, g, time);
        // Probing write sets (compare/write_set.hpp) may crash an original that reads a writable
        // buffer as indexes or counts: then only the buffers the recorded launch changed are
        // probed, as before write sets; should that crash it too, nothing is poisoned.
        spec.announce_probe = true;
        if (attempt == 1) spec.probe_unchanged = false;
        if (attempt > 1) spec.probe_poison = false;
        if (first) spec.poisonable = slot.poisonable;
        const bool hand_over =
            first && slot.reference_file.empty() && !slot.reference_failed && references_ && !references_->path().empty();
        if (hand_over) spec.reference_out = reference_path(index);
        Message reply;
        const auto request_start = Clock::now();
        try {
            reply = request_original(spec);
        } catch (const worker::WorkerFailure& e) {
            if (e.kind() == worker::WorkerFailure::Kind::LauncherLost) {
                worker_.replace_lost(e, ++losses);
                --attempt;
                continue;
            }
            if (attempt < kProbeRetries && first) continue;
            throw Error(slot.path.string() + ": the original kernel did not run: " + e.what());
        }
        const RunVerdict v = classify_run_reply(reply);
        if (v.restart_worker) worker_.drop();
        if (v.result.status != EvalStatus::Ok) {
            if (attempt < kProbeRetries && first && v.result.status == EvalStatus::Crash) continue;
            throw Error(slot.path.string() + ": the original kernel fails on this case: " + v.result.detail);
        }
        worker_.set_referenced(index);
        if (first) note_first_run(index, reply, v, ms_since(request_start), hand_over);
        const worker::RunResult result = worker::run_result_from(reply);  // a "result": the run was Ok
        if (!time) return {};
        Timing t = summarise_timings(v.times_ms);
        slot.original_ms = t.median_ms;
        if (slot.launches_per_time == 0) {
            // Decided once per case from the original's first timing, and that timing is then
            // repeated the same way: the original and every variant are timed alike.
            slot.launches_per_time = launches_per_time_for(t.median_ms, options_.batch_timing_below_ms);
            if (slot.launches_per_time > 1) return run_original(index, true);
        } else if (spec.launches_per_time > 1) {
            // The worker times single launches where the case updates data in place: so be it here.
            slot.launches_per_time = result.launches_per_time;
        }
        return t;
    }
}

void CaseRunner::note_first_run(int index, const worker::Message& reply, const RunVerdict& v, double request_ms, bool hand_over) {
    CaseSlot& slot = slots_[index];
    // Judged by the oracle gate (cuda/oracle_gate.hpp), before any variant is compared with it.
    slot.oracle_elements = v.elements;
    slot.oracle_mismatches = v.mismatches;
    slot.oracle_worst = v.worst_error;
    slot.oracle_detail = v.result.detail;
    const worker::RunResult result = worker::run_result_from(reply);  // a "result": the run was Ok
    if (result.stages) {
        first_runs_.probe_ms += result.stages->check_ms;
        first_runs_.compare_ms += result.stages->compare_ms;
        first_runs_.worker_ms += result.stages->worker_ms;
    }
    first_runs_.request_ms += request_ms;
    ++first_runs_.runs;
    if (slot.poisonable.empty()) slot.poisonable = result.poisonable;
    if (!hand_over) return;
    if (!result.reference_sha256.empty()) {
        slot.reference_file = result.reference_file;
        slot.reference_sha256 = result.reference_sha256;
    } else {
        slot.reference_failed = true;
        std::cerr << "gi-tool: note: " << slot.path.string() << ": the original's outputs could not be "
                  << "handed to other workers ("
                  << (result.reference_error.empty() ? "the worker did not write them" : result.reference_error)
                  << "); each new worker runs the original for this case instead\n";
    }
}

void CaseRunner::start_first_runs_ahead(int processes, int reruns) {
    if (processes <= 0 || slots_.size() < 3 || !original_ || !references_ || references_->path().empty() || worker_.launched())
        return;
    std::vector<FirstRunsAhead::Job> jobs;
    for (int index = 0; index < static_cast<int>(slots_.size()); ++index) {
        const CaseSlot& slot = slots_[index];
        if (worker_.has_reference(index) || !slot.reference_file.empty() || slot.reference_failed) continue;
        const ResolvedGeometry g = resolve_geometry(kernel_.geometry, slot.manifest, kernel_.param_defaults, kernel_.arg_names);
        worker::RunSpec spec = run_spec(index, "original", *original_, g, false);
        spec.announce_probe = true;
        spec.poisonable = slot.poisonable;
        spec.reference_out = reference_path(index);
        FirstRunsAhead::Job job;
        job.index = index;
        job.load = worker_.load_message(index);
        job.run = to_message(spec);
        if (slot.held_out && reruns > 0) {
            // As rerun_once() asks it, with run_variant_request()'s waits.
            job.rerun = to_message(run_spec(index, "rerun", *original_, g, false));
            job.reruns = reruns;
            std::tie(job.rerun_kernel, job.rerun_rest) = run_waits(index);
        }
        jobs.push_back(std::move(job));
    }
    if (jobs.size() < 2) return;
    // Within half the GPU's memory, as spares are kept (cuda/spare_workers.cpp: a worker's context
    // and ten times the cases it holds): the evaluator's worker holds every case, each worker ahead
    // one at a time; on a GPU the cases crowd, the first runs stay in the evaluator's worker.
    if (const std::uint64_t memory = worker_.demand().gpu_memory; memory > 0) {
        double all = 0, largest = 0;
        for (const CaseSlot& slot : slots_) {
            all += static_cast<double>(slot.bytes);
            largest = std::max(largest, static_cast<double>(slot.bytes));
        }
        const double room = 0.5 * static_cast<double>(memory) - worker_memory_estimate(all);
        processes = std::min(processes, std::max(0, static_cast<int>(room / worker_memory_estimate(largest))));
        if (processes <= 0) return;
    }
    first_runs_.ahead_processes = std::min<int>(processes, static_cast<int>(jobs.size()));
    // The allowance reads only the options: the same for every thread.
    ahead_ = std::make_unique<FirstRunsAhead>(worker_.worker_options(), std::move(jobs), processes,
                                              [this](const worker::Message& probing) {
                                                  worker::RunSpec untimed;
                                                  return probe_allowance(untimed, probing);
                                              });
}

void CaseRunner::take_first_run_ahead(int index) {
    if (!ahead_ || worker_.has_reference(index) || !slots_[index].reference_file.empty()) return;
    const auto start = Clock::now();
    const std::optional<FirstRunsAhead::Ran> ran = ahead_->take(index);
    if (!ran) {
        const std::string why = ahead_->failure(index);
        if (!why.empty() && first_runs_.ahead_failure.empty())
            first_runs_.ahead_failure = slots_[index].path.filename().string() + ": " + excerpt(why, 200);
        return;
    }
    RunVerdict v;
    try {
        v = classify_run_reply(ran->first);
    } catch (const Error&) {
        return;  // malformed: the worker's own first run decides
    }
    if (v.result.status != EvalStatus::Ok) return;
    // Its blobs were checked by the worker that ran it; the evaluator's worker takes its outputs.
    worker_.mark_verified(index);
    note_first_run(index, ran->first, v, ms_since(start), true);
    ++first_runs_.ahead_runs;
    first_runs_.ahead_wall_ms = ahead_->wall_ms();
    for (const worker::Message& again : ran->reruns) {
        try {
            ahead_reruns_[index].push_back(classify_run_reply(again));
            ++first_runs_.ahead_reruns;
        } catch (const Error&) {
            break;  // malformed: the rest are the evaluator's worker's
        }
    }
}

std::optional<RunVerdict> CaseRunner::take_rerun_ahead(int index) {
    const auto it = ahead_reruns_.find(index);
    if (it == ahead_reruns_.end() || it->second.empty()) return std::nullopt;
    RunVerdict v = std::move(it->second.front());
    it->second.pop_front();
    return v;
}

std::size_t CaseRunner::reruns_ahead(int index) const {
    const auto it = ahead_reruns_.find(index);
    return it == ahead_reruns_.end() ? 0 : it->second.size();
}

void CaseRunner::end_first_runs_ahead() {
    ahead_.reset();
    ahead_reruns_.clear();
}

// How long one launch of a kernel whose original takes `original_ms` may run before it counts as hung.
double CaseRunner::launch_allowance_ms(double original_ms) const {
    return options_.timeout_factor * original_ms + options_.timeout_margin_ms;
}

// The original's first run on a case answers "probing" (with the plain run's time and the
// probes' launches) before it probes write sets: poison in a writable buffer the kernel reads as a
// count can make it loop for ever, and the request's own allowance would wait 300 s for that; the
// probes get their launches' allowance, as a variant's run does, plus the transfers and the timed
// repetitions that may follow in the same request.
worker::Message CaseRunner::request_original(const worker::RunSpec& spec) {
    using std::chrono::milliseconds;
    worker::WorkerProcess& process = worker_.process();
    const Message m = to_message(spec);
    process.send(m, std::chrono::seconds(30));
    Message reply = process.receive(m.type, std::chrono::seconds(300));
    if (reply.type != "probing") return reply;
    return process.receive(m.type, probe_allowance(spec, reply));
}

std::chrono::milliseconds CaseRunner::probe_allowance(const worker::RunSpec& spec, const worker::Message& reply) const {
    using std::chrono::milliseconds;
    const double ms = std::max(1.0, std::atof(reply.get("original-ms", "0").c_str()));
    const double launches = std::max(1.0, std::atof(reply.get("launches", "1").c_str()));
    const double bytes = std::max(0.0, std::atof(reply.get("bytes", "0").c_str()));
    const double per_launch = launch_allowance_ms(ms);
    const double timed = spec.time ? per_launch * (spec.warmups + spec.repetitions) * std::max(1, spec.launches_per_time) : 0;
    const double allowance = 10000 + launches * per_launch + bytes / 1e6 + timed;  // transfers at 1 GB/s, at worst
    return milliseconds(static_cast<long long>(allowance));
}

// A variant's run request is answered in stages ("started" before its check launch, "checked"
// after it, then the result), each with its own deadline: a hung kernel is killed after the
// original's time x factor + margin, not after the allowance for the whole request.
std::pair<std::chrono::milliseconds, std::chrono::milliseconds> CaseRunner::run_waits(int index) const {
    using std::chrono::milliseconds;
    const CaseSlot& slot = slots_[index];
    const double base = slot.original_ms > 0 ? slot.original_ms : 1000.0;
    const auto kernel_allowance = milliseconds(static_cast<long long>(launch_allowance_ms(base)));
    const auto rest = milliseconds(static_cast<long long>(5000 + options_.timeout_margin_ms +
                                                          options_.timeout_factor * base * (options_.warmups + options_.repetitions) *
                                                              std::max(1, slot.launches_per_time)));
    return {kernel_allowance, rest};
}

std::string CaseRunner::reference_path(int index) const {
    return (references_->path() / ("case-" + std::to_string(index) + ".ref")).string();
}

Message CaseRunner::run_variant_request(int index, const Message& m) {
    const auto [kernel_allowance, rest] = run_waits(index);
    return worker::request_in_stages(worker_.process(), m, kernel_allowance, rest);
}

RunVerdict CaseRunner::rerun_once(int index) {
    const ResolvedGeometry g = resolve_geometry(kernel_.geometry, slots_[index].manifest, kernel_.param_defaults, kernel_.arg_names);
    return classify_run_reply(run_variant_request(index, to_message(run_spec(index, "rerun", *original_, g, false))));
}

RunVerdict CaseRunner::rerun_original(int index) {
    RunVerdict v;
    for (int losses = 0;;) {
        ready_for(index);
        try {
            v = rerun_once(index);
        } catch (const worker::WorkerFailure& e) {
            if (e.kind() == worker::WorkerFailure::Kind::LauncherLost) {
                worker_.replace_lost(e, ++losses);
                continue;
            }
            v = classify_worker_failure(e);
        }
        break;
    }
    if (v.restart_worker) worker_.drop();
    return v;
}

// A variant's request lost on `losses` workers in a row, the retries used up: a lost node and a
// variant that kills its worker before it says anything (a crash while its module loads) look
// alike, so the original kernel runs once on a fresh worker. Answered, the launcher works and the
// variant is judged a crash; lost as well, the launcher is broken and the run stops.
RunVerdict CaseRunner::judge_lost_variant(int index, const worker::WorkerFailure& failure, int losses) {
    worker_.drop();
    ++worker_.stats().launcher_losses;
    std::cerr << "gi-tool: note: " << failure.what() << "; that is " << losses
              << " workers in a row lost on one variant's request: the original kernel runs on a fresh worker to tell a "
                 "broken launcher from a variant that kills its worker\n";
    try {
        ready_for(index);
        if (rerun_once(index).restart_worker) worker_.drop();
    } catch (const worker::WorkerFailure& e) {
        if (e.kind() == worker::WorkerFailure::Kind::LauncherLost)
            worker_.replace_lost(e, losses + 1, "a variant's request and then on the original kernel's");  // throws
        worker_.drop();  // it answered something: the launcher works
    }
    RunVerdict v;
    v.result.status = EvalStatus::Crash;
    v.result.detail = "its GPU worker was lost " + std::to_string(losses) +
                      " times in a row through the launcher before answering (it kills its worker, e.g. while its module "
                      "loads), while a fresh worker ran the original kernel: " +
                      excerpt(failure.what(), 300);
    return v;
}

RunVerdict CaseRunner::run_variant(int index, const Genome& genome, const VariantBuild& build, bool time) {
    const bool beside_exiting = worker::killed_workers_exiting() > 0;
    RunVerdict v = run_variant_once(index, genome, build, time);
    if (beside_exiting && v.loop_overrun && worker::wait_for_killed_workers(std::chrono::seconds(2))) {
        --stats_.loop_overruns;
        v = run_variant_once(index, genome, build, time);
    }
    return v;
}

RunVerdict CaseRunner::run_variant_once(int index, const Genome& genome, const VariantBuild& build, bool time) {
    const DeviceCompileResult& code = build.code;
    RunVerdict v;
    if (!code.ok) {
        v.result.status = EvalStatus::CompileError;
        v.result.detail = first_error_lines(code.log, 3);
        return v;
    }
    ResolvedGeometry g;
    try {
        g = kernel_.geometry_of(slots_[index].manifest, genome);
    } catch (const Error& e) {
        v.result.status = EvalStatus::Crash;
        v.result.detail = std::string("launch geometry: ") + e.what();
        return v;
    }
    worker_.spares().poll();
    const worker::Message request = to_message(run_spec(index, "variant", code, g, time, &build, kernel_.instance_of(genome)));
    auto start = Clock::now();
    // A worker lost with its launcher (its node, its connection) judges nothing: the variant runs
    // again on another worker.
    for (int losses = 0;;) {
        ready_for(index);
        start = Clock::now();
        const bool beside_exiting = worker::killed_workers_exiting() > 0;
        try {
            const Message reply = run_variant_request(index, request);
            v = classify_run_reply(reply);
            stats_.add(v, ms_since(start), beside_exiting);
        } catch (const worker::WorkerFailure& e) {
            if (e.kind() == worker::WorkerFailure::Kind::LauncherLost) {
                if (!worker_.may_retry_lost(++losses)) {
                    v = judge_lost_variant(index, e, losses);
                    break;
                }
                worker_.replace_lost(e, losses);
                continue;
            }
            v = classify_worker_failure(e);
            if (v.result.status == EvalStatus::Timeout) ++stats_.timeouts;
        }
        break;
    }
    stats_.run_ms += ms_since(start);
    if (v.result.status == EvalStatus::Timeout) stats_.timeout_ms += ms_since(start);
    if (v.restart_worker) worker_.drop();
    if (v.result.status == EvalStatus::Ok && time) v.result.time = summarise_timings(v.times_ms);
    return v;
}

}  // namespace gi
