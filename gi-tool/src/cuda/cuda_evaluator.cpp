#include "cuda/cuda_evaluator.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <functional>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "compile/kernel_variables.hpp"
#include "compile/module_variables.hpp"
#include "compile/nvcc_compiler.hpp"
#include "cuda/binary_identity.hpp"
#include "cuda/case_runner.hpp"
#include "cuda/case_set.hpp"
#include "cuda/case_worker.hpp"
#include "cuda/cuda_classify.hpp"
#include "cuda/cuda_run_notes.hpp"
#include "cuda/gate_case.hpp"
#include "cuda/oracle_gate.hpp"
#include "cuda/original_yardstick.hpp"
#include "cuda/reference_folder.hpp"
#include "cuda/sanitizer_gate.hpp"
#include "cuda/sanitizer_sessions.hpp"
#include "cuda/turn_delay.hpp"
#include "cuda/variant_builder.hpp"
#include "launch/geometry.hpp"
#include "util/elapsed.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "util/hash.hpp"
#include "util/parallel.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// The unedited kernel: the grammar's pieces at their original values reproduce the file.
std::string original_source(const Grammar& grammar) {
    std::string out;
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind == Piece::Kind::RuleSlot) out += grammar.rules.at(static_cast<std::size_t>(piece.index)).text;
        else out += piece.text;
    }
    return out;
}

// The gate's jobs for `variants` on a case, built where the caller runs (compiles are the builder's
// cache hits; the builder is not shared with a background thread): what the sanitizer runs, and
// what is answered without it (cached verdicts, repeats, binary duplicates).
struct GateJobs {
    std::vector<EvalResult> results;
    std::map<std::string, std::size_t> first_with_key;
    std::vector<std::size_t> to_check;
    std::string verdict_suffix;
    std::vector<SanitizeJob> jobs;
    std::vector<std::string> identities;                               // of those run: binary_identity + checkers
    std::vector<std::pair<std::size_t, std::size_t>> same_program_as;  // (variant, the one run for it)
    std::vector<std::string> keys;
    std::optional<SanitizeContext> context;  // set when there are jobs to run
};

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

// The evaluator's parts, each in a file of its own: the cases (case_set), the worker holding them
// (case_worker), the runs on it (case_runner), the builds (variant_builder), the oracle gate
// (oracle_gate) and the sanitizer gate (sanitizer_gate, sanitizer_sessions). What is left here
// ties them together: evaluate()'s batch, the gate's jobs, validation.
struct CudaEvaluator::Impl {
    CudaEvaluatorOptions options;
    CaseKernel kernel;
    std::string original;
    int original_barriers = 0;
    fs::path kernel_dir;  // where the kernel file's quoted #includes start
    CaseSet cases;
    std::vector<CaseSlot>& slots = cases.slots;
    std::string worker_program;

    std::unique_ptr<CaseWorker> worker;   // made once the cases are read
    std::unique_ptr<CaseRunner> runner;
    std::unique_ptr<VariantBuilder> builder;  // made with the original's compile (prepare_original)
    std::unique_ptr<ReferenceFolder> references;
    std::unique_ptr<SanitizerSessions> sanitizer_sessions;  // the gate's long-lived processes
    std::shared_ptr<const DeviceCompileResult> original_cubin;
    std::map<std::string, EvalResult> sanitized;  // by variant key
    std::map<std::string, EvalResult> sanitized_binaries;  // by binary_identity and the checkers run
    std::mutex verdicts_mutex;  // the two above: the gate may fill them beside evaluate()
    bool oracle_checked = false;
    CudaEvaluatorStats stats;
    GpuTurns turns;  // evaluate()'s timing and the gate's checks never run kernels at once
    // evaluate() and the checker's calls, which may come from another thread (anneal's master);
    // not the background checks of sanitize_many_async, which take GPU turns.
    std::mutex calls;
    // Checks sanitize_many_async left running: they add to stats.gate, which run_notes() reads.
    std::atomic<int> background_checks{0};

    explicit Impl(CudaEvaluatorOptions o) : options(std::move(o)) {}

