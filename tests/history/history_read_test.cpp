// Reading a run's database the way `gi-tool history` does, where it is not the writer's: a file a
// run has just created (no tables yet) is no foreign file to move away (issue 39, class 11).
#include <gtest/gtest.h>

#include <fstream>

#include "history/history.hpp"
#include "history/sqlite_db.hpp"
#include "history_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

std::string history_read_error(const std::filesystem::path& path) {
    try {
        History::read(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "read";
}

TEST(HistoryRead, ADatabaseWithoutTablesYetIsNotCalledForeign) {
    const auto dir = test::scratch_dir("no-tables");
    // As evolve leaves it between creating the file and committing its tables.
    const auto created = dir / "created.sqlite";
    { SqliteDb db(created, SqliteDb::Mode::Create); db.exec("PRAGMA journal_mode = WAL;"); }
    const auto empty = dir / "empty.sqlite";
    std::ofstream{empty};
    for (const auto& path : {created, empty}) {
        const std::string message = history_read_error(path);
        EXPECT_EQ(message.find("not a gi-optimize history database"), std::string::npos) << message;
        EXPECT_EQ(message.find("move it away"), std::string::npos) << message;
        EXPECT_NE(message.find("holds no history yet"), std::string::npos) << message;
    }
}

TEST(HistoryRead, AFileOfAnotherKindIsStillForeign) {
    const auto dir = test::scratch_dir("foreign-kind");
    const auto other = dir / "other.sqlite";
    { SqliteDb db(other, SqliteDb::Mode::Create); db.exec("CREATE TABLE customers (name TEXT)"); }
    EXPECT_NE(history_read_error(other).find("not a gi-optimize history database (it has no meta table)"),
              std::string::npos);
    const auto text = dir / "notes.sqlite";
    std::ofstream(text) << "this is not a database, but long enough to look like a header to SQLite......\n";
    EXPECT_NE(history_read_error(text).find("not a gi-optimize history database"), std::string::npos);
}

TEST(HistoryRead, ADatabaseWhoseFolderIsReadOnlyIsOpenedAsImmutable) {
    const auto dir = test::scratch_dir("immutable");
    const auto path = dir / "history.sqlite";
    { auto created = History::create(path, test::test_identity()); }
    SqliteDb db(path, SqliteDb::Mode::Immutable);
    EXPECT_TRUE(db.has_table("meta"));
    // A path a URI would otherwise misread.
    const auto odd = dir / "a%20b?c#d.sqlite";
    std::filesystem::copy_file(path, odd);
    SqliteDb odd_db(odd, SqliteDb::Mode::Immutable);
    EXPECT_TRUE(odd_db.has_table("meta"));
}

}  // namespace
}  // namespace gi
