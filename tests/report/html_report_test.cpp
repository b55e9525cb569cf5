// gi-tool report (issue 21, first part): the HTML page of a run. The charts must hold the run's
// data (a polyline per series with a point per generation), user text must be escaped, the page
// must stay small for a large run, and the command must say what is wrong with a folder that holds
// no run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "../support/search_test_support.hpp"
#include "../support/gi_tool_run.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "report/html_report.hpp"
#include "report/svg_chart.hpp"
#include <tinyxml2.h>

#include "run/evolve.hpp"
#include "run/record_xml.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

int points_of(const std::string& html, const std::string& series) {
    const std::regex re("data-series=\"" + series + "\" data-points=\"([0-9]+)\"");
    std::smatch m;
    return std::regex_search(html, m, re) ? std::stoi(m[1]) : -1;
}

fs::path run_dir(const std::string& name) { return test::fresh_temp_dir("gi-report-test-" + name); }

TEST(HtmlReport, ChartsHoldTheRunsGenerationsAndTheFinalGenomeIsExplained) {
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.002;
    landscape.declared["BLOCK=128"] = FakeEffect::time(0.6);
    landscape.declared["<_k.cu_12>"] = FakeEffect::time(0.7);
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator evaluator(grammar, landscape);
    EvolveOptions options;
    options.population = 16;
    options.generations = 6;
    options.seed = 7;
    options.pre_tune = false;
    const fs::path dir = run_dir("fake");
    RunRecord record = evolve(grammar, evaluator, options, dir, OutMode::Fresh);
    record.settings.emplace_back("note", "<script>alert(1)</script> & more");
    const std::string html = html_report(record, dir.string());
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_EQ(points_of(html, "best so far"), 6);
    EXPECT_EQ(points_of(html, "compiled"), 6);
    EXPECT_EQ(points_of(html, "original&#39;s spread, % of its median"), 6);
    EXPECT_NE(html.find(html_escape(record.final_genome)), std::string::npos);
    EXPECT_NE(html.find("knock-out cost"), std::string::npos);
    EXPECT_EQ(html.find("<script>"), std::string::npos) << "user text is escaped";
    EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"), std::string::npos);
    EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg")) << "nothing is fetched";
    fs::remove_all(dir);
}

TEST(HtmlReport, StaysSmallForALargeRun) {
    RunRecord record;
    for (int g = 0; g < 50; ++g) {
        GenerationRecord generation;
        generation.index = g;
        generation.evaluated = generation.distinct = generation.compiled = 100;
        generation.original = {1.0, 0.01, 10};
        for (int i = 0; i < 100; ++i)
            generation.individuals.push_back({"BLOCK=" + std::to_string(i) + " <_k.cu_" + std::to_string(i) + ">",
                                              EvalStatus::Ok, 0, {0.9, 0.01, 10}, "", i % 3 == 0, 1.1, false});
        generation.accepted = 34;
        generation.best_speedup = 1.1 + g * 0.01;
        record.generations.push_back(generation);
    }
    const std::string html = html_report(record, "big");
    EXPECT_LT(html.size(), 2u << 20) << "5,000 individuals";
    EXPECT_EQ(points_of(html, "best of the generation"), 50);
}

TEST(HtmlReport, TheParameterSweepShowsEachValuesBestSpeedup) {
    RunRecord record;
    record.pre_tune.ran = true;
    for (const auto& [genome, ms] : std::vector<std::pair<std::string, double>>{
             {"BLOCK=64 ROWS=1", 0.5}, {"BLOCK=128 ROWS=1", 0.25}, {"BLOCK=128 ROWS=2", 0.4}, {"BLOCK=<256>", 2.0}}) {
        TunePoint p;
        p.genome = genome;
        p.time = {ms, 0.001, 10};
        p.original = {1.0, 0.001, 10};
        p.accepted = true;
        record.pre_tune.points.push_back(p);
    }
    const std::string html = html_report(record, "sweep");
    EXPECT_NE(html.find("Pre-tuning: speedup per value of each gene"), std::string::npos);
    EXPECT_NE(html.find("<code>128</code></td><td><svg width=\"300\" height=\"12\"><rect class=\"bar\" width=\"240.0\""),
              std::string::npos) << "the best value has the longest bar";
    EXPECT_NE(html.find(">4.00x<"), std::string::npos);  // BLOCK=128: 1.0 / 0.25
    EXPECT_NE(html.find(">2.50x<"), std::string::npos);  // ROWS=2: 1.0 / 0.4
}

