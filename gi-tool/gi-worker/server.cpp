#include "server.hpp"

#include <cuda.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "compare/tolerance.hpp"
#include "check_cases.hpp"
#include "cuda_driver.hpp"
#include "device_compare.hpp"
#include "guard_pages.hpp"
#include "listed_variants.hpp"
#include "replay.hpp"
#include "side_by_side.hpp"
#include "testcase/case_io.hpp"
#include "util/hash.hpp"
#include "variant/loop_guard.hpp"
#include "variant/paired_build.hpp"
#include "worker/case_messages.hpp"
#include "worker/case_store.hpp"
#include "worker/reference_file.hpp"
#include "worker/run_request.hpp"
#include "worker/run_result.hpp"

namespace gi::worker {

Message error_reply(const std::string& text, bool fatal) { return to_message(ErrorReply{text, fatal}); }

namespace {

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
        case RunReport::Outcome::OutOfBounds: return "out-of-bounds";
        case RunReport::Outcome::Corrupted: return "corrupted";
    }
    return "fault";
}

}  // namespace

struct Server::Impl {
public:
    Impl(Gpu gpu, int out_fd) : gpu_(std::move(gpu)), out_(out_fd) {}

    // Returns false when the worker must exit (quit, or a sticky error).
    bool handle(const Message& m) {
        if (m.type == "hello") {
            reply(to_message(Ready{gpu_.name, gpu_.compute_capability, gpu_.sms, gpu_.l2_bytes, gpu_.memory_bytes, gpu_.driver,
                                   gpu_.devices, gpu_.ordinal}));
            return true;
        }
        if (m.type == "quit") return false;
        if (m.type == "load-case") return load_case(m);
        if (m.type == "put-case") {
            reply(case_store_.put(m));
            return true;
        }
        if (m.type == "unload-case") {
            const int slot = unload_case_from(m).slot;
            slots_.erase(slot);
            reply(case_unloaded_message(slot));
            return true;
        }
        if (m.type == "run") return run(m);
        if (m.type == "check-variants") return check_variants(m);
        reply(error_reply("unknown request '" + m.type + "'"));
        return true;
    }

    ~Impl() {
        while (unload_one()) {
        }
    }

