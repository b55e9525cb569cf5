// Variants that compile to the same program as an earlier one in their batch (evaluate/
// binary_identity.hpp), without a GPU: gi_tests stands in for gi-worker (tests/support/fake_worker.cpp,
// mode "replay", which logs every variant run) and the compiles are real (NVRTC). Edits the
// compiler throws away (a comment, `const` on a by-value parameter) must cost no run and get the
// first variant's result; a real change must still run; --run-binary-duplicates runs them all.
// Sanitizer verdicts are reused the same way, across calls too; a stand-in compute-sanitizer (a
// script that logs its arguments and passes) counts the checks.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "../support/fake_worker_fixture.hpp"
#include "cuda/binary_identity.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "cuda/sanitizer_sessions.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

class BinaryDuplicates : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "256,1024"); }

    // The original (block 256), then three variants of it: `const` on n, a trailing comment, and
    // block 1024, in that order.
    std::vector<Variant> batch() const {
        Genome const_n;
        set_gene(const_n, "const_n", "1");
        const std::string commented = std::string(gpu_test::kScaleKernel) + "// a comment the compiler drops\n";
        return {with_block("256"), make_variant(const_n, grammar_), Variant{Genome{}, commented, {}, sha256_hex(commented)},
                with_block("1024")};
    }

    std::filesystem::path sanitizer_log() const { return folder_.path() / "sanitizer.log"; }

    // Session mode (--log-file given): runs the fake worker, which logs a report for the 1024-thread
    // launch. Otherwise a process of its own: logs the list's size, fails that launch, passes others.
    std::string session_sanitizer() const {
        return FakeWorkerEvaluatorTest::session_sanitizer(
            "echo \"$(grep -c . \"$list\")\" >> '" + sanitizer_log().string() + "'\n" +
            "if grep -q 1024 \"$list\"; then echo '========= Invalid __global__ read'; exit 86; fi\n" +
            "echo \"gi-worker: ran $(grep -c . \"$list\") variant(s)\"\nexit 0\n");
    }
    static Variant program(const char* expression) {
        std::string text = gpu_test::kScaleKernel;
        text.replace(text.find("2.0f * in[i]"), 12, expression);
        return Variant{Genome{}, text, {}, sha256_hex(text)};
    }
    // The prescreen's options over the gate cases in gate-cases/: guard zones (and pages) in
    // sessions of the fake worker, `jobs` checks at once.
    CudaEvaluatorOptions gate_case_prescreen(int jobs) const {
        CudaEvaluatorOptions o = options(0);
        o.sanitizer = session_sanitizer();
        o.sanitize_jobs = jobs;
        o.sanitize_sessions = 2;
        o.gate_guard_kib = 4;
        o.sanitize_cases = folder_.path() / "gate-cases";
        return o;
    }
    long sanitizer_runs() const {
        std::ifstream in(sanitizer_log());
        long lines = 0;
        for (std::string line; std::getline(in, line);) ++lines;
        return lines;
    }

    long variant_runs() const {
        const std::vector<gpu_test::FakeWorkerEvent> log = events();
        return std::count_if(log.begin(), log.end(), [](const gpu_test::FakeWorkerEvent& e) { return e.what == "variant"; });
    }
};

TEST_F(BinaryDuplicates, TheScaleKernelHasTheConstGene) {
    // The test below relies on this gene: a by-value parameter made const changes no code.
    ASSERT_NE(grammar_.find_gene("const_n"), nullptr);
}

TEST_F(BinaryDuplicates, AnEditTheCompilerDropsGetsTheFirstResultWithoutARun) {
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate(batch(), 0);
    ASSERT_EQ(r.results.size(), 4u);
    for (const EvalResult& result : r.results) EXPECT_EQ(result.status, EvalStatus::Ok) << result.detail;
    for (int i : {1, 2}) {
        EXPECT_EQ(r.results[i].time.median_ms, r.results[0].time.median_ms) << i;
        EXPECT_EQ(r.results[i].time.repetitions, r.results[0].time.repetitions) << i;
    }
    EXPECT_EQ(e.stats().binary_duplicates, 2);
    EXPECT_EQ(e.stats().duplicates, 0);  // the texts all differ
    EXPECT_EQ(variant_runs(), 2);        // block 256 once, block 1024
    EXPECT_EQ(e.stats().variants, 4);
}

TEST_F(BinaryDuplicates, EachBatchRunsItsOwnFirstCopy) {
    // Reuse is within a batch: each batch is timed against its own measurement of the original.
    CudaEvaluator e(grammar_, options(0));
    e.evaluate(batch(), 0);
    e.evaluate({batch()[1]}, 0);
    EXPECT_EQ(variant_runs(), 3);
    EXPECT_EQ(e.stats().binary_duplicates, 2);
}

TEST_F(BinaryDuplicates, RunBinaryDuplicatesRunsEveryVariant) {
    CudaEvaluatorOptions o = options(0);
    o.reuse_binary_duplicates = false;
    CudaEvaluator e(grammar_, o);
    const BatchResult r = e.evaluate(batch(), 0);
    for (const EvalResult& result : r.results) EXPECT_EQ(result.status, EvalStatus::Ok) << result.detail;
    EXPECT_EQ(e.stats().binary_duplicates, 0);
    EXPECT_EQ(variant_runs(), 4);
}

