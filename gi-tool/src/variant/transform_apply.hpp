#pragma once
// Stage 4, variant source: the transformation genes (Unroll, Hoist, Unguard, Vectorize, WarpReduce,
// Coarsen, Stage: grammar/grammar.hpp) applied to a variant's text after its edits and other genes,
// so a transformation rewrites the code as the edits left it: an unrolled body copies the edited
// statements. Each transformation checks its premise again on that text (grammar/loop_shape.hpp,
// grammar/vector_load.hpp, grammar/warp_reduce.hpp, grammar/thread_coarsen.hpp,
// grammar/shared_stage.hpp); where an edit broke it (a
// `break` copied into the loop, the loop's bound replaced by a load), it is not applied and the
// setting is reported as skipped, as an edit whose target is gone is.
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"

namespace gi {

// A run of the variant's text with the run of the original file it stands for.
struct TextSegment {
    std::size_t begin = 0;  // offset in the original file
    std::string original;   // the original's text there
    std::string text;       // the variant's
    int line = 0;           // the original line it starts on
    std::size_t end() const { return begin + original.size(); }
};

// Rewrites `segments` (the whole file, in order) for the genome's transformation settings, in the
// grammar's gene order. Appends "NAME=VALUE (not applied: why)" to `skipped` for a setting whose
// premise the text no longer meets.
void apply_transforms(const Genome& genome, const Grammar& grammar, std::vector<TextSegment>& segments,
                      std::vector<std::string>& skipped);

}  // namespace gi
