#include "history/history.hpp"

#include <chrono>

#include <unistd.h>

#include "grammar/shape_hash.hpp"
#include "history/row_columns.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

// Schema version 1. Times are milliseconds, NULL when not measured.
constexpr const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE evaluations (
    id INTEGER PRIMARY KEY,
    variant_key TEXT NOT NULL,
    case_index INTEGER NOT NULL,
    genome TEXT NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    error REAL,
    median_ms REAL, spread_ms REAL, repetitions INTEGER NOT NULL,
    original_median_ms REAL, original_spread_ms REAL, original_repetitions INTEGER NOT NULL,
    wall_s REAL NOT NULL,
    UNIQUE (variant_key, case_index));
CREATE TABLE individuals (
    id INTEGER PRIMARY KEY,
    genome TEXT NOT NULL,
    variant_key TEXT NOT NULL,
    case_index INTEGER NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    error REAL,
    median_ms REAL, spread_ms REAL, repetitions INTEGER NOT NULL,
    original_median_ms REAL, original_spread_ms REAL, original_repetitions INTEGER NOT NULL,
    score_mean REAL NOT NULL,
    score_deviation REAL NOT NULL,
    accepted INTEGER NOT NULL,
    birth TEXT NOT NULL,
    strategy TEXT NOT NULL,
    generation INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    wall_s REAL NOT NULL,
    UNIQUE (strategy, generation, slot));
CREATE TABLE parents (
    child INTEGER NOT NULL REFERENCES individuals(id),
    position INTEGER NOT NULL,
    parent INTEGER NOT NULL REFERENCES individuals(id),
    PRIMARY KEY (child, position));
CREATE INDEX individuals_genome ON individuals (genome);
)sql";


std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string not_ours(const std::filesystem::path& path, const std::string& why) {
    return path.string() + ": not a gi-optimize history database (" + why +
           "); it was left untouched: move it away or choose another --out";
}

HistoryIdentity identity_from(SqliteDb& db) {
    const std::filesystem::path& path = db.path();
    std::optional<std::string> format;
    try {
        if (!db.has_table("meta")) {
            // A run creates the file, then its tables in one transaction: a reader in between, or
            // after a run that stopped there, sees an empty database, which is not someone else's.
            if (db.scalar_text("SELECT count(*) FROM sqlite_master").value_or("0") == "0")
                throw Error(path.string() + ": holds no history yet (an empty database: the run writing it is starting, "
                            "or stopped before its first write); it was left untouched: try again in a moment, or, if no "
                            "run uses this folder, remove the file and start the run again");
            throw Error(not_ours(path, "it has no meta table"));
        }
        format = db.scalar_text("SELECT value FROM meta WHERE key = 'format'");
    } catch (const SqliteError& e) {
        // Only what SQLite says of the file's content makes it "not ours"; a file it could not
        // open, lock or read (read-only media, permissions, a busy writer) is reported as that.
        if (e.primary_code() != SQLITE_NOTADB && e.primary_code() != SQLITE_CORRUPT) throw;
        // SQLite's own message ("file is not a database") follows the path in `what`.
        const std::string what = e.what();
        const std::string prefix = path.string() + ": ";
        throw Error(not_ours(path, what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what));
    }
    if (!format || *format != kHistoryFormat)
        throw Error(not_ours(path, "its meta table does not say format '" + std::string(kHistoryFormat) + "'"));
    const std::string version = db.scalar_text("SELECT value FROM meta WHERE key = 'schema-version'").value_or("?");
    if (version != std::to_string(kHistorySchemaVersion))
        throw Error(path.string() + ": history schema version " + version + ", but this gi-tool reads version " +
                    std::to_string(kHistorySchemaVersion) +
                    "; it was left untouched: use the gi-tool that wrote it, or start a new run elsewhere");
    HistoryIdentity identity;
    SqliteStatement s(db, "SELECT key, value FROM meta ORDER BY rowid");
    while (s.step()) {
        const std::string key = s.text(0), value = s.text(1);
        if (key == "kernel-sha256") identity.kernel_sha256 = value;
        else if (key == "grammar-version") {
            try {
                identity.grammar_version = std::stoi(value);
            } catch (const std::exception&) {
                throw Error(path.string() + ": meta grammar-version '" + value + "' is not a number; the file is damaged");
            }
        } else if (key == "grammar-shape") identity.grammar_shape = value;
        else if (key.rfind("option:", 0) == 0) identity.options.emplace_back(key.substr(7), value);
    }
    return identity;
}

}  // namespace

