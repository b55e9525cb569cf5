// Checkpoints on --resume (issue 39): a damaged population was taken silently (class 15), and every
// generation rewrote the whole run record into run.xml and checkpoint.xml, so each cost more than
// the last (class 16). The checkpoint now keeps the generations in a log appended to, and resumes
// exactly from it, also after a session killed between the log and the checkpoint.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <iostream>
#include <regex>

#include "../support/gi_tool_run.hpp"
#include "../support/search_test_support.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "run/checkpoint.hpp"
#include "run/evolve.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

struct StoppedHere {};

EvolveOptions resume_test_options(const std::string& strategy, int generations, std::size_t population = 6) {
    EvolveOptions options;
    options.strategy = strategy;
    options.population = population;
    options.generations = generations;
    options.seed = 5;
    options.pre_tune = false;
    options.minimise = false;
    options.post_tune = false;
    return options;
}

FakeLandscapeOptions resume_test_landscape() {
    FakeLandscapeOptions landscape;
    landscape.seed = 9;
    return landscape;
}

RunRecord evolve_here(const fs::path& dir, const EvolveOptions& options, OutMode mode, int stop_after = -1) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, resume_test_landscape());
    EvolveHooks hooks;
    hooks.after_checkpoint = [stop_after](int done) {
        if (done == stop_after) throw StoppedHere{};
    };
    return evolve(grammar, fake, options, dir, mode, hooks);
}

std::string resume_error(const fs::path& dir, const EvolveOptions& options) {
    try {
        evolve_here(dir, options, OutMode::Resume);
    } catch (const Error& e) {
        return e.what();
    }
    return "(resumed)";
}

std::string with_population(const std::string& checkpoint, const std::string& members) {
    return std::regex_replace(checkpoint, std::regex("<population>[\\s\\S]*?</population>|<population/>"),
                              "<population>" + members + "</population>");
}

void expect_same_generations(const RunRecord& a, const RunRecord& b) {
    ASSERT_EQ(a.generations.size(), b.generations.size());
    for (std::size_t i = 0; i < a.generations.size(); ++i) EXPECT_TRUE(a.generations[i] == b.generations[i]) << i;
    EXPECT_EQ(a.best.genome, b.best.genome);
    EXPECT_EQ(a.final_genome, b.final_genome);
}

TEST(CheckpointResume, ADamagedPopulationIsRefusedNamingTheFile) {
    const fs::path dir = test::fresh_temp_dir("gi-resume-population");
    const EvolveOptions options = resume_test_options("gp", 4);
    EXPECT_THROW(evolve_here(dir, options, OutMode::Fresh, 2), StoppedHere);
    const fs::path file = dir / "checkpoint.xml";
    const std::string good = read_text_file(file);
    const std::smatch first = [&] {
        std::smatch m;
        std::regex_search(good, m, std::regex("<member genome=\"[^\"]*\"/>"));
        return m;
    }();
    ASSERT_FALSE(first.empty());
    std::string thousand;
    for (int i = 0; i < 1000; ++i) thousand += first.str();
    std::string foreign;
    for (int i = 0; i < 6; ++i) foreign += "<member genome=\"&lt;_nope.cu_1&gt;\"/>";
    const std::vector<std::pair<std::string, std::string>> damaged{
        {"", "the population has 0 members, but this run's generation 2 has 6"},
        {first.str(), "the population has 1 member, but this run's generation 2 has 6"},
        {thousand, "the population has 1000 members, but this run's generation 2 has 6"},
        {foreign, "population member 1 '<_nope.cu_1>' does not fit the kernel"},
    };
    for (const auto& [members, expected] : damaged) {
        write_file_atomically(file, with_population(good, members));
        const std::string message = resume_error(dir, options);
        EXPECT_NE(message.find(file.string() + ": "), std::string::npos) << message;
        EXPECT_NE(message.find(expected), std::string::npos) << message;
        EXPECT_NE(message.find("--restart"), std::string::npos) << message;
    }
    write_file_atomically(file, good);
    EXPECT_EQ(resume_error(dir, options), "(resumed)");
}

// Each strategy's own population size is what a resume checks: NSGA-II's grows by its elites after
// the first generation, anneal keeps none (its individuals are in the history database).
TEST(CheckpointResume, EveryStrategysOwnCheckpointResumes) {
    for (const std::string strategy : {"gp", "nsga2"}) {
        SCOPED_TRACE(strategy);
        const fs::path whole = test::fresh_temp_dir("gi-resume-whole-" + strategy);
        const fs::path parts = test::fresh_temp_dir("gi-resume-parts-" + strategy);
        const EvolveOptions options = resume_test_options(strategy, 5, 8);
        const RunRecord expected = evolve_here(whole, options, OutMode::Fresh);
        EXPECT_THROW(evolve_here(parts, options, OutMode::Fresh, 3), StoppedHere);
        expect_same_generations(evolve_here(parts, options, OutMode::Resume), expected);
    }
}

