// The cuda evaluator end to end. Set-up errors are tested everywhere; the GPU parts skip without
// a GPU: a batch with correct, re-parameterised, wrong, hanging and crashing variants (the run goes
// on after each), sanitize() on a variant that lost its barrier, and validate() on held-out cases.
#include "cuda/cuda_evaluator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <future>
#include <iostream>

#include "../support/gpu_fixture.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;
using gpu_test::TempFolder;

constexpr int kN = 1 << 18;

const char* kGpuKernel = R"(#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    __shared__ float tile[1024];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    float v = tile[(threadIdx.x + 1) % BLOCK];
    if (i < n) out[i] = 2.0f * tile[threadIdx.x] + 0.0f * v;
}
)";

class GpuEvaluator : public ::testing::Test {
public:  // for the helpers that run a test both ways
    void SetUp() override {
        kernel_ = folder_.path() / "scale.cu";
        std::ofstream(kernel_) << kGpuKernel;
        GrammarOptions options;
        options.functions = {"scale"};
        options.params = {parse_param_declaration("BLOCK=128,256,512", "--param")};
        grammar_ = build_grammar(read_source_file(kernel_), options);
        cases_ = folder_.path() / "cases";
        held_ = folder_.path() / "held";
        write_test_case(gpu_test::scale_case(kN), cases_);
        write_test_case(gpu_test::scale_case(kN), cases_);
        write_test_case(gpu_test::scale_case(kN / 2), held_);
    }

    CudaEvaluatorOptions options() const {
        CudaEvaluatorOptions o;
        o.cases = cases_;
        o.held_out = held_;
        o.function = "scale";
        o.block = "BLOCK";
        o.grid = "ceil(n/BLOCK)";
        o.worker = gpu_test::worker_path();
        return o;
    }

    Variant raw_variant(const std::string& source) const {
        return Variant{Genome{}, source, {}, sha256_hex(source)};
    }

    // The kernel with `stray` (a line of code) just before its store: the gate's guard tests' variants.
    Variant with_stray(const std::string& stray) const {
        std::string text = kGpuKernel;
        text.replace(text.find("    if (i < n) out[i]"), 0, "    " + stray + "\n");
        return raw_variant(text);
    }

    // The kernel without its barrier, each thread reading its own element back (no race), its
    // outputs scaled by `factor` ("2.0f" gives the original's).
    Variant race_free(const char* factor) const {
        std::string text = kGpuKernel;
        text.replace(text.find("    __syncthreads();\n"), 21, "");
        text.replace(text.find("tile[(threadIdx.x + 1) % BLOCK]"), 31, "tile[threadIdx.x]");
        text.replace(text.find("2.0f * tile"), 4, factor);
        return raw_variant(text);
    }

    std::string rule_id(bool barrier) const {
        for (const Rule& r : grammar_.rules)
            if (r.kind == RuleKind::Statement && r.is_barrier == barrier && r.text.find("out[i]") == std::string::npos)
                return r.id;
        return "";
    }

    TempFolder folder_;
    fs::path kernel_, cases_, held_;
    Grammar grammar_;
};

TEST_F(GpuEvaluator, SetUpErrorsAreClear) {
    CudaEvaluatorOptions o = options();
    o.cases = folder_.path() / "none";
    EXPECT_THROW(CudaEvaluator(grammar_, o), Error);
    o.cases = folder_.path();  // no cases recorded for 'scale' in it
    fs::create_directories(folder_.path() / "empty");
    o.cases = folder_.path() / "empty";
    try {
        CudaEvaluator e(grammar_, o);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no recorded test cases for 'scale'"), std::string::npos) << e.what();
    }
    o = options();
    o.grid = "ceil(n/64)";
    try {
        CudaEvaluator e(grammar_, o);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("declared: grid ceil(n/64)"), std::string::npos) << e.what();
    }
    o = options();
    o.function = "nosuch";
    EXPECT_THROW(CudaEvaluator(grammar_, o), UsageError);
    o = options();
    o.tolerances = {"abs=oops"};
    EXPECT_THROW(CudaEvaluator(grammar_, o), UsageError);
}

