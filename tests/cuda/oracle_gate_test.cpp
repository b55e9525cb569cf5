// The cuda evaluator's oracle gate (issue 15), with the fake worker: the original is replayed on
// every case before any variant is judged, and a case it does not reproduce, a kernel whose
// outputs move between runs without being declared nondeterministic, a case lacking a module
// variable of the kernel's file, or cases whose launch changed nothing stop the run with an error
// naming what is wrong. Without held-out cases part of the recorded ones is set aside.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <set>

#include "../support/fake_worker_fixture.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

class OracleGate : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "64,256", 3); }
    void TearDown() override {
        ::unsetenv("GI_FAKE_ORACLE");
        ::unsetenv("GI_FAKE_WRITES");
        ::unsetenv("GI_FAKE_GPU_MEMORY");
        FakeWorkerEvaluatorTest::TearDown();
    }
    // The error evaluate() throws (the gate runs before the first variant), "" when none.
    std::string gate_error(const CudaEvaluatorOptions& o) {
        try {
            CudaEvaluator e(grammar_, o);
            e.evaluate({with_block("256")}, 0);
        } catch (const Error& error) {
            return error.what();
        }
        return "";
    }
    long count(const std::string& what) const {
        const std::vector<gpu_test::FakeWorkerEvent> log = events();
        return std::count_if(log.begin(), log.end(), [&](const gpu_test::FakeWorkerEvent& e) { return e.what == what; });
    }
};

TEST_F(OracleGate, ReplaysTheOriginalTwiceOnEveryCaseBeforeTheFirstVariant) {
    if (IsSkipped()) return;
    CudaEvaluator e(grammar_, options(0));
    ::testing::internal::CaptureStderr();
    const BatchResult r = e.evaluate({with_block("256")}, 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    const std::vector<gpu_test::FakeWorkerEvent> log = events();
    const auto first_variant = std::find_if(log.begin(), log.end(), [](const auto& e) { return e.what == "variant"; });
    ASSERT_NE(first_variant, log.end());
    for (const std::string slot : {"0", "1", "2"}) {
        EXPECT_TRUE(std::any_of(log.begin(), first_variant, [&](const auto& e) { return e.what == "original-computed" && e.slot == slot; }))
            << "case " << slot;
        EXPECT_TRUE(std::any_of(log.begin(), first_variant, [&](const auto& e) { return e.what == "rerun" && e.slot == slot; }))
            << "case " << slot;
    }
    EXPECT_EQ(count("rerun"), 3);
    EXPECT_NE(err.find("reproduces its recorded outputs on all 3 cases"), std::string::npos) << err;
}

// Issue 44: with spare workers allowed, the original's first runs (write-set probes, reference
// outputs written) are made in other workers at once; the evaluator's worker takes each case with
// its outputs handed over and replays the original once more, as the gate asks of every case.
TEST_F(OracleGate, FirstRunsAreMadeAheadInOtherWorkersAndHandedOver) {
    if (IsSkipped()) return;
    CudaEvaluatorOptions o = options(2);
    o.set_aside = 1;  // the third case is held out
    CudaEvaluator e(grammar_, o);
    ASSERT_EQ(e.traits().case_count, 2);
    ::testing::internal::CaptureStderr();
    const BatchResult r = e.evaluate({with_block("256")}, 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    const std::vector<gpu_test::FakeWorkerEvent> log = events();
    std::set<std::string> variant_by, computed_by;
    for (const auto& event : log) {
        if (event.what == "variant") variant_by.insert(event.pid);
        if (event.what == "original-computed") computed_by.insert(event.pid);
    }
    ASSERT_EQ(variant_by.size(), 1u);  // the evaluator's worker
    const std::string main_worker = *variant_by.begin();
    EXPECT_EQ(computed_by.count(main_worker), 0u) << "the evaluator's worker ran a first run itself";
    EXPECT_EQ(computed_by.size(), 2u);
    auto by = [&](const std::string& pid, const std::string& what, const std::string& slot) {
        return std::any_of(log.begin(), log.end(), [&](const auto& e) { return e.pid == pid && e.what == what && e.slot == slot; });
    };
    for (const std::string slot : {"0", "1", "2"}) {
        EXPECT_EQ(std::count_if(log.begin(), log.end(), [&](const auto& e) { return e.what == "original-computed" && e.slot == slot; }), 1)
            << "case " << slot;
        EXPECT_EQ(std::count_if(log.begin(), log.end(), [&](const auto& e) { return e.what == "rerun" && e.slot == slot; }), 1)
            << "case " << slot;
    }
    // The training cases: taken with their outputs handed over, replayed again here.
    for (const std::string slot : {"0", "1"}) {
        EXPECT_TRUE(by(main_worker, "reference-loaded", slot)) << "case " << slot;
        EXPECT_TRUE(by(main_worker, "rerun", slot)) << "case " << slot;
    }
    // The held-out case: replayed again where it was first run; loaded here only to validate.
    EXPECT_FALSE(by(main_worker, "rerun", "2"));
    EXPECT_FALSE(by(main_worker, "reference-loaded", "2"));
    EXPECT_NE(err.find("reproduces its recorded outputs on all 3 cases"), std::string::npos) << err;
    EXPECT_NE(err.find("3 of the 3 made ahead in 2 workers at once"), std::string::npos) << err;
    EXPECT_NE(err.find("with the replays of 1 held-out cases, which this worker loads only to validate"), std::string::npos) << err;
}

// Workers ahead hold a case each beside the evaluator's worker, which holds them all: on a GPU
// whose memory the cases would crowd, the first runs stay in the evaluator's worker.
TEST_F(OracleGate, NoFirstRunIsMadeAheadWhereTheCasesWouldCrowdTheGpu) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_GPU_MEMORY", "1200000000", 1);  // 1.2 GB: room for the evaluator's worker only
    CudaEvaluator e(grammar_, options(2));
    ::testing::internal::CaptureStderr();
    const BatchResult r = e.evaluate({with_block("256")}, 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    ::unsetenv("GI_FAKE_GPU_MEMORY");
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    std::set<std::string> variant_by, computed_by;
    for (const auto& event : events()) {
        if (event.what == "variant") variant_by.insert(event.pid);
        if (event.what == "original-computed") computed_by.insert(event.pid);
    }
    EXPECT_EQ(computed_by, variant_by);  // all in the evaluator's worker
    EXPECT_EQ(err.find("made ahead"), std::string::npos) << err;
}

// A held-out case whose replay ahead moves beyond what is allowed stops the run as one replayed in
// the evaluator's worker would.
TEST_F(OracleGate, AHeldOutCaseReplayedAheadThatMovesStopsTheRunAlike) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORACLE", "moves-in-2", 1);
    CudaEvaluatorOptions o = options(2);
    o.set_aside = 1;  // the case in slot 2, held out
    const std::string error = gate_error(o);
    EXPECT_NE(error.find("scale-0002"), std::string::npos) << error;
    EXPECT_NE(error.find("change from one run to the next"), std::string::npos) << error;
    EXPECT_EQ(count("variant"), 0);
    std::set<std::string> rerun_by;
    for (const auto& event : events())
        if (event.what == "rerun" && event.slot == "2") rerun_by.insert(event.pid);
    ASSERT_EQ(rerun_by.size(), 1u);
    for (const auto& event : events())  // not the worker that replayed the training cases again
        if (event.what == "rerun" && event.slot == "0") EXPECT_EQ(rerun_by.count(event.pid), 0u);
}

TEST_F(OracleGate, ACaseMadeAheadThatDoesNotReproduceItsRecordingStopsTheRunAlike) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORACLE", "differs", 1);
    const std::string error = gate_error(options(2));
    EXPECT_NE(error.find("scale-0000"), std::string::npos) << error;
    EXPECT_NE(error.find("does not reproduce the outputs recorded"), std::string::npos) << error;
    EXPECT_EQ(count("variant"), 0);
}

