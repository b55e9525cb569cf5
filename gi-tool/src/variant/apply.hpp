#pragma once
// Stage 4, variant source: genome + grammar -> the kernel file a compiler sees. Pure and
// deterministic. Edits apply left to right; an edit whose target an earlier edit deleted or
// replaced away is skipped (as in the seeds) and reported, never an error.
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "grammar/liveness.hpp"
#include "grammar/preprocessor.hpp"

namespace gi {

struct AppliedVariant {
    std::string source;                        // starts with "// gi-optimize variant: <genome>\n" (headed())
    std::vector<std::string> compile_options;  // from Flag genes, in gene order, e.g. "-use_fast_math"
    std::vector<std::string> skipped_edits;    // text of edits that no longer applied
};

// `text` with `first_line` (and a newline) put before it, after the UTF-8 byte order mark `text`
// starts with, if any: compilers take a byte order mark only as a file's first bytes, and one at
// the start of a variant's second line made it fail to compile ("stray '#'").
std::string headed(const std::string& first_line, const std::string& text);

// Throws gi::Error when the genome names a gene or rule the grammar lacks (validate first to get
// every problem at once).
AppliedVariant apply_genome(const Genome& genome, const Grammar& grammar);

// One slot of the original file whose text a variant changes: bytes [begin, end) of the original
// replaced by `text` (begin == end: text inserted there, e.g. a guard's new #define).
struct SourceChange {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string text;
    int line = 0;  // the slot's line in the original
};

// The genome's variant as changes to the original file, in file order: every rule and gene slot
// whose text differs. Applying them to the original gives apply_genome's source without its first
// line; two registrations of one file combine through these (variant/compose.hpp).
std::vector<SourceChange> variant_changes(const Genome& genome, const Grammar& grammar);

// Macro values the genome's configuration implies: the file's own macros with Param and Guard
// genes applied. Used to tell which rules the preprocessor keeps.
MacroTable macros_for(const Genome& genome, const Grammar& grammar);

}  // namespace gi
