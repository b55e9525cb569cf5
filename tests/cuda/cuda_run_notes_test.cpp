// What the cuda evaluator tells a user at the end of a run (cuda/cuda_run_notes.hpp), and the
// variant runs' counters it reads (VariantRunStats::add): pure, from counters and facts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/cuda_classify.hpp"
#include "cuda/cuda_run_notes.hpp"

namespace gi {
namespace {

std::string all(const std::vector<std::string>& notes) {
    std::string text;
    for (const std::string& note : notes) text += note + "\n";
    return text;
}

TEST(CudaRunNotes, NothingEvaluatedNothingToSay) {
    CudaEvaluatorStats stats;
    CudaEvaluatorOptions options;
    std::vector<CaseSlot> slots(1);
    EXPECT_TRUE(cuda_run_notes({stats, options, slots, false, false, ""}).empty());
}

// Through a launcher the run says how many workers were lost with it and how many cases it sent.
TEST(CudaRunNotes, ALaunchedRunCountsLostWorkersAndCasesSent) {
    CudaEvaluatorStats stats;
    stats.workers.launcher_losses = 2;
    stats.workers.cases_sent = 3;
    CudaEvaluatorOptions options;
    std::vector<CaseSlot> slots(1);
    EXPECT_EQ(all(cuda_run_notes({stats, options, slots, false, false, ""})).find("launcher"), std::string::npos);
    options.worker_launcher = {"srun", "--gres=gpu:1", "-N1"};
    EXPECT_NE(all(cuda_run_notes({stats, options, slots, false, false, ""}))
                  .find("workers were started through the launcher 'srun --gres=gpu:1 -N1': 2 lost with it and replaced "
                        "(their requests run again, never judged), 3 cases sent to a worker whose node did not see them"),
              std::string::npos);
}

TEST(CudaRunNotes, TimeNoteSaysWhereEvaluateTimeWentFromEachPartsCounters) {
    CudaEvaluatorStats stats;
    stats.variants = 40;
    stats.compile_wait_ms = 1500;
    stats.build.compiled = 10;
    stats.build.compile_cpu_ms = 2000;
    stats.build.compiler = "nvrtc";
    stats.runs.run_ms = 4000;
    stats.workers.original_ms = 250;
    stats.workers.worker_restarts = 3;
    stats.workers.restart_ms = 900;
    CudaEvaluatorOptions options;
    std::vector<CaseSlot> slots(2);
    slots[1].path = "/cases/small";
    slots[1].launches_per_time = 16;
    const std::string text = all(cuda_run_notes({stats, options, slots, false, false, ""}));
    EXPECT_NE(text.find("waiting for compiles 1.5 s (10 compiles with nvrtc, 200 ms each"), std::string::npos) << text;
    EXPECT_NE(text.find("variant runs 4.0 s"), std::string::npos) << text;
    EXPECT_NE(text.find("original runs 0.2 s"), std::string::npos) << text;
    EXPECT_NE(text.find("worker restarts 0.9 s (3), for 40 variants"), std::string::npos) << text;
    EXPECT_NE(text.find("launches per case: small 16;"), std::string::npos) << text;
    EXPECT_EQ(text.find("by stage"), std::string::npos) << "no run reported its stages";

    EXPECT_EQ(text.find("timed twice"), std::string::npos) << "no batch timed the original twice";

    // Evolve's summary says where the runs went by stage (issue 19: restores and comparison too).
    stats.runs.staged_runs = 30;
    stats.runs.stage_load_ms = 300;
    stats.runs.stage_check_ms = 1200;
    stats.runs.stage_compare_ms = 600;
    stats.runs.stage_timed_ms = 1400;
    stats.runs.stage_integrity_ms = 100;
    stats.runs.stage_request_ms = 3900;
    const std::string staged = all(cuda_run_notes({stats, options, slots, false, false, ""}));
    EXPECT_NE(staged.find("variant runs 4.0 s (of which variants that timed out 0.0 s; by stage, over the 30 runs that "
                          "finished: module loads 0.3 s, check runs (restoring the case included) 1.2 s, comparing "
                          "outputs 0.6 s, timed runs 1.4 s, checking the worker's copies of the case 0.1 s, the rest "
                          "(pipes, payload) 0.3 s; output buffers"),
              std::string::npos)
        << staged;
}

TEST(CudaRunNotes, NvccForEveryVariantSaysWhy) {
    CudaEvaluatorStats stats;
    stats.build.compiled = 4;
    stats.build.compile_cpu_ms = 4000;
    CudaEvaluatorOptions options;
    std::vector<CaseSlot> slots;
    const std::string text = all(cuda_run_notes({stats, options, slots, true, false, "it includes <thrust/sort.h>"}));
    EXPECT_NE(text.find("every variant was compiled with nvcc, 1000 ms a compile here, because NVRTC cannot take the kernel "
                        "file: it includes <thrust/sort.h>"),
              std::string::npos)
        << text;
}

TEST(VariantRunStats, CountsGuardStopsAlwaysAndStagesWhenReported) {
    VariantRunStats stats;
    RunVerdict stopped;
    stopped.loop_overrun = true;
    stats.add(stopped, 5, false);
    RunVerdict staged;
    staged.has_stages = true;
    staged.load_ms = 2;
    staged.timed_ms = 3;
    staged.compared_on_gpu = 2;
    stats.add(staged, 7, true);
    EXPECT_EQ(stats.loop_overruns, 1);
    EXPECT_EQ(stats.staged_runs, 1);
    EXPECT_DOUBLE_EQ(stats.stage_request_ms, 7);
    EXPECT_DOUBLE_EQ(stats.stage_load_ms, 2);
    EXPECT_EQ(stats.compared_on_gpu, 2);
    EXPECT_EQ(stats.staged_beside_exiting, 1);
    EXPECT_DOUBLE_EQ(stats.beside_exiting_timed_ms, 3);
}

// The original timed before and after each batch's variants: how often its two timings disagreed
// beyond noise, each way, beside the time its runs took.
TEST(CudaRunNotes, TimeNoteSaysHowOftenTheOriginalsTwoTimingsDisagreed) {
    CudaEvaluatorStats stats;
    stats.variants = 40;
    stats.workers.original_ms = 250;
    stats.originals_timed_twice = 12;
    stats.original_first_slower = 2;
    stats.original_second_slower = 1;
    CudaEvaluatorOptions options;
    std::vector<CaseSlot> slots(1);
    const std::string text = all(cuda_run_notes({stats, options, slots, false, false, ""}));
    EXPECT_NE(text.find("original runs 0.2 s (timed twice in 12 batches, the faster kept: 2 times the first was slower "
                        "beyond noise, 1 times the second; of which readying a worker"),
              std::string::npos)
        << text;
}

}  // namespace
}  // namespace gi
