#include <gtest/gtest.h>

#include "genome/random_edit.hpp"
#include "genome/validate.hpp"
#include "grammar/build_grammar.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

// helper_copies.cu: a template __device__ helper(col, i) and a template kernel k(out, n, x); both
// have locals s and i, so only the functions' own parameters tell their statements apart.
class CopyContextTest : public ::testing::Test {
protected:
    Grammar grammar = build_grammar(read_source_file(std::string(GI_TEST_DATA_DIR) + "/genome/helper_copies.cu"), {});
    CopyContext context{grammar};
    const Rule& rule(const std::string& id) {
        const Rule* r = grammar.find_rule(id);
        EXPECT_NE(r, nullptr) << id;
        return *r;
    }
};

TEST_F(CopyContextTest, SameFunctionCopiesNeedOnlyScope) {
    EXPECT_TRUE(context.allows(rule("_helper_copies.cu_15"), rule("_helper_copies.cu_14")));
    EXPECT_TRUE(context.allows(rule("_helper_copies.cu_5"), rule("_helper_copies.cu_6")));
}

TEST_F(CopyContextTest, AHelpersParameterDoesNotExistInTheKernel) {
    const std::string why = context.problem(rule("_helper_copies.cu_13"), rule("_helper_copies.cu_5"));
    EXPECT_NE(why.find("mentions col from the signature of helper"), std::string::npos) << why;
    EXPECT_TRUE(copy_is_scope_safe(rule("_helper_copies.cu_13"), rule("_helper_copies.cu_5")))
        << "the rule-only check cannot see it";
}

TEST_F(CopyContextTest, KernelParametersDoNotExistInTheHelper) {
    EXPECT_NE(context.problem(rule("_helper_copies.cu_5"), rule("_helper_copies.cu_15")).find("mentions x"), std::string::npos);
    EXPECT_NE(context.problem(rule("_helper_copies.cu_5"), rule("_helper_copies.cu_17")).find("mentions out"), std::string::npos);
    // threadIdx.x names a member, not the kernel's parameter x; N is a template parameter of both.
    EXPECT_TRUE(context.allows(rule("_helper_copies.cu_5"), rule("_helper_copies.cu_14")));
    EXPECT_TRUE(context.allows(rule("_helper_copies.cu_5"), rule("_helper_copies.cu_18")));
}

TEST_F(CopyContextTest, ReturnStaysInItsFunction) {
    const std::string why = context.problem(rule("_helper_copies.cu_14"), rule("_helper_copies.cu_6"));
    EXPECT_NE(why.find("return statement stays in its own function"), std::string::npos) << why;
}

TEST_F(CopyContextTest, ValidateAndEditDrawingUseIt) {
    const auto problems = validate_genome(parse_genome("<_helper_copies.cu_13>+<_helper_copies.cu_5>"), grammar);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("col"), std::string::npos);
    for (const Edit& e : enumerate_legal_edits(grammar, macros_for(Genome{}, grammar))) {
        if (e.op == Edit::Op::Delete) continue;
        const Rule* target = grammar.find_rule(e.target);
        const Rule* source = grammar.find_rule(e.source);
        ASSERT_TRUE(target && source) << edit_to_text(e);
        EXPECT_TRUE(context.allows(*target, *source)) << edit_to_text(e);
    }
}

}  // namespace
}  // namespace gi