    // ---- the oracle gate (cuda/oracle_gate.hpp) ----------------------------------------
    struct Replays : OracleReplays {
        Impl& s;
        explicit Replays(Impl& impl) : s(impl) {}
        double loading_ms = 0;
        std::set<int> elsewhere;  // held-out cases replayed only in the workers ahead
        void first_replay(int index) override {
            // Made ahead in other workers, usually (cuda/first_runs_ahead.hpp): this worker then
            // loads the case with the outputs handed over and the gate's rerun checks them.
            s.runner->take_first_run_ahead(index);
            // A held-out case whose replays were made there too is loaded here only to validate:
            // on wavefront, lu_update and elimination that is half of the cases.
            if (s.slots[index].held_out &&
                s.runner->reruns_ahead(index) >= static_cast<std::size_t>(oracle_replays(s.options.nondeterministic))) {
                elsewhere.insert(index);
                return;
            }
            // Loading apart from the original's first run (its write-set probes, its reference
            // outputs written for other workers): the two levers of a large case set's cold start differ.
            const auto start = std::chrono::steady_clock::now();
            s.worker->ensure_loaded(index);
            loading_ms += ms_since(start);
            s.runner->ready_for(index);
        }
        std::string first_replay_parts() const override {
            const CaseRunner::FirstRunTimes& t = s.runner->first_run_times();
            std::string ahead;
            if (t.ahead_processes > 0)
                ahead = " (" + std::to_string(t.ahead_runs) + " of the " + std::to_string(t.runs) + " made ahead in " +
                        std::to_string(t.ahead_processes) + " workers at once in " + fixed(t.ahead_wall_ms / 1000, 1) +
                        " s" +
                        (elsewhere.empty() ? ""
                                           : ", with the replays of " + std::to_string(elsewhere.size()) +
                                                 " held-out cases, which this worker loads only to validate") +
                        (t.ahead_failure.empty() ? "" : "; the first not made there: " + t.ahead_failure) + ")";
            return ", of which loading the cases " + fixed(loading_ms / 1000, 1) + " s; the original's first runs " +
                   fixed(t.request_ms / 1000, 1) + " s" + ahead + ", the workers' " + fixed(t.worker_ms / 1000, 1) +
                   " s: write-set probes " + fixed(t.probe_ms / 1000, 1) + " s, comparing with the recorded outputs " +
                   fixed(t.compare_ms / 1000, 1) + " s, the rest (the plain run, reference outputs written) " +
                   fixed(std::max(0.0, t.worker_ms - t.probe_ms - t.compare_ms) / 1000, 1) + " s";
        }
        RunVerdict rerun(int index) override {
            if (std::optional<RunVerdict> v = s.runner->take_rerun_ahead(index)) return *v;
            return s.runner->rerun_original(index);
        }
        void case_passed(int index) override {
            // The guarded build is judged on the cases this worker holds (the training cases).
            if (!elsewhere.count(index)) s.check_fast_guard_build(index);
        }
    };

    void check_module_variables_of_original() {
        std::vector<ModuleVariable> variables;
        try {
            // The program's own variables only: the toolkit's and libraries' are no state it sets.
            variables = project_variables(module_variables(original_cubin->cubin),
                                          project_texts(original, kernel_dir, options.include_dirs));
        } catch (const Error& e) {
            std::cerr << "gi-tool: note: the original's module variables cannot be listed (" << e.what()
                      << "); cases are not checked for them\n";
            return;
        }
        check_module_variables(variables, slots, std::cerr);
    }

    // A fast-compiled guarded build (-Ofc, cuda/variant_builder.hpp) is judged by its outputs in
    // the check: the original's own must match its plain build's exactly (a different instruction
    // selection may round floats otherwise, and every variant would then fail), or guarded builds
    // are optimised as the plain ones for the run.
    void check_fast_guard_build(int index) {
        if (!builder->fast_guard_builds()) return;
        const VariantBuild build = builder->build_original(kernel.instance_of(Genome{}));
        const std::string with = "the original's guarded build compiled with " + builder->stats().guard_options + " ";
        if (!build.code.ok || !build.guarded || !build.guarded->ok) {
            builder->use_optimised_guard_builds(with + "did not compile: " +
                                                first_error_lines(build.guarded ? build.guarded->log : build.code.log, 1));
            return;
        }
        const RunVerdict v = runner->run_variant(index, Genome{}, build, false);
        const bool moved = v.mismatches > 0 || (!options.nondeterministic && (v.worst_error > 0 || v.result.error > 0));
        const bool other_outputs = v.result.status == EvalStatus::WrongAnswer || (v.result.status == EvalStatus::Ok && moved);
        if (v.result.status != EvalStatus::Ok || moved)
            builder->use_optimised_guard_builds(
                with + (other_outputs ? "gave other outputs than its plain build: "
                                      : "ended as " + std::string(to_string(v.result.status)) + ": ") +
                (v.result.detail.empty() ? "largest difference " + significant(v.worst_error, 6) : v.result.detail) +
                " (case " + slots[index].path.filename().string() + ")");
    }

