#pragma once
// What a user declares about a kernel beyond its source: which functions, the tunable parameters,
// compile flags, and the block-size expression that __launch_bounds__ may use.
#include <string>
#include <vector>

namespace gi {

struct ParamDeclaration {
    std::string name;                 // macro name
    std::vector<std::string> values;  // allowed values in declared order
    bool numeric = false;
};

struct FlagDeclaration {
    std::string name;                 // gene name: "use_fast_math", "maxrregcount", "dlcm"
    std::string flag_template;        // "-use_fast_math" (on/off), "-maxrregcount={}", "-Xptxas -dlcm={}"
    std::vector<std::string> values;  // empty for an on/off flag
    bool numeric = false;
};

struct GrammarOptions {
    std::vector<std::string> functions;     // __global__ functions to evolve; empty = every one in the file
    bool include_helpers = true;            // also make rules for __device__ functions they call
    std::vector<ParamDeclaration> params;
    std::vector<FlagDeclaration> flags;
    std::string block_size;                 // "BLOCK_W" or "BLOCK_W,4,1": threads expression for launch bounds
    // Offer the transformation genes (grammar/transforms.hpp). Off measures line edits alone; a
    // genome made without them applies the same with them, since they default to the original.
    bool transforms = true;
};

// Parses "BLOCK_W=32,64,128", "ROWS=1..48", "ROWS=1..18,20,24" (values kept in order, duplicates
// dropped). Throws gi::UsageError naming `argument` (e.g. "--param") when malformed.
ParamDeclaration parse_param_declaration(const std::string& text, const std::string& argument);

// Parses "-use_fast_math", "-maxrregcount={32..255}", "-Xptxas -dlcm={ca|cg}" and, with an explicit
// gene name, "dlcm:-Xptxas -dlcm={ca|cg}". Without a name it is the first option word without dashes
// or '=...'. Throws gi::UsageError naming `argument` when malformed.
FlagDeclaration parse_flag_declaration(const std::string& text, const std::string& argument);

// Whether every value is a whole number ("+7" too) and there is at least one: such a gene is
// numeric (its values sort and step as numbers).
bool all_integers(const std::vector<std::string>& values);

}  // namespace gi