HistoryIdentity history_identity(const Grammar& grammar) {
    HistoryIdentity identity;
    identity.kernel_sha256 = grammar.source_hash;
    identity.grammar_version = kGrammarVersion;
    identity.grammar_shape = grammar_shape_hash(grammar);
    return identity;
}

std::string to_string(Birth birth) {
    switch (birth) {
        case Birth::Init: return "init";
        case Birth::Mutation: return "mutation";
        case Birth::Crossover: return "crossover";
        case Birth::Triangulation: return "triangulation";
        case Birth::Elite: return "elite";
        case Birth::Tune: return "tune";
        case Birth::Minimise: return "minimise";
        case Birth::Unknown: return "unknown";
    }
    return "unknown";
}

Birth birth_from_string(const std::string& text) {
    for (Birth b : {Birth::Init, Birth::Mutation, Birth::Crossover, Birth::Triangulation, Birth::Elite, Birth::Tune,
                    Birth::Minimise, Birth::Unknown})
        if (to_string(b) == text) return b;
    throw Error("unknown birth method '" + text +
                "' (known: init, mutation, crossover, triangulation, elite, tune, minimise, unknown)");
}

std::vector<std::string> identity_differences(const HistoryIdentity& found, const HistoryIdentity& expected) {
    std::vector<std::string> out;
    if (found.kernel_sha256 != expected.kernel_sha256)
        out.push_back("kernel source sha256: the database has " + found.kernel_sha256.substr(0, 12) +
                      "..., this kernel is " + expected.kernel_sha256.substr(0, 12) + "...");
    if (found.grammar_version != expected.grammar_version)
        out.push_back("grammar version: the database has " + std::to_string(found.grammar_version) +
                      ", this gi-tool has " + std::to_string(expected.grammar_version));
    if (found.grammar_shape != expected.grammar_shape)
        out.push_back("grammar (functions, rules, genes from --function/--param/--flag): the database was made "
                      "with another one");
    return out;
}

HistoryIdentity read_history_identity(const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) throw Error(path.string() + ": no such history database");
    SqliteDb db(path, SqliteDb::Mode::ReadOnly);
    return identity_from(db);
}

History::History(std::unique_ptr<SqliteDb> db, std::filesystem::path path, HistoryIdentity identity)
    : db_(std::move(db)), path_(std::move(path)), identity_(std::move(identity)), started_ns_(now_ns()) {}

History::~History() = default;

std::unique_ptr<History> History::create(const std::filesystem::path& path, const HistoryIdentity& identity) {
    if (std::filesystem::exists(path))
        throw Error(path.string() + ": a history database is already there; resume that run or choose another --out");
    auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::Create);
    db->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
    SqliteTransaction transaction(*db);
    db->exec(kSchema);
    SqliteStatement insert(*db, "INSERT INTO meta (key, value) VALUES (?1, ?2)");
    auto put = [&](const std::string& key, const std::string& value) {
        insert.bind(1, key).bind(2, value);
        insert.run();
        insert.reset();
    };
    put("format", kHistoryFormat);
    put("schema-version", std::to_string(kHistorySchemaVersion));
    put("kernel-sha256", identity.kernel_sha256);
    put("grammar-version", std::to_string(identity.grammar_version));
    put("grammar-shape", identity.grammar_shape);
    for (const auto& [key, value] : identity.options) put("option:" + key, value);
    transaction.commit();
    return std::unique_ptr<History>(new History(std::move(db), path, identity));
}

std::unique_ptr<History> History::resume(const std::filesystem::path& path, const HistoryIdentity& identity) {
    if (!std::filesystem::exists(path))
        throw Error(path.string() + ": no history database to resume (start the run without --resume)");
    const HistoryIdentity found = read_history_identity(path);
    const std::vector<std::string> differences = identity_differences(found, identity);
    if (!differences.empty()) {
        std::string message = path.string() + ": this history database belongs to another run and was left untouched:";
        for (const std::string& d : differences) message += "\n  " + d;
        message += "\n(use the kernel and options it was made with, or choose another --out)";
        throw Error(message);
    }
    auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadWrite);
    db->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
    auto history = std::unique_ptr<History>(new History(std::move(db), path, found));
    const auto most = history->db_->scalar_text(
        "SELECT MAX(m) FROM (SELECT MAX(wall_s) AS m FROM evaluations UNION ALL SELECT MAX(wall_s) FROM individuals)");
    history->wall_offset_ = most && !most->empty() ? std::stod(*most) : 0.0;
    return history;
}