    // The sanitizer gate's long-lived checkers (gi-worker serving under compute-sanitizer): a
    // request runs a list of variants on a case in turn, as `--once --variants` does, so the
    // sanitizer's start-up and the CUDA context are paid once per search instead of once per batch.
    // The reply comes after the context is synchronised, when the sanitizer has reported on every
    // launch. A launch that fails ends the worker: under memcheck its context is not usable.
    // With guard bytes the worker runs without a sanitizer (the gate's first check): the case's
    // working buffers sit between guard zones, and a variant that writes into them is reported in
    // the reply's `outside` (the worker stays when its own copies are intact: `kept`).
    bool check_variants(const Message& m) {
        const CheckVariants request = check_variants_from(m);
        const std::string& case_path = request.case_path;
        Checked checked;
        auto start = std::chrono::steady_clock::now();
        // Pages where the device maps memory that way; elsewhere the zone after each buffer stays.
        const bool pages = request.guard_pages && request.guard_bytes > 0 && GuardPagedMemory::supported();
        bool opened = false;
        CheckCase& open = check_cases_.use(case_path, static_cast<std::size_t>(request.guard_bytes), pages, opened);
        if (opened) checked.case_ms = ms_since(start);
        checked.case_bytes = open.device_bytes();
        Replay& checked_case = *open.checked;
        if (request.variants_file.empty()) {
            // Only the case: a session started ahead opens it while the search goes on.
            reply(to_message(checked));
            return true;
        }
        const std::vector<OnceVariant> variants = read_variant_list(request.variants_file);
        ListedRunTimes times;
        // The reply, with the worker's times (a failed check's load and launch too: the gate's note
        // would count them as "the rest" otherwise).
        auto answer = [&](std::size_t ran, std::string error = "", std::string outside = "") {
            checked.ran = ran;
            checked.error = std::move(error);
            checked.outside = std::move(outside);
            checked.load_ms = times.load_ms;
            checked.launch_ms = times.launch_ms;
            checked.unload_ms = times.unload_ms;
            reply(to_message(checked));
        };
        // Side by side where a second copy of the case fits the lanes' budget (a lane is sized
        // as the checked case's replay); else one after another on that replay, as without.
        const std::size_t lanes = SideBySideLanes::lanes_within_budget(
            std::min<std::size_t>(request.side_by_side, variants.size()), checked_case.device_bytes());
        if (lanes > 1) {
            if (!side_by_side_ || side_by_side_->case_path() != case_path)
                side_by_side_ = std::make_unique<SideBySideLanes>(case_path);
            const SideBySideLanes::Outcome o = side_by_side_->run_all(variants, lanes, request.kernel, times);
            if (o.result != CUDA_SUCCESS) {
                std::string which = "variants " + std::to_string(o.from + 1);
                which += "-" + std::to_string(o.to);
                answer(o.from, which + " (run side by side): a kernel failed: " + cuda_error_name(o.result));
                return false;
            }
            answer(variants.size());
            return true;
        }
        for (std::size_t k = 0; k < variants.size(); ++k) {
            const std::string which = "variant " + std::to_string(k + 1);
            // The zones' run first (with pages), then the run that counts; a stray write past the
            // zones may have hit the worker's own copies, so the worker stays only when they are
            // intact: restarting it cost the gate 8.6 s of waiting in a 45 s row_filter search (H200).
            for (Replay* replay : {open.zoned.get(), &checked_case}) {
                if (!replay) continue;
                const CUresult r = run_listed_variant(*replay, variants[k], request.kernel, "", &times);
                if (r != CUDA_SUCCESS) {
                    answer(k, which + ": the kernel failed: " + cuda_error_name(r));
                    return false;
                }
                // The gate's first check (no sanitizer): a write into the guard zones judges the variant.
                if (std::string outside = replay->guard_damage(); !outside.empty()) {
                    const std::string harm = check_cases_.harm_after_stray_write(open);
                    checked.kept = harm.empty();
                    answer(k, which + " wrote outside its buffers", outside + (harm.empty() ? "" : "; besides, " + harm));
                    return checked.kept;
                }
            }
        }
        start = std::chrono::steady_clock::now();
        check_cuda(cuCtxSynchronize(), "synchronising after the checks");
        checked.sync_ms = ms_since(start);
        answer(variants.size());
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
        // Through a launcher the case may not be on this node: from the store, or asked for.
        const std::optional<std::filesystem::path> path = case_store_.locate(request);
        if (!path) {
            reply(case_missing_message(slot, request.sha256));
            return true;
        }
        while (unload_one()) {  // their memory may be what the case needs
        }
        try {
            TestCase tc = read_test_case(*path, request.verify ? CaseLoad::Data : CaseLoad::DataTrusted);
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
        request.probe_unchanged = spec.probe_unchanged;
        request.announce_probe = spec.announce_probe;
        request.poisonable = spec.poisonable;
        request.warmups = spec.warmups;
        request.repetitions = spec.repetitions;
        request.launches_per_time = spec.launches_per_time;
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
            Impl& server;
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
                    // The guards' checks take registers: a block that the plain kernel fits may be
                    // too large for the guarded one, whose launch would then fail as if the variant had.
                    const long threads = static_cast<long>(request.shape.block.x) * request.shape.block.y * request.shape.block.z;
                    int fits = 0;
                    if (cuFuncGetAttribute(&fits, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, loop_guard.kernel) == CUDA_SUCCESS &&
                        fits > 0 && threads > fits) {
                        request.guard = nullptr;
                        guard_state = "unusable: its guarded build fits at most " + std::to_string(fits) +
                                      " threads a block (registers), the launch has " + std::to_string(threads);
                    }
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
            report = replay.run(kernel, request, [this, &replay](const char* stage) {
                Message progress{stage, {}, {}};
                if (std::string(stage) == "probing") {
                    progress.fields["original-ms"] = std::to_string(replay.probe_plan().original_ms);
                    progress.fields["launches"] = std::to_string(replay.probe_plan().launches);
                    progress.fields["bytes"] = std::to_string(replay.probe_plan().bytes);
                }
                reply(progress);
            });
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
        result.launches_per_time = report.launches_per_time;
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
    // check-variants' cases, kept while memory allows: a gate session serves every gate case. A
    // 64th of the GPU each: with 16 sessions (8 memcheck, 8 guard zones) a quarter of its memory
    // at most, the rest left to the evaluation's workers.
    CheckCases check_cases_{gpu_.stream, kCheckCasesKept, std::min<std::size_t>(std::size_t{1} << 30, gpu_.memory_bytes / 64)};
    std::unique_ptr<SideBySideLanes> side_by_side_;  // lanes for requests that run variants at once
    int out_;
    std::map<int, std::unique_ptr<Replay>> slots_;
    CaseStore case_store_{CaseStore::default_dir()};
    std::deque<CUmodule> retired_;  // oldest first
    double unload_ms_ = 0;          // spent unloading since the last run reply (reported in it)
};

Server::Server(Gpu gpu, int out_fd) : impl_(std::make_unique<Impl>(std::move(gpu), out_fd)) {}
Server::~Server() = default;
bool Server::handle(const Message& m) { return impl_->handle(m); }
bool Server::unload_one() { return impl_->unload_one(); }

}  // namespace gi::worker
