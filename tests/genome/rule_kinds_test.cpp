// The rule-kind table (grammar/rule_kinds.def) is what ids, validation, the edits mutation draws
// and the reports' categories follow: a row's flags say which edits its slots take, and nothing
// else may say otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "genome/random_edit.hpp"
#include "genome/validate.hpp"
#include "hand_grammar.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

bool kind_takes(const RuleKindInfo& kind, Edit::Op op) {
    return op == Edit::Op::Replace || (op == Edit::Op::Delete && kind.may_delete) ||
           (op == Edit::Op::Insert && kind.may_insert);
}

TEST(RuleKinds, TheTableIsTheEnumInOrderWithDistinctPrefixes) {
    std::set<std::string_view> prefixes;
    for (std::size_t i = 0; i < rule_kinds().size(); ++i) {
        const RuleKindInfo& kind = rule_kinds()[i];
        EXPECT_EQ(static_cast<std::size_t>(kind.kind), i);
        EXPECT_EQ(&rule_kind_info(kind.kind), &kind);
        EXPECT_EQ(rule_kind_prefix(kind.kind), kind.prefix);
        EXPECT_TRUE(prefixes.insert(kind.prefix).second) << kind.prefix;
        EXPECT_FALSE(kind.words.empty() || kind.label.empty()) << kind.prefix;
    }
    EXPECT_EQ(edit_categories(),
              (std::vector<std::string>{"delete", "replace", "insert", "if", "for1", "for2", "for3", "pragma"}));
}

TEST(RuleKinds, EditsDrawnAndEditsAcceptedAreTheOnesTheTableAllows) {
    const Grammar grammar = testing::sample_kernel().build();
    const std::vector<std::string> categories = edit_categories();
    std::set<RuleKind> seen;
    for (const Edit& edit : enumerate_legal_edits(grammar, macros_for(Genome{}, grammar))) {
        const RuleKindInfo& kind = rule_kind_info(grammar.find_rule(edit.target)->kind);
        seen.insert(kind.kind);
        EXPECT_TRUE(kind_takes(kind, edit.op)) << edit_to_text(edit);
        EXPECT_NE(std::find(categories.begin(), categories.end(), edit_category(edit, grammar)), categories.end())
            << edit_to_text(edit);
    }
    EXPECT_GE(seen.size(), 3u) << "the sample kernel's edits span statements, conditions and pragmas";
    // Every slot, every operation: validation refuses exactly what the table does not allow,
    // naming the kind in the table's words.
    for (const Rule& rule : grammar.rules) {
        const RuleKindInfo& kind = rule_kind_info(rule.kind);
        for (const Edit::Op op : {Edit::Op::Delete, Edit::Op::Insert}) {
            Edit edit{op, rule.id, op == Edit::Op::Delete ? "" : rule.id};
            const std::vector<GenomeProblem> problems = validate_genome(Genome{{}, {edit}}, grammar);
            const bool refused_by_kind =
                !problems.empty() && problems[0].message.find(std::string(kind.words) + "; it may only be") != std::string::npos;
            EXPECT_EQ(refused_by_kind, !kind_takes(kind, op)) << edit_to_text(edit);
        }
    }
}

}  // namespace
}  // namespace gi