// evolve prints the evaluator's notes at the end: where evaluate()'s time went (issue 19).
TEST_F(BinaryDuplicates, TheRunNotesSayWhereTheEvaluatorsTimeWent) {
    CudaEvaluator e(grammar_, options(0));
    e.evaluate(batch(), 0);
    const std::vector<std::string> notes = e.run_notes();
    ASSERT_FALSE(notes.empty());
    EXPECT_EQ(notes.front().rfind("cuda evaluator time: waiting for compiles ", 0), 0u) << notes.front();
    for (const char* part : {" compiles with ", " ms each, ", "variant runs ", "original runs ", "readying a worker with the batch's case",
                             "waiting for killed workers to exit ", "worker restarts ", "for 4 variants"})
        EXPECT_NE(notes.front().find(part), std::string::npos) << part << " missing from: " << notes.front();
}

TEST_F(BinaryDuplicates, SanitizerVerdictsAreReusedForTheSameProgram) {
    CudaEvaluatorOptions o = options(0);
    o.sanitizer = passing_sanitizer(sanitizer_log());
    o.sanitize_sessions = 0;  // a process per batch (the sessions' test is below)
    CudaEvaluator e(grammar_, o);
    const std::vector<Variant> variants = batch();
    const std::vector<EvalResult> first = e.sanitize_many(variants, 0);
    ASSERT_EQ(first.size(), 4u);
    for (const EvalResult& result : first) EXPECT_EQ(result.status, EvalStatus::Ok) << result.detail;
    EXPECT_EQ(sanitizer_runs(), 2);  // memcheck of block 256 and of block 1024 (in one process or two)
    EXPECT_EQ(e.stats().gate.binary_reuses, 2);
    // Later, another text of the same program: no check, unlike a new program.
    const std::string other_text = std::string(gpu_test::kScaleKernel) + "// another comment\n";
    e.sanitize_many({Variant{Genome{}, other_text, {}, sha256_hex(other_text)}}, 0);
    EXPECT_EQ(sanitizer_runs(), 2);
    EXPECT_EQ(e.stats().gate.binary_reuses, 3);
}

TEST_F(BinaryDuplicates, RunBinaryDuplicatesSanitizesEveryProgramText) {
    CudaEvaluatorOptions o = options(0);
    o.sanitizer = passing_sanitizer(sanitizer_log());
    o.reuse_binary_duplicates = false;
    o.sanitize_sessions = 0;  // a process per batch (the sessions' test is below)
    CudaEvaluator e(grammar_, o);
    e.sanitize_many(batch(), 0);
    EXPECT_EQ(sanitizer_runs(), 4);
    EXPECT_EQ(e.stats().gate.binary_reuses, 0);
}

// A compile option NVRTC has no equivalent of sends every compile to nvcc; the run notes name it.
TEST_F(BinaryDuplicates, TheRunNotesNameTheOptionThatSentCompilesToNvcc) {
    CudaEvaluatorOptions o = options(0);
    o.compile_options = {"-res-usage"};
    CudaEvaluator e(grammar_, o);
    e.evaluate({with_block("256")}, 0);
    EXPECT_EQ(e.stats().build.compiler, "nvcc");
    bool named = false;
    for (const std::string& note : e.run_notes())
        named = named || note.find("because NVRTC has no equivalent of the compile option '-res-usage' (docs/evaluation.md") !=
                             std::string::npos;
    EXPECT_TRUE(named);
}

// Issue 19: the gate's variants share compute-sanitizer processes; a batch that does not pass is
// checked again one variant per process, so only the variant with the error gets it.
TEST_F(BinaryDuplicates, ABatchThatFailsIsCheckedAgainOneVariantAtATime) {
    CudaEvaluatorOptions o = options(0);
    // Fails any list holding the 1024-thread launch (its line names the block), passes the others.
    const std::filesystem::path script = folder_.path() / "picky-sanitizer";
    std::ofstream(script) << "#!/bin/sh\nfor a; do list=$a; done\necho \"$(grep -c . \"$list\")\" >> '"
                          << sanitizer_log().string() << "'\n"
                          << "if grep -q 1024 \"$list\"; then echo '========= Invalid __global__ read'; exit 86; fi\n"
                          << "echo \"gi-worker: ran $(grep -c . \"$list\") variant(s)\"\nexit 0\n";
    ::chmod(script.c_str(), 0755);
    o.sanitizer = script.string();
    o.sanitize_jobs = 1;  // one process slot: all variants in one batch
    o.sanitize_sessions = 0;  // a process per batch (the sessions' test is below)
    CudaEvaluator e(grammar_, o);
    const std::vector<Variant> variants = batch();
    const std::vector<EvalResult> results = e.sanitize_many(variants, 0);
    ASSERT_EQ(results.size(), 4u);
    for (int i : {0, 1, 2}) EXPECT_EQ(results[i].status, EvalStatus::Ok) << i << ": " << results[i].detail;
    EXPECT_EQ(results[3].status, EvalStatus::SanitizerError) << results[3].detail;
    // One process for the two programs (block 256, block 1024), then one each.
    std::ifstream in(sanitizer_log());
    std::vector<std::string> sizes;
    for (std::string line; std::getline(in, line);) sizes.push_back(line);
    EXPECT_EQ(sizes, (std::vector<std::string>{"2", "1", "1"}));
    EXPECT_EQ(e.stats().gate.batch_reruns, 1);
    EXPECT_EQ(e.stats().gate.checked, 2);
}

