// What a careless or hostile user did to gi-tool, each once a silent loss or a wrong result
// (issue 18's table, row numbers in the test names), now a clear error or a correct result.
// Everything here runs without a GPU; keep it green.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <sys/resource.h>
#include <unistd.h>

#include "util/atomic_file.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/folder_lock.hpp"
#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

using test::ToolRun;


std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class Hostile : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device device;
        dir_ = fs::temp_directory_path() / ("gi-hostile-" + std::to_string(device()));
        fs::create_directories(dir_);
        kernel_ = dir_ / "k.cu";
        fs::copy_file(fs::path(GI_TEST_DATA_DIR) / "search" / "small.cu", kernel_);
        original_ = slurp(kernel_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string evolve(const fs::path& kernel, const fs::path& out, const std::string& extra = "") const {
        return "evolve " + quoted(kernel) + " --function scale --param BLOCK=32,64,128 --evaluator fake "
               "--generations 3 --population 6 --quiet --out " + quoted(out) + " " + extra;
    }

    fs::path dir_, kernel_;
    std::string original_;
};

TEST_F(Hostile, Row3_ASecondSearchOnARunningSearchsFolderIsRefusedNamingTheHolder) {
    const fs::path out = dir_ / "run";
    ASSERT_EQ(test::run_gi_tool(evolve(kernel_, out)).status, 0);
    const std::string record = slurp(out / "run.xml");
    {
        // The test holds the folder as a running evolve would.
        FolderLock held(out, "the test's own search");
        for (const char* mode : {"--resume", "--restart"}) {
            const ToolRun run = test::run_gi_tool(evolve(kernel_, out, mode));
            EXPECT_EQ(run.status, 1) << mode << "\n" << run.output;
            EXPECT_NE(run.output.find("is in use by a running search (pid " + std::to_string(::getpid()) +
                                      ": the test's own search)"),
                      std::string::npos)
                << run.output;
        }
        EXPECT_EQ(slurp(out / "run.xml"), record) << "a refused search touched the folder";
    }
    // Released with its holder: the run resumes.
    const ToolRun resumed = test::run_gi_tool(evolve(kernel_, out, "--resume"));
    EXPECT_EQ(resumed.status, 0) << resumed.output;
}

TEST_F(Hostile, Row3_TheLockIsReleasedWhenItsHolderEnds) {
    {
        FolderLock first(dir_ / "f", "first");
        EXPECT_THROW({ FolderLock second(dir_ / "f", "second"); }, Error);
    }
    EXPECT_NO_THROW({ FolderLock third(dir_ / "f", "third"); });
}

TEST_F(Hostile, Row4_AKernelFileNameWithASpaceEvolvesResumesAndApplies) {
    const fs::path spaced = dir_ / "my kernel.cu";
    fs::copy_file(kernel_, spaced);
    const fs::path out = dir_ / "run spaced";
    ToolRun run = test::run_gi_tool(evolve(spaced, out, "--generations 4"));
    ASSERT_EQ(run.status, 0) << run.output;
    run = test::run_gi_tool(evolve(spaced, out, "--generations 6 --resume"));
    ASSERT_EQ(run.status, 0) << run.output;
    run = test::run_gi_tool("grammar " + quoted(spaced));
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("<_my_kernel.cu_"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("<_my kernel"), std::string::npos) << run.output;
    // Every genome the run's history prints is one apply reads back.
    run = test::run_gi_tool("history --out " + quoted(out) + " --best 5");
    ASSERT_EQ(run.status, 0) << run.output;
    run = test::run_gi_tool("apply " + quoted(spaced) + " --genome '<_my_kernel.cu_10>' -o " + quoted(dir_ / "v.cu"));
    EXPECT_EQ(run.status, 0) << run.output;
}

