// gi-worker: owns the CUDA context for gi-tool's cuda evaluator. Talks the worker protocol
// (worker/protocol.hpp) on stdin/stdout; a kernel's printf output goes to /dev/null so it cannot
// corrupt the protocol, and diagnostics go to stderr (the parent's log file).
//
//   gi-worker                      serve requests until "quit" or end of input
//   gi-worker --once --case DIR --cubin FILE --kernel NAME [--grid X,Y,Z --block X,Y,Z --shared N]
//                                  run the kernel once on the case (under compute-sanitizer);
//                                  exit 0 when it ran, 1 when it failed
//   gi-worker --once --case DIR --variants LIST --kernel NAME
//                                  the same for several variants in turn, in one process
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cuda.h>

#include <chrono>
#include <deque>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "compare/tolerance.hpp"
#include "compile/module_variables.hpp"
#include "cuda_driver.hpp"
#include "replay.hpp"
#include "testcase/case_io.hpp"
#include "util/hash.hpp"
#include "variant/loop_guard.hpp"
#include "variant/paired_build.hpp"
#include "worker/protocol.hpp"
#include "worker/reference_file.hpp"
#include "worker/case_messages.hpp"
#include "worker/run_request.hpp"
#include "worker/run_result.hpp"

namespace gi::worker {
namespace {

struct Gpu {
    CUdevice device = 0;
    CUcontext context = nullptr;
    CUstream stream = nullptr;
    std::string name;
    int compute_capability = 0;
    int sms = 0;
    std::size_t l2_bytes = 0;
    std::size_t memory_bytes = 0;
    int driver = 0;
};

Gpu open_gpu() {
    Gpu gpu;
    const CUresult init = cuInit(0);
    if (init == CUDA_ERROR_NO_DEVICE) throw CudaError(init, "no CUDA device: cuInit found no GPU");
    check_cuda(init, "cuInit failed (is the NVIDIA driver loaded?)");
    int ordinal = 0;
    if (const char* env = std::getenv("GI_WORKER_DEVICE")) ordinal = std::atoi(env);
    check_cuda(cuDeviceGet(&gpu.device, ordinal), "selecting GPU " + std::to_string(ordinal));
    check_cuda(cuDevicePrimaryCtxRetain(&gpu.context, gpu.device), "creating the CUDA context");
    check_cuda(cuCtxSetCurrent(gpu.context), "making the CUDA context current");
    check_cuda(cuStreamCreate(&gpu.stream, CU_STREAM_NON_BLOCKING), "creating a stream");
    char name[256] = {};
    cuDeviceGetName(name, sizeof name, gpu.device);
    gpu.name = name;
    int major = 0, minor = 0, l2 = 0;
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, gpu.device);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, gpu.device);
    cuDeviceGetAttribute(&gpu.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, gpu.device);
    cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, gpu.device);
    gpu.compute_capability = major * 10 + minor;
    gpu.l2_bytes = static_cast<std::size_t>(l2);
    cuDeviceTotalMem(&gpu.memory_bytes, gpu.device);
    cuDriverGetVersion(&gpu.driver);
    return gpu;
}

// A --once variant's launch: its list line's fields over the case's recorded ones.
LaunchShape shape_from(const Message& m, const TestCase& tc) {
    LaunchShape shape{tc.grid, tc.block, tc.shared_bytes};
    if (m.fields.count("grid")) shape.grid = parse_dim3(m.get("grid"), "grid");
    if (m.fields.count("block")) shape.block = parse_dim3(m.get("block"), "block");
    if (m.fields.count("shared")) shape.shared_bytes = static_cast<unsigned>(m.integer("shared"));
    return shape;
}

// The reply to a run request that ended before the kernel ran (its module did not load, no such kernel).
Message short_result(const std::string& outcome, const std::string& detail, bool sticky = false, const std::string& cuda_error = "") {
    RunResult r;
    r.outcome = outcome;
    r.detail = detail;
    r.sticky = sticky;
    r.cuda_error = cuda_error;
    return to_message(r);
}

