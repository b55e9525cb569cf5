#include "evaluate/cuda_evaluator.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "compare/recorded_outputs.hpp"
#include "compare/tolerance.hpp"
#include "compile/cubin_sections.hpp"
#include "compile/device_side.hpp"
#include "compile/project_headers.hpp"
#include "compile/module_variables.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_cache.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "evaluate/binary_identity.hpp"
#include "evaluate/compile_pool.hpp"
#include "evaluate/cuda_classify.hpp"
#include "evaluate/reference_folder.hpp"
#include "evaluate/sanitizer_gate.hpp"
#include "evaluate/spare_workers.hpp"
#include "evaluate/variant_builder.hpp"
#include "evaluate/sanitizer_sessions.hpp"
#include "launch/geometry.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "util/hash.hpp"
#include "util/parallel.hpp"
#include "process/process.hpp"
#include "variant/hang_guard.hpp"
#include "variant/loop_guard.hpp"
#include "variant/paired_build.hpp"
#include "worker/kernel_name.hpp"
#include "worker/case_messages.hpp"
#include "worker/run_request.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using worker::Message;

namespace {

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}


// The unedited kernel: the grammar's pieces at their original values reproduce the file.
std::string original_source(const Grammar& grammar) {
    std::string out;
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind == Piece::Kind::RuleSlot) out += grammar.rules.at(static_cast<std::size_t>(piece.index)).text;
        else out += piece.text;
    }
    return out;
}

std::string dims_text(const Dim3& d) { return to_string(d); }

std::string number_text(double value) { return fmt::format("{:.6g}", value); }

}  // namespace

std::string find_worker_program() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path& candidate : {self.parent_path() / "gi-worker", self.parent_path().parent_path() / "gi-tool" / "gi-worker"})
            if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        std::string dir;
        while (std::getline(dirs, dir, ':'))
            if (!dir.empty() && fs::is_regular_file(fs::path(dir) / "gi-worker", ec)) return (fs::path(dir) / "gi-worker").string();
    }
    return "";
}

namespace {


}  // namespace

struct CudaEvaluator::Impl : SpareWorkers::Owner {
    struct Slot {
        fs::path path;
        TestCase manifest;                  // no data: the worker reads the blobs
        std::vector<std::string> tolerances;  // per buffer, as text
        bool held_out = false;
        bool gate = false;                  // recorded for the sanitizer gate (--sanitize-cases); also validates
        bool used = false;                  // drawn by evaluate()
        double original_ms = 0;             // the original's median time here (0 = not yet)
        int launches_per_time = 0;          // launches per timed repetition here, the original's and
                                            // every variant's alike (0 = not decided: before its first timing)
        std::string poisonable;             // which outputs the original overwrites entirely (learnt once)
        std::uint64_t bytes = 0;            // the case's buffers together
        fs::path reference_file;            // the original's outputs, handed to later workers ("" = none yet)
        std::string reference_sha256;       // their checksum, as the writing worker reported it
        std::string kernel;                 // the name the worker finds the kernel by: the function, or
                                            // for a template the recorded instantiation's symbol
        bool reference_failed = false;      // writing them failed once: do not try again
        bool rejection_noted = false;
        // The original's first replay on this GPU against the recorded outputs (the oracle gate).
        std::uint64_t oracle_elements = 0, oracle_mismatches = 0;
        double oracle_worst = 0;
        std::string oracle_detail;
    };

    CudaEvaluatorOptions options;
    std::string function;
    std::vector<std::string> arg_names;
    std::vector<std::string> instantiations;  // of a template kernel, as recorded ("K<32>"): emitted by NVRTC
    // A registration whose template argument is a parameter ("MatrixMulCUDA<TILE>", PARAMS TILE):
    // each variant compiles and runs the instantiation its own value names. "" otherwise.
    std::string instance_pattern;
    std::map<std::string, std::string> param_texts;  // every Param gene's default, as written
    NameValues param_defaults;
    std::vector<std::pair<std::string, std::string>> numeric_params;  // name, default
    LaunchGeometry geometry;
    ToleranceSpec tolerance;
    std::string original;
    int original_barriers = 0;
    std::vector<Slot> slots;
    int training = 0;
    std::string worker_program;

    std::unique_ptr<worker::WorkerProcess> worker;
    std::set<int> loaded, referenced;
    std::unique_ptr<SpareWorkers> spares;   // evaluate/spare_workers.hpp
    Clock::time_point first_use{};
    std::set<int> verified;  // cases whose checksums a worker has already checked
    std::string device;
    std::string arch;
    std::uint64_t gpu_memory = 0;
    std::unique_ptr<ReferenceFolder> references;

    std::unique_ptr<VariantBuilder> builder;  // made with the original's compile (prepare_original)
    long unguarded_runs = 0;                  // variants whose guarded build the worker could not use
    std::unique_ptr<SanitizerSessions> sanitizer_sessions;  // the gate's long-lived processes
    fs::path kernel_dir;                      // where the kernel file's quoted #includes start
    bool compiler_decided = false;
    std::shared_ptr<DeviceCompileResult> original_cubin;
    std::string original_sha256;
    std::map<std::string, EvalResult> sanitized;  // by variant key
    std::map<std::string, EvalResult> sanitized_binaries;  // by binary_identity and the checkers run
    bool oracle_checked = false;
    CudaEvaluatorStats stats;

    explicit Impl(CudaEvaluatorOptions o) : options(std::move(o)) {
        spares = std::make_unique<SpareWorkers>(options.spare_workers, *this);
    }

    // ---- worker -------------------------------------------------------------------------
    worker::WorkerOptions worker_options() const override {
        worker::WorkerOptions wo;
        wo.executable = worker_program;
        return wo;
    }

    Message load_message(int index) const override {
        const Slot& slot = slots.at(static_cast<std::size_t>(index));
        worker::LoadCase load;
        load.slot = index;
        load.path = slot.path.string();
        load.verify = !verified.count(index);
        load.tolerances = slot.tolerances;
        if (!slot.reference_file.empty()) {
            load.reference_file = slot.reference_file.string();
            load.reference_sha256 = slot.reference_sha256;
            load.original_sha256 = original_sha256;
        }
        return to_message(load);
    }

    // What a "case-loaded" reply says about the handed-over reference; true when the worker took it.
    bool took_reference(int index, const Message& reply) override {
        const worker::CaseLoaded loaded = worker::case_loaded_from(reply);
        const std::string& state = loaded.reference;
        if (state == "loaded") {
            ++stats.references_loaded;
            return true;
        }
        if (state == "rejected") {
            ++stats.references_rejected;
            Slot& slot = slots[index];
            if (!slot.rejection_noted)
                std::cerr << "gi-tool: note: a GPU worker rejected the original's handed-over outputs for "
                          << slot.path.string() << " (" << loaded.reference_error
                          << "); the original runs on each new worker for this case instead\n";
            slot.rejection_noted = true;
            // Never offered again: every later worker recomputes the reference itself.
            slot.reference_file.clear();
            slot.reference_sha256.clear();
            slot.reference_failed = true;
        }
        return false;
    }