    void check_oracle() {
        if (oracle_checked) return;
        oracle_checked = true;
        check_module_variables_of_original();
        Replays replays(*this);
        // As many workers at once as spares are kept: what the run may hold on the GPU beside its
        // worker (--spare-workers 0 keeps the first runs in the one worker).
        runner->start_first_runs_ahead(std::min(options.spare_workers, 8), oracle_replays(options.nondeterministic));
        try {
            run_oracle_gate(slots, replays, options.nondeterministic, std::cerr);
        } catch (...) {
            runner->end_first_runs_ahead();  // the run stops: no more cases started ahead
            throw;
        }
        runner->end_first_runs_ahead();
        // Only the cases search uses next stay loaded: the worker checks every loaded case's copies
        // after each variant. The others come back with their reference outputs when needed.
        for (int index = 0; index < static_cast<int>(slots.size()); ++index)
            if (slots[index].held_out && worker->has_loaded(index)) worker->unload(index);
    }

    // ---- compile (cuda/variant_builder.hpp) --------------------------------------------
    void prepare_original() {
        if (original_cubin) return;
        worker->start();
        builder = std::make_unique<VariantBuilder>(options, worker->arch(), original, kernel.function, cases.instantiations,
                                                   kernel_dir);
        DeviceCompileResult r = builder->prepare();
        worker->set_original_sha256(sha256_hex(r.cubin));
        original_cubin = std::make_shared<const DeviceCompileResult>(std::move(r));
        std::uint64_t case_bytes = 0;
        for (const CaseSlot& slot : slots) case_bytes += slot.bytes;
        references = std::make_unique<ReferenceFolder>(case_bytes);
        runner->set_original(original_cubin, references.get());
        check_oracle();
    }

    // What every process running kernels for this evaluator starts with: the GPU it was given (--gpus).
    std::map<std::string, std::string> worker_env() const {
        if (options.device < 0) return {};
        return {{"GI_WORKER_DEVICE", std::to_string(options.device)}};
    }

    // Long-lived sanitizer sessions the gate keeps (--sanitize-sessions, else as many as it runs at once).
    int session_limit() const { return options.sanitize_sessions >= 0 ? options.sanitize_sessions : sanitize_parallel(); }

    // The gate's sessions, made at first need; nullptr with --sanitize-sessions 0.
    SanitizerSessions* sessions_for(const std::string& sanitizer) {
        if (!sanitizer_sessions && session_limit() > 0)
            sanitizer_sessions = std::make_unique<SanitizerSessions>(
                sanitizer, worker_program, session_limit(),
                static_cast<std::uint64_t>(std::max(0, options.gate_guard_kib)) * 1024, options.racecheck_sessions,
                worker_env(), options.gate_guard_pages);
        return sanitizer_sessions.get();
    }

    // compute-sanitizer processes the gate runs at once (--sanitize-jobs, else half the cores, at most 8).
    int sanitize_parallel() const {
        return options.sanitize_jobs > 0 ? options.sanitize_jobs
                                         : static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency()) / 2));
    }

    // The gate's jobs (compiles from the cache, verdicts known without a run), then their run.
    // `guard_only`: the guard zones alone (prescreen), no compute-sanitizer checker.
    GateJobs gate_jobs(const std::vector<Variant>& variants, int case_index, bool guard_only = false);
    // What a verdict on `case_index` is cached under, after the variant's key.
    std::string verdict_suffix(int case_index) const;
    // `prescreen`: only the verdicts that reject are kept for the gate (the guard zones alone ran).
    std::vector<EvalResult> run_gate_jobs(GateJobs g, bool prescreen = false);
    // Held while run_gate_jobs() adds its checks to stats.gate: it runs from several threads at once
    // (sanitize_many_async()'s checks, the prescreen's would-be parents side by side).
    std::mutex gate_stats_mutex;

    // The variant's binary_identity on case `index`, or "" when it did not compile or its launch
    // geometry cannot be resolved (run_variant reports either).
    std::string binary_identity_of(int index, const Variant& variant, const VariantBuild& build) const {
        if (!build.code.ok) return "";
        try {
            const ResolvedGeometry g = kernel.geometry_of(slots[index].manifest, variant.genome);
            return binary_identity(build.code.cubin, build.guarded ? std::string_view(build.guarded->cubin) : std::string_view(), g);
        } catch (const Error&) {
            return "";
        }
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
    s.kernel.function = kernel->name;
    s.kernel.is_template = kernel->is_template;
    s.kernel.registered = s.options.function;
    // Replay runs one kernel; edits to another registered kernel would never be checked.
    std::string others;
    for (const Function& f : grammar.functions)
        if (f.is_global && f.name != kernel->name) others += (others.empty() ? "'" : ", '") + f.name + "'";
    if (!others.empty())
        throw UsageError("the grammar holds the kernels '" + kernel->name + "' and " + others + ", but the cuda evaluator "
                         "replays one kernel's cases, so edits to the others would go unchecked: evolve one kernel at a "
                         "time (--function NAME, one FUNCTION per gi_optimize_cuda_kernel call)");
    for (const KernelParameter& p : kernel->parameters) s.kernel.arg_names.push_back(p.name);
    s.kernel.read_names(grammar);
    s.kernel.geometry = parse_launch_geometry(s.options.block, s.options.grid);
    s.kernel.tolerance = parse_tolerance_spec(s.options.tolerances, "--tolerance");
    s.original = original_source(grammar);
    s.kernel_dir = fs::path(grammar.source_path).parent_path();
    if (s.kernel_dir.empty()) s.kernel_dir = ".";
    s.original_barriers = count_barriers(s.original);
    if (s.options.include_dirs.empty()) s.options.include_dirs.push_back(s.kernel_dir.string());

    s.cases = read_case_set(s.options, s.kernel);

    s.worker_program = s.options.worker.empty() ? find_worker_program() : s.options.worker;
    if (s.worker_program.empty())
        throw Error("cannot find gi-worker, the cuda evaluator's GPU process, next to gi-tool or on PATH "
                    "(build the gi-worker target, or pass --worker PATH)");
    s.worker = std::make_unique<CaseWorker>(s.worker_program, s.options.arch, s.options.spare_workers, s.slots);
    if (s.options.device >= 0) s.worker->set_environment(s.worker_env());
    if (!s.options.worker_launcher.empty()) s.worker->set_launcher(s.options.worker_launcher, s.options.launcher_retries);
    s.runner = std::make_unique<CaseRunner>(s.options, s.kernel, s.slots, *s.worker);
}