std::string outcome_name(RunReport::Outcome o) {
    switch (o) {
        case RunReport::Outcome::Ok: return "ok";
        case RunReport::Outcome::LoadError: return "load-error";
        case RunReport::Outcome::LaunchError: return "launch-error";
        case RunReport::Outcome::Fault: return "fault";
        case RunReport::Outcome::LoopOverrun: return "loop-overrun";
        case RunReport::Outcome::Corrupted: return "corrupted";
    }
    return "fault";
}

// Where `module` keeps the case's module variables (replay.hpp). With `guarded_image`, the module
// is a paired build and the places are those of its guarded half's copies (module_variables.hpp
// finds them among the image's own variables). Throws gi::Error naming a variable the plain half
// has and the guarded half lacks, so that build is not used for the check.
VariablePlaces variable_places(CUmodule module, const TestCase& tc, const std::string* guarded_image = nullptr) {
    VariablePlaces places(tc.buffers.size());
    std::vector<ModuleVariable> listed;
    bool any = false;
    for (std::size_t b = 0; b < tc.buffers.size(); ++b) {
        const std::string& name = tc.buffers[b].variable;
        if (name.empty()) continue;
        if (guarded_image && !any) listed = module_variables(*guarded_image);
        any = true;
        const std::string lookup = guarded_image ? guarded_variable_name(name, listed, kGuardedNamespace) : name;
        CUdeviceptr address = 0;
        std::size_t bytes = 0;
        if (!lookup.empty() && cuModuleGetGlobal(&address, &bytes, module, lookup.c_str()) == CUDA_SUCCESS) {
            places[b] = {address, bytes};
        } else if (guarded_image) {
            CUdeviceptr plain = 0;
            if (cuModuleGetGlobal(&plain, &bytes, module, name.c_str()) == CUDA_SUCCESS)
                throw Error("its guarded half has no copy of the module variable '" + name + "'");
        }
    }
    return places;
}

Message error_reply(const std::string& text, bool fatal = false) {
    Message m{"error", {{"message", text}}, {}};
    if (fatal) m.fields["fatal"] = "1";
    return m;
}

// One variant of a --once run: its module file and launch shape fields (grid, block, shared).
struct OnceVariant {
    std::string cubin_path;
    Message shape;
    std::string kernel;  // its own kernel name, when not --kernel's (a variant's template instantiation)
};

// --variants FILE: one variant per line, "CUBIN<TAB>GRID<TAB>BLOCK<TAB>SHARED[<TAB>KERNEL]" (empty
// fields take the case's recorded values, and --kernel names the kernel), so one compute-sanitizer process checks several variants: its start-up,
// the CUDA context and the case's upload are paid once instead of once per variant.
std::vector<OnceVariant> read_variant_list(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot read the variant list");
    std::vector<OnceVariant> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::vector<std::string> fields;
        std::size_t from = 0;
        for (std::size_t tab = line.find('\t'); ; tab = line.find('\t', from)) {
            fields.push_back(line.substr(from, tab == std::string::npos ? std::string::npos : tab - from));
            if (tab == std::string::npos) break;
            from = tab + 1;
        }
        if (fields.size() != 4 && fields.size() != 5)
            throw Error(path + ": line " + std::to_string(out.size() + 1) + " needs 4 or 5 tab-separated fields");
        OnceVariant v;
        v.cubin_path = fields[0];
        if (!fields[1].empty()) v.shape.fields["grid"] = fields[1];
        if (!fields[2].empty()) v.shape.fields["block"] = fields[2];
        if (!fields[3].empty()) v.shape.fields["shared"] = fields[3];
        if (fields.size() == 5) v.kernel = fields[4];
        out.push_back(std::move(v));
    }
    if (out.empty()) throw Error(path + ": the variant list is empty");
    return out;
}