TEST_F(GpuEvaluator, MissingWorkerIsAClearError) {
    CudaEvaluatorOptions o = options();
    o.worker = "/nonexistent/gi-worker";
    CudaEvaluator e(grammar_, o);
    EXPECT_EQ(e.case_count(), 2);
    try {
        e.evaluate({raw_variant(kGpuKernel)}, 0);
        FAIL();
    } catch (const Error& err) {
        EXPECT_NE(std::string(err.what()).find("/nonexistent/gi-worker"), std::string::npos) << err.what();
    }
}

TEST_F(GpuEvaluator, BatchWithEveryKindOfVariant) {
    GI_REQUIRE_GPU();
    // A fault may reach the host later than the default margin; with more time it is told apart
    // from a hang.
    CudaEvaluatorOptions o = options();
    o.timeout_margin_ms = 2000;
    // Without the loop guard (--no-loop-guard) the hanging variant costs its worker, as before it.
    o.loop_guard = false;
    CudaEvaluator e(grammar_, o);
    std::vector<Variant> batch;
    batch.push_back(make_variant(Genome{}, grammar_));                                    // 0 the original
    Genome smaller;
    set_gene(smaller, "BLOCK", "128");
    batch.push_back(make_variant(smaller, grammar_));                                     // 1 other block size
    std::string unwritten = kGpuKernel;
    unwritten.replace(unwritten.find("if (i < n) out"), 14, "if (i < n / 2) out");
    batch.push_back(raw_variant(unwritten));                                              // 2 half the outputs
    std::string hang = kGpuKernel;
    hang.replace(hang.find("__syncthreads();"), 16, "__syncthreads(); volatile float* o = out; if (i < n) for (;;) { o[i] = tile[threadIdx.x]; if (o[i] < -1.0f) break; }");
    batch.push_back(raw_variant(hang));                                                   // 3 never ends
    std::string oob = kGpuKernel;
    oob.replace(oob.find("out[i] ="), 8, "out[i + (1 << 28)] =");
    batch.push_back(raw_variant(oob));                                                    // 4 illegal address
    batch.push_back(raw_variant(std::string(kGpuKernel) + "\nthis does not compile;\n"));    // 5 compile error
    batch.push_back(make_variant(smaller, grammar_));                                     // 6 duplicate of 1
    std::string reread = kGpuKernel;
    reread.replace(reread.find("2.0f * tile[threadIdx.x]"), 24, "2.0f * in[i]");
    batch.push_back(raw_variant(reread));                                                 // 7 fine again
    batch.push_back(raw_variant(std::string(kGpuKernel) + "\n// differs only in a comment\n"));  // 8 0's program

    const BatchResult r = e.evaluate(batch, 0);
    ASSERT_TRUE(r.original.valid());
    ASSERT_EQ(r.results.size(), batch.size());
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[0].error, 0);
    EXPECT_TRUE(r.results[0].time.valid());
    EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
    EXPECT_EQ(r.results[1].error, 0);
    EXPECT_EQ(r.results[2].status, EvalStatus::WrongAnswer) << r.results[2].detail;
    EXPECT_EQ(r.results[3].status, EvalStatus::Timeout) << r.results[3].detail;
    EXPECT_EQ(r.results[4].status, EvalStatus::Crash) << r.results[4].detail;
    EXPECT_EQ(r.results[5].status, EvalStatus::CompileError) << r.results[5].detail;
    EXPECT_NE(r.results[5].detail.find("variant.cu"), std::string::npos) << r.results[5].detail;
    EXPECT_EQ(r.results[6].status, EvalStatus::Ok);
    EXPECT_EQ(r.results[7].status, EvalStatus::Ok) << r.results[7].detail;
    EXPECT_EQ(r.results[7].error, 0);
    // The comment changes no code: 8 gets 0's result without a run.
    EXPECT_EQ(r.results[8].status, EvalStatus::Ok) << r.results[8].detail;
    EXPECT_EQ(r.results[8].time.median_ms, r.results[0].time.median_ms);
    const CudaEvaluatorStats& s = e.stats();
    EXPECT_EQ(s.variants, 9);
    EXPECT_EQ(s.duplicates, 1);
    EXPECT_EQ(s.binary_duplicates, 1);
    EXPECT_GE(s.workers.worker_restarts, 2);
    EXPECT_EQ(s.runs.timeouts, 1);

    // A second batch on the other case reuses compiled code.
    const BatchResult again = e.evaluate({batch[0], batch[1]}, 1);
    EXPECT_EQ(again.results[1].status, EvalStatus::Ok);
    EXPECT_GE(e.stats().build.cache_hits, 2);
}