    std::uint64_t case_bytes(int index) const override { return slots.at(static_cast<std::size_t>(index)).bytes; }

    SpareWorkers::Demand demand() const override {
        return {stats.worker_restarts, first_use == Clock::time_point{} ? 0.0 : ms_since(first_use), gpu_memory};
    }

    void start_worker(int want_case = -1) {
        if (worker && worker->running()) return;
        const bool replacing = worker != nullptr;
        if (replacing) ++stats.worker_restarts;
        worker.reset();
        loaded.clear();
        referenced.clear();
        if (replacing) {
            if (std::optional<SpareWorkers::Adopted> adopted = spares->adopt(want_case)) {
                worker = std::move(adopted->process);
                for (const auto& [index, reference] : adopted->cases) {
                    loaded.insert(index);
                    verified.insert(index);
                    if (reference) referenced.insert(index);
                }
                spares->top_up();
                return;
            }
        }
        if (replacing) ++stats.cold_starts;
        worker = std::make_unique<worker::WorkerProcess>(worker_options());
        Message reply;
        try {
            reply = worker->request({"hello", {}, {}}, std::chrono::seconds(120));
        } catch (const worker::WorkerFailure& e) {
            throw Error(std::string("the GPU worker failed to start: ") + e.what());
        }
        if (reply.type == "error") throw Error("cannot use the GPU: " + reply.get("message"));
        const worker::Ready ready = worker::ready_from(reply);
        device = ready.device;
        gpu_memory = ready.memory_bytes;
        if (arch.empty()) arch = options.arch.empty() ? "sm_" + std::to_string(ready.compute_capability) : options.arch;
        if (first_use == Clock::time_point{}) first_use = Clock::now();
        // Their CUDA start-up overlaps the original's compile and the first batch.
        spares->top_up();
    }

    void drop_worker() {
        if (worker) worker->kill();
    }

    Message request(const Message& m, std::chrono::milliseconds timeout) {
        start_worker();
        return worker->request(m, timeout);
    }

    void ensure_loaded(int index) {
        start_worker(index);
        if (loaded.count(index)) return;
        ++stats.case_loads;
        Message reply;
        try {
            reply = worker->request(load_message(index), std::chrono::seconds(300));
        } catch (const worker::WorkerFailure& e) {
            throw Error(slots[index].path.string() + ": the GPU worker failed while loading this case: " + e.what());
        }
        if (reply.type != "case-loaded")
            throw Error(reply.get("message", "the GPU worker could not load " + slots[index].path.string()));
        loaded.insert(index);
        verified.insert(index);
        if (took_reference(index, reply)) referenced.insert(index);
    }

    // Makes the worker ready to judge variants on `index`: alive, case loaded, reference outputs
    // present (handed over, or the original run here when they could not be).
    void ready_for(int index) {
        if (worker && worker->running() && loaded.count(index) && referenced.count(index)) return;
        const bool restart = worker && !worker->running();
        const auto start = Clock::now();
        ensure_loaded(index);
        if (!referenced.count(index)) {
            if (restart) ++stats.references_recomputed;
            run_original(index, false);
        }
        (restart ? stats.restart_ms : stats.original_ms) += ms_since(start);
    }

    using Build = VariantBuild;

