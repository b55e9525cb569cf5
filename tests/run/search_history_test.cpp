// The history database inside whole evolve runs: every strategy on the fake landscape, a run
// killed mid-way, resume, and the refusals that protect a database that is not this run's.
#include "run/search_history.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include "../support/search_test_support.hpp"
#include "evaluate/variant_checker.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "../history/history_test_util.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

FakeLandscapeOptions landscape(int delay_ms = 0) {
    FakeLandscapeOptions options;
    options.random_effects = false;
    options.noise = 0.002;
    options.cases = 5;
    options.delay_ms = delay_ms;
    options.declared["BLOCK=128"] = FakeEffect::time(0.6);
    options.declared["<_k.cu_12>"] = FakeEffect::time(0.7);
    options.declared["<IF_k.cu_20><IF_k.cu_21>"] = FakeEffect::time(0.9);
    options.declared["ROWS=1"] = FakeEffect::time(1.5);
    options.declared["<_k.cu_10>"] = FakeEffect::wrong(3.0, 0.5);
    options.declared["<_k.cu_11>"] = FakeEffect::compile_error();
    return options;
}

constexpr double kOptimum = 1 / (0.6 * 0.7 * 0.9);

EvolveOptions options_for(const std::string& strategy) {
    EvolveOptions options;
    options.strategy = strategy;
    options.population = 16;
    options.generations = 20;
    options.seed = 42;
    options.pre_tune = false;
    return options;
}

// A search alone: `generations` of it, then neither minimisation nor post-tuning.
EvolveOptions search_only(const std::string& strategy, int generations) {
    EvolveOptions options = options_for(strategy);
    options.generations = generations;
    options.minimise = false;
    options.post_tune = false;
    return options;
}

struct RunResult {
    RunRecord record;
    std::int64_t individuals = 0;
    double utilisation = 0;
};

RunResult run(const Grammar& grammar, const EvolveOptions& options, const fs::path& dir, OutMode mode,
        std::size_t workers = 2, EvolveHooks base = {}, int delay_ms = 0) {
    FakeEvaluator fake(grammar, landscape(delay_ms));
    SearchHistoryOptions history_options;
    history_options.workers = workers;
    SearchHistory session(
        grammar, fake, [&] { return std::make_unique<FakeEvaluator>(grammar, landscape(delay_ms)); }, options, dir,
        mode, history_options);
    RunResult out;
    out.record = evolve(grammar, session.evaluator(), options, dir, mode, session.hooks(base));
    session.finish(out.record);
    out.individuals = session.history().individual_count();
    out.utilisation = session.utilisation();
    return out;
}

class EveryStrategy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryStrategy, ReachesTheKnownOptimumAndRecordsEveryIndividual) {
    const Grammar grammar = testing::small_grammar();
    const fs::path dir = test::scratch_dir("strategy-" + GetParam());
    fs::remove_all(dir);
    // One worker: with two, anneal's births depend on which evaluation finishes first (thread timing),
    // so whether 320 evaluations reach the optimum varied from run to run. The asynchronous
    // master with several workers is tested on its own below (utilisation, resume).
    const RunResult result = run(grammar, options_for(GetParam()), dir, OutMode::Fresh, 1);
    ASSERT_TRUE(result.record.best.found);
    EXPECT_GT(result.record.best.speedup, kOptimum * 0.99) << GetParam() << ": " << result.record.best.genome;
    auto history = History::read(dir / kHistoryFileName);
    IndividualFilter search;
    search.strategy = GetParam();
    const auto rows = history->individuals(search);
    EXPECT_GE(rows.size(), 16u * 20u) << "every evaluated individual of the search is stored";
    bool saw_failure_with_cause = false, saw_parent = false;
    for (const IndividualRow& row : rows) {
        if (row.status != EvalStatus::Ok) saw_failure_with_cause |= !row.detail.empty();
        saw_parent |= !row.parents.empty();
    }
    EXPECT_TRUE(saw_failure_with_cause);
    EXPECT_TRUE(saw_parent) << GetParam() << " reports births and parents";
    // Minimisation's and tuning's points are stored too, under their own names.
    IndividualFilter minimise;
    minimise.strategy = "minimise";
    EXPECT_FALSE(history->individuals(minimise).empty());
    // The Pareto front is in run.xml and pareto.xml, with the budget's choice.
    const std::string run_xml = read_text_file(dir / "run.xml");
    EXPECT_NE(run_xml.find("<pareto-front max-error=\"0\""), std::string::npos);
    EXPECT_NE(read_text_file(dir / "pareto.xml").find("chosen=\"1\""), std::string::npos);
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Strategies, EveryStrategy, ::testing::Values("gp", "nsga2", "anneal"));

