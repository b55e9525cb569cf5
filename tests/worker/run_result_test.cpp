// The run reply as both ends see it (worker/run_result.hpp): what gi-worker sends is what the
// evaluator reads, every field and every digit.
#include "worker/run_result.hpp"

#include <gtest/gtest.h>

#include "cuda/cuda_classify.hpp"
#include "util/error.hpp"

namespace gi::worker {
namespace {

RunResult filled() {
    RunResult r;
    r.outcome = "ok";
    r.cuda_error = "CUDA_ERROR_LAUNCH_FAILED";
    r.sticky = true;
    r.detail = "buffer 0 (output, kernel argument 0): 1 of 16777216 elements differ, first at 5";
    r.elements = 16777216;
    r.mismatches = 1;
    r.unwritten = 2;
    r.non_finite = 3;
    r.worst = 1.0 / 3.0;
    r.error = 1.0 / 16777216.0;
    r.hard_failure = true;
    r.times_ms = {0.061632, 0.0616000001, 1e-5};
    r.launches_per_time = 16;
    r.poisonable = "1,0";
    r.loop_guard = "unusable: its guarded half has no copy of the module variable 'c'";
    r.stages = RunStages{0.5, 1.25, 2.125, 3, 0.25, 9.75, 0.125, 0.25, 0.125, 0.0625};
    r.compared_on_gpu = 4;
    r.compared_on_host = 5;
    r.integrity_on_gpu = 6;
    r.integrity_on_host = 7;
    r.reference_file = "/dev/shm/gi-ref/case-0";
    r.reference_sha256 = std::string(64, 'a');
    r.reference_error = "";
    return r;
}

TEST(RunResult, RoundTripsEveryField) {
    const RunResult r = filled();
    EXPECT_EQ(run_result_from(to_message(r)), r);
    RunResult bare;
    bare.outcome = "load-error";
    EXPECT_EQ(run_result_from(to_message(bare)), bare);
    EXPECT_FALSE(run_result_from(to_message(bare)).stages.has_value());
}

// Numbers went as std::to_string, six decimals: a mean penalty of 6e-8 (one element of a 16M-element
// output off by one) arrived as 0, and such a variant passed for exactly right in the search.
TEST(RunResult, SmallErrorsArriveWhole) {
    RunResult r;
    r.mismatches = 1;
    r.elements = 16777216;
    r.error = 1.0 / 16777216.0;
    r.worst = 1e-9;
    r.times_ms = {0.0000004};
    const RunResult back = run_result_from(to_message(r));
    EXPECT_EQ(back.error, r.error);
    EXPECT_EQ(back.worst, r.worst);
    EXPECT_EQ(back.times_ms, r.times_ms);
    const RunVerdict v = classify_run_reply(to_message(r));
    EXPECT_EQ(v.result.status, EvalStatus::Ok);
    EXPECT_GT(v.result.error, 0) << "a variant with a differing element is not exactly right";
    EXPECT_EQ(v.result.error, 1.0 / 16777216.0);
}

TEST(RunResult, LeftOutFieldsReadAsDefaults) {
    const RunResult r = run_result_from(Message{"result", {{"outcome", "no-kernel"}, {"sticky", "0"}, {"detail", "no such kernel"}}, {}});
    EXPECT_EQ(r.outcome, "no-kernel");
    EXPECT_EQ(r.detail, "no such kernel");
    EXPECT_EQ(r.elements, 0u);
    EXPECT_TRUE(r.times_ms.empty());
    EXPECT_FALSE(r.stages.has_value());
    EXPECT_EQ(r.compared_on_gpu, 0);
}

TEST(RunResult, MalformedFieldsAreNamed) {
    Message m = to_message(filled());
    m.fields["times"] = "1,x,3";
    try {
        run_result_from(m);
        FAIL() << "a malformed timing was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'times'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
    }
    m = to_message(filled());
    m.fields["load-parts-ms"] = "1,2";
    EXPECT_THROW(run_result_from(m), Error);
    m = to_message(filled());
    m.fields["error"] = "lots";
    EXPECT_THROW(run_result_from(m), Error);
    EXPECT_THROW(run_result_from(Message{"checked", {}, {}}), Error);
}

TEST(RunResult, AMissingOutcomeIsRefused) {
    Message m = to_message(filled());
    m.fields.erase("outcome");
    EXPECT_THROW(classify_run_reply(m), Error);
}

}  // namespace
}  // namespace gi::worker