CudaEvaluator::~CudaEvaluator() {
    // The worker quits before the reference folder it may be writing to goes.
    impl_->runner.reset();
    impl_->worker.reset();
}

EvaluatorTraits CudaEvaluator::traits() const { return {"cuda", impl_->cases.training, true, true}; }

int CudaEvaluator::launches_per_time(int case_index) const {
    return std::max(1, impl_->slots.at(static_cast<std::size_t>(case_index)).launches_per_time);
}

int CudaEvaluator::gate_case(int case_index) const {
    return choose_gate_case(impl_->slots, impl_->cases.training, case_index);
}

std::vector<int> CudaEvaluator::gate_only_cases() const { return gate_slots(impl_->slots); }

const CudaEvaluatorStats& CudaEvaluator::stats() const {
    // Each part keeps its own counters; copied in when asked.
    CudaEvaluatorStats& t = impl_->stats;
    t.workers = impl_->worker->stats();
    t.spares = impl_->worker->spares().stats();
    t.runs = impl_->runner->stats();
    if (const VariantBuilder* builder = impl_->builder.get()) t.build = builder->stats();
    if (const SanitizerSessions* sessions = impl_->sanitizer_sessions.get()) {
        t.gate.sessions_started = sessions->started();
        t.gate.sessions_replaced = sessions->replaced();
        t.gate.sessions_with_case = sessions->with_case();
        t.gate.session_waits = sessions->waited();
        t.gate.session_wait_ms = sessions->waited_ms();
    }
    return t;
}

void CudaEvaluator::check_oracle() { impl_->prepare_original(); }

std::vector<std::string> CudaEvaluator::run_notes() const {
    const Impl& s = *impl_;
    const VariantBuilder* builder = s.builder.get();
    return cuda_run_notes({stats(), s.options, s.slots, builder != nullptr, builder && builder->device_side(),
                           builder ? builder->nvrtc_refusal() : std::string()});
}

EvaluatorReport CudaEvaluator::report() {
    std::lock_guard lock(impl_->calls);
    EvaluatorReport r;
    r.device = device_name();
    // The notes are for the end of a run; while checks run in the background (the search asks for
    // the time spent in the middle of a gate) their counters are being written.
    if (impl_->background_checks == 0) r.notes = run_notes();
    const CudaEvaluatorStats& t = stats();
    r.time_spent = {{"waiting for compiles", t.compile_wait_ms / 1000},
                    {"variant runs", t.runs.run_ms / 1000},
                    {"original runs", t.workers.original_ms / 1000},
                    {"worker restarts", t.workers.restart_ms / 1000}};
    r.waited_for_checks_s = t.checks_wait_ms / 1000;
    r.delayed_by_checks_s = t.checks_delay_ms / 1000;
    return r;
}

bool CudaEvaluator::loop_guard() const { return impl_->options.loop_guard; }

std::string CudaEvaluator::device_name() {
    impl_->worker->start();
    return impl_->worker->device();
}

int CudaEvaluator::device_count() {
    impl_->worker->start();
    return impl_->worker->device_count();
}

int CudaEvaluator::device() const { return impl_->options.device; }

void CudaEvaluator::share_machine(int compile_jobs, int sanitize_jobs, int sanitize_sessions) {
    std::lock_guard lock(impl_->calls);
    impl_->options.jobs = compile_jobs;
    impl_->options.sanitize_jobs = sanitize_jobs;
    impl_->options.sanitize_sessions = sanitize_sessions;
}

