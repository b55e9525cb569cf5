// GPU tests of gi-worker through the protocol (skip without a GPU): the replay of a recorded case,
// and every fault the issue names ending as a classified failure within its timeout, with the
// next variant evaluated normally afterwards.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <fstream>

#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_classify.hpp"
#include "cuda/sanitizer_sessions.hpp"
#include "../support/gpu_fixture.hpp"
#include "testcase/case_io.hpp"
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include "variant/hang_guard.hpp"
#include "variant/loop_guard.hpp"
#include "variant/paired_build.hpp"
#include "worker/run_result.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace {

using namespace std::chrono_literals;
using gpu_test::TempFolder;
using worker::Message;

constexpr int kN = 1 << 20;

const char* kOriginal = R"(
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
)";

std::string variant(const std::string& body, const std::string& prelude = "") {
    return prelude + "\n__global__ void scale(float* out, const float* in, int n) {\n"
                     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n" + body + "\n}\n";
}

std::string cubin_of(const std::string& source, std::vector<std::string> options = {}) {
    DeviceCompileRequest r;
    r.source = source;
    r.options = std::move(options);
    r.arch = "sm_90";
    const DeviceCompileResult out = compile_with_nvrtc(r);
    EXPECT_TRUE(out.ok) << out.log;
    return out.cubin;
}

class GpuWorker : public ::testing::Test {
public:  // for the helpers that run a test both ways
    void SetUp() override {
        GI_REQUIRE_GPU();
        if (!nvrtc_available()) GTEST_SKIP() << "no NVRTC in this build";
        case_dir_ = write_test_case(gpu_test::scale_case(kN), folder_.path());
        start();
    }

    void start() {
        ++starts_;
        worker_ = std::make_unique<worker::WorkerProcess>(worker::WorkerOptions{gpu_test::worker_path(), {}, {}, {}});
        ASSERT_EQ(worker_->request({"hello", {}, {}}, 60s).type, "ready");
        const Message loaded = worker_->request({"load-case", {{"slot", "0"}, {"path", case_dir_.string()}}, {}}, 60s);
        ASSERT_EQ(loaded.type, "case-loaded") << loaded.get("message");
        const Message original = worker_->request(run("original", cubin_of(kOriginal)), 60s);
        const RunVerdict v = classify_run_reply(original);
        ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
        ASSERT_EQ(v.mismatches, 0u) << "the original must reproduce the recorded outputs";
    }

    Message run(const std::string& role, const std::string& cubin, std::map<std::string, std::string> extra = {}) {
        Message m{"run", {{"slot", "0"}, {"role", role}, {"kernel", "scale"}, {"warmups", "2"}, {"repetitions", "10"}}, cubin};
        for (auto& [k, v] : extra) m.fields[k] = v;
        return m;
    }

    // Runs a variant the way the evaluator does: a worker failure is a verdict, and the worker is
    // replaced before the next request.
    RunVerdict evaluate(const std::string& cubin, std::chrono::milliseconds timeout = 5s,
                        std::map<std::string, std::string> extra = {}) {
        if (!worker_->running()) start();
        RunVerdict v;
        try {
            worker_->send(run("variant", cubin, extra), timeout);
            Message reply = worker_->receive("run", timeout);
            while (reply.type == "started" || reply.type == "checked") reply = worker_->receive("run", timeout);
            v = classify_run_reply(reply);
        } catch (const worker::WorkerFailure& e) {
            v = classify_worker_failure(e);
        }
        if (v.restart_worker) worker_->kill();
        return v;
    }

    // A run with the guarded build of `source` (loops and barriers) in front of the plain build of
    // `plain` (`source` when empty), as the evaluator sends it.
    RunVerdict evaluate_guarded(const std::string& source, const std::string& plain = "",
                                std::map<std::string, std::string> extra = {}) {
        const LoopGuardResult g = guard_hangs(source);
        EXPECT_TRUE(g.any());
        const std::string guarded_cubin = cubin_of(g.source);
        extra["guard-bytes"] = std::to_string(guarded_cubin.size());
        extra["guard-budget-us"] = "20000";
        return evaluate(guarded_cubin + cubin_of(plain.empty() ? source : plain), 3s, extra);
    }

    // A run with one cubin holding the plain build of `plain` (`source` when empty) and the guarded
    // build of `source` as gi_guarded::scale, as the evaluator sends a paired build
    // (variant/paired_build.hpp; its text, with the two copies allowed to differ).
    RunVerdict evaluate_paired(const std::string& source, const std::string& plain = "",
                               std::map<std::string, std::string> extra = {}) {
        const LoopGuardResult g = guard_hangs(source);
        EXPECT_TRUE(g.any());
        const std::string& preamble = loop_guard_preamble();
        const std::string text = plain.empty() ? paired_source(source).source
                                               : preamble + plain + "\nnamespace gi_guarded {\n#line 1\n" +
                                                     g.source.substr(preamble.size()) + "\n}\n";
        extra["guard-paired"] = "1";
        extra["guard-budget-us"] = "20000";
        return evaluate(cubin_of(text), 3s, extra);
    }

