// A stand-in for gi-worker, so the worker protocol, timeouts and crash handling are tested without
// a GPU: when gi_tests starts with GI_FAKE_WORKER=<mode> it behaves as a worker and exits before
// GoogleTest runs. Modes: echo, hang, crash, garbage, exit, sticky, and replay: gi-worker's
// protocol with a pretend GPU (see run_fake_replay), so the cuda evaluator's worker management
// is tested end to end.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "compare/compare.hpp"
#include "compare/write_set.hpp"
#include "testcase/case_io.hpp"
#include "util/hash.hpp"
#include "worker/protocol.hpp"
#include "worker/reference_file.hpp"
#include "worker/case_messages.hpp"
#include "worker/case_store.hpp"
#include "worker/run_request.hpp"
#include "worker/run_result.hpp"

namespace {

// gi-worker's requests answered without a GPU. The original's outputs are bytes of 0x5a; a
// variant's behaviour is chosen by its block size: 512 hangs after "started", 128 crashes there,
// 64 runs a loop away (stopped by the loop guard when a guarded build came, else it hangs), 32
// writes outside its buffers (outcome "corrupted", sticky, and the worker exits as gi-worker does),
// anything else runs correctly. Every variant run is logged as "variant <slot> <block>". A run with a separate guarded build is logged as "guarded
// <slot> <guard-budget-us>", or "guard-malformed" when the payload is not guarded cubin + plain cubin;
// one with a paired build (guard-paired=1) as "paired <slot> <guard-budget-us>", or "paired-malformed"
// when the one cubin lacks the plain kernel, its gi_guarded:: copy or the guard's clock kernel. Every original run and hand-over is appended to $GI_FAKE_LOG as
// "<pid> <event> <slot> [detail]", so tests can see which worker did what. The oracle gate's
// reruns of the original (role "rerun") are logged as "rerun"; $GI_FAKE_ORACLE makes the original
// misbehave for the gate's tests: "differs" (its first run does not reproduce the recorded outputs
// of the case in slot 0), "moves" (reruns differ from the reference within the tolerance),
// "moves-beyond" (beyond it), "moves-in-2" (as "moves", on the case in slot 2 only).
//
// Write sets (compare/write_set.hpp) as gi-worker learns and uses them: the original's first run
// learns each writable buffer's from pretend probe outputs ($GI_FAKE_WRITES: "all", the default,
// overwrites every element; "half" the first half of each buffer; "rmw" updates every element), or
// takes those of the request (a worker after a restart) or of a handed-over reference, and reports
// them. A variant of block 96 writes nothing: refused for outputs left unwritten where its case
// poisons any element; otherwise wrong where the recorded launch changed a buffer, and right where
// it changed nothing (the blind spot write sets close). A case whose write sets restore a buffer
// before each launch times single launches, as gi-worker does. $GI_FAKE_PROBE_CRASH makes probing
// crash the original, $GI_FAKE_PROBE_HANG hang it (see there).
// Whether the case has a writable buffer its recorded launch left as it was (probing it may crash
// or hang the original, as poison read as an index or a count would).
bool has_unchanged_writable(const gi::TestCase& tc) {
    return std::any_of(tc.buffers.begin(), tc.buffers.end(), [](const gi::CaseBuffer& b) { return !b.read_only && !b.changed; });
}

gi::worker::RunResult fake_writes_nothing(const gi::TestCase& tc, const std::vector<gi::WriteSet>& sets) {
    gi::worker::RunResult result;
    std::vector<gi::BufferComparison> comparisons;
    std::vector<std::string> labels;
    for (std::size_t b = 0; b < tc.buffers.size(); ++b) {
        const gi::CaseBuffer& buffer = tc.buffers[b];
        if (buffer.read_only) continue;
        const std::uint64_t size = gi::element_size(buffer.element);
        gi::BufferComparison c;
        c.elements = buffer.size / size;
        if (!sets[b].poisoned.empty()) {
            c.unwritten = c.mismatches = gi::poisoned_bytes(sets[b]) / size;
            c.penalty = static_cast<double>(c.unwritten) * gi::kUnwrittenPenalty;
            c.first_mismatch = static_cast<std::int64_t>(sets[b].poisoned.front().begin / size);
        } else if (buffer.changed) {
            c.mismatches = c.elements;
            c.penalty = static_cast<double>(c.elements);
            c.worst_error = 1;
            c.first_mismatch = 0;
        }
        comparisons.push_back(c);
        labels.push_back("buffer " + std::to_string(b) + " (output, kernel argument " + std::to_string(b) + ")");
    }
    const gi::ErrorSummary s = gi::summarise_comparisons(comparisons, labels);
    result.elements = s.elements;
    result.mismatches = s.mismatches;
    result.unwritten = s.unwritten;
    result.worst = s.worst_error;
    result.error = s.error;
    result.hard_failure = s.hard_failure;
    result.detail = s.detail;
    return result;
}

// The write sets the original's probes would find, per $GI_FAKE_WRITES (see above).
std::vector<gi::WriteSet> fake_probe(const gi::TestCase& tc, const gi::worker::RunSpec& spec) {
    std::vector<gi::WriteSet> sets(tc.buffers.size());
    if (!spec.probe_poison) return sets;
    const std::string writes = std::getenv("GI_FAKE_WRITES") ? std::getenv("GI_FAKE_WRITES") : "all";
    for (std::size_t b = 0; b < tc.buffers.size(); ++b) {
        const gi::CaseBuffer& buffer = tc.buffers[b];
        if (buffer.read_only || !buffer.pointers.empty() || (!spec.probe_unchanged && !buffer.changed)) continue;
        const gi::Bytes reference(buffer.size, 0x5a);
        gi::Bytes first(buffer.size), second(buffer.size);
        gi::fill_poison(first.data(), first.size(), buffer.element, gi::Poison::First);
        gi::fill_poison(second.data(), second.size(), buffer.element, gi::Poison::Second);
        const std::size_t written = writes == "all" ? buffer.size : writes == "half" ? buffer.size / 2 : 0;
        std::copy(reference.begin(), reference.begin() + static_cast<long>(written), first.begin());
        std::copy(reference.begin(), reference.begin() + static_cast<long>(written), second.begin());
        if (writes == "rmw") {
            first.assign(buffer.size, 0x11);
            second.assign(buffer.size, 0x22);
        }
        sets[b] = gi::learn_write_set(buffer.element, buffer.size, reference.data(), first.data(), second.data(), false);
    }
    return sets;
}

// Several GPUs, as `--gpus` sees them: $GI_FAKE_GPUS of them (1 unless set), this worker the one
// $GI_WORKER_DEVICE names (0 unless set; one past the count is refused at hello, as cuDeviceGet
// refuses it). $GI_FAKE_GPU_NAMES: their names, comma-separated by ordinal ("Fake GPU" for any not
// named); $GI_FAKE_GPU_SLOWDOWN: each one's factor on every kernel's time, comma-separated (1 for any
// not given), so a test sees which original a variant was judged against.
int fake_gpu_ordinal() { return std::getenv("GI_WORKER_DEVICE") ? std::atoi(std::getenv("GI_WORKER_DEVICE")) : 0; }
int fake_gpu_count() { return std::getenv("GI_FAKE_GPUS") ? std::atoi(std::getenv("GI_FAKE_GPUS")) : 1; }

std::string fake_gpu_field(const char* variable) {
    const char* list = std::getenv(variable);
    if (!list) return "";
    std::string text = list;
    for (int i = 0; i < fake_gpu_ordinal(); ++i) {
        const std::size_t comma = text.find(',');
        if (comma == std::string::npos) return "";
        text = text.substr(comma + 1);
    }
    return text.substr(0, text.find(','));
}

std::string fake_gpu_name() {
    const std::string name = fake_gpu_field("GI_FAKE_GPU_NAMES");
    return name.empty() ? "Fake GPU" : name;
}

double fake_gpu_slowdown() {
    const std::string factor = fake_gpu_field("GI_FAKE_GPU_SLOWDOWN");
    return factor.empty() ? 1.0 : std::atof(factor.c_str());
}

int run_fake_replay() {
    using namespace gi::worker;
    const char* log_path = std::getenv("GI_FAKE_LOG");
    auto log = [&](const std::string& event, const std::string& slot, const std::string& detail = "") {
        if (!log_path) return;
        std::ofstream(log_path, std::ios::app) << ::getpid() << " " << event << " " << slot << " " << detail << std::endl;
    };
    struct Case {
        gi::TestCase tc;
        bool referenced = false;
        std::vector<gi::WriteSet> write_sets;  // as learnt, given or handed over
    };
    std::map<std::string, Case> cases;
    long originals_timed = 0;  // this worker's timed runs of the original, for $GI_FAKE_ORIGINAL_TIMES_MS
    // Cases sent through the protocol (worker/case_store.hpp), in $GI_WORKER_CASE_STORE as gi-worker
    // keeps them. $GI_FAKE_NO_SHARED_FOLDER: the master's paths are unreadable here, as on a node
    // that does not mount its file system (the handed-over reference files too).
    gi::worker::CaseStore store(gi::worker::CaseStore::default_dir());
    const bool shared_folder = std::getenv("GI_FAKE_NO_SHARED_FOLDER") == nullptr;
    MessageReader reader;
    auto sizes_of = [](const gi::TestCase& tc) {
        std::vector<std::uint64_t> sizes;
        for (const auto& b : tc.buffers) sizes.push_back(b.read_only ? 0 : b.size);
        return sizes;
    };
    while (auto m = read_message(0, reader)) {
        const std::string slot = m->get("slot");
        if (m->type == "quit") return 0;
        if (m->type == "hello") {
            // GI_FAKE_HELLO_WAIT_FILE: the answer waits while that file exists (a worker still making
            // its CUDA context), 30 s at most.
            if (const char* hold = std::getenv("GI_FAKE_HELLO_WAIT_FILE"))
                for (int k = 0; k < 3000 && std::filesystem::exists(hold); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
            gi::worker::Ready ready;
            ready.device = fake_gpu_name();
            ready.compute_capability = 90;
            // GI_FAKE_GPU_MEMORY: the GPU's memory in bytes (80 GiB otherwise).
            ready.memory_bytes = std::getenv("GI_FAKE_GPU_MEMORY") ? std::stoull(std::getenv("GI_FAKE_GPU_MEMORY")) : 85899345920ull;
            ready.devices = fake_gpu_count();
            ready.ordinal = fake_gpu_ordinal();
            if (ready.ordinal >= ready.devices) {
                write_message(1, to_message(ErrorReply{"selecting GPU " + std::to_string(ready.ordinal) + " (GI_WORKER_DEVICE) of the " +
                                                       std::to_string(ready.devices) + " this driver sees: invalid device ordinal"}));
                continue;
            }
            // Logged only where a test pretends several GPUs: other tests count the log's lines.
            if (std::getenv("GI_FAKE_GPUS")) log("hello", std::to_string(ready.ordinal), ready.device);
            // Started by srun (tests/slurm/run_slurm_test.sh): the job it runs in.
            if (const char* job = std::getenv("SLURM_JOB_ID")) log("slurm-job", job);
            write_message(1, to_message(ready));
        } else if (m->type == "load-case") {
            // Read as gi-worker reads them (worker/case_messages.hpp).
            const gi::worker::LoadCase load = gi::worker::load_case_from(*m);
            const std::optional<std::filesystem::path> path = store.locate(load, shared_folder);
            if (!path) {
                log("case-missing", slot);
                write_message(1, gi::worker::case_missing_message(load.slot, load.sha256));
                continue;
            }
            if (*path != load.path) log("case-from-store", slot);
            Case c{gi::read_test_case(*path, gi::CaseLoad::ManifestOnly), false, {}};
            c.write_sets.resize(c.tc.buffers.size());
            gi::worker::CaseLoaded ok;
            ok.slot = load.slot;
            if (!load.reference_file.empty() && !shared_folder) {
                ok.reference = "rejected";
                ok.reference_error = "cannot open " + load.reference_file + " on this node";
            } else if (!load.reference_file.empty()) {
                try {
                    const ReferenceOutputs ref = read_reference_file(load.reference_file, load.reference_sha256, c.tc.path,
                                                                     load.original_sha256, sizes_of(c.tc));
                    c.write_sets = gi::write_sets_from_text(ref.poisonable, c.tc.buffers);
                    c.referenced = true;
                    ok.reference = "loaded";
                    ok.poisonable = ref.poisonable;
                    log("reference-loaded", slot);
                } catch (const std::exception& e) {
                    ok.reference = "rejected";
                    ok.reference_error = e.what();
                    log("reference-rejected", slot);
                }
            }
            cases[slot] = std::move(c);
            write_message(1, to_message(ok));
        } else if (m->type == "put-case") {
            const Message stored = store.put(*m);
            log(stored.type, "-", m->get("sha256"));
            write_message(1, stored);
        } else if (m->type == "check-variants") {
            // A long-lived sanitizer session's request (cuda/sanitizer_sessions.hpp): a list that
            // holds the 1024-thread launch gets a report in the fake sanitizer's log.
            // With guard zones (the gate's first check, no sanitizer), the 512-thread launch writes
            // into them.
            const gi::worker::CheckVariants request = gi::worker::check_variants_from(*m);
            // GI_FAKE_GUARD_CASE_FAILS: a guard-zones worker cannot open its case (as when the GPU
            // has no memory left for it).
            if (request.guard_bytes > 0 && std::getenv("GI_FAKE_GUARD_CASE_FAILS")) {
                write_message(1, to_message(ErrorReply{"not enough GPU memory for one working copy of case " + request.case_path}));
                continue;
            }
            std::ifstream list(request.variants_file);
            int count = 0;
            bool report = false, outside = false;
            for (std::string line; std::getline(list, line);) {
                count += !line.empty();
                report |= line.find("1024") != std::string::npos;
                outside |= request.guard_bytes > 0 && line.find("\t512,") != std::string::npos;
            }

            // GI_FAKE_FAULT_CASE: those launches misbehave only on the case of that folder name (one
            // launch of a recording of several).
            if (const char* only = std::getenv("GI_FAKE_FAULT_CASE");
                only && std::filesystem::path(request.case_path).filename().string() != only)
                report = outside = false;
            // GI_FAKE_CHECK_FAILS_SILENTLY: that launch fails with nothing in the log instead, as a
            // kernel that traps does.
            const bool silent = std::getenv("GI_FAKE_CHECK_FAILS_SILENTLY") != nullptr;
            const char* sanitizer_log = std::getenv("GI_FAKE_SANITIZER_LOG");
            // GI_FAKE_REPORT_TOOL: only a session of that checker (GI_FAKE_SANITIZER_TOOL, set by
            // the test's fake compute-sanitizer) reports on the 1024-thread launch.
            const char* report_tool = std::getenv("GI_FAKE_REPORT_TOOL");
            const char* session_tool = std::getenv("GI_FAKE_SANITIZER_TOOL");
            if (report_tool && (!session_tool || std::string(report_tool) != session_tool)) report = false;
            if (request.side_by_side > 1)
                log("side-by-side", session_tool ? session_tool : "-", std::to_string(count) + ":" + std::to_string(request.side_by_side));
            if (report && sanitizer_log && !silent)
                std::ofstream(sanitizer_log, std::ios::app) << "========= Invalid __global__ read of size 4 bytes\n";
            // Logged with the folder of its case (gate-cases or cases) and the variants it ran.
            log("check-variants", std::filesystem::path(request.case_path).parent_path().filename().string(), std::to_string(count));
            gi::worker::Checked checked;
            checked.ran = static_cast<std::uint64_t>(count);
            // With guard pages, the launch memcheck reports on (a read past a buffer's end) faults
            // at the unmapped page instead, and the worker, its context lost, exits.
            const bool faulted = report && request.guard_pages && request.guard_bytes > 0 && !silent;
            if (report && silent) {
                checked.ran = 0;
                checked.error = "variant 1: the kernel failed: CUDA_ERROR_LAUNCH_FAILED";
            } else if (faulted) {
                checked.ran = 0;
                checked.error = "variant 1: the kernel failed: CUDA_ERROR_ILLEGAL_ADDRESS";
                // GI_FAKE_FAULT_MS: the fault takes that long to come back, as on the H200 (about
                // 0.2 s); logged when it has.
                if (const char* ms = std::getenv("GI_FAKE_FAULT_MS")) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
                    log("fault-done", std::filesystem::path(request.case_path).filename().string());
                }
            } else if (outside) {
                // GI_FAKE_GUARD_HARMS: the write also changed the worker's own copies; it exits.
                checked.kept = std::getenv("GI_FAKE_GUARD_HARMS") == nullptr;
                checked.ran = 0;
                checked.error = "variant 1 wrote outside its buffers";
                checked.outside = "buffer 1 (output, kernel argument 0): 64 of the " + std::to_string(request.guard_bytes) +
                                  " bytes after its end changed (from 1 to 64 bytes past the end)";
            }
            checked.load_ms = 2.0 * static_cast<double>(count);  // what the gate's note adds up
            write_message(1, to_message(checked));
            if ((outside && !checked.kept) || faulted) return 0;
        } else if (m->type == "unload-case") {
            cases.erase(slot);
            write_message(1, case_unloaded_message(std::stoi(slot)));
        } else if (m->type == "run") {
            auto it = cases.find(slot);
            if (it == cases.end()) {
                write_message(1, to_message(ErrorReply{"no case loaded in slot " + slot}));
                continue;
            }
            Case& c = it->second;
            // Read as gi-worker reads it, so every test through this fake checks the request's shape.
            const gi::worker::RunSpec spec = gi::worker::run_spec_from(*m);
            gi::worker::RunResult result;
            result.elements = 100;
            // GI_FAKE_TIME_MS: the kernel's time (1 ms unless set); the request's launches per timed
            // repetition are reported back, as gi-worker does for a case it may batch.
            const double time_ms =
                (std::getenv("GI_FAKE_TIME_MS") ? std::atof(std::getenv("GI_FAKE_TIME_MS")) : 1.0) * fake_gpu_slowdown();
            result.times_ms = {time_ms, time_ms, time_ms};
            // GI_FAKE_ORIGINAL_TIMES_MS: the original's timed runs in this worker take these times
            // in turn ("3,1": the first 3 ms, every later one 1 ms), as a slow outlier among its
            // timings; each is logged as "original-timed <slot> <ms>".
            if (spec.role == "original" && spec.time) {
                double original_ms = time_ms;
                if (const char* times = std::getenv("GI_FAKE_ORIGINAL_TIMES_MS")) {
                    std::vector<double> listed;
                    for (const char* p = times; *p;) {
                        char* end = nullptr;
                        listed.push_back(std::strtod(p, &end));
                        p = *end == ',' ? end + 1 : end + std::strlen(end);
                    }
                    if (!listed.empty())
                        original_ms = listed[std::min<std::size_t>(static_cast<std::size_t>(originals_timed), listed.size() - 1)] *
                                      fake_gpu_slowdown();
                }
                ++originals_timed;
                // GI_FAKE_ORIGINAL_CRASHES_AT=N: this worker's N-th timed run of the original
                // crashes it, as a lost worker would (every new worker counts from 1 again).
                if (const char* at = std::getenv("GI_FAKE_ORIGINAL_CRASHES_AT"); at && originals_timed == std::atol(at)) {
                    log("original-crash", slot);
                    std::abort();
                }
                result.times_ms = {original_ms, original_ms, original_ms};
                log("original-timed", slot, std::to_string(original_ms));
            }
            result.launches_per_time = spec.launches_per_time;
            for (std::size_t b = 0; b < c.tc.buffers.size() && b < c.write_sets.size(); ++b)
                if (!c.tc.buffers[b].read_only && gi::restores_each_launch(c.write_sets[b], c.tc.buffers[b].changed))
                    result.launches_per_time = 1;
            if (spec.launches_per_time > 1) log("batched", slot, spec.role + ":" + std::to_string(spec.launches_per_time));
            const std::string oracle = std::getenv("GI_FAKE_ORACLE") ? std::getenv("GI_FAKE_ORACLE") : "";
            if (spec.role == "original") {
                if (!c.referenced) {
                    // GI_FAKE_PROBE_CRASH: probing crashes the original, as poison in a writable buffer
                    // it reads as indexes would: "unchanged", probing a buffer the launch left as it
                    // was; "any", probing at all.
                    if (const char* crash = std::getenv("GI_FAKE_PROBE_CRASH"); crash && spec.probe_poison && spec.poisonable.empty()) {
                        const bool unchanged = spec.probe_unchanged && has_unchanged_writable(c.tc);
                        if (std::string(crash) == "any" || unchanged) {
                            log("probe-crash", slot);
                            std::abort();
                        }
                    }
                    // GI_FAKE_PROBE_HANG=<slot>: probing a buffer the launch left as it was hangs the
                    // original of that case, as poison read as a loop count would; "probing" is said first, as
                    // gi-worker says it, with a plain run of 1 ms and 4 probe launches.
                    if (const char* hang = std::getenv("GI_FAKE_PROBE_HANG"); hang && slot == hang && spec.probe_poison &&
                        spec.poisonable.empty() && spec.probe_unchanged && spec.announce_probe && has_unchanged_writable(c.tc)) {
                        write_message(1, Message{"probing", {{"original-ms", "1"}, {"launches", "4"}, {"bytes", "4096"}}, {}});
                        log("probe-hang", slot);
                        for (;;) std::this_thread::sleep_for(std::chrono::seconds(60));
                    }
                    c.referenced = true;
                    c.write_sets = spec.poisonable.empty() ? fake_probe(c.tc, spec) : gi::write_sets_from_text(spec.poisonable, c.tc.buffers);
                    result.poisonable = gi::write_sets_text(c.write_sets);
                    log("original-computed", slot, result.poisonable);
                    if (oracle == "differs" && slot == "0") {
                        result.mismatches = 7;
                        result.worst = 0.5;
                        result.detail = "buffer 0 (output, kernel argument 0): 7 of 100 elements differ, first at 3";
                    }
                    if (!spec.reference_out.empty()) {
                        ReferenceOutputs ref{c.tc.path, gi::sha256_hex(spec.payload), result.poisonable, {}};
                        for (const auto& b : c.tc.buffers) ref.outputs.push_back(b.read_only ? gi::Bytes{} : gi::Bytes(b.size, 0x5a));
                        result.reference_sha256 = write_reference_file(spec.reference_out, ref);
                        result.reference_file = spec.reference_out;
                        log("reference-written", slot, spec.reference_out);
                    }
                }
                write_message(1, to_message(result));
                continue;
            }
            if (!c.referenced) {
                write_message(1, to_message(ErrorReply{"a variant was sent before the original ran"}));
                continue;
            }
            const long long guard_bytes = static_cast<long long>(spec.guard_bytes);
            if (guard_bytes > 0) {
                const std::string guarded = spec.payload.substr(0, static_cast<std::size_t>(guard_bytes));
                const std::string plain = spec.payload.substr(static_cast<std::size_t>(guard_bytes));
                const bool well_formed = guarded.rfind("\x7f" "ELF", 0) == 0 && plain.rfind("\x7f" "ELF", 0) == 0 &&
                                         guarded.find("gi_loop_clock") != std::string::npos &&
                                         plain.find("gi_loop_clock") == std::string::npos;
                log(well_formed ? "guarded" : "guard-malformed", slot, std::to_string(spec.guard_budget_us));
            }
            const bool paired = spec.guard_paired;
            if (paired) {
                // One cubin: the plain scale kernel, its gi_guarded:: copy and the guard's clock kernel.
                const std::string& cubin = spec.payload;
                const bool well_formed = guard_bytes == 0 && cubin.rfind("\x7f" "ELF", 0) == 0 &&
                                         cubin.find("gi_loop_clock") != std::string::npos &&
                                         cubin.find("_ZN10gi_guarded5scale") != std::string::npos &&
                                         cubin.find("_Z5scale") != std::string::npos;
                log(well_formed ? "paired" : "paired-malformed", slot, std::to_string(spec.guard_budget_us));
            }
            const bool guarded_run = guard_bytes > 0 || paired;
            if (spec.role == "rerun" && (oracle == "moves" || oracle == "moves-beyond" || (oracle == "moves-in-2" && slot == "2"))) {
                result.worst = 0.002;
                result.error = 0.0001;
                if (oracle == "moves-beyond") {
                    result.mismatches = 3;
                    result.detail = "buffer 0 (output, kernel argument 0): 3 of 100 elements differ, first at 9";
                }
            }
            result.loop_guard = guarded_run ? "used" : "none";
            gi::worker::RunStages& stages = result.stages.emplace();
            stages.load_ms = 0.5;
            stages.check_ms = 1;
            stages.compare_ms = 2;
            stages.timed_ms = 3;
            stages.integrity_ms = 0.25;
            // GI_FAKE_CRASH_BEFORE_STARTED=BLOCK: a variant of that block aborts its worker before
            // "started", as one that crashes it while its module loads.
            if (const char* crash = std::getenv("GI_FAKE_CRASH_BEFORE_STARTED");
                crash && spec.role == "variant" && spec.block && gi::to_string(*spec.block).rfind(std::string(crash) + ",", 0) == 0) {
                log("crash-before-started", slot);
                std::abort();
            }
            // GI_FAKE_PAUSE_MS: a variant's run (and the original's rerun once the file
            // GI_FAKE_PAUSE_RERUNS names exists) waits this long before "started" (logged as
            // "pausing"), so a test's launcher can lose its worker in the middle of a request.
            const char* pause_reruns = std::getenv("GI_FAKE_PAUSE_RERUNS");
            const bool pause_rerun = spec.role == "rerun" && pause_reruns && std::filesystem::exists(pause_reruns);
            if (const char* pause = std::getenv("GI_FAKE_PAUSE_MS"); pause && (spec.role == "variant" || pause_rerun)) {
                log("pausing", slot);
                std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(pause)));
            }
            write_message(1, {"started", {}, {}});
            const std::string block = spec.block ? gi::to_string(*spec.block) : "";
            // The oracle gate's second replay of the original is a run like a variant's.
            log(spec.role == "rerun" ? "rerun" : "variant", slot, block);
            // A template instantiation named by the request ("scale<3>"): logged with whether the
            // module holds it (its mangled integer argument, "ILi3E").
            if (const std::string kernel = spec.kernel; kernel.find('<') != std::string::npos) {
                const std::string argument = kernel.substr(kernel.find('<') + 1, kernel.find('>') - kernel.find('<') - 1);
                const bool held = spec.payload.find("ILi" + argument + "E") != std::string::npos;
                log("kernel", slot, kernel + (held ? ":in-module" : ":missing"));
            }
            if (block.rfind("32,", 0) == 0) {
                write_message(1, {"checked", {}, {}});
                result.outcome = "corrupted";
                result.sticky = true;
                result.times_ms.clear();
                result.detail = "wrote outside its buffers: the worker's working copy 1 of buffer 1 (read-only "
                                          "input, kernel argument 1) changed during the run (12 of 16384 bytes differ, the "
                                          "first at byte 0)";
                write_message(1, to_message(result));
                return 0;
            }
            if (block.rfind("64,", 0) == 0) {
                if (!guarded_run) {
                    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
                }
                write_message(1, {"checked", {}, {}});
                result.outcome = "loop-overrun";
                result.detail = "a loop was still running " + std::to_string(spec.guard_budget_us) +
                                          " us after the kernel started; the loop guard stopped it";
                write_message(1, to_message(result));
                continue;
            }
            if (block.rfind("512,", 0) == 0) {
                for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
            }
            if (block.rfind("128,", 0) == 0) std::abort();
            if (block.rfind("96,", 0) == 0) {
                gi::worker::RunResult nothing = fake_writes_nothing(c.tc, c.write_sets);
                nothing.loop_guard = result.loop_guard;
                nothing.stages = result.stages;
                if (!nothing.hard_failure) nothing.times_ms = result.times_ms;
                write_message(1, {"checked", {}, {}});
                write_message(1, to_message(nothing));
                continue;
            }
            // GI_FAKE_SEPARATE_GUARD_DIFFERS: a separate guarded build's check gives other outputs (as a
            // fast-compiled one might, rounding floats otherwise).
            if (guard_bytes > 0 && std::getenv("GI_FAKE_SEPARATE_GUARD_DIFFERS")) {
                result.mismatches = 2;
                result.worst = 0.25;
                result.error = 0.01;
                result.hard_failure = true;
                result.times_ms.clear();
                result.detail = "buffer 0 (output, kernel argument 0): 2 of 100 elements differ, first at 5";
            }
            write_message(1, {"checked", {}, {}});
            write_message(1, to_message(result));
        } else {
            write_message(1, to_message(ErrorReply{"unknown request '" + m->type + "'"}));
        }
    }
    return 0;
}