std::string CudaEvaluator::arch() {
    impl_->worker->start();
    return impl_->worker->arch();
}

BatchResult CudaEvaluator::evaluate(const std::vector<Variant>& variants, int case_index) {
    Impl& s = *impl_;
    std::lock_guard lock(s.calls);
    if (case_index < 0 || case_index >= s.cases.training)
        throw Error("case index " + std::to_string(case_index) + " is out of range (the evaluator has " +
                    std::to_string(s.cases.training) + " training cases)");
    s.prepare_original();
    ++s.slots[case_index].uses;

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
        compiles.push_back(s.builder->submit(variants[i], s.kernel.instance_of(variants[i].genome)));
    }

    BatchResult batch;
    // With the gate's checks running alongside (sanitize_many_async), each run waits for its turn
    // on the GPU; what that cost the batch is how much later it ended (cuda/turn_delay.hpp).
    const auto batch_start = Clock::now();
    TurnDelay delay(batch_start);
    auto take_turn = [&] {
        const double before = s.turns.timing_waited_ms();
        auto turn = std::make_unique<GpuTurns::Timing>(&s.turns);
        delay.waited(s.turns.timing_waited_ms() - before);
        return turn;
    };
    // The turn is kept from one run to the next while their builds are ready and let go only to wait
    // for a compile, so the gate's checks use the GPU while evaluation has nothing to run: a check
    // let in between two runs that could follow each other delays the second by its length (a
    // racecheck request of stereo variants: up to a second). --gpu-turn-per-run: one turn a run.
    std::unique_ptr<GpuTurns::Timing> turn;
    // The original's time is every variant's yardstick: it too is timed with the GPU alone, before
    // the variants and again after them (time_original(`ready`: when it could have run alone)).
    auto time_original = [&](Clock::time_point ready) {
        if (!turn) turn = take_turn();
        CaseWorkerStats& w = s.worker->stats();
        const auto start = Clock::now();
        s.worker->ensure_loaded(case_index);  // replaces a worker the last (batch's final) variant killed
        w.original_load_ms += ms_since(start);
        // A killed worker's context, and a hung kernel in it, may hold the GPU until the worker is
        // reaped: the original is timed only after that, so it is never slowed and flattering.
        const auto reap_start = Clock::now();
        worker::wait_for_killed_workers(std::chrono::seconds(2));
        w.reap_wait_ms += ms_since(reap_start);
        // The case's batch of launches (launches_per_time) is decided by its first timing ever, so
        // a later one, the closing timing always, is taken as the variants' were.
        const Timing t = s.runner->run_original(case_index, true);
        w.original_ms += ms_since(start);
        delay.ran(ready, Clock::now() - start);
        if (s.options.gpu_turn_per_run) turn.reset();
        return t;
    };
    batch.original = time_original(batch_start);
    // The original's outputs for this case are on file now: the spares load them with the case.
    s.worker->spares().prepare(case_index);
    long variants_timed = 0;  // run and timed here (not a duplicate, a failed compile, a crash)
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const std::size_t first = first_with_key[variants[i].key];
        if (first != i) {
            batch.results.push_back(batch.results[first]);
            ++s.stats.duplicates;
            ++s.stats.variants;
            continue;
        }
        if (turn && !VariantBuilder::ready(compiles[i])) turn.reset();
        const auto wait_start = Clock::now();
        VariantBuild build = s.builder->collect(compiles[i]);
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
        if (!turn) turn = take_turn();
        const auto run_start = Clock::now();
        batch.results.push_back(s.runner->run_variant(case_index, variants[i].genome, build, true).result);
        delay.ran(build.ready, Clock::now() - run_start);
        ++s.stats.variants;
        if (batch.results.back().time.valid()) ++variants_timed;
        if (s.options.gpu_turn_per_run) turn.reset();
    }
    // One timing of a microsecond kernel is now and then a slow outlier, and every variant of the
    // batch would look faster against it: the faster of the two timings is the batch's yardstick
    // (cuda/original_yardstick.hpp). A batch that timed no variant has nothing to judge against it.
    if (variants_timed > 0 && !s.options.original_once) {
        const Timing opening = batch.original;
        // Best effort: every variant of the batch was already judged against a valid opening
        // timing, so a failing closing one costs the batch nothing. Should the original really have
        // stopped working, the next batch's opening timing says so, as it always has.
        Timing closing;
        try {
            closing = time_original(batch_start);
        } catch (const Error& e) {
            if (s.stats.original_closing_failed++ == 0) s.stats.original_closing_failure = e.what();
        }
        const OriginalYardstick kept = original_yardstick(opening, closing);
        batch.original = kept.timing;
        // The runs' allowances and guard budgets on this case follow the yardstick (run_original
        // left the closing timing's there).
        if (batch.original.valid()) s.slots[case_index].original_ms = batch.original.median_ms;
        ++s.stats.originals_timed_twice;
        if (kept.slower == SlowerTiming::Opening) ++s.stats.original_first_slower;
        if (kept.slower == SlowerTiming::Closing) ++s.stats.original_second_slower;
    }
    turn.reset();
    if (delay.waited_ms() > 0) {
        s.stats.checks_wait_ms += delay.waited_ms();
        s.stats.checks_delay_ms += delay.delay_ms(Clock::now());
    }
    const worker::KilledWorkerExits exits = worker::killed_worker_exits();
    s.worker->stats().killed_reaped = exits.reaped;
    s.worker->stats().killed_exit_ms = exits.mean_ms;
    return batch;
}