TEST(HtmlReport, AnNsga2RunShowsItsParetoFront) {
    RunRecord record;
    record.settings = {{"strategy", "nsga2"}};
    GenerationRecord g;
    g.original = {1.0, 0.01, 10};
    // (time, error): the front is (0.5, 0.1), (0.8, 0), (0.3, 0.5); (0.9, 0.2) and (0.6, 0.3) are beaten.
    for (const auto& [ms, error] : std::vector<std::pair<double, double>>{{0.5, 0.1}, {0.8, 0}, {0.3, 0.5}, {0.9, 0.2}, {0.6, 0.3}})
        g.individuals.push_back({"G", EvalStatus::Ok, error, {ms, 0.01, 10}, "", false, 1 / ms, false});
    g.evaluated = g.distinct = g.compiled = 5;
    record.generations.push_back(g);
    const std::string html = html_report(record, "nsga2");
    EXPECT_EQ(points_of(html, "Pareto front"), 3);
    EXPECT_EQ(points_of(html, "individuals that ran"), 5);
    record.settings = {{"strategy", "gp"}};
    EXPECT_EQ(points_of(html_report(record, "gp"), "Pareto front"), -1) << "only for nsga2 runs";
}

// A run whose minimisation kept BLOCK=128: 2x slower without it.
RunRecord knock_out_bar_record(double reference_error_ms, double candidate_error_ms) {
    RunRecord record;
    record.final_genome = "BLOCK=128";
    record.minimise.ran = true;
    record.minimise.before = record.minimise.after = "BLOCK=128";
    MinimiseStep step;
    step.item = "BLOCK=128";
    step.reference = {1.0, 0.05, 30};
    step.candidate = {2.0, 0.1, 30};
    step.reference_error_ms = reference_error_ms;
    step.candidate_error_ms = candidate_error_ms;
    step.reason = "kept: without it the variant is slower by more than k x the medians' uncertainty";
    record.minimise.steps = {step};
    return record;
}

// The knock-out table's noise bars: the cost without/with the item, its whisker, in a record from
// before the medians' uncertainties were kept, the two timings' spreads combined (here
// 2.0 +- 2 x sqrt(0.05^2 + 0.05^2) = 0.1414).
TEST(HtmlReport, KnockOutCostsHaveNoiseBars) {
    const std::string html = html_report(knock_out_bar_record(NAN, NAN), "run");
    EXPECT_NE(html.find("2.000x <svg class=\"bar\""), std::string::npos) << html;
    EXPECT_NE(html.find("data-ratio=\"2.0000\" data-noise=\"0.1414\""), std::string::npos) << html;
}

// Where the step keeps the uncertainties of the two medians (what minimisation compared), the
// whisker is those combined: 2.0 x sqrt((0.02 / 2)^2 + (0.01 / 1)^2) = 0.0283, not the spreads'.
TEST(HtmlReport, KnockOutNoiseBarsShowTheMediansUncertainty) {
    const std::string html = html_report(knock_out_bar_record(0.01, 0.02), "run");
    EXPECT_NE(html.find("data-ratio=\"2.0000\" data-noise=\"0.0283\""), std::string::npos) << html;
}

// Anneal runs: each block's draw temperatures (seed 003), kept in run.xml per individual.
TEST(HtmlReport, AnAnnealRunShowsItsTemperatures) {
    RunRecord record;
    record.settings = {{"strategy", "anneal"}};
    for (int block = 0; block < 3; ++block) {
        GenerationRecord g;
        g.index = block;
        g.original = {1.0, 0.01, 10};
        for (double t : {0.0, 0.2 / (block + 1), 0.5 / (block + 1), 0.9 / (block + 1)}) {
            IndividualRecord i{"G", EvalStatus::Ok, 0, {0.8, 0.01, 10}, "", t < 0.4, 1.25, false};
            i.temperature = t;  // 0: the starting genome, not drawn
            g.individuals.push_back(i);
        }
        g.evaluated = g.distinct = g.compiled = 4;
        g.accepted = 2;
        record.generations.push_back(g);
    }
    std::string html = html_report(record, "anneal");
    EXPECT_EQ(points_of(html, "median temperature"), 3);
    EXPECT_NE(html.find("data-series=\"median temperature\""), std::string::npos);
    EXPECT_NE(html.find(">0.5<"), std::string::npos) << "the first block's median, 0.5, sets a tick";
    // Through run.xml and back.
    tinyxml2::XMLDocument document;
    ASSERT_EQ(document.Parse(run_record_document(record).c_str()), tinyxml2::XML_SUCCESS);
    const RunRecord read = read_run_record(document.RootElement(), "run.xml");
    EXPECT_DOUBLE_EQ(read.generations[1].individuals[3].temperature, 0.45);
    EXPECT_EQ(read.generations[1].individuals[0].temperature, 0);
    record.settings = {{"strategy", "gp"}};
    EXPECT_EQ(points_of(html_report(record, "gp"), "median temperature"), -1) << "only for anneal runs";
}

