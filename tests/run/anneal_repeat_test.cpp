// `--strategy anneal` keeps the `--seed` promise (issue 39, class 14): with several workers two
// runs of one seed gave different best genomes (results were taken as they finished, so thread
// timing decided what later children were made from), and a killed run resumed ended elsewhere
// than the uninterrupted one (the master's state was not in the checkpoint).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <regex>
#include <thread>

#include "../history/history_test_util.hpp"
#include "../support/search_test_support.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "run/search_history.hpp"
#include "util/atomic_file.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

// The fake landscape, with evaluations that take 0 to 6 ms by variant: with several workers the
// results come back out of the order they were handed out, as real compiles and runs do.
class UnevenFake : public FakeEvaluator {
public:
    using FakeEvaluator::FakeEvaluator;
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        std::size_t hash = 0;
        for (const Variant& v : variants) hash ^= std::hash<std::string>{}(v.key);
        std::this_thread::sleep_for(std::chrono::microseconds(hash % 7 * 1000));
        return FakeEvaluator::evaluate(variants, case_index);
    }
};

FakeLandscapeOptions uneven_landscape() {
    FakeLandscapeOptions options;
    options.random_effects = true;
    options.seed = 5;
    options.noise = 0.01;
    options.cases = 4;
    return options;
}

EvolveOptions anneal_options(int generations) {
    EvolveOptions options;
    options.strategy = "anneal";
    options.population = 8;
    options.generations = generations;
    options.seed = 11;
    options.pre_tune = false;
    options.minimise = false;
    options.post_tune = false;
    return options;
}

RunRecord run_anneal(const fs::path& dir, OutMode mode, std::size_t workers, int generations, EvolveHooks hooks = {}) {
    const Grammar grammar = testing::small_grammar();
    UnevenFake fake(grammar, uneven_landscape());
    SearchHistoryOptions history_options;
    history_options.workers = workers;
    const EvolveOptions options = anneal_options(generations);
    SearchHistory session(
        grammar, fake, [&] { return std::make_unique<UnevenFake>(grammar, uneven_landscape()); }, options, dir, mode,
        history_options);
    RunRecord record = evolve(grammar, session.evaluator(), options, dir, mode, session.hooks(hooks));
    session.finish(record);
    return record;
}

// What two runs must agree on: run.xml but its wall times, and the database's individuals in order.
std::string anneal_run_text(const fs::path& dir) {
    std::string text = std::regex_replace(read_text_file(dir / "run.xml"), std::regex("<wall [^>]*/>"), "");
    auto history = History::read(dir / kHistoryFileName);
    for (const IndividualRow& row : history->individuals()) {
        text += "\n#" + std::to_string(row.id) + " step " + std::to_string(row.generation) + " " + to_string(row.birth) +
                " of";
        for (std::int64_t p : row.parents) text += " #" + std::to_string(p);
        text += ": " + row.genome + " case " + std::to_string(row.case_index);
    }
    return text;
}

TEST(AnnealRepeat, SeveralWorkersAndOneSeedGiveOneRun) {
    const fs::path a = test::scratch_dir("anneal-a"), b = test::scratch_dir("anneal-b");
    const RunRecord first = run_anneal(a, OutMode::Restart, 3, 8);
    const RunRecord second = run_anneal(b, OutMode::Restart, 3, 8);
    EXPECT_EQ(first.best.genome, second.best.genome);
    EXPECT_EQ(anneal_run_text(a), anneal_run_text(b));
}

// Killed for real (SIGKILL, jobs in flight lost) after `done` generations, then resumed with
// `resume_workers`: the run must end as the uninterrupted one.
void expect_exact_resume(int done, std::size_t resume_workers) {
    SCOPED_TRACE("killed after generation " + std::to_string(done) + ", resumed with " +
                 std::to_string(resume_workers) + " worker(s)");
    const fs::path whole = test::scratch_dir("anneal-whole"), parts = test::scratch_dir("anneal-parts");
    const RunRecord expected = run_anneal(whole, OutMode::Restart, 3, 7);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        EvolveHooks kill_there;
        kill_there.after_checkpoint = [done](int generations) {
            if (generations == done) ::kill(::getpid(), SIGKILL);
        };
        run_anneal(parts, OutMode::Restart, 3, 7, kill_there);
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    const RunRecord resumed = run_anneal(parts, OutMode::Resume, resume_workers, 7);
    ASSERT_EQ(resumed.generations.size(), expected.generations.size());
    for (std::size_t i = 0; i < expected.generations.size(); ++i)
        EXPECT_TRUE(resumed.generations[i] == expected.generations[i]) << "generation " << i;
    EXPECT_EQ(resumed.best.genome, expected.best.genome);
    EXPECT_EQ(read_text_file(parts / "best.genome"), read_text_file(whole / "best.genome"));
    EXPECT_EQ(anneal_run_text(parts), anneal_run_text(whole));
}

TEST(AnnealRepeat, AKilledRunResumesToTheUninterruptedRun) {
    expect_exact_resume(1, 3);
    expect_exact_resume(4, 3);
    // The draws depend on how many jobs are out at once; a resumed run keeps its first window.
    expect_exact_resume(3, 1);
}

}  // namespace
}  // namespace gi
