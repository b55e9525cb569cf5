#pragma once
// What a grammar offers evolution, independent of where the file lives: its functions, rules and
// genes (with their values), as a SHA-256. Two invocations with other --function/--param/--flag
// options differ here, so genomes of one would not mean the same in the other: a checkpoint
// (run.xml) and a run's history database both refuse to mix them.
#include <string>

#include "grammar/grammar.hpp"

namespace gi {

std::string grammar_shape_hash(const Grammar& grammar);

}  // namespace gi