std::unique_ptr<History> History::read(const std::filesystem::path& path) {
    if (!std::filesystem::exists(path))
        throw Error(path.string() + ": no history database (runs write one into their --out folder)");
    try {
        auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadOnly);
        HistoryIdentity identity = identity_from(*db);
        return std::unique_ptr<History>(new History(std::move(db), path, std::move(identity)));
    } catch (const SqliteError& e) {
        // A run's database is in WAL mode, whose readers need a -shm file beside it. On read-only
        // media (a CI artifact, a mount) none can be made, and nothing can change the file either:
        // it is then read as immutable.
        const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
        if (e.primary_code() != SQLITE_CANTOPEN || ::access(folder.c_str(), W_OK) == 0) throw;
        try {
            auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::Immutable);
            HistoryIdentity identity = identity_from(*db);
            return std::unique_ptr<History>(new History(std::move(db), path, std::move(identity)));
        } catch (const SqliteError& immutable) {
            throw Error(path.string() + ": cannot open the history database read-only (" + e.what() +
                        "; as an unchangeable file: " + immutable.what() + "); it was left untouched");
        }
    }
}

double History::wall_seconds() const { return wall_offset_ + static_cast<double>(now_ns() - started_ns_) * 1e-9; }

std::optional<EvaluationRow> History::cached(const std::string& variant_key, int case_index) {
    std::lock_guard lock(mutex_);
    SqliteStatement s(*db_, "SELECT id, " + history_columns::column_list<EvaluationRow>() +
                                " FROM evaluations WHERE variant_key = ?1 AND case_index = ?2");
    s.bind(1, variant_key).bind(2, case_index);
    if (!s.step()) return std::nullopt;
    return history_columns::read_row<EvaluationRow>(s);
}

std::optional<Timing> History::original_on(int case_index) {
    std::lock_guard lock(mutex_);
    SqliteStatement s(*db_,
                      "SELECT original_median_ms, original_spread_ms, original_repetitions FROM evaluations "
                      "WHERE case_index = ?1 AND original_median_ms IS NOT NULL ORDER BY id DESC LIMIT 1");
    s.bind(1, case_index);
    if (!s.step()) return std::nullopt;
    return history_columns::read_timing(s, 0);
}

std::int64_t History::add_evaluation(const EvaluationRow& row) {
    std::lock_guard lock(mutex_);
    SqliteStatement s(*db_, history_columns::insert_statement<EvaluationRow>("evaluations"));
    EvaluationRow stored = row;
    if (stored.wall_s == 0) stored.wall_s = wall_seconds();
    history_columns::bind_row(s, stored);
    s.run();
    if (sqlite3_changes(db_->handle()) == 1) return db_->last_insert_id();
    return cached(row.variant_key, row.case_index)->id;
}

std::int64_t History::evaluation_count() {
    std::lock_guard lock(mutex_);
    return std::stoll(db_->scalar_text("SELECT COUNT(*) FROM evaluations").value_or("0"));
}

std::vector<Measurement> History::measurements_of(const std::string& variant_key) {
    std::lock_guard lock(mutex_);
    std::vector<Measurement> out;
    SqliteStatement s(*db_,
                      "SELECT status, error, median_ms, spread_ms, repetitions, original_median_ms, original_spread_ms, "
                      "original_repetitions FROM evaluations WHERE variant_key = ?1 ORDER BY id");
    s.bind(1, variant_key);
    while (s.step()) {
        Measurement m;
        m.result.status = eval_status_from_string(s.text(0));
        m.result.error = s.real(1);
        m.result.time = history_columns::read_timing(s, 2);
        m.original = history_columns::read_timing(s, 5);
        out.push_back(m);
    }
    return out;
}

IndividualRow individual_row(std::string genome, int case_index, const EvalResult& result, const Timing& original,
                             bool accepted, std::string strategy, int generation, int slot) {
    IndividualRow row;
    row.genome = std::move(genome);
    row.case_index = case_index;
    row.status = result.status;
    row.detail = result.detail;
    row.error = result.error;
    row.time = result.time;
    row.original = original;
    row.accepted = accepted;
    row.strategy = std::move(strategy);
    row.generation = generation;
    row.slot = slot;
    return row;
}

