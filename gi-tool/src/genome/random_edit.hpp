#pragma once
// Random code edits for mutation (seeds 000 8.14.3, 001 3.3.2): delete, replace or insert a
// statement, replace an if condition or a for-header part by another of its kind, set or clear an
// unroll pragma. Only legal edits are drawn: validate_genome accepts each one alone, and edits that
// change nothing (a rule replaced by identical text, an empty pragma deleted) are left out. Rules in
// code the preprocessor removes under the given macros have weight zero, as targets and as sources.
// Pure and deterministic: the same grammar, macros and Rng state give the same edit.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "genome/validate.hpp"
#include "grammar/grammar.hpp"
#include "grammar/preprocessor.hpp"
#include "util/rng.hpp"

namespace gi {

enum class EditWeighting {
    // Each operation (delete, replace, insert) equally likely, then a target rule uniformly among
    // those the operation can change, then a source uniformly: the seeds' mutation.
    OpsEqual,
    // Every legal edit equally likely (replace and insert dominate, as there are many more of them).
    UniformOverEdits,
};

// Every legal single edit of a grammar under one macro configuration. A statement rule can pair
// with every other, so the pairs are counted, not stored: memory stays linear in the rules (a
// 20k-line kernel's space holds counts, not 10^8 pairs) and a draw finds its source by one scan.
// Build it once per configuration and draw from it often.
class EditSpace {
public:
    EditSpace(const Grammar& grammar, const MacroTable& macros);

    std::size_t size() const { return size_; }  // number of legal edits
    bool empty() const { return size_ == 0; }
    std::vector<Edit> enumerate() const;         // all of them, in rule order
    std::optional<Edit> draw(Rng& rng, EditWeighting weighting = EditWeighting::OpsEqual) const;

private:
    // One target and operation, with how many sources it may take (1 for a delete).
    struct Group {
        std::size_t target;
        Edit::Op op;
        std::size_t count;
    };
    // Whether source `s` (a rule index; -1 - n for pragma_Kn) is one the group may take. The one
    // definition both counting and drawing use, so the k-th source is the same in both.
    bool takes(const Group& group, int s) const;
    // Calls `visit(source)` for each source of the group in order until it returns false.
    template <typename Visit>
    void for_each_source(const Group& group, Visit visit) const;
    Edit make_edit(const Group& group, std::size_t choice) const;

    // Shared, not copied per space: a run keeps one space per macro configuration it meets.
    std::shared_ptr<const Grammar> grammar_;
    std::shared_ptr<const CopyContext> copies_;
    std::vector<bool> live_;
    std::vector<Group> groups_;
    std::size_t size_ = 0;
};

// Convenience for a single draw (builds an EditSpace: quadratic time in the number of rules).
std::optional<Edit> draw_random_edit(const Grammar& grammar, const MacroTable& macros, Rng& rng,
                                     EditWeighting weighting = EditWeighting::OpsEqual);
std::vector<Edit> enumerate_legal_edits(const Grammar& grammar, const MacroTable& macros);

// The category an edit falls in, for reports: "delete", "replace", "insert" (statements), "if",
// "for1", "for2", "for3", "pragma" (grammar/rule_kinds.def). "unknown" when the target is not in
// the grammar.
std::string edit_category(const Edit& edit, const Grammar& grammar);
// Every category edit_category() gives but "unknown", in the rule-kind table's order.
std::vector<std::string> edit_categories();

}  // namespace gi
