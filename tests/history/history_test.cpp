#include "history/history.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>

#include "history/sqlite_db.hpp"
#include "history_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using test::file_bytes;
using test::scratch_dir;
using test::test_identity;
using test::timing;

EvaluationRow evaluation(const std::string& key, int case_index, double median_ms) {
    EvaluationRow row;
    row.variant_key = key;
    row.case_index = case_index;
    row.genome = "G=" + key;
    row.result.time = timing(median_ms);
    row.original = timing(2.0);
    return row;
}

IndividualRow individual(const std::string& genome, int generation, int slot, EvalStatus status = EvalStatus::Ok) {
    IndividualRow row;
    row.genome = genome;
    row.variant_key = "key-" + genome;
    row.case_index = 0;
    row.status = status;
    row.time = status == EvalStatus::Ok ? timing(1.0) : Timing{};
    row.original = timing(2.0);
    row.strategy = "gp";
    row.generation = generation;
    row.slot = slot;
    row.birth = generation == 0 ? Birth::Init : Birth::Mutation;
    return row;
}

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(History, EvaluationsRoundTripAndActAsACache) {
    const auto dir = scratch_dir("roundtrip");
    auto history = History::create(dir / kHistoryFileName, test_identity());
    EXPECT_FALSE(history->cached("abc", 0));
    EvaluationRow row = evaluation("abc", 3, 1.25);
    row.result.detail = "fine";
    const auto id = history->add_evaluation(row);
    EXPECT_EQ(history->add_evaluation(evaluation("abc", 3, 9.0)), id) << "a second measurement is ignored";
    EXPECT_EQ(history->evaluation_count(), 1);
    const auto got = history->cached("abc", 3);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->genome, "G=abc");
    EXPECT_EQ(got->result.time.median_ms, 1.25);
    EXPECT_EQ(got->result.detail, "fine");
    EXPECT_EQ(got->original.median_ms, 2.0);
    EXPECT_FALSE(history->cached("abc", 2)) << "another case is another measurement";

    EvaluationRow failed;
    failed.variant_key = "bad";
    failed.result.status = EvalStatus::Timeout;
    failed.result.detail = "killed after 20 ms";
    history->add_evaluation(failed);
    const auto bad = history->cached("bad", 0);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->result.status, EvalStatus::Timeout);
    EXPECT_TRUE(std::isnan(bad->result.time.median_ms)) << "an unmeasured time stays NaN";
    EXPECT_EQ(history->original_on(3)->median_ms, 2.0);
    EXPECT_FALSE(history->original_on(1));
}

TEST(History, IndividualsKeepParentsBirthScoreAndFilters) {
    const auto dir = scratch_dir("individuals");
    auto history = History::create(dir / kHistoryFileName, test_identity());
    history->add_evaluation(evaluation("key-A", 0, 1.0));
    history->add_evaluation(evaluation("key-A", 1, 0.5));
    const auto a = history->add_individual(individual("A", 0, 0));
    const auto b = history->add_individual(individual("B", 0, 1, EvalStatus::CompileError));
    IndividualRow child = individual("C", 1, 0);
    child.birth = Birth::Crossover;
    child.parents = {a, b};
    child.strategy = "nsga2";
    const auto c = history->add_individual(child);

    const auto rows = history->individuals();
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].id, a);
    // key-A measured twice: speedups 2 and 4 -> mean 3, the case-to-case spread dominates the deviation.
    EXPECT_DOUBLE_EQ(rows[0].mean, 3.0);
    EXPECT_GT(rows[0].deviation, 1.4);
    EXPECT_EQ(rows[1].status, EvalStatus::CompileError);
    EXPECT_EQ(rows[1].mean, 0.0) << "a failure scores 0";
    EXPECT_EQ(rows[2].birth, Birth::Crossover);
    EXPECT_EQ(rows[2].parents, (std::vector<std::int64_t>{a, b}));
    EXPECT_EQ(history->individual(c)->genome, "C");
    EXPECT_FALSE(history->individual(999));

    IndividualFilter failures;
    failures.failures_only = true;
    ASSERT_EQ(history->individuals(failures).size(), 1u);
    IndividualFilter nsga2;
    nsga2.strategy = "nsga2";
    ASSERT_EQ(history->individuals(nsga2).size(), 1u);
    EXPECT_EQ(history->latest_with_genome("B"), b);
    EXPECT_FALSE(history->latest_with_genome("Z"));
    EXPECT_EQ(history->last_generation("gp"), 0);
    EXPECT_EQ(history->last_generation("anneal"), -1);
}

TEST(History, ReplayedGenerationAfterResumeIsNotStoredTwice) {
    const auto dir = scratch_dir("replay");
    auto history = History::create(dir / kHistoryFileName, test_identity());
    const auto first = history->add_individual(individual("A", 4, 7));
    EXPECT_EQ(history->add_individual(individual("A", 4, 7)), first);
    EXPECT_EQ(history->individual_count(), 1);
}

TEST(History, CreateRefusesAnExistingFile) {
    const auto dir = scratch_dir("exists");
    History::create(dir / kHistoryFileName, test_identity());
    EXPECT_NE(message_of([&] { History::create(dir / kHistoryFileName, test_identity()); }).find("already there"),
              std::string::npos);
}