    void expect_next_variant_ok() {
        const RunVerdict v = evaluate(cubin_of(variant("if (i < n) out[i] = in[i] + in[i];")));
        EXPECT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
        EXPECT_EQ(v.mismatches, 0u);
    }

    TempFolder folder_;
    std::filesystem::path case_dir_;
    std::unique_ptr<worker::WorkerProcess> worker_;
    int starts_ = 0;
};

// Short kernels are timed in batches of launches (RunSpec::launches_per_time): each repetition is
// the mean of the batch, the outputs are still the kernel's own, and the reply says how many.
TEST_F(GpuWorker, BatchedTimingReportsTheMeanPerLaunch) {
    auto timed = [&](const std::string& launches) {
        worker_->send(run("variant", cubin_of(kOriginal), {{"launches-per-time", launches}}), 10s);
        Message reply = worker_->receive("run", 10s);
        while (reply.type == "started" || reply.type == "checked") reply = worker_->receive("run", 10s);
        return std::make_pair(worker::run_result_from(reply), classify_run_reply(reply));
    };
    const auto [single, single_verdict] = timed("1");
    const auto [batched, batched_verdict] = timed("16");
    ASSERT_EQ(single_verdict.result.status, EvalStatus::Ok) << single_verdict.result.detail;
    ASSERT_EQ(batched_verdict.result.status, EvalStatus::Ok) << batched_verdict.result.detail;
    EXPECT_EQ(batched_verdict.mismatches, 0u);
    EXPECT_EQ(single.launches_per_time, 1);
    EXPECT_EQ(batched.launches_per_time, 16);
    ASSERT_EQ(single.times_ms.size(), 10u);
    ASSERT_EQ(batched.times_ms.size(), 10u);
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    // Per launch, not per batch: back to back, a launch costs about what it costs alone.
    const double ratio = median(batched.times_ms) / median(single.times_ms);
    std::cout << "scale on 1M floats: single launches " << median(single.times_ms) << " ms, batches of 16 "
              << median(batched.times_ms) << " ms a launch\n";
    EXPECT_GT(ratio, 0.2);
    EXPECT_LT(ratio, 2.0);
}

TEST_F(GpuWorker, EquivalentVariantIsOkAndTimed) {
    const RunVerdict v = evaluate(cubin_of(variant("if (i < n) out[i] = in[i] + in[i];")));
    ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_EQ(v.mismatches, 0u);
    EXPECT_EQ(v.elements, static_cast<std::uint64_t>(kN));
    EXPECT_EQ(v.times_ms.size(), 10u);
    for (double t : v.times_ms) EXPECT_GT(t, 0);
}

TEST_F(GpuWorker, WrongValuesGiveAnError) {
    const RunVerdict v = evaluate(cubin_of(variant("if (i < n) out[i] = (i % 1000 == 0) ? 3.0f * in[i] : 2.0f * in[i];")));
    EXPECT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_EQ(v.mismatches, static_cast<std::uint64_t>((kN + 999) / 1000));
    EXPECT_GT(v.result.error, 0);
}

// Outputs equal to the original's byte for byte are judged on the GPU (device_compare.hpp), the
// guarded check's and the timed build's alike; nothing is read back.
TEST_F(GpuWorker, EqualOutputsAreComparedOnTheGpu) {
    const RunVerdict v = evaluate(cubin_of(variant("if (i < n) out[i] = in[i] + in[i];")));
    ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_EQ(v.mismatches, 0u);
    EXPECT_EQ(v.elements, static_cast<std::uint64_t>(kN));
    EXPECT_EQ(v.compared_on_gpu, 1);
    EXPECT_EQ(v.compared_on_host, 0);
    const RunVerdict guarded = evaluate_paired(variant("for (int k = 0; k < 1; ++k) if (i < n) out[i] = in[i] + in[i];"));
    ASSERT_EQ(guarded.result.status, EvalStatus::Ok) << guarded.result.detail;
    EXPECT_EQ(guarded.compared_on_gpu, 2) << "the guarded check and the timed plain build";
    EXPECT_EQ(guarded.compared_on_host, 0);
}

// One differing element anywhere, the bytes past the last whole 16-byte word included, sends the
// buffer to the host comparison, which counts and places it as before.
TEST_F(GpuWorker, ADifferenceInTheLastBytesIsFound) {
    const int n = kN + 3;  // 12 bytes past the last whole 16-byte word
    worker_->kill();
    case_dir_ = write_test_case(gpu_test::scale_case(n), folder_.path() / "odd");
    start();
    for (int at : {0, n / 2 + 1, n - 4, n - 3, n - 1}) {
        const RunVerdict v = evaluate(cubin_of(variant("if (i < n) out[i] = i == " + std::to_string(at) + " ? -1.0f : 2.0f * in[i];")));
        ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
        EXPECT_EQ(v.mismatches, 1u) << "element " << at;
        EXPECT_NE(v.result.detail.find("first at " + std::to_string(at)), std::string::npos) << v.result.detail;
        EXPECT_EQ(v.compared_on_host, 1) << "element " << at;
        EXPECT_EQ(v.compared_on_gpu, 0) << "element " << at;
    }
    const RunVerdict same = evaluate(cubin_of(variant("if (i < n) out[i] = in[i] * 2.0f;")));
    EXPECT_EQ(same.mismatches, 0u);
    EXPECT_EQ(same.compared_on_gpu, 1);
}

