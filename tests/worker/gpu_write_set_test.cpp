// Write sets on the GPU (issue 41; compare/write_set.hpp, gi-worker/replay.cpp): the original's
// first run learns, per writable buffer, which elements it writes (two runs on the buffer
// poisoned), poisons those for variants and verifies that it still reproduces its outputs. Cases as
// real programs record them: a timing loop's repeated launch (the output holds the answer before
// the launch), a read-modify-write kernel (`out += ...`), a kernel that writes only half its output
// on purpose, a writable buffer the kernel only reads. A variant that writes nothing is refused on
// every case the original writes something on. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "../support/gpu_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_classify.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "worker/run_result.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace {

using namespace std::chrono_literals;
using gpu_test::TempFolder;
using worker::Message;

constexpr int kWriteSetN = 1 << 16;

// `scale`'s signature with a body; `writable_in` makes `in` a pointer to non-const.
std::string write_set_kernel(const std::string& body, bool writable_in = false) {
    return std::string("__global__ void scale(float* out, ") + (writable_in ? "float* in" : "const float* in") +
           ", int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    " + body + "\n}\n";
}

const std::string kWriteSetScale = "if (i < n) out[i] = 2.0f * in[i];";
const std::string kWriteSetAccumulate = "if (i < n) out[i] += 2.0f * in[i];";
const std::string kWriteSetHalf = "if (i < n / 2) out[i] = 2.0f * in[i];";
const std::string kWriteSetNothing = "";

std::string write_set_cubin(const std::string& source) {
    DeviceCompileRequest r;
    r.source = source;
    r.arch = "sm_90";
    const DeviceCompileResult out = compile_with_nvrtc(r);
    EXPECT_TRUE(out.ok) << out.log;
    return out.cubin;
}

std::vector<float> write_set_floats(const Bytes& b) {
    std::vector<float> v(b.size() / 4);
    std::memcpy(v.data(), b.data(), b.size());
    return v;
}