int run_fake_worker(const std::string& mode) {
    using namespace gi::worker;
    if (mode == "exit") return 3;
    if (mode == "replay") {
        try {
            return run_fake_replay();
        } catch (const std::exception& e) {
            std::cerr << "fake worker: " << e.what() << std::endl;
            return 1;
        }
    }
    MessageReader reader;
    try {
        while (auto request = read_message(0, reader)) {
            if (request->type == "quit") return 0;
            if (mode == "hang") {
                for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
            }
            if (mode == "crash") {
                std::cerr << "fake worker: crashing on a '" << request->type << "' request" << std::endl;
                std::abort();
            }
            if (mode == "garbage") {
                const char junk[] = "this is not a frame at all....";
                if (::write(1, junk, sizeof junk) < 0) return 1;
                continue;
            }
            Message reply{"echo", request->fields, request->payload};
            reply.fields["request-type"] = request->type;
            reply.fields["payload-bytes"] = std::to_string(request->payload.size());
            if (mode == "sticky") {
                reply = Message{"result", {{"outcome", "fault"}, {"sticky", "1"}, {"detail", "illegal address"}}, {}};
                write_message(1, reply);
                return 0;
            }
            write_message(1, reply);
        }
    } catch (const std::exception& e) {
        std::cerr << "fake worker: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

const int fake_worker_exit = [] {
    const char* mode = std::getenv("GI_FAKE_WORKER");
    if (mode == nullptr) return 0;
    std::_Exit(run_fake_worker(mode));
}();

}  // namespace