    // With a guarded build, separate (it rides in front of the plain one) or paired (one module),
    // the request carries the guard's budget (worker/protocol.hpp).
    worker::RunSpec run_spec(int index, const std::string& role, const DeviceCompileResult& code, const ResolvedGeometry& g,
                             bool time, const Build* build = nullptr, const std::string& kernel = "") {
        worker::RunSpec spec;
        spec.slot = index;
        spec.role = role;
        spec.kernel = kernel.empty() ? slots[index].kernel : kernel;
        spec.grid = g.grid;
        spec.block = g.block;
        spec.shared_bytes = slots[index].manifest.shared_bytes;
        spec.warmups = options.warmups;
        spec.repetitions = options.repetitions;
        if (time) spec.launches_per_time = std::max(1, slots[index].launches_per_time);
        spec.time = time;
        spec.payload = code.cubin;
        if (build && (build->paired || build->guarded)) {
            const double base = slots[index].original_ms > 0 ? slots[index].original_ms : 1000.0;
            const double budget_ms = options.timeout_factor * base + options.guard_margin_ms;
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

    // Establishes the original's reference on a case (once per worker, unless handed over) and
    // returns its timing. The caller accounts for the time.
    Timing run_original(int index, bool time) {
        const ResolvedGeometry g = resolve_geometry(geometry, slots[index].manifest, param_defaults, arg_names);
        for (int attempt = 0;; ++attempt) {
            ensure_loaded(index);
            const bool first = !referenced.count(index);
            worker::RunSpec spec = run_spec(index, "original", *original_cubin, g, time);
            // A probe with poisoned outputs may crash an original that reads its outputs; then
            // the case is replayed without poisoning.
            if (attempt > 0) spec.probe_poison = false;
            if (first) spec.poisonable = slots[index].poisonable;
            const bool hand_over = first && slots[index].reference_file.empty() && !slots[index].reference_failed && references &&
                                   !references->path().empty();
            if (hand_over) spec.reference_out = (references->path() / ("case-" + std::to_string(index) + ".ref")).string();
            Message reply;
            try {
                reply = worker->request(to_message(spec), std::chrono::seconds(300));
            } catch (const worker::WorkerFailure& e) {
                if (attempt == 0 && first) continue;
                throw Error(slots[index].path.string() + ": the original kernel did not run: " + e.what());
            }
            const RunVerdict v = classify_run_reply(reply);
            if (v.restart_worker) drop_worker();
            if (v.result.status != EvalStatus::Ok) {
                if (attempt == 0 && first && v.result.status == EvalStatus::Crash) continue;
                throw Error(slots[index].path.string() + ": the original kernel fails on this case: " + v.result.detail);
            }
            if (first) {
                // Judged by the oracle gate (check_oracle), before any variant is compared with it.
                slots[index].oracle_elements = v.elements;
                slots[index].oracle_mismatches = v.mismatches;
                slots[index].oracle_worst = v.worst_error;
                slots[index].oracle_detail = v.result.detail;
            }
            referenced.insert(index);
            if (first && slots[index].poisonable.empty()) slots[index].poisonable = reply.get("poisonable");
            if (hand_over) {
                if (!reply.get("reference-sha256").empty()) {
                    slots[index].reference_file = reply.get("reference-file");
                    slots[index].reference_sha256 = reply.get("reference-sha256");
                } else {
                    slots[index].reference_failed = true;
                    std::cerr << "gi-tool: note: " << slots[index].path.string() << ": the original's outputs could not be "
                              << "handed to other workers (" << reply.get("reference-error", "the worker did not write them")
                              << "); each new worker runs the original for this case instead\n";
                }
            }
            if (!time) return {};
            Timing t = summarise_timings(v.times_ms);
            slots[index].original_ms = t.median_ms;
            if (slots[index].launches_per_time == 0) {
                // Decided once per case from the original's first timing, and that timing is then
                // repeated the same way: the original and every variant are timed alike.
                slots[index].launches_per_time = launches_per_time_for(t.median_ms, options.batch_timing_below_ms);
                if (slots[index].launches_per_time > 1) return run_original(index, true);
            } else if (spec.launches_per_time > 1) {
                // The worker times single launches where the case updates data in place: so be it here.
                slots[index].launches_per_time = static_cast<int>(reply.integer("launches-per-time", 1));
            }
            return t;
        }
    }

    // A variant's run request is answered in stages ("started" before its check launch, "checked"
    // after it, then the result), each with its own deadline: a hung kernel is killed after the
    // original's time x factor + margin, not after the allowance for the whole request.
    Message run_variant_request(int index, const Message& m) {
        using std::chrono::milliseconds;
        const double base = slots[index].original_ms > 0 ? slots[index].original_ms : 1000.0;
        const auto kernel_allowance = milliseconds(static_cast<long long>(options.timeout_margin_ms + options.timeout_factor * base));
        const auto rest = milliseconds(static_cast<long long>(5000 + options.timeout_margin_ms +
                                                              options.timeout_factor * base * (options.warmups + options.repetitions) *
                                                                  std::max(1, slots[index].launches_per_time)));
        worker->send(m, std::chrono::seconds(30));
        Message reply = worker->receive("run", std::chrono::seconds(30));  // module load and copies
        if (reply.type == "started") reply = worker->receive("run", kernel_allowance);
        if (reply.type == "checked") reply = worker->receive("run", rest);  // comparison and timed launches
        return reply;
    }

    // ---- the oracle gate ----------------------------------------------------------------
    // Why a case might not reproduce its recording, for the gate's errors.
    static std::string likely_causes() {
        return "Likely causes: state the kernel reads that the case does not hold (module variables recorded "
               "without `gi-tool record`, pointers the recorder could not follow), a kernel whose outputs change "
               "from run to run (atomics on floats, races: declare it with --nondeterministic / NONDETERMINISTIC "
               "and a TOLERANCE), or a kernel compiled here with other macros or options than in the program "
               "(pass them with -D / --compile-option)";
    }

    // Every capturable module variable of the kernel's file must be in every case: a case recorded
    // without it replays with the module's initial bytes (zeros for weights a program sets with
    // cudaMemcpyToSymbol), and a variant that ignores its inputs matches that oracle.
    void check_module_variables() {
        std::vector<ModuleVariable> variables;
        try {
            variables = module_variables(original_cubin->cubin);
        } catch (const Error& e) {
            std::cerr << "gi-tool: note: the original's module variables cannot be listed (" << e.what()
                      << "); cases are not checked for them\n";
            return;
        }
        std::string private_names;
        for (const ModuleVariable& v : variables) {
            if (file_private_name(v.name)) {
                private_names += (private_names.empty() ? "" : ", ") + v.name;
                continue;
            }
            for (const Slot& slot : slots) {
                const bool held = std::any_of(slot.manifest.buffers.begin(), slot.manifest.buffers.end(),
                                              [&](const CaseBuffer& b) { return b.variable == v.name; });
                if (!held)
                    throw Error(slot.path.string() + ": this case does not hold the " +
                                std::string(v.constant ? "__constant__" : "__device__") + " variable '" + v.name +
                                "' that the kernel's file defines, so replay would run with its initial value, not "
                                "the one the program set (cudaMemcpyToSymbol). Record the cases with `gi-tool record " +
                                "KERNEL.cu --function NAME --out DIR -- PROGRAM ARGS`, which captures every module "
                                "variable (docs/cmake.md, 'What is captured')");
            }
        }
        if (!private_names.empty())
            std::cerr << "gi-tool: note: the kernel's file has variables private to it (static inside a namespace, or "
                         "in an anonymous namespace: " << private_names << "); their compiled names depend on the path "
                         "the file was compiled from, so they cannot be captured. Replay uses their initial values; "
                         "if the program changes them, the oracle check below fails\n";
    }

    // The original once more on a case, as variants are run (poisoned outputs, compared with the
    // reference): how far its outputs move from one run to the next.
    RunVerdict rerun_original(int index) {
        const ResolvedGeometry g = resolve_geometry(geometry, slots[index].manifest, param_defaults, arg_names);
        ready_for(index);
        RunVerdict v;
        try {
            v = classify_run_reply(run_variant_request(index, to_message(run_spec(index, "rerun", *original_cubin, g, false))));
        } catch (const worker::WorkerFailure& e) {
            v = classify_worker_failure(e);
        }
        if (v.restart_worker) drop_worker();
        return v;
    }

    // A fast-compiled guarded build (-Ofc, evaluate/variant_builder.hpp) is judged by its outputs in
    // the check: the original's own must match its plain build's exactly (a different instruction
    // selection may round floats otherwise, and every variant would then fail), or guarded builds
    // are optimised as the plain ones for the run.
    void check_fast_guard_build(int index) {
        if (!builder->fast_guard_builds()) return;
        const Build build = builder->build_original(instance_of(Genome{}));
        const std::string with = "the original's guarded build compiled with " + builder->stats().guard_options + " ";
        if (!build.code.ok || !build.guarded || !build.guarded->ok) {
            builder->use_optimised_guard_builds(with + "did not compile: " +
                                                first_error_lines(build.guarded ? build.guarded->log : build.code.log, 1));
            return;
        }
        Variant original_variant;
        original_variant.source = original;
        const RunVerdict v = run_variant(index, original_variant, build, false);
        const bool moved = v.mismatches > 0 || (!options.nondeterministic && (v.worst_error > 0 || v.result.error > 0));
        const bool other_outputs = v.result.status == EvalStatus::WrongAnswer || (v.result.status == EvalStatus::Ok && moved);
        if (v.result.status != EvalStatus::Ok || moved)
            builder->use_optimised_guard_builds(
                with + (other_outputs ? "gave other outputs than its plain build: "
                                      : "ended as " + std::string(to_string(v.result.status)) + ": ") +
                (v.result.detail.empty() ? "largest difference " + number_text(v.worst_error) : v.result.detail) +
                " (case " + slots[index].path.filename().string() + ")");
    }

    void check_oracle() {
        if (oracle_checked) return;
        oracle_checked = true;
        check_module_variables();
        const int reruns = options.nondeterministic ? kNondeterministicReplays : 1;
        std::vector<std::string> unchanged;
        double spread = 0;
        int held_out = 0;
        for (int index = 0; index < static_cast<int>(slots.size()); ++index) {
            const Slot& slot = slots[index];
            held_out += slot.held_out;
            ready_for(index);
            if (slot.oracle_mismatches > 0)
                throw Error(slot.path.string() + ": the original kernel, replayed on this GPU, does not reproduce the "
                            "outputs recorded from the program: " + slot.oracle_detail + " (" +
                            std::to_string(slot.oracle_mismatches) + " of " + std::to_string(slot.oracle_elements) +
                            " elements beyond the tolerance). Nothing can be checked against such a case. " + likely_causes());
            for (int r = 0; r < reruns; ++r) {
                const RunVerdict v = rerun_original(index);
                if (v.result.status != EvalStatus::Ok)
                    throw Error(slot.path.string() + ": the original kernel, replayed a second time, " +
                                std::string(to_string(v.result.status)) + ": " + v.result.detail);
                spread = std::max(spread, v.worst_error);
                const bool moved = v.mismatches > 0 || v.worst_error > 0 || v.result.error > 0;
                if (!options.nondeterministic && moved)
                    throw Error(slot.path.string() + ": the original kernel's outputs change from one run to the next "
                                "on the same inputs (" + (v.result.detail.empty() ? "largest change " + number_text(v.worst_error)
                                                                                   : v.result.detail) +
                                "). If that is expected (atomics on floats, races you accept), declare the kernel "
                                "nondeterministic (--nondeterministic, CMake NONDETERMINISTIC) with a TOLERANCE that covers "
                                "the spread; otherwise the kernel has a race");
                if (options.nondeterministic && v.mismatches > 0)
                    throw Error(slot.path.string() + ": the original kernel (declared nondeterministic) varies beyond the "
                                "tolerance between runs on the same inputs: " + v.result.detail + ". Widen TOLERANCE "
                                "(--tolerance) to cover its spread, or variants would be judged against noise");
            }
            check_fast_guard_build(index);
            const bool changed = std::any_of(slot.manifest.buffers.begin(), slot.manifest.buffers.end(),
                                             [](const CaseBuffer& b) { return b.changed; });
            if (!changed) unchanged.push_back(slot.path.filename().string());
        }
        if (unchanged.size() == slots.size())
            throw Error("in every recorded case the launch changed nothing (each output buffer and variable already "
                        "held what the original wrote), so a variant that does nothing would look right. Record launches "
                        "whose outputs start out different from the results (a fresh or cleared output buffer)");
        std::string unchanged_list;
        for (const std::string& name : unchanged) unchanged_list += (unchanged_list.empty() ? "" : ", ") + name;
        if (!unchanged.empty())
            std::cerr << "gi-tool: note: the launch changed nothing in " << unchanged.size() << " of " << slots.size()
                      << " cases (" << unchanged_list << "); poisoned outputs still catch a variant that skips writing them\n";
        std::cerr << "gi-tool: the original kernel reproduces its recorded outputs on all " << slots.size() << " cases ("
                  << held_out << " kept for validation)";
        if (options.nondeterministic)
            std::cerr << "; declared nondeterministic: over " << kNondeterministicReplays << " replays per case its outputs moved by up to "
                      << number_text(spread) << ", within the tolerance";
        std::cerr << "\n";
        // Only the cases search uses next stay loaded: the worker checks every loaded case's copies
        // after each variant. The others come back with their reference outputs when needed.
        for (int index = 0; index < static_cast<int>(slots.size()); ++index)
            if (slots[index].held_out && loaded.count(index)) unload(index);
    }

    void unload(int index) {
        try {
            worker->request({"unload-case", {{"slot", std::to_string(index)}}, {}}, std::chrono::seconds(30));
        } catch (const worker::WorkerFailure&) {
            drop_worker();
        }
        loaded.erase(index);
        referenced.erase(index);
    }

    // ---- compile (evaluate/variant_builder.hpp) --------------------------------------------
    void prepare_original() {
        if (original_cubin) return;
        start_worker();
        builder = std::make_unique<VariantBuilder>(options, arch, original, function, instantiations, kernel_dir);
        DeviceCompileResult r = builder->prepare();
        original_sha256 = sha256_hex(r.cubin);
        original_cubin = std::make_shared<DeviceCompileResult>(std::move(r));
        std::uint64_t case_bytes = 0;
        for (const Slot& slot : slots) case_bytes += slot.bytes;
        references = std::make_unique<ReferenceFolder>(case_bytes);
        check_oracle();
    }

    NameValues params_of(const Genome& genome) const {
        NameValues values = param_defaults;
        for (const GeneSetting& s : genome.settings) {
            auto it = values.find(s.name);
            if (it == values.end()) continue;
            try {
                it->second = std::stoll(s.value);
            } catch (const std::exception&) {
                throw Error("gene " + s.name + "=" + s.value + " is not an integer, so it cannot size the launch");
            }
        }
        return values;
    }

    // Long-lived sanitizer sessions the gate keeps (--sanitize-sessions, else as many as it runs at once).
    int session_limit() const { return options.sanitize_sessions >= 0 ? options.sanitize_sessions : sanitize_parallel(); }

    // The gate's sessions, made at first need; nullptr with --sanitize-sessions 0.
    SanitizerSessions* sessions_for(const std::string& sanitizer) {
        if (!sanitizer_sessions && session_limit() > 0)
            sanitizer_sessions = std::make_unique<SanitizerSessions>(
                sanitizer, worker_program, session_limit(),
                options.sanitize_shared_sessions ? SessionPooling::Shared : SessionPooling::PerChecker,
                static_cast<std::uint64_t>(std::max(0, options.gate_guard_kib)) * 1024, options.racecheck_sessions);
        return sanitizer_sessions.get();
    }

    // compute-sanitizer processes the gate runs at once (--sanitize-jobs, else half the cores, at most 8).
    int sanitize_parallel() const {
        return options.sanitize_jobs > 0 ? options.sanitize_jobs
                                         : static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency()) / 2));
    }

    // The instantiation a variant runs when the template argument is a parameter ("" otherwise).
    std::string instance_of(const Genome& genome) const {
        if (instance_pattern.empty()) return "";
        std::map<std::string, std::string> values = param_texts;
        for (const GeneSetting& setting : genome.settings)
            if (values.count(setting.name)) values[setting.name] = setting.value;
        return with_template_arguments(instance_pattern, values);
    }

    // The variant's binary_identity on case `index`, or "" when it did not compile or its launch
    // geometry cannot be resolved (run_variant reports either).
    std::string binary_identity_of(int index, const Variant& variant, const Build& build) const {
        if (!build.code.ok) return "";
        try {
            const ResolvedGeometry g = resolve_geometry(geometry, slots[index].manifest, params_of(variant.genome), arg_names);
            return binary_identity(build.code.cubin, build.guarded ? std::string_view(build.guarded->cubin) : std::string_view(), g);
        } catch (const Error&) {
            return "";
        }
    }

    // One variant on one loaded, referenced case. A variant whose guard stopped it while a killed
    // worker was still exiting runs once more after that worker is gone: the killed worker's hung
    // kernel can hold the GPU until its context is torn down, and a correct variant's guarded
    // barrier then gave up at its deadline (seen on the H100).
    RunVerdict run_variant(int index, const Variant& variant, const Build& build, bool time) {
        const bool beside_exiting = worker::killed_workers_exiting() > 0;
        RunVerdict v = run_variant_once(index, variant, build, time);
        if (beside_exiting && v.loop_overrun && worker::wait_for_killed_workers(std::chrono::seconds(2))) {
            --stats.loop_overruns;
            v = run_variant_once(index, variant, build, time);
        }
        return v;
    }

    RunVerdict run_variant_once(int index, const Variant& variant, const Build& build, bool time) {
        const DeviceCompileResult& code = build.code;
        RunVerdict v;
        if (!code.ok) {
            v.result.status = EvalStatus::CompileError;
            v.result.detail = first_error_lines(code.log, 3);
            return v;
        }
        ResolvedGeometry g;
        try {
            g = resolve_geometry(geometry, slots[index].manifest, params_of(variant.genome), arg_names);
        } catch (const Error& e) {
            v.result.status = EvalStatus::Crash;
            v.result.detail = std::string("launch geometry: ") + e.what();
            return v;
        }
        spares->poll();
        ready_for(index);
        const auto start = Clock::now();
        const bool beside_exiting = worker::killed_workers_exiting() > 0;
        try {
            const Message reply =
                run_variant_request(index, to_message(run_spec(index, "variant", code, g, time, &build, instance_of(variant.genome))));
            v = classify_run_reply(reply);
            if (v.loop_overrun) ++stats.loop_overruns;
            if (v.out_of_bounds) ++stats.out_of_bounds;
            if (v.corrupting) ++stats.corrupting;
            if (v.guard_unusable) ++unguarded_runs;
            if (v.has_stages) {
                ++stats.staged_runs;
                stats.stage_load_ms += v.load_ms;
                stats.stage_check_ms += v.check_ms;
                stats.stage_compare_ms += v.compare_ms;
                stats.compared_on_gpu += v.compared_on_gpu;
                stats.compared_on_host += v.compared_on_host;
                stats.integrity_on_gpu += v.integrity_on_gpu;
                stats.integrity_on_host += v.integrity_on_host;
                stats.stage_timed_ms += v.timed_ms;
                stats.stage_integrity_ms += v.integrity_ms;
                stats.stage_worker_ms += v.worker_ms;
                stats.stage_unload_ms += v.unload_ms;
                stats.stage_load_plain_ms += v.load_plain_ms;
                stats.stage_load_find_ms += v.load_find_ms;
                stats.stage_load_guard_ms += v.load_guard_ms;
                stats.stage_request_ms += ms_since(start);
                if (beside_exiting) {
                    ++stats.staged_beside_exiting;
                    stats.beside_exiting_load_ms += v.load_ms;
                    stats.beside_exiting_unload_ms += v.unload_ms;
                    stats.beside_exiting_timed_ms += v.timed_ms;
                }
            }
        } catch (const worker::WorkerFailure& e) {
            v = classify_worker_failure(e);
            if (v.result.status == EvalStatus::Timeout) ++stats.timeouts;
        }
        stats.run_ms += ms_since(start);
        if (v.result.status == EvalStatus::Timeout) stats.timeout_ms += ms_since(start);
        if (v.restart_worker) drop_worker();
        if (v.result.status == EvalStatus::Ok && time) v.result.time = summarise_timings(v.times_ms);
        return v;
    }
};

