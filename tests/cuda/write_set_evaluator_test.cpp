// Issue 41: a program that launches its kernel again and again on the same inputs records cases
// whose output already holds the answer before the launch, where a variant that writes nothing
// matched the recorded outputs. With write sets (compare/write_set.hpp) the elements the original
// writes are poisoned on every case, so such a variant is refused everywhere, also by workers that
// took the write sets over (a handed-over reference, or the run request after a restart). Through
// the whole cuda evaluator with the fake worker (tests/support/fake_worker.cpp, block 96: writes
// nothing), so the write sets' text travels as it does on a GPU.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>

#include "../support/fake_worker_fixture.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

class WriteSetEvaluator : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "96,128,256", 3); }
    void TearDown() override {
        ::unsetenv("GI_FAKE_WRITES");
        ::unsetenv("GI_FAKE_PROBE_CRASH");
        ::unsetenv("GI_FAKE_PROBE_HANG");
        FakeWorkerEvaluatorTest::TearDown();
    }

    // Every case as a timing loop's repeated launch records it: the output held the answer already.
    void answer_before_every_launch() {
        for (const fs::path& folder : list_test_cases(folder_.path() / "cases")) {
            TestCase tc = read_test_case(folder);
            for (CaseBuffer& b : tc.buffers) {
                b.before = b.after;
                b.changed = false;
            }
            fs::remove_all(folder);
            write_test_case(tc, folder_.path() / "cases");
        }
    }

    // Distinct programs, so none is taken for a repeat of another across batches.
    Variant tagged(const std::string& block, const std::string& tag) const {
        Variant v = with_block(block);
        v.source += "\n// " + tag + "\n";
        v.key += tag;
        return v;
    }

    std::vector<std::string> logged(const std::string& what, const std::string& slot) const {
        std::vector<std::string> details;
        for (const gpu_test::FakeWorkerEvent& e : events())
            if (e.what == what && e.slot == slot) details.push_back(e.detail);
        return details;
    }

    static void expect_refused_unwritten(const EvalResult& r, const std::string& count) {
        EXPECT_EQ(r.status, EvalStatus::WrongAnswer) << r.detail;
        EXPECT_NE(r.detail.find(count + " left unwritten"), std::string::npos) << r.detail;
    }
};

TEST_F(WriteSetEvaluator, ADoNothingVariantIsRefusedOnEveryCaseWhoseOutputHeldTheAnswer) {
    if (IsSkipped()) return;
    answer_before_every_launch();
    ::testing::internal::CaptureStderr();
    std::string err;
    try {
        CudaEvaluator e(grammar_, options(0));
        for (int c = 0; c < 3; ++c) {
            SCOPED_TRACE("case " + std::to_string(c));
            const BatchResult r = e.evaluate({with_block("96"), with_block("256")}, c);
            expect_refused_unwritten(r.results[0], std::to_string(4096 >> c));
            EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
        }
    } catch (const Error& error) {
        ADD_FAILURE() << error.what();
    }
    err = ::testing::internal::GetCapturedStderr();
    // The gate says what is poisoned where the launch changed nothing, one group per buffer size.
    EXPECT_NE(err.find("the launch changed nothing in 3 of 3 cases"), std::string::npos) << err;
    EXPECT_NE(err.find("poisoned before a variant runs"), std::string::npos) << err;
    EXPECT_NE(err.find("(buffer 0: 4096 of 4096 elements poisoned)"), std::string::npos) << err;
    EXPECT_EQ(err.find("nothing could be poisoned"), std::string::npos) << err;
}

TEST_F(WriteSetEvaluator, AKernelThatWritesHalfItsOutputIsPoisonedOnThatHalf) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_WRITES", "half", 1);
    answer_before_every_launch();
    ::testing::internal::CaptureStderr();
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate({with_block("96"), with_block("256")}, 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    expect_refused_unwritten(r.results[0], "2048");
    EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
    EXPECT_NE(err.find("buffer 0: 2048 of 4096 elements poisoned, 2048 never written"), std::string::npos) << err;
}

