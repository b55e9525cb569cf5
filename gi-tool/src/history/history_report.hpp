#pragma once
// What `gi-tool history` prints, as pure functions over rows read from the database, so the text
// is tested without a terminal: a summary of the run, the best individuals, the family tree of one
// individual, and the failures grouped by cause.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "history/history.hpp"

namespace gi {

// Counts per strategy, status and birth, the options, and the best `best` individuals.
std::string history_summary(const HistoryIdentity& identity, const std::vector<IndividualRow>& rows,
                            std::int64_t evaluations, std::size_t best);

// The `count` individuals with the highest score (ran within the budget: status ok), best first;
// ties keep the earlier individual first.
std::vector<IndividualRow> best_individuals(const std::vector<IndividualRow>& rows, std::size_t count);
std::string best_table(const std::vector<IndividualRow>& best);

// The individual and its ancestors, depth first, one line each, indented two spaces a generation
// back; an ancestor reached twice is printed once and named again as "(#id above)". Lines more than
// kLineageIndentLevels generations back are indented no further and start "[depth N] ", so the text
// grows with the number of ancestors, not their square. Throws gi::Error when `id` is not among
// `rows`.
inline constexpr std::size_t kLineageIndentLevels = 32;
std::string lineage_tree(const std::vector<IndividualRow>& rows, std::int64_t id);

// Failures grouped by status and by the first line of their cause, largest group first, each with
// its count and up to three example individuals.
std::string failure_report(const std::vector<IndividualRow>& rows);

// How the search progressed, for comparing strategies at the same budget: one line per individual
// in completion order, "evaluated wall_s best_speedup", where best_speedup is the best accepted
// speedup so far (0 before any). Rows of tuning and minimisation (strategies "pre-tune",
// "minimise", "post-tune") are left out: they are not the search.
std::string progress_curve(const std::vector<IndividualRow>& rows);

}  // namespace gi