CudaEvaluator::CudaEvaluator(const Grammar& grammar, CudaEvaluatorOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
    Impl& s = *impl_;
    const Function* kernel = nullptr;
    for (const Function& f : grammar.functions)
        if (f.is_global && (s.options.function.empty() || f.name == template_base_name(s.options.function))) {
            kernel = &f;
            break;
        }
    if (!kernel)
        throw UsageError("--function: no __global__ function '" + s.options.function + "' in " + grammar.source_path);
    s.function = kernel->name;
    // Replay runs one kernel; edits to another registered kernel would never be checked.
    std::string others;
    for (const Function& f : grammar.functions)
        if (f.is_global && f.name != kernel->name) others += (others.empty() ? "'" : ", '") + f.name + "'";
    if (!others.empty())
        throw UsageError("the grammar holds the kernels '" + kernel->name + "' and " + others + ", but the cuda evaluator "
                         "replays one kernel's cases, so edits to the others would go unchecked: evolve one kernel at a "
                         "time (--function NAME, one FUNCTION per gi_optimize_cuda_kernel call)");
    for (const KernelParameter& p : kernel->parameters) s.arg_names.push_back(p.name);
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::Param) s.param_texts[gene.name] = gene.default_value;
    if (with_template_arguments(s.options.function, s.param_texts) != s.options.function) s.instance_pattern = s.options.function;
    for (const Gene& gene : grammar.genes) {
        if (gene.kind != GeneKind::Param || !gene.numeric) continue;
        try {
            s.param_defaults[gene.name] = std::stoll(gene.default_value);
        } catch (const std::exception&) {
        }
    }
    s.geometry = parse_launch_geometry(s.options.block, s.options.grid);
    s.tolerance = parse_tolerance_spec(s.options.tolerances, "--tolerance");
    s.original = original_source(grammar);
    s.kernel_dir = fs::path(grammar.source_path).parent_path();
    if (s.kernel_dir.empty()) s.kernel_dir = ".";
    s.original_barriers = count_barriers(s.original);
    if (s.options.include_dirs.empty()) {
        const fs::path folder = fs::path(grammar.source_path).parent_path();
        s.options.include_dirs.push_back(folder.empty() ? "." : folder.string());
    }

    if (s.options.cases.empty()) throw UsageError("--cases: the cuda evaluator needs a folder of recorded test cases");
    const std::string recorded = s.options.recorded_name.empty() ? s.function : s.options.recorded_name;
    auto add_cases = [&](const fs::path& dir, bool held_out, bool gate = false) {
        std::vector<fs::path> found = list_test_cases(dir, recorded);
        if (found.empty()) found = list_test_cases(dir);
        for (const fs::path& path : found) {
            Impl::Slot slot;
            slot.path = path;
            slot.held_out = held_out;
            slot.gate = gate;
            slot.manifest = read_test_case(path, CaseLoad::ManifestOnly);
            slot.kernel = s.function;
            if (kernel->is_template) {
                // Which instantiation ran is in the case; a registration naming one takes its cases only.
                if (slot.manifest.symbol.empty())
                    throw Error(path.string() + ": '" + s.function + "' is a template, and this case does not say which "
                                "instantiation of it ran (recorded by an older recorder, or with a driver older than CUDA 12.3, "
                                "which cannot name the launched kernel); record it again");
                const std::string demangled = worker::demangled_name(slot.manifest.symbol);
                const std::string instance = worker::kernel_instantiation_name(demangled);
                // "K<TILE>": the program ran the instantiation the parameter's default names.
                const std::string wanted = s.options.function.empty() ? s.function
                                                                      : with_template_arguments(s.options.function, s.param_texts);
                if (!worker::kernel_name_matches(wanted, slot.manifest.symbol, demangled)) continue;
                slot.kernel = slot.manifest.symbol;
                if (std::find(s.instantiations.begin(), s.instantiations.end(), instance) == s.instantiations.end())
                    s.instantiations.push_back(instance);
            }
            if (slot.manifest.args.size() != s.arg_names.size())
                throw Error(path.string() + ": the recorded launch passes " + std::to_string(slot.manifest.args.size()) +
                            " arguments but '" + s.function + "' takes " + std::to_string(s.arg_names.size()) +
                            " (were these cases recorded from another kernel?)");
            check_recorded_geometry(s.geometry, slot.manifest, s.param_defaults, s.arg_names);
            for (const CaseBuffer& b : slot.manifest.buffers) slot.bytes += b.size;
            for (std::size_t b = 0; b < slot.manifest.buffers.size(); ++b)
                slot.tolerances.push_back(to_string(s.tolerance.for_names(tolerance_names(slot.manifest, b, s.arg_names))));
            s.slots.push_back(std::move(slot));
        }
    };
    add_cases(s.options.cases, false);
    s.training = static_cast<int>(s.slots.size());
    if (s.training == 0)
        throw Error(s.options.cases.string() + ": no recorded test cases for '" + recorded +
                    "' (run the program with GI_RECORD_DIR=" + s.options.cases.string() + ")");
    // Nothing is shipped without validation on inputs search never saw: without a held-out folder,
    // the last recorded cases (in recording order) are kept for it.
    int set_aside = s.options.set_aside;
    if (set_aside < 0) set_aside = s.options.held_out.empty() && s.training >= 2 ? std::max(1, s.training / 4) : 0;
    if (set_aside >= s.training)
        throw UsageError("--set-aside " + std::to_string(set_aside) + " would leave no training case of the " +
                         std::to_string(s.training) + " in " + s.options.cases.string());
    if (set_aside > 0) {
        std::string names;
        for (int index = s.training - set_aside; index < s.training; ++index) {
            s.slots[index].held_out = true;
            names += (names.empty() ? "" : ", ") + s.slots[index].path.filename().string();
        }
        std::cerr << "gi-tool: note: " << set_aside << " of the " << s.training << " recorded cases (" << names
                  << ") are set aside to validate the result; search uses the other " << s.training - set_aside
                  << (s.options.held_out.empty() ? " (give --held-out cases, or --set-aside 0 to search on all)" : "")
                  << "\n";
        s.training -= set_aside;
    }
    if (!s.options.held_out.empty()) add_cases(s.options.held_out, true);
    if (!s.options.sanitize_cases.empty()) {
        // Kept out of search like held-out cases (the winner is validated on them too); the oracle
        // gate checks that they reproduce, as every case.
        const std::size_t before = s.slots.size();
        add_cases(s.options.sanitize_cases, true, true);
        if (s.slots.size() == before)
            throw Error(s.options.sanitize_cases.string() + " (--sanitize-cases): no recorded test cases for '" + recorded + "'");
    }

    s.worker_program = s.options.worker.empty() ? find_worker_program() : s.options.worker;
    if (s.worker_program.empty())
        throw Error("cannot find gi-worker, the cuda evaluator's GPU process, next to gi-tool or on PATH "
                    "(build the gi-worker target, or pass --worker PATH)");
}

