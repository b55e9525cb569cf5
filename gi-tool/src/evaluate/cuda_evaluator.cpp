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
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

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
#include "worker/worker_process.hpp"

namespace gi {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using worker::Message;

namespace {

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

const std::vector<std::string> kStrictFlags = {"--diag-error=940"};  // missing return statement

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

std::string number_text(double value) {
    std::ostringstream out;
    out << std::setprecision(6) << value;
    return out.str();
}

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

    CompiledCodeCache cache;
    std::unique_ptr<CompilePool> pool;
    bool use_nvrtc = nvrtc_available();
    std::unique_ptr<SanitizerSessions> sanitizer_sessions;  // the gate's long-lived processes
    bool device_side = false;  // NVRTC compiles device_side_of() each variant, with host header stand-ins
    std::vector<ProjectHeader> project_side;  // the project's headers, their host code set aside too
    std::vector<std::string> project_side_key;  // their names and checksums, for the compiled-code key
    std::vector<std::pair<std::string, std::string>> device_side_headers;  // NVRTC's in-memory headers then
    fs::path kernel_dir;                      // where the kernel file's quoted #includes start
    bool compiler_decided = false;
    std::shared_ptr<DeviceCompileResult> original_cubin;
    std::string original_sha256;
    std::vector<std::string> strict_flags;  // kStrictFlags when the original compiles with them
    bool pairing = false;                   // variants' guarded copies share the plain build's module
    std::map<std::string, EvalResult> sanitized;  // by variant key
    std::map<std::string, EvalResult> sanitized_binaries;  // by binary_identity and the checkers run
    bool oracle_checked = false;
    std::string nvrtc_refusal;  // why NVRTC could not compile the kernel file ("" when it could)
    CudaEvaluatorStats stats;

    explicit Impl(CudaEvaluatorOptions o) : options(std::move(o)), cache(options.compile_cache) {
        spares = std::make_unique<SpareWorkers>(options.spare_workers, *this);
        if (options.nvcc_only) use_nvrtc = false;
    }

    // ---- worker -------------------------------------------------------------------------
    worker::WorkerOptions worker_options() const override {
        worker::WorkerOptions wo;
        wo.executable = worker_program;
        return wo;
    }

    Message load_message(int index) const override {
        const Slot& slot = slots.at(static_cast<std::size_t>(index));
        Message m{"load-case",
                  {{"slot", std::to_string(index)}, {"path", slot.path.string()}, {"verify", verified.count(index) ? "0" : "1"}},
                  {}};
        for (std::size_t b = 0; b < slot.tolerances.size(); ++b) m.fields["tolerance" + std::to_string(b)] = slot.tolerances[b];
        if (!slot.reference_file.empty()) {
            m.fields["reference"] = slot.reference_file.string();
            m.fields["reference-sha256"] = slot.reference_sha256;
            m.fields["original-sha256"] = original_sha256;
        }
        return m;
    }

