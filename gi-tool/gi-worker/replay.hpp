#pragma once
// gi-worker's replay of one recorded case: the case's buffers live on the GPU as a pristine copy
// plus several working copies (rotated between timed repetitions so caches do not flatter), the
// original kernel's outputs are the reference, and every variant is checked against them.
#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare/write_set.hpp"
#include "device_compare.hpp"
#include "guard_pages.hpp"
#include "testcase/test_case.hpp"

namespace gi::worker {

struct LaunchShape {
    Dim3 grid, block;
    unsigned shared_bytes = 0;
};

// Where one loaded module keeps the case's module variables: per case buffer, the variable's
// address in that module and how many bytes it has there (0 where the buffer is no variable, or
// the module does not define it: its code cannot read it then). Each variant's module has its
// own copy of every variable, so the recorded bytes are copied in before each launch and, for
// variables the kernel may write, out into the working copy after it.
struct VariablePlace {
    CUdeviceptr address = 0;
    std::size_t bytes = 0;
};
using VariablePlaces = std::vector<VariablePlace>;

// The loop-guarded build of a variant (variant/loop_guard.hpp), loaded beside the plain one. Its
// check run stops any loop still running `budget_ns` after the launch; it is never timed.
struct LoopGuard {
    CUfunction kernel = nullptr;     // the variant, guarded
    CUfunction clock = nullptr;      // gi_loop_clock: reads %globaltimer, re-arms the overrun flag
    CUdeviceptr deadline = 0;        // gi_loop_deadline_ns (__constant__)
    CUdeviceptr overrun = 0;         // gi_loop_overrun
    std::uint64_t budget_ns = 0;
    VariablePlaces variables;        // the case's module variables in the guarded build
};

// Wall time of a variant's request by stage, so the run time per variant can be explained.
// Wall milliseconds between two instants, or since one: the unit of every stage time below.
inline double ms_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}
inline double ms_since(std::chrono::steady_clock::time_point from) { return ms_between(from, std::chrono::steady_clock::now()); }

struct StageTimes {
    double load_ms = 0;     // loading the module(s) (main.cpp)
    double check_ms = 0;    // restoring the poisoned case, arming the guard, the check launch
    double compare_ms = 0;  // downloading outputs and comparing them with the reference
    double timed_ms = 0;    // warm-ups and timed repetitions
    double integrity_ms = 0; // checking the worker's own copies of the case(s) afterwards (main.cpp)
};

struct RunRequest {
    bool original = false;      // the first time: establishes the reference (and which outputs to poison);
                                // later: timing only
    // Original only: learn each writable buffer's write set (compare/write_set.hpp) by running the
    // original on it poisoned; with !probe_unchanged only buffers the recorded launch changed (a
    // retry after probing the others crashed it).
    bool probe_poison = true;
    bool probe_unchanged = true;
    bool announce_probe = false;  // original only: call progress("probing") before probing
    std::string poisonable;     // original only: the write sets as learnt before (write_sets_text): no probe
    LaunchShape shape;
    int warmups = 2;
    int repetitions = 10;
    // Launches back to back per timed repetition, reported as their mean: for short kernels, so the
    // timing events' resolution is a smaller share. Single launches where the original updates a
    // buffer or module variable in place (a second launch would start from other data).
    int launches_per_time = 1;
    bool time = true;
    // Variant only: check with this build, then time the plain one and compare its outputs too.
    const LoopGuard* guard = nullptr;
    VariablePlaces variables;   // the case's module variables in the plain build (empty: none)
};

