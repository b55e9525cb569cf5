#include "run/evolve.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>
#include <fstream>
#include <regex>

#include "../support/gi_tool_run.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "util/atomic_file.hpp"
#include "run/checkpoint.hpp"
#include "genome/genome_ops.hpp"
#include "../support/search_test_support.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test under the system's temp folder.
// A landscape with a known optimum: BLOCK=128 (x0.6), deleting _k.cu_12 (x0.7) and the if
// condition of line 20 replaced by line 21's (x0.9); everything else neutral, some edits harmful.
FakeLandscapeOptions known_landscape() {
    FakeLandscapeOptions options;
    options.random_effects = false;
    options.noise = 0.002;
    options.cases = 5;
    options.declared["BLOCK=128"] = FakeEffect::time(0.6);
    options.declared["<_k.cu_12>"] = FakeEffect::time(0.7);
    options.declared["<IF_k.cu_20><IF_k.cu_21>"] = FakeEffect::time(0.9);
    options.declared["ROWS=1"] = FakeEffect::time(1.5);
    options.declared["<_k.cu_10>"] = FakeEffect::wrong(3.0, 0.5);
    options.declared["<_k.cu_11>"] = FakeEffect::compile_error();
    return options;
}

EvolveOptions small_options() {
    EvolveOptions options;
    options.population = 16;
    options.generations = 12;
    options.seed = 42;
    options.pre_tune = false;
    return options;
}

// run.xml without the one line that differs between identical runs.
std::string record_text_without_wall(const fs::path& dir) {
    return std::regex_replace(read_text_file(dir / "run.xml"), std::regex("<wall [^>]*/>"), "");
}

void expect_same_run(const RunRecord& a, const RunRecord& b) {
    EXPECT_EQ(a.settings, b.settings);
    EXPECT_EQ(a.base_genome, b.base_genome);
    ASSERT_EQ(a.generations.size(), b.generations.size());
    for (std::size_t i = 0; i < a.generations.size(); ++i) EXPECT_TRUE(a.generations[i] == b.generations[i]) << "generation " << i;
    EXPECT_EQ(a.best.genome, b.best.genome);
    EXPECT_EQ(a.best.speedup, b.best.speedup);
    EXPECT_EQ(a.minimise.after, b.minimise.after);
    EXPECT_EQ(a.post_tune.best, b.post_tune.best);
    EXPECT_EQ(a.final_genome, b.final_genome);
    EXPECT_EQ(a.stop_reason, b.stop_reason);
}

TEST(Evolve, FindsTheKnownOptimumOfASmallLandscapeAndMinimisesIt) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-optimum");
    const RunRecord record = evolve(grammar, fake, small_options(), dir, OutMode::Fresh);
    const double optimum = 1 / (0.6 * 0.7 * 0.9);
    ASSERT_TRUE(record.best.found);
    EXPECT_GT(record.best.speedup, optimum * 0.99) << record.best.genome;
    // Minimisation strips whatever hitch-hiked; post-tuning finds nothing better than BLOCK=128.
    const Genome final_genome = parse_genome(record.final_genome);
    EXPECT_EQ(setting_or(final_genome, "BLOCK", "64"), "128");
    std::vector<std::string> edits;
    for (const Edit& e : final_genome.edits) edits.push_back(edit_to_text(e));
    std::sort(edits.begin(), edits.end());
    EXPECT_EQ(edits, (std::vector<std::string>{"<IF_k.cu_20><IF_k.cu_21>", "<_k.cu_12>"})) << record.final_genome;
    EXPECT_EQ(final_genome.settings.size(), 1u) << record.final_genome;
    EXPECT_EQ(record.generations.size(), 12u);
    EXPECT_EQ(record.stop_reason, "generations");
    EXPECT_TRUE(record.minimise.ran);
    // Outputs: the final genome and its source.
    EXPECT_EQ(read_text_file(dir / "best.genome"), record.final_genome + "\n");
    EXPECT_EQ(read_text_file(dir / "best.cu").rfind("// gi-optimize variant: " + record.final_genome + "\n", 0), 0u);
    EXPECT_TRUE(fs::exists(dir / "run.xml"));
    // Failures are recorded with their cause; only accepted ones were parents.
    bool saw_compile_error = false, saw_wrong = false;
    for (const GenerationRecord& g : record.generations) {
        EXPECT_EQ(g.evaluated, 16);
        for (const IndividualRecord& i : g.individuals) {
            if (i.status == EvalStatus::CompileError) {
                saw_compile_error = true;
                EXPECT_FALSE(i.detail.empty());
            }
            if (i.error > 0) {
                saw_wrong = true;
                EXPECT_FALSE(i.accepted);
            }
        }
    }
    EXPECT_TRUE(saw_compile_error);
    EXPECT_TRUE(saw_wrong);
    fs::remove_all(dir);
}