// How the guarded build is made: the default (-Ofc=mid, apart from the plain build), or optimised as
// the plain build (--guard-fast-compile 0) and then paired in one module or apart (--separate-guard-build).
enum class GuardBuilds { Fast, Paired, Separate };

void loop_guard_stops_runaway_loops(GpuEvaluator& t, GuardBuilds builds) {
    CudaEvaluatorOptions o = t.options();
    const bool separate = builds != GuardBuilds::Paired;
    o.paired_guard_build = builds == GuardBuilds::Paired;
    if (builds != GuardBuilds::Fast) o.guard_fast_compile = "0";
    CudaEvaluator e(t.grammar_, o);
    auto with = [](const std::string& statement) {
        std::string source = kGpuKernel;
        const std::string after = "float v = tile[(threadIdx.x + 1) % BLOCK];";
        source.insert(source.find(after) + after.size(), " " + statement);
        return source;
    };
    std::vector<Variant> batch;
    // 0: loops that end: Ok and timed through the guarded check.
    batch.push_back(t.raw_variant(with("float acc = 0.0f; for (int k = 0; k < 64; k++) acc += tile[(threadIdx.x + k) % BLOCK]; "
                                     "int w = 3; while (w > 0) w--; v += 0.0f * acc * w;")));
    // 1: for (;;) that never breaks.
    batch.push_back(t.raw_variant(with("volatile float* o = out; if (i < n) for (;;) { o[i] = tile[threadIdx.x]; if (o[i] < -1.0f) break; }")));
    // 2: a while whose counter never changes.
    batch.push_back(t.raw_variant(with("volatile float* o = out; int c = 0; if (i < n) while (c < 10) { o[i] = tile[threadIdx.x]; }")));
    // 3: an endless goto loop (the guard sees no loop there; a guarded loop elsewhere gives the
    //    variant a guarded build): the hard timeout still kills it.
    batch.push_back(t.raw_variant(with("for (int k = 0; k < 2; k++) v += 0.0f; volatile float* o = out; "
                                     "again: if (i < n) o[i] = tile[threadIdx.x]; if (i < n && o[i] == o[i]) goto again;")));
    batch.push_back(t.raw_variant(std::string(kGpuKernel) + "\n// fine again\n"));  // 4
    const BatchResult r = e.evaluate(batch, 0);
    ASSERT_EQ(r.results.size(), batch.size());
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[0].error, 0);
    EXPECT_TRUE(r.results[0].time.valid());
    for (int k : {1, 2}) {
        EXPECT_EQ(r.results[k].status, EvalStatus::Timeout) << k << ": " << r.results[k].detail;
        EXPECT_NE(r.results[k].detail.find("the loop guard stopped it"), std::string::npos) << k << ": " << r.results[k].detail;
    }
    EXPECT_EQ(r.results[3].status, EvalStatus::Timeout) << r.results[3].detail;
    EXPECT_EQ(r.results[3].detail.find("loop guard"), std::string::npos) << r.results[3].detail;
    EXPECT_EQ(r.results[4].status, EvalStatus::Ok) << r.results[4].detail;
    const CudaEvaluatorStats& s = e.stats();
    EXPECT_EQ(s.runs.loop_overruns, 2);
    EXPECT_EQ(s.runs.timeouts, 1);          // the goto loop
    EXPECT_EQ(s.workers.worker_restarts, 1);   // its replacement, and no other
    EXPECT_EQ(s.unguarded(), 0);
    EXPECT_EQ(s.build.paired_fallbacks, 0);
    EXPECT_EQ(separate ? s.build.guard_compiled : s.build.paired_builds, 5);  // variant 4 too: no loop, but a barrier to guard
    EXPECT_EQ(separate ? s.build.paired_builds : s.build.guard_compiled, 0);
    EXPECT_GE(s.runs.staged_runs, 4);
    // The float kernel's guarded build at -Ofc=mid reproduced the original's outputs exactly (the
    // evaluator checks that first, else it falls back to optimised guarded builds).
    EXPECT_EQ(s.build.guard_options, builds == GuardBuilds::Fast ? "-Ofc=mid" : "");
    std::cout << (builds == GuardBuilds::Fast ? "fast-compiled separate" : separate ? "separate" : "paired") << " builds, stages per run (ms): load " << s.runs.stage_load_ms / s.runs.staged_runs << ", check " << s.runs.stage_check_ms / s.runs.staged_runs
              << ", compare " << s.runs.stage_compare_ms / s.runs.staged_runs << ", timed " << s.runs.stage_timed_ms / s.runs.staged_runs << "\n";
}