struct RunReport {
    // LoopOverrun: the guarded check run ended because a loop passed its deadline (the context
    // is fine, the worker stays). OutOfBounds: the shared-memory guard kept an access inside its
    // array (variant/shared_guard.hpp), where the plain build would fault. Corrupted: the variant changed the worker's own copies of a case
    // (it wrote past its buffers into a neighbouring allocation without faulting); the worker must
    // be replaced, or every later variant would be judged and timed on damaged data.
    enum class Outcome { Ok, LoadError, LaunchError, Fault, LoopOverrun, OutOfBounds, Corrupted } outcome = Outcome::Ok;
    std::string cuda_error;       // CUDA_ERROR_... name when not Ok
    std::string detail;
    bool sticky = false;          // the context is unusable: the worker must exit
    ErrorSummary comparison;      // variant vs reference (original: reference vs recorded oracle)
    std::vector<double> times_ms; // timed repetitions (each the mean of launches_per_time launches)
    int launches_per_time = 1;    // what the timing used (RunRequest's, or 1)
    std::string poisonable;       // original: the write sets, per buffer (write_sets_text)
    StageTimes stages;
    // Output buffers the comparisons found equal to the original's on the GPU (nothing copied to
    // the host), and those copied to the host and compared there (they differed, or the buffer has
    // no copy of the reference on the GPU).
    int compared_on_gpu = 0;
    int compared_on_host = 0;
    // The worker's own buffers its integrity check found intact on the GPU, and those it read back
    // (main.cpp's check_integrity fills these).
    int integrity_on_gpu = 0;
    int integrity_on_host = 0;
};

// Host memory for reading a buffer back, page-locked when the driver gives it (copies into it run
// at the link's speed, about twice that into pageable memory), plain otherwise. Kept for reuse.
class HostStaging {
public:
    HostStaging() = default;
    ~HostStaging();
    HostStaging(const HostStaging&) = delete;
    HostStaging& operator=(const HostStaging&) = delete;
    HostStaging(HostStaging&& other) noexcept;
    HostStaging& operator=(HostStaging&&) = delete;
    unsigned char* get(std::size_t bytes);  // at least `bytes`; contents undefined

private:
    void* pinned_ = nullptr;
    std::size_t size_ = 0;
    Bytes plain_;
};

class Replay {
public:
    // Copies the case to the GPU (pristine + working copies, as many as fit the budget; with
    // `l2_bytes` 0, for single launches, one).
    // `tolerances` has one entry per buffer. With `device_compare`, outputs are first compared
    // with a copy of the reference on the GPU (device_compare.hpp); without, on the host.
    // Throws CudaError / gi::Error.
    // With `guard_bytes`, every buffer of the working copies gets guard zones of that many bytes
    // before and after it, filled with kGuardByte (guard_damage() reads them back). With
    // `guard_pages` as well, the zone after each buffer is an unmapped page instead (guard_pages.hpp):
    // a variant that reads or writes past a buffer's end faults with CUDA_ERROR_ILLEGAL_ADDRESS.
    Replay(TestCase tc, std::vector<Tolerance> tolerances, std::size_t l2_bytes, CUstream stream,
           DeviceCompare* device_compare = nullptr, std::size_t guard_bytes = 0, bool guard_pages = false);
    ~Replay();
    Replay(const Replay&) = delete;
    Replay& operator=(const Replay&) = delete;

    // Runs `kernel` as the request says. Never throws for the kernel's own failures: they are in
    // the report. Throws for the worker's own problems (out of memory copying...).
    // For a variant, `progress` is called with "started" just before its check launch and with
    // "checked" once that launch has finished, so the parent can time out a hung kernel after the
    // kernel's own allowance rather than the whole request's.
    // For the original's first run, "probing" is called once the plain run has ended and before its
    // write sets are probed (probe_plan() then says how long that run took and how many launches
    // the probes make), so the parent can time out an original that hangs on poisoned contents (a
    // writable buffer read as a count) after the probes' own allowance.
    RunReport run(CUfunction kernel, const RunRequest& request,
                  const std::function<void(const char*)>& progress = [](const char*) {});

    struct ProbePlan {
        double original_ms = 0;      // the plain run, launch to synchronisation (module loading included)
        int launches = 0;            // launches the probes make at most
        std::uint64_t bytes = 0;     // bytes the probes download and compare, about
    };
    const ProbePlan& probe_plan() const { return probe_plan_; }

    bool has_reference() const { return has_reference_; }
    // The reference outputs (per buffer, empty for read-only ones) and their sizes, for handing
    // them to other workers; and taking over such a hand-over instead of running the original.
    // adopt_reference throws gi::Error when the outputs or the write sets do not fit this case.
    const std::vector<Bytes>& reference() const { return reference_; }
    std::vector<std::uint64_t> writable_sizes() const;
    void adopt_reference(std::vector<Bytes> outputs, const std::string& poisonable);
    int copies() const { return static_cast<int>(copies_.size()); }
    std::size_t device_bytes() const;
    const TestCase& test_case() const { return tc_; }

