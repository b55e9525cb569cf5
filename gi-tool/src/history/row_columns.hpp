#pragma once
// The history database's rows, each declared once: columns(io, row) names a table's columns in
// order (all but the id), and the same declaration lists them for SQL (ColumnNames), binds a row
// for an INSERT (ColumnBinder) and reads one from a SELECT (ColumnReader). A column can then not be
// stored and not read, or read from the wrong place; HistoryColumns.* check every field.
#include <string>
#include <type_traits>
#include <vector>

#include "history/history.hpp"
#include "history/sqlite_db.hpp"

namespace gi::history_columns {

class ColumnNames {
public:
    template <typename T>
    void column(const char* name, const T&) { names.emplace_back(name); }
    void timing(const std::string& prefix, const Timing&) {
        for (const char* part : {"median_ms", "spread_ms", "repetitions"}) names.push_back(prefix + part);
    }
    std::vector<std::string> names;
};

class ColumnBinder {
public:
    ColumnBinder(SqliteStatement& statement, int first) : s_(statement), next_(first) {}
    void column(const char*, const std::string& value) { s_.bind(next_++, value); }
    void column(const char*, int value) { s_.bind(next_++, value); }
    void column(const char*, double value) { s_.bind(next_++, value); }
    void column(const char*, bool value) { s_.bind(next_++, value ? 1 : 0); }
    void column(const char*, EvalStatus value) { s_.bind(next_++, std::string(to_string(value))); }
    void column(const char*, Birth value) { s_.bind(next_++, std::string(to_string(value))); }
    void timing(const std::string&, const Timing& t) {
        s_.bind(next_, t.median_ms).bind(next_ + 1, t.spread_ms).bind(next_ + 2, t.repetitions);
        next_ += 3;
    }

private:
    SqliteStatement& s_;
    int next_;
};

// The three columns of a timing, from `first` on (median_ms, spread_ms, repetitions).
inline Timing read_timing(const SqliteStatement& s, int first) {
    Timing t;
    t.median_ms = s.real(first);
    t.spread_ms = s.real(first + 1);
    t.repetitions = static_cast<int>(s.integer(first + 2));
    return t;
}

class ColumnReader {
public:
    ColumnReader(const SqliteStatement& statement, int first) : s_(statement), next_(first) {}
    void column(const char*, std::string& value) { value = s_.text(next_++); }
    void column(const char*, int& value) { value = static_cast<int>(s_.integer(next_++)); }
    void column(const char*, double& value) { value = s_.real(next_++); }
    void column(const char*, bool& value) { value = s_.integer(next_++) != 0; }
    void column(const char*, EvalStatus& value) { value = eval_status_from_string(s_.text(next_++)); }
    void column(const char*, Birth& value) { value = birth_from_string(s_.text(next_++)); }
    void timing(const std::string&, Timing& t) {
        t = read_timing(s_, next_);
        next_ += 3;
    }

private:
    const SqliteStatement& s_;
    int next_;
};

// The tables' rows. R is the row, const when binding.
template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, EvaluationRow>
void columns(Io& io, R& row) {
    io.column("variant_key", row.variant_key);
    io.column("case_index", row.case_index);
    io.column("genome", row.genome);
    io.column("status", row.result.status);
    io.column("detail", row.result.detail);
    io.column("error", row.result.error);
    io.timing("", row.result.time);
    io.timing("original_", row.original);
    io.column("wall_s", row.wall_s);
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, IndividualRow>
void columns(Io& io, R& row) {
    io.column("genome", row.genome);
    io.column("variant_key", row.variant_key);
    io.column("case_index", row.case_index);
    io.column("status", row.status);
    io.column("detail", row.detail);
    io.column("error", row.error);
    io.timing("", row.time);
    io.timing("original_", row.original);
    io.column("score_mean", row.mean);
    io.column("score_deviation", row.deviation);
    io.column("accepted", row.accepted);
    io.column("birth", row.birth);
    io.column("strategy", row.strategy);
    io.column("generation", row.generation);
    io.column("slot", row.slot);
    io.column("wall_s", row.wall_s);
}

// "a, b, c": the row's columns, for a SELECT (after the id) or an INSERT.
template <typename Row>
std::string column_list() {
    ColumnNames names;
    Row row;
    columns(names, row);
    std::string out;
    for (const std::string& name : names.names) out += (out.empty() ? "" : ", ") + name;
    return out;
}

// "INSERT OR IGNORE INTO table (a, b) VALUES (?1, ?2)".
template <typename Row>
std::string insert_statement(const std::string& table) {
    ColumnNames names;
    Row row;
    columns(names, row);
    std::string values;
    for (std::size_t i = 0; i < names.names.size(); ++i) values += (i ? ", ?" : "?") + std::to_string(i + 1);
    return "INSERT OR IGNORE INTO " + table + " (" + column_list<Row>() + ") VALUES (" + values + ")";
}

template <typename Row>
void bind_row(SqliteStatement& statement, const Row& row) {
    ColumnBinder binder(statement, 1);
    columns(binder, row);
}

// A row from a statement that selected "id, " + column_list<Row>().
template <typename Row>
Row read_row(const SqliteStatement& statement) {
    Row row;
    row.id = statement.integer(0);
    ColumnReader reader(statement, 1);
    columns(reader, row);
    return row;
}

}  // namespace gi::history_columns