// One listed variant run once on the case, as --once and check-variants do: its module loaded,
// the kernel launched (launch_once restores the case's inputs first, so each variant starts from
// the recorded state) and the module unloaded after a launch that succeeded. Throws gi::Error
// (with `label` in front) for a module that cannot be read; returns the launch's result.
CUresult run_listed_variant(Replay& replay, const OnceVariant& variant, const std::string& kernel_name, const std::string& label) {
    std::ifstream in(variant.cubin_path, std::ios::binary);
    const std::string cubin((std::istreambuf_iterator<char>(in)), {});
    if (cubin.empty()) throw Error(label + variant.cubin_path + ": cannot read the compiled module");
    const LaunchShape shape = shape_from(variant.shape, replay.test_case());
    CUmodule module = nullptr;
    check_cuda(cuModuleLoadData(&module, cubin.data()), "loading the compiled module");
    const CUfunction kernel = find_kernel(module, variant.kernel.empty() ? kernel_name : variant.kernel);
    const CUresult r = replay.launch_once(kernel, shape, variable_places(module, replay.test_case()));
    if (r == CUDA_SUCCESS) check_cuda(cuModuleUnload(module), "unloading the compiled module");
    return r;
}

class Server {
public:
    Server(Gpu gpu, int out_fd) : gpu_(std::move(gpu)), out_(out_fd) {}

    // Returns false when the worker must exit (quit, or a sticky error).
    bool handle(const Message& m) {
        if (m.type == "hello") {
            reply(to_message(Ready{gpu_.name, gpu_.compute_capability, gpu_.sms, gpu_.l2_bytes, gpu_.memory_bytes, gpu_.driver}));
            return true;
        }
        if (m.type == "quit") return false;
        if (m.type == "load-case") return load_case(m);
        if (m.type == "unload-case") {
            slots_.erase(static_cast<int>(m.integer("slot", -1)));
            reply({"case-unloaded", {{"slot", m.get("slot")}}, {}});
            return true;
        }
        if (m.type == "run") return run(m);
        if (m.type == "check-variants") return check_variants(m);
        reply(error_reply("unknown request '" + m.type + "'"));
        return true;
    }

    ~Server() {
        while (unload_one()) {
        }
    }

    // The sanitizer gate's long-lived checkers (gi-worker serving under compute-sanitizer): a
    // request runs a list of variants on a case in turn, as `--once --variants` does, so the
    // sanitizer's start-up and the CUDA context are paid once per search instead of once per batch.
    // The reply comes after the context is synchronised, when the sanitizer has reported on every
    // launch. A launch that fails ends the worker: under memcheck its context is not usable.
    bool check_variants(const Message& m) {
        const CheckVariants request = check_variants_from(m);
        const std::string& case_path = request.case_path;
        if (!checked_case_ || checked_case_path_ != case_path) {
            checked_case_.reset();
            checked_case_ = std::make_unique<Replay>(read_test_case(case_path, CaseLoad::Data), std::vector<Tolerance>{}, 0, gpu_.stream);
            checked_case_path_ = case_path;
        }
        const std::vector<OnceVariant> variants = read_variant_list(request.variants_file);
        for (std::size_t k = 0; k < variants.size(); ++k) {
            const CUresult r = run_listed_variant(*checked_case_, variants[k], request.kernel, "");
            if (r != CUDA_SUCCESS) {
                reply(to_message(Checked{k, "variant " + std::to_string(k + 1) + ": the kernel failed: " + cuda_error_name(r)}));
                return false;
            }
        }
        check_cuda(cuCtxSynchronize(), "synchronising after the checks");
        reply(to_message(Checked{variants.size(), ""}));
        return true;
    }

    // A variant's module, done with: kept until the worker is idle (serve() asks), or unloaded at
    // once beyond kMaxRetired so a worker that is never idle does not pile them up.
    void retire(CUmodule module) {
        retired_.push_back(module);
        while (retired_.size() > kMaxRetired) unload_one();
    }

