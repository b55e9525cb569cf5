#pragma once
// Stage ptx: a genome's PTX edits (genome.hpp, "ptx:...") applied to the PTX its source part
// compiles to. Pure. Instructions are named by their index in that unedited PTX, whatever earlier
// edits did, so each edit means the same with or without the others (minimisation drops them one
// at a time). As with source edits, an edit whose instruction an earlier one deleted is skipped
// and reported, never an error; a copy is always of the instruction as it was in the unedited PTX.
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "ptx/ptx_module.hpp"

namespace gi {

struct PtxEditResult {
    std::string ptx;                   // the edited module's text
    std::vector<std::string> skipped;  // text of the edits that no longer applied
};

// The genome's PTX edits, in order.
std::vector<Edit> ptx_edits_of(const Genome& genome);

// Applies `edits` (PTX edits only) in order to `base`. Throws gi::Error naming the edit and the
// instruction when one cannot mean anything in this PTX: an index past its instructions, two
// instructions of different functions, a read operand it lacks, a register not declared where the
// instruction is or of another type than the one it replaces.
PtxEditResult apply_ptx_edits(const PtxModule& base, const std::vector<Edit>& edits);

// Why a build that compiles the wrapper from source alone leaves out a variant whose `genome` has
// PTX edits: they would be dropped without a word. They ship only where the wrapper's compile runs
// through `gi-tool nvcc-launcher` (cache apply --ptx-edits; the CMake module sets it up where it
// can and says when it cannot). "" when it has none.
std::string ptx_edits_refusal(const Genome& genome);

}  // namespace gi