TEST_F(Hostile, Row5_ApplyNeverWritesOverTheKernelOrTheGenomeFile) {
    fs::create_symlink(kernel_, dir_ / "link.cu");
    const fs::path genome = dir_ / "g.txt";
    std::ofstream(genome) << "BLOCK=32";
    for (const fs::path& target : {kernel_, dir_ / "link.cu", genome}) {
        const ToolRun run = test::run_gi_tool("apply " + quoted(kernel_) + " --function scale --param BLOCK=32,64 "
                                    "--genome-file " + quoted(genome) + " -o " + quoted(target));
        EXPECT_EQ(run.status, 2) << run.output;
        EXPECT_NE(run.output.find("itself; write the variant to another file"), std::string::npos) << run.output;
    }
    EXPECT_EQ(slurp(kernel_), original_);
    EXPECT_EQ(slurp(genome), "BLOCK=32");
}

TEST_F(Hostile, Row6_AGenomeFileThatIsAFolderOrADeviceIsRefused) {
    ToolRun run = test::run_gi_tool("apply " + quoted(kernel_) + " --genome-file " + quoted(dir_) + " -o " + quoted(dir_ / "v.cu"));
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find("is a folder, not a genome file"), std::string::npos) << run.output;
    EXPECT_FALSE(fs::exists(dir_ / "v.cu"));
    run = test::run_gi_tool("apply " + quoted(kernel_) + " --genome-file /dev/zero -o " + quoted(dir_ / "v.cu"));
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find("not a regular file"), std::string::npos) << run.output;
    run = test::run_gi_tool("apply " + quoted(kernel_) + " --genome '' -o " + quoted(dir_));
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find("is a folder; give the file"), std::string::npos) << run.output;
}

TEST_F(Hostile, Row7_ACaseFolderThatLostItsManifestIsAnErrorNotASkip) {
    TestCase tc;
    tc.kernel = "k";
    tc.grid = {1, 1, 1};
    tc.block = {32, 1, 1};
    CaseBuffer out;
    out.size = 4;
    out.element = ElementType::F32;
    out.read_only = false;
    out.changed = true;
    out.before = Bytes(4, 0);
    out.after = Bytes(4, 1);
    tc.buffers = {out};
    CaseArg p;
    p.kind = CaseArg::Kind::Pointer;
    p.size = 8;
    p.element = ElementType::F32;
    p.buffer = 0;
    tc.args = {p};
    const fs::path cases = dir_ / "cases";
    write_test_case(tc, cases);
    const fs::path second = write_test_case(tc, cases);
    fs::create_directories(cases / "notes");  // not named like a case: not the recorder's
    ASSERT_EQ(test::run_gi_tool("cases " + quoted(cases)).status, 0);
    fs::remove(second / "manifest.xml");
    const ToolRun run = test::run_gi_tool("cases " + quoted(cases));
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find(second.filename().string() + ": a recorded test case without its manifest.xml"),
              std::string::npos)
        << run.output;
}

TEST_F(Hostile, Row11_ACheckpointWithAnImpossibleGenerationIsDamage) {
    const fs::path out = dir_ / "run";
    ASSERT_EQ(test::run_gi_tool(evolve(kernel_, out)).status, 0);
    std::string checkpoint = slurp(out / "checkpoint.xml");
    const auto at = checkpoint.find("next-generation=\"3\"");
    ASSERT_NE(at, std::string::npos) << checkpoint;
    for (const char* value : {"-5", "99999999999", "2"}) {
        std::string damaged = checkpoint;
        damaged.replace(at, 19, std::string("next-generation=\"") + value + "\"");
        write_file_atomically(out / "checkpoint.xml", damaged);
        const ToolRun run = test::run_gi_tool(evolve(kernel_, out, "--generations 60 --resume"));
        EXPECT_EQ(run.status, 1) << value << "\n" << run.output;
        EXPECT_NE(run.output.find("checkpoint.xml"), std::string::npos) << run.output;
        EXPECT_NE(run.output.find("--restart"), std::string::npos) << run.output;
    }
}