CudaEvaluator::~CudaEvaluator() {
    if (impl_->worker && impl_->worker->running()) {
        try {
            impl_->worker->request({"quit", {}, {}}, std::chrono::seconds(5));
        } catch (const std::exception&) {
        }
        impl_->worker->kill();
    }
    impl_->spares.reset();
}

int CudaEvaluator::case_count() const { return impl_->training; }

int CudaEvaluator::launches_per_time(int case_index) const {
    return std::max(1, impl_->slots.at(static_cast<std::size_t>(case_index)).launches_per_time);
}

int CudaEvaluator::gate_case(int case_index) const {
    // The gate's cases in turn, so each is used when there are several.
    std::vector<int> gate;
    for (int index = 0; index < static_cast<int>(impl_->slots.size()); ++index)
        if (impl_->slots[index].gate) gate.push_back(index);
    if (gate.empty()) return case_index;
    return gate[static_cast<std::size_t>(std::max(case_index, 0)) % gate.size()];
}

const CudaEvaluatorStats& CudaEvaluator::stats() const {
    // The builder, the spare workers and the sanitizer sessions keep their own counters; copied in when asked.
    CudaEvaluatorStats& t = impl_->stats;
    t.spares = impl_->spares->stats();
    if (const VariantBuilder* builder = impl_->builder.get()) {
        const BuildStats& b = builder->stats();
        t.compiled = b.compiled;
        t.cache_hits = b.cache_hits;
        t.guard_compiled = b.guard_compiled;
        t.paired_builds = b.paired_builds;
        t.paired_fallbacks = b.paired_fallbacks;
        t.compile_cpu_ms = b.compile_cpu_ms;
        t.compiler = b.compiler;
        t.guard_options = b.guard_options;
        t.built_ahead = b.built_ahead;
        t.nvrtc_processes = b.nvrtc_processes.started;
        t.nvrtc_processes_lost = b.nvrtc_processes.lost;
        t.unguarded = b.unguarded + impl_->unguarded_runs;
    }
    if (const SanitizerSessions* sessions = impl_->sanitizer_sessions.get()) {
        t.gate.sessions_started = sessions->started();
        t.gate.sessions_evicted = sessions->evicted();
        t.gate.sessions_replaced = sessions->replaced();
        t.gate.session_waits = sessions->waited();
    }
    return t;
}