// A first run that fails ahead (here its probes crash the original every time) is the evaluator's
// worker's to run again, with fewer probes, as without runs ahead: nothing is judged by it.
TEST_F(OracleGate, AFirstRunThatFailsAheadIsRunAgainInTheEvaluatorsWorker) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_PROBE_CRASH", "any", 1);
    CudaEvaluator e(grammar_, options(2));
    ::testing::internal::CaptureStderr();
    const BatchResult r = e.evaluate({with_block("256")}, 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    ::unsetenv("GI_FAKE_PROBE_CRASH");
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_NE(err.find("reproduces its recorded outputs on all 3 cases"), std::string::npos) << err;
    EXPECT_NE(err.find("0 of the 3 made ahead in 2 workers at once"), std::string::npos) << err;
    EXPECT_NE(err.find("the first not made there: scale-0000"), std::string::npos) << err;
}

TEST_F(OracleGate, ACaseThatDoesNotReproduceItsRecordingStopsTheRun) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORACLE", "differs", 1);
    const std::string error = gate_error(options(0));
    EXPECT_NE(error.find("scale-0000"), std::string::npos) << error;
    EXPECT_NE(error.find("does not reproduce the outputs recorded"), std::string::npos) << error;
    EXPECT_NE(error.find("7 of 100 elements beyond the tolerance"), std::string::npos) << error;
    EXPECT_NE(error.find("buffer 0 (output, kernel argument 0)"), std::string::npos) << error;
    EXPECT_NE(error.find("Likely causes"), std::string::npos) << error;
    EXPECT_EQ(count("variant"), 0);
}

TEST_F(OracleGate, OutputsThatMoveBetweenRunsStopTheRunUnlessDeclared) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORACLE", "moves", 1);
    const std::string error = gate_error(options(0));
    EXPECT_NE(error.find("change from one run to the next"), std::string::npos) << error;
    EXPECT_NE(error.find("--nondeterministic"), std::string::npos) << error;
    EXPECT_EQ(count("variant"), 0);
}

