#include "run/run_result.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "run/record_xml.hpp"
#include "util/error.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

Timing timing(double ms) {
    Timing t;
    t.median_ms = ms;
    t.spread_ms = ms / 100;
    t.repetitions = 10;
    return t;
}

RunRecord finished_run() {
    RunRecord r;
    r.evaluator = "cuda";
    r.best.found = true;
    r.best.genome = "BLOCK_W=32";
    r.best.original = timing(2.0);
    r.best.time = timing(0.8);
    r.post_tune.ran = true;
    r.post_tune.original = timing(2.0);
    r.post_tune.best = "BLOCK_W=32 ROWS=8";
    r.post_tune.best_time = timing(0.5);
    r.final_check.ran = true;
    r.final_check.passed = true;
    r.final_check.summary = "validated 6 cases (2 held out): 921600 elements, 0 beyond tolerance, worst error 0";
    r.final_check.elements = 921600;
    r.final_genome = "BLOCK_W=32 ROWS=8";
    r.stop_reason = "time limit";
    r.finished = true;
    r.wall_seconds = 300;
    return r;
}

void write_run(const std::filesystem::path& dir, const RunRecord& record, const std::string& genome) {
    std::ofstream(dir / "best.genome") << genome << "\n";
    std::ofstream(dir / "run.xml") << run_record_document(record);
}

TEST(CacheRunResult, TakesTheGenomeTimingsAndValidation) {
    TemporaryDirectory dir("gi-run-result");
    write_run(dir.path(), finished_run(), "BLOCK_W=32 ROWS=8");
    const RunResult r = read_run_result(dir.path());
    EXPECT_EQ(r.genome, "BLOCK_W=32 ROWS=8");
    EXPECT_EQ(r.provenance.origin, "evolved");
    EXPECT_DOUBLE_EQ(r.provenance.original_ms, 2.0);
    EXPECT_DOUBLE_EQ(r.provenance.variant_ms, 0.5);
    EXPECT_DOUBLE_EQ(r.provenance.speedup(), 4.0);
    EXPECT_EQ(r.provenance.cases_validated, 6);
    EXPECT_EQ(r.provenance.elements_validated, 921600);
    EXPECT_EQ(r.provenance.worst_error, 0);
    EXPECT_NE(r.provenance.note.find("stopped by time limit"), std::string::npos) << r.provenance.note;
    EXPECT_TRUE(r.provenance.waiver.empty()) << r.provenance.waiver;
    EXPECT_TRUE(r.provenance.validated());
}

// Issue 40: an entry claimed "original 0.02661 ms, variant 0.003829 ms (speedup 6.9501x)" for an
// empty genome: the final checks had refused the search's best (a variant that wrote nothing on
// cases whose launch changed nothing) and shipped the original, but the entry took the refused
// best's time. Only a measurement of the final genome itself counts.
TEST(CacheRunResult, TimesAreTheFinalGenomesOwnOrNone) {
    RunRecord r = finished_run();
    r.post_tune.ran = false;
    r.best.genome = "<_mm.cu_40>";
    r.best.original = timing(0.02661);
    r.best.time = timing(0.003829);
    r.final_genome = "";  // the final checks refused the best and every fallback
    FinalTiming t = final_timing(r);
    EXPECT_DOUBLE_EQ(t.original_ms, 0.02661);
    EXPECT_DOUBLE_EQ(t.variant_ms, 0.02661);
    // A fallback the run never timed (the parameters alone, say): not measured.
    r.final_genome = "BLOCK_W=64";
    t = final_timing(r);
    EXPECT_LT(t.variant_ms, 0);
    EXPECT_LT(t.original_ms, 0);
    // The best, and its minimised form, are the best's time.
    r.final_genome = "<_mm.cu_40>";
    EXPECT_DOUBLE_EQ(final_timing(r).variant_ms, 0.003829);
    r.best.genome = "<_mm.cu_40> <_mm.cu_41>";
    r.minimise.ran = true;
    r.minimise.before = r.best.genome;
    r.minimise.after = "<_mm.cu_40>";
    EXPECT_DOUBLE_EQ(final_timing(r).variant_ms, 0.003829);
    // Post-tuning that the time limit stopped before it measured anything: still the best's time
    // (tests/programs/convolutionSeparable's entry said "variant not measured" on the GPU).
    r.post_tune.ran = true;
    r.post_tune.best = "<_mm.cu_40>";
    r.post_tune.best_time = Timing{};
    r.post_tune.original = Timing{};
    EXPECT_DOUBLE_EQ(final_timing(r).variant_ms, 0.003829);
    EXPECT_DOUBLE_EQ(final_timing(r).original_ms, 0.02661);
    r.post_tune.ran = false;

    // Through cache write's reader, with the GPU the run measured on.
    TemporaryDirectory dir("gi-run-result");
    r.final_genome = "";
    r.device = "NVIDIA H200";
    write_run(dir.path(), r, "");
    const RunResult result = read_run_result(dir.path());
    EXPECT_DOUBLE_EQ(result.provenance.speedup(), 1.0);
    EXPECT_EQ(result.provenance.gpu, "NVIDIA H200");
}

