#pragma once
// Where search gets its code edits. Mutation and initialisation take an EditDrawer so tests can
// drive them with scripted edits; the default is genome/random_edit (legal, scope safe, rules the
// preprocessor removes under the genome's configuration never drawn).
#include <functional>
#include <optional>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "util/rng.hpp"

namespace gi {

// One code edit for `genome` (delete, replace or insert, equally likely where the grammar allows
// each), or nullopt when the grammar has no legal edit under the genome's configuration.
using EditDrawer = std::function<std::optional<Edit>(const Genome& genome, Rng& rng)>;
// Given a generation's parents before it is bred, readies what drawing on them needs, all at once
// (search/ptx_edit_drawer.hpp: their PTX). Draws are the same with or without it.
using DrawPrefetch = std::function<void(const std::vector<Genome>& parents)>;

// The default drawer over `grammar` (which must outlive it).
EditDrawer grammar_edit_drawer(const Grammar& grammar);

// Rules a code edit may target under the genome's configuration (live rules: those the
// preprocessor keeps). Initialisation weighs code against genes by this count.
std::size_t live_rule_count(const Grammar& grammar, const Genome& genome);

}  // namespace gi