std::int64_t History::add_individual(IndividualRow row) {
    std::lock_guard lock(mutex_);
    Score score = measurement_score({EvalResult{row.status, row.error, row.time, row.detail}, row.original});
    if (!row.variant_key.empty()) {
        const std::vector<Measurement> measurements = measurements_of(row.variant_key);
        if (!measurements.empty()) score = combined_score(measurements);
    }
    SqliteTransaction transaction(*db_);
    SqliteStatement s(*db_, history_columns::insert_statement<IndividualRow>("individuals"));
    row.mean = score.mean;
    row.deviation = score.deviation;
    if (row.wall_s == 0) row.wall_s = wall_seconds();
    history_columns::bind_row(s, row);
    s.run();
    if (sqlite3_changes(db_->handle()) == 0) {
        SqliteStatement existing(*db_, "SELECT id FROM individuals WHERE strategy = ?1 AND generation = ?2 AND slot = ?3");
        existing.bind(1, row.strategy).bind(2, row.generation).bind(3, row.slot);
        existing.step();
        return existing.integer(0);
    }
    const std::int64_t id = db_->last_insert_id();
    SqliteStatement p(*db_, "INSERT INTO parents (child, position, parent) VALUES (?1, ?2, ?3)");
    for (std::size_t i = 0; i < row.parents.size(); ++i) {
        p.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, row.parents[i]);
        p.run();
        p.reset();
    }
    transaction.commit();
    return id;
}

std::vector<std::int64_t> History::parents_of(std::int64_t id) {
    std::vector<std::int64_t> out;
    SqliteStatement s(*db_, "SELECT parent FROM parents WHERE child = ?1 ORDER BY position");
    s.bind(1, id);
    while (s.step()) out.push_back(s.integer(0));
    return out;
}

std::vector<IndividualRow> History::query_individuals(const std::string& where, const std::vector<std::string>& binds) {
    std::lock_guard lock(mutex_);
    SqliteStatement s(*db_, "SELECT id, " + history_columns::column_list<IndividualRow>() + " FROM individuals " + where);
    for (std::size_t i = 0; i < binds.size(); ++i) s.bind(static_cast<int>(i) + 1, binds[i]);
    std::vector<IndividualRow> out;
    while (s.step()) {
        IndividualRow row = history_columns::read_row<IndividualRow>(s);
        out.push_back(std::move(row));
    }
    for (IndividualRow& row : out) row.parents = parents_of(row.id);
    return out;
}

std::vector<IndividualRow> History::individuals(const IndividualFilter& filter) {
    std::string where;
    std::vector<std::string> binds;
    auto add = [&](const std::string& condition) { where += (where.empty() ? "WHERE " : " AND ") + condition; };
    if (filter.strategy) {
        binds.push_back(*filter.strategy);
        add("strategy = ?" + std::to_string(binds.size()));
    }
    if (filter.failures_only) add("status <> 'ok'");
    if (filter.ok_only) add("status = 'ok'");
    return query_individuals(where + " ORDER BY id", binds);
}

std::optional<IndividualRow> History::individual(std::int64_t id) {
    std::vector<IndividualRow> rows = query_individuals("WHERE id = ?1", {std::to_string(id)});
    if (rows.empty()) return std::nullopt;
    return rows.front();
}

std::optional<std::int64_t> History::latest_with_genome(const std::string& genome) {
    std::lock_guard lock(mutex_);
    SqliteStatement s(*db_, "SELECT MAX(id) FROM individuals WHERE genome = ?1");
    s.bind(1, genome);
    if (!s.step() || s.is_null(0)) return std::nullopt;
    return s.integer(0);
}

std::int64_t History::individual_count() {
    std::lock_guard lock(mutex_);
    return std::stoll(db_->scalar_text("SELECT COUNT(*) FROM individuals").value_or("0"));
}

int History::last_generation(const std::string& strategy) {
    std::lock_guard lock(mutex_);
    SqliteStatement s(*db_, "SELECT MAX(generation) FROM individuals WHERE strategy = ?1");
    s.bind(1, strategy);
    if (!s.step() || s.is_null(0)) return -1;
    return static_cast<int>(s.integer(0));
}

}  // namespace gi