TEST_F(GpuWorker, UnwrittenOutputsAreCaughtByPoison) {
    const RunVerdict v = evaluate(cubin_of(variant("if (i < n / 2) out[i] = 2.0f * in[i];")));
    EXPECT_EQ(v.result.status, EvalStatus::WrongAnswer) << v.result.detail;
    EXPECT_NE(v.result.detail.find("unwritten"), std::string::npos) << v.result.detail;
    expect_next_variant_ok();
}

TEST_F(GpuWorker, InfiniteLoopTimesOut) {
    const auto start = std::chrono::steady_clock::now();
    const RunVerdict v = evaluate(cubin_of(variant(
        // Writes inside the loop: a loop without side effects may legally be removed by the compiler.
        "volatile float* o = out; if (i < n) for (;;) { o[i] = 2.0f * in[i]; if (o[i] < 0.0f) break; }")), 3s);
    EXPECT_EQ(v.result.status, EvalStatus::Timeout) << v.result.detail;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
    expect_next_variant_ok();
}

// `paired`: both builds in one module (guard-paired=1), else the guarded one in front (guard-bytes).
void guarded_runaway_loops_end_without_a_restart(GpuWorker& t, bool paired) {
    auto run = [&](const std::string& source) { return paired ? t.evaluate_paired(source) : t.evaluate_guarded(source); };
    const auto start = std::chrono::steady_clock::now();
    for (const char* body : {
             "volatile float* o = out; if (i < n) for (;;) { o[i] = 2.0f * in[i]; if (o[i] < 0.0f) break; }",
             "volatile float* o = out; int c = 0; if (i < n) while (c < 10) { o[i] = 2.0f * in[i]; }",
             "volatile float* o = out; int c = 0; if (i < n) do { o[i] = 2.0f * in[i]; } while (c < 10);"}) {
        const RunVerdict v = run(variant(body));
        EXPECT_EQ(v.result.status, EvalStatus::Timeout) << body << ": " << v.result.detail;
        EXPECT_TRUE(v.loop_overrun) << body;
        EXPECT_NE(v.result.detail.find("the loop guard stopped it"), std::string::npos) << v.result.detail;
        EXPECT_FALSE(v.restart_worker);
        EXPECT_TRUE(t.worker_->running());
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    const RunVerdict next = run(variant("for (int k = 0; k < 1; k++) if (i < n) out[i] = in[i] + in[i];"));
    EXPECT_EQ(next.result.status, EvalStatus::Ok) << next.result.detail;
    EXPECT_EQ(t.starts_, 1) << "the worker was replaced";
}

TEST_F(GpuWorker, GuardedRunawayLoopsEndWithoutARestart) { guarded_runaway_loops_end_without_a_restart(*this, false); }

TEST_F(GpuWorker, PairedRunawayLoopsEndWithoutARestart) { guarded_runaway_loops_end_without_a_restart(*this, true); }

// `paired`: both builds in one module (guard-paired=1), else the guarded one in front (guard-bytes).
void barrier_deadlocks_end_without_a_restart(GpuWorker& t, bool paired) {
    auto run = [&](const std::string& source) { return paired ? t.evaluate_paired(source) : t.evaluate_guarded(source); };
    const auto start = std::chrono::steady_clock::now();
    // A warp split between two barrier sites: undefined for __syncthreads() (bar.sync .aligned),
    // and it hangs on the GPU; the guard sees two sites in one phase.
    RunVerdict v = run(variant("if (threadIdx.x % 32 < 16) __syncthreads(); else __syncthreads();\n"
                               "    if (i < n) out[i] = 2.0f * in[i];"));
    EXPECT_EQ(v.result.status, EvalStatus::Timeout) << v.result.detail;
    EXPECT_TRUE(v.loop_overrun);
    EXPECT_NE(v.result.detail.find("the barrier guard"), std::string::npos) << v.result.detail;
    EXPECT_FALSE(v.restart_worker);
    // Warp 0 passes two barriers, the others one, then wait for warp 0's flag: stuck until the
    // deadline, when the guards let them go (the loop's guard or the barrier's, whichever first).
    v = run(variant("__shared__ volatile int flag; if (threadIdx.x == 0) flag = 0; __syncthreads();\n"
                    "    if (threadIdx.x < 32) { __syncthreads(); flag = 1; } else { while (flag == 0) { } }\n"
                    "    if (i < n) out[i] = 2.0f * in[i];"));
    EXPECT_EQ(v.result.status, EvalStatus::Timeout) << v.result.detail;
    EXPECT_TRUE(v.loop_overrun) << v.result.detail;
    EXPECT_FALSE(v.restart_worker);
    EXPECT_TRUE(t.worker_->running());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    // Threads that leave before a barrier count as arrived, as on the GPU: correct, and timed.
    v = run(variant("if (i >= n) return;\n    float x = in[i];\n    __syncthreads();\n    out[i] = 2.0f * x;\n"
                    "    if (threadIdx.x % 32 < 16) return;\n    __syncthreads();"));
    EXPECT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_EQ(t.starts_, 1) << "the worker was replaced";
}

TEST_F(GpuWorker, GuardedBarrierDeadlocksEndWithoutARestart) { barrier_deadlocks_end_without_a_restart(*this, false); }

TEST_F(GpuWorker, PairedBarrierDeadlocksEndWithoutARestart) { barrier_deadlocks_end_without_a_restart(*this, true); }

// row_filter's killed variants (bench/results/2026-11-26-h200-guard.md): an index that grows
// without bound reads a shared tile far past its end, which faults on the GPU.
const std::string kRunawaySharedRead = variant(
    "__shared__ float tile[256];\n"
    "    tile[threadIdx.x] = i < n ? in[i] : 0.0f;\n"
    "    __syncthreads();\n"
    "    float sum = 0.0f;\n"
    "    for (int k = 0; k < (1 << 30); k += 4096) sum += tile[threadIdx.x + k];\n"
    "    if (i < n) out[i] = 2.0f * in[i] + (sum == 12345.0f ? 1.0f : 0.0f);");

// `paired`: both builds in one module (guard-paired=1), else the guarded one in front (guard-bytes).
void shared_out_of_bounds_ends_without_a_restart(GpuWorker& t, bool paired) {
    auto run = [&](const std::string& source) { return paired ? t.evaluate_paired(source) : t.evaluate_guarded(source); };
    const auto start = std::chrono::steady_clock::now();
    RunVerdict v = run(kRunawaySharedRead);
    EXPECT_EQ(v.result.status, EvalStatus::Crash) << v.result.detail;
    EXPECT_TRUE(v.out_of_bounds) << v.result.detail;
    EXPECT_NE(v.result.detail.find("__shared__ array"), std::string::npos) << v.result.detail;
    EXPECT_FALSE(v.restart_worker);
    EXPECT_TRUE(t.worker_->running());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    // The same tile used within its bounds: correct, and timed.
    v = run(variant("__shared__ float tile[256];\n    tile[threadIdx.x] = i < n ? in[i] : 0.0f;\n    __syncthreads();\n"
                    "    if (i < n) out[i] = 2.0f * tile[threadIdx.x];"));
    EXPECT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_FALSE(v.out_of_bounds);
    EXPECT_EQ(t.starts_, 1) << "the worker was replaced";
}

// row_filter's variant 184 (bench/results/2026-11-26-h200-shared-guard.md): a tile loaded in a loop
// some threads go round once more than others, the barrier moved below an early return no thread
// takes, then each thread reads an element another thread wrote in that extra round. Correct, and
// it must stay correct in the guarded build, whose barrier is a function call the compiler might
// otherwise move the tile's accesses across.
void tile_read_after_a_moved_barrier_is_ok(GpuWorker& t, bool paired) {
    auto run = [&](const std::string& source) { return paired ? t.evaluate_paired(source) : t.evaluate_guarded(source); };
    const RunVerdict v = run(variant(
        "__shared__ float tile[256 + 32];\n"
        "    const int base = blockIdx.x * 256;\n"
        "    for (int j = threadIdx.x; j < 256 + 32; j += 256) tile[j] = base + j < n ? in[base + j] : 0.0f;\n"
        "    if (i >= n) return;\n"
        "    __syncthreads();\n"
        "    const int next = base + threadIdx.x + 32;\n"
        "    const float expected = next < n ? in[next] : 0.0f;\n"
        "    out[i] = 2.0f * tile[threadIdx.x] + (tile[threadIdx.x + 32] == expected ? 0.0f : 1.0f);"));
    EXPECT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_EQ(v.mismatches, 0u) << v.result.detail;
}

TEST_F(GpuWorker, GuardedTileReadAfterAMovedBarrierIsOk) { tile_read_after_a_moved_barrier_is_ok(*this, false); }

TEST_F(GpuWorker, PairedTileReadAfterAMovedBarrierIsOk) { tile_read_after_a_moved_barrier_is_ok(*this, true); }

TEST_F(GpuWorker, GuardedSharedOutOfBoundsEndsWithoutARestart) { shared_out_of_bounds_ends_without_a_restart(*this, false); }

TEST_F(GpuWorker, PairedSharedOutOfBoundsEndsWithoutARestart) { shared_out_of_bounds_ends_without_a_restart(*this, true); }

// Without the guard the same variant faults and costs its worker: what the guard saves.
TEST_F(GpuWorker, UnguardedSharedOutOfBoundsCostsTheWorker) {
    const RunVerdict v = evaluate(cubin_of(kRunawaySharedRead), 5s);
    EXPECT_NE(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_FALSE(v.out_of_bounds);
    EXPECT_TRUE(v.restart_worker) << v.result.detail;
    expect_next_variant_ok();
}

// `paired`: both builds in one module (guard-paired=1), else the guarded one in front (guard-bytes).
void correct_loop_is_ok_and_timed(GpuWorker& t, bool paired) {
    const std::string source = variant(
        "if (i < n) { float x = in[i]; for (int k = 0; k < 100; k++) x = x * 1.0f; int w = 5; while (w > 0) w--; "
        "out[i] = 2.0f * x + w; }");
    const RunVerdict v = paired ? t.evaluate_paired(source) : t.evaluate_guarded(source);
    ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_EQ(v.mismatches, 0u);
    EXPECT_EQ(v.times_ms.size(), 10u);
    EXPECT_FALSE(v.guard_unusable) << v.result.detail;
    ASSERT_TRUE(v.has_stages);
    EXPECT_GT(v.load_ms, 0);
    EXPECT_GT(v.check_ms, 0);
    EXPECT_GT(v.compare_ms, 0);
    EXPECT_GT(v.timed_ms, 0);
    std::cout << (paired ? "paired " : "") << "stages (ms): load " << v.load_ms << ", check " << v.check_ms
              << ", compare " << v.compare_ms << ", timed " << v.timed_ms << "\n";
}

TEST_F(GpuWorker, GuardedCorrectLoopIsOkAndTimed) { correct_loop_is_ok_and_timed(*this, false); }

TEST_F(GpuWorker, PairedCorrectLoopIsOkAndTimed) { correct_loop_is_ok_and_timed(*this, true); }

TEST_F(GpuWorker, UnguardedBuildIsComparedToo) {
    // The guarded build is right, the plain one (what is timed) leaves half the outputs unwritten.
    const std::string right = variant("for (int k = 0; k < 1; k++) if (i < n) out[i] = 2.0f * in[i];");
    const std::string half = variant("for (int k = 0; k < 1; k++) if (i < n / 2) out[i] = 2.0f * in[i];");
    RunVerdict v = evaluate_guarded(right, half);
    EXPECT_EQ(v.result.status, EvalStatus::WrongAnswer) << v.result.detail;
    EXPECT_NE(v.result.detail.find("unguarded build"), std::string::npos) << v.result.detail;
    EXPECT_NE(v.result.detail.find("unwritten"), std::string::npos) << v.result.detail;
    EXPECT_TRUE(v.times_ms.empty());
    v = evaluate_guarded(right, half, {{"time", "0"}});  // validation's runs: no timing, still checked
    EXPECT_EQ(v.result.status, EvalStatus::WrongAnswer) << v.result.detail;
    EXPECT_NE(v.result.detail.find("unguarded build"), std::string::npos) << v.result.detail;
    v = evaluate_guarded(right);
    EXPECT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
}

// Which kernel of a paired module does what: the check runs gi_guarded::scale, the comparison of
// the timed build and the timing use the plain scale.
TEST_F(GpuWorker, PairedModuleChecksTheGuardedKernelAndTimesThePlainOne) {
    const std::string right = variant("for (int k = 0; k < 1; k++) if (i < n) out[i] = 2.0f * in[i];");
    const std::string half = variant("for (int k = 0; k < 1; k++) if (i < n / 2) out[i] = 2.0f * in[i];");
    RunVerdict v = evaluate_paired(right, half);  // plain wrong: caught as the unguarded build's
    EXPECT_EQ(v.result.status, EvalStatus::WrongAnswer) << v.result.detail;
    EXPECT_NE(v.result.detail.find("unguarded build"), std::string::npos) << v.result.detail;
    EXPECT_TRUE(v.times_ms.empty());
    v = evaluate_paired(half, right);  // guarded wrong: the check itself fails
    EXPECT_EQ(v.result.status, EvalStatus::WrongAnswer) << v.result.detail;
    EXPECT_EQ(v.result.detail.find("unguarded build"), std::string::npos) << v.result.detail;
    v = evaluate_paired(right);
    EXPECT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_EQ(starts_, 1);
}

TEST_F(GpuWorker, PrintfWithoutEndTimesOut) {
    const RunVerdict v = evaluate(cubin_of(variant("for (;;) printf(\"variant %d\\n\", i);")), 3s);
    EXPECT_EQ(v.result.status, EvalStatus::Timeout) << v.result.detail;
    expect_next_variant_ok();
}

TEST_F(GpuWorker, OutOfBoundsWriteCrashes) {
    const RunVerdict v = evaluate(cubin_of(variant("out[i + (1 << 28)] = 2.0f * in[i];")));
    EXPECT_EQ(v.result.status, EvalStatus::Crash) << v.result.detail;
    EXPECT_TRUE(v.restart_worker);
    expect_next_variant_ok();
}

TEST_F(GpuWorker, TrapCrashes) {
    const RunVerdict v = evaluate(cubin_of(variant("if (i == 77) asm(\"trap;\"); if (i < n) out[i] = 2.0f * in[i];")));
    EXPECT_EQ(v.result.status, EvalStatus::Crash) << v.result.detail;
    expect_next_variant_ok();
}

TEST_F(GpuWorker, AssertCrashes) {
    const RunVerdict v = evaluate(cubin_of(variant(
        "if (i < n && in[i] > 1.0f) __assertfail(\"in[i] <= 1\", \"variant.cu\", 3, \"scale\", 1);"
        " if (i < n) out[i] = 2.0f * in[i];",
        "extern \"C\" __device__ void __assertfail(const char*, const char*, unsigned, const char*, size_t);")));
    EXPECT_EQ(v.result.status, EvalStatus::Crash) << v.result.detail;
    EXPECT_NE(v.result.detail.find("ASSERT"), std::string::npos) << v.result.detail;
    expect_next_variant_ok();
}

TEST_F(GpuWorker, TooMuchStaticSharedMemoryDoesNotCompile) {
    DeviceCompileRequest r;
    r.source = variant("__shared__ float big[65536]; big[threadIdx.x] = in[i]; __syncthreads(); if (i < n) out[i] = 2.0f * big[threadIdx.x];");
    r.arch = "sm_90";
    const DeviceCompileResult out = compile_with_nvrtc(r);
    EXPECT_FALSE(out.ok);
    EXPECT_NE(out.log.find("shared"), std::string::npos) << out.log;
}

TEST_F(GpuWorker, TooMuchDynamicSharedMemoryFailsToLaunch) {
    const RunVerdict v = evaluate(cubin_of(variant("if (i < n) out[i] = 2.0f * in[i];")), 5s, {{"shared", std::to_string(4 << 20)}});
    EXPECT_EQ(v.result.status, EvalStatus::Crash) << v.result.detail;
    expect_next_variant_ok();
}

TEST_F(GpuWorker, TooManyRegistersFailToLaunch) {
    // 1024 threads x (at least 128 registers) is more than a multiprocessor's 64K registers.
    const std::string body =
        "float acc[96];\n#pragma unroll\nfor (int k = 0; k < 96; k++) acc[k] = in[(i + k * 4099) % n] * (k + 1);\n"
        "float s = 0;\n#pragma unroll\nfor (int k = 0; k < 96; k++) s += acc[k] * acc[95 - k];\n"
        "if (i < n) out[i] = 2.0f * in[i] + 0.0f * s;";
    const RunVerdict v = evaluate(cubin_of(variant(body), {"-maxrregcount=255"}), 5s,
                                  {{"block", "1024,1,1"}, {"grid", std::to_string(kN / 1024) + ",1,1"}});
    EXPECT_EQ(v.result.status, EvalStatus::Crash) << v.result.detail;
    EXPECT_NE(v.result.detail.find("OUT_OF_RESOURCES"), std::string::npos) << v.result.detail;
    expect_next_variant_ok();
}

TEST_F(GpuWorker, MissingKernelIsNamed) {
    const RunVerdict v = evaluate(cubin_of("__global__ void other(float* p) { p[0] = 1; }"));
    EXPECT_EQ(v.result.status, EvalStatus::CompileError);
    EXPECT_NE(v.result.detail.find("no kernel named 'scale'"), std::string::npos) << v.result.detail;
    EXPECT_NE(v.result.detail.find("other(float*)"), std::string::npos) << v.result.detail;
}

// Times a kernel of well over 50 us (many passes over 4 MB) 30 times, each repetition the mean of
// `launches` launches, and prints the median and spread as `label` says.
void expect_small_timing_spread(GpuWorker& t, const std::string& launches, const std::string& label) {
    const RunVerdict v = t.evaluate(cubin_of(variant(
        "if (i < n) { float x = in[i]; for (int k = 0; k < 2000; k++) x = x * 0.999999f + 0.000001f; "
        "out[i] = 2.0f * in[i] + 0.0f * x; }")), 10s, {{"repetitions", "30"}, {"launches-per-time", launches}});
    ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    // The same robust estimate as gi::summarise_timings: 1.4826 x median absolute deviation.
    auto median = [](std::vector<double> x) {
        std::sort(x.begin(), x.end());
        return x.size() % 2 ? x[x.size() / 2] : (x[x.size() / 2 - 1] + x[x.size() / 2]) / 2;
    };
    const double m = median(v.times_ms);
    std::vector<double> deviations;
    for (double time : v.times_ms) deviations.push_back(std::fabs(time - m));
    const double spread = 1.4826 * median(deviations);
    EXPECT_GT(m, 0.05);
    EXPECT_LT(spread / m, 0.01) << "median " << m << " ms, spread " << spread << " ms";
    std::cout << label << ": median " << m << " ms, spread " << spread << " ms (" << 100 * spread / m
              << "% of the median, 30 repetitions)\n";
}

TEST_F(GpuWorker, TimingSpreadIsSmallForALongKernel) { expect_small_timing_spread(*this, "1", "timing spread"); }

// The evaluator times kernels under 0.2 ms in batches of about a millisecond (launches_per_time_for).
TEST_F(GpuWorker, TimingSpreadIsSmallForALongKernelInBatches) {
    expect_small_timing_spread(*this, "15", "timing spread in batches of 15");
}

// compute-sanitizer on gi-worker --once, as CudaEvaluator::sanitize runs it.
class GpuSanitizer : public GpuWorker {
protected:
    EvalResult sanitize(const std::string& source, const std::string& tool) {
        std::string sanitizer;
        try {
            sanitizer = find_compute_sanitizer("");
        } catch (const Error& e) {
            ADD_FAILURE() << e.what();
            return {};
        }
        const auto cubin = folder_.path() / "v.cubin";
        std::ofstream(cubin, std::ios::binary) << cubin_of(source);
        const auto log = folder_.path() / "sanitizer.log";
        const std::string command = "timeout 120 '" + sanitizer + "' --tool " + tool + " --error-exitcode 86 '" +
                                    gpu_test::worker_path() + "' --once --case '" + case_dir_.string() + "' --cubin '" +
                                    cubin.string() + "' --kernel scale > '" + log.string() + "' 2>&1";
        const int status = std::system(command.c_str());
        const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        std::ifstream in(log);
        std::stringstream output;
        output << in.rdbuf();
        return classify_sanitizer_exit(exit_code, exit_code == 124, 86, output.str(), tool);
    }
};

TEST_F(GpuSanitizer, CleanVariantPasses) {
    EXPECT_EQ(sanitize(kOriginal, "memcheck").status, EvalStatus::Ok);
}

// gi-worker --once finds the plain kernel of a paired build's module, not two kernels named scale.
TEST_F(GpuSanitizer, PairedBuildPasses) {
    EXPECT_EQ(sanitize(paired_source(variant("for (int k = 0; k < 1; k++) if (i < n) out[i] = 2.0f * in[i];")).source,
                       "memcheck").status,
              EvalStatus::Ok);
}

TEST_F(GpuSanitizer, MemcheckFindsAnOutOfBoundsRead) {
    const EvalResult r = sanitize(variant("if (i < n) out[i] = 2.0f * in[i + 1 + (n - i) * (i == n - 1)];"), "memcheck");
    EXPECT_EQ(r.status, EvalStatus::SanitizerError) << r.detail;
}

TEST_F(GpuSanitizer, RacecheckFindsARemovedBarrier) {
    const std::string racy = variant(
        "__shared__ float s[256]; s[threadIdx.x] = in[i]; "
        "if (i < n) out[i] = 2.0f * s[(threadIdx.x + 32) % 256];");
    const EvalResult r = sanitize(racy, "racecheck");
    EXPECT_EQ(r.status, EvalStatus::SanitizerError) << r.detail;
}

// Several variants in one compute-sanitizer process (gi-worker --once --variants, issue 19): clean
// ones pass together and the worker says it ran each; one bad variant among them fails the batch,
// which the evaluator then checks one variant at a time.
class GpuSanitizerBatch : public GpuSanitizer {
protected:
    std::pair<int, std::string> run_batch(const std::vector<std::string>& sources) {
        std::string sanitizer;
        try {
            sanitizer = find_compute_sanitizer("");
        } catch (const Error& e) {
            ADD_FAILURE() << e.what();
            return {-1, ""};
        }
        const auto list = folder_.path() / "variants.txt";
        std::ofstream out(list);
        for (std::size_t k = 0; k < sources.size(); ++k) {
            const auto cubin = folder_.path() / ("v" + std::to_string(k) + ".cubin");
            std::ofstream(cubin, std::ios::binary) << cubin_of(sources[k]);
            out << cubin.string() << "\t\t\t\n";
        }
        out.close();
        const auto log = folder_.path() / "batch.log";
        const std::string command = "timeout 120 '" + sanitizer + "' --tool memcheck --error-exitcode 86 '" +
                                    gpu_test::worker_path() + "' --once --case '" + case_dir_.string() + "' --variants '" +
                                    list.string() + "' --kernel scale > '" + log.string() + "' 2>&1";
        const int status = std::system(command.c_str());
        std::ifstream in(log);
        std::stringstream output;
        output << in.rdbuf();
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output.str()};
    }
};

TEST_F(GpuSanitizerBatch, CleanVariantsPassTogetherAndEachRuns) {
    const auto [exit_code, output] =
        run_batch({kOriginal, variant("if (i < n) out[i] = in[i] + in[i];"), variant("if (i < n) out[i] = in[i] * 2.0f;")});
    EXPECT_EQ(exit_code, 0) << output;
    EXPECT_NE(output.find("gi-worker: ran 3 variant(s)"), std::string::npos) << output;
}

TEST_F(GpuSanitizerBatch, OneOutOfBoundsVariantFailsTheBatch) {
    const auto [exit_code, output] =
        run_batch({kOriginal, variant("if (i < n) out[i] = 2.0f * in[i + 1 + (n - i) * (i == n - 1)];"), kOriginal});
    EXPECT_EQ(exit_code, 86) << output;
}

// Long-lived sanitizer sessions (cuda/sanitizer_sessions.hpp, issue 19): one compute-sanitizer
// process checks request after request; a request holding a faulty or racy variant must be told
// apart in that request (its report is logged before the reply), and the session ends with it.
class GpuSanitizerSession : public GpuSanitizerBatch {
protected:
    std::filesystem::path list_of(const std::vector<std::string>& sources, const std::string& name) {
        const auto list = folder_.path() / (name + ".txt");
        std::ofstream out(list);
        for (std::size_t k = 0; k < sources.size(); ++k) {
            const auto cubin = folder_.path() / (name + "-" + std::to_string(k) + ".cubin");
            std::ofstream(cubin, std::ios::binary) << cubin_of(sources[k]);
            out << cubin.string() << "\t\t\t\n";
        }
        return list;
    }
    bool check(SanitizerSession& session, const std::vector<std::string>& sources, const std::string& name) {
        return session.check(case_dir_.string(), "scale", list_of(sources, name), sources.size(), std::chrono::seconds(120));
    }
};

TEST_F(GpuSanitizerSession, TellsTheFaultyRequestApartAndPassesCleanOnes) {
    const std::string sanitizer = find_compute_sanitizer("");
    const std::string out_of_bounds = variant("if (i < n) out[i] = 2.0f * in[i + 1 + (n - i) * (i == n - 1)];");
    for (int round = 0; round < 3; ++round) {
        SanitizerSession session(sanitizer, gpu_test::worker_path(), "memcheck");
        EXPECT_TRUE(check(session, {kOriginal, variant("if (i < n) out[i] = in[i] + in[i];")}, "clean-a")) << round;
        EXPECT_TRUE(check(session, {kOriginal}, "clean-b")) << round;
        EXPECT_FALSE(check(session, {kOriginal, out_of_bounds}, "faulty")) << round;
        EXPECT_FALSE(session.alive());
        // The gate judges a variant by this (one variant a request): the report of its own request.
        EXPECT_NE(session.reported().find("Invalid __global__ read"), std::string::npos) << session.reported();
        EXPECT_EQ(classify_sanitizer_exit(86, false, 86, session.reported(), "memcheck").status, EvalStatus::SanitizerError);
    }
}

// A guard-zones worker keeps the cases it checked open: the prescreen runs a would-be parent on
// every gate case, and opening one again (two copies, mapped page by page) cost wavefront's
// searches 26.7 s in 237 opens. Back on a kept case it opens nothing; a write into the zones there
// is still that variant's own.
TEST_F(GpuSanitizerSession, AGuardZonesWorkerKeepsTheCasesItCheckedOpen) {
    const std::filesystem::path second = write_test_case(gpu_test::scale_case(kN / 2), folder_.path() / "second");
    SanitizerSession session("", gpu_test::worker_path(), kGuardZonesTool, {}, 4096, {}, true);
    const auto clean = list_of({kOriginal}, "clean");
    const auto stray = list_of({variant("if (i < n) out[i] = 2.0f * in[i]; if (i == n - 1) out[n + 3] = 1.0f;")}, "stray");
    std::vector<double> opened;
    for (const std::filesystem::path& c : {case_dir_, second, case_dir_, second}) {
        ASSERT_TRUE(session.check(c.string(), "scale", clean, 1, std::chrono::seconds(60))) << session.failure();
        opened.push_back(session.last_checked().case_ms);
    }
    EXPECT_GT(opened[0], 0);
    EXPECT_GT(opened[1], 0);
    EXPECT_EQ(opened[2], 0);  // kept open
    EXPECT_EQ(opened[3], 0);
    EXPECT_TRUE(session.holds(case_dir_.string()) && session.holds(second.string()));
    EXPECT_FALSE(session.check(case_dir_.string(), "scale", stray, 1, std::chrono::seconds(60)));
    EXPECT_NE(session.reported().find("after its end"), std::string::npos) << session.reported();
    ASSERT_TRUE(session.alive());  // its copies intact: it serves on
    EXPECT_TRUE(session.check(second.string(), "scale", clean, 1, std::chrono::seconds(60))) << session.failure();
    EXPECT_EQ(session.last_checked().case_ms, 0);
}

// A replay for the gate's checks holds one working copy of its case: it runs a variant once, on
// copy 0. The timed replays' second copy doubled what a guard-zones worker maps, buffer by buffer,
// at each case it opens, and what its kept cases hold.
TEST_F(GpuSanitizerSession, AGateWorkerHoldsOneWorkingCopyOfItsCase) {
    const std::uint64_t buffer = std::uint64_t{kN} * 4;  // out (written, so a poison image too) and in
    for (const bool pages : {false, true}) {
        SanitizerSession session("", gpu_test::worker_path(), kGuardZonesTool, {}, 4096, {}, pages);
        ASSERT_TRUE(session.check(case_dir_.string(), "scale", list_of({kOriginal}, "clean"), 1, std::chrono::seconds(60)))
            << session.failure();
        // pristine 2, poison 1, one working copy 2; with pages, the zones' copy as much again
        const std::uint64_t one_copy = 5 * buffer * (pages ? 2 : 1);
        EXPECT_EQ(session.last_checked().case_bytes, one_copy) << (pages ? "with pages" : "zones alone");
    }
}

TEST_F(GpuSanitizerSession, RacecheckReportsARemovedBarrierInItsRequest) {
    const std::string sanitizer = find_compute_sanitizer("");
    const std::string racy = variant(
        "__shared__ float s[256]; s[threadIdx.x] = in[i]; "
        "if (i < n) out[i] = 2.0f * s[(threadIdx.x + 32) % 256];");
    for (int round = 0; round < 3; ++round) {
        SanitizerSession session(sanitizer, gpu_test::worker_path(), "racecheck");
        EXPECT_TRUE(check(session, {kOriginal}, "clean")) << round;
        EXPECT_TRUE(session.reported().empty()) << session.reported();
        EXPECT_FALSE(check(session, {racy}, "racy")) << round;
        EXPECT_FALSE(session.reported().empty()) << session.failure();
    }
}

}  // namespace
}  // namespace gi