// Issue 19: long-lived sanitizer processes check variant after variant, one a request; a report
// judges the variant of its request, the session ends and a replacement starts at once.
TEST_F(BinaryDuplicates, SessionsJudgeEachVariantOnItsOwnRequest) {
    CudaEvaluatorOptions o = options(0);
    o.gate_guard_kib = 0;  // memcheck's sessions alone (the guard zones' test is below)
    o.sanitizer = session_sanitizer();
    o.sanitize_jobs = 1;
    o.sanitize_sessions = 1;
    CudaEvaluator e(grammar_, o);
    // Block 256 alone passes in the session: no process of its own.
    std::vector<EvalResult> results = e.sanitize_many({with_block("256")}, 0);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, EvalStatus::Ok) << results[0].detail;
    EXPECT_EQ(sanitizer_runs(), 0);
    EXPECT_EQ(e.stats().gate.session_passes, 1);
    // With block 1024 the session reports on that variant's request: its verdict, no process.
    results = e.sanitize_many({program("2.0f * in[i] + 0.0f"), with_block("1024")}, 0);
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].status, EvalStatus::Ok) << results[0].detail;
    EXPECT_EQ(results[1].status, EvalStatus::SanitizerError) << results[1].detail;
    EXPECT_NE(results[1].detail.find("Invalid __global__ read"), std::string::npos) << results[1].detail;
    EXPECT_EQ(sanitizer_runs(), 0);
    EXPECT_EQ(e.stats().gate.session_passes, 2);
    EXPECT_EQ(e.stats().gate.session_judged, 1);
    // The ended session was replaced on the spot; the next batch finds the replacement.
    EXPECT_EQ(e.stats().gate.sessions_started, 2);
    EXPECT_EQ(e.stats().gate.sessions_replaced, 1);
    results = e.sanitize_many({program("3.0f * in[i]")}, 0);
    EXPECT_EQ(results[0].status, EvalStatus::Ok) << results[0].detail;
    EXPECT_EQ(e.stats().gate.sessions_started, 2);
    EXPECT_EQ(e.stats().gate.session_passes, 3);
    EXPECT_EQ(sanitizer_runs(), 0);
    // The gate's time per checker: 4 variants in sessions.
    EXPECT_EQ(e.stats().gate.tool_variants.at("memcheck"), 4);
    bool noted = false, judged = false;
    for (const std::string& note : e.run_notes()) {
        noted = noted || note.find("checks' wall time: memcheck ") != std::string::npos;
        judged = judged || note.find("3 variants passed and 1 were judged by a report") != std::string::npos;
    }
    EXPECT_TRUE(noted);
    EXPECT_TRUE(judged);
    // And the sessions' part by what the worker said it did: the fake one says 2 ms of module
    // loading a variant, for the 4 variants its sessions ran (the one it reported on included).
    EXPECT_NEAR(e.stats().gate.session_times.at("memcheck").loads, 0.008, 1e-9);
    bool parts = false;
    for (const std::string& note : e.run_notes()) parts = parts || note.find("in sessions, seconds: memcheck: start-up waited ") != std::string::npos;
    EXPECT_TRUE(parts);

    // Started ahead (search calls expect_checks() before it begins): the first gate finds its
    // memcheck sessions running and starts none; without sessions there is nothing to start.
    o.sanitize_sessions = 2;
    CudaEvaluator ahead(grammar_, o);
    ahead.expect_checks();
    EXPECT_EQ(ahead.stats().gate.sessions_started, 2);
    results = ahead.sanitize_many({program("4.0f * in[i]"), program("5.0f * in[i]")}, 0);
    EXPECT_EQ(results[0].status, EvalStatus::Ok) << results[0].detail;
    EXPECT_EQ(ahead.stats().gate.sessions_started, 2);
    EXPECT_EQ(ahead.stats().gate.session_passes, 2);
    o.sanitize_sessions = 0;
    CudaEvaluator none(grammar_, o);
    none.expect_checks();
    EXPECT_EQ(none.stats().gate.sessions_started, 0);
}

// A session that fails a variant without a report (a launch failed, it died or timed out) judges
// nothing: that variant alone gets a process of its own, and the variants after it go on in a
// new session.
TEST_F(BinaryDuplicates, ASessionFailureWithoutAReportSendsThatVariantToAProcess) {
    CudaEvaluatorOptions o = options(0);
    o.gate_guard_kib = 0;  // memcheck's sessions alone (the guard zones' test is below)
    o.sanitizer = session_sanitizer();
    o.sanitize_jobs = 1;
    o.sanitize_sessions = 1;
    ::setenv("GI_FAKE_CHECK_FAILS_SILENTLY", "1", 1);
    CudaEvaluator e(grammar_, o);
    const std::vector<EvalResult> results =
        e.sanitize_many({program("2.0f * in[i] + 0.0f"), with_block("1024"), program("3.0f * in[i]")}, 0);
    ::unsetenv("GI_FAKE_CHECK_FAILS_SILENTLY");
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].status, EvalStatus::Ok) << results[0].detail;
    EXPECT_EQ(results[1].status, EvalStatus::SanitizerError) << results[1].detail;  // from its own process
    EXPECT_EQ(results[2].status, EvalStatus::Ok) << results[2].detail;
    EXPECT_EQ(sanitizer_runs(), 1);  // one process, of one variant
    EXPECT_EQ(e.stats().gate.session_passes, 2);
    EXPECT_EQ(e.stats().gate.session_judged, 0);
    EXPECT_EQ(e.stats().gate.sessions_replaced, 0);  // not replaced ahead: started when needed
    EXPECT_EQ(e.stats().gate.sessions_started, 2);
}

