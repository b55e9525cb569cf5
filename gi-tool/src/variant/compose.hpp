#pragma once
// Stage 4, variant source, for a file with several registered kernels: each registration evolves
// alone against the original file, and the build compiles one file, so their variants are put
// together here. Pure: texts in, text out.
//
// Only what each registration was checked with may reach its kernel. A registration's variant is
// left out (its code stays the original's) when
//   - its changes overlap an earlier registration's, which is used (the same slot, e.g. one
//     #define both tune);
//   - a macro it changes reaches code outside its own functions (`macro_conflict`, decided by the
//     caller from the file: grammar/macro_reach.hpp);
//   - its compile options are not those every other part of the file is compiled with: options
//     apply to the whole file, so they must be the same for every registration, the original code
//     of a left-out registration counting as no options.
// Earlier registrations win; the order is the registrations' order, so the result is the same on
// every build.
#include <string>
#include <vector>

#include "variant/apply.hpp"

namespace gi {

struct VariantPart {
    std::string name;                          // how people name the registration ("final_sum")
    bool has_variant = false;                  // false: a missing or refused entry, the original code
    std::string genome_text;                   // for the variant's first line
    std::vector<SourceChange> changes;         // variant_changes() of its genome
    std::vector<std::string> compile_options;  // its flag genes' options
    std::string macro_conflict;                // non-empty: why its macro changes may not be used
};

struct ComposedVariant {
    std::string source;                        // "// gi-optimize variant: a: G1; b: (original)\n" + text
    std::vector<std::string> compile_options;  // of the variants used (all the same)
    std::vector<bool> used;                    // per part: its variant is in `source`
    std::vector<std::string> left_out;         // per part: why a variant it has is not used ("" if used)
};

ComposedVariant compose_variants(const std::string& original, const std::vector<VariantPart>& parts);

}  // namespace gi
