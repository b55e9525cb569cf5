#pragma once
// Internal to the grammar stage: the configuration genes of a kernel (user parameters, #if guards,
// compile flags) and its header options (__restrict__, volatile shared memory, const scalars,
// __launch_bounds__), each with the source slots whose text its value decides.
#include <string>
#include <vector>

#include "grammar/body.hpp"
#include "grammar/directives.hpp"
#include "grammar/functions.hpp"
#include "grammar/grammar.hpp"
#include "grammar/grammar_options.hpp"
#include "grammar/scan.hpp"

namespace gi::grammar_detail {

struct GeneSlotDraft {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string extra;
};

struct GeneDraft {
    Gene gene;
    std::vector<GeneSlotDraft> slots;
};

struct GeneInputs {
    const Scan& scan;
    const DirectiveFacts& directives;
    const std::vector<FunctionDefinition>& functions;  // selected: kernels first, then helpers
    const BodyFacts& bodies;
    const GrammarOptions& options;
};

// Throws gi::Error for a declared parameter the file does not #define. Appends to `notes` why a
// header gene is not offered.
std::vector<GeneDraft> make_genes(const GeneInputs& inputs, std::vector<std::string>& notes);

}  // namespace gi::grammar_detail