TEST_F(GpuEvaluator, LoopGuardStopsRunawayLoopsWithoutRestarts) {
    GI_REQUIRE_GPU();
    loop_guard_stops_runaway_loops(*this, GuardBuilds::Fast);
}

TEST_F(GpuEvaluator, LoopGuardStopsRunawayLoopsWithoutRestartsWithPairedBuilds) {
    GI_REQUIRE_GPU();
    loop_guard_stops_runaway_loops(*this, GuardBuilds::Paired);
}

TEST_F(GpuEvaluator, LoopGuardStopsRunawayLoopsWithoutRestartsWithSeparateBuilds) {
    GI_REQUIRE_GPU();
    loop_guard_stops_runaway_loops(*this, GuardBuilds::Separate);
}

// Once the deadline has passed, every thread of the grid that still checks a loop condition
// reports the stop: on a 16M-thread grid that must still end within the hard allowance (30 ms),
// so the worker is not killed as hung.
TEST_F(GpuEvaluator, LoopGuardStopsRunawayLoopsOfALargeGridWithinTheAllowance) {
    GI_REQUIRE_GPU();
    const fs::path large = folder_.path() / "large";
    write_test_case(gpu_test::scale_case(1 << 24), large);
    CudaEvaluatorOptions o = options();
    o.cases = large;
    o.held_out.clear();
    CudaEvaluator e(grammar_, o);
    // Two loops that never end, as two programs (a second copy of the first would be a binary
    // duplicate and get its result without a run).
    auto with = [](const std::string& statement) {
        std::string source = kGpuKernel;
        const std::string after = "float v = tile[(threadIdx.x + 1) % BLOCK];";
        return source.insert(source.find(after) + after.size(), " " + statement);
    };
    const BatchResult r = e.evaluate(
        {raw_variant(with("volatile float* o = out; if (i < n) for (;;) { o[i] = tile[threadIdx.x]; if (o[i] < -1.0f) break; }")),
         raw_variant(with("volatile float* o = out; int c = 0; if (i < n) while (c < 10) { o[i] = tile[threadIdx.x]; }"))},
        0);
    ASSERT_EQ(r.results.size(), 2u);
    // Blocks that start after the deadline reach the kernel's barrier after it: that is the loops'
    // overrun, not a deadlock (the barrier guard had said "deadlock" here, at 569acb2).
    for (const EvalResult& result : r.results) {
        EXPECT_EQ(result.status, EvalStatus::Timeout) << result.detail;
        EXPECT_NE(result.detail.find("the loop guard stopped it"), std::string::npos) << result.detail;
    }
    EXPECT_EQ(e.stats().runs.loop_overruns, 2);
    EXPECT_EQ(e.stats().runs.timeouts, 0);
    EXPECT_EQ(e.stats().workers.worker_restarts, 0);
}