// A session killed after appending a generation to the log and before writing its checkpoint: the
// log holds a record the checkpoint does not count, which the resumed run writes over.
TEST(CheckpointResume, AGenerationLoggedAfterTheLastCheckpointIsDropped) {
    const fs::path whole = test::fresh_temp_dir("gi-resume-log-whole"), parts = test::fresh_temp_dir("gi-resume-log-parts");
    const EvolveOptions options = resume_test_options("gp", 6);
    const RunRecord expected = evolve_here(whole, options, OutMode::Fresh);
    EXPECT_THROW(evolve_here(parts, options, OutMode::Fresh, 3), StoppedHere);
    const std::string at_three = read_text_file(parts / "checkpoint.xml");
    EXPECT_THROW(evolve_here(parts, options, OutMode::Resume, 4), StoppedHere);
    write_file_atomically(parts / "checkpoint.xml", at_three);  // as if killed before this write
    expect_same_generations(evolve_here(parts, options, OutMode::Resume), expected);
    EXPECT_EQ(read_text_file(parts / "checkpoint.generations"), read_text_file(whole / "checkpoint.generations"));
}

TEST(CheckpointResume, ADamagedOrMissingGenerationLogIsAClearError) {
    const fs::path dir = test::fresh_temp_dir("gi-resume-log-damaged");
    const EvolveOptions options = resume_test_options("gp", 5);
    EXPECT_THROW(evolve_here(dir, options, OutMode::Fresh, 3), StoppedHere);
    const fs::path log = dir / "checkpoint.generations";
    const std::string text = read_text_file(log);
    write_file_atomically(log, text.substr(0, text.size() / 2));
    std::string message = resume_error(dir, options);
    EXPECT_NE(message.find(log.string() + ": holds"), std::string::npos) << message;
    EXPECT_NE(message.find("--restart"), std::string::npos) << message;
    fs::remove(log);
    message = resume_error(dir, options);
    EXPECT_NE(message.find("the generation log of"), std::string::npos) << message;
    EXPECT_NE(message.find("is missing"), std::string::npos) << message;
}

// A checkpoint of format 1 (the whole record inline, no log) still resumes, to the same run.
TEST(CheckpointResume, AFormat1CheckpointStillResumes) {
    const fs::path whole = test::fresh_temp_dir("gi-resume-v1-whole"), parts = test::fresh_temp_dir("gi-resume-v1-parts");
    const EvolveOptions options = resume_test_options("gp", 5);
    const RunRecord expected = evolve_here(whole, options, OutMode::Fresh);
    EXPECT_THROW(evolve_here(parts, options, OutMode::Fresh, 2), StoppedHere);
    std::string text = read_text_file(parts / "checkpoint.xml");
    text = std::regex_replace(text, std::regex("format=\"2\""), "format=\"1\"", std::regex_constants::format_first_only);
    text = std::regex_replace(text, std::regex("<generation-log [^>]*/>"), "");
    const std::size_t empty = text.find("<generations/>");
    ASSERT_NE(empty, std::string::npos);
    text.replace(empty, 14, "<generations>" + read_text_file(parts / "checkpoint.generations") + "</generations>");
    write_file_atomically(parts / "checkpoint.xml", text);
    fs::remove(parts / "checkpoint.generations");
    expect_same_generations(evolve_here(parts, options, OutMode::Resume), expected);
}

std::uintmax_t size_of(const fs::path& path) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    return ec ? 0 : size;
}

// What a run writes, watched from outside after each generation: the checkpoint's size, and the
// bytes of run.xml each time it was replaced (a new file: atomic writes rename a new inode in).
struct WrittenBytes {
    std::vector<std::uint64_t> total;  // after generation i + 1: bytes written so far
    std::vector<std::uintmax_t> checkpoint;
};

WrittenBytes watch_a_long_run(const fs::path& dir, int generations) {
    WrittenBytes seen;
    std::uint64_t total = 0;
    ino_t run_xml_inode = 0;
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, resume_test_landscape());
    EvolveHooks hooks;
    hooks.after_checkpoint = [&](int) {
        struct stat info {};
        if (::stat((dir / "run.xml").c_str(), &info) == 0 && info.st_ino != run_xml_inode) {
            run_xml_inode = info.st_ino;
            total += static_cast<std::uint64_t>(info.st_size);
        }
        const std::uintmax_t checkpoint = size_of(dir / "checkpoint.xml");
        total += checkpoint;
        seen.checkpoint.push_back(checkpoint);
        seen.total.push_back(total + size_of(dir / "checkpoint.generations"));
    };
    evolve(grammar, fake, resume_test_options("gp", generations, 2), dir, OutMode::Fresh, hooks);
    return seen;
}

// The probe's command (population 2, nothing but the search) for 300 generations: a generation
// late in the run must cost what one early in it did. Counted in bytes, not seconds.
TEST(CheckpointResume, AGenerationCostsTheSameLateInARunAsEarly) {
    const fs::path dir = test::fresh_temp_dir("gi-resume-cost");
    const WrittenBytes seen = watch_a_long_run(dir, 300);
    ASSERT_EQ(seen.total.size(), 300u);
    // Its genomes may grow longer as the search goes on, its generations' records are not in it.
    EXPECT_LE(seen.checkpoint[299], 2 * seen.checkpoint[19]) << "the checkpoint does not grow with the generations";
    const double early = static_cast<double>(seen.total[59] - seen.total[19]) / 40;
    const double late = static_cast<double>(seen.total[299] - seen.total[259]) / 40;
    std::cout << "bytes written a generation: " << early << " at generations 21-60, " << late << " at 261-300\n";
    EXPECT_LE(late, 1.5 * early) << "a run that rewrites its record each generation writes several times as much";
}

}  // namespace
}  // namespace gi
