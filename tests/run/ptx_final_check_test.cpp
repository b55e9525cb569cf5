// The run's final check and PTX edits (issue 46): the build ships them (the CMake module compiles
// the wrapper through gi-tool nvcc-launcher), so a candidate with them is checked like any other,
// and ships when it passes.
#include <gtest/gtest.h>

#include "evaluate/evaluator.hpp"
#include "evaluate/variant_checker.hpp"
#include "grammar/build_grammar.hpp"
#include "run/final_check.hpp"

namespace gi {
namespace {

// Passes every sanitizer run and validation, and counts the validations.
class PassingPtxChecker : public Evaluator, public VariantChecker {
public:
    EvaluatorTraits traits() const override { return {"passing", 1, true, false}; }
    BatchResult evaluate(const std::vector<Variant>& variants, int) override {
        BatchResult batch;
        batch.results.resize(variants.size());
        return batch;
    }
    VariantChecker* checker() override { return this; }
    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int) override {
        sanitized += static_cast<int>(variants.size());
        return std::vector<EvalResult>(variants.size());
    }
    ValidationReport validate(const Variant& variant) override {
        validated.push_back(genome_to_text(variant.genome));
        ValidationReport report;
        report.cases.resize(1);
        return report;
    }
    int sanitized = 0;
    std::vector<std::string> validated;
};

TEST(PtxFinalCheck, ACandidateWithPtxEditsIsCheckedAndShips) {
    GrammarOptions options;
    options.params = {parse_param_declaration("BLOCK=32,64", "--param")};
    const Grammar grammar = build_grammar(
        make_source_file("k.cu", "#define BLOCK 64\n__global__ void k(float* a) { a[threadIdx.x] = BLOCK; }\n"), options);
    PassingPtxChecker checker;
    const FinalChoice choice = choose_final_genome(
        {parse_genome("BLOCK=32 ptx:del(3) ptx:swap(1,2)"), parse_genome("BLOCK=32"), Genome{}}, checker, grammar, 0, nullptr);
    EXPECT_EQ(genome_to_text(choice.genome), "BLOCK=32 ptx:del(3) ptx:swap(1,2)") << choice.check.note;
    EXPECT_EQ(choice.check.note.find("gave up"), std::string::npos) << choice.check.note;
    EXPECT_EQ(checker.sanitized, 1);
    EXPECT_EQ(checker.validated, (std::vector<std::string>{"BLOCK=32 ptx:del(3) ptx:swap(1,2)"}));
}

}  // namespace
}  // namespace gi