// Issue 19: with sessions the gate first runs each variant in gi-worker alone, its buffers between
// guard zones. A variant that writes into them is judged there, without compute-sanitizer; the
// others, and one whose guarded run failed otherwise, go on to memcheck, which decides as before.
TEST_F(BinaryDuplicates, GuardZonesJudgeAWriteOutsideItsBuffersBeforeTheSanitizer) {
    CudaEvaluatorOptions o = options(0);
    o.sanitizer = session_sanitizer();
    o.sanitize_jobs = 1;
    o.sanitize_sessions = 2;
    o.gate_guard_kib = 4;
    o.gate_guard_pages = false;  // zones after the buffers too (the pages, the default, are below)
    CudaEvaluator e(grammar_, o);
    // The fake worker writes outside for the 512-thread launch, when its buffers have guard zones.
    const std::vector<EvalResult> results =
        e.sanitize_many({program("2.0f * in[i] + 0.0f"), with_block("512"), with_block("1024")}, 0);
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].status, EvalStatus::Ok) << results[0].detail;
    EXPECT_EQ(results[1].status, EvalStatus::SanitizerError) << results[1].detail;
    EXPECT_NE(results[1].detail.find("guard zones found it writing outside its buffers"), std::string::npos) << results[1].detail;
    EXPECT_NE(results[1].detail.find("4096 bytes after its end changed"), std::string::npos) << results[1].detail;
    // Block 1024 passes the guard zones (a read outside is not theirs to see); memcheck judges it.
    EXPECT_EQ(results[2].status, EvalStatus::SanitizerError) << results[2].detail;
    EXPECT_NE(results[2].detail.find("Invalid __global__ read"), std::string::npos) << results[2].detail;
    const SanitizerGateStats& gate = e.stats().gate;
    EXPECT_EQ(gate.guard_judged, 1);
    EXPECT_EQ(gate.session_judged, 1);  // memcheck's
    EXPECT_EQ(gate.tool_variants.at(kGuardZonesTool), 3);
    EXPECT_EQ(gate.tool_variants.at("memcheck"), 2);  // not the one the guard zones judged
    EXPECT_EQ(sanitizer_runs(), 0);                   // no process of its own for any
    // The guard zones' worker found its own copies intact after the write and served on: one
    // guard-zones session, one memcheck session and memcheck's replacement after its report.
    EXPECT_EQ(gate.sessions_started, 3);
    EXPECT_EQ(gate.sessions_replaced, 1);
    bool noted = false, first = false;
    for (const std::string& note : e.run_notes()) {
        noted = noted || note.find("sanitizer gate: 3 variants checked, 1 of them judged by guard zones around their buffers") !=
                             std::string::npos;
        // What did not pass a compute-sanitizer session, not the guard zones' catch before it.
        first = first || note.find("(the first that did not pass there: memcheck: it reported") != std::string::npos;
    }
    EXPECT_TRUE(noted);
    EXPECT_TRUE(first);

    // A write that also changed the worker's own copies ends the guard zones' session; the next
    // variant gets a new one.
    ::setenv("GI_FAKE_GUARD_HARMS", "1", 1);
    CudaEvaluator harmed(grammar_, o);
    const std::vector<EvalResult> after_harm = harmed.sanitize_many({with_block("512"), program("3.0f * in[i]")}, 0);
    ::unsetenv("GI_FAKE_GUARD_HARMS");
    EXPECT_EQ(after_harm[0].status, EvalStatus::SanitizerError) << after_harm[0].detail;
    EXPECT_EQ(after_harm[1].status, EvalStatus::Ok) << after_harm[1].detail;
    EXPECT_EQ(harmed.stats().gate.sessions_started, 3);  // guard zones twice, memcheck once
    EXPECT_EQ(harmed.stats().gate.sessions_replaced, 1);  // the guard zones' second, started on release

    // A guarded run that fails without writing outside (here: its launch fails) judges nothing:
    // memcheck checks that variant in a session as any other (and, failing silently there too,
    // in a process of its own).
    ::setenv("GI_FAKE_CHECK_FAILS_SILENTLY", "1", 1);
    CudaEvaluator failing(grammar_, o);
    const std::vector<EvalResult> failed = failing.sanitize_many({with_block("1024")}, 0);
    ::unsetenv("GI_FAKE_CHECK_FAILS_SILENTLY");
    EXPECT_EQ(failed[0].status, EvalStatus::SanitizerError) << failed[0].detail;  // from its own process
    EXPECT_EQ(failing.stats().gate.guard_judged, 0);
    EXPECT_EQ(failing.stats().gate.tool_variants.at("memcheck"), 2);  // its session's check, then its process
    EXPECT_EQ(sanitizer_runs(), 1);

    // Guard-zone workers that cannot open their case judge nothing; after three such checks in a
    // row the zones are off for the run and memcheck's sessions check alone (no processes).
    ::setenv("GI_FAKE_GUARD_CASE_FAILS", "1", 1);
    CudaEvaluator no_room(grammar_, o);
    const std::vector<EvalResult> unguarded = no_room.sanitize_many(
        {program("4.0f * in[i]"), program("5.0f * in[i]"), program("6.0f * in[i]"), program("7.0f * in[i]"), with_block("512")}, 0);
    ::unsetenv("GI_FAKE_GUARD_CASE_FAILS");
    for (const EvalResult& r : unguarded) EXPECT_EQ(r.status, EvalStatus::Ok) << r.detail;  // 512 passes memcheck
    EXPECT_EQ(no_room.stats().gate.tool_variants.at(kGuardZonesTool), SanitizerSessions::kGuardZonesOff);
    EXPECT_EQ(no_room.stats().gate.tool_variants.at("memcheck"), 5);
    EXPECT_EQ(no_room.stats().gate.session_passes, 5);
    EXPECT_EQ(sanitizer_runs(), 1);  // only the earlier one

    // Guard pages (the default): the read memcheck reports on faults at the page after the buffer
    // and is judged there, without memcheck; the write into the zone before is judged as before.
    o.gate_guard_pages = true;
    CudaEvaluator paged(grammar_, o);
    const std::vector<EvalResult> pages =
        paged.sanitize_many({program("2.0f * in[i] + 0.0f"), with_block("512"), with_block("1024")}, 0);
    EXPECT_EQ(pages[0].status, EvalStatus::Ok) << pages[0].detail;
    EXPECT_NE(pages[1].detail.find("guard zones found it writing outside its buffers"), std::string::npos) << pages[1].detail;
    EXPECT_EQ(pages[2].status, EvalStatus::SanitizerError) << pages[2].detail;
    EXPECT_NE(pages[2].detail.find("the gate's guard pages found it reading or writing past a buffer's end"), std::string::npos)
        << pages[2].detail;
    EXPECT_NE(pages[2].detail.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << pages[2].detail;
    EXPECT_EQ(paged.stats().gate.guard_judged, 2);
    EXPECT_EQ(paged.stats().gate.tool_variants.at("memcheck"), 1);  // the program alone
    EXPECT_EQ(paged.stats().gate.session_judged, 0);
    EXPECT_EQ(sanitizer_runs(), 1);  // still only the earlier one
    // Any other failure of the guarded run is still memcheck's to judge.
    ::setenv("GI_FAKE_CHECK_FAILS_SILENTLY", "1", 1);
    CudaEvaluator paged_failing(grammar_, o);
    const std::vector<EvalResult> paged_failed = paged_failing.sanitize_many({with_block("1024")}, 0);
    ::unsetenv("GI_FAKE_CHECK_FAILS_SILENTLY");
    EXPECT_EQ(paged_failed[0].status, EvalStatus::SanitizerError) << paged_failed[0].detail;
    EXPECT_EQ(paged_failed[0].detail.find("guard pages"), std::string::npos) << paged_failed[0].detail;
    EXPECT_EQ(paged_failing.stats().gate.guard_judged, 0);
    EXPECT_EQ(sanitizer_runs(), 2);  // its own process, as without guard pages
    o.gate_guard_pages = false;

    // --gate-guard-kib 0: memcheck alone, as before; the 512-thread launch passes it.
    o.gate_guard_kib = 0;
    CudaEvaluator off(grammar_, o);
    EXPECT_EQ(off.sanitize_many({with_block("512")}, 0).front().status, EvalStatus::Ok);
    EXPECT_EQ(off.stats().gate.tool_variants.count(kGuardZonesTool), 0u);
}

