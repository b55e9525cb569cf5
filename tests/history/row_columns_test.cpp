// The history database's rows, declared once (history/row_columns.hpp): every field stored comes
// back, and the declared columns are the schema's.
#include "history/row_columns.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "history/score.hpp"
#include "history/sqlite_db.hpp"
#include "history_test_util.hpp"

namespace gi {
namespace {

using test::scratch_dir;
using test::test_identity;

bool same(const Timing& a, const Timing& b) {
    return a.median_ms == b.median_ms && a.spread_ms == b.spread_ms && a.repetitions == b.repetitions;
}

// The table's columns as the database has them, id left out, in order.
std::string schema_columns(const std::filesystem::path& file, const std::string& table) {
    SqliteDb db(file, SqliteDb::Mode::ReadOnly);
    SqliteStatement s(db, "SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid");
    std::string out;
    while (s.step())
        if (s.text(0) != "id") out += (out.empty() ? "" : ", ") + s.text(0);
    return out;
}

TEST(HistoryColumns, DeclaredColumnsAreTheSchemas) {
    const auto dir = scratch_dir("row-columns-schema");
    History::create(dir / kHistoryFileName, test_identity());
    // The same columns; the order of a declaration is free, so compare them sorted.
    auto sorted = [](std::string list) {
        std::vector<std::string> names;
        for (std::size_t at = 0; at != std::string::npos;) {
            const std::size_t comma = list.find(", ", at);
            names.push_back(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
            at = comma == std::string::npos ? comma : comma + 2;
        }
        std::sort(names.begin(), names.end());
        return names;
    };
    EXPECT_EQ(sorted(history_columns::column_list<IndividualRow>()), sorted(schema_columns(dir / kHistoryFileName, "individuals")));
    EXPECT_EQ(sorted(history_columns::column_list<EvaluationRow>()), sorted(schema_columns(dir / kHistoryFileName, "evaluations")));
}

TEST(HistoryColumns, EveryIndividualFieldRoundTrips) {
    const auto dir = scratch_dir("row-columns-individual");
    auto history = History::create(dir / kHistoryFileName, test_identity());
    const EvalResult result{EvalStatus::WrongAnswer, 1.0 / 16777216.0, Timing{0.75, 0.0125, 7}, "buffer 0 differs <&>"};
    IndividualRow row = individual_row("<_k.cu_12> BLOCK=64", 3, result, Timing{1.5, 0.02, 9}, true, "nsga2", 4, 5);
    row.variant_key = "key-12";
    row.birth = Birth::Crossover;
    row.wall_s = 12.25;
    const std::int64_t id = history->add_individual(row);
    const auto back = history->individual(id);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->id, id);
    EXPECT_EQ(back->genome, row.genome);
    EXPECT_EQ(back->variant_key, "key-12");
    EXPECT_EQ(back->case_index, 3);
    EXPECT_EQ(back->status, EvalStatus::WrongAnswer);
    EXPECT_EQ(back->detail, "buffer 0 differs <&>");
    EXPECT_EQ(back->error, 1.0 / 16777216.0);
    EXPECT_TRUE(same(back->time, Timing{0.75, 0.0125, 7}));
    EXPECT_TRUE(same(back->original, Timing{1.5, 0.02, 9}));
    const Score score = measurement_score({result, Timing{1.5, 0.02, 9}});
    EXPECT_EQ(back->mean, score.mean);
    EXPECT_EQ(back->deviation, score.deviation);
    EXPECT_TRUE(back->accepted);
    EXPECT_EQ(back->birth, Birth::Crossover);
    EXPECT_EQ(back->strategy, "nsga2");
    EXPECT_EQ(back->generation, 4);
    EXPECT_EQ(back->slot, 5);
    EXPECT_EQ(back->wall_s, 12.25);
}

TEST(HistoryColumns, EveryEvaluationFieldRoundTrips) {
    const auto dir = scratch_dir("row-columns-evaluation");
    auto history = History::create(dir / kHistoryFileName, test_identity());
    EvaluationRow row;
    row.variant_key = "key-7";
    row.case_index = 2;
    row.genome = "<_k.cu_7>";
    row.result = {EvalStatus::Timeout, 0.5, Timing{0.25, 0.001, 11}, "ran past its allowance"};
    row.original = Timing{0.5, 0.002, 10};
    row.wall_s = 3.5;
    const std::int64_t id = history->add_evaluation(row);
    const auto back = history->cached("key-7", 2);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->id, id);
    EXPECT_EQ(back->variant_key, "key-7");
    EXPECT_EQ(back->case_index, 2);
    EXPECT_EQ(back->genome, "<_k.cu_7>");
    EXPECT_EQ(back->result.status, EvalStatus::Timeout);
    EXPECT_EQ(back->result.error, 0.5);
    EXPECT_TRUE(same(back->result.time, Timing{0.25, 0.001, 11}));
    EXPECT_EQ(back->result.detail, "ran past its allowance");
    EXPECT_TRUE(same(back->original, Timing{0.5, 0.002, 10}));
    EXPECT_EQ(back->wall_s, 3.5);
}

}  // namespace
}  // namespace gi