TEST(History, ResumeKeepsRowsAndTheWallClockGoesOn) {
    const auto dir = scratch_dir("resume");
    {
        auto history = History::create(dir / kHistoryFileName, test_identity());
        EvaluationRow row = evaluation("x", 0, 1.0);
        row.wall_s = 100;
        history->add_evaluation(row);
    }
    auto again = History::resume(dir / kHistoryFileName, test_identity());
    EXPECT_TRUE(again->cached("x", 0));
    EXPECT_GE(again->wall_seconds(), 100.0);
    EXPECT_EQ(again->identity().options.size(), 2u);
    EXPECT_EQ(again->identity().options[0].first, "strategy");
}

TEST(History, ResumeRefusesAnotherKernelOrGrammarAndLeavesTheFileAlone) {
    const auto dir = scratch_dir("foreign-kernel");
    const auto path = dir / kHistoryFileName;
    {
        auto history = History::create(path, test_identity("k1"));
        history->add_evaluation(evaluation("x", 0, 1.0));
    }
    const std::string before = file_bytes(path);
    const auto before_time = std::filesystem::last_write_time(path);

    const std::string kernel = message_of([&] { History::resume(path, test_identity("k2")); });
    EXPECT_NE(kernel.find("kernel source sha256"), std::string::npos) << kernel;
    EXPECT_NE(kernel.find("left untouched"), std::string::npos) << kernel;

    HistoryIdentity other_grammar = test_identity("k1");
    other_grammar.grammar_version += 1;
    const std::string grammar = message_of([&] { History::resume(path, other_grammar); });
    EXPECT_NE(grammar.find("grammar version: the database has"), std::string::npos) << grammar;

    EXPECT_EQ(file_bytes(path), before);
    EXPECT_EQ(std::filesystem::last_write_time(path), before_time);
}

TEST(History, ForeignOrDamagedFilesAreRefusedAndNotModified) {
    const auto dir = scratch_dir("foreign");
    // A text file.
    const auto text = dir / "text.sqlite";
    std::ofstream(text) << "this is not a database, but it is long enough to look like a header to SQLite...\n";
    const std::string text_before = file_bytes(text);
    std::string m = message_of([&] { History::resume(text, test_identity()); });
    EXPECT_NE(m.find("not a gi-optimize history database"), std::string::npos) << m;
    EXPECT_EQ(file_bytes(text), text_before);
    m = message_of([&] { History::read(text); });
    EXPECT_NE(m.find("not a gi-optimize history database"), std::string::npos) << m;

    // An SQLite database of something else.
    const auto other = dir / "other.sqlite";
    {
        SqliteDb db(other, SqliteDb::Mode::Create);
        db.exec("CREATE TABLE customers (name TEXT)");
    }
    const std::string other_before = file_bytes(other);
    m = message_of([&] { History::resume(other, test_identity()); });
    EXPECT_NE(m.find("no meta table"), std::string::npos) << m;
    EXPECT_EQ(file_bytes(other), other_before);

    // A meta table that is not ours, and one of a future schema.
    const auto meta = dir / "meta.sqlite";
    {
        SqliteDb db(meta, SqliteDb::Mode::Create);
        db.exec("CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('format', 'wordpress')");
    }
    m = message_of([&] { History::resume(meta, test_identity()); });
    EXPECT_NE(m.find("does not say format"), std::string::npos) << m;
    const auto future = dir / "future.sqlite";
    History::create(future, test_identity());
    {
        SqliteDb db(future, SqliteDb::Mode::ReadWrite);
        db.exec("UPDATE meta SET value = '99' WHERE key = 'schema-version'");
    }
    const std::string future_before = file_bytes(future);
    m = message_of([&] { History::resume(future, test_identity()); });
    EXPECT_NE(m.find("schema version 99"), std::string::npos) << m;
    EXPECT_EQ(file_bytes(future), future_before);

    // Missing and unreadable files.
    m = message_of([&] { History::resume(dir / "missing.sqlite", test_identity()); });
    EXPECT_NE(m.find("no history database to resume"), std::string::npos) << m;
    if (::geteuid() != 0) {
        const auto locked = dir / "locked.sqlite";
        History::create(locked, test_identity());
        std::filesystem::permissions(locked, std::filesystem::perms::none);
        m = message_of([&] { History::resume(locked, test_identity()); });
        EXPECT_NE(m.find("locked.sqlite"), std::string::npos) << m;
        std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
    }
}

// A run killed with SIGKILL between evaluations keeps every committed row.
TEST(History, RowsSurviveAKilledProcess) {
    const auto dir = scratch_dir("killed");
    const auto path = dir / kHistoryFileName;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        auto history = History::create(path, test_identity());
        for (int i = 0; i < 5; ++i) {
            history->add_evaluation(evaluation("v" + std::to_string(i), 0, 1.0));
            history->add_individual(individual("g" + std::to_string(i), 0, i));
        }
        ::kill(::getpid(), SIGKILL);  // no destructor, no checkpoint of the WAL
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    auto history = History::resume(path, test_identity());
    EXPECT_EQ(history->evaluation_count(), 5);
    EXPECT_EQ(history->individual_count(), 5);
}

}  // namespace
}  // namespace gi
