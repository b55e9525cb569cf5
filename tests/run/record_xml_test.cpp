// run.xml's record, declared once (record_xml.cpp's fields() functions) for writing and reading:
// every field of every record type, set away from its default, comes back; records written before a
// field existed read with its default.
#include "run/record_xml.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "util/error.hpp"

namespace gi {
namespace {

// Every field away from its default value (and two of each repeated element, differing), so a
// field written but not read, or read into the wrong member, changes the document written back.
RunRecord every_field_set() {
    RunRecord r;
    r.settings = {{"seed", "5"}, {"population", "40"}};
    r.evaluator = "cuda";
    r.measures_time = false;
    r.base_genome = "BLOCK=64";
    auto tune = [](TuneResult& t, int k) {
        t.ran = true;
        t.note = "swept " + std::to_string(k);
        t.case_index = k;
        t.space_size = 1e20 + k;
        t.sampled = true;
        t.start = "BLOCK=" + std::to_string(k);
        t.best = "BLOCK=" + std::to_string(2 * k);
        t.start_time = {1.0 / 3.0 + k, 0.01, 5 + k};
        t.best_time = {0.2, 0.001, 6 + k};
        t.original = {0.4, std::numeric_limits<double>::quiet_NaN(), 7};
        for (int p = 0; p < 2; ++p) {
            TunePoint point;
            point.genome = "BLOCK=" + std::to_string(8 << p);
            point.status = p ? EvalStatus::Timeout : EvalStatus::WrongAnswer;
            point.error = 0.5 + p;
            point.time = {0.3 + p, 0.03, 3};
            point.start = {0.31, 0.031, 4};
            point.original = {0.32, std::numeric_limits<double>::infinity(), 5};
            point.gain = 1.5 + p;
            point.accepted = p == 1;
            t.points.push_back(point);
        }
    };
    tune(r.pre_tune, 1);
    tune(r.post_tune, 2);
    for (int k = 0; k < 2; ++k) {
        GenerationRecord g;
        g.index = k + 1;
        g.case_index = k + 2;
        g.original = {1.25, 0.0125, 9};
        g.evaluated = 10 + k;
        g.distinct = 9;
        g.compiled = 8;
        g.accepted = 7;
        g.best_speedup = 1.25 / 0.7;
        g.best_genome = "<_k.cu_12>";
        for (int i = 0; i < 2; ++i) {
            IndividualRecord ind;
            ind.genome = "<_k.cu_1" + std::to_string(i) + ">";
            ind.status = i ? EvalStatus::Crash : EvalStatus::SanitizerError;
            ind.error = 1.0 / 16777216.0 + i;
            ind.time = {0.7 + i, 0.007, 5};
            ind.detail = "k.cu(12): error <&> \"x\"\nsecond line";
            ind.accepted = true;
            ind.speedup = 1.7 + i;
            ind.repeat = true;
            ind.temperature = 0.25 + i;
            g.individuals.push_back(ind);
        }
        r.generations.push_back(g);
    }
    r.best = {true, "<_k.cu_12>", 2.5, 3, 4, {1.0, 0.1, 5}, {0.4, 0.04, 5}, 0.125, 6, "wrong on case 2",
              3.25, 3, "speed not confirmed: the time limit came first"};
    r.minimise.ran = true;
    r.minimise.note = "minimised";
    r.minimise.case_index = 5;
    r.minimise.before = "<_k.cu_12> <_k.cu_13>";
    r.minimise.after = "<_k.cu_12>";
    r.minimise.before_time = {0.5, 0.05, 15};
    for (int k = 0; k < 2; ++k) {
        MinimiseStep step;
        step.item = "<_k.cu_1" + std::to_string(k) + ">";
        step.pass = 2 + k;
        step.removed = true;
        step.reason = "removed: no loss";
        step.reference = {0.5, 0.05, 15};
        step.candidate = {0.501, 0.05, 15};
        step.status = EvalStatus::Timeout;
        step.error = 0.75;
        r.minimise.steps.push_back(step);
    }
    r.final_check = {true, "validated", true, "validated 2 cases", 123456789012LL, 7, 1e-7};
    r.final_genome = "<_k.cu_12>";
    r.stop_reason = "time limit";
    r.finished = true;
    r.wall_seconds = 12.5;
    r.search_evaluate_seconds = 3.25;
    r.search_gate_seconds = 4.5;
    r.search_gate_alongside_seconds = 30.25;
    r.search_gate_turn_wait_seconds = 8.5;
    r.search_gate_delay_seconds = 2.75;
    r.search_gate_join_seconds = 0.125;
    r.search_gate_discarded_seconds = 3.5;
    r.guesses_kept = 20;
    r.guesses_discarded = 2;
    r.pre_tune_seconds = 4.5;
    r.search_seconds = 40.25;
    r.confirm_seconds = 1.5;
    r.minimise_seconds = 2.75;
    r.post_tune_seconds = 5.5;
    r.final_check_seconds = 12.125;
    return r;
}

RunRecord read_document(const std::string& text) {
    tinyxml2::XMLDocument document;
    EXPECT_EQ(document.Parse(text.c_str()), tinyxml2::XML_SUCCESS);
    return read_run_record(document.RootElement(), "run.xml");
}

TEST(RecordXml, EveryFieldRoundTrips) {
    const RunRecord r = every_field_set();
    const std::string text = run_record_document(r);
    const RunRecord back = read_document(text);
    EXPECT_EQ(run_record_document(back), text);
    // And by value, where the records compare.
    EXPECT_EQ(back.settings, r.settings);
    ASSERT_EQ(back.generations.size(), 2u);
    EXPECT_TRUE(back.generations[1] == r.generations[1]);
    EXPECT_EQ(back.generations[0].individuals[0].error, 1.0 / 16777216.0);
    EXPECT_EQ(back.best.refused, 6);
    EXPECT_EQ(back.best.last_refusal, "wrong on case 2");
    EXPECT_EQ(back.best.search_speedup, 3.25);
    EXPECT_EQ(back.best.confirm_repeats, 3);
    EXPECT_EQ(back.best.confirm_note, "speed not confirmed: the time limit came first");
    EXPECT_EQ(back.minimise.steps[1].pass, 3);
    EXPECT_EQ(back.post_tune.points[1].status, EvalStatus::Timeout);
    EXPECT_TRUE(std::isnan(back.pre_tune.original.spread_ms));
    EXPECT_EQ(back.final_check.elements, 123456789012LL);
    EXPECT_EQ(back.search_gate_seconds, 4.5);
    // The overlapped gate's parts (wall element): a resumed run adds to them.
    EXPECT_EQ(back.search_gate_alongside_seconds, 30.25);
    EXPECT_EQ(back.search_gate_turn_wait_seconds, 8.5);
    EXPECT_EQ(back.search_gate_delay_seconds, 2.75);
    EXPECT_EQ(back.search_gate_join_seconds, 0.125);
    EXPECT_EQ(back.search_gate_discarded_seconds, 3.5);
    EXPECT_EQ(back.guesses_kept, 20);
    EXPECT_EQ(back.guesses_discarded, 2);
    EXPECT_EQ(back.pre_tune_seconds, 4.5);
    EXPECT_EQ(back.search_seconds, 40.25);
    EXPECT_EQ(back.confirm_seconds, 1.5);
    EXPECT_EQ(back.minimise_seconds, 2.75);
    EXPECT_EQ(back.post_tune_seconds, 5.5);
    EXPECT_EQ(back.final_check_seconds, 12.125);
}

// Attributes added after the format's first version may be missing from older records.
TEST(RecordXml, OlderRecordsReadWithDefaults) {
    RunRecord r = every_field_set();
    r.minimise.steps[0].pass = 1;
    r.generations[0].individuals[0].temperature = 0;
    const std::string text = run_record_document(r);
    EXPECT_EQ(text.find("pass=\"1\""), std::string::npos) << "a first pass is not written";
    tinyxml2::XMLDocument document;
    ASSERT_EQ(document.Parse(text.c_str()), tinyxml2::XML_SUCCESS);
    tinyxml2::XMLElement* root = document.RootElement();
    root->FirstChildElement("best")->DeleteAttribute("refused");
    root->FirstChildElement("best")->DeleteAttribute("last-refusal");
    for (const char* name : {"search-speedup", "confirm-repeats", "confirm-note"})
        root->FirstChildElement("best")->DeleteAttribute(name);
    root->FirstChildElement("final")->DeleteAttribute("finished");
    root->FirstChildElement("wall")->DeleteAttribute("search-evaluate-seconds");
    root->FirstChildElement("wall")->DeleteAttribute("search-gate-seconds");
    const RunRecord old = read_run_record(root, "run.xml");
    EXPECT_EQ(old.best.refused, 0);
    EXPECT_EQ(old.best.last_refusal, "");
    EXPECT_EQ(old.best.search_speedup, 0);
    EXPECT_EQ(old.best.confirm_repeats, 0) << "an older best reads as not measured again";
    EXPECT_EQ(old.best.confirm_note, "");
    EXPECT_FALSE(old.finished) << "an older record reads as unfinished";
    EXPECT_EQ(old.search_evaluate_seconds, 0);
    EXPECT_EQ(old.search_gate_seconds, 0);
    EXPECT_EQ(old.minimise.steps[0].pass, 1);
    EXPECT_EQ(old.minimise.steps[1].pass, 3);
    EXPECT_EQ(old.generations[0].individuals[0].temperature, 0);
    EXPECT_EQ(old.generations[0].individuals[1].temperature, 1.25);
}

TEST(RecordXml, AMissingFieldIsNamedWithItsLine) {
    const std::string text = run_record_document(every_field_set());
    tinyxml2::XMLDocument document;
    ASSERT_EQ(document.Parse(text.c_str()), tinyxml2::XML_SUCCESS);
    document.RootElement()->FirstChildElement("generations")->FirstChildElement("generation")
        ->FirstChildElement("individual")->DeleteAttribute("speedup");
    try {
        read_run_record(document.RootElement(), "run.xml");
        FAIL() << "a record without an individual's speedup was read";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("run.xml:"), std::string::npos) << what;
        EXPECT_NE(what.find("<individual> lacks the attribute 'speedup'"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace gi