TEST_F(GpuEvaluator, SanitizerCatchesARemovedBarrier) {
    GI_REQUIRE_GPU();
    CudaEvaluator e(grammar_, options());
    const std::string barrier = rule_id(true);
    ASSERT_FALSE(barrier.empty());
    Genome racy;
    racy.edits.push_back({Edit::Op::Delete, barrier, ""});
    const Variant v = make_variant(racy, grammar_);
    const EvalResult clean = e.sanitize(make_variant(Genome{}, grammar_), 0);
    EXPECT_EQ(clean.status, EvalStatus::Ok) << clean.detail;
    const EvalResult r = e.sanitize(v, 0);
    EXPECT_EQ(r.status, EvalStatus::SanitizerError) << r.detail;
    EXPECT_NE(r.detail.find("racecheck"), std::string::npos) << r.detail;
}

// Issue 19: the sessions judge a variant from the report of its own request; the verdicts are the
// ones processes of their own give (sessions off), for a batch with a bad variant between good ones.
TEST_F(GpuEvaluator, SessionsJudgeABatchAsProcessesOfTheirOwnDo) {
    GI_REQUIRE_GPU();
    const std::string barrier = rule_id(true);
    ASSERT_FALSE(barrier.empty());
    Genome racy, smaller;
    racy.edits.push_back({Edit::Op::Delete, barrier, ""});
    set_gene(smaller, "BLOCK", "128");
    Genome racy_smaller = racy;
    set_gene(racy_smaller, "BLOCK", "128");
    const std::vector<Variant> batch{make_variant(Genome{}, grammar_), make_variant(racy, grammar_),
                                     make_variant(smaller, grammar_), make_variant(racy_smaller, grammar_)};
    std::vector<std::vector<EvalStatus>> verdicts;
    for (int sessions : {2, 0}) {
        CudaEvaluatorOptions o = options();
        o.sanitize_sessions = sessions;
        o.sanitize_jobs = 1;  // one batch: the bad variants sit between good ones in one session
        CudaEvaluator e(grammar_, o);
        std::vector<EvalStatus> statuses;
        for (const EvalResult& r : e.sanitize_many(batch, 0)) statuses.push_back(r.status);
        verdicts.push_back(statuses);
        if (sessions > 0) {
            const auto bad = std::count(statuses.begin(), statuses.end(), EvalStatus::SanitizerError);
            EXPECT_EQ(e.stats().gate.session_judged, bad);
            EXPECT_EQ(e.stats().gate.session_passes, 4 - bad);
            EXPECT_EQ(e.stats().gate.batch_reruns, 0);
        }
    }
    EXPECT_EQ(verdicts[0][0], EvalStatus::Ok);
    EXPECT_EQ(verdicts[0][1], EvalStatus::SanitizerError);
    EXPECT_EQ(verdicts[0][2], EvalStatus::Ok);
    EXPECT_EQ(verdicts[0], verdicts[1]);
}