TEST_F(OracleGate, DeclaredNondeterminismIsReplayedSeveralTimesAndAcceptedWithinTheTolerance) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORACLE", "moves", 1);
    CudaEvaluatorOptions o = options(0);
    o.nondeterministic = true;
    CudaEvaluator e(grammar_, o);
    ::testing::internal::CaptureStderr();
    const BatchResult r = e.evaluate({with_block("256")}, 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(count("rerun"), 3 * kNondeterministicReplays);
    EXPECT_NE(err.find("moved by up to 0.002, within the tolerance"), std::string::npos) << err;
}

TEST_F(OracleGate, DeclaredNondeterminismBeyondTheToleranceStopsTheRun) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORACLE", "moves-beyond", 1);
    CudaEvaluatorOptions o = options(0);
    o.nondeterministic = true;
    const std::string error = gate_error(o);
    EXPECT_NE(error.find("varies beyond the tolerance"), std::string::npos) << error;
    EXPECT_NE(error.find("3 of 100 elements differ"), std::string::npos) << error;
    EXPECT_NE(error.find("Widen TOLERANCE"), std::string::npos) << error;
}

TEST_F(OracleGate, EveryCaseWhoseLaunchChangedNothingIsRefusedWhenNothingIsPoisoned) {
    if (IsSkipped()) return;
    // Every element read-modify-write: nothing can be poisoned (write_set_evaluator_test.cpp has
    // the cases whose written elements are).
    ::setenv("GI_FAKE_WRITES", "rmw", 1);
    for (const auto& folder : list_test_cases(folder_.path() / "cases")) {
        TestCase tc = read_test_case(folder);
        for (CaseBuffer& b : tc.buffers) {
            b.after = b.before;
            b.changed = false;
        }
        std::filesystem::remove_all(folder);
        write_test_case(tc, folder_.path() / "cases");
    }
    const std::string error = gate_error(options(0));
    EXPECT_NE(error.find("in every recorded case the launch changed nothing"), std::string::npos) << error;
    EXPECT_NE(error.find("no output element could be poisoned (scale-"), std::string::npos) << error;
    EXPECT_NE(error.find("(buffer 0: none of 4096 elements poisoned, 4096 read-modify-write)"), std::string::npos) << error;
}

// A kernel file with a __constant__ array: cases recorded without it would replay with zeros.
class OracleGateVariables : public OracleGate {
protected:
    void SetUp() override {
        set_up(R"(#define BLOCK 256
__constant__ float weights[4];
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = weights[0] * in[i];
}
)",
               "64,256", 1);
    }
};

TEST_F(OracleGateVariables, ACaseWithoutTheKernelFilesConstantsIsRefused) {
    if (IsSkipped()) return;
    const std::string error = gate_error(options(0));
    EXPECT_NE(error.find("scale-0000: this case does not hold the __constant__ variable 'weights'"), std::string::npos) << error;
    EXPECT_NE(error.find("gi-tool record"), std::string::npos) << error;
    EXPECT_EQ(count("original-computed"), 0);
}

TEST_F(OracleGateVariables, ACaseHoldingThemIsReplayed) {
    if (IsSkipped()) return;
    add_variable_to_cases("weights", 16, true);
    EXPECT_EQ(gate_error(options(0)), "");
}

class SetAside : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "64,256", 5); }
};

TEST_F(SetAside, WithoutHeldOutCasesAQuarterOfTheRecordedOnesValidate) {
    if (IsSkipped()) return;
    CudaEvaluatorOptions o = options(0);
    o.set_aside = -1;
    ::testing::internal::CaptureStderr();
    CudaEvaluator e(grammar_, o);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(e.case_count(), 4);
    EXPECT_NE(err.find("1 of the 5 recorded cases (scale-0004) are set aside to validate the result; search uses the other 4"),
              std::string::npos)
        << err;
    // The set-aside case is validated, never searched on.
    EXPECT_THROW(e.evaluate({with_block("256")}, 4), Error);
    const ValidationReport report = e.validate(with_block("256"));
    ASSERT_FALSE(report.cases.empty());
    EXPECT_TRUE(std::any_of(report.cases.begin(), report.cases.end(), [](const CaseValidation& c) {
        return c.held_out && c.case_path.find("scale-0004") != std::string::npos;
    }));
}

TEST_F(SetAside, ExplicitCountsAndItsLimits) {
    if (IsSkipped()) return;
    CudaEvaluatorOptions o = options(0);
    o.set_aside = 2;
    EXPECT_EQ(CudaEvaluator(grammar_, o).case_count(), 3);
    o.set_aside = 0;
    EXPECT_EQ(CudaEvaluator(grammar_, o).case_count(), 5);
    o.set_aside = 5;
    try {
        CudaEvaluator e(grammar_, o);
        FAIL() << "no error";
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find("--set-aside 5 would leave no training case"), std::string::npos) << error.what();
    }
}

TEST_F(SetAside, HeldOutCasesMeanNoneIsSetAsideByDefault) {
    if (IsSkipped()) return;
    write_test_case(gpu_test::scale_case(256), folder_.path() / "held-out");
    CudaEvaluatorOptions o = options(0);
    o.set_aside = -1;
    o.held_out = folder_.path() / "held-out";
    EXPECT_EQ(CudaEvaluator(grammar_, o).case_count(), 5);
}

}  // namespace
}  // namespace gi