TEST(Evolve, PreTuningStartsTheSearchFromTheBestParameters) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-pretune");
    EvolveOptions options = small_options();
    options.pre_tune = true;
    options.generations = 2;
    const RunRecord record = evolve(grammar, fake, options, dir, OutMode::Fresh);
    EXPECT_TRUE(record.pre_tune.ran);
    EXPECT_EQ(record.pre_tune.best, "BLOCK=128");
    EXPECT_EQ(record.base_genome, "BLOCK=128");
    // The initial population are mutants of the tuned genome: at most one gene differs from it
    // (code edits are added once single mutants run out).
    const Genome base = parse_genome(record.base_genome);
    for (const IndividualRecord& i : record.generations[0].individuals) {
        const Genome g = parse_genome(i.genome);
        int differ = 0;
        for (const Gene& gene : grammar.genes)
            differ += setting_or(g, gene.name, gene.default_value) != setting_or(base, gene.name, gene.default_value);
        EXPECT_LE(differ, 1) << i.genome;
    }
    fs::remove_all(dir);
}

TEST(Evolve, StartsFromAGivenGenome) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-start");
    EvolveOptions options = small_options();
    options.generations = 2;
    options.start_genome = "<_k.cu_12> BLOCK=128";
    const RunRecord record = evolve(grammar, fake, options, dir, OutMode::Fresh);
    EXPECT_FALSE(record.pre_tune.ran);
    EXPECT_EQ(record.base_genome, "BLOCK=128 <_k.cu_12>");  // canonical order
    // Every individual of the first generation is one change away from the start: it keeps the
    // start's edit, or its gene, or both.
    for (const IndividualRecord& i : record.generations[0].individuals) {
        const Genome g = parse_genome(i.genome);
        bool has_edit = false;
        for (const Edit& e : g.edits) has_edit |= edit_to_text(e) == "<_k.cu_12>";
        EXPECT_TRUE(has_edit || setting_or(g, "BLOCK", "64") == "128") << i.genome;
    }
    // The start is part of the record's fingerprint: a run resumed with another start is refused.
    bool found = false;
    for (const auto& [key, value] : record.settings) found |= key == "start-genome" && value == "<_k.cu_12> BLOCK=128";
    EXPECT_TRUE(found);
    options.start_genome = "BLOCK=32";
    try {
        evolve(grammar, fake, options, dir, OutMode::Resume);
        ADD_FAILURE() << "resumed a run with another start genome";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("start-genome"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

TEST(Evolve, TheSummarySaysWhatNothingBeat) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator slower;
    slower.fallback = testing::ok_in(1.5);  // every variant slower than the original (1.0)
    EvolveOptions options = small_options();
    options.generations = 1;
    options.post_tune = false;
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-nothing-beat");
    RunRecord record = evolve(grammar, slower, options, dir, OutMode::Fresh);
    EXPECT_NE(run_summary(record).find("none (no variant beat the original kernel)"), std::string::npos) << run_summary(record);
    options.start_genome = "BLOCK=128";
    record = evolve(grammar, slower, options, dir, OutMode::Restart);
    EXPECT_NE(run_summary(record).find("none (no variant beat the start 'BLOCK=128')"), std::string::npos)
        << run_summary(record);
    fs::remove_all(dir);
}

// Each generation's line says where evaluating went, as the evaluator splits it, and how many
// individuals a minute the generation got (issue 19).
TEST(Evolve, EachGenerationSaysWhereItsTimeWent) {
    struct SplittingEvaluator : testing::ScriptedEvaluator {
        double compiles = 0;
        EvaluatorReport report() override {
            compiles += 1.5;  // 1.5 s more every time it is asked
            EvaluatorReport r;
            r.time_spent = {{"waiting for compiles", compiles}, {"variant runs", 0}};
            return r;
        }
    };
    const Grammar grammar = testing::small_grammar();
    SplittingEvaluator evaluator;
    evaluator.fallback = testing::ok_in(1.5);
    EvolveOptions options = small_options();
    options.generations = 2;
    options.post_tune = false;
    std::vector<std::string> lines;
    EvolveHooks hooks;
    hooks.progress = [&](const std::string& line) { lines.push_back(line); };
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-time-split");
    evolve(grammar, evaluator, options, dir, OutMode::Fresh, hooks);
    int generations = 0;
    for (const std::string& line : lines) {
        // The line a generation starts with says what it will evaluate; the one it ends with, where the time went.
        if (line.rfind("generation ", 0) != 0 || line.find(": evaluating ") != std::string::npos) continue;
        ++generations;
        EXPECT_NE(line.find(" s (waiting for compiles 1.5 s, variant runs 0.0 s)"), std::string::npos) << line;
        EXPECT_TRUE(std::regex_search(line, std::regex("; [0-9]+ individuals a minute$"))) << line;
    }
    EXPECT_EQ(generations, 2);
    fs::remove_all(dir);
}

TEST(Evolve, AStartGenomeTheGrammarDoesNotHaveIsAnErrorNamingIt) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-bad-start");
    EvolveOptions options = small_options();
    options.start_genome = "BLOCK=7";
    try {
        evolve(grammar, fake, options, dir, OutMode::Fresh);
        ADD_FAILURE() << "a start genome with a value the gene does not allow was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--start"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("BLOCK=7"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

TEST(Evolve, SameSeedSameRunDifferentSeedDifferentRun) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions landscape;  // random effects
    landscape.seed = 7;
    EvolveOptions options = small_options();
    options.generations = 4;
    FakeEvaluator f1(grammar, landscape), f2(grammar, landscape), f3(grammar, landscape);
    const fs::path d1 = test::fresh_temp_dir("gi-evolve-test-det1"), d2 = test::fresh_temp_dir("gi-evolve-test-det2"), d3 = test::fresh_temp_dir("gi-evolve-test-det3");
    const RunRecord a = evolve(grammar, f1, options, d1, OutMode::Fresh);
    const RunRecord b = evolve(grammar, f2, options, d2, OutMode::Fresh);
    options.seed = 43;
    const RunRecord c = evolve(grammar, f3, options, d3, OutMode::Fresh);
    expect_same_run(a, b);
    EXPECT_EQ(record_text_without_wall(d1), record_text_without_wall(d2));
    EXPECT_NE(record_text_without_wall(d1), record_text_without_wall(d3));
    EXPECT_FALSE(a.generations[0] == c.generations[0]);
    for (const auto& d : {d1, d2, d3}) fs::remove_all(d);
}

TEST(Evolve, ARunStoppedAfterAGenerationAndResumedEqualsAnUninterruptedOne) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions landscape;
    landscape.seed = 3;
    EvolveOptions options = small_options();
    options.generations = 6;
    options.pre_tune = true;
    const fs::path whole = test::fresh_temp_dir("gi-evolve-test-whole"), parts = test::fresh_temp_dir("gi-evolve-test-parts");
    FakeEvaluator f1(grammar, landscape);
    const RunRecord expected = evolve(grammar, f1, options, whole, OutMode::Fresh);

    struct Killed {};
    EvolveHooks stop_after_3;
    stop_after_3.after_checkpoint = [](int done) {
        if (done == 3) throw Killed{};
    };
    FakeEvaluator f2(grammar, landscape);
    EXPECT_THROW(evolve(grammar, f2, options, parts, OutMode::Fresh, stop_after_3), Killed);
    EXPECT_EQ(load_checkpoint(parts / "checkpoint.xml").next_generation, 3);
    FakeEvaluator f3(grammar, landscape);
    const RunRecord resumed = evolve(grammar, f3, options, parts, OutMode::Resume);
    expect_same_run(expected, resumed);
    EXPECT_EQ(read_text_file(whole / "best.genome"), read_text_file(parts / "best.genome"));
    EXPECT_EQ(read_text_file(whole / "best.cu"), read_text_file(parts / "best.cu"));
    EXPECT_EQ(record_text_without_wall(whole), record_text_without_wall(parts));
    fs::remove_all(whole);
    fs::remove_all(parts);
}

TEST(Evolve, AnEvaluatorDyingMidGenerationLosesOnlyThatGeneration) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator scripted;
    scripted.fallback = testing::ok_in(0.9, 0.001);
    scripted.results["BLOCK=32"] = testing::ok_in(0.5, 0.001);
    EvolveOptions options = small_options();
    options.generations = 5;
    options.post_tune = false;
    const fs::path whole = test::fresh_temp_dir("gi-evolve-test-die-whole"), parts = test::fresh_temp_dir("gi-evolve-test-die-parts");
    // Calls per generation vary (a new best is confirmed on the other cases), so count them.
    int calls_after_three = -1;
    EvolveHooks count;
    count.after_checkpoint = [&](int done) {
        if (done == 3) calls_after_three = scripted.calls;
    };
    const RunRecord expected = evolve(grammar, scripted, options, whole, OutMode::Fresh, count);
    ASSERT_GT(calls_after_three, 0);

    testing::ScriptedEvaluator dying = scripted;
    dying.calls = 0;
    dying.before_call = [&](int call) {
        if (call == calls_after_three + 1) throw Error("worker died");  // generation 4's evaluation
    };
    EXPECT_THROW(evolve(grammar, dying, options, parts, OutMode::Fresh), Error);
    EXPECT_EQ(load_checkpoint(parts / "checkpoint.xml").next_generation, 3);
    dying.before_call = nullptr;
    const RunRecord resumed = evolve(grammar, dying, options, parts, OutMode::Resume);
    expect_same_run(expected, resumed);
    EXPECT_EQ(resumed.generations.size(), 5u);
    fs::remove_all(whole);
    fs::remove_all(parts);
}