void CudaEvaluator::check_oracle() { impl_->prepare_original(); }

std::vector<std::string> CudaEvaluator::run_notes() const {
    const Impl& s = *impl_;
    std::vector<std::string> notes;
    const CudaEvaluatorStats& t = stats();
    // Where evaluate()'s time went (the sanitizer gate's is the search's "gate" figure), so a user
    // sees what bounds a budget: compiles, GPU runs, or workers replaced after failing variants.
    if (t.variants > 0) {
        auto seconds = [](double ms) { return fixed(ms / 1000.0, 1) + " s"; };
        notes.push_back("cuda evaluator time: waiting for compiles " + seconds(t.compile_wait_ms) + " (" +
                        std::to_string(t.compiled) + " compiles with " + (t.compiler.empty() ? "nvrtc" : t.compiler) +
                        (t.nvrtc_processes > 0 ? " in " + std::to_string(t.nvrtc_processes) + " processes of its own" +
                                                     (t.nvrtc_processes_lost > 0 ? " (" + std::to_string(t.nvrtc_processes_lost) +
                                                                                       " lost on a variant)"
                                                                                 : "")
                                               : "") +
                        ", " +
                        (t.compiled > 0 ? fixed(t.compile_cpu_ms / static_cast<double>(t.compiled), 0) : std::string("0")) +
                        " ms each, " + std::to_string(t.cache_hits) + " cache hits" +
                        (t.guard_options.empty() ? "" : "; " + std::to_string(t.guard_compiled) + " of them guarded builds at " + t.guard_options) +
                        (t.built_ahead > 0 ? "; " + std::to_string(t.built_ahead) + " variants' builds started while the sanitizer gate ran" : "") +
                        "), variant runs " + seconds(t.run_ms) +
                        " (of which variants that timed out " + seconds(t.timeout_ms) + "; output buffers found equal to "
                        "the original's on the GPU " + std::to_string(t.compared_on_gpu) + ", compared on the host " +
                        std::to_string(t.compared_on_host) + "), original runs " + seconds(t.original_ms) +
                        " (of which readying a worker with the batch's case: replacing one the last batch killed, "
                        "loading the case " + seconds(t.original_load_ms) +
                        ", waiting for killed workers to exit " + seconds(t.reap_wait_ms) + "), worker restarts " +
                        seconds(t.restart_ms) + " (" + std::to_string(t.worker_restarts) + "), for " +
                        std::to_string(t.variants) + " variants");
    }
    if (const std::string gate = t.gate.note(s.options.sanitize_batch); !gate.empty()) notes.push_back(gate);
    std::string batched;
    for (std::size_t i = 0; i < s.slots.size(); ++i)
        if (s.slots[i].launches_per_time > 1)
            batched += (batched.empty() ? "" : ", ") + s.slots[i].path.filename().string() + " " +
                       std::to_string(s.slots[i].launches_per_time);
    if (!batched.empty())
        notes.push_back("timing: the kernel takes under " + number_text(s.options.batch_timing_below_ms) +
                        " ms, so each timed repetition was the mean of a batch of launches back to back, the original's "
                        "and every variant's alike (launches per case: " + batched + "; --batch-timing-below-ms 0 times "
                        "single launches)");
    if (s.builder && s.builder->device_side())
        notes.push_back("variants were compiled with NVRTC from the kernel file's device side (its host code and host "
                        "headers set aside; nvcc built the same device code from it); the validated result was built by "
                        "nvcc from the whole file, as the build compiles it");
    if (!s.builder || s.builder->nvrtc_refusal().empty() || t.compiled == 0) return notes;
    const double ms = t.compile_cpu_ms / static_cast<double>(t.compiled);
    const std::string& refusal = s.builder->nvrtc_refusal();
    if (!nvrtc_options_for(s.options.compile_options)) {
        notes.push_back("every variant was compiled with nvcc, " + number_text(ms) + " ms a compile here, because " + refusal +
                        " (docs/evaluation.md, \"Compilers\", lists the options NVRTC takes)");
        return notes;
    }
    notes.push_back("every variant was compiled with nvcc, " + number_text(ms) + " ms a compile here, because NVRTC cannot "
            "take the kernel file: " + refusal + ". NVRTC takes a file's device side when its kernels use "
            "nothing of its host code and include only headers NVRTC has or gi-tool stands in for (docs/evaluation.md)");
    return notes;
}