TEST(SearchHistory, AsynchronousAnnealingKeepsItsWorkersBusyInsideEvolve) {
    const Grammar grammar = testing::small_grammar();
    const fs::path dir = test::scratch_dir("busy");
    fs::remove_all(dir);
    const EvolveOptions options = search_only("anneal", 4);
    const RunResult result = run(grammar, options, dir, OutMode::Fresh, 4, {}, 30);
    std::cout << "anneal worker utilisation inside evolve (4 workers, 30 ms per evaluation): " << result.utilisation
              << "\n";
    // The master alone keeps them 99% busy (AnnealMaster.KeepsEveryWorkerBusy); inside evolve the
    // checkpoint written after every block (two fsynced files) is the gap, larger on a busy disk.
    EXPECT_GT(result.utilisation, 0.7);
    fs::remove_all(dir);
}

// A fake landscape with a sanitizer gate whose every check takes 20 ms.
class SlowlyCheckedFake : public FakeEvaluator, public testing::OneByOneChecker {
public:
    using FakeEvaluator::FakeEvaluator;
    std::atomic<int> checks{0};
    VariantChecker* checker() override { return this; }
    EvalResult sanitize_one(const Variant&, int) override {
        ++checks;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return EvalResult{};
    }
    ValidationReport validate(const Variant&) override { return ValidationReport{}; }
};

TEST(SearchHistory, TheGateItRunsInsideAGenerationCountsAsGateTime) {
    // The database gates each generation before recording it, and evolve's own gate then only
    // meets cached verdicts: the time must still be put down to the gate, not to evaluation.
    const Grammar grammar = testing::small_grammar();
    const fs::path dir = test::scratch_dir("gate-time");
    fs::remove_all(dir);
    const EvolveOptions options = search_only("gp", 3);
    SlowlyCheckedFake checked(grammar, landscape());
    SearchHistory session(
        grammar, checked, [&] { return std::make_unique<FakeEvaluator>(grammar, landscape()); }, options, dir,
        OutMode::Fresh, SearchHistoryOptions{});
    int checks_in_search = -1;
    EvolveHooks base;
    base.after_checkpoint = [&](int done) {
        if (done == options.generations) checks_in_search = checked.checks;
    };
    const RunRecord record = evolve(grammar, session.evaluator(), options, dir, OutMode::Fresh, session.hooks(base));
    session.finish(record);
    ASSERT_GT(checks_in_search, 0);
    EXPECT_GE(record.search_gate_seconds, 0.02 * checks_in_search);
    EXPECT_GE(record.search_evaluate_seconds, 0);
    EXPECT_LE(record.search_evaluate_seconds + record.search_gate_seconds, record.wall_seconds);
    fs::remove_all(dir);
}

TEST(SearchHistory, AKilledRunKeepsItsRowsAndResumesWithoutMeasuringThemAgain) {
    const Grammar grammar = testing::small_grammar();
    for (const std::string strategy : {"nsga2", "anneal"}) {
        const fs::path dir = test::scratch_dir("killed-" + strategy);
        fs::remove_all(dir);
        EvolveOptions options = options_for(strategy);
        options.generations = 6;
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            EvolveHooks kill_at_3;
            kill_at_3.after_checkpoint = [](int done) {
                if (done == 3) ::kill(::getpid(), SIGKILL);
            };
            run(grammar, options, dir, OutMode::Fresh, 1, kill_at_3);
            ::_exit(0);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status)) << strategy;
        std::int64_t before = 0, evaluations_before = 0;
        {
            auto history = History::read(dir / kHistoryFileName);
            before = history->individual_count();
            evaluations_before = history->evaluation_count();
        }
        EXPECT_GE(before, 3 * 16) << strategy << ": rows written as the run went";
        const RunResult resumed = run(grammar, options, dir, OutMode::Resume, 1);
        EXPECT_EQ(resumed.record.generations.size(), 6u) << strategy;
        EXPECT_GT(resumed.individuals, before) << strategy;
        auto history = History::read(dir / kHistoryFileName);
        EXPECT_GT(history->evaluation_count(), evaluations_before);
        fs::remove_all(dir);
    }
}

