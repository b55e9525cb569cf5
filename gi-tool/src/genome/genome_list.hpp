#pragma once
// A list of genomes to evaluate (`gi-tool cuda-bench --genomes FILE`, re-judging a recorded search): one per line as gi-tool writes
// them, optionally after the case to run it on and a tab; blank lines and # comments skipped.
#include <string>
#include <vector>

#include "genome/genome.hpp"

namespace gi {

struct GenomeLine {
    int case_index = -1;  // -1: the caller chooses
    Genome genome;
    int line = 0;         // in the file, from 1
};

// Throws UsageError "FILE:LINE: ..." for a line that is not a genome or whose case is not a number,
// or when the file cannot be read or holds no genome.
std::vector<GenomeLine> read_genome_lines(const std::string& path);

}  // namespace gi