// Issue 44: the prescreen before the search's guess runs the guard zones alone. A variant they
// catch writing outside its buffers is rejected with the verdict the gate gives, and that verdict
// is kept: the gate does not run it again. Those they pass are not judged (memcheck is the gate's).
TEST_F(BinaryDuplicates, ThePrescreenRunsTheGuardZonesAloneAndTheGateKeepsItsRejections) {
    CudaEvaluatorOptions o = options(0);
    o.sanitizer = session_sanitizer();
    o.sanitize_jobs = 1;
    o.sanitize_sessions = 2;
    o.gate_guard_kib = 4;
    o.gate_guard_pages = false;  // zones alone: a read outside is memcheck's (the pages are below)
    CudaEvaluator e(grammar_, o);
    const std::vector<std::optional<EvalResult>> screened =
        e.prescreen({program("2.0f * in[i] + 0.0f"), with_block("512"), with_block("1024")}, 0);
    ASSERT_EQ(screened.size(), 3u);
    EXPECT_FALSE(screened[0].has_value());
    ASSERT_TRUE(screened[1].has_value());
    EXPECT_EQ(screened[1]->status, EvalStatus::SanitizerError);
    EXPECT_NE(screened[1]->detail.find("guard zones found it writing outside its buffers"), std::string::npos) << screened[1]->detail;
    EXPECT_FALSE(screened[2].has_value());  // a read outside: memcheck's to judge, in the gate
    EXPECT_EQ(e.stats().gate.tool_variants.at(kGuardZonesTool), 3);
    EXPECT_EQ(e.stats().gate.tool_variants.count("memcheck"), 0u);
    EXPECT_EQ(e.stats().gate.prescreen_rejected, 1);
    // The gate: the rejection as kept, no run; the two the prescreen passed are checked in full.
    const std::vector<EvalResult> gated = e.sanitize_many({with_block("512"), with_block("1024"), program("2.0f * in[i] + 0.0f")}, 0);
    EXPECT_EQ(gated[0].status, EvalStatus::SanitizerError);
    EXPECT_EQ(gated[0].detail, screened[1]->detail);
    EXPECT_EQ(gated[1].status, EvalStatus::SanitizerError) << gated[1].detail;
    EXPECT_NE(gated[1].detail.find("Invalid __global__ read"), std::string::npos) << gated[1].detail;
    EXPECT_EQ(gated[2].status, EvalStatus::Ok) << gated[2].detail;
    EXPECT_EQ(e.stats().gate.tool_variants.at(kGuardZonesTool), 5);
    EXPECT_EQ(e.stats().gate.tool_variants.at("memcheck"), 2);
    bool noted = false;
    for (const std::string& note : e.run_notes())
        noted = noted || note.find("the would-be parents were prescreened (the guard zones alone, or a verdict already known) and 1 "
                                   "rejected") != std::string::npos;
    EXPECT_TRUE(noted);

    // With guard pages (the default) the prescreen rejects the read past the end too, and the gate
    // keeps that verdict: memcheck runs for neither.
    o.gate_guard_pages = true;
    CudaEvaluator paged(grammar_, o);
    const std::vector<std::optional<EvalResult>> paged_screened = paged.prescreen({with_block("512"), with_block("1024")}, 0);
    ASSERT_TRUE(paged_screened[1].has_value());
    EXPECT_NE(paged_screened[1]->detail.find("the gate's guard pages found it reading or writing past a buffer's end"),
              std::string::npos) << paged_screened[1]->detail;
    EXPECT_EQ(paged.stats().gate.prescreen_rejected, 2);
    const std::vector<EvalResult> paged_gated = paged.sanitize_many({with_block("1024")}, 0);
    EXPECT_EQ(paged_gated[0].detail, paged_screened[1]->detail);
    EXPECT_EQ(paged.stats().gate.tool_variants.count("memcheck"), 0u);

    // --gate-guard-kib 0: nothing to prescreen with; nothing runs.
    o.gate_guard_kib = 0;
    CudaEvaluator off(grammar_, o);
    const std::vector<std::optional<EvalResult>> none = off.prescreen({with_block("512")}, 0);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_FALSE(none[0].has_value());
    EXPECT_EQ(off.stats().gate.checked, 0);
}

