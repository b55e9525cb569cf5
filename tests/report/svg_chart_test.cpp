// The report's charts for any finite data (issue 39, class 3): values a few ulps apart once made the
// tick loop stand still (`t += step` below half an ulp of t) and fill memory until std::bad_alloc.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "report/svg_chart.hpp"

namespace gi {
namespace {

LineChart chart_of(std::vector<double> x, std::vector<double> y) {
    LineChart chart;
    chart.title = "t";
    chart.x_label = "x";
    chart.y_label = "y";
    chart.series.push_back({"s", "#000", std::move(x), std::move(y)});
    return chart;
}

int tick_labels(const std::string& svg) {
    const std::regex tick("class=\"tick\"");
    return static_cast<int>(std::distance(std::sregex_iterator(svg.begin(), svg.end(), tick), std::sregex_iterator()));
}

// Every coordinate the chart writes is a finite number.
bool coordinates_are_finite(const std::string& svg) {
    const std::regex bad("(nan|inf)", std::regex::icase);
    return !std::regex_search(svg, bad);
}

void expect_a_sane_chart(const LineChart& chart, const std::string& what) {
    const std::string svg = svg_line_chart(chart);
    EXPECT_TRUE(coordinates_are_finite(svg)) << what << "\n" << svg;
    EXPECT_LE(tick_labels(svg), 24) << what << ": at most 12 ticks an axis";
    EXPECT_NE(svg.find("data-points=\""), std::string::npos) << what;
}

TEST(SvgChart, ValuesAFewUlpsApartGiveAChart) {
    const double one_up = std::nextafter(1.0, 2.0);  // 1.0000000000000002
    ASSERT_EQ(one_up, 1.0000000000000002);
    expect_a_sane_chart(chart_of({0, 1, 2, 3}, {1, one_up, 1, one_up}), "y = 1, 1.0000000000000002");
    expect_a_sane_chart(chart_of({1, one_up}, {0, 1}), "x = 1, 1.0000000000000002");
    // Around 1e17 one unit apart: the ulp is 16, so these are neighbours too.
    expect_a_sane_chart(chart_of({0, 1, 2}, {1e17, 1e17 + 16, 1e17 + 32}), "y around 1e17");
    expect_a_sane_chart(chart_of({1e17, 1e17 + 16}, {1, 2}), "x around 1e17");
    const double big = std::numeric_limits<double>::max();
    expect_a_sane_chart(chart_of({0, 1}, {big, std::nextafter(big, 0.0)}), "y at the largest double");
}

TEST(SvgChart, HugeAndTinySpansGiveAChart) {
    const double big = std::numeric_limits<double>::max();
    expect_a_sane_chart(chart_of({0, 1, 2}, {-big, 0, big}), "y from -max to max (the span overflows)");
    expect_a_sane_chart(chart_of({-big, big}, {1, 2}), "x from -max to max");
    expect_a_sane_chart(chart_of({0, 1}, {0, std::numeric_limits<double>::denorm_min()}), "y 0 to the least denormal");
    expect_a_sane_chart(chart_of({0, 1}, {1e-300, 3e-300}), "y around 1e-300");
    expect_a_sane_chart(chart_of({0, 1}, {-5e-324, 5e-324}), "y two denormals");
    expect_a_sane_chart(chart_of({0, 1e6}, {1, 1e300}), "y from 1 to 1e300");
}

TEST(SvgChart, NonFiniteValuesAreLeftOut) {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    expect_a_sane_chart(chart_of({0, 1, 2, 3}, {nan, inf, -inf, 2}), "one finite point among NaN and inf");
    const std::string svg = svg_line_chart(chart_of({0, 1}, {nan, inf}));
    EXPECT_NE(svg.find("no data"), std::string::npos);
}

TEST(SvgChart, OrdinaryDataKeepsRoundTicks) {
    const std::string svg = svg_line_chart(chart_of({0, 1, 2, 3, 4}, {0.5, 1, 1.5, 2, 2.5}));
    EXPECT_NE(svg.find(">0.5<"), std::string::npos);
    EXPECT_NE(svg.find(">2.5<"), std::string::npos);
    EXPECT_GE(tick_labels(svg), 8);
}

}  // namespace
}  // namespace gi