// Issue 19: racecheck and synccheck sessions run the variants that removed a barrier side by side,
// each on a stream and a copy of the case of its own; the verdicts are those of one variant a
// request, for a racy variant among race-free ones (whose request then did not pass).
TEST_F(GpuEvaluator, SideBySideChecksJudgeAsOneAtATimeDo) {
    GI_REQUIRE_GPU();
    const std::string barrier = rule_id(true);
    ASSERT_FALSE(barrier.empty());
    Genome racy;
    racy.edits.push_back({Edit::Op::Delete, barrier, ""});
    const std::vector<Variant> batch{race_free("2.0f"), race_free("3.0f"), make_variant(racy, grammar_), race_free("4.0f")};
    std::vector<std::vector<EvalStatus>> verdicts;
    for (int side_by_side : {8, 1}) {
        CudaEvaluatorOptions o = options();
        o.sanitize_sessions = 4;
        o.sanitize_jobs = 1;
        o.sanitize_side_by_side = side_by_side;
        CudaEvaluator e(grammar_, o);
        std::vector<EvalStatus> statuses;
        for (const EvalResult& r : e.sanitize_many(batch, 0)) {
            statuses.push_back(r.status);
            if (r.status != EvalStatus::Ok) EXPECT_NE(r.detail.find("racecheck"), std::string::npos) << r.detail;
        }
        verdicts.push_back(statuses);
        const SanitizerGateStats& gate = e.stats().gate;
        // Racecheck's request of all four did not pass (the racy one); synccheck's of the other three did.
        EXPECT_EQ(gate.side_by_side_requests, side_by_side > 1 ? 2 : 0);
        EXPECT_EQ(gate.side_by_side_failed, side_by_side > 1 ? 1 : 0);
        for (const std::string& note : e.run_notes()) std::cout << "side by side " << side_by_side << ": " << note << "\n";
    }
    EXPECT_EQ(verdicts[0], (std::vector<EvalStatus>{EvalStatus::Ok, EvalStatus::Ok, EvalStatus::SanitizerError, EvalStatus::Ok}));
    EXPECT_EQ(verdicts[0], verdicts[1]);
}

// Issue 19: the gate's checks may run while evaluate() works through the next generation
// (sanitize_many_async); the two take turns on the GPU. The verdicts are those of the checks alone,
// and evaluate()'s results those of an evaluator with no checks running.
TEST_F(GpuEvaluator, ChecksAlongsideEvaluationJudgeAndEvaluateAsAlone) {
    GI_REQUIRE_GPU();
    const std::string barrier = rule_id(true);
    ASSERT_FALSE(barrier.empty());
    Genome racy;
    racy.edits.push_back({Edit::Op::Delete, barrier, ""});
    const std::vector<Variant> checked{race_free("2.0f"), make_variant(racy, grammar_), race_free("4.0f")};
    Genome smaller;
    set_gene(smaller, "BLOCK", "128");
    std::vector<Variant> evaluated;
    for (const char* block : {"128", "64", "32"}) {
        Genome g;
        set_gene(g, "BLOCK", block);
        evaluated.push_back(make_variant(g, grammar_));
    }
    evaluated.push_back(race_free("3.0f"));  // wrong: another factor
    CudaEvaluatorOptions o = options();
    o.sanitize_sessions = 4;
    o.sanitize_jobs = 2;
    CudaEvaluator alone(grammar_, o);
    const BatchResult expected = alone.evaluate(evaluated, 1);
    CudaEvaluator e(grammar_, o);
    ASSERT_TRUE(e.checks_alongside_evaluation());
    e.evaluate({make_variant(Genome{}, grammar_)}, 0);  // the original's compile and oracle first
    std::future<std::vector<EvalResult>> verdicts = e.sanitize_many_async(checked, 0);
    const BatchResult results = e.evaluate(evaluated, 1);
    const std::vector<EvalResult> v = verdicts.get();
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v[0].status, EvalStatus::Ok) << v[0].detail;
    EXPECT_EQ(v[1].status, EvalStatus::SanitizerError) << v[1].detail;
    EXPECT_EQ(v[2].status, EvalStatus::Ok) << v[2].detail;
    ASSERT_EQ(results.results.size(), expected.results.size());
    for (std::size_t i = 0; i < results.results.size(); ++i)
        EXPECT_EQ(results.results[i].status, expected.results[i].status) << i << ": " << results.results[i].detail;
    EXPECT_GE(e.report().waited_for_checks_s, 0.0);
    std::cout << "evaluate() waited " << e.report().waited_for_checks_s << " s for the checks' GPU turns\n";
    // A batch thrown away unseen (a spoiled guess) leaves its case to validation.
    e.discard_evaluation(1);
    EXPECT_EQ(e.validate(make_variant(smaller, grammar_)).cases.size(), 2u);  // case 1 and the held-out one
}