void CudaEvaluator::discard_evaluation(int case_index) {
    std::lock_guard lock(impl_->calls);
    if (case_index >= 0 && case_index < impl_->cases.training && impl_->slots[case_index].uses > 0)
        --impl_->slots[case_index].uses;
}

void CudaEvaluator::prepare_ahead(const std::vector<Variant>& variants) {
    Impl& s = *impl_;
    std::lock_guard lock(s.calls);
    s.prepare_original();
    s.builder->forget_ahead();
    for (const Variant& v : variants) s.builder->submit_ahead(v, s.kernel.instance_of(v.genome));
}

void CudaEvaluator::expect_checks() {
    Impl& s = *impl_;
    std::lock_guard lock(s.calls);
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
    // The sessions open the gate's case now too (cuda/gate_case.hpp: one case from generation to
    // generation), so its load, seconds under the sanitizer for hundreds of MB, overlaps search.
    const int first_gate = gate_case(0);
    const std::string gate_path =
        first_gate >= 0 && first_gate < static_cast<int>(s.slots.size()) ? s.slots[first_gate].path.string() : "";
    if (s.options.gate_guard_kib > 0) sessions->prewarm(kGuardZonesTool, sessions->capacity(kGuardZonesTool), gate_path);
    sessions->prewarm("memcheck", limit, gate_path);
    if (count_barriers(s.original) > 0)
        for (const char* tool : {"racecheck", "synccheck"}) sessions->prewarm(tool, sessions->capacity(tool), gate_path);
}

GateJobs CudaEvaluator::Impl::gate_jobs(const std::vector<Variant>& variants, int case_index, bool guard_only) {
    GateJobs g;
    g.results.resize(variants.size());
    g.identities.resize(variants.size());
    for (const Variant& v : variants) g.keys.push_back(v.key);
    g.verdict_suffix = verdict_suffix(case_index);
    {
        std::lock_guard lock(verdicts_mutex);
        for (std::size_t i = 0; i < variants.size(); ++i) {
            if (auto it = sanitized.find(variants[i].key + g.verdict_suffix); it != sanitized.end()) {
                g.results[i] = it->second;
            } else if (g.first_with_key.emplace(variants[i].key, i).second) {
                g.to_check.push_back(i);
            }
        }
    }
    if (g.to_check.empty()) return g;
    if (case_index < 0 || case_index >= static_cast<int>(slots.size()))
        throw Error("case index " + std::to_string(case_index) + " is out of range for sanitize()");
    const std::string sanitizer = find_compute_sanitizer(options.sanitizer);
    prepare_original();
    std::map<std::string, std::size_t> run_identity;  // identity -> the variant that runs it
    for (std::size_t i : g.to_check) {
        const Variant& variant = variants[i];
        // A paired build's module has the plain kernel by its name too (gi-worker --once finds it);
        // otherwise the plain build alone, with no guarded build the sanitizer would not run.
        const std::string paired = builder->paired_source_of(variant.source);
        const std::string instance = kernel.instance_of(variant.genome);
        const std::vector<std::string> flags = builder->flags_of(variant);
        const DeviceCompileResult code = paired.empty() ? builder->compile(variant.source, flags, false, instance)
                                                        : builder->build(variant.source, paired, flags, false, instance).code;
        if (!code.ok) {
            g.results[i].status = EvalStatus::CompileError;
            g.results[i].detail = first_error_lines(code.log, 3);
            continue;
        }
        const ResolvedGeometry geometry = kernel.geometry_of(slots[case_index].manifest, variant.genome);
        std::vector<std::string> tools{"memcheck"};
        // Guard zones first (sessions only): they catch the commonest fault, a write just past a
        // buffer, in milliseconds where memcheck's report of it takes seconds.
        if (options.gate_guard_kib > 0 && session_limit() > 0) tools.insert(tools.begin(), kGuardZonesTool);
        if (guard_only) tools = {kGuardZonesTool};
        if (!guard_only && needs_race_checks(variant.source, original_barriers)) {
            tools.push_back("racecheck");
            tools.push_back("synccheck");
        }
        // The same program under the same checkers has the same verdict, whatever its text.
        if (options.reuse_binary_duplicates) {
            std::string identity = binary_identity(code.cubin, "", geometry) + g.verdict_suffix;
            for (const std::string& tool : tools) identity += " " + tool;
            {
                std::lock_guard lock(verdicts_mutex);
                if (auto it = sanitized_binaries.find(identity); it != sanitized_binaries.end()) {
                    g.results[i] = it->second;
                    ++stats.gate.binary_reuses;
                    continue;
                }
            }
            if (auto [it, first_time] = run_identity.emplace(identity, i); !first_time) {
                g.same_program_as.emplace_back(i, it->second);
                ++stats.gate.binary_reuses;
                continue;
            }
            g.identities[i] = std::move(identity);
        }
        const double base = slots[case_index].original_ms > 0 ? slots[case_index].original_ms : 100;
        g.jobs.push_back({i, tools, to_string(geometry.grid), to_string(geometry.block), instance, code.cubin, base});
    }
    g.context = SanitizeContext{sanitizer,
                                worker_program,
                                slots[case_index].path.string(),
                                slots[case_index].kernel,
                                std::to_string(slots[case_index].manifest.shared_bytes),
                                sessions_for(sanitizer),
                                static_cast<std::size_t>(std::max(1, options.sanitize_side_by_side)),
                                &turns};
    for (const auto& [name, value] : worker_env()) g.context->environment.emplace_back(name, value);
    return g;
}

