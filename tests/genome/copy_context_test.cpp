#include <gtest/gtest.h>

#include "genome/random_edit.hpp"
#include "genome/validate.hpp"
#include "grammar/build_grammar.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

// helper_copies.cu: a template __device__ helper(col, i) and a template kernel k(out, n, x); both
// have locals named s and i.
class CopyContextTest : public ::testing::Test {
protected:
    Grammar grammar = build_grammar(read_source_file(std::string(GI_TEST_DATA_DIR) + "/genome/helper_copies.cu"), {});
    CopyContext context{grammar};
    const Rule& rule(int line) {
        const Rule* r = grammar.find_rule("_helper_copies.cu_" + std::to_string(line));
        EXPECT_NE(r, nullptr) << line;
        return *r;
    }
};

TEST_F(CopyContextTest, SameFunctionCopiesNeedOnlyScope) {
    EXPECT_TRUE(context.allows(rule(20), rule(16)));
    EXPECT_TRUE(context.allows(rule(7), rule(8)));
    EXPECT_TRUE(context.allows(rule(7), rule(9)));
}

TEST_F(CopyContextTest, AHelpersParameterDoesNotExistInTheKernel) {
    const std::string why = context.problem(rule(17), rule(8));
    EXPECT_NE(why.find("mentions col from the signature of helper"), std::string::npos) << why;
    EXPECT_TRUE(copy_is_scope_safe(rule(17), rule(8))) << "the rule-only check cannot see it";
    EXPECT_FALSE(context.allows(rule(17), rule(8)));
}

TEST_F(CopyContextTest, KernelParametersDoNotExistInTheHelper) {
    EXPECT_NE(context.problem(rule(8), rule(17)).find("mentions x"), std::string::npos);
    const std::string why = context.problem(rule(8), rule(19));
    EXPECT_NE(why.find("mentions n, out"), std::string::npos) << why;
    // threadIdx.x names a member, not the kernel's parameter x; N is a template parameter of both.
    EXPECT_TRUE(context.allows(rule(8), rule(18)));
    EXPECT_EQ(context.problem(rule(8), rule(18)), "");
}

TEST_F(CopyContextTest, CopiesBetweenFunctionsUseNoLocals) {
    // s and i are visible at line 17, but they are the kernel's s and i, not the helper's.
    EXPECT_TRUE(copy_is_scope_safe(rule(17), rule(7)));
    const std::string why = context.problem(rule(17), rule(7));
    // s is the helper's local; i is the helper's parameter, a different variable from the kernel's
    // local i. The first problem found is reported; either makes the copy unsafe.
    EXPECT_EQ(why.rfind("<_helper_copies.cu_7> uses s of helper; in k (where <_helper_copies.cu_17> stands)", 0), 0u)
        << why;
    EXPECT_FALSE(context.allows(rule(17), rule(7)));
}

TEST_F(CopyContextTest, ReturnStaysInItsFunction) {
    const std::string why = context.problem(rule(17), rule(9));
    EXPECT_NE(why.find("return statement stays in its own function"), std::string::npos) << why;
    EXPECT_FALSE(context.allows(rule(17), rule(9)));
}

TEST_F(CopyContextTest, ValidateAndEditDrawingUseIt) {
    const auto problems = validate_genome(parse_genome("<_helper_copies.cu_17>+<_helper_copies.cu_8>"), grammar);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("col"), std::string::npos);
    bool saw_cross_function_copy = false;
    for (const Edit& e : enumerate_legal_edits(grammar, macros_for(Genome{}, grammar))) {
        if (e.op == Edit::Op::Delete || parse_pragma_constant_id(e.source)) continue;
        const Rule* target = grammar.find_rule(e.target);
        const Rule* source = grammar.find_rule(e.source);
        ASSERT_TRUE(target && source) << edit_to_text(e);
        EXPECT_EQ(context.problem(*target, *source), "") << edit_to_text(e);
        saw_cross_function_copy |= target->function != source->function;
    }
    EXPECT_TRUE(saw_cross_function_copy) << "line 18 may go into the helper";
}

}  // namespace
}  // namespace gi