// Right on one case, wrong on the others: what a first-order limiter does to hydro (a blast's
// piecewise-constant start has no slopes to limit, so there the edit changes nothing).
class WrongElsewhereEvaluator : public Evaluator {
public:
    EvaluatorTraits traits() const override { return {"wrong-elsewhere", 3, true, false}; }
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        BatchResult batch;
        batch.original = Timing{1.0, 0.001, 5};
        for (const Variant& v : variants) {
            const std::string text = genome_to_text(v.genome);
            if (text == "BLOCK=32") batch.results.push_back(testing::ok_in(0.3, 0.001, case_index == 0 ? 0 : 0.5));
            else if (text == "BLOCK=128") batch.results.push_back(testing::ok_in(0.6));
            else batch.results.push_back(testing::ok_in(0.95));
        }
        return batch;
    }
};

TEST(Evolve, AWinnerWrongOnAnotherTrainingCaseIsNotTheBest) {
    const Grammar grammar = testing::small_grammar();
    WrongElsewhereEvaluator evaluator;
    EvolveOptions options = small_options();
    options.generations = 6;
    options.minimise = false;
    options.post_tune = false;
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-wrong-elsewhere");
    const RunRecord record = evolve(grammar, evaluator, options, dir, OutMode::Fresh);
    // BLOCK=32 wins every generation evaluated on case 0 (3.3x) and is the search's best; it is
    // refused after the search, and the correct BLOCK=128 (1.7x) is the best.
    bool won_on_case_0 = false;
    for (const GenerationRecord& g : record.generations)
        won_on_case_0 |= g.case_index == 0 && g.best_genome == "BLOCK=32";
    ASSERT_TRUE(won_on_case_0) << "the seed never drew case 0; pick another";
    ASSERT_TRUE(record.best.found);
    EXPECT_EQ(record.best.genome, "BLOCK=128");
    EXPECT_EQ(record.best.refused, 1);
    EXPECT_NE(record.best.last_refusal.find("'BLOCK=32': case 1: error 0.5"), std::string::npos) << record.best.last_refusal;
    // The refusals are kept in run.xml and said in the summary.
    const RunRecord reread = load_checkpoint(dir / "checkpoint.xml").record;
    EXPECT_EQ(reread.best.refused, record.best.refused);
    EXPECT_EQ(reread.best.last_refusal, record.best.last_refusal);
    EXPECT_NE(run_summary(record).find("refused as best:"), std::string::npos);
    fs::remove_all(dir);
}

