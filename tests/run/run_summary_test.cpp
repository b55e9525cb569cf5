// The run summary's count of variants refused for outputs left unwritten (issue 41): from the
// run record's individuals, as a resumed run reads them back too.
#include <gtest/gtest.h>

#include "compare/compare.hpp"
#include "run/run_record.hpp"

namespace gi {
namespace {

IndividualRecord summary_individual(EvalStatus status, const std::string& detail, bool repeat = false) {
    IndividualRecord i;
    i.status = status;
    i.detail = detail;
    i.repeat = repeat;
    return i;
}

TEST(RunSummary, CountsTheVariantsRefusedForOutputsLeftUnwritten) {
    // The detail as the worker's comparison writes it.
    BufferComparison c;
    c.elements = c.mismatches = c.unwritten = 4096;
    c.first_mismatch = 0;
    const std::string unwritten = summarise_comparisons({c}, {"buffer 0 (output, kernel argument 0)"}).detail;
    ASSERT_TRUE(detail_says_unwritten(unwritten)) << unwritten;
    EXPECT_FALSE(detail_says_unwritten("a comment on outputs left unwritten"));
    RunRecord record;
    GenerationRecord g;
    g.individuals = {summary_individual(EvalStatus::WrongAnswer, unwritten),
                     summary_individual(EvalStatus::WrongAnswer, unwritten, true),  // the same program again
                     summary_individual(EvalStatus::WrongAnswer, "buffer 0: 3 of 4096 elements differ, first at 1, "
                                                                 "3 NaN/Inf where the original is finite"),
                     summary_individual(EvalStatus::Ok, "")};
    g.evaluated = 4;
    g.distinct = 3;
    record.generations = {g, g};
    EXPECT_EQ(record.left_outputs_unwritten(), 2);
    const std::string summary = run_summary(record);
    EXPECT_NE(summary.find("left unwritten:      2 variant(s) in search refused"), std::string::npos) << summary;
    record.generations[0].individuals[0].status = EvalStatus::Ok;
    record.generations[1].individuals[0].status = EvalStatus::Ok;
    EXPECT_EQ(run_summary(record).find("left unwritten:"), std::string::npos) << run_summary(record);
}

}  // namespace
}  // namespace gi
