// Programs written the way other people write them (tests/corpus), recorded and replayed on a GPU
// (skips elsewhere): what the kernel reads besides its pointer arguments is captured (__constant__
// weights set with cudaMemcpyToSymbol, pointers inside a struct and inside an array of pointers),
// a variant that only matched an incomplete oracle is refused, float atomics are refused unless
// declared nondeterministic, and the end-to-end acceptance refuses a variant the program's own
// self-check fails. Each of these let a wrong kernel through before (issue 15).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/gi_tool_run.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "../support/gpu_fixture.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;
using gpu_test::TempFolder;
using test::run_gi_tool;

#ifdef GI_CORPUS_BIN_DIR
const char* const kCorpusBin = GI_CORPUS_BIN_DIR;
#else
const char* const kCorpusBin = "";
#endif

std::string program(const std::string& name) { return (fs::path(kCorpusBin) / ("corpus_" + name)).string(); }
std::string source(const std::string& name) { return (fs::path(GI_SOURCE_DIR) / "tests/corpus" / (name + ".cu")).string(); }
// The corpus files include <gi/launch.hpp>, as a program built against GIOptimize::recorder does.
std::string recorder_include() { return (fs::path(GI_SOURCE_DIR) / "gi-tool/recorder/include").string(); }

class GpuRealPrograms : public ::testing::Test {
protected:
    void SetUp() override {
        GI_REQUIRE_GPU();
        if (std::string(kCorpusBin).empty() || !fs::exists(program("row_filter")))
            GTEST_SKIP() << "the corpus programs were not built (no CUDA compiler at build time)";
    }

    // `gi-tool record` of a corpus program into `out`.
    test::ToolRun record(const std::string& name, const std::string& function, const fs::path& out, const std::string& args) {
        return run_gi_tool("record '" + source(name) + "' --function " + function + " -I '" + recorder_include() +
                           "' --out '" + out.string() + "' -- '" + program(name) + "' " + args);
    }

    Grammar grammar(const std::string& name, const std::string& function) const {
        GrammarOptions options;
        options.functions = {function};
        return build_grammar(read_source_file(source(name)), options);
    }

    CudaEvaluatorOptions options(const fs::path& cases, const std::string& function, const std::string& block,
                                 const std::string& grid) const {
        CudaEvaluatorOptions o;
        o.cases = cases;
        o.function = function;
        o.block = block;
        o.grid = grid;
        o.worker = gpu_test::worker_path();
        o.set_aside = 0;
        o.spare_workers = 0;
        o.include_dirs = {(fs::path(GI_SOURCE_DIR) / "tests/corpus").string(), recorder_include()};
        return o;
    }

    // The variant that deletes the statement of `grammar` whose text holds `fragment`.
    static Variant deleting(const Grammar& grammar, const std::string& fragment) {
        for (const Rule& r : grammar.rules)
            if (r.kind == RuleKind::Statement && r.text.find(fragment) != std::string::npos)
                return make_variant(parse_genome("<" + r.id + ">"), grammar);
        ADD_FAILURE() << "no statement holds '" << fragment << "'";
        return make_variant(Genome{}, grammar);
    }

    static std::string gate_error(const Grammar& grammar, const CudaEvaluatorOptions& o) {
        try {
            CudaEvaluator e(grammar, o);
            e.check_oracle();
        } catch (const Error& error) {
            return error.what();
        }
        return "";
    }

    TempFolder folder_;
};