// A recording for the gate of several launches is several gate cases, and a read past a buffer may
// come in one of them only. The prescreen runs the guard zones (and pages) on each, and a rejection
// on any is kept for the gate of the case it was asked about: memcheck never runs on it.
TEST_F(BinaryDuplicates, ThePrescreenRunsTheGuardZonesOnEveryGateCase) {
    write_test_case(gpu_test::scale_case(256), folder_.path() / "gate-cases");
    const std::filesystem::path faulting = write_test_case(gpu_test::scale_case(256), folder_.path() / "gate-cases");
    ::setenv("GI_FAKE_FAULT_CASE", faulting.filename().c_str(), 1);
    CudaEvaluator e(grammar_, gate_case_prescreen(1));
    const std::vector<int> gates = e.gate_only_cases();
    ASSERT_EQ(gates.size(), 2u);
    int judged_elsewhere = 0;
    for (const int gate : gates) {
        const std::vector<std::optional<EvalResult>> screened =
            e.prescreen({program("2.0f * in[i] + 0.0f"), with_block("1024")}, gate);
        EXPECT_FALSE(screened[0].has_value()) << screened[0]->detail;
        ASSERT_TRUE(screened[1].has_value()) << "gate case " << gate;
        EXPECT_NE(screened[1]->detail.find("the gate's guard pages found it reading or writing past a buffer's end"),
                  std::string::npos) << screened[1]->detail;
        const bool elsewhere = screened[1]->detail.rfind("on gate case ", 0) == 0;
        judged_elsewhere += elsewhere;
        // The gate of this case keeps the verdict, wherever it came from.
        const std::vector<EvalResult> gated = e.sanitize_many({with_block("1024")}, gate);
        EXPECT_EQ(gated[0].status, EvalStatus::SanitizerError);
        EXPECT_EQ(gated[0].detail, screened[1]->detail);
    }
    ::unsetenv("GI_FAKE_FAULT_CASE");
    EXPECT_EQ(judged_elsewhere, 1) << "one gate case faults itself; the other's verdict names it";
    EXPECT_EQ(e.stats().gate.tool_variants.count("memcheck"), 0u);
}