std::string run_error_of(const std::filesystem::path& dir, const RunWaivers& waivers = {}) {
    try {
        read_run_result(dir, waivers);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(CacheRunResult, ARunWithoutValidationIsRefusedUnlessWaived) {
    TemporaryDirectory dir("gi-run-result");
    RunRecord run = finished_run();
    run.final_check = {};
    run.final_check.note = "every training case was used in search and no held-out cases were given";
    write_run(dir.path(), run, "BLOCK_W=32");
    const std::string error = run_error_of(dir.path());
    EXPECT_NE(error.find("run.xml: the run's final genome was not validated on inputs its search never saw (every "
                         "training case was used in search and no held-out cases were given)"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("--allow-unvalidated"), std::string::npos) << error;
    const RunResult r = read_run_result(dir.path(), {.unvalidated = true});
    EXPECT_LT(r.provenance.cases_validated, 0);  // unknown, not "0 cases"
    EXPECT_FALSE(r.provenance.validated());
    EXPECT_EQ(r.provenance.waiver, "--allow-unvalidated: not validated on held-out inputs (every training case was used in "
                                   "search and no held-out cases were given)");
}

TEST(CacheRunResult, AnUnfinishedRunIsRefusedUnlessWaived) {
    // What a run killed mid-search leaves: the search's best so far, no final genome, no final check.
    TemporaryDirectory dir("gi-run-result");
    RunRecord run = finished_run();
    run.final_check = {};
    run.final_genome.clear();
    run.stop_reason.clear();
    run.finished = false;
    write_run(dir.path(), run, "BLOCK_W=32");
    const std::string error = run_error_of(dir.path());
    EXPECT_NE(error.find("the run did not finish"), std::string::npos) << error;
    EXPECT_NE(error.find("gi-tool evolve --resume --out"), std::string::npos) << error;
    EXPECT_NE(error.find("--allow-unfinished"), std::string::npos) << error;
    // Waiving one is not waiving the other: unfinished also means unvalidated.
    EXPECT_NE(run_error_of(dir.path(), {.unfinished = true}).find("not validated"), std::string::npos);
    EXPECT_NE(run_error_of(dir.path(), {.unvalidated = true}).find("did not finish"), std::string::npos);
    const RunResult r = read_run_result(dir.path(), {.unvalidated = true, .unfinished = true});
    EXPECT_NE(r.provenance.waiver.find("--allow-unfinished: the run stopped before its final checks"), std::string::npos)
        << r.provenance.waiver;
    EXPECT_NE(r.provenance.waiver.find("--allow-unvalidated"), std::string::npos) << r.provenance.waiver;
}

TEST(CacheRunResult, AnEmptyGenomeNeedsNoValidation) {
    TemporaryDirectory dir("gi-run-result");
    RunRecord run = finished_run();
    run.final_check = {};
    write_run(dir.path(), run, "");
    EXPECT_EQ(run_error_of(dir.path()), "");
}

TEST(CacheRunResult, AFailedFinalCheckCannotBeCached) {
    TemporaryDirectory dir("gi-run-result");
    RunRecord run = finished_run();
    run.final_check.passed = false;
    run.final_check.summary = "validated 6 cases: 10 elements beyond tolerance";
    write_run(dir.path(), run, "BLOCK_W=32");
    try {
        read_run_result(dir.path());
        FAIL() << "accepted a run whose validation failed";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("failed validation (validated 6 cases: 10 elements beyond tolerance)"),
                  std::string::npos) << e.what();
    }
}

TEST(CacheRunResult, MissingGenomeOrBrokenRecordIsAnError) {
    TemporaryDirectory dir("gi-run-result");
    EXPECT_THROW(read_run_result(dir.path()), Error);
    std::ofstream(dir.path() / "best.genome") << "BLOCK_W=32\n";
    std::ofstream(dir.path() / "run.xml") << "<gi-run";
    EXPECT_THROW(read_run_result(dir.path()), Error);
    std::filesystem::remove(dir.path() / "run.xml");
    // The genome alone is not enough: nothing would say it was ever checked.
    EXPECT_NE(run_error_of(dir.path(), {.unvalidated = true, .unfinished = true}).find("the run folder has no run record"),
              std::string::npos);
}

}  // namespace
}  // namespace gi
