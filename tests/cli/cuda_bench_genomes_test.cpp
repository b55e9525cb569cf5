// `gi-tool cuda-bench --genomes FILE`: chosen genomes instead of random ones, each on the case its
// line names, one --log line each; a bad list is a usage error naming the file and line. No GPU:
// gi_tests stands in for gi-worker (tests/support/fake_worker.cpp); compiles are real (NVRTC).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "../support/fake_worker_fixture.hpp"
#include "../support/gi_tool_run.hpp"
#include "genome/genome_list.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

class CudaBenchGenomes : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "256,1024", 2); }

    ProcessResult bench(const std::string& genomes_text, const std::filesystem::path& log,
                        const std::vector<std::string>& more = {}) {
        const std::filesystem::path list = folder_.path() / "genomes.txt";
        std::ofstream(list) << genomes_text;
        std::vector<std::string> args{"cuda-bench", kernel_.string(), "--function", "scale", "--param", "BLOCK=256,1024", "--block",
                                      "BLOCK", "--grid", "ceil(n/BLOCK)", "--cases", (folder_.path() / "cases").string(), "--set-aside",
                                      "0", "--worker", std::filesystem::read_symlink("/proc/self/exe").string(), "--arch", "sm_90",
                                      "--timeout-margin-ms", "300", "--spare-workers", "0", "--genomes", list.string(), "--log",
                                      log.string()};
        args.insert(args.end(), more.begin(), more.end());
        return test::gi_tool(args);
    }
};

std::vector<std::vector<std::string>> tsv(const std::filesystem::path& file) {
    std::vector<std::vector<std::string>> rows;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> fields;
        std::stringstream s(line);
        for (std::string f; std::getline(s, f, '\t');) fields.push_back(f);
        rows.push_back(fields);
    }
    return rows;
}

TEST_F(CudaBenchGenomes, EachGenomeRunsOnTheCaseItsLineNames) {
    const std::filesystem::path log = folder_.path() / "verdicts.tsv";
    const ProcessResult r = bench("# chosen\n1\tBLOCK=1024\n\n0\tBLOCK=256\n1\tBLOCK=1024\n", log);
    ASSERT_TRUE(r.succeeded()) << r.err << r.out;
    EXPECT_NE(r.out.find("3 variants from --genomes"), std::string::npos) << r.out;
    const auto rows = tsv(log);
    ASSERT_EQ(rows.size(), 3u);
    // number, case, status, error, genome, detail
    EXPECT_EQ(rows[0][1], "1");
    EXPECT_EQ(rows[0][4], "BLOCK=1024");
    EXPECT_EQ(rows[1][1], "0");
    EXPECT_EQ(rows[1][4], "BLOCK=256");
    EXPECT_EQ(rows[2][1], "1");
    for (const auto& row : rows) EXPECT_EQ(row[2], "ok") << row[4] << ": " << (row.size() > 5 ? row[5] : "");
}

TEST_F(CudaBenchGenomes, ABadListIsAUsageErrorNamingTheLine) {
    const std::filesystem::path log = folder_.path() / "verdicts.tsv";
    ProcessResult r = bench("BLOCK=1024\nx\tBLOCK=256\n", log);
    EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
    EXPECT_NE(r.err.find("genomes.txt:2: 'x' before the tab is not a case number"), std::string::npos) << r.err;
    r = bench("7\tBLOCK=1024\n", log);
    EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
    EXPECT_NE(r.err.find("genome 1 names case 7, but 2 training cases were loaded (0..1)"), std::string::npos) << r.err;
    r = bench("# nothing\n", log);
    EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
    EXPECT_NE(r.err.find("holds no genome"), std::string::npos) << r.err;
}

// --sanitize N: the first N correct variants go through the search's gate as one wave, and the
// line says how many there were, how many removed a barrier, and the wall time. The wave runs on
// the smaller of the two training cases (case 1: cuda/gate_case.hpp), whatever case they ran on.
TEST_F(CudaBenchGenomes, SanitizePutsTheCorrectVariantsThroughTheGateAsOneWave) {
    const std::filesystem::path log = folder_.path() / "verdicts.tsv";
    const ProcessResult r = bench("0\tBLOCK=256\n0\tBLOCK=1024\n", log,
                                  {"--sanitize", "5", "--sanitizer", passing_sanitizer(folder_.path() / "sanitized.log"), "--sanitize-sessions", "0"});
    ASSERT_TRUE(r.succeeded()) << r.err << r.out;
    EXPECT_NE(r.out.find("sanitizer gate: 2 correct variants (0 of them removed a barrier) checked as one wave on case 1 in "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(", 0 failed\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("note: sanitizer gate: 2 variants checked under compute-sanitizer"), std::string::npos) << r.out;
    std::ifstream sanitized(folder_.path() / "sanitized.log");
    const std::string checkers((std::istreambuf_iterator<char>(sanitized)), std::istreambuf_iterator<char>());
    EXPECT_EQ(checkers, "memcheck\nmemcheck\n");
}

TEST_F(CudaBenchGenomes, OnlyRemovedBarriersNeedsSanitize) {
    const ProcessResult r = bench("0\tBLOCK=256\n", folder_.path() / "verdicts.tsv", {"--sanitize-removed-barriers"});
    EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
    EXPECT_NE(r.err.find("--sanitize-removed-barriers chooses which variants --sanitize N checks; give --sanitize N too"),
              std::string::npos)
        << r.err;
}

TEST(GenomeList, ReadsCasesGenomesAndSkipsCommentsAndBlankLines) {
    const std::filesystem::path file = std::filesystem::temp_directory_path() / ("gi-genomes-" + std::to_string(::getpid()));
    std::ofstream(file) << "# a recorded search\n\n3\t<_k.cu_12> BLOCK=64\r\nBLOCK=32\n0\t\n";
    const std::vector<GenomeLine> lines = read_genome_lines(file.string());
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].case_index, 3);
    EXPECT_EQ(genome_to_text(lines[0].genome), "BLOCK=64 <_k.cu_12>");
    EXPECT_EQ(lines[0].line, 3);
    EXPECT_EQ(lines[1].case_index, -1);
    EXPECT_TRUE(lines[2].genome.edits.empty()) << "an empty genome after the tab is the original";
    std::ofstream(file) << "<_k.cu_12\n";
    EXPECT_THROW(read_genome_lines(file.string()), UsageError);
    std::filesystem::remove(file);
}

}  // namespace
}  // namespace gi
