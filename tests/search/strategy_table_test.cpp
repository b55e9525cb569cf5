// Adding a search strategy is its own code and one entry of the strategy table (issue 43). This
// file alone adds "tiny", a hill climber with an option of its own: evolve's command line lists it
// and reads its option, a whole evolve run with the history database runs it, and the run report
// draws its chart, though no other file knows of it.
#include "search/strategy_table.hpp"

#include <gtest/gtest.h>

#include "../history/history_test_util.hpp"
#include "../support/search_test_support.hpp"
#include "cli/command_line.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "genome/genome.hpp"
#include "report/html_report.hpp"
#include "run/search_history.hpp"
#include "search/operators.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

// Each generation `population` children of the best accepted genome so far (the starting genome
// at first), each --tiny-edits mutations away from it. It keeps no state for a checkpoint: a
// resumed run climbs again from its starting genome.
class TinyClimb : public Strategy {
public:
    explicit TinyClimb(StrategyContext context) : context_(std::move(context)), best_(context_.base) {}
    std::string name() const override { return "tiny"; }
    std::vector<Genome> initial_population(Rng& rng) override { return children(rng); }
    std::vector<Genome> next_population(const ScoredBatch& evaluated, Rng& rng) override {
        for (const Scored& s : evaluated.scored)
            if (s.accepted && s.speedup > best_speedup_) {
                best_ = s.genome;
                best_speedup_ = s.speedup;
            }
        return children(rng);
    }
    std::size_t population_size(int) const override { return context_.population; }
    std::vector<BirthInfo> births() const override { return births_; }

private:
    std::vector<Genome> children(Rng& rng) {
        births_.clear();
        std::vector<Genome> made;
        for (std::size_t i = 0; i < context_.population; ++i) {
            Genome child = best_;
            for (long long k = 0; k < context_.setting("--tiny-edits"); ++k)
                child = mutate(child, *context_.grammar, context_.draw, rng);
            made.push_back(std::move(child));
            births_.push_back({Birth::Mutation, {genome_to_text(best_)}});
        }
        return made;
    }

    StrategyContext context_;
    Genome best_;
    double best_speedup_ = 0;
    std::vector<BirthInfo> births_;
};

// Its part of the report: how many of each generation were accepted.
std::vector<LineChart> tiny_accepted_chart(const std::vector<GenerationRecord>& generations) {
    ChartSeries accepted{"tiny: accepted", "#2ca02c", {}, {}};
    for (const GenerationRecord& g : generations) accepted.x.push_back(g.index + 1), accepted.y.push_back(g.accepted);
    return {LineChart{"Tiny climb: accepted children per generation", "generation", "accepted", {accepted}}};
}

// The one registration: what a row of search/strategies.def says for gi-tool's own strategies.
// The table is the program's, so each test takes it out again when done: other tests name the
// strategies they know.
struct TinyStrategy {
    TinyStrategy();
    ~TinyStrategy() { unregister_strategy("tiny"); }
};

TinyStrategy::TinyStrategy() {
    StrategyEntry entry;
    entry.name = "tiny";
    entry.summary = "a hill climber from the best so far";
    entry.options = {{"--tiny-edits", "mutations between a child and the best so far", 1, 5, 1}};
    entry.make = strategy_factory<TinyClimb>();
    entry.charts = tiny_accepted_chart;
    register_strategy(std::move(entry));
}

TEST(StrategyTable, GiToolsOwnStrategiesComeFirstInTheirOrder) {
    const std::vector<StrategyEntry>& table = strategy_table();
    ASSERT_GE(table.size(), 3u);
    EXPECT_EQ(table[0].name, "gp");
    EXPECT_EQ(table[1].name, "nsga2");
    EXPECT_EQ(table[2].name, "anneal");
    ASSERT_EQ(table[2].options.size(), 1u);
    EXPECT_EQ(table[2].options[0].name, "--anneal-batch");
    EXPECT_TRUE(table[1].charts && table[2].charts) << "nsga2 and anneal draw charts in the report";
    EXPECT_FALSE(table[0].charts) << "gp adds none";
}

TEST(StrategyTable, AStrategyAddedHereIsOnEvolvesCommandLine) {
    const TinyStrategy tiny_added;
    // What `gi-tool evolve` declares (cli/cmd_evolve.cpp), and with it --help.
    EvolveOptions options;
    cli::CommandLine app("usage: gi-tool evolve ...\n", "");
    app.add_strategy(options.strategy);
    app.add_strategy_options(options.strategy_settings, "search options");
    const std::string help = app.help();
    for (const char* text : {"--strategy gp|nsga2|anneal|tiny", "tiny: a hill climber", "--tiny-edits",
                             "tiny: mutations between a child"})
        EXPECT_NE(help.find(text), std::string::npos) << text << " missing from:\n" << help;
    ASSERT_TRUE(app.parse({"--strategy", "tiny", "--tiny-edits", "3"}));
    EXPECT_EQ(options.strategy, "tiny");
    EXPECT_EQ(options.strategy_settings.at("--tiny-edits"), 3);
    EXPECT_EQ(options.strategy_settings.at("--anneal-batch"), 1) << "the others' options are at their defaults";

    EvolveOptions out_of_range;
    cli::CommandLine strict("usage: gi-tool evolve ...\n", "");
    strict.add_strategy(out_of_range.strategy);
    strict.add_strategy_options(out_of_range.strategy_settings, "search options");
    try {
        strict.parse({"--strategy", "tiny", "--tiny-edits", "9"});
        FAIL() << "--tiny-edits 9 was accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--tiny-edits"), std::string::npos) << e.what();
    }
}