// Issue 19: the gate's guard zones (gi-worker alone, before compute-sanitizer) judge a variant that
// writes just past its output, or just before it; a clean variant passes them and memcheck.
TEST_F(GpuEvaluator, GuardZonesJudgeWritesJustOutsideABuffer) {
    GI_REQUIRE_GPU();
    const std::vector<Variant> batch{make_variant(Genome{}, grammar_), with_stray("if (i == n - 1) out[n + 3] = 1.0f;"),
                                     with_stray("if (i == 0) out[-2] = 1.0f;")};
    CudaEvaluatorOptions o = options();
    o.sanitize_sessions = 2;
    o.sanitize_jobs = 1;
    o.gate_guard_pages = false;  // a zone after the buffer too (the pages, the default, have the test below)
    CudaEvaluator e(grammar_, o);
    const std::vector<EvalResult> r = e.sanitize_many(batch, 0);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].status, EvalStatus::Ok) << r[0].detail;
    EXPECT_EQ(r[1].status, EvalStatus::SanitizerError) << r[1].detail;
    EXPECT_NE(r[1].detail.find("buffer 0 (output, kernel argument 0): 4 of the 262144 bytes after its end changed (from 13 to 16 bytes"),
              std::string::npos) << r[1].detail;
    EXPECT_EQ(r[2].status, EvalStatus::SanitizerError) << r[2].detail;
    EXPECT_NE(r[2].detail.find("before its start changed (from 5 to 8 bytes before the start)"), std::string::npos) << r[2].detail;
    EXPECT_EQ(e.stats().gate.guard_judged, 2);
    EXPECT_EQ(e.stats().gate.sessions_replaced, 0);  // the guard zones' worker found its copies intact, served on
    EXPECT_EQ(e.stats().gate.tool_variants.at("memcheck"), 1);
    // memcheck alone on the same variants, for the record: a write a few bytes past a buffer may
    // land in a neighbouring allocation, which memcheck cannot tell from a legal one.
    o.gate_guard_kib = 0;
    CudaEvaluator alone(grammar_, o);
    const std::vector<EvalResult> m = alone.sanitize_many(batch, 0);
    EXPECT_EQ(m[0].status, EvalStatus::Ok) << m[0].detail;
    for (int k : {1, 2}) std::cout << "memcheck alone on stray write " << k << ": " << to_string(m[k].status) << "\n";
}

// --gate-guard-pages: each working buffer ends at an unmapped page, so a read just past the end,
// which guard zones cannot see (a read leaves them unchanged) and memcheck takes seconds to report
// from many threads, faults at once and is judged without compute-sanitizer. A write before the
// start still lands in the zone kept there.
TEST_F(GpuEvaluator, GuardPagesJudgeReadsJustPastABuffersEnd) {
    GI_REQUIRE_GPU();
    // The comparison keeps each read: its result decides a store.
    const std::vector<Variant> batch{make_variant(Genome{}, grammar_),
                                     with_stray("if (i == n - 1 && in[n] == 12345.0f) out[0] = 0.0f;"),
                                     with_stray("if (i == n - 1 && in[n + 100000] == 12345.0f) out[0] = 0.0f;"),
                                     with_stray("if (i == 0) out[-2] = 1.0f;")};
    CudaEvaluatorOptions o = options();
    o.sanitize_sessions = 2;
    o.sanitize_jobs = 1;
    o.gate_guard_pages = true;
    CudaEvaluator e(grammar_, o);
    const std::vector<EvalResult> r = e.sanitize_many(batch, 0);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].status, EvalStatus::Ok) << r[0].detail;
    for (int k : {1, 2}) {
        EXPECT_EQ(r[k].status, EvalStatus::SanitizerError) << r[k].detail;
        EXPECT_NE(r[k].detail.find("the gate's guard pages found it reading or writing past a buffer's end"), std::string::npos)
            << r[k].detail;
        EXPECT_NE(r[k].detail.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << r[k].detail;
    }
    EXPECT_EQ(r[3].status, EvalStatus::SanitizerError) << r[3].detail;
    EXPECT_NE(r[3].detail.find("before its start changed (from 5 to 8 bytes before the start)"), std::string::npos) << r[3].detail;
    EXPECT_EQ(e.stats().gate.guard_judged, 3);
    EXPECT_EQ(e.stats().gate.tool_variants.at("memcheck"), 1);  // only the original went on to memcheck
    // Without guard pages the reads pass the guard zones and memcheck judges them, for the record.
    o.gate_guard_pages = false;
    CudaEvaluator zones(grammar_, o);
    const std::vector<EvalResult> z = zones.sanitize_many(batch, 0);
    EXPECT_EQ(z[0].status, EvalStatus::Ok) << z[0].detail;
    for (int k : {1, 2}) std::cout << "guard zones, then memcheck, on read " << k << ": " << to_string(z[k].status) << "\n";
}