std::vector<Evaluator::TimeSpent> CudaEvaluator::time_spent() const {
    const CudaEvaluatorStats& t = impl_->stats;
    return {{"waiting for compiles", t.compile_wait_ms / 1000},
            {"variant runs", t.run_ms / 1000},
            {"original runs", t.original_ms / 1000},
            {"worker restarts", t.restart_ms / 1000}};
}

bool CudaEvaluator::loop_guard() const { return impl_->options.loop_guard; }

std::string CudaEvaluator::device_name() {
    impl_->start_worker();
    return impl_->device;
}

std::string CudaEvaluator::arch() {
    impl_->start_worker();
    return impl_->arch;
}

BatchResult CudaEvaluator::evaluate(const std::vector<Variant>& variants, int case_index) {
    Impl& s = *impl_;
    if (case_index < 0 || case_index >= s.training)
        throw Error("case index " + std::to_string(case_index) + " is out of range (the evaluator has " +
                    std::to_string(s.training) + " training cases)");
    s.prepare_original();
    s.slots[case_index].used = true;

    // Compiles start at once and run on every core while the GPU works through the batch.
    std::vector<VariantBuilder::Pending> compiles;
    std::map<std::string, std::size_t> first_with_key;
    std::map<std::string, std::size_t> first_with_binary;  // binary_identity -> the variant that ran it
    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (first_with_key.count(variants[i].key)) {
            compiles.emplace_back();
            continue;
        }
        first_with_key[variants[i].key] = i;
        compiles.push_back(s.builder->submit(variants[i], s.instance_of(variants[i].genome)));
    }

    BatchResult batch;
    {
        const auto start = Clock::now();
        s.ensure_loaded(case_index);  // replaces a worker the last batch's final variant killed
        s.stats.original_load_ms += ms_since(start);
        // A killed worker's context, and a hung kernel in it, may hold the GPU until the worker is
        // reaped: the original is timed only after that, so it is never slowed and flattering.
        const auto reap_start = Clock::now();
        worker::wait_for_killed_workers(std::chrono::seconds(2));
        s.stats.reap_wait_ms += ms_since(reap_start);
        batch.original = s.run_original(case_index, true);
        s.stats.original_ms += ms_since(start);
    }
    // The original's outputs for this case are on file now: the spares load them with the case.
    s.spares->prepare(case_index);
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const std::size_t first = first_with_key[variants[i].key];
        if (first != i) {
            batch.results.push_back(batch.results[first]);
            ++s.stats.duplicates;
            ++s.stats.variants;
            continue;
        }
        const auto wait_start = Clock::now();
        Impl::Build build = s.builder->collect(compiles[i]);
        s.stats.compile_wait_ms += ms_since(wait_start);
        if (const std::string identity = s.options.reuse_binary_duplicates ? s.binary_identity_of(case_index, variants[i], build) : "";
            !identity.empty()) {
            if (const auto [it, first_time] = first_with_binary.emplace(identity, i); !first_time) {
                batch.results.push_back(batch.results[it->second]);
                ++s.stats.binary_duplicates;
                ++s.stats.variants;
                continue;
            }
        }
        batch.results.push_back(s.run_variant(case_index, variants[i], build, true).result);
        ++s.stats.variants;
    }
    const worker::KilledWorkerExits exits = worker::killed_worker_exits();
    s.stats.killed_reaped = exits.reaped;
    s.stats.killed_exit_ms = exits.mean_ms;
    return batch;
}

void CudaEvaluator::prepare_ahead(const std::vector<Variant>& variants) {
    Impl& s = *impl_;
    s.prepare_original();
    s.builder->forget_ahead();
    for (const Variant& v : variants) s.builder->submit_ahead(v, s.instance_of(v.genome));
}

EvalResult CudaEvaluator::sanitize(const Variant& variant, int case_index) {
    return sanitize_many({variant}, case_index).front();
}

void CudaEvaluator::expect_checks() {
    Impl& s = *impl_;
    const int limit = s.session_limit();
    if (limit <= 0 || !s.options.sanitize_prewarm) return;
    std::string sanitizer;
    try {
        sanitizer = find_compute_sanitizer(s.options.sanitizer);
    } catch (const Error&) {
        return;  // the gate itself says so when it runs
    }
    SanitizerSessions* sessions = s.sessions_for(sanitizer);
    // Every variant gets memcheck; racecheck and synccheck only those that removed a barrier, which
    // a kernel with barriers meets in its first generation: on the H200 stereo's first gate took
    // 13-15 s of a 45 s search while their sessions started, the later ones 0.1-2 s.
    // With small cases recorded for the gate its first checks run on the first of them, which the
    // sessions open now too; a training case (hundreds of MB in each) is left for the check.
    const int first_gate = gate_case(0);
    const std::string gate_path = first_gate >= 0 && first_gate < static_cast<int>(s.slots.size()) && s.slots[first_gate].gate
                                      ? s.slots[first_gate].path.string()
                                      : "";
    if (s.options.gate_guard_kib > 0) sessions->prewarm(kGuardZonesTool, sessions->capacity(kGuardZonesTool), gate_path);
    sessions->prewarm("memcheck", limit, gate_path);
    if (count_barriers(s.original) > 0)
        for (const char* tool : {"racecheck", "synccheck"}) sessions->prewarm(tool, sessions->capacity(tool), gate_path);
}

