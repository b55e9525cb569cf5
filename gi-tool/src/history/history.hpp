#pragma once
// Stage "history": every individual a run evaluates, in an SQLite database in the run's --out
// folder (DIR/history.sqlite), written as each evaluation completes. WAL mode with
// synchronous=NORMAL: a commit survives the process being killed, so a crash loses at most the
// evaluations in flight. The database is three things at once:
//   - the fitness cache: `evaluations` holds one row per (variant key, case), so no program is
//     measured twice on the same case in a run, resumed sessions included;
//   - the record of the search: `individuals` (genome, status and cause, time, error, score mean
//     and deviation, birth method, parents, strategy, generation or step, wall time);
//   - what `gi-tool history` lists and filters.
// A `meta` table names the format, schema version, kernel source hash, grammar version and shape,
// and the run's options. A file that is not such a database, or one made for another kernel or
// grammar, is refused with a clear error after a read-only look, so it is never modified.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "grammar/grammar.hpp"
#include "history/birth.hpp"
#include "history/score.hpp"
#include "history/sqlite_db.hpp"

namespace gi {

inline constexpr int kHistorySchemaVersion = 1;
inline constexpr const char* kHistoryFormat = "gi-optimize history";
inline constexpr const char* kHistoryFileName = "history.sqlite";

// What must match for a database to be continued, plus the options of the run (kept for people;
// the checkpoint is what refuses changed options).
struct HistoryIdentity {
    std::string kernel_sha256;
    int grammar_version = kGrammarVersion;
    std::string grammar_shape;  // hash of the functions, rules and genes the grammar offers
    std::vector<std::pair<std::string, std::string>> options;
};

// The identity of a grammar (options left empty).
HistoryIdentity history_identity(const Grammar& grammar);

// One program measured on one case: the fitness cache.
struct EvaluationRow {
    std::int64_t id = 0;
    std::string variant_key;
    int case_index = 0;
    std::string genome;  // the genome that first gave this program
    EvalResult result;
    Timing original;     // the original kernel in the same evaluator call
    double wall_s = 0;   // seconds into the run when it completed
};

struct IndividualRow {
    std::int64_t id = 0;      // given by the database, in order of completion
    std::string genome;
    std::string variant_key;  // "" when the genome did not apply
    int case_index = -1;
    EvalStatus status = EvalStatus::Ok;
    std::string detail;       // the failure's cause
    double error = 0;
    Timing time;
    Timing original;
    double mean = 0;          // score (speedup) over every measurement of its program in the run
    double deviation = 0;
    bool accepted = false;    // may be a parent under the run's acceptance rule
    Birth birth = Birth::Unknown;
    std::vector<std::int64_t> parents;  // individual ids, in the birth's order
    std::string strategy;
    int generation = 0;       // generation (gp, nsga2) or step (anneal)
    int slot = 0;             // position within the generation (0 for anneal)
    double wall_s = 0;
};

// The row of one evaluated genome as every phase stores it (search, anneal, tuning, minimisation);
// the variant key, birth and parents are the caller's to add.
IndividualRow individual_row(std::string genome, int case_index, const EvalResult& result, const Timing& original,
                             bool accepted, std::string strategy, int generation, int slot);

struct IndividualFilter {
    std::optional<std::string> strategy;
    bool failures_only = false;   // status other than ok
    bool ok_only = false;
};

class History {
public:
    // A new database at `path`; throws gi::Error when the file exists (the caller decides whether a
    // run there may be discarded) or cannot be created.
    static std::unique_ptr<History> create(const std::filesystem::path& path, const HistoryIdentity& identity);

    // Continues the database at `path`. It is first opened read-only and checked (format, schema
    // version, kernel hash, grammar version and shape); any mismatch throws gi::Error saying what
    // differs, and the file is left exactly as it was.
    static std::unique_ptr<History> resume(const std::filesystem::path& path, const HistoryIdentity& identity);

    // Read-only access for reports; checks the format and schema version only.
    static std::unique_ptr<History> read(const std::filesystem::path& path);

    // The identity the database was made with.
    const HistoryIdentity& identity() const { return identity_; }
    const std::filesystem::path& path() const { return path_; }

    // Seconds into the run (earlier sessions included).
    double wall_seconds() const;

    // --- fitness cache ---
    std::optional<EvaluationRow> cached(const std::string& variant_key, int case_index);
    // The original kernel's most recent timing on a case (for a batch answered wholly from the cache).
    std::optional<Timing> original_on(int case_index);
    // Stores a measurement; a second one for the same (key, case) is ignored. Returns its id.
    std::int64_t add_evaluation(const EvaluationRow& row);
    std::int64_t evaluation_count();

    // Every measurement of a program so far, and its combined score.
    std::vector<Measurement> measurements_of(const std::string& variant_key);

    // --- individuals ---
    // Stores an individual and its parents; a second one with the same (strategy, generation, slot)
    // is the replay of a generation after --resume and returns the first one's id. Fills mean and
    // deviation from the program's measurements when `row.variant_key` has any.
    std::int64_t add_individual(IndividualRow row);
    std::vector<IndividualRow> individuals(const IndividualFilter& filter = {});
    std::optional<IndividualRow> individual(std::int64_t id);
    // The latest individual with this genome text (parents are named by genome in generational
    // strategies).
    std::optional<std::int64_t> latest_with_genome(const std::string& genome);
    std::int64_t individual_count();
    // Highest generation or step stored for a strategy (-1 when none).
    int last_generation(const std::string& strategy);

    ~History();

private:
    History(std::unique_ptr<SqliteDb> db, std::filesystem::path path, HistoryIdentity identity);
    std::vector<IndividualRow> query_individuals(const std::string& where, const std::vector<std::string>& binds);
    std::vector<std::int64_t> parents_of(std::int64_t id);

    std::unique_ptr<SqliteDb> db_;
    std::filesystem::path path_;
    HistoryIdentity identity_;
    double wall_offset_ = 0;
    std::int64_t started_ns_ = 0;
    mutable std::recursive_mutex mutex_;  // one connection shared by the async search's threads
};

// Reads the identity a database file holds without changing it (throws gi::Error for a file that
// is not a gi-optimize history database, naming the file and what is wrong).
HistoryIdentity read_history_identity(const std::filesystem::path& path);

// The differences between two identities as "what: the database has X, this run has Y" lines.
std::vector<std::string> identity_differences(const HistoryIdentity& found, const HistoryIdentity& expected);

}  // namespace gi