// The prescreen takes each would-be parent through the other gate cases on its own: one whose
// check faults (0.2 s on the H200) does not hold the others' checks on the next case back. Case by
// case, wavefront's prescreen took about 0.45 s a rejection.
TEST_F(BinaryDuplicates, ThePrescreenTakesEachWouldBeParentThroughTheOtherGateCasesOnItsOwn) {
    std::vector<std::filesystem::path> written;  // in the gate cases' order, their folders' names
    for (int k = 0; k < 3; ++k) written.push_back(write_test_case(gpu_test::scale_case(256), folder_.path() / "gate-cases"));
    std::sort(written.begin(), written.end());
    ::setenv("GI_FAKE_FAULT_CASE", written[1].filename().c_str(), 1);
    ::setenv("GI_FAKE_FAULT_MS", "1500", 1);
    CudaEvaluator e(grammar_, gate_case_prescreen(2));
    const std::vector<int> gates = e.gate_only_cases();
    ASSERT_EQ(gates.size(), 3u);
    const std::vector<std::optional<EvalResult>> screened =
        e.prescreen({with_block("1024"), program("2.0f * in[i] + 0.0f")}, gates[0]);
    ::unsetenv("GI_FAKE_FAULT_CASE");
    ::unsetenv("GI_FAKE_FAULT_MS");
    ASSERT_TRUE(screened[0].has_value());
    EXPECT_EQ(screened[0]->detail.rfind("on gate case " + std::to_string(gates[1]) + " ", 0), 0u) << screened[0]->detail;
    EXPECT_FALSE(screened[1].has_value());
    // The clean parent's checks on both other cases came back while the fault was still coming.
    int checks_before_the_fault = -1, checks = 0;
    for (const gpu_test::FakeWorkerEvent& event : events()) {
        if (event.what == "check-variants" && event.detail != "0") ++checks;
        if (event.what == "fault-done" && checks_before_the_fault < 0) checks_before_the_fault = checks;
    }
    // Both parents on the asked case, then the faulting one on the next, the clean one on both.
    EXPECT_EQ(checks_before_the_fault, 5);
    EXPECT_EQ(checks, 5);
    // The note says what the prescreen took, and how much of it the other gate cases.
    EXPECT_GE(e.stats().gate.prescreen_other_seconds, 1.4);
    EXPECT_GE(e.stats().gate.prescreen_seconds, e.stats().gate.prescreen_other_seconds);
    bool noted = false;
    for (const std::string& note : e.run_notes()) noted = noted || note.find(" s of it on the recording's other gate cases)") != std::string::npos;
    EXPECT_TRUE(noted);
}

// Issue 19: with small cases recorded for the gate (--sanitize-cases), the search's gate runs
// would-be parents on them; the final checks ask for a training case, and a verdict from a gate
// case does not stand for it.
TEST_F(BinaryDuplicates, TheGateRunsOnItsOwnCasesAndTheFinalCheckOnATrainingCase) {
    write_test_case(gpu_test::scale_case(256), folder_.path() / "gate-cases");
    const std::filesystem::path script = folder_.path() / "case-logging-sanitizer";
    std::ofstream(script) << "#!/bin/sh\nwhile [ \"$1\" != --case ]; do shift; done\n"
                          << "echo \"$2\" >> '" << sanitizer_log().string() << "'\n"
                          << "for a; do list=$a; done\necho \"gi-worker: ran $(grep -c . \"$list\") variant(s)\"\nexit 0\n";
    ::chmod(script.c_str(), 0755);
    CudaEvaluatorOptions o = options(0);
    o.sanitizer = script.string();
    o.sanitize_sessions = 0;
    o.sanitize_cases = folder_.path() / "gate-cases";
    CudaEvaluator e(grammar_, o);
    ASSERT_EQ(e.case_count(), 1);
    const int gate = e.gate_case(0);
    EXPECT_NE(gate, 0);
    EXPECT_EQ(e.gate_case(5), gate);  // the only gate case, whichever case the generation drew
    EXPECT_EQ(e.sanitize_many({with_block("256")}, gate).front().status, EvalStatus::Ok);
    EXPECT_EQ(e.sanitize_many({with_block("256")}, gate).front().status, EvalStatus::Ok);  // cached
    EXPECT_EQ(e.sanitize(with_block("256"), 0).status, EvalStatus::Ok);
    std::ifstream in(sanitizer_log());
    std::vector<std::string> cases;
    for (std::string line; std::getline(in, line);) cases.push_back(std::filesystem::path(line).parent_path().filename().string());
    EXPECT_EQ(cases, (std::vector<std::string>{"gate-cases", "cases"}));
    EXPECT_EQ(e.gate_only_cases(), std::vector<int>{gate});

    // A second case recorded for the gate (another launch of the recording): a verdict on one
    // does not stand for the other, so the final checks can run a variant on each.
    write_test_case(gpu_test::scale_case(128), folder_.path() / "gate-cases");
    CudaEvaluator two(grammar_, o);
    const std::vector<int> gates = two.gate_only_cases();
    ASSERT_EQ(gates.size(), 2u);
    for (int g : gates) EXPECT_EQ(two.sanitize_many({with_block("256")}, g).front().status, EvalStatus::Ok);
    EXPECT_EQ(two.sanitize_many({with_block("256")}, gates[1]).front().status, EvalStatus::Ok);  // cached
    std::ifstream again(sanitizer_log());
    int lines = 0;
    for (std::string line; std::getline(again, line);) ++lines;
    EXPECT_EQ(lines, 4);  // two more: one a gate case

    // Without gate cases the gate uses the generation's case; a folder without cases is an error.
    CudaEvaluatorOptions plain = options(0);
    EXPECT_EQ(CudaEvaluator(grammar_, plain).gate_case(0), 0);
    std::filesystem::create_directories(folder_.path() / "empty");
    plain.sanitize_cases = folder_.path() / "empty";
    try {
        CudaEvaluator bad(grammar_, plain);
        FAIL() << "an empty --sanitize-cases folder was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--sanitize-cases"), std::string::npos) << e.what();
    }
}

