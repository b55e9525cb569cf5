#pragma once
// The state a run needs to continue after it was killed: written atomically after every generation
// to DIR/checkpoint.xml. It holds a fingerprint of the run's inputs so `--resume` refuses a
// checkpoint from another kernel, grammar version or set of options instead of mixing runs.
//
// The finished generations' records are not in checkpoint.xml but in its generation log beside it
// (DIR/checkpoint.generations), appended once each; checkpoint.xml says how many records and bytes
// of the log are its own. So a checkpoint costs the same to write at generation 2000 as at 2 (it
// once held the whole run record, rewritten every generation: issue 39), and a generation appended
// by a session killed before its checkpoint is cut off when the run resumes.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "run/run_record.hpp"

namespace gi {

using Fingerprint = std::vector<std::pair<std::string, std::string>>;

// Format 2 keeps the generations in the log; format 1 (inline, in <gi-run>) is still read.
inline constexpr int kCheckpointFormat = 2;

// Where a run stands; evolve() runs the phases in this order. A checkpoint file names the phase in
// words ("search", "searched", "finished"), as every gi-tool version has written it.
enum class CheckpointPhase {
    Start,     // nothing done yet: pre-tuning and the first population are next (never saved)
    Search,    // generation `next_generation` is next, with `population`
    Searched,  // the search and its best's confirmation are over: minimisation, post-tuning, final checks next
    Finished,  // nothing left to do
};

// "start", "search", "searched", "finished": the words a checkpoint file holds.
std::string phase_word(CheckpointPhase phase);
// The phase a checkpoint file's word names; nullopt for a word no saved checkpoint holds ("start" too).
std::optional<CheckpointPhase> saved_phase_from_word(const std::string& word);

struct Checkpoint {
    Fingerprint fingerprint;
    CheckpointPhase phase = CheckpointPhase::Search;
    int next_generation = 0;
    std::string rng_state;
    std::vector<Genome> population;
    std::string strategy_state;
    RunRecord record;  // record.generations: every finished generation (from the log when loaded)
    std::uint64_t generation_log_bytes = 0;  // loaded: how much of the generation log is this checkpoint's
};

// The generation log of the checkpoint `file` ("checkpoint.xml" -> "checkpoint.generations").
std::filesystem::path generation_log_path(const std::filesystem::path& file);

// Writes one run's checkpoints. Each save appends the generations the log lacks, flushes the log to
// disk, then replaces checkpoint.xml atomically; it never reads or rewrites earlier generations.
class CheckpointWriter {
public:
    // `continued`: the checkpoint a resumed run loaded (the log is cut back to what it counts at the
    // first save); nullptr: a new run (the log starts empty).
    CheckpointWriter(std::filesystem::path file, const Checkpoint* continued);
    // Throws gi::Error naming the file when it cannot be written.
    void save(const Checkpoint& checkpoint);
    // Bytes written by this writer so far (log and checkpoints), for tests of what a save costs.
    std::uint64_t bytes_written() const { return bytes_written_; }

private:
    void append_to_log(const std::string& text);

    std::filesystem::path file_, log_;
    std::size_t logged_ = 0;        // generations in the log
    std::uint64_t log_bytes_ = 0;   // their bytes
    bool log_opened_ = false;       // this session has cut the log to log_bytes_
    std::uint64_t bytes_written_ = 0;
};

// A new run's checkpoint in one call (CheckpointWriter(file, nullptr).save(checkpoint)).
void save_checkpoint(const std::filesystem::path& file, const Checkpoint& checkpoint);

// Throws gi::Error naming the file (and line) when it or its generation log is missing,
// unreadable or damaged.
Checkpoint load_checkpoint(const std::filesystem::path& file);

// On --resume, once the fingerprint matched: the population must be what this run saves, `expected`
// genomes while the search goes on (CheckpointPhase::Search; Strategy::population_size) and each valid for
// `grammar` (genome/validate.hpp). An emptied, cut or padded population, or genomes of another
// kernel, were once taken silently and ran generations of 0 or 1000 individuals (issue 39).
// Throws gi::Error naming `file`, the member and what is wrong.
void check_resumed_population(const Checkpoint& checkpoint, const Grammar& grammar, std::size_t expected,
                              const std::string& file);

// Throws gi::Error listing every item where `found` (the checkpoint's) differs from `expected`
// (this invocation's), e.g. "population: the checkpoint has 100, this run has 50".
void require_same_fingerprint(const Fingerprint& expected, const Fingerprint& found, const std::string& file);

}  // namespace gi