TEST(Evolve, ResumingAFinishedRunChangesNothing) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    EvolveOptions options = small_options();
    options.generations = 2;
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-finished");
    const RunRecord first = evolve(grammar, fake, options, dir, OutMode::Fresh);
    const long long calls = fake.calls();
    const RunRecord again = evolve(grammar, fake, options, dir, OutMode::Resume);
    EXPECT_EQ(fake.calls(), calls);
    expect_same_run(first, again);
    fs::remove_all(dir);
}

TEST(Evolve, ResumeRefusesAnotherRunsCheckpoint) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    EvolveOptions options = small_options();
    options.generations = 1;
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-foreign");
    evolve(grammar, fake, options, dir, OutMode::Fresh);

    auto resume_error = [&](const Grammar& g, Evaluator& e, const EvolveOptions& o) -> std::string {
        try {
            evolve(g, e, o, dir, OutMode::Resume);
        } catch (const Error& error) {
            return error.what();
        }
        return "(no error)";
    };
    EvolveOptions other = options;
    other.population = 8;
    EXPECT_NE(resume_error(grammar, fake, other).find("population: the checkpoint has '16', this run has '8'"),
              std::string::npos);
    other = options;
    other.acceptance.noise_k = 2;
    EXPECT_NE(resume_error(grammar, fake, other).find("noise-k"), std::string::npos);
    Grammar edited = grammar;
    edited.source_hash = "fedcba";
    EXPECT_NE(resume_error(edited, fake, options).find("kernel-sha256"), std::string::npos);
    Grammar more_params = grammar;
    more_params.genes[0].values.push_back("256");
    EXPECT_NE(resume_error(more_params, fake, options).find("grammar-shape"), std::string::npos);
    FakeLandscapeOptions landscape = known_landscape();
    landscape.seed = 99;
    FakeEvaluator other_fake(grammar, landscape);
    EXPECT_NE(resume_error(grammar, other_fake, options).find("evaluator"), std::string::npos);
    // Budget options may change: a finished run resumed with more generations continues nowhere,
    // but is accepted.
    other = options;
    other.generations = 3;
    other.time_limit_s = 100;
    EXPECT_EQ(resume_error(grammar, fake, other), "(no error)");
    fs::remove_all(dir);
}