    // What a "case-loaded" reply says about the handed-over reference; true when the worker took it.
    bool took_reference(int index, const Message& reply) override {
        const std::string state = reply.get("reference");
        if (state == "loaded") {
            ++stats.references_loaded;
            return true;
        }
        if (state == "rejected") {
            ++stats.references_rejected;
            Slot& slot = slots[index];
            if (!slot.rejection_noted)
                std::cerr << "gi-tool: note: a GPU worker rejected the original's handed-over outputs for "
                          << slot.path.string() << " (" << reply.get("reference-error")
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
                if (adopted->case_index >= 0) {
                    loaded.insert(adopted->case_index);
                    verified.insert(adopted->case_index);
                    if (adopted->reference) referenced.insert(adopted->case_index);
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
        device = reply.get("device");
        gpu_memory = static_cast<std::uint64_t>(std::max(0LL, reply.integer("memory-bytes", 0)));
        if (arch.empty()) arch = options.arch.empty() ? "sm_" + reply.get("compute-capability") : options.arch;
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

    // A variant's builds, as run: `code` is the plain build, or both in one module when `paired`
    // (variant/paired_build.hpp); `guarded` a separate loop-guarded build, when one is usable.
    struct Build {
        DeviceCompileResult code;
        std::optional<DeviceCompileResult> guarded;
        bool paired = false;
        std::optional<DeviceCompileResult> failed_pair;  // a paired compile that failed (then built separately)
    };

    // With a guarded build, separate (it rides in front of the plain one) or paired (one module),
    // the request carries the guard's budget (worker/protocol.hpp).
    Message run_message(int index, const std::string& role, const DeviceCompileResult& code, const ResolvedGeometry& g,
                        bool time, const Build* build = nullptr, const std::string& kernel = "") {
        Message m{"run",
                  {{"slot", std::to_string(index)},
                   {"role", role},
                   {"kernel", kernel.empty() ? slots[index].kernel : kernel},
                   {"grid", dims_text(g.grid)},
                   {"block", dims_text(g.block)},
                   {"shared", std::to_string(slots[index].manifest.shared_bytes)},
                   {"warmups", std::to_string(options.warmups)},
                   {"repetitions", std::to_string(options.repetitions)},
                   {"time", time ? "1" : "0"}},
                  code.cubin};
        if (build && (build->paired || build->guarded)) {
            const double base = slots[index].original_ms > 0 ? slots[index].original_ms : 1000.0;
            const double budget_ms = options.timeout_factor * base + options.guard_margin_ms;
            m.fields["guard-budget-us"] = std::to_string(std::max(1LL, static_cast<long long>(std::llround(1000 * budget_ms))));
            if (build->paired) {
                m.fields["guard-paired"] = "1";
            } else {
                m.fields["guard-bytes"] = std::to_string(build->guarded->cubin.size());
                m.payload = build->guarded->cubin + code.cubin;
            }
        }
        return m;
    }

    // Establishes the original's reference on a case (once per worker, unless handed over) and
    // returns its timing. The caller accounts for the time.
    Timing run_original(int index, bool time) {
        const ResolvedGeometry g = resolve_geometry(geometry, slots[index].manifest, param_defaults, arg_names);
        for (int attempt = 0;; ++attempt) {
            ensure_loaded(index);
            const bool first = !referenced.count(index);
            Message m = run_message(index, "original", *original_cubin, g, time);
            // A probe with poisoned outputs may crash an original that reads its outputs; then
            // the case is replayed without poisoning.
            if (attempt > 0) m.fields["probe-poison"] = "0";
            if (first && !slots[index].poisonable.empty()) m.fields["poisonable"] = slots[index].poisonable;
            const bool hand_over = first && slots[index].reference_file.empty() && !slots[index].reference_failed && references &&
                                   !references->path().empty();
            if (hand_over) m.fields["reference-out"] = (references->path() / ("case-" + std::to_string(index) + ".ref")).string();
            Message reply;
            try {
                reply = worker->request(m, std::chrono::seconds(300));
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
        const auto rest = milliseconds(static_cast<long long>(
            5000 + options.timeout_margin_ms + options.timeout_factor * base * (options.warmups + options.repetitions)));
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
            v = classify_run_reply(run_variant_request(index, run_message(index, "rerun", *original_cubin, g, false)));
        } catch (const worker::WorkerFailure& e) {
            v = classify_worker_failure(e);
        }
        if (v.restart_worker) drop_worker();
        return v;
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

    // ---- compile ------------------------------------------------------------------------
    // `headers`: device sides of project headers that stand in for the files (device_side_differs).
    DeviceCompileResult compile_nvcc(const std::string& source, const std::vector<std::string>& flags,
                                     const std::vector<ProjectHeader>& headers = {}) {
        std::string keyed = source;
        for (const ProjectHeader& h : headers) keyed += "\n// gi-header " + h.include_name + "\n" + h.device_side;
        const std::string key = compiled_code_key(keyed, flags, arch, "nvcc");
        if (auto hit = cache.get(key)) return *hit;
        NvccOptions no;
        no.nvcc = options.nvcc;
        no.arch = arch;
        no.include_dirs = options.include_dirs;
        TemporaryDirectory dir("gi-cuda-compile");
        if (!headers.empty()) {
            // Found before the real ones, as NVRTC finds its in-memory headers by name first.
            const fs::path stand_ins = dir.path() / "gi-project-headers";
            for (const ProjectHeader& h : headers) {
                fs::create_directories((stand_ins / h.include_name).parent_path());
                std::ofstream(stand_ins / h.include_name, std::ios::binary) << h.device_side;
            }
            no.include_dirs.insert(no.include_dirs.begin(), stand_ins.string());
        }
        NvccCompiler nvcc(no);
        const fs::path src = dir.path() / "variant.cu", out = dir.path() / "variant.cubin";
        {
            std::ofstream f(src, std::ios::binary);
            f << source;
        }
        const CompileOutcome outcome = nvcc.compile(src, out, flags, "variant.cu");
        DeviceCompileResult r;
        r.compiler = "nvcc";
        r.ms = outcome.seconds * 1000;
        r.log = outcome.status == CompileOutcome::Status::Ok ? outcome.log : outcome.first_errors;
        if (outcome.status == CompileOutcome::Status::Ok) {
            std::ifstream in(out, std::ios::binary);
            r.cubin.assign(std::istreambuf_iterator<char>(in), {});
            r.ok = !r.cubin.empty();
        }
        cache.put(key, r);
        return r;
    }

    // `source` with `instance` (a template kernel's instantiation, "" for none) instantiated: nvcc
    // only emits the instantiations something names, and a variant's own may be named by no code
    // in the file (or by host code set aside).
    static std::string instantiating(const std::string& source, const std::string& instance) {
        if (instance.empty()) return source;
        std::string text = source + "\nstatic void* const gi_tuned_instantiation[] = {(void*)&" + instance;
        if (source.find(std::string("namespace ") + kGuardedNamespace) != std::string::npos)
            text += ", (void*)&" + std::string(kGuardedNamespace) + "::" + instance;
        return text + "};\n";
    }

    // With `whole_file` nvcc compiles the file as the build will; otherwise the run's compiler does.
    // `instance`: the variant's own instantiation, when the template argument is a parameter.
    DeviceCompileResult compile(const std::string& source, const std::vector<std::string>& flags, bool whole_file = false,
                                const std::string& instance = "") {
        if (use_nvrtc && !whole_file && nvrtc_options_for(flags)) {
            DeviceCompileRequest request;
            request.source = source;
            if (device_side) {
                std::optional<DeviceSide> cut = device_side_of(source, "variant.cu");
                if (!cut) return compile_nvcc(source, flags);  // unbalanced brackets: nvcc's verdict
                request.source = std::move(cut->source);
                request.headers = device_side_headers;
            }
            // A paired build holds the template twice: its guarded copy's instantiations too.
            std::vector<std::string> names = instantiations;
            if (!instance.empty() && std::find(names.begin(), names.end(), instance) == names.end()) names.push_back(instance);
            if (source.find(std::string("namespace ") + kGuardedNamespace) != std::string::npos)
                for (std::size_t k = 0, n = names.size(); k < n; ++k) names.push_back(std::string(kGuardedNamespace) + "::" + names[k]);
            std::vector<std::string> keyed = flags;
            for (const std::string& name : names) keyed.push_back("--name-expression=" + name);
            // The cut project headers are part of what NVRTC compiled (a --compile-cache outlives
            // the run, and the headers may change while the kernel file does not).
            if (device_side) keyed.insert(keyed.end(), project_side_key.begin(), project_side_key.end());
            const std::string key = compiled_code_key(request.source, keyed, arch, device_side ? "nvrtc-device-side" : "nvrtc");
            if (auto hit = cache.get(key)) return *hit;
            request.options = flags;
            request.arch = arch;
            request.include_dirs = options.include_dirs;
            request.name_expressions = names;
            try {
                DeviceCompileResult r = compile_with_nvrtc(request);
                cache.put(key, r);
                return r;
            } catch (const Error&) {
                // NVRTC refused the options: nvcc takes them.
            }
        }
        return compile_nvcc(instantiating(source, instance), flags);
    }

    // Whether cutting the host code out changes no device code: nvcc builds the whole original and
    // its device side, and every kernel and module section of the second must be in the first
    // byte for byte. Template kernels that only host code instantiated are instantiated by address.
    std::string device_side_differs(const DeviceSide& cut) {
        std::string text = cut.source;
        if (!instantiations.empty()) {
            text += "\nstatic void* const gi_device_side_instantiations[] = {";
            for (const std::string& name : instantiations) text += "(void*)&" + name + ", ";
            text += "};\n";
        }
        const DeviceCompileResult whole = compile_nvcc(original, options.compile_options);
        const DeviceCompileResult part = compile_nvcc(text, options.compile_options, project_side);
        if (!whole.ok || !part.ok) return "nvcc does not compile its device side alone: " + first_error_lines(part.log, 1);
        try {
            if (!same_device_code(part.cubin, whole.cubin)) return "nvcc builds different device code from the file without its host code";
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    }

    void prepare_original() {
        if (original_cubin) return;
        start_worker();
        if (!pool) pool = std::make_unique<CompilePool>(options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency()));
        DeviceCompileResult r = compile(original, options.compile_options);
        if (!r.ok && use_nvrtc) {
            // Host code or host headers: NVRTC takes the file's device side, when cutting the host
            // code out is shown to change no device code; else the whole run compiles with nvcc.
            const std::string whole_file_log = r.log;
            device_side = true;
            std::vector<std::string> stand_in_names;
            device_side_headers = host_header_stand_ins();
            for (const auto& [name, text] : device_side_headers) stand_in_names.push_back(name);
            project_side = project_headers(original, kernel_dir, options.include_dirs, toolkit_include_dirs(), stand_in_names);
            for (const ProjectHeader& h : project_side) {
                device_side_headers.emplace_back(h.include_name, h.device_side);
                project_side_key.push_back("--gi-header=" + h.include_name + ":" + sha256_hex(h.device_side));
            }
            r = compile(original, options.compile_options);
            const std::optional<DeviceSide> cut = device_side_of(original, "variant.cu");
            const std::string why = !cut   ? "its brackets do not balance"
                                    : r.ok ? device_side_differs(*cut)
                                           : first_error_lines(r.log, 1);
            if (why.empty()) {
                std::cerr << "gi-tool: note: NVRTC compiles the kernel file's device side (" << cut->host_definitions
                          << " host definitions and the host headers set aside";
                if (!project_side.empty()) {
                    std::cerr << "; the host code of the project's headers too:";
                    for (const ProjectHeader& h : project_side) std::cerr << " " << h.include_name;
                }
                std::cerr << "; nvcc builds the same device code from it); the result is validated as nvcc builds the "
                             "whole file\n";
            } else {
                device_side = false;
                project_side.clear();
                project_side_key.clear();
                use_nvrtc = false;
                r = compile_nvcc(original, options.compile_options);
                nvrtc_refusal = first_error_lines(whole_file_log, 1) + "; its device side alone: " + why;
                if (r.ok) std::cerr << "gi-tool: note: NVRTC cannot compile the kernel file (" << nvrtc_refusal
                                    << "); compiling variants with nvcc\n";
            }
        }
        if (!r.ok) throw Error("the original kernel does not compile for " + arch + ":\n" + first_error_lines(r.log, 5));
        // The original's build says which compiler variants get: options NVRTC lacks send every one to nvcc.
        stats.compiler = r.compiler == "nvrtc" && device_side ? "nvrtc (device side)" : r.compiler;
        // An edit that deletes a `return` leaves undefined behaviour the compiler sees (warning 940):
        // such a variant may pass every check by luck (on the H100 its loop-guarded build
        // deadlocked while the plain one "worked"), so it is a compile error, unless the original
        // itself has the warning.
        std::vector<std::string> strict = options.compile_options;
        strict.insert(strict.end(), kStrictFlags.begin(), kStrictFlags.end());
        if (compile(original, strict).ok) strict_flags = kStrictFlags;
        else
            std::cerr << "gi-tool: note: the original kernel has a non-void function without a return at its end "
                         "(nvcc warning 940); variants with the same flaw are not rejected\n";
        decide_pairing();
        original_sha256 = sha256_hex(r.cubin);
        original_cubin = std::make_shared<DeviceCompileResult>(std::move(r));
        std::uint64_t case_bytes = 0;
        for (const Slot& slot : slots) case_bytes += slot.bytes;
        references = std::make_unique<ReferenceFolder>(case_bytes);
        check_oracle();
    }

    // A variant's compile options: its Flag genes', and the diagnostics made errors for every variant.
    std::vector<std::string> flags_of(const Variant& v) const {
        std::vector<std::string> flags = options.compile_options;
        flags.insert(flags.end(), v.compile_options.begin(), v.compile_options.end());
        flags.insert(flags.end(), strict_flags.begin(), strict_flags.end());
        return flags;
    }

    // Whether variants get their guarded copy in the plain build's module: only when the original's
    // paired build compiles, so a file that cannot be compiled twice in one unit costs one failed
    // compile per run, not one per variant.
    void decide_pairing() {
        pairing = false;
        if (!options.loop_guard || !options.paired_guard_build) return;
        std::string why = paired_build_refusal(original, function);
        if (why.empty()) {
            std::vector<std::string> flags = options.compile_options;
            flags.insert(flags.end(), strict_flags.begin(), strict_flags.end());
            const DeviceCompileResult r = compile(paired_source(original, "variant.cu", options.barrier_guard).source, flags);
            if (r.ok) {
                pairing = true;
                return;
            }
            why = "the kernel file does not compile twice in one unit: " + first_error_lines(r.log, 1);
        }
        std::cerr << "gi-tool: note: each variant's loop-guarded build is compiled and loaded separately (" << why << ")\n";
    }

    // The guarded source, or "" when there is nothing to guard.
    std::string guarded_source(const std::string& source) const {
        if (!options.loop_guard) return "";
        LoopGuardResult g = guard_hangs(source, "variant.cu", options.barrier_guard);
        return g.any() ? std::move(g.source) : std::string();
    }

    // The paired source, or "" when this variant is not built paired.
    std::string paired_source_of(const std::string& source) const {
        if (!pairing || !paired_build_refusal(source, function).empty()) return "";
        LoopGuardResult g = paired_source(source, "variant.cu", options.barrier_guard);
        return g.any() ? std::move(g.source) : std::string();
    }

    // One variant's builds, compiled here: paired when `paired` (paired_source_of(source)) is not
    // empty, else plain and (with loops) guarded. When the paired compile fails the plain compile's
    // errors are the verdict, so a broken variant reads as it would without pairing.
    Build build(const std::string& source, const std::string& paired, const std::vector<std::string>& flags, bool whole_file = false,
                const std::string& instance = "") {
        Build b;
        if (!paired.empty()) {
            DeviceCompileResult r = compile(paired, flags, whole_file, instance);
            if (r.ok) {
                b.code = std::move(r);
                b.paired = true;
                return b;
            }
            b.failed_pair = std::move(r);
        }
        b.code = compile(source, flags, whole_file, instance);
        if (const std::string guarded = guarded_source(source); b.code.ok && !guarded.empty())
            b.guarded = compile(guarded, flags, whole_file, instance);
        return b;
    }

    // A variant's builds on their way: one pool job when paired (it falls back inside the job), or
    // with separate builds two jobs at once, so the guarded compile overlaps the plain one.
    struct Builds {
        std::shared_future<Build> paired;
        std::shared_future<DeviceCompileResult> plain, guarded;
    };

    Builds submit(const Variant& v) {
        Builds b;
        if (std::string paired = paired_source_of(v.source); !paired.empty()) {
            b.paired = pool->submit<Build>(
                [this, source = v.source, paired = std::move(paired), flags = flags_of(v), instance = instance_of(v.genome)] {
                    return build(source, paired, flags, false, instance);
                });
            return b;
        }
        b.plain = pool->submit<DeviceCompileResult>([this, source = v.source, flags = flags_of(v), instance = instance_of(v.genome)] {
            return compile(source, flags, false, instance);
        });
        std::string guarded = guarded_source(v.source);
        if (!guarded.empty())
            b.guarded = pool->submit<DeviceCompileResult>(
                [this, source = std::move(guarded), flags = flags_of(v), instance = instance_of(v.genome)] {
                    return compile(source, flags, false, instance);
                });
        return b;
    }

    Build collect(const Builds& b) {
        if (b.paired.valid()) return b.paired.get();
        Build out;
        out.code = b.plain.get();
        if (out.code.ok && b.guarded.valid()) out.guarded = b.guarded.get();
        return out;
    }

    void count_compile(const DeviceCompileResult& code, bool guarded) {
        if (code.cached) {
            ++stats.cache_hits;
            return;
        }
        ++stats.compiled;
        if (guarded) ++stats.guard_compiled;
        stats.compile_cpu_ms += code.ms;
    }

    void count_build(const Build& b) {
        if (b.failed_pair) {
            count_compile(*b.failed_pair, false);
            ++stats.paired_fallbacks;
        }
        count_compile(b.code, false);
        if (b.paired) ++stats.paired_builds;
        if (b.guarded) count_compile(*b.guarded, true);
    }

    // Keeps a guarded build only beside a plain one that compiled; a guarded compile that fails
    // (a loop in a constexpr function, say) leaves the variant unguarded, not broken.
    void settle(Build& b) {
        if (!b.code.ok) b.guarded.reset();
        if (b.guarded && !b.guarded->ok) {
            ++stats.unguarded;
            b.guarded.reset();
        }
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
                options.sanitize_shared_sessions ? SessionPooling::Shared : SessionPooling::PerChecker);
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
                run_variant_request(index, run_message(index, "variant", code, g, time, &build, instance_of(variant.genome)));
            v = classify_run_reply(reply);
            if (v.loop_overrun) ++stats.loop_overruns;
            if (v.corrupting) ++stats.corrupting;
            if (v.guard_unusable) ++stats.unguarded;
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

int CudaEvaluator::gate_case(int case_index) const {
    // The gate's cases in turn, so each is used when there are several.
    std::vector<int> gate;
    for (int index = 0; index < static_cast<int>(impl_->slots.size()); ++index)
        if (impl_->slots[index].gate) gate.push_back(index);
    if (gate.empty()) return case_index;
    return gate[static_cast<std::size_t>(std::max(case_index, 0)) % gate.size()];
}

const CudaEvaluatorStats& CudaEvaluator::stats() const {
    // The spare workers and the sanitizer sessions keep their own counters; copied in when asked.
    CudaEvaluatorStats& t = impl_->stats;
    t.spares = impl_->spares->stats();
    if (const SanitizerSessions* sessions = impl_->sanitizer_sessions.get()) {
        t.gate.sessions_started = sessions->started();
        t.gate.sessions_evicted = sessions->evicted();
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
                        std::to_string(t.compiled) + " compiles with " + (t.compiler.empty() ? "nvrtc" : t.compiler) + ", " +
                        (t.compiled > 0 ? fixed(t.compile_cpu_ms / static_cast<double>(t.compiled), 0) : std::string("0")) +
                        " ms each, " + std::to_string(t.cache_hits) + " cache hits), variant runs " + seconds(t.run_ms) +
                        " (of which variants that timed out " + seconds(t.timeout_ms) + "; output buffers found equal to "
                        "the original's on the GPU " + std::to_string(t.compared_on_gpu) + ", compared on the host " +
                        std::to_string(t.compared_on_host) + "), original runs " +
                        seconds(t.original_ms) + ", worker restarts " + seconds(t.restart_ms) + " (" +
                        std::to_string(t.worker_restarts) + "), for " + std::to_string(t.variants) + " variants");
    }
    if (const std::string gate = t.gate.note(s.options.sanitize_batch); !gate.empty()) notes.push_back(gate);
    if (s.device_side)
        notes.push_back("variants were compiled with NVRTC from the kernel file's device side (its host code and host "
                        "headers set aside; nvcc built the same device code from it); the validated result was built by "
                        "nvcc from the whole file, as the build compiles it");
    if (s.nvrtc_refusal.empty() || t.compiled == 0) return notes;
    const double ms = t.compile_cpu_ms / static_cast<double>(t.compiled);
    notes.push_back("every variant was compiled with nvcc, " + number_text(ms) + " ms a compile here, because NVRTC cannot "
            "take the kernel file: " + s.nvrtc_refusal + ". NVRTC takes a file's device side when its kernels use "
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
    std::vector<Impl::Builds> compiles;
    std::map<std::string, std::size_t> first_with_key;
    std::map<std::string, std::size_t> first_with_binary;  // binary_identity -> the variant that ran it
    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (first_with_key.count(variants[i].key)) {
            compiles.emplace_back();
            continue;
        }
        first_with_key[variants[i].key] = i;
        compiles.push_back(s.submit(variants[i]));
    }

    BatchResult batch;
    {
        const auto start = Clock::now();
        s.ensure_loaded(case_index);  // replaces a worker the last batch's final variant killed
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
        Impl::Build build = s.collect(compiles[i]);
        s.stats.compile_wait_ms += ms_since(wait_start);
        s.count_build(build);
        s.settle(build);
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
    sessions->prewarm("memcheck", limit);
    if (count_barriers(s.original) > 0)
        for (const char* tool : {"racecheck", "synccheck"}) sessions->prewarm(tool, sessions->capacity(tool));
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
            const std::string paired = s.paired_source_of(variant.source);
            const std::string instance = s.instance_of(variant.genome);
            const DeviceCompileResult code = paired.empty() ? s.compile(variant.source, s.flags_of(variant), false, instance)
                                                            : s.build(variant.source, paired, s.flags_of(variant), false, instance).code;
            if (!code.ok) {
                results[i].status = EvalStatus::CompileError;
                results[i].detail = first_error_lines(code.log, 3);
                continue;
            }
            const ResolvedGeometry g =
                resolve_geometry(s.geometry, s.slots[case_index].manifest, s.params_of(variant.genome), s.arg_names);
            std::vector<std::string> tools{"memcheck"};
            // Removing a barrier is the edit that makes races; only then pay for the slower checkers.
            if (count_barriers(variant.source) < s.original_barriers) {
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
        const SanitizeContext context{sanitizer, s.worker_program, s.slots[case_index].path.string(),
                                      s.slots[case_index].kernel,
                                      std::to_string(s.slots[case_index].manifest.shared_bytes), s.sessions_for(sanitizer)};
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
    Impl::Build build =
        s.build(variant.source, s.paired_source_of(variant.source), s.flags_of(variant), true, s.instance_of(variant.genome));
    s.settle(build);
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

}  // namespace gi