// A verdict from a gate case (--sanitize-cases) does not stand for the final checks on a training
// case, nor for another gate case (another launch of the recording, where a stray access may
// come): each is cached apart.
std::string CudaEvaluator::Impl::verdict_suffix(int case_index) const {
    const bool on_gate_case = case_index >= 0 && case_index < static_cast<int>(slots.size()) && slots[case_index].gate;
    return on_gate_case ? " @gate " + std::to_string(case_index) : "";
}

// Runs the jobs under compute-sanitizer and keeps the verdicts; touches only the gate's own state
// (its sessions, counters and verdict caches), so it may run beside evaluate().
std::vector<EvalResult> CudaEvaluator::Impl::run_gate_jobs(GateJobs g, bool prescreen) {
    if (g.context) {
        SanitizerGateStats counted;
        const std::vector<EvalResult> checked =
            check_under_sanitizer(*g.context, g.jobs, static_cast<std::size_t>(sanitize_parallel()),
                                  static_cast<std::size_t>(std::max(1, options.sanitize_batch)), counted);
        {
            std::lock_guard lock(gate_stats_mutex);
            stats.gate.add_checks(counted);
        }
        for (std::size_t k = 0; k < g.jobs.size(); ++k) g.results[g.jobs[k].variant] = checked[k];
        for (const auto& [i, first] : g.same_program_as) g.results[i] = g.results[first];
        std::lock_guard lock(verdicts_mutex);
        for (const SanitizeJob& job : g.jobs)
            if (!g.identities[job.variant].empty()) sanitized_binaries[g.identities[job.variant]] = g.results[job.variant];
        for (std::size_t i : g.to_check)
            if (!prescreen || g.results[i].status != EvalStatus::Ok) sanitized[g.keys[i] + g.verdict_suffix] = g.results[i];
    }
    for (std::size_t i = 0; i < g.results.size(); ++i)
        if (auto it = g.first_with_key.find(g.keys[i]); it != g.first_with_key.end() && it->second != i)
            g.results[i] = g.results[it->second];
    return std::move(g.results);
}

std::vector<EvalResult> CudaEvaluator::sanitize_many(const std::vector<Variant>& variants, int case_index) {
    std::lock_guard lock(impl_->calls);
    return impl_->run_gate_jobs(impl_->gate_jobs(variants, case_index));
}