TEST(Evolve, OutputDirectoryRules) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    EvolveOptions options = small_options();
    options.generations = 1;
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-outdir");
    EXPECT_THROW(evolve(grammar, fake, options, dir, OutMode::Resume), UsageError);  // nothing to resume
    evolve(grammar, fake, options, dir, OutMode::Fresh);
    EXPECT_THROW(evolve(grammar, fake, options, dir, OutMode::Fresh), UsageError);  // would overwrite
    EXPECT_NO_THROW(evolve(grammar, fake, options, dir, OutMode::Restart));
    // A damaged checkpoint is refused with the file's name.
    write_file_atomically(dir / "checkpoint.xml", "<gi-checkpoint format=\"1\" phase=\"search\"");
    try {
        evolve(grammar, fake, options, dir, OutMode::Resume);
        FAIL() << "a damaged checkpoint was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("checkpoint.xml"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

TEST(Evolve, AWallTimeBudgetStopsAfterTheGenerationInProgress) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    EvolveOptions options = small_options();
    options.generations = 1000;
    options.time_limit_s = 25;
    double now = 0;
    EvolveHooks hooks;
    hooks.clock = [&now] { return now; };
    hooks.after_checkpoint = [&now](int) { now += 10; };  // each generation "takes" 10 s
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-timelimit");
    const RunRecord record = evolve(grammar, fake, options, dir, OutMode::Fresh, hooks);
    // The search ends by second 20: of the 25, 5% a weight is held back for the phases after it
    // (confirming the best 1, minimising 2, post-tuning 1: run/time_budget.hpp). So generations
    // start at 0 and 10 s, not at 20.
    EXPECT_EQ(record.generations.size(), 2u);
    EXPECT_EQ(record.stop_reason, "time limit");
    EXPECT_DOUBLE_EQ(record.wall_seconds, 20);
    fs::remove_all(dir);
}