    // Unloads the oldest retired module; false when there was none. Errors are ignored: after a
    // sticky error the context goes with the worker anyway.
    bool unload_one() {
        if (retired_.empty()) return false;
        const auto start = std::chrono::steady_clock::now();
        cuModuleUnload(retired_.front());
        retired_.pop_front();
        unload_ms_ += ms_since(start);
        return true;
    }

private:
    static constexpr std::size_t kMaxRetired = 8;

    void reply(const Message& m) { write_message(out_, m); }

    // Made at the first case a run will compare on, not at start: sessions serving the sanitizer
    // gate compare nothing, and every module they load is instrumented. Without it every comparison
    // is made on the host, as before it existed: slower, the same verdicts.
    DeviceCompare* device_compare() {
        if (!device_compare_ && device_compare_error_.empty()) {
            try {
                device_compare_ = std::make_unique<DeviceCompare>(gpu_.stream, gpu_.sms);
            } catch (const std::exception& e) {
                device_compare_error_ = e.what();
            }
        }
        return device_compare_.get();
    }

    // The guarded kernel `name`, the guard's clock kernel and its two symbols in `module`.
    static void find_guard(CUmodule module, const std::string& name, LoopGuard& guard) {
        guard.kernel = find_kernel(module, name);
        check_cuda(cuModuleGetFunction(&guard.clock, module, kLoopClockKernel), std::string("finding ") + kLoopClockKernel);
        std::size_t bytes = 0;
        check_cuda(cuModuleGetGlobal(&guard.deadline, &bytes, module, kLoopDeadlineSymbol), std::string("finding ") + kLoopDeadlineSymbol);
        if (bytes != sizeof(unsigned long long)) throw Error(std::string(kLoopDeadlineSymbol) + " has the wrong size");
        check_cuda(cuModuleGetGlobal(&guard.overrun, &bytes, module, kLoopOverrunSymbol), std::string("finding ") + kLoopOverrunSymbol);
        if (bytes != sizeof(unsigned int)) throw Error(std::string(kLoopOverrunSymbol) + " has the wrong size");
    }

    bool load_case(const Message& m) {
        const LoadCase request = load_case_from(m);
        const int slot = request.slot;
        while (unload_one()) {  // their memory may be what the case needs
        }
        try {
            TestCase tc = read_test_case(request.path, request.verify ? CaseLoad::Data : CaseLoad::DataTrusted);
            std::vector<Tolerance> tolerances;
            for (std::size_t b = 0; b < tc.buffers.size(); ++b)
                tolerances.push_back(parse_tolerance(b < request.tolerances.size() ? request.tolerances[b] : "exact", "tolerance"));
            slots_.erase(slot);
            auto replay = std::make_unique<Replay>(std::move(tc), std::move(tolerances), gpu_.l2_bytes, gpu_.stream,
                                                   device_compare());
            CaseLoaded ok;
            ok.slot = slot;
            ok.copies = replay->copies();
            ok.device_bytes = replay->device_bytes();
            ok.device_compare = device_compare_ ? "on" : "off: " + device_compare_error_;
            if (!request.reference_file.empty()) {
                // The original's outputs from the worker that ran it: taken only when every check
                // passes; otherwise the parent hears why and has the original run here instead.
                try {
                    ReferenceOutputs ref = read_reference_file(request.reference_file, request.reference_sha256,
                                                               replay->test_case().path, request.original_sha256,
                                                               replay->writable_sizes());
                    replay->adopt_reference(std::move(ref.outputs), ref.poisonable);
                    ok.reference = "loaded";
                    ok.poisonable = ref.poisonable;
                } catch (const std::exception& e) {
                    ok.reference = "rejected";
                    ok.reference_error = e.what();
                }
            }
            slots_[slot] = std::move(replay);
            reply(to_message(ok));
        } catch (const CudaError& e) {
            reply(error_reply(e.what(), is_sticky(e.code())));
            return !is_sticky(e.code());
        } catch (const std::exception& e) {
            reply(error_reply(e.what()));
        }
        return true;
    }