// Sessions started ahead open the first gate case too (it took seconds under the sanitizer), so
// the first check finds it open; without gate cases they open the training case the gate uses
// (issue 44: cuda/gate_case.hpp).
TEST_F(BinaryDuplicates, SessionsStartedAheadOpenTheGateCase) {
    write_test_case(gpu_test::scale_case(256), folder_.path() / "gate-cases");
    const std::filesystem::path script = folder_.path() / "session-sanitizer";
    std::ofstream(script) << "#!/bin/sh\nwhile [ \"$1\" != --log-file ]; do shift; done\n"
                          << "for a; do worker=$a; done; exec \"$worker\"\n";
    ::chmod(script.c_str(), 0755);
    CudaEvaluatorOptions o = options(0);
    o.sanitizer = script.string();
    o.sanitize_jobs = 1;
    o.sanitize_sessions = 1;
    o.sanitize_cases = folder_.path() / "gate-cases";
    CudaEvaluator e(grammar_, o);
    e.expect_checks();
    const int gate = e.gate_case(0);
    EXPECT_EQ(e.sanitize_many({with_block("256")}, gate).front().status, EvalStatus::Ok);
    std::vector<std::string> checks;
    for (const gpu_test::FakeWorkerEvent& event : events())
        if (event.what == "check-variants") checks.push_back(event.slot + ":" + event.detail);
    // Twice each: a guard-zones session (the gate's first check) and a memcheck one.
    EXPECT_EQ(checks, (std::vector<std::string>{"gate-cases:0", "gate-cases:0", "gate-cases:1", "gate-cases:1"}));
    EXPECT_EQ(e.stats().gate.sessions_started, 2);

    o.sanitize_cases.clear();
    const std::size_t before = events().size();
    CudaEvaluator training(grammar_, o);
    training.expect_checks();
    EXPECT_EQ(training.sanitize_many({with_block("256")}, 0).front().status, EvalStatus::Ok);
    checks.clear();
    const std::vector<gpu_test::FakeWorkerEvent> later = events();
    for (std::size_t k = before; k < later.size(); ++k)
        if (later[k].what == "check-variants") checks.push_back(later[k].slot + ":" + later[k].detail);
    EXPECT_EQ(checks, (std::vector<std::string>{"cases:0", "cases:0", "cases:1", "cases:1"}));
}

// A kernel with barriers meets racecheck and synccheck in its first generation (a variant that
// removes one): their sessions start ahead too, one each where --sanitize-sessions is 2.
class BarrierKernelSessions : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kBarrierScaleKernel, "256"); }
};

TEST_F(BarrierKernelSessions, RacecheckAndSynccheckSessionsStartAheadToo) {
    CudaEvaluatorOptions o = options(0);
    o.sanitizer = "/bin/true";  // any program that starts: prewarming only starts the processes
    o.sanitize_sessions = 2;
    CudaEvaluator e(grammar_, o);
    e.expect_checks();
    EXPECT_EQ(e.stats().gate.sessions_started, 6);  // guard zones 2, memcheck 2, racecheck 1, synccheck 1
}

TEST(SanitizerLog, ReportsAreLinesOfItsOwnButTheBanner) {
    EXPECT_FALSE(sanitizer_log_reports(""));
    EXPECT_FALSE(sanitizer_log_reports("========= COMPUTE-SANITIZER\n"));
    EXPECT_FALSE(sanitizer_log_reports("a line the program printed\n=========\n"));
    EXPECT_TRUE(sanitizer_log_reports("========= Invalid __global__ write of size 4 bytes\n"));
    EXPECT_TRUE(sanitizer_log_reports("========= COMPUTE-SANITIZER\n========= Error: Race reported between Write access\n"));
    // Warnings do not fail a check (nor compute-sanitizer's exit code); seen on the H200 from racecheck.
    EXPECT_FALSE(sanitizer_log_reports("========= Warning: Race reported between Write access at k()+0x11f0\n"
                                       "=========     and Read access at k()+0x1200 [16 hazards]\n"));
    EXPECT_FALSE(sanitizer_log_reports("========= Warning: Maximum number of hazards reached.\n"));
    EXPECT_FALSE(sanitizer_log_reports("========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n"));
    EXPECT_TRUE(sanitizer_log_reports("========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n"));
    EXPECT_EQ(sanitizer_log_report("=========     at k()+0x10\n========= Barrier error detected. Divergent thread(s)\n"),
              "========= Barrier error detected. Divergent thread(s)");
}

TEST(BinaryIdentity, EqualOnlyForTheSameModulesAndLaunch) {
    ResolvedGeometry g;
    g.grid = {16, 1, 1};
    g.block = {256, 1, 1};
    const std::string base = binary_identity("module", "", g);
    EXPECT_EQ(base, binary_identity("module", "", g));
    EXPECT_EQ(base.size(), 64u);
    EXPECT_NE(base, binary_identity("modulE", "", g));
    EXPECT_NE(base, binary_identity("module", "guarded", g));
    // The same bytes split differently between the two modules are different builds.
    EXPECT_NE(binary_identity("ab", "c", g), binary_identity("a", "bc", g));
    ResolvedGeometry other_block = g;
    other_block.block = {128, 2, 1};
    EXPECT_NE(base, binary_identity("module", "", other_block));
    ResolvedGeometry other_grid = g;
    other_grid.grid = {16, 2, 1};
    EXPECT_NE(base, binary_identity("module", "", other_grid));
    // Grid and block are not interchangeable.
    ResolvedGeometry swapped;
    swapped.grid = g.block;
    swapped.block = g.grid;
    EXPECT_NE(base, binary_identity("module", "", swapped));
}

}  // namespace
}  // namespace gi