TEST(Evolve, WithoutTimingsNothingIsAcceptedAndTheRecordSaysWhatCompiled) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator compile_only;
    compile_only.times = false;
    compile_only.cases = 1;
    compile_only.fallback = EvalResult{};  // Ok, untimed
    EvalResult failed;
    failed.status = EvalStatus::CompileError;
    failed.detail = "k.cu(3): error";
    compile_only.results["BLOCK=32"] = failed;
    EvolveOptions options = small_options();
    options.generations = 2;
    options.pre_tune = true;
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-untimed");
    const RunRecord record = evolve(grammar, compile_only, options, dir, OutMode::Fresh);
    EXPECT_FALSE(record.best.found);
    EXPECT_FALSE(record.pre_tune.ran);
    EXPECT_FALSE(record.minimise.ran);
    EXPECT_EQ(record.final_genome, "");
    EXPECT_EQ(record.generations[0].accepted, 0);
    EXPECT_EQ(record.generations[0].compiled + 1, record.generations[0].evaluated);  // BLOCK=32 is in generation 0
    const std::string summary = run_summary(record);
    EXPECT_NE(summary.find("no timings"), std::string::npos) << summary;
    EXPECT_NE(summary.find("compiled:"), std::string::npos) << summary;
    fs::remove_all(dir);
}

TEST(Evolve, TheSummaryRateCountsTuningAndMinimisationToo) {
    RunRecord record;
    GenerationRecord g;
    g.evaluated = 12;
    g.distinct = 10;
    record.generations.push_back(g);
    record.pre_tune.points.resize(5);
    record.post_tune.points.resize(3);
    record.minimise.steps.resize(2);
    record.wall_seconds = 60;
    const std::string summary = run_summary(record);
    EXPECT_NE(summary.find("variants evaluated:  10 distinct of 12 individuals in search, plus 8 tuning points and 2 "
                           "minimisation steps"),
              std::string::npos)
        << summary;
    EXPECT_NE(summary.find("evaluated per minute: 20.0 (20 evaluations in a wall time of 60.0 s"), std::string::npos)
        << summary;
}

TEST(Evolve, BadOptionsAreUsageErrors) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, known_landscape());
    const fs::path dir = test::fresh_temp_dir("gi-evolve-test-bad");
    auto expect_usage = [&](EvolveOptions options, const std::string& mention) {
        try {
            evolve(grammar, fake, options, dir, OutMode::Fresh);
            ADD_FAILURE() << "accepted; expected a usage error mentioning " << mention;
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
        }
    };
    EvolveOptions options = small_options();
    options.strategy = "hill-climb";
    expect_usage(options, "unknown strategy 'hill-climb' (known: anneal, gp, nsga2)");
    options = small_options();
    options.population = 1;
    expect_usage(options, "--population");
    options = small_options();
    options.acceptance.max_error = -1;
    expect_usage(options, "--max-error");
    options = small_options();
    options.minimise_options.repeats = 0;
    expect_usage(options, "--minimise-repeats");
    options = small_options();
    options.tune_max = 0;
    expect_usage(options, "--tune-max");
    EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace gi