    bool run(const Message& m) {
        const auto request_start = std::chrono::steady_clock::now();
        RunSpec spec;
        try {
            spec = run_spec_from(m);
        } catch (const std::exception& e) {
            reply(error_reply(e.what()));
            return true;
        }
        const int slot = spec.slot;
        auto it = slots_.find(slot);
        if (it == slots_.end()) {
            reply(error_reply("no case loaded in slot " + std::to_string(slot)));
            return true;
        }
        Replay& replay = *it->second;
        RunRequest request;
        request.original = spec.role == "original";
        request.probe_poison = spec.probe_poison;
        request.poisonable = spec.poisonable;
        request.warmups = spec.warmups;
        request.repetitions = spec.repetitions;
        request.time = spec.time;
        const TestCase& tc = replay.test_case();
        request.shape = {spec.grid.value_or(tc.grid), spec.block.value_or(tc.block), spec.shared_bytes.value_or(tc.shared_bytes)};

        const auto load_start = std::chrono::steady_clock::now();
        // The payload: the loop-guarded build's cubin (guard-bytes of it), then the plain one's; or
        // with guard-paired=1 one cubin holding both (variant/paired_build.hpp).
        const bool paired = spec.guard_paired;
        const std::string guarded_image = spec.payload.substr(0, static_cast<std::size_t>(spec.guard_bytes));
        const std::string plain_image = spec.payload.substr(static_cast<std::size_t>(spec.guard_bytes));
        // Modules are unloaded when the worker is idle (Retired), not here: an unload after the
        // reply delayed the reading of the next request.
        struct Retire {
            Server& server;
            CUmodule module = nullptr;
            ~Retire() { if (module) server.retire(module); }
        };
        Retire plain{*this};
        const CUresult loaded = cuModuleLoadData(&plain.module, plain_image.data());
        if (loaded != CUDA_SUCCESS) {
            plain.module = nullptr;
            const bool sticky = is_sticky(loaded) || cuCtxSynchronize() != CUDA_SUCCESS;
            reply(short_result("load-error", "loading the compiled module: " + cuda_error_name(loaded) + " (" +
                                                 cuda_error_text(loaded) + ")",
                               sticky, cuda_error_name(loaded)));
            return !sticky;
        }
        const auto plain_loaded = std::chrono::steady_clock::now();
        CUfunction kernel = nullptr;
        try {
            kernel = find_kernel(plain.module, spec.kernel);
        } catch (const Error& e) {
            reply(short_result("no-kernel", e.what()));
            return true;
        }
        try {
            request.variables = variable_places(plain.module, replay.test_case());
        } catch (const std::exception& e) {
            reply(short_result("load-error", e.what()));
            return true;
        }
        const auto kernel_found = std::chrono::steady_clock::now();
        // The guarded build is optional: when it cannot be used the variant is checked unguarded,
        // as it would be without one, and the parent hears why.
        LoopGuard loop_guard;
        Retire guard_module{*this};
        const bool has_guard = paired || !guarded_image.empty();
        std::string guard_state = has_guard ? "used" : "none";
        if (has_guard && !request.original) {
            CUmodule guarded = plain.module;
            if (!paired) {
                const CUresult r = cuModuleLoadData(&guard_module.module, guarded_image.data());
                if (r != CUDA_SUCCESS) {
                    guard_module.module = nullptr;
                    if (is_sticky(r) || cuCtxSynchronize() != CUDA_SUCCESS) {
                        reply(short_result("load-error", "loading the loop-guarded module: " + cuda_error_name(r) + " (" +
                                                             cuda_error_text(r) + ")",
                                           true, cuda_error_name(r)));
                        return false;
                    }
                    guard_state = "unusable: loading it failed: " + cuda_error_name(r);
                    guarded = nullptr;
                } else {
                    guarded = guard_module.module;
                }
            }
            if (guarded) {
                try {
                    const std::string name = paired ? std::string(kGuardedNamespace) + "::" + spec.kernel : spec.kernel;
                    find_guard(guarded, name, loop_guard);
                    loop_guard.variables = variable_places(guarded, replay.test_case(), paired ? &plain_image : nullptr);
                    if (spec.guard_budget_us <= 0) throw Error("the run request gives no guard-budget-us");
                    loop_guard.budget_ns = static_cast<std::uint64_t>(spec.guard_budget_us) * 1000u;
                    request.guard = &loop_guard;
                } catch (const std::exception& e) {
                    guard_state = std::string("unusable: ") + e.what();
                }
            }
        }
        StageTimes stages;
        const auto loaded_all = std::chrono::steady_clock::now();
        stages.load_ms = ms_between(load_start, loaded_all);
        const bool had_reference = replay.has_reference();
        RunReport report;
        try {
            report = replay.run(kernel, request, [this](const char* stage) { reply({stage, {}, {}}); });
            // Whatever the variant's verdict (a wrong or overrunning variant may have written past
            // its buffers too), unless the context is lost and the worker goes anyway.
            if (!request.original && !report.sticky) check_integrity(slot, report);
        } catch (const CudaError& e) {
            reply(error_reply(e.what(), true));
            return false;  // the worker's own CUDA calls failed: start afresh
        } catch (const std::exception& e) {
            reply(error_reply(e.what()));
            return true;
        }
        const ErrorSummary& c = report.comparison;
        RunResult result;
        result.outcome = outcome_name(report.outcome);
        result.cuda_error = report.cuda_error;
        result.sticky = report.sticky;
        result.detail = report.outcome == RunReport::Outcome::Ok ? c.detail : report.detail;
        result.elements = c.elements;
        result.mismatches = c.mismatches;
        result.unwritten = c.unwritten;
        result.non_finite = c.non_finite;
        result.worst = c.worst_error;
        result.error = c.error;
        result.hard_failure = c.hard_failure;
        result.times_ms = report.times_ms;
        result.poisonable = report.poisonable;
        result.loop_guard = guard_state;
        result.compared_on_gpu = report.compared_on_gpu;
        result.compared_on_host = report.compared_on_host;
        result.integrity_on_gpu = report.integrity_on_gpu;
        result.integrity_on_host = report.integrity_on_host;
        RunStages& s = result.stages.emplace();
        s.load_ms = stages.load_ms;
        s.check_ms = report.stages.check_ms;
        s.compare_ms = report.stages.compare_ms;
        s.timed_ms = report.stages.timed_ms;
        s.integrity_ms = report.stages.integrity_ms;
        s.load_plain_ms = ms_between(load_start, plain_loaded);
        s.load_find_ms = ms_between(plain_loaded, kernel_found);
        s.load_guard_ms = ms_between(kernel_found, loaded_all);
        if (request.original && !had_reference && replay.has_reference() && !spec.reference_out.empty()) {
            // Written once per case, for every worker started after this one.
            try {
                ReferenceOutputs ref{replay.test_case().path, sha256_hex(spec.payload), report.poisonable, replay.reference()};
                result.reference_sha256 = write_reference_file(spec.reference_out, ref);
                result.reference_file = spec.reference_out;
            } catch (const std::exception& e) {
                result.reference_error = e.what();
            }
        }
        // The worker's whole time on the request, so the parent can tell its own and the pipes'
        // share of a request from the worker's time outside the stages above.
        s.unload_ms = unload_ms_;
        unload_ms_ = 0;
        s.worker_ms = ms_since(request_start);
        reply(to_message(result));
        return !report.sticky;
    }

