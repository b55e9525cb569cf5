#pragma once
// What an evolve run (`gi-tool evolve --out DIR`) says about its result, for the cache entry made
// from it: the genome (DIR/best.genome) and, from DIR/run.xml, the timings and the held-out
// validation. A run whose final variant failed validation cannot become a cache entry.
#include <filesystem>
#include <string>

#include "cache/entry.hpp"
#include "run/run_record.hpp"

namespace gi {

struct RunResult {
    std::string genome;     // best.genome's text, trimmed
    Provenance provenance;  // origin "evolved"; timings and validation when run.xml has them
};

// What a person may accept besides a finished, validated run; each is recorded in the entry's
// provenance waiver so `cache show` and a reviewer see it.
struct RunWaivers {
    bool unvalidated = false;  // --allow-unvalidated: the final genome was not validated on held-out inputs
    bool unfinished = false;   // --allow-unfinished: the run stopped before its final checks (the best so far)
};

// The final genome's time and the original's in the same measurement, when the run measured the
// final genome itself (post-tuning's best, the search's best, or its minimised form), or the
// original's time twice when the final genome is the original; -1 (not measured) otherwise.
struct FinalTiming {
    double original_ms = -1;
    double variant_ms = -1;
};
FinalTiming final_timing(const RunRecord& record);

// Throws gi::Error naming the file when best.genome is missing, run.xml is missing or unreadable,
// the run's final check ran and failed (the message gives the validation summary), the run did
// not finish (killed, or still running) unless waived, or its final genome was not validated on
// held-out inputs unless waived (an empty genome, the original kernel, needs no validation).
RunResult read_run_result(const std::filesystem::path& run_dir, const RunWaivers& waivers = {});

}  // namespace gi