std::vector<EvalResult> CudaEvaluator::sanitize_many(const std::vector<Variant>& variants, int case_index) {
    Impl& s = *impl_;
    std::vector<EvalResult> results(variants.size());
    std::map<std::string, std::size_t> first_with_key;
    std::vector<std::size_t> to_check;
    // A verdict from a gate case (--sanitize-cases) does not stand for the final checks on a
    // training case: the two are cached apart.
    const bool on_gate_case = case_index >= 0 && case_index < static_cast<int>(s.slots.size()) && s.slots[case_index].gate;
    const std::string verdict_suffix = on_gate_case ? " @gate" : "";
    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (auto it = s.sanitized.find(variants[i].key + verdict_suffix); it != s.sanitized.end()) {
            results[i] = it->second;
        } else if (first_with_key.emplace(variants[i].key, i).second) {
            to_check.push_back(i);
        }
    }
    if (!to_check.empty()) {
        if (case_index < 0 || case_index >= static_cast<int>(s.slots.size()))
            throw Error("case index " + std::to_string(case_index) + " is out of range for sanitize()");
        const std::string sanitizer = find_compute_sanitizer(s.options.sanitizer);
        s.prepare_original();
        // Compiling happens here, one at a time (the variants were compiled for evaluate(), so these
        // are cache hits); only the sanitizer processes, which share nothing, run in parallel.
        std::vector<SanitizeJob> jobs;
        std::vector<std::string> identities(variants.size());      // of those run: binary_identity + checkers
        std::map<std::string, std::size_t> run_identity;           // identity -> the variant that runs it
        std::vector<std::pair<std::size_t, std::size_t>> same_program_as;  // (variant, the one run for it)
        for (std::size_t i : to_check) {
            const Variant& variant = variants[i];
            // A paired build's module has the plain kernel by its name too (gi-worker --once finds it);
            // otherwise the plain build alone, with no guarded build the sanitizer would not run.
            const std::string paired = s.builder->paired_source_of(variant.source);
            const std::string instance = s.instance_of(variant.genome);
            const std::vector<std::string> flags = s.builder->flags_of(variant);
            const DeviceCompileResult code = paired.empty() ? s.builder->compile(variant.source, flags, false, instance)
                                                            : s.builder->build(variant.source, paired, flags, false, instance).code;
            if (!code.ok) {
                results[i].status = EvalStatus::CompileError;
                results[i].detail = first_error_lines(code.log, 3);
                continue;
            }
            const ResolvedGeometry g =
                resolve_geometry(s.geometry, s.slots[case_index].manifest, s.params_of(variant.genome), s.arg_names);
            std::vector<std::string> tools{"memcheck"};
            // Guard zones first (sessions only): they catch the commonest fault, a write just past a
            // buffer, in milliseconds where memcheck's report of it takes seconds.
            if (s.options.gate_guard_kib > 0 && s.session_limit() > 0) tools.insert(tools.begin(), kGuardZonesTool);
            if (needs_race_checks(variant.source, s.original_barriers)) {
                tools.push_back("racecheck");
                tools.push_back("synccheck");
            }
            // The same program under the same checkers has the same verdict, whatever its text.
            if (s.options.reuse_binary_duplicates) {
                std::string identity = binary_identity(code.cubin, "", g) + verdict_suffix;
                for (const std::string& tool : tools) identity += " " + tool;
                if (auto it = s.sanitized_binaries.find(identity); it != s.sanitized_binaries.end()) {
                    results[i] = it->second;
                    ++s.stats.gate.binary_reuses;
                    continue;
                }
                if (auto [it, first_time] = run_identity.emplace(identity, i); !first_time) {
                    same_program_as.emplace_back(i, it->second);
                    ++s.stats.gate.binary_reuses;
                    continue;
                }
                identities[i] = std::move(identity);
            }
            const double base = s.slots[case_index].original_ms > 0 ? s.slots[case_index].original_ms : 100;
            jobs.push_back({i, tools, dims_text(g.grid), dims_text(g.block), instance, code.cubin, base});
        }
        const std::size_t parallel = static_cast<std::size_t>(s.sanitize_parallel());
        const SanitizeContext context{sanitizer,
                                      s.worker_program,
                                      s.slots[case_index].path.string(),
                                      s.slots[case_index].kernel,
                                      std::to_string(s.slots[case_index].manifest.shared_bytes),
                                      s.sessions_for(sanitizer),
                                      static_cast<std::size_t>(std::max(1, s.options.sanitize_side_by_side))};
        const std::vector<EvalResult> checked = check_under_sanitizer(
            context, jobs, parallel, static_cast<std::size_t>(std::max(1, s.options.sanitize_batch)), s.stats.gate);
        for (std::size_t k = 0; k < jobs.size(); ++k) results[jobs[k].variant] = checked[k];
        for (const auto& [i, first] : same_program_as) results[i] = results[first];
        for (const SanitizeJob& job : jobs)
            if (!identities[job.variant].empty()) s.sanitized_binaries[identities[job.variant]] = results[job.variant];
        for (std::size_t i : to_check) s.sanitized[variants[i].key + verdict_suffix] = results[i];
    }
    for (std::size_t i = 0; i < variants.size(); ++i)
        if (auto it = first_with_key.find(variants[i].key); it != first_with_key.end() && it->second != i)
            results[i] = results[it->second];
    return results;
}

ValidationReport CudaEvaluator::validate(const Variant& variant) {
    Impl& s = *impl_;
    s.prepare_original();
    // What is validated is what the build will compile: the whole file, by nvcc, even when search
    // compiled variants with NVRTC (its code differs from nvcc's in scheduling, and on a file with
    // host code NVRTC saw only the device side).
    Impl::Build build = s.builder->build(variant.source, s.builder->paired_source_of(variant.source), s.builder->flags_of(variant),
                                         true, s.instance_of(variant.genome));
    s.builder->settle(build);
    ValidationReport report;
    report.built_by = build.code.compiler == "nvcc" ? "nvcc, the whole file" : build.code.compiler;
    for (int index = 0; index < static_cast<int>(s.slots.size()); ++index) {
        const Impl::Slot& slot = s.slots[index];
        if (!slot.held_out && slot.used) continue;
        s.ready_for(index);
        const RunVerdict v = s.run_variant(index, variant, build, false);
        CaseValidation c;
        c.case_path = slot.path.string();
        c.held_out = slot.held_out;
        c.status = v.result.status;
        c.elements = v.elements;
        c.mismatches = v.mismatches;
        c.worst_error = v.worst_error;
        c.error = v.result.error;
        c.detail = v.result.detail;
        report.elements += c.elements;
        report.mismatches += c.mismatches;
        report.worst_error = std::max(report.worst_error, c.worst_error);
        report.cases.push_back(std::move(c));
    }
    return report;
}

int launches_per_time_for(double median_ms, double below_ms) {
    if (!(median_ms > 0) || !(below_ms > 0) || median_ms >= below_ms) return 1;
    return static_cast<int>(std::clamp(std::ceil(1.0 / median_ms), 1.0, 64.0));
}

}  // namespace gi