void write_set_store(Bytes& b, const std::vector<float>& v) {
    b.resize(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
}

// scale_case(kWriteSetN) with the output's contents before the launch and the original's results
// after it: `before(i)`, and `after(before, in, i)`.
template <typename Before, typename After>
TestCase write_set_case(Before before, After after, bool writable_in = false) {
    TestCase tc = gpu_test::scale_case(kWriteSetN);
    const std::vector<float> in = write_set_floats(tc.buffers[1].before);
    std::vector<float> b(kWriteSetN), a(kWriteSetN);
    for (int i = 0; i < kWriteSetN; ++i) {
        b[i] = before(i);
        a[i] = after(b[i], in[i], i);
    }
    CaseBuffer& out = tc.buffers[0];
    write_set_store(out.before, b);
    write_set_store(out.after, a);
    out.changed = out.before != out.after;
    if (!out.changed) out.after = out.before;
    if (writable_in) {
        tc.buffers[1].read_only = false;
        tc.args[1].is_const = false;
    }
    return tc;
}

class GpuWriteSets : public ::testing::Test {
protected:
    void SetUp() override {
        GI_REQUIRE_GPU();
        if (!nvrtc_available()) GTEST_SKIP() << "no NVRTC in this build";
        worker_ = std::make_unique<worker::WorkerProcess>(worker::WorkerOptions{gpu_test::worker_path(), {}, {}, {}});
        ASSERT_EQ(worker_->request({"hello", {}, {}}, 60s).type, "ready");
    }

    // Loads `tc` into `slot` and runs `original` there first: returns its result (the write sets in
    // `poisonable`), after checking that it reproduces the recorded outputs.
    worker::RunResult load(int slot, const TestCase& tc, const std::string& original) {
        const std::filesystem::path dir = write_test_case(tc, folder_.path() / ("slot-" + std::to_string(slot)));
        const Message loaded =
            worker_->request({"load-case", {{"slot", std::to_string(slot)}, {"path", dir.string()}}, {}}, 60s);
        EXPECT_EQ(loaded.type, "case-loaded") << loaded.get("message");
        const Message reply = worker_->request(run(slot, "original", write_set_cubin(original)), 60s);
        const RunVerdict v = classify_run_reply(reply);
        EXPECT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
        EXPECT_EQ(v.mismatches, 0u) << "the original must reproduce the recorded outputs: " << v.result.detail;
        return worker::run_result_from(reply);
    }

    Message run(int slot, const std::string& role, const std::string& cubin, const std::string& launches = "1") {
        return Message{"run",
                       {{"slot", std::to_string(slot)}, {"role", role}, {"kernel", "scale"}, {"warmups", "2"},
                        {"repetitions", "10"}, {"launches-per-time", launches}},
                       cubin};
    }

    // A variant's verdict and the worker's reply (launches per time).
    std::pair<RunVerdict, worker::RunResult> evaluate(int slot, const std::string& source, const std::string& launches = "1") {
        worker_->send(run(slot, "variant", write_set_cubin(source), launches), 10s);
        Message reply = worker_->receive("run", 10s);
        while (reply.type == "started" || reply.type == "checked") reply = worker_->receive("run", 10s);
        return {classify_run_reply(reply), worker::run_result_from(reply)};
    }

    static void expect_unwritten(const RunVerdict& v, int count) {
        EXPECT_EQ(v.result.status, EvalStatus::WrongAnswer) << v.result.detail;
        EXPECT_NE(v.result.detail.find(std::to_string(count) + " left unwritten"), std::string::npos) << v.result.detail;
    }

    TempFolder folder_;
    std::unique_ptr<worker::WorkerProcess> worker_;
};

const std::string kWholeOutput = "w" + std::to_string(kWriteSetN) + "r0u0:0-" + std::to_string(4 * kWriteSetN);

// A warm-up launch, then a timing loop of identical launches: from the second launch on, the
// output holds the answer before the kernel runs. Poisoned alike, a do-nothing variant is refused
// on both cases, where before write sets it passed the second.
TEST_F(GpuWriteSets, ADoNothingVariantIsRefusedOnARepeatedLaunchAsOnTheFirst) {
    const TestCase fresh = write_set_case([](int) { return 0.0f; }, [](float, float in, int) { return 2.0f * in; });
    const std::vector<float> answer = write_set_floats(fresh.buffers[0].after);
    const TestCase repeated = write_set_case([&](int i) { return answer[i]; }, [](float, float in, int) { return 2.0f * in; });
    ASSERT_FALSE(repeated.buffers[0].changed);
    EXPECT_EQ(load(0, fresh, write_set_kernel(kWriteSetScale)).poisonable, kWholeOutput + ",0");
    EXPECT_EQ(load(1, repeated, write_set_kernel(kWriteSetScale)).poisonable, kWholeOutput + ",0");
    for (int slot : {0, 1}) {
        SCOPED_TRACE("slot " + std::to_string(slot));
        expect_unwritten(evaluate(slot, write_set_kernel(kWriteSetNothing)).first, kWriteSetN);
        const auto [right, reply] = evaluate(slot, write_set_kernel("if (i < n) out[i] = in[i] + in[i];"), "4");
        EXPECT_EQ(right.result.status, EvalStatus::Ok) << right.result.detail;
        EXPECT_EQ(right.mismatches, 0u);
        EXPECT_EQ(reply.launches_per_time, 4) << "overwritten entirely: batched launches need no restore";
    }
}

// out += 2 * in: every element depends on what it held, so nothing is poisoned, the recorded
// contents are restored before each launch (a repetition is one launch), and the verdicts hold.
TEST_F(GpuWriteSets, AReadModifyWriteKernelIsJudgedFromItsRecordedContents) {
    const TestCase tc = write_set_case([](int i) { return 1.0f + static_cast<float>(i % 7); },
                                       [](float before, float in, int) { return before + 2.0f * in; });
    EXPECT_EQ(load(0, tc, write_set_kernel(kWriteSetAccumulate)).poisonable,
              "w0r" + std::to_string(kWriteSetN) + "u0,0");
    const auto [right, reply] = evaluate(0, write_set_kernel("if (i < n) out[i] = out[i] + (in[i] + in[i]);"), "4");
    EXPECT_EQ(right.result.status, EvalStatus::Ok) << right.result.detail;
    EXPECT_EQ(right.mismatches, 0u);
    EXPECT_EQ(reply.launches_per_time, 1) << "updated in place: each launch from the recorded contents";
    const RunVerdict nothing = evaluate(0, write_set_kernel(kWriteSetNothing)).first;
    EXPECT_EQ(nothing.mismatches, static_cast<std::uint64_t>(kWriteSetN)) << nothing.result.detail;
    EXPECT_GT(nothing.result.error, 0);
    const RunVerdict overwrite = evaluate(0, write_set_kernel(kWriteSetScale)).first;
    EXPECT_EQ(overwrite.mismatches, static_cast<std::uint64_t>(kWriteSetN)) << "out = 2 * in forgets what out held";
}

// A kernel that writes only the first half of its output, the second half holding values the
// program keeps: the first half is poisoned, the second left as recorded, and a variant that
// writes the second half is wrong there.
TEST_F(GpuWriteSets, AKernelThatWritesHalfItsOutputOnPurposeIsPoisonedOnThatHalf) {
    const int half = kWriteSetN / 2;
    const TestCase tc = write_set_case([](int i) { return 7.0f + static_cast<float>(i % 5); },
                                       [&](float before, float in, int i) { return i < half ? 2.0f * in : before; });
    EXPECT_EQ(load(0, tc, write_set_kernel(kWriteSetHalf)).poisonable,
              "w" + std::to_string(half) + "r0u" + std::to_string(half) + ":0-" + std::to_string(4 * half) + ",0");
    expect_unwritten(evaluate(0, write_set_kernel(kWriteSetNothing)).first, half);
    const auto [right, reply] = evaluate(0, write_set_kernel("if (i < n / 2) out[i] = in[i] * 2.0f;"), "4");
    EXPECT_EQ(right.result.status, EvalStatus::Ok) << right.result.detail;
    EXPECT_EQ(right.mismatches, 0u);
    EXPECT_EQ(reply.launches_per_time, 4) << "no element read-modify-write: nothing restored between launches";
    const RunVerdict whole = evaluate(0, write_set_kernel(kWriteSetScale)).first;
    EXPECT_EQ(whole.mismatches, static_cast<std::uint64_t>(half)) << whole.result.detail;
    EXPECT_NE(whole.result.detail.find("first at " + std::to_string(half)), std::string::npos) << whole.result.detail;
}

// `in` is writable for all the case knows (a pointer to non-const) but only read: poisoning it
// changes `out`, so it is an input with nothing poisoned, and `out` is poisoned whole.
TEST_F(GpuWriteSets, AWritableBufferTheKernelOnlyReadsIsNotPoisoned) {
    const TestCase tc = write_set_case([](int) { return 0.0f; }, [](float, float in, int) { return 2.0f * in; }, true);
    EXPECT_EQ(load(0, tc, write_set_kernel(kWriteSetScale, true)).poisonable,
              kWholeOutput + ",w0r0u" + std::to_string(kWriteSetN) + "i");
    expect_unwritten(evaluate(0, write_set_kernel(kWriteSetNothing, true)).first, kWriteSetN);
    const auto [right, reply] = evaluate(0, write_set_kernel("if (i < n) out[i] = in[i] + in[i];", true), "4");
    EXPECT_EQ(right.result.status, EvalStatus::Ok) << right.result.detail;
    EXPECT_EQ(reply.launches_per_time, 4);
}

// The write sets learnt by one worker, given to the next in the run request (a restart) or in the
// handed-over reference: the do-nothing variant is refused there without probing again.
TEST_F(GpuWriteSets, WriteSetsGivenToAnotherWorkerPoisonAlike) {
    const TestCase tc = write_set_case([](int) { return 0.0f; }, [](float, float in, int) { return 2.0f * in; });
    const std::vector<float> answer = write_set_floats(tc.buffers[0].after);
    const TestCase repeated = write_set_case([&](int i) { return answer[i]; }, [](float, float in, int) { return 2.0f * in; });
    const std::filesystem::path dir = write_test_case(repeated, folder_.path() / "given");
    ASSERT_EQ(worker_->request({"load-case", {{"slot", "0"}, {"path", dir.string()}}, {}}, 60s).type, "case-loaded");
    Message original = run(0, "original", write_set_cubin(write_set_kernel(kWriteSetScale)));
    original.fields["poisonable"] = kWholeOutput + ",0";
    original.fields["probe-poison"] = "0";  // nothing probed: the given write sets are all it has
    const Message reply = worker_->request(original, 60s);
    ASSERT_EQ(classify_run_reply(reply).result.status, EvalStatus::Ok);
    EXPECT_EQ(worker::run_result_from(reply).poisonable, kWholeOutput + ",0");
    expect_unwritten(evaluate(0, write_set_kernel(kWriteSetNothing)).first, kWriteSetN);
    // The old format's "1" still means the whole buffer.
    ASSERT_EQ(worker_->request({"load-case", {{"slot", "1"}, {"path", dir.string()}}, {}}, 60s).type, "case-loaded");
    Message old = run(1, "original", write_set_cubin(write_set_kernel(kWriteSetScale)));
    old.fields["poisonable"] = "1,0";
    old.fields["probe-poison"] = "0";
    ASSERT_EQ(classify_run_reply(worker_->request(old, 60s)).result.status, EvalStatus::Ok);
    expect_unwritten(evaluate(1, write_set_kernel(kWriteSetNothing)).first, kWriteSetN);
}

// Through the evaluator, as search meets it: a fresh case and two repeated launches. The gate says
// what is poisoned where the launch changed nothing; the do-nothing variant is refused on every case.
TEST(GpuWriteSetEvaluator, ADoNothingVariantIsRefusedOnEveryCase) {
    GI_REQUIRE_GPU();
    TempFolder folder;
    const char* kernel_text = R"(#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
)";
    const std::filesystem::path kernel = folder.path() / "scale.cu";
    std::ofstream(kernel) << kernel_text;
    GrammarOptions grammar_options;
    grammar_options.functions = {"scale"};
    grammar_options.params = {parse_param_declaration("BLOCK=128,256", "--param")};
    const Grammar grammar = build_grammar(read_source_file(kernel), grammar_options);
    const TestCase fresh = write_set_case([](int) { return 0.0f; }, [](float, float in, int) { return 2.0f * in; });
    const std::vector<float> answer = write_set_floats(fresh.buffers[0].after);
    const TestCase repeated = write_set_case([&](int i) { return answer[i]; }, [](float, float in, int) { return 2.0f * in; });
    write_test_case(fresh, folder.path() / "cases");
    write_test_case(repeated, folder.path() / "cases");
    write_test_case(repeated, folder.path() / "cases");
    CudaEvaluatorOptions o;
    o.cases = folder.path() / "cases";
    o.function = "scale";
    o.block = "BLOCK";
    o.grid = "ceil(n/BLOCK)";
    o.worker = gpu_test::worker_path();
    o.set_aside = 0;
    CudaEvaluator e(grammar, o);
    std::string nothing = kernel_text;
    nothing.replace(nothing.find(kWriteSetScale), kWriteSetScale.size(), "");
    const Variant does_nothing{Genome{}, nothing, {}, sha256_hex(nothing)};
    const Variant original{Genome{}, kernel_text, {}, sha256_hex(kernel_text)};
    ::testing::internal::CaptureStderr();
    std::vector<BatchResult> results;
    for (int c = 0; c < 3; ++c) results.push_back(e.evaluate({does_nothing, original}, c));
    const std::string err = ::testing::internal::GetCapturedStderr();
    for (int c = 0; c < 3; ++c) {
        SCOPED_TRACE("case " + std::to_string(c));
        EXPECT_EQ(results[c].results[0].status, EvalStatus::WrongAnswer) << results[c].results[0].detail;
        EXPECT_NE(results[c].results[0].detail.find("left unwritten"), std::string::npos) << results[c].results[0].detail;
        EXPECT_EQ(results[c].results[1].status, EvalStatus::Ok) << results[c].results[1].detail;
    }
    EXPECT_NE(err.find("the launch changed nothing in 2 of 3 cases"), std::string::npos) << err;
    EXPECT_NE(err.find("(buffer 0: " + std::to_string(kWriteSetN) + " of " + std::to_string(kWriteSetN) + " elements poisoned)"),
              std::string::npos)
        << err;
}

}  // namespace
}  // namespace gi