    // Whether the worker's own copies of the case still hold what they must: the pristine buffers
    // and the poison images byte for byte as uploaded, and the read-only buffers of every working
    // copy equal to the pristine ones (writable ones are restored before each use, so a change to
    // them harms nobody). Returns "" when intact, else what changed and where. Waits for the
    // stream first. Throws CudaError when the buffers cannot be read back.
    // Unless `everything`, buffers of kLargeBuffer bytes or more are skipped once the case holds
    // more than kFullCheckBytes to check (replay.cpp says why), except where the check is made on
    // the GPU: against golden copies kept there (with a DeviceCompare, where memory allows), every
    // buffer is checked every time and only a changed one is read back, to say what changed.
    std::string damage(bool everything = true);
    // Of damage()'s buffers, how many the last call checked on the GPU and how many on the host.
    int damage_checked_on_gpu() const { return damage_on_gpu_; }
    int damage_checked_on_host() const { return damage_on_host_; }
    static constexpr std::size_t kFullCheckBytes = 64u << 20;
    static constexpr std::size_t kLargeBuffer = 4u << 20;

    // One plain launch on working copy 0 (compute-sanitizer's run). Returns the launch result.
    CUresult launch_once(CUfunction kernel, const LaunchShape& shape, const VariablePlaces& variables = {});
    // The same, queued on the replay's stream without waiting for it (side_by_side.hpp waits for
    // several at once). Returns the launch's result.
    CUresult start_once(CUfunction kernel, const LaunchShape& shape, const VariablePlaces& variables = {});

    // Where the last launch wrote into working copy 0's guard zones: "" when they all still hold
    // kGuardByte (or the replay has none), else each changed zone's buffer, side and bytes. A write
    // there is outside the recorded allocation, which in the program is memory the kernel does not
    // own (compute-sanitizer's memcheck reports it when it lands outside every allocation). Changed
    // zones are refilled. Throws CudaError when a zone cannot be read back or refilled.
    std::string guard_damage();
    std::size_t guard_bytes() const { return guard_; }
    bool guard_pages() const { return paged_ != nullptr; }
    static constexpr unsigned char kGuardByte = 0xA5;

private:
    // A working copy's buffer (`bytes` of it between guard zones, when there are any), or 0 when
    // memory does not allow; free_working() takes what it returned.
    CUdeviceptr allocate_working(std::size_t bytes);
    void free_working(CUdeviceptr p);
    void restore(int copy, bool poison_outputs);
    bool can_poison(std::size_t buffer) const;
    // The original's first run, after the reference: each probed buffer's write set from two runs
    // on it poisoned, then verified by one run from every buffer's poisoned image (give_up_unverified
    // where that does not reproduce the reference). Returns a fault's report when a run fails.
    std::optional<RunReport> probe_write_sets(CUfunction kernel, const RunRequest& request, std::vector<WriteSet>& sets,
                                              std::string& detail);
    // Takes `sets` as the case's write sets: the poison images become the recorded contents with
    // each write set poisoned (on the GPU, on the host for damage(), and in their golden copies).
    void set_write_sets(std::vector<WriteSet> sets);
    // The buffer's recorded content with the elements `set` poisons overwritten: what a variant
    // meets, and what the probe's verification runs the original on.
    Bytes poison_image(std::size_t b, const WriteSet& set) const;
    // Whether variants meet buffer `b` with some elements poisoned (its write set, once learnt).
    bool poisoned(std::size_t b) const { return !write_sets_[b].poisoned.empty(); }
    // Where a writable buffer of `copy` is restored from: its pristine bytes, or (when it holds
    // pointers) its image relocated into that copy.
    CUdeviceptr restore_source(int copy, std::size_t b) const;
    CUresult launch(CUfunction kernel, const LaunchShape& shape, int copy);
    // The copy's module variables into the module, before a launch; the writable ones back, after it.
    void variables_in(int copy, const VariablePlaces& places);
    void variables_out(int copy, const VariablePlaces& places);
    CUresult launch_with(CUfunction kernel, const LaunchShape& shape, int copy, const VariablePlaces& places);
    // Builds each copy's relocated images: pointers held in buffers and struct arguments point
    // into the same copy's buffers.
    void relocate_copies();
    std::vector<Bytes> download_writable(int copy);
    // One writable buffer of `copy` into `out` (its size), its relocated pointers read as recorded.
    void download(int copy, std::size_t b, unsigned char* out);
    RunReport fault(CUresult code, const std::string& when);
    // Counts each output buffer in `report`'s compared_on_gpu or compared_on_host.
    ErrorSummary compare_with_reference(int copy, RunReport& report);
    // The reference's copies on the GPU, for the buffers that can be compared there: those without
    // relocated pointers (their host bytes are rewritten after download), where memory allows.
    void keep_reference_on_device();
    void free_reference_on_device();
    // A device copy of `bytes` bytes at `source`, or 0 when memory does not allow (no error).
    static CUdeviceptr device_copy_or_none(CUdeviceptr source, std::size_t bytes);
    void keep_golden_copies();
    // Reads the GPU clock and sets the guard's deadline to now + budget, before the check launch.
    void arm(const LoopGuard& guard);
    static unsigned compare_threads();
    unsigned int overrun_flag(const LoopGuard& guard);  // 0, 1 (a loop stopped), kBarrierOverrun, kBarrierSplitWarp or kSharedOutOfBounds

