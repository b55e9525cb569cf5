#pragma once
// The state a run needs to continue after it was killed: written atomically after every generation
// to DIR/checkpoint.xml. It holds a fingerprint of the run's inputs so `--resume` refuses a
// checkpoint from another kernel, grammar version or set of options instead of mixing runs.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "genome/genome.hpp"
#include "run/run_record.hpp"

namespace gi {

using Fingerprint = std::vector<std::pair<std::string, std::string>>;

inline constexpr int kCheckpointFormat = 1;

struct Checkpoint {
    Fingerprint fingerprint;
    // "search": generation `next_generation` is next, with `population`; "searched": the search is
    // over and minimisation/post-tuning are next; "finished": nothing left to do.
    std::string phase = "search";
    int next_generation = 0;
    std::string rng_state;
    std::vector<Genome> population;
    std::string strategy_state;
    RunRecord record;
};

void save_checkpoint(const std::filesystem::path& file, const Checkpoint& checkpoint);

// Throws gi::Error naming the file (and line) when it is missing, unreadable or damaged.
Checkpoint load_checkpoint(const std::filesystem::path& file);

// Throws gi::Error listing every item where `found` (the checkpoint's) differs from `expected`
// (this invocation's), e.g. "population: the checkpoint has 100, this run has 50".
void require_same_fingerprint(const Fingerprint& expected, const Fingerprint& found, const std::string& file);

}  // namespace gi