TEST_F(GpuRealPrograms, ConstantWeightsAreCapturedAndAVariantIgnoringTheInputIsRefused) {
    const fs::path cases = folder_.path() / "cases";
    const test::ToolRun r = record("row_filter", "rowFilter", cases, "--width 512 --height 256 --frames 2");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("2 case(s) of 'rowFilter'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("with the module variable(s) c_Kernel"), std::string::npos) << r.output;
    const TestCase tc = read_test_case(list_test_cases(cases, "rowFilter").front());
    const auto weights = std::find_if(tc.buffers.begin(), tc.buffers.end(), [](const CaseBuffer& b) { return b.variable == "c_Kernel"; });
    ASSERT_NE(weights, tc.buffers.end());
    EXPECT_EQ(weights->size, 17u * 4u);
    EXPECT_TRUE(weights->read_only);
    EXPECT_NE(weights->before, Bytes(weights->size, 0)) << "the weights the program set";

    const Grammar g = grammar("row_filter", "rowFilter");
    CudaEvaluator e(g, options(cases, "rowFilter", "", ""));
    e.check_oracle();  // the original replays to the recorded outputs: its weights came along
    const BatchResult batch = e.evaluate({make_variant(Genome{}, g), deleting(g, "sum += c_Kernel")}, 0);
    EXPECT_EQ(batch.results[0].status, EvalStatus::Ok) << batch.results[0].detail;
    EXPECT_EQ(batch.results[0].error, 0);
    // With the weights replayed as zeros this variant (all-zero outputs) matched the oracle at 3.6x.
    EXPECT_TRUE(batch.results[1].status != EvalStatus::Ok || batch.results[1].error > 0)
        << to_string(batch.results[1].status) << " " << batch.results[1].detail;
}

// Issue 40, items 1 and 2: a program built with separable compilation (-rdc=true) whose kernel uses
// cooperative groups and libcu++. Its relocatable device code is linked before it is loaded (the
// original replayed with CUDA_ERROR_INVALID_IMAGE before), and libcu++'s constants are not taken for
// variables the cases must hold (every case was refused for lacking
// `_ZN4cuda3std3__417integral_constantIbLb0EE5valueE`).
TEST_F(GpuRealPrograms, ASeparableProgramUsingLibraryHeadersReplaysAndEvolves) {
    const fs::path cases = folder_.path() / "cases";
    const test::ToolRun r = run_gi_tool("record '" + source("separable_filter") + "' --function smooth -I '" +
                                        recorder_include() + "' --compile-option -rdc=true --out '" + cases.string() +
                                        "' -- '" + program("separable_filter") + "' --n 100000 --frames 2");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("with the module variable(s) c_Taps"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("cuda3std"), std::string::npos) << r.output;
    const Grammar g = grammar("separable_filter", "smooth");
    CudaEvaluatorOptions o = options(cases, "smooth", "BLOCK", "ceil(n/BLOCK)");
    o.compile_options = {"-rdc=true"};
    CudaEvaluator e(g, o);
    e.check_oracle();
    const BatchResult batch = e.evaluate({make_variant(Genome{}, g), deleting(g, "sum += c_Taps")}, 0);
    EXPECT_EQ(batch.results[0].status, EvalStatus::Ok) << batch.results[0].detail;
    EXPECT_EQ(batch.results[0].error, 0);
    EXPECT_TRUE(batch.results[1].status != EvalStatus::Ok || batch.results[1].error > 0)
        << to_string(batch.results[1].status) << " " << batch.results[1].detail;
}

TEST_F(GpuRealPrograms, CasesRecordedWithoutTheModuleVariablesAreRefused) {
    // A plain GI_RECORD_DIR run, as the docs said before `gi-tool record`: no c_Kernel in the cases.
    const fs::path cases = folder_.path() / "cases";
    const std::string command = "GI_RECORD_DIR='" + cases.string() + "' '" + program("row_filter") +
                                "' --width 256 --height 64 --frames 1 > /dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0);
    const std::string error = gate_error(grammar("row_filter", "rowFilter"), options(cases, "rowFilter", "", ""));
    EXPECT_NE(error.find("does not hold the __constant__ variable 'c_Kernel'"), std::string::npos) << error;
    EXPECT_NE(error.find("gi-tool record"), std::string::npos) << error;
}

TEST_F(GpuRealPrograms, PointersInsideAStructArgumentAreRelocated) {
    const fs::path cases = folder_.path() / "cases";
    const test::ToolRun r = record("struct_pointers", "axpyStruct", cases, "--n 100000 --launches 2");
    ASSERT_EQ(r.status, 0) << r.output;
    const TestCase tc = read_test_case(list_test_cases(cases, "axpyStruct").front());
    ASSERT_EQ(tc.args.size(), 1u);
    EXPECT_EQ(tc.args[0].kind, CaseArg::Kind::Scalar);
    ASSERT_EQ(tc.args[0].pointers.size(), 3u);  // x, y and out; a and n are numbers
    EXPECT_EQ(tc.buffers.size(), 3u);
    EXPECT_FALSE(tc.buffers[tc.args[0].pointers[2].buffer].read_only);
    EXPECT_TRUE(tc.buffers[tc.args[0].pointers[2].buffer].changed);

    const Grammar g = grammar("struct_pointers", "axpyStruct");
    CudaEvaluator e(g, options(cases, "axpyStruct", "", ""));
    e.check_oracle();
    const BatchResult batch = e.evaluate({make_variant(Genome{}, g), deleting(g, "p.out[i] =")}, 0);
    EXPECT_EQ(batch.results[0].status, EvalStatus::Ok) << batch.results[0].detail;
    EXPECT_EQ(batch.results[0].error, 0);
    EXPECT_EQ(batch.results[1].status, EvalStatus::WrongAnswer) << batch.results[1].detail;
}

// The gate's guard zones (issue 19) around buffers the kernel reaches only through a struct of
// pointers: the worker relocates those pointers into its own guarded copies, so a write just past
// `out` or just before it, through the struct, is judged there before compute-sanitizer runs; the
// original passes both checkers.
TEST_F(GpuRealPrograms, GuardZonesJudgeStrayWritesThroughAStructOfPointers) {
    const fs::path cases = folder_.path() / "cases";
    const test::ToolRun r = record("struct_pointers", "axpyStruct", cases, "--n 100000 --launches 1");
    ASSERT_EQ(r.status, 0) << r.output;
    const Grammar g = grammar("struct_pointers", "axpyStruct");
    auto writing = [&](const std::string& stray) {
        std::string text = read_source_file(source("struct_pointers")).text;
        const std::string anchor = "    if (i < p.n) p.out[i]";
        text.replace(text.find(anchor), 0, "    " + stray + "\n");
        return Variant{Genome{}, text, {}, sha256_hex(text)};
    };
    const std::vector<Variant> batch{make_variant(Genome{}, g), writing("if (i == p.n - 1) p.out[p.n + 3] = 1.0f;"),
                                     writing("if (i == 0) p.out[-2] = 1.0f;")};
    CudaEvaluatorOptions o = options(cases, "axpyStruct", "", "");
    o.sanitize_sessions = 2;
    o.sanitize_jobs = 1;
    o.gate_guard_pages = false;  // zones after the buffers too; the pages (the default) at the end
    CudaEvaluator e(g, o);
    e.check_oracle();
    const std::vector<EvalResult> verdicts = e.sanitize_many(batch, 0);
    ASSERT_EQ(verdicts.size(), 3u);
    EXPECT_EQ(verdicts[0].status, EvalStatus::Ok) << verdicts[0].detail;
    for (int k : {1, 2}) {
        EXPECT_EQ(verdicts[k].status, EvalStatus::SanitizerError) << verdicts[k].detail;
        EXPECT_NE(verdicts[k].detail.find("the gate's guard zones found it writing outside its buffers"), std::string::npos)
            << verdicts[k].detail;
    }
    // The zone is --gate-guard-kib's 256 KiB; the buffer is named as the struct reaches it.
    EXPECT_NE(verdicts[1].detail.find("buffer 2 (output, reached through kernel argument 0): 4 of the 262144 bytes after its "
                                      "end changed (from 13 to 16 bytes past the end)"),
              std::string::npos)
        << verdicts[1].detail;
    EXPECT_NE(verdicts[2].detail.find("before its start changed (from 5 to 8 bytes before the start)"), std::string::npos)
        << verdicts[2].detail;
    EXPECT_EQ(e.stats().gate.guard_judged, 2);
    EXPECT_EQ(e.stats().gate.tool_variants.at("memcheck"), 1);  // the original's, after its guard zones

    // With guard pages the relocated `out` ends at an unmapped page as well: a read past it faults
    // there. The writes meet the zones first, in the case's second, zoned copy (the session serves on).
    o.gate_guard_pages = true;
    CudaEvaluator paged(g, o);
    paged.check_oracle();
    std::vector<Variant> with_read = batch;
    with_read.push_back(writing("if (i == p.n - 1 && p.x[p.n] == 12345.0f) p.out[0] = 0.0f;"));
    const std::vector<EvalResult> pages = paged.sanitize_many(with_read, 0);
    ASSERT_EQ(pages.size(), 4u);
    EXPECT_EQ(pages[0].status, EvalStatus::Ok) << pages[0].detail;
    EXPECT_NE(pages[1].detail.find("(from 13 to 16 bytes past the end)"), std::string::npos) << pages[1].detail;
    EXPECT_NE(pages[2].detail.find("before its start changed (from 5 to 8 bytes before the start)"), std::string::npos)
        << pages[2].detail;
    EXPECT_EQ(pages[3].status, EvalStatus::SanitizerError) << pages[3].detail;
    EXPECT_NE(pages[3].detail.find("the gate's guard pages found it reading or writing past a buffer's end"), std::string::npos)
        << pages[3].detail;
    EXPECT_EQ(paged.stats().gate.guard_judged, 3);
    EXPECT_EQ(paged.stats().gate.sessions_replaced, 1);
}

TEST_F(GpuRealPrograms, AnArrayOfPointersIsRelocatedAndAHostPointerInItRefused) {
    const fs::path cases = folder_.path() / "cases";
    test::ToolRun r = record("pointer_array", "sumRows", cases, "--rows 5 --n 50000");
    ASSERT_EQ(r.status, 0) << r.output;
    const TestCase tc = read_test_case(list_test_cases(cases, "sumRows").front());
    ASSERT_EQ(tc.args.size(), 4u);
    const CaseBuffer& table = tc.buffers[tc.args[1].buffer];
    EXPECT_EQ(table.pointers.size(), 5u);
    EXPECT_EQ(tc.buffers.size(), 2u + 5u);  // out, the table, and each row
    const Grammar g = grammar("pointer_array", "sumRows");
    CudaEvaluator e(g, options(cases, "sumRows", "", ""));
    e.check_oracle();
    const BatchResult batch = e.evaluate({make_variant(Genome{}, g), deleting(g, "sum += rows[r][i]")}, 0);
    EXPECT_EQ(batch.results[0].status, EvalStatus::Ok) << batch.results[0].detail;
    EXPECT_EQ(batch.results[0].error, 0);
    EXPECT_GT(batch.results[1].error, 0) << to_string(batch.results[1].status) << " " << batch.results[1].detail;

    r = record("pointer_array", "sumRows", folder_.path() / "refused", "--rows 3 --n 1000 --host-pointer");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("'sumRows': argument 1 (an array of pointers) (byte 8) holds 0x"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("which is not device memory"), std::string::npos) << r.output;
    EXPECT_TRUE(!fs::exists(folder_.path() / "refused") || list_test_cases(folder_.path() / "refused").empty());
}

TEST_F(GpuRealPrograms, FloatAtomicsAreRefusedUnlessDeclaredNondeterministic) {
    const fs::path cases = folder_.path() / "cases";
    const test::ToolRun r = record("histogram", "weightedHistogram", cases, "--n 4000000 --bins 8");
    ASSERT_EQ(r.status, 0) << r.output;
    const Grammar g = grammar("histogram", "weightedHistogram");
    CudaEvaluatorOptions o = options(cases, "weightedHistogram", "", "");
    // Undeclared: the replay already differs from the recorded run (or, by luck, the rerun from
    // the replay); either way the run stops and says how to declare it.
    const std::string undeclared = gate_error(g, o);
    EXPECT_TRUE(undeclared.find("does not reproduce the outputs recorded") != std::string::npos ||
                undeclared.find("change from one run to the next") != std::string::npos)
        << undeclared;
    EXPECT_NE(undeclared.find("NONDETERMINISTIC"), std::string::npos) << undeclared;

    o.nondeterministic = true;
    const std::string exact = gate_error(g, o);  // declared, but the default tolerance is exact
    EXPECT_TRUE(exact.find("varies beyond the tolerance") != std::string::npos ||
                exact.find("does not reproduce the outputs recorded") != std::string::npos)
        << exact;

    o.tolerances = {"hist:rel=1e-4"};
    ::testing::internal::CaptureStderr();
    const std::string within = gate_error(g, o);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(within, "");
    EXPECT_NE(err.find("declared nondeterministic: over 5 replays per case its outputs moved by up to"), std::string::npos) << err;
}

// A template kernel instantiated twice: each case says which instantiation ran, the run takes the
// cases of every instantiation or of the one registered, and replays each with its own. Recorded
// by gi::launch, which records every launch under the name the program gives it (the launch
// intercept records the registered kernel alone: GpuIntercept's tests).
TEST_F(GpuRealPrograms, EachInstantiationOfATemplateKernelReplaysItsOwnCases) {
    const fs::path cases = folder_.path() / "cases";
    const std::string command = "record '" + source("matrix_mul") + "' --function MatrixMulCUDA -I '" + recorder_include() +
                                "' --record-with launch --recorded-name 'MatrixMulCUDA<16>' --out '" + cases.string() + "' -- '" +
                                program("matrix_mul") + "' --n 128";
    test::ToolRun r = run_gi_tool(command);
    ASSERT_EQ(r.status, 0) << r.output;
    const std::vector<fs::path> sixteen = list_test_cases(cases, "MatrixMulCUDA<16>");
    const std::vector<fs::path> all = list_test_cases(cases);
    ASSERT_EQ(sixteen.size(), 1u);
    ASSERT_EQ(all.size(), 2u);  // both launches: the recorder records every launch it sees
    EXPECT_EQ(read_test_case(sixteen[0], CaseLoad::ManifestOnly).symbol.find("_Z13MatrixMulCUDAILi16E"), 0u);

    const Grammar g = grammar("matrix_mul", "MatrixMulCUDA");
    CudaEvaluator every(g, options(cases, "MatrixMulCUDA", "", ""));
    EXPECT_EQ(every.case_count(), 2);
    every.check_oracle();
    for (int c = 0; c < 2; ++c) {
        const BatchResult batch = every.evaluate({make_variant(Genome{}, g)}, c);
        EXPECT_EQ(batch.results[0].status, EvalStatus::Ok) << c << ": " << batch.results[0].detail;
        EXPECT_EQ(batch.results[0].error, 0) << c;
    }
    CudaEvaluator one(g, options(cases, "MatrixMulCUDA<32>", "", ""));
    EXPECT_EQ(one.case_count(), 1);
    one.check_oracle();
}

TEST_F(GpuRealPrograms, AcceptanceRefusesAVariantTheProgramsOwnSelfCheckFails) {
    const fs::path reference = folder_.path() / "reference";
    const std::string args = "--width 512 --height 128 --frames 2";
    ASSERT_EQ(record("row_filter", "rowFilter", reference, args).status, 0);
    test::ToolRun r = run_gi_tool("accept '" + source("row_filter") + "' --function rowFilter -I '" + recorder_include() + "' --reference '" +
                                  reference.string() + "' --out '" + (folder_.path() / "wrong").string() + "' -- '" +
                                  program("row_filter_no_sum") + "' " + args);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("gi-tool accept: REJECTED: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("exit status 1"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("row_filter: FAILED"), std::string::npos) << r.output;  // the program's own words

    r = run_gi_tool("accept '" + source("row_filter") + "' --function rowFilter -I '" + recorder_include() + "' --reference '" + reference.string() +
                    "' --out '" + (folder_.path() / "right").string() + "' -- '" + program("row_filter") + "' " + args);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("gi-tool accept: accepted: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("2 launch(es) of 'rowFilter' match the original's outputs"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gi