// The first worker learns the write sets; a replacement after a crash takes them from the
// handed-over reference, and once that file is gone, from the run request (the evaluator keeps
// them): the do-nothing variant is refused by each.
TEST_F(WriteSetEvaluator, ReplacementWorkersKeepTheWriteSets) {
    if (IsSkipped()) return;
    answer_before_every_launch();
    CudaEvaluatorOptions o = options(0);
    o.reuse_binary_duplicates = false;
    CudaEvaluator e(grammar_, o);
    BatchResult r = e.evaluate({tagged("128", "a"), tagged("96", "a")}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Crash) << r.results[0].detail;
    expect_refused_unwritten(r.results[1], "4096");
    const std::vector<std::string> computed = logged("original-computed", "0");
    ASSERT_EQ(computed.size(), 1u);
    EXPECT_EQ(computed[0], "w4096r0u0:0-16384,0");  // learnt: the output whole, the input not poisoned
    EXPECT_GE(logged("reference-loaded", "0").size(), 1u);

    std::vector<std::string> written = logged("reference-written", "0");
    ASSERT_EQ(written.size(), 1u);
    fs::remove(written[0]);
    r = e.evaluate({tagged("128", "b"), tagged("96", "b")}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Crash) << r.results[0].detail;
    expect_refused_unwritten(r.results[1], "4096");
    const std::vector<std::string> recomputed = logged("original-computed", "0");
    ASSERT_EQ(recomputed.size(), 2u);
    EXPECT_EQ(recomputed[1], computed[0]);  // as given in the request, not probed again
}

// Poison in a writable buffer the original reads as indexes can crash its probe. The first run is
// then tried again probing only the buffers the launch changed, which keeps the output poisoned
// (before write sets' retry, nothing was poisoned then), and without probing if that crashes too.
TEST_F(WriteSetEvaluator, AProbeThatCrashesTheOriginalIsRetriedOnTheChangedBuffersOnly) {
    if (IsSkipped()) return;
    add_variable_to_cases("scratch", 64, false);  // writable, left as it was by the launch
    ::setenv("GI_FAKE_PROBE_CRASH", "unchanged", 1);
    {
        CudaEvaluator e(grammar_, options(0));
        const BatchResult r = e.evaluate({with_block("96"), with_block("256")}, 0);
        expect_refused_unwritten(r.results[0], "4096");
        EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
        EXPECT_EQ(logged("probe-crash", "0").size(), 1u);
        const std::vector<std::string> computed = logged("original-computed", "0");
        ASSERT_EQ(computed.size(), 1u);
        EXPECT_EQ(computed[0], "w4096r0u0:0-16384,0,0");  // the output probed, the scratch buffer not
    }
    ::setenv("GI_FAKE_PROBE_CRASH", "any", 1);
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate({with_block("256")}, 1);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(logged("probe-crash", "1").size(), 3u);  // once in the first evaluator's gate, twice in this one's
    EXPECT_EQ(logged("original-computed", "1").back(), "0,0,0");
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// Poison in a writable buffer the original reads as a loop count can make its probe run for ever.
// The worker says "probing" (with the plain run's time) first, so the probe is stopped after its
// launches' allowance, not the 300 s of the whole request, and the first run is tried again
// probing only the buffers the launch changed.
TEST_F(WriteSetEvaluator, AProbeThatHangsTheOriginalIsStoppedAfterItsAllowance) {
    if (IsSkipped()) return;
    add_variable_to_cases("scratch", 64, false);  // writable, left as it was by the launch
    ::setenv("GI_FAKE_PROBE_HANG", "0", 1);  // case 0's
    const auto start = std::chrono::steady_clock::now();
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate({with_block("96"), with_block("256")}, 0);
    ::unsetenv("GI_FAKE_PROBE_HANG");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    expect_refused_unwritten(r.results[0], "4096");
    EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
    EXPECT_GE(logged("probe-hang", "0").size(), 1u);
    EXPECT_EQ(logged("original-computed", "0").back(), "w4096r0u0:0-16384,0,0");
    EXPECT_LT(seconds, 60.0) << "the hung probe was given the whole request's allowance";
}

}  // namespace
}  // namespace gi