std::vector<std::optional<EvalResult>> CudaEvaluator::prescreen(const std::vector<Variant>& variants, int case_index) {
    std::vector<std::optional<EvalResult>> rejected(variants.size());
    Impl& s = *impl_;
    std::lock_guard lock(s.calls);
    if (s.options.gate_guard_kib <= 0 || s.session_limit() <= 0) return rejected;
    if (const SanitizerSessions* sessions = s.sanitizer_sessions.get(); sessions && sessions->guard_off()) return rejected;
    const auto start = std::chrono::steady_clock::now();
    std::vector<EvalResult> results = s.run_gate_jobs(s.gate_jobs(variants, case_index, true), true);
    // A recording of several launches is several gate cases, and a stray access may come in some
    // of them only (wavefront's partial tiles, in its later launches). The search's gate checks a
    // would-be parent on one of them, in turn; the guard zones, milliseconds a variant, run on the
    // others too, and a rejection on any is kept for this case's gate.
    if (const std::string asked = s.verdict_suffix(case_index); !asked.empty()) {
        const auto others_start = std::chrono::steady_clock::now();
        std::vector<int> others;
        for (const int other : gate_only_cases())
            if (other != case_index) others.push_back(other);
        std::vector<std::size_t> passing;  // one variant of each key: the others share its verdicts
        std::map<std::string, std::size_t> chain_of_key;
        for (std::size_t i = 0; i < results.size(); ++i)
            if (results[i].status == EvalStatus::Ok && chain_of_key.emplace(variants[i].key, passing.size()).second)
                passing.push_back(i);
        // Each would-be parent goes through the other cases on its own, stopping at the first that
        // rejects it, side by side with the others. Case by case, each case waited for its slowest
        // check before the next began, and with guard pages the slowest is a fault: wavefront's
        // prescreen (5 gate cases) took about 0.45 s a rejection, 5.2 s for 12 (H200,
        // bench/results/2026-11-29-h200-s22-gate-faults-and-genes.md). The jobs are made here, one
        // variant each: making them compiles (from the cache), which is not for several threads.
        std::vector<std::vector<GateJobs>> chains(passing.size());
        for (std::size_t p = 0; p < passing.size(); ++p)
            for (const int other : others) chains[p].push_back(s.gate_jobs({variants[passing[p]]}, other, true));
        std::vector<std::function<std::optional<std::pair<int, EvalResult>>()>> runs;
        for (std::size_t p = 0; p < passing.size(); ++p)
            runs.push_back([&, p]() -> std::optional<std::pair<int, EvalResult>> {
                for (std::size_t c = 0; c < others.size(); ++c)
                    if (EvalResult r = s.run_gate_jobs(std::move(chains[p][c]), true).front(); r.status != EvalStatus::Ok)
                        return std::make_pair(others[c], std::move(r));
                return std::nullopt;
            });
        const auto rejections = run_in_parallel(runs, static_cast<std::size_t>(std::max(1, s.sanitize_parallel())));
        std::lock_guard verdicts(s.verdicts_mutex);
        for (std::size_t i = 0; i < results.size(); ++i) {
            const auto chain = chain_of_key.find(variants[i].key);
            if (results[i].status != EvalStatus::Ok || chain == chain_of_key.end() || !rejections[chain->second]) continue;
            const auto& [where, verdict] = *rejections[chain->second];
            results[i] = verdict;
            results[i].detail = "on gate case " + std::to_string(where) + " (another launch the gate's recording made): " + verdict.detail;
            s.sanitized[variants[i].key + asked] = results[i];
        }
        s.stats.gate.prescreen_other_seconds += ms_since(others_start) / 1000;
    }
    ++s.stats.gate.prescreens;
    s.stats.gate.prescreen_seconds += ms_since(start) / 1000;
    for (std::size_t i = 0; i < results.size(); ++i)
        if (results[i].status != EvalStatus::Ok) {
            rejected[i] = results[i];
            ++s.stats.gate.prescreen_rejected;
        }
    return rejected;
}

std::future<std::vector<EvalResult>> CudaEvaluator::sanitize_many_async(const std::vector<Variant>& variants, int case_index) {
    Impl& s = *impl_;
    std::lock_guard lock(s.calls);  // while the jobs are made; they run outside it
    GateJobs jobs = s.gate_jobs(variants, case_index);
    if (!jobs.context) {
        std::promise<std::vector<EvalResult>> done;
        done.set_value(s.run_gate_jobs(std::move(jobs)));
        return done.get_future();
    }
    ++s.background_checks;
    return std::async(std::launch::async, [&s, jobs = std::move(jobs)]() mutable {
        struct Finished {
            std::atomic<int>& count;
            ~Finished() { --count; }
        } finished{s.background_checks};
        return s.run_gate_jobs(std::move(jobs));
    });
}

ValidationReport CudaEvaluator::validate(const Variant& variant) {
    Impl& s = *impl_;
    std::lock_guard lock(s.calls);
    s.prepare_original();
    // What is validated is what the build will compile: the whole file, by nvcc, even when search
    // compiled variants with NVRTC (its code differs from nvcc's in scheduling, and on a file with
    // host code NVRTC saw only the device side).
    VariantBuild build = s.builder->build(variant.source, s.builder->paired_source_of(variant.source), s.builder->flags_of(variant),
                                          true, s.kernel.instance_of(variant.genome));
    s.builder->settle(build);
    ValidationReport report;
    report.built_by = build.code.compiler == "nvcc" ? "nvcc, the whole file" : build.code.compiler;
    for (int index = 0; index < static_cast<int>(s.slots.size()); ++index) {
        const CaseSlot& slot = s.slots[index];
        if (!slot.held_out && slot.uses > 0) continue;
        s.runner->ready_for(index);
        const RunVerdict v = s.runner->run_variant(index, variant.genome, build, false);
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

}  // namespace gi