TEST(SearchHistory, ResumeRefusesAForeignOrOtherKernelDatabaseAndLeavesItAlone) {
    const Grammar grammar = testing::small_grammar();
    const fs::path dir = test::scratch_dir("refuse");
    fs::remove_all(dir);
    EvolveOptions options = options_for("gp");
    options.generations = 1;
    run(grammar, options, dir, OutMode::Fresh);

    // Another kernel's database put in its place: the checkpoint matches, the database does not.
    Grammar edited = grammar;
    edited.source_hash = "another kernel";
    const fs::path other = test::scratch_dir("refuse-other");
    History::create(other / kHistoryFileName, history_identity(edited));
    fs::copy_file(other / kHistoryFileName, dir / kHistoryFileName, fs::copy_options::overwrite_existing);
    const std::string foreign_kernel = test::file_bytes(dir / kHistoryFileName);
    FakeEvaluator fake(grammar, landscape());
    try {
        SearchHistory(grammar, fake, nullptr, options, dir, OutMode::Resume, {});
        FAIL() << "another kernel's database was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("kernel source sha256"), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::file_bytes(dir / kHistoryFileName), foreign_kernel);
    // A changed kernel is named by the checkpoint, before the database is opened.
    FakeEvaluator edited_fake(edited, landscape());
    try {
        SearchHistory(edited, edited_fake, nullptr, options, dir, OutMode::Resume, {});
        FAIL() << "a changed kernel was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("kernel-sha256"), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::file_bytes(dir / kHistoryFileName), foreign_kernel);
    fs::remove_all(other);

    write_file_atomically(dir / kHistoryFileName, "not a database at all, just some text that sits there\n");
    const std::string text = test::file_bytes(dir / kHistoryFileName);
    EXPECT_THROW(SearchHistory(grammar, fake, nullptr, options, dir, OutMode::Resume, {}), Error);
    EXPECT_THROW(SearchHistory(grammar, fake, nullptr, options, dir, OutMode::Restart, {}), Error)
        << "--restart never deletes a file that is not a history database";
    EXPECT_EQ(test::file_bytes(dir / kHistoryFileName), text);
    EXPECT_THROW(SearchHistory(grammar, fake, nullptr, options, dir, OutMode::Fresh, {}), UsageError);
    fs::remove_all(dir);
}

TEST(SearchHistory, BadOptionsAreUsageErrors) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, landscape());
    const fs::path dir = test::scratch_dir("usage");
    SearchHistoryOptions zero;
    zero.workers = 0;
    EXPECT_THROW(SearchHistory(grammar, fake, nullptr, options_for("anneal"), dir / "a", OutMode::Fresh, zero), UsageError);
    EvolveOptions no_batch = search_only("anneal", 1);
    no_batch.strategy_settings["--anneal-batch"] = 0;
    try {
        run(grammar, no_batch, dir / "b", OutMode::Fresh, 1);
        FAIL() << "--anneal-batch 0 was accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--anneal-batch must be between 1 and 100000, got 0"), std::string::npos)
            << e.what();
    }
    try {
        check_evolve_options(options_for("simulated-annealing"));
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("known: anneal, gp, nsga2"), std::string::npos) << e.what();
    }
    EXPECT_EQ(default_workers("cuda"), 1u);
    EXPECT_GE(default_workers("fake"), 1u);
    fs::remove_all(dir);
}

TEST(SearchHistory, ParetoMembersAndTheBudgetsChoice) {
    auto row = [](std::int64_t id, const std::string& genome, double ms, double error, EvalStatus status = EvalStatus::Ok) {
        IndividualRow r;
        r.id = id;
        r.genome = genome;
        r.time = test::timing(ms);
        r.original = test::timing(2.0);
        r.error = error;
        r.status = status;
        return r;
    };
    const std::vector<IndividualRow> rows{row(1, "", 2.0, 0),         row(2, "A", 1.0, 0.02), row(3, "B", 1.5, 0),
                                          row(4, "C", 1.2, 0.005),    row(5, "D", 0.5, 0, EvalStatus::Crash),
                                          row(6, "E", 1.6, 0.001)};
    const auto exact = pareto_members(rows, 0);
    ASSERT_EQ(exact.size(), 3u);
    EXPECT_EQ(exact[0].genome, "A");
    EXPECT_EQ(exact[1].genome, "C");
    EXPECT_EQ(exact[2].genome, "B");
    EXPECT_TRUE(exact[2].chosen);
    EXPECT_FALSE(exact[0].chosen || exact[1].chosen);
    EXPECT_DOUBLE_EQ(exact[0].relative_time, 0.5);
    const auto one_percent = pareto_members(rows, 0.01);
    EXPECT_TRUE(one_percent[1].chosen) << "C: within 1% and faster than B";
    const std::string xml = pareto_xml(one_percent, 0.01);
    EXPECT_NE(xml.find("chosen=\"C\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("genome=\"A\" relative-time=\"0.5\""), std::string::npos) << xml;
}

}  // namespace
}  // namespace gi