    TestCase tc_;
    std::vector<Tolerance> tolerances_;
    CUstream stream_;
    std::vector<CUdeviceptr> pristine_;            // per buffer
    std::vector<CUdeviceptr> poison_;              // per buffer (0 for read-only ones)
    std::vector<std::vector<CUdeviceptr>> copies_;  // [copy][buffer]
    std::size_t guard_ = 0;                        // guard zone bytes on each side of a working buffer
    std::unique_ptr<GuardPagedMemory> paged_;      // with guard pages: where the working copies live
    // What the pristine buffers and poison images must hold, for damage(): the uploaded bytes,
    // kept on the host (a memcmp is cheaper than hashing what is read back).
    std::vector<Bytes> pristine_host_;             // per buffer
    std::vector<Bytes> poison_host_;               // per buffer (empty for read-only ones)
    // Buffers and arguments holding device pointers (EmbeddedPointer), per copy: the bytes with the
    // pointers relocated into that copy ([copy][buffer] empty for buffers holding none), and for
    // writable ones a device image to restore from ([copy][buffer], 0 otherwise).
    std::vector<std::vector<Bytes>> relocated_host_;
    std::vector<std::vector<CUdeviceptr>> relocated_;
    std::vector<std::vector<Bytes>> relocated_args_;  // [copy][argument], empty for arguments holding none
    Bytes readback_;                               // damage()'s download buffer, reused
    // Device copies of the pristine buffers and of the poison images that damage() compares the
    // worker's own with on the GPU (0 where there is none: compared with the host bytes).
    std::vector<CUdeviceptr> golden_, golden_poison_;
    int damage_on_gpu_ = 0, damage_on_host_ = 0;
    bool check_large_ = true;                      // damage() also checks large buffers
    std::vector<WriteSet> write_sets_;             // per buffer (unknown for read-only ones)
    std::vector<bool> restore_each_;               // buffers restored before every timed launch
    std::vector<Bytes> reference_;                 // the original's outputs (writable buffers)
    DeviceCompare* device_compare_ = nullptr;      // the worker's, or none: compare on the host
    std::vector<CUdeviceptr> reference_device_;    // per buffer, 0 where compared on the host
    // Per buffer, compare_buffer's result for outputs equal to the reference byte for byte (which
    // is not always "no mismatch": a NaN never equals), computed once from the reference itself.
    std::vector<BufferComparison> identical_;
    std::vector<HostStaging> downloaded_;          // outputs read back for a host comparison, per buffer
    bool has_reference_ = false;
    ProbePlan probe_plan_;
    CUdeviceptr clock_ = 0;                        // gi_loop_clock's output (allocated on first use)
    unsigned long long clock_host_[2] = {0, 0};
    unsigned long long deadline_host_ = 0;
};

}  // namespace gi::worker