    // A variant can write past its buffers without faulting (cuMemAlloc sub-allocates small
    // buffers from one pool), into the worker's own copies of this case or of another loaded one.
    // Those copies would stay damaged for every later variant, so they are checked after each
    // variant's run; when one changed, the variant is reported as corrupting and the worker exits
    // (sticky), so the next variant runs in a fresh worker. Throws CudaError when a copy cannot
    // be read back.
    void check_integrity(int slot, RunReport& report) {
        const auto start = std::chrono::steady_clock::now();
        // After a failure, large buffers too (Replay::damage: a variant that failed may be the one
        // that wrote, or the victim of an earlier one that did).
        const bool failed = report.outcome != RunReport::Outcome::Ok || report.comparison.hard_failure;
        Replay& ran_on = *slots_.at(slot);
        std::string damage = ran_on.damage(failed);
        report.integrity_on_gpu = ran_on.damage_checked_on_gpu();
        report.integrity_on_host = ran_on.damage_checked_on_host();
        for (auto& [other, replay] : slots_) {
            if (!damage.empty()) break;
            if (other == slot) continue;
            damage = replay->damage(failed);
            report.integrity_on_gpu += replay->damage_checked_on_gpu();
            report.integrity_on_host += replay->damage_checked_on_host();
            if (!damage.empty()) damage = "in case " + replay->test_case().path + " (loaded beside the one it ran on), " + damage;
        }
        report.stages.integrity_ms = ms_since(start);
        if (damage.empty()) return;
        // What else went wrong with it, for the record: its outputs, its loop, its launch.
        const ErrorSummary& c = report.comparison;
        const std::string also = report.outcome != RunReport::Outcome::Ok ? report.detail
                                 : c.hard_failure || c.mismatches > 0     ? c.detail
                                                                          : std::string();
        report.outcome = RunReport::Outcome::Corrupted;
        report.sticky = true;
        report.detail = "wrote outside its buffers: " + damage + (also.empty() ? "" : "; besides: " + also);
        report.times_ms.clear();
    }

