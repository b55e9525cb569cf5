// Issue 39's second hostile probe, the search and report side (classes 3, 13, 14, 15 and 16 of
// ../shared/probes/2026-11-28-hostile-inputs.md), through the gi-tool program as a user runs it.
// Each was a hang, a crash, a silent damage or a broken promise; every command here runs under a
// time and memory limit, so a regression fails instead of hanging the suite.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>
#include <thread>

#include "../support/gi_tool_run.hpp"
#include "history/sqlite_db.hpp"
#include "process/process.hpp"
#include "util/atomic_file.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

// gi-tool with `arguments`, killed after `seconds` and limited to 3 GB of address space: the
// report's endless tick loop and the lineage's quadratic text once ate memory until killed.
ProcessResult bounded_gi_tool(const std::vector<std::string>& arguments, int seconds = 60) {
    std::vector<std::string> argv{"/bin/sh", "-c", "ulimit -v 3000000; exec \"$0\" \"$@\"", GI_TOOL_PATH};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    ProcessOptions options;
    options.timeout = std::chrono::seconds(seconds);
    options.max_output_bytes = std::size_t{64} << 20;
    return run_process(argv, options);
}

std::string outcome(const ProcessResult& r) {
    return "exit " + std::to_string(r.exit_code) + ", signal " + std::to_string(r.signal) +
           (r.timed_out ? ", timed out" : "") + "\n" + r.err.substr(0, 2000);
}

class SearchReportHostile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = test::fresh_temp_dir("gi-hostile-search-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::create_directories(dir_);
        kernel_ = dir_ / "k.cu";
        fs::copy_file(fs::path(GI_TEST_DATA_DIR) / "search" / "small.cu", kernel_);
    }

    std::vector<std::string> evolve_args(const fs::path& out, std::vector<std::string> extra) const {
        std::vector<std::string> args{"evolve", kernel_.string(), "--function", "scale", "--param", "BLOCK=32,64,128",
                                      "--param", "ROWS=1..8", "--evaluator", "fake", "--quiet", "--out", out.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }

    void evolve(const fs::path& out, std::vector<std::string> extra) const {
        const ProcessResult r = bounded_gi_tool(evolve_args(out, std::move(extra)), 120);
        ASSERT_TRUE(r.succeeded()) << outcome(r);
    }

    // Starts evolve, and kills it with SIGKILL once its checkpoint counts `generations` done (or it
    // ended by itself). Returns whether it was killed.
    bool evolve_killed_after(const fs::path& out, std::vector<std::string> extra, int generations) const {
        const std::vector<std::string> args = evolve_args(out, std::move(extra));
        const pid_t child = ::fork();
        if (child == 0) {
            std::vector<char*> argv{const_cast<char*>(GI_TOOL_PATH)};
            for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            ::execv(GI_TOOL_PATH, argv.data());
            ::_exit(127);
        }
        const std::regex done("next-generation=\"([0-9]+)\"");
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        bool killed = false;
        for (;;) {
            int status = 0;
            if (::waitpid(child, &status, WNOHANG) == child) return killed;
            std::smatch m;
            const std::string checkpoint = test::file_text(out / "checkpoint.xml");
            if ((std::regex_search(checkpoint, m, done) && std::stoi(m[1]) >= generations) ||
                std::chrono::steady_clock::now() > give_up) {
                ::kill(child, SIGKILL);
                killed = true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(killed ? 1 : 5));
        }
    }

    fs::path dir_, kernel_;
};

// Class 3 (E17): chart values a few ulps apart made `t += step` stand still, filling memory.
TEST_F(SearchReportHostile, Class3_AReportOfValuesAFewUlpsApartIsWritten) {
    const fs::path run = dir_ / "run";
    evolve(run, {"--generations", "6", "--population", "6", "--seed", "3"});
    const std::string original = test::file_text(run / "run.xml");
    const std::vector<std::pair<std::string, std::string>> neighbours{
        {"1", "1.0000000000000002"}, {"1e17", "1.0000000000000002e17"}, {"1e-300", "1.0000000000000001e-300"}};
    for (const auto& [low, high] : neighbours) {
        SCOPED_TRACE(low + " and " + high);
        // As tools/ulp_run.py: every generation's best-speedup alternately one and the other, and no
        // individual accepted (so the chart of the best is those values alone).
        std::string text;
        std::size_t at = 0, generation = 0;
        const std::regex tag("<generation [^>]*>");
        for (std::sregex_iterator it(original.begin(), original.end(), tag), end; it != end; ++it) {
            text += original.substr(at, static_cast<std::size_t>(it->position()) - at);
            text += std::regex_replace(it->str(), std::regex("best-speedup=\"[^\"]*\""),
                                       "best-speedup=\"" + (generation++ % 2 ? high : low) + "\"");
            at = static_cast<std::size_t>(it->position() + it->length());
        }
        text += original.substr(at);
        text = std::regex_replace(text, std::regex("accepted=\"1\" speedup="), "accepted=\"0\" speedup=");
        ASSERT_GE(generation, 6u);
        write_file_atomically(run / "run.xml", text);
        fs::remove(run / "report.html");
        const ProcessResult r = bounded_gi_tool({"report", "--out", run.string()}, 60);
        EXPECT_TRUE(r.succeeded()) << outcome(r);
        EXPECT_TRUE(fs::exists(run / "report.html"));
    }
}

