// `gi-tool history --lineage` on a deep ancestry (issue 39, class 13): the tree was drawn by one
// recursive call per ancestor and each line indented by its depth, so 60,000 generations back
// crashed (SIGSEGV after 3.4 GB) and the text grew with the square of the depth.
#include "history/history_report.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace gi {
namespace {

// Individual i (1..depth) is the mutant of i - 1: one long line of descent.
std::vector<IndividualRow> lineage_chain(std::int64_t depth) {
    std::vector<IndividualRow> rows;
    for (std::int64_t id = 1; id <= depth; ++id) {
        IndividualRow r;
        r.id = id;
        r.genome = "<_k.cu_" + std::to_string(id) + ">";
        r.strategy = "gp";
        r.generation = static_cast<int>(id);
        r.birth = id == 1 ? Birth::Init : Birth::Mutation;
        if (id > 1) r.parents = {id - 1};
        rows.push_back(r);
    }
    return rows;
}

TEST(LineageDepth, A60000DeepAncestryIsPrintedInLinearSpace) {
    constexpr std::int64_t kDepth = 60000;
    const std::string tree = lineage_tree(lineage_chain(kDepth), kDepth);
    std::istringstream lines(tree);
    std::string line, last;
    std::int64_t count = 0;
    std::size_t widest_indent = 0;
    while (std::getline(lines, line)) {
        ++count;
        widest_indent = std::max(widest_indent, line.find_first_not_of(' '));
        last = line;
    }
    EXPECT_EQ(count, kDepth) << "one line an ancestor";
    EXPECT_EQ(widest_indent, 2 * kLineageIndentLevels) << "indentation stops growing";
    EXPECT_LT(tree.size(), static_cast<std::size_t>(kDepth) * 200) << "linear in the depth";
    EXPECT_NE(last.find("[depth 59999] #1 gp gen 1 init"), std::string::npos) << last;
}

TEST(LineageDepth, ShallowTreesKeepTheirIndentationAndSayDeeperLevels) {
    const std::string tree = lineage_tree(lineage_chain(40), 40);
    EXPECT_EQ(tree.rfind("#40 gp gen 40 mutation of #39", 0), 0u) << tree;
    EXPECT_NE(tree.find("\n" + std::string(2 * 32, ' ') + "#8 gp gen 8"), std::string::npos) << tree;
    EXPECT_NE(tree.find("\n" + std::string(2 * 32, ' ') + "[depth 33] #7 gp gen 7"), std::string::npos) << tree;
}

}  // namespace
}  // namespace gi