TEST(StrategyTable, AStrategyAddedHereRunsInEvolveAndDrawsItsChart) {
    const TinyStrategy tiny_added;
    const Grammar grammar = testing::small_grammar();
    const fs::path dir = test::scratch_dir("tiny-strategy");
    FakeLandscapeOptions landscape;
    landscape.seed = 3;
    landscape.cases = 4;
    EvolveOptions options;
    options.strategy = "tiny";
    options.strategy_settings["--tiny-edits"] = 2;
    options.population = 6;
    options.generations = 3;
    options.seed = 9;
    options.pre_tune = options.minimise = options.post_tune = false;
    FakeEvaluator fake(grammar, landscape);
    SearchHistory session(
        grammar, fake, [&] { return std::make_unique<FakeEvaluator>(grammar, landscape); }, options, dir / "run",
        OutMode::Fresh, SearchHistoryOptions{});
    const RunRecord record = evolve(grammar, session.evaluator(), options, dir / "run", OutMode::Fresh, session.hooks({}));
    session.finish(record);

    ASSERT_EQ(record.generations.size(), 3u);
    for (const GenerationRecord& g : record.generations) {
        EXPECT_EQ(g.individuals.size(), 6u);
        // --tiny-edits 2 reached it: the first generation's children are two mutations from the original.
        if (g.index == 0)
            for (const IndividualRecord& i : g.individuals) {
                const Genome genome = parse_genome(i.genome);
                EXPECT_LE(genome.settings.size() + genome.edits.size(), 2u) << i.genome;
                EXPECT_FALSE(genome.empty()) << "a child is a mutant";
            }
    }
    // The history database keeps its rows under its name, with the births it reported.
    auto history = History::read(dir / "run" / kHistoryFileName);
    IndividualFilter tiny;
    tiny.strategy = "tiny";
    const std::vector<IndividualRow> rows = history->individuals(tiny);
    ASSERT_EQ(rows.size(), 18u);
    for (const IndividualRow& row : rows) EXPECT_EQ(row.birth, Birth::Mutation) << row.genome;
    EXPECT_NE(read_text_file(dir / "run" / "run.xml").find("value=\"tiny\""), std::string::npos);

    const std::string html = html_report(record, "tiny");
    EXPECT_NE(html.find("Tiny climb: accepted children per generation"), std::string::npos);
    EXPECT_NE(html.find("data-series=\"tiny: accepted\""), std::string::npos);
}

TEST(StrategyTable, EntriesThatWouldCollideOrCannotRunAreRefused) {
    const auto refused = [](StrategyEntry entry, const std::string& expected) {
        try {
            register_strategy(std::move(entry));
            ADD_FAILURE() << "registered, though " << expected;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    };
    const auto entry = [](const std::string& name, std::vector<StrategyOption> options) {
        StrategyEntry e;
        e.name = name;
        e.options = std::move(options);
        e.make = strategy_factory<TinyClimb>();
        return e;
    };
    refused(entry("gp", {}), "in the strategy table already");
    refused(entry("refused-1", {{"--anneal-batch", "", 1, 2, 1}}), "option --anneal-batch is another strategy's");
    refused(entry("refused-2", {{"--refused-steps", "", 1, 5, 0}}), "outside its range 1..5");
    refused(entry("refused-3", {{"refused-steps", "", 1, 5, 1}}), "must start with --");
    StrategyEntry no_factory = entry("refused-4", {});
    no_factory.make = nullptr;
    refused(no_factory, "has no factory");
    for (const std::string& name : strategy_names()) EXPECT_EQ(name.rfind("refused", 0), std::string::npos) << name;
    EXPECT_THROW(unregister_strategy("gp"), Error) << "gi-tool's own stay";
    EXPECT_THROW(unregister_strategy("refused-1"), Error);

    StrategyContext context;
    const Grammar grammar = testing::small_grammar();
    context.grammar = &grammar;
    context.population = 4;
    // An entry whose strategy calls itself otherwise: its rows in the history would not be the run's.
    register_strategy(entry("misnamed", {{"--tiny-edits", "", 1, 5, 1}}));
    try {
        make_strategy("misnamed", context);
        ADD_FAILURE() << "a strategy named 'tiny' was made for the entry 'misnamed'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("made a strategy named 'tiny'"), std::string::npos) << e.what();
    }
    unregister_strategy("misnamed");
    // A strategy's setting outside its option's range, as a caller other than the command line may give it.
    context.settings["--anneal-batch"] = 0;
    try {
        make_strategy("anneal", context);
        FAIL() << "--anneal-batch 0 was accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--anneal-batch must be between 1 and 100000, got 0"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace gi