// Class 13a (E11): `history --lineage` on a 60,000-deep ancestry crashed after 3.4 GB.
TEST_F(SearchReportHostile, Class13_ALineage60000GenerationsDeepIsPrinted) {
    const fs::path run = dir_ / "run";
    evolve(run, {"--generations", "2", "--population", "4"});
    {
        SqliteDb db(run / "history.sqlite", SqliteDb::Mode::ReadWrite);
        db.exec(R"sql(
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
INSERT INTO individuals (id, genome, variant_key, case_index, status, detail, error, median_ms, spread_ms,
    repetitions, original_median_ms, original_spread_ms, original_repetitions, score_mean, score_deviation,
    accepted, birth, strategy, generation, slot, wall_s)
SELECT 1000000 + i, genome, variant_key, case_index, status, detail, error, median_ms, spread_ms, repetitions,
    original_median_ms, original_spread_ms, original_repetitions, score_mean, score_deviation, accepted,
    'mutation', 'gp', 100000 + i, 0, wall_s FROM n, individuals WHERE individuals.id = 1;
WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
INSERT INTO parents (child, position, parent) SELECT 1000000 + i, 0, 1000000 + i - 1 FROM n;
)sql");
    }
    const ProcessResult r = bounded_gi_tool({"history", "--out", run.string(), "--lineage", "1060000"}, 120);
    ASSERT_TRUE(r.succeeded()) << outcome(r);
    const auto lines = static_cast<std::size_t>(std::count(r.out.begin(), r.out.end(), '\n'));
    EXPECT_EQ(lines, 60000u);
    EXPECT_LT(r.out.size(), 60000u * 300) << "linear in the depth, not quadratic";
    EXPECT_NE(r.out.find("[depth 59999] #1000001 gp gen 100001"), std::string::npos);
}

// Class 13b (D17): 20,000 nested parentheses in --grid overflowed the parser's stack (exit 139).
TEST_F(SearchReportHostile, Class13_DeeplyNestedLaunchExpressionsAreRefused) {
    for (std::size_t depth : {20000u, 60000u}) {
        const std::string grid = std::string(depth, '(') + "n" + std::string(depth, ')');
        const ProcessResult r = bounded_gi_tool(
            {"cases", (dir_ / "cases").string(), "--kernel", kernel_.string(), "--function", "scale", "--block", "4",
             "--grid", grid},
            60);
        EXPECT_EQ(r.exit_code, 2) << outcome(r);
        EXPECT_NE(r.err.find("nested more than 256 levels deep"), std::string::npos) << outcome(r);
        EXPECT_NE(r.err.find("at position 257"), std::string::npos) << outcome(r);
        EXPECT_LT(r.err.size(), 4000u) << "the expression is quoted in part";
    }
}

// Class 14 (E6): anneal with the default workers (the machine's cores), and with three, gave
// different runs for one seed, though --seed promises the same run.
TEST_F(SearchReportHostile, Class14_AnnealGivesOneRunPerSeed) {
    auto record = [](const fs::path& out) {
        return std::regex_replace(test::file_text(out / "run.xml"), std::regex("<wall [^>]*/>"), "");
    };
    for (const std::vector<std::string>& workers : {std::vector<std::string>{}, std::vector<std::string>{"--workers", "3"}}) {
        SCOPED_TRACE(workers.empty() ? "default workers" : "3 workers");
        std::vector<std::string> args{"--strategy", "anneal", "--seed", "11", "--generations", "6", "--population", "8",
                                      "--fake", "delay-ms=2", "--no-pre-tune", "--restart"};
        args.insert(args.end(), workers.begin(), workers.end());
        evolve(dir_ / "a1", args);
        evolve(dir_ / "a2", args);
        EXPECT_EQ(test::file_text(dir_ / "a1" / "best.genome"), test::file_text(dir_ / "a2" / "best.genome"));
        EXPECT_EQ(record(dir_ / "a1"), record(dir_ / "a2"));
    }
}