    Gpu gpu_;
    std::unique_ptr<DeviceCompare> device_compare_;  // null when its kernel could not be loaded
    std::string device_compare_error_;               // why, then
    std::unique_ptr<Replay> checked_case_;  // check-variants' case, kept while requests name it
    std::string checked_case_path_;
    int out_;
    std::map<int, std::unique_ptr<Replay>> slots_;
    std::deque<CUmodule> retired_;  // oldest first
    double unload_ms_ = 0;          // spent unloading since the last run reply (reported in it)
};

// True when nothing is waiting to be read on `fd` (end of input counts as waiting: it is read next).
bool input_idle(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 0;
}

int serve() {
    // Keep the protocol on a private descriptor; fd 1 (where device printf goes) becomes /dev/null.
    const int out_fd = ::dup(1);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (out_fd < 0 || null_fd < 0 || ::dup2(null_fd, 1) < 0) {
        std::perror("gi-worker: setting up descriptors");
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
        Replay replay(read_test_case(opts["--case"], CaseLoad::Data), {}, 0, gpu.stream);
        for (std::size_t k = 0; k < variants.size(); ++k) {
            const std::string label = variants.size() > 1 ? "variant " + std::to_string(k + 1) + ": " : "";
            const CUresult r = run_listed_variant(replay, variants[k], opts["--kernel"], label);
            if (r != CUDA_SUCCESS) {
                std::cerr << "gi-worker: " << label << "the kernel failed: " << cuda_error_name(r) << " ("
                          << cuda_error_text(r) << ")\n";
                return 1;
            }
        }
        // The caller counts this line: a batch that stopped early must not pass for a checked one.
        std::cout << "gi-worker: ran " << variants.size() << " variant(s)" << std::endl;
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
                     "       gi-worker --once --case DIR --variants LIST --kernel NAME   (LIST: CUBIN, GRID, BLOCK, SHARED\n"
                     "                                  per line, tab-separated; each run in turn)\n";
        return std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    return gi::worker::serve();
}
