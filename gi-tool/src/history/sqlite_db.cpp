#include "history/sqlite_db.hpp"

#include <cmath>
#include <limits>

#include "util/error.hpp"

namespace gi {

namespace {

// "file:PATH?immutable=1", PATH percent-encoded where a URI would read it otherwise.
std::string immutable_uri(const std::filesystem::path& path) {
    std::string uri = "file:";
    for (const char c : path.string()) {
        if (c == '%' || c == '?' || c == '#') {
            static const char* digits = "0123456789abcdef";
            uri += '%';
            uri += digits[(static_cast<unsigned char>(c) >> 4) & 15];
            uri += digits[static_cast<unsigned char>(c) & 15];
        } else {
            uri += c;
        }
    }
    return uri + "?immutable=1";
}

}  // namespace

SqliteDb::SqliteDb(const std::filesystem::path& path, Mode mode) : path_(path) {
    int flags = SQLITE_OPEN_FULLMUTEX;
    std::string name = path.string();
    switch (mode) {
        case Mode::ReadOnly: flags |= SQLITE_OPEN_READONLY; break;
        case Mode::Immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
            name = immutable_uri(path);
            break;
        case Mode::ReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
        case Mode::Create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
    }
    const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        const int code = db_ ? sqlite3_extended_errcode(db_) : rc;
        sqlite3_close(db_);
        db_ = nullptr;
        throw SqliteError(path.string() + ": cannot open the database (" + message + ")", code);
    }
    // Several threads may wait on one another briefly (async search); never fail on a short lock.
    sqlite3_busy_timeout(db_, 10000);
    sqlite3_extended_result_codes(db_, 1);
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::fail(const std::string& what) const {
    throw SqliteError(path_.string() + ": " + what + ": " + sqlite3_errmsg(db_), sqlite3_extended_errcode(db_));
}

void SqliteDb::exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string text = message ? message : sqlite3_errmsg(db_);
        sqlite3_free(message);
        throw SqliteError(path_.string() + ": " + text, sqlite3_extended_errcode(db_));
    }
}

std::optional<std::string> SqliteDb::scalar_text(const std::string& sql) {
    SqliteStatement statement(*this, sql);
    if (!statement.step()) return std::nullopt;
    return statement.text(0);
}

bool SqliteDb::has_table(const std::string& name) {
    SqliteStatement statement(*this, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
    statement.bind(1, name);
    return statement.step();
}

std::int64_t SqliteDb::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

SqliteStatement::SqliteStatement(SqliteDb& db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK)
        db.fail("cannot prepare '" + sql.substr(0, 60) + "'");
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

SqliteStatement& SqliteStatement::bind(int index, const std::string& value) {
    if (sqlite3_bind_text(statement_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
        db_.fail("cannot bind parameter " + std::to_string(index));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
    if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK)
        db_.fail("cannot bind parameter " + std::to_string(index));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
    if (std::isnan(value)) return bind_null(index);
    if (sqlite3_bind_double(statement_, index, value) != SQLITE_OK)
        db_.fail("cannot bind parameter " + std::to_string(index));
    return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
    if (sqlite3_bind_null(statement_, index) != SQLITE_OK) db_.fail("cannot bind parameter " + std::to_string(index));
    return *this;
}

bool SqliteStatement::step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_.fail("query failed");
}

void SqliteStatement::run() {
    while (step()) {
    }
}

void SqliteStatement::reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
}

bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

std::string SqliteStatement::text(int column) const {
    const auto* bytes = sqlite3_column_text(statement_, column);
    if (bytes == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)));
}

std::int64_t SqliteStatement::integer(int column) const { return sqlite3_column_int64(statement_, column); }

double SqliteStatement::real(int column) const {
    if (is_null(column)) return std::numeric_limits<double>::quiet_NaN();
    return sqlite3_column_double(statement_, column);
}

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

SqliteTransaction::~SqliteTransaction() {
    if (!open_) return;
    try {
        db_.exec("ROLLBACK");
    } catch (...) {
        // Nothing useful to do: the connection closes and SQLite rolls back on its own.
    }
}

void SqliteTransaction::commit() {
    db_.exec("COMMIT");
    open_ = false;
}

}  // namespace gi