// Class 14 (E7): a killed anneal run resumed ended elsewhere than the uninterrupted one.
TEST_F(SearchReportHostile, Class14_AKilledAnnealRunResumesToTheSameResult) {
    const std::vector<std::string> args{"--strategy", "anneal", "--seed", "11", "--generations", "8", "--population", "8",
                                        "--workers", "2", "--fake", "delay-ms=15", "--no-pre-tune"};
    evolve(dir_ / "whole", args);
    for (int at : {2, 5}) {
        SCOPED_TRACE("killed after generation " + std::to_string(at));
        const fs::path parts = dir_ / ("parts" + std::to_string(at));
        EXPECT_TRUE(evolve_killed_after(parts, args, at)) << "the run ended before the kill";
        std::vector<std::string> resume = args;
        resume.push_back("--resume");
        evolve(parts, resume);
        EXPECT_EQ(test::file_text(parts / "best.genome"), test::file_text(dir_ / "whole" / "best.genome"));
        EXPECT_EQ(std::regex_replace(test::file_text(parts / "run.xml"), std::regex("<wall [^>]*/>"), ""),
                  std::regex_replace(test::file_text(dir_ / "whole" / "run.xml"), std::regex("<wall [^>]*/>"), ""));
    }
}

// Class 15 (E14): an emptied, cut, padded or foreign population in the checkpoint was resumed.
TEST_F(SearchReportHostile, Class15_ADamagedCheckpointPopulationIsRefused) {
    const fs::path out = dir_ / "cp";
    const std::vector<std::string> args{"--generations", "12", "--population", "20", "--seed", "11",
                                        "--fake", "delay-ms=30", "--no-pre-tune"};
    ASSERT_TRUE(evolve_killed_after(out, args, 2));
    const std::string good = test::file_text(out / "checkpoint.xml");
    std::smatch member;
    ASSERT_TRUE(std::regex_search(good, member, std::regex("<member genome=\"[^\"]*\"/>")));
    std::string thousand, foreign;
    for (int i = 0; i < 1000; ++i) thousand += member.str();
    for (int i = 0; i < 20; ++i) foreign += "<member genome=\"&lt;_nope.cu_1&gt;\"/>";
    std::vector<std::string> resume = args;
    resume.push_back("--resume");
    for (const auto& [members, expected] : std::vector<std::pair<std::string, std::string>>{
             {"", "has 0 members"}, {member.str(), "has 1 member,"}, {thousand, "has 1000 members"},
             {foreign, "'<_nope.cu_1>' does not fit the kernel"}}) {
        SCOPED_TRACE(expected);
        write_file_atomically(out / "checkpoint.xml",
                              std::regex_replace(good, std::regex("<population>[\\s\\S]*?</population>"),
                                                 "<population>" + members + "</population>"));
        const ProcessResult r = bounded_gi_tool(evolve_args(out, resume), 60);
        EXPECT_EQ(r.exit_code, 1) << outcome(r);
        EXPECT_NE(r.err.find((out / "checkpoint.xml").string()), std::string::npos) << outcome(r);
        EXPECT_NE(r.err.find(expected), std::string::npos) << outcome(r);
    }
    write_file_atomically(out / "checkpoint.xml", good);
    const ProcessResult r = bounded_gi_tool(evolve_args(out, resume), 120);
    EXPECT_TRUE(r.succeeded()) << outcome(r);
}

// Class 16 (E12): the whole run record was rebuilt and rewritten each generation, so the
// checkpoint grew with the run (1.4 MB at 2000 generations) and each generation cost more.
TEST_F(SearchReportHostile, Class16_TheCheckpointDoesNotGrowWithTheGenerations) {
    const std::vector<std::string> probe{"--population", "2", "--no-pre-tune", "--no-post-tune", "--no-minimise"};
    std::vector<std::string> short_run = probe, long_run = probe;
    short_run.insert(short_run.end(), {"--generations", "20"});
    long_run.insert(long_run.end(), {"--generations", "400"});
    evolve(dir_ / "g20", short_run);
    evolve(dir_ / "g400", long_run);
    const auto small = fs::file_size(dir_ / "g20" / "checkpoint.xml"), large = fs::file_size(dir_ / "g400" / "checkpoint.xml");
    // The genomes in it may grow longer; the generations' records (700 bytes each) are no longer in it.
    EXPECT_LE(large, 2 * small) << small << " bytes after 20 generations, " << large << " after 400";
}

}  // namespace
}  // namespace gi