TEST(SvgChart, AnEmptyChartSaysSoAndTicksAreRound) {
    EXPECT_NE(svg_line_chart({"t", "x", "y", {}}).find("no data"), std::string::npos);
    const std::string svg = svg_line_chart({"t", "x", "y", {{"s", "#000", {1, 2, 3}, {0.5, 1.5, 2.5}}}});
    EXPECT_NE(svg.find(">0.5<"), std::string::npos) << svg;
    EXPECT_NE(svg.find("points=\""), std::string::npos);
    EXPECT_EQ(points_of(svg, "s"), 3);
}

TEST(ReportCommand, WritesThePageAndNamesAFolderWithoutARun) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator evaluator(grammar, FakeLandscapeOptions{});
    EvolveOptions options;
    options.population = 8;
    options.generations = 2;
    options.pre_tune = false;
    const fs::path dir = run_dir("cli");
    evolve(grammar, evaluator, options, dir, OutMode::Fresh);
    const test::ToolRun ok = test::run_gi_tool("report --out '" + dir.string() + "'");
    EXPECT_EQ(ok.status, 0) << ok.output;
    EXPECT_NE(ok.output.find("wrote " + (dir / "report.html").string()), std::string::npos) << ok.output;
    std::ifstream in(dir / "report.html");
    std::stringstream page;
    page << in.rdbuf();
    EXPECT_EQ(points_of(page.str(), "best so far"), 2);
    const test::ToolRun missing = test::run_gi_tool("report --out '" + (dir / "nothing").string() + "'");
    EXPECT_EQ(missing.status, 1) << missing.output;
    EXPECT_NE(missing.output.find("nothing/run.xml: no run record here"), std::string::npos) << missing.output;
    const test::ToolRun stray = test::run_gi_tool("report '" + dir.string() + "'");
    EXPECT_EQ(stray.status, 2) << stray.output;
    fs::remove_all(dir);
}

TEST(HtmlReport, TheSanitizerGatesRefusalsAreListed) {
    RunRecord record;
    record.evaluator = "cuda";
    record.search_gate_seconds = 2.5;
    GenerationRecord g;
    g.index = 2;
    IndividualRecord refused;
    refused.genome = "<_k.cu_12>";
    refused.status = EvalStatus::SanitizerError;
    refused.detail = "compute-sanitizer memcheck: Invalid __global__ read of size 4 bytes\n at k+0x40";
    IndividualRecord ok;
    ok.genome = "BLOCK=128";
    g.individuals = {refused, ok, refused};  // the repeat is one program
    record.generations = {g};
    record.final_check.note = "gave up '<_k.cu_13>': sanitizer-error racecheck";
    const std::string html = html_report(record, "run");
    EXPECT_NE(html.find("1 program(s) were refused:"), std::string::npos);
    EXPECT_NE(html.find("<tr><td>3</td><td><code>&lt;_k.cu_12&gt;</code></td><td>sanitizer-error: compute-sanitizer memcheck: "
                        "Invalid __global__ read of size 4 bytes</td></tr>"),
              std::string::npos)
        << html.substr(html.find("Sanitizer verdicts"), 900);
    EXPECT_NE(html.find("gave up &#39;&lt;_k.cu_13&gt;&#39;: sanitizer-error racecheck"), std::string::npos);
    record.generations.clear();
    record.search_gate_seconds = 0;
    record.evaluator = "fake";
    EXPECT_NE(html_report(record, "run").find("No sanitizer gate ran in this run's search"), std::string::npos);
}

