#pragma once
// What an evolve run (`gi-tool evolve --out DIR`) says about its result, for the cache entry made
// from it: the genome (DIR/best.genome) and, from DIR/run.xml, the timings and the held-out
// validation. A run whose final variant failed validation cannot become a cache entry.
#include <filesystem>
#include <string>

#include "cache/entry.hpp"

namespace gi {

struct RunResult {
    std::string genome;     // best.genome's text, trimmed
    Provenance provenance;  // origin "evolved"; timings and validation when run.xml has them
};

// Throws gi::Error naming the file when best.genome is missing, run.xml is unreadable, or the run's
// final check ran and failed (the message gives the validation summary). A run whose final check did
// not run (no case left to validate on, no run.xml) is accepted with "NOT VALIDATED" and the reason
// in the provenance note.
RunResult read_run_result(const std::filesystem::path& run_dir);

}  // namespace gi
