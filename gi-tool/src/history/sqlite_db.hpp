#pragma once
// A thin RAII layer over the SQLite C API: one connection, prepared statements, transactions.
// Every failure becomes a gi::Error that names the database file and SQLite's own message, so a
// person sees "run/history.sqlite: file is not a database" rather than an error code.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "util/error.hpp"

namespace gi {

class SqliteDb;

// A failure SQLite reported, with its result code (SQLITE_NOTADB, SQLITE_CANTOPEN, ...), so a
// caller can tell a file that is no database from one it could not open.
class SqliteError : public Error {
public:
    SqliteError(const std::string& message, int code) : Error(message), code_(code) {}
    int code() const { return code_; }                     // extended result code
    int primary_code() const { return code_ & 0xff; }      // SQLITE_CANTOPEN for SQLITE_CANTOPEN_ISDIR

private:
    int code_;
};

// A prepared statement. Bind parameters are 1-based as in SQLite; columns 0-based.
class SqliteStatement {
public:
    SqliteStatement(SqliteDb& db, const std::string& sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    SqliteStatement& bind(int index, const std::string& value);
    SqliteStatement& bind(int index, std::int64_t value);
    SqliteStatement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    SqliteStatement& bind(int index, double value);  // a NaN is stored as NULL (SQLite has no NaN)
    SqliteStatement& bind_null(int index);

    // True while a row is available; false when done. Throws gi::Error on failure.
    bool step();
    // Runs a statement that returns no rows.
    void run();
    // Ready for new bindings and another step().
    void reset();

    bool is_null(int column) const;
    std::string text(int column) const;
    std::int64_t integer(int column) const;
    double real(int column) const;  // NULL reads as NaN

private:
    SqliteDb& db_;
    sqlite3_stmt* statement_ = nullptr;
};

class SqliteDb {
public:
    // Immutable: read-only, for a file nothing can change (read-only media): SQLite then needs no
    // -shm or -wal file beside it, which such a folder cannot hold.
    enum class Mode { ReadOnly, Immutable, ReadWrite, Create };

    // Opening never creates a file unless `mode` is Create. Throws gi::Error naming the path.
    SqliteDb(const std::filesystem::path& path, Mode mode);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    // Runs one or more statements without results.
    void exec(const std::string& sql);
    // The single value of a one-row, one-column query; nullopt when it returns no row.
    std::optional<std::string> scalar_text(const std::string& sql);

    bool has_table(const std::string& name);
    std::int64_t last_insert_id() const;

    const std::filesystem::path& path() const { return path_; }
    sqlite3* handle() { return db_; }

    // Throws gi::SqliteError "<path>: <what>: <sqlite message>".
    [[noreturn]] void fail(const std::string& what) const;

private:
    std::filesystem::path path_;
    sqlite3* db_ = nullptr;
};

// Commits on commit(); rolls back when destroyed without it (an exception mid-way).
class SqliteTransaction {
public:
    explicit SqliteTransaction(SqliteDb& db);
    ~SqliteTransaction();
    void commit();

private:
    SqliteDb& db_;
    bool open_ = true;
};

}  // namespace gi