// With guard pages a fault ends the session, and its replacement must start and open the case
// again. A write just past a buffer's end, the commonest stray, meets the zones first (the worker
// opens the case a second time with zones alone and runs each variant there before the pages):
// judged without a fault, and the session serves on. Only the read faults.
TEST_F(GpuEvaluator, GuardPagesLeaveWritesPastTheEndToTheZonesAndTheSessionServesOn) {
    GI_REQUIRE_GPU();
    const std::vector<Variant> batch{make_variant(Genome{}, grammar_), with_stray("if (i == n - 1) out[n + 3] = 1.0f;"),
                                     with_stray("if (i == n - 1) out[n] = 2.0f;"),
                                     with_stray("if (i == n - 1 && in[n] == 12345.0f) out[0] = 0.0f;")};
    CudaEvaluatorOptions o = options();
    o.sanitize_sessions = 1;
    o.sanitize_jobs = 1;
    o.gate_guard_pages = true;
    CudaEvaluator e(grammar_, o);
    const std::vector<EvalResult> r = e.sanitize_many(batch, 0);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].status, EvalStatus::Ok) << r[0].detail;
    for (int k : {1, 2}) {
        EXPECT_EQ(r[k].status, EvalStatus::SanitizerError) << r[k].detail;
        EXPECT_NE(r[k].detail.find("bytes after its end changed"), std::string::npos) << r[k].detail;
        EXPECT_EQ(r[k].detail.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << r[k].detail;
    }
    EXPECT_EQ(r[3].status, EvalStatus::SanitizerError) << r[3].detail;
    EXPECT_NE(r[3].detail.find("the gate's guard pages found it reading or writing past a buffer's end"), std::string::npos)
        << r[3].detail;
    EXPECT_EQ(e.stats().gate.guard_judged, 3);
    EXPECT_EQ(e.stats().gate.sessions_replaced, 1);  // the read's fault alone ended a session
}

TEST_F(GpuEvaluator, ValidationCoversUnusedAndHeldOutCases) {
    GI_REQUIRE_GPU();
    CudaEvaluator e(grammar_, options());
    Genome smaller;
    set_gene(smaller, "BLOCK", "128");
    e.evaluate({make_variant(smaller, grammar_)}, 0);
    const ValidationReport report = e.validate(make_variant(smaller, grammar_));
    ASSERT_EQ(report.cases.size(), 2u);  // case 1 (never drawn) and the held-out one
    EXPECT_TRUE(report.passed()) << report.summary();
    EXPECT_EQ(report.elements, static_cast<std::uint64_t>(kN + kN / 2));
    EXPECT_NE(report.summary().find("(1 held out)"), std::string::npos) << report.summary();
    std::string wrong = kGpuKernel;
    wrong.replace(wrong.find("2.0f * tile"), 4, "2.5f");
    const ValidationReport bad = e.validate(raw_variant(wrong));
    EXPECT_FALSE(bad.passed());
    EXPECT_GT(bad.worst_error, 0);
}

}  // namespace
}  // namespace gi