TEST_F(Hostile, Row12_ResumingARunWhoseDatabaseWasDeletedIsRefused) {
    const fs::path out = dir_ / "run";
    ASSERT_EQ(test::run_gi_tool(evolve(kernel_, out)).status, 0);
    fs::remove(out / "history.sqlite");
    const ToolRun run = test::run_gi_tool(evolve(kernel_, out, "--generations 5 --resume"));
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find("history.sqlite is missing"), std::string::npos) << run.output;
    EXPECT_FALSE(fs::exists(out / "history.sqlite")) << "a partial database was made";
}

TEST_F(Hostile, Row14_AKernelThatIsADeviceIsRefusedAtOnce) {
    const auto start = std::chrono::steady_clock::now();
    const ToolRun run = test::run_gi_tool("grammar /dev/urandom");
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find("/dev/urandom: is not a regular file"), std::string::npos) << run.output;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(Hostile, Row16_MessagesSurviveNulBytesHugeNamesAndWrongSyntax) {
    const fs::path nul = dir_ / "nul.genome";
    std::ofstream(nul, std::ios::binary) << std::string("BLOCK=32\0<x>", 12);
    ToolRun run = test::run_gi_tool("apply " + quoted(kernel_) + " --genome-file " + quoted(nul) + " -o " + quoted(dir_ / "v.cu"));
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find("control character \\x00"), std::string::npos) << run.output;

    const fs::path huge = dir_ / "huge.genome";
    std::ofstream(huge) << "<_" << std::string(5'000'000, 'a') << ">";
    run = test::run_gi_tool("apply " + quoted(kernel_) + " --genome-file " + quoted(huge) + " -o " + quoted(dir_ / "v.cu"));
    EXPECT_EQ(run.status, 1);
    EXPECT_LT(run.output.size(), 2000u) << "a 5 MB rule name was echoed";
    EXPECT_NE(run.output.find("bytes in all"), std::string::npos) << run.output.substr(0, 2000);

    run = test::run_gi_tool("cases verify " + quoted(dir_));
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find("write 'gi-tool cases DIR'"), std::string::npos) << run.output;
}

TEST_F(Hostile, Row16_AKilledWritersTemporaryFileIsCleanedUpByTheNextRun) {
    const fs::path out = dir_ / "run";
    ASSERT_EQ(test::run_gi_tool(evolve(kernel_, out)).status, 0);
    std::ofstream(out / "run.xml.tmp4711") << "half a record";
    std::ofstream(out / "notes.tmp") << "the user's";  // not one of ours: kept
    const ToolRun run = test::run_gi_tool(evolve(kernel_, out, "--generations 4 --resume"));
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_FALSE(fs::exists(out / "run.xml.tmp4711"));
    EXPECT_TRUE(fs::exists(out / "notes.tmp"));
}

TEST_F(Hostile, Row15_EvolveMemoryStaysLinearInTheKernelsSize) {
    // 3,000 lines of statements that may all be copied over one another: storing every pair took
    // ~370 MB here (12 GB at 20k lines); counting them takes ~60 MB (bench/evolve-memory.sh).
    const fs::path big = dir_ / "big.cu";
    {
        std::ofstream out(big);
        out << "__global__ void big(float* out, const float* in, int n, float a)\n{\n"
               "    int i = blockIdx.x * 64 + threadIdx.x;\n    if (i >= n) return;\n"
               "    float acc = 0.0f;\n    float x = in[i];\n";
        for (int k = 0; k < 3000; ++k) out << "    acc += x * " << k % 97 << ".5f; x = x * a + acc;\n";
        out << "    out[i] = acc;\n}\n";
    }
    const ToolRun run = test::run_gi_tool("evolve " + quoted(big) + " --function big --evaluator fake --generations 2 "
                                "--population 20 --no-pre-tune --no-post-tune --no-minimise --quiet --out " +
                                quoted(dir_ / "run"));
    ASSERT_EQ(run.status, 0) << run.output;
    // This test's process ran only gi-tool (through a shell), so the children's peak is its peak.
    struct rusage usage {};
    ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
    const long peak_mb = usage.ru_maxrss / 1024;
    EXPECT_LT(peak_mb, 200) << "gi-tool evolve peaked at " << peak_mb << " MB on a 3,000-line kernel";
}

}  // namespace
}  // namespace gi
