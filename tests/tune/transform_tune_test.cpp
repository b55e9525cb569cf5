// The tuner and transformation genes (issue 46): a post-tune sweeps the parameter of each
// transformation its start applies, and only those, so a pre-tune from the empty genome stays
// "the best parameters alone".
#include <gtest/gtest.h>

#include <set>

#include "../grammar/grammar_test_util.hpp"
#include "tune/tune.hpp"

namespace gi {
namespace {

Grammar transform_tune_grammar() {
    GrammarOptions options;
    options.params = {parse_param_declaration("BLOCK=64,128", "--param")};
    return test::grammar_of(
        "#define BLOCK 64\n"
        "__global__ void k(float* x, int n, int m) {\n"
        "    int i = blockIdx.x * BLOCK + threadIdx.x;\n"
        "    for (int j = 0; j < m; ++j) x[i] += j;\n"
        "    for (int j = 0; j < m; ++j) x[i] *= 2;\n"
        "}\n",
        options);
}

std::set<std::string> transform_tune_texts(const Genome& start) {
    const Grammar grammar = transform_tune_grammar();
    Rng rng(1);
    bool sampled = false;
    double size = 0;
    std::set<std::string> texts;
    for (const Genome& point : tune_points(start, grammar, 100, rng, sampled, size)) texts.insert(genome_to_text(point));
    return texts;
}

TEST(TransformTune, APostTuneSweepsTheParameterOfTheTransformationsItsStartApplies) {
    const Grammar grammar = transform_tune_grammar();
    ASSERT_TRUE(grammar.find_gene("unroll_k.cu_4") && grammar.find_gene("unroll_k.cu_5"));
    EXPECT_EQ(tunable_genes(grammar, Genome{}), tunable_genes(grammar));
    EXPECT_EQ(transform_tune_texts(Genome{}), (std::set<std::string>{"BLOCK=128"}));
    EXPECT_EQ(transform_tune_texts(parse_genome("unroll_k.cu_4=4")),
              (std::set<std::string>{"unroll_k.cu_4=4 BLOCK=128", "unroll_k.cu_4=2", "unroll_k.cu_4=2 BLOCK=128",
                                     "unroll_k.cu_4=8", "unroll_k.cu_4=8 BLOCK=128", "", "BLOCK=128"}));
}

}  // namespace
}  // namespace gi
