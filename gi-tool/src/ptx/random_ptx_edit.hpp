#pragma once
// Stage ptx: random PTX edits (GEVO's mutations, seed 002: delete, copy, move, swap an instruction,
// replace an operand), drawn so that most of them assemble: both instructions of an edit lie in
// one function; a copied or moved instruction only names registers declared where it lands (a
// call sequence's scoped .param and .reg stay inside their { }); an operand is replaced by a
// register of the same declared type that an earlier instruction of the function writes.
#include <optional>
#include <vector>

#include "genome/genome.hpp"
#include "ptx/ptx_module.hpp"
#include "util/rng.hpp"

namespace gi {

// One edit on the instructions of function `function` (an index into module.functions), or
// nothing when a few draws found none that fits (a function of one instruction, say).
std::optional<Edit> random_ptx_edit(const PtxModule& module, int function, Rng& rng);

// The instructions of function `function`, in text order (their indexes).
std::vector<int> instructions_of(const PtxModule& module, int function);

}  // namespace gi