// As a person sees it: headless Chromium loads the page (its DOM then holds the charts' lines) and
// takes a screenshot that is not blank (a blank page of the same size compresses to far fewer
// bytes). Skips where Chromium is not installed (Debian package chromium).
TEST(HtmlReportInABrowser, ThePageRendersWithItsCharts) {
    std::string chromium;
    for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
        if (fs::exists(candidate)) chromium = candidate;
    if (chromium.empty()) GTEST_SKIP() << "no Chromium here (apt-get install chromium)";
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator evaluator(grammar, FakeLandscapeOptions{});
    EvolveOptions options;
    options.population = 8;
    options.generations = 4;
    options.pre_tune = false;
    const fs::path dir = run_dir("browser");
    const RunRecord record = evolve(grammar, evaluator, options, dir, OutMode::Fresh);
    std::ofstream(dir / "report.html") << html_report(record, dir.string());
    std::ofstream(dir / "blank.html") << "<!DOCTYPE html><html><body></body></html>";
    const std::string flags = " --headless --no-sandbox --disable-gpu --window-size=1000,1400 ";
    auto run = [&](const std::string& arguments, const fs::path& output) {
        const std::string command = "timeout 60 '" + chromium + "'" + flags + arguments + " > '" + output.string() + "' 2>/dev/null";
        return std::system(command.c_str());
    };
    run("--dump-dom 'file://" + (dir / "report.html").string() + "'", dir / "dom.txt");
    std::ifstream dom_file(dir / "dom.txt");
    std::stringstream dom;
    dom << dom_file.rdbuf();
    EXPECT_EQ(points_of(dom.str(), "best so far"), 4) << dom.str().substr(0, 400);
    run("--screenshot='" + (dir / "report.png").string() + "' 'file://" + (dir / "report.html").string() + "'", dir / "log1");
    run("--screenshot='" + (dir / "blank.png").string() + "' 'file://" + (dir / "blank.html").string() + "'", dir / "log2");
    ASSERT_TRUE(fs::exists(dir / "report.png") && fs::exists(dir / "blank.png"));
    EXPECT_GT(fs::file_size(dir / "report.png"), 4 * fs::file_size(dir / "blank.png"));
    fs::remove_all(dir);
}

// A real run (stereo on the H100, bench/results/2026-11-26-issue-16-part3.md section 6), as a user
// renders it with gi-tool report and the kernel: 7 generations in the charts, the final genome's
// source lines, and in a browser a page that is not blank.
TEST(HtmlReportInABrowser, ACommittedH100RunRendersWithItsSourceView) {
    const fs::path dir = run_dir("h100");
    fs::create_directories(dir);
    const fs::path data = fs::path(GI_SOURCE_DIR) / "tests/data/report/h100-stereo-run.xml.gz";
    if (std::system(("gzip -dc '" + data.string() + "' > '" + (dir / "run.xml").string() + "'").c_str()) != 0)
        GTEST_SKIP() << "no gzip to unpack " << data;
    const fs::path kernel = fs::path(GI_SOURCE_DIR) / "kernels/stereo/stereo.cu";
    const test::ToolRun r = test::run_gi_tool(
        "report --out '" + dir.string() + "' '" + kernel.string() + "' --function stereo_kernel --param BLOCK_W=16,32,64,128,256 "
        "--param ROWS_PER_THREAD=1..18,20,24,30,40,48,60 --param XHALO=0,1 --param DPER=1..4 --param STORE_DISPARITY_PIXEL=0,1,2 "
        "--param STORE_MIN_SSD=0,1,2 --param OUT_TYPE=float,int,short --param USE_MUL24=0,1 --flag 'dlcm:-Xptxas -dlcm={ca|cg}' "
        "--block-size BLOCK_W,DPER");
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream page(dir / "report.html");
    std::stringstream html;
    html << page.rdbuf();
    EXPECT_EQ(points_of(html.str(), "best so far"), 7);
    // The run evolved stereo.cu as of b022630; once the kernel is edited the page must say so instead.
    std::ifstream kernel_file(kernel, std::ios::binary);
    std::stringstream kernel_text;
    kernel_text << kernel_file.rdbuf();
    std::ifstream run_file(dir / "run.xml");
    std::stringstream run_text;
    run_text << run_file.rdbuf();
    if (run_text.str().find("value=\"" + sha256_hex(kernel_text.str()) + "\"") != std::string::npos) {
        EXPECT_NE(html.str().find("<span class=\"add\">+ #define ROWS_PER_THREAD 2</span>"), std::string::npos);
        EXPECT_EQ(html.str().find("is not the file this run evolved"), std::string::npos);
    } else {
        EXPECT_NE(html.str().find("is not the file this run evolved"), std::string::npos);
    }

    std::string chromium;
    for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
        if (fs::exists(candidate)) chromium = candidate;
    if (chromium.empty()) GTEST_SKIP() << "no Chromium here (apt-get install chromium)";
    std::ofstream(dir / "blank.html") << "<!DOCTYPE html><html><body></body></html>";
    for (const char* name : {"report", "blank"}) {
        const std::string command = "timeout 60 '" + chromium + "' --headless --no-sandbox --disable-gpu --window-size=1000,1400 "
                                    "--screenshot='" + (dir / (std::string(name) + ".png")).string() + "' 'file://" +
                                    (dir / (std::string(name) + ".html")).string() + "' > /dev/null 2>&1";
        EXPECT_EQ(std::system(command.c_str()), 0) << command;
    }
    ASSERT_TRUE(fs::exists(dir / "report.png") && fs::exists(dir / "blank.png"));
    EXPECT_GT(fs::file_size(dir / "report.png"), 4 * fs::file_size(dir / "blank.png"));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gi
