// run.xml keeps, for each minimisation step, the uncertainty of each median that the decision
// compared (median-error-ms on <reference> and <candidate>), so a reader can check it:
// the item stayed when candidate - reference > k x sqrt(candidate_error^2 + reference_error^2).
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <cmath>

#include "minimise/minimise.hpp"
#include "run/record_xml.hpp"

namespace gi {
namespace {

RunRecord minimise_record_with_errors() {
    RunRecord record;
    record.minimise.ran = true;
    record.minimise.before = "<_k.cu_10>";
    MinimiseStep step;
    step.item = "<_k.cu_10>";
    step.reason = "kept: without it the variant is slower by more than k x the medians' uncertainty";
    step.reference = {1.0, 0.5, 30};
    step.candidate = {1.5, 0.75, 30};
    step.reference_error_ms = 0.125;
    step.candidate_error_ms = 0.25;
    record.minimise.steps = {step};
    return record;
}

TEST(MinimiseRecord, EachSidesMedianErrorIsWrittenAndReadBack) {
    const std::string text = run_record_document(minimise_record_with_errors());
    tinyxml2::XMLDocument document;
    ASSERT_EQ(document.Parse(text.c_str()), tinyxml2::XML_SUCCESS);
    const tinyxml2::XMLElement* step = document.RootElement()->FirstChildElement("minimise")->FirstChildElement("step");
    ASSERT_NE(step, nullptr) << text;
    EXPECT_STREQ(step->FirstChildElement("reference")->Attribute("median-error-ms"), "0.125") << text;
    EXPECT_STREQ(step->FirstChildElement("candidate")->Attribute("median-error-ms"), "0.25") << text;
    EXPECT_STREQ(step->FirstChildElement("candidate")->Attribute("median-ms"), "1.5") << text;
    const RunRecord back = read_run_record(document.RootElement(), "run.xml");
    ASSERT_EQ(back.minimise.steps.size(), 1u);
    EXPECT_EQ(back.minimise.steps[0].reference_error_ms, 0.125);
    EXPECT_EQ(back.minimise.steps[0].candidate_error_ms, 0.25);
    EXPECT_EQ(back.minimise.steps[0].candidate.repetitions, 30);
}

// Records from before the errors were kept (the rule then compared the spreads) read as NaN.
TEST(MinimiseRecord, AnOlderStepWithoutMedianErrorsReadsAsUnknown) {
    const std::string text = run_record_document(minimise_record_with_errors());
    tinyxml2::XMLDocument document;
    ASSERT_EQ(document.Parse(text.c_str()), tinyxml2::XML_SUCCESS);
    tinyxml2::XMLElement* step = document.RootElement()->FirstChildElement("minimise")->FirstChildElement("step");
    step->FirstChildElement("reference")->DeleteAttribute("median-error-ms");
    step->FirstChildElement("candidate")->DeleteAttribute("median-error-ms");
    const RunRecord old = read_run_record(document.RootElement(), "run.xml");
    ASSERT_EQ(old.minimise.steps.size(), 1u);
    EXPECT_TRUE(std::isnan(old.minimise.steps[0].reference_error_ms));
    EXPECT_TRUE(std::isnan(old.minimise.steps[0].candidate_error_ms));
    EXPECT_EQ(old.minimise.steps[0].reference.median_ms, 1.0);
}

}  // namespace
}  // namespace gi
