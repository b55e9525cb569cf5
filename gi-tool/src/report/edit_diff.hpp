#pragma once
// Stage "report": what each item of a genome does to the kernel's source, as the lines it changes
// (before and after), for the report's "final genome explained" (issue 21). Pure: genome, grammar
// and the original text in, line hunks out.
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"

namespace gi {

struct DiffHunk {
    int first_line = 0;               // 1-based line of `before`'s first line in the original
    std::vector<std::string> before;  // the original lines the item touches
    std::vector<std::string> after;   // the same lines with the item applied alone
};

struct ItemDiff {
    std::string item;                 // "BLOCK_W=128", "<_k.cu_13>+<_k.cu_10>"
    std::vector<DiffHunk> hunks;      // empty: the item changes no text (a compile flag)
};

// Each of `genome`'s items (in genome_items order) applied alone to the original kernel. Changes
// on the same or adjacent lines share a hunk. Throws what apply_genome throws for an item the
// grammar does not have.
std::vector<ItemDiff> item_diffs(const Genome& genome, const Grammar& grammar, const std::string& original);

}  // namespace gi
