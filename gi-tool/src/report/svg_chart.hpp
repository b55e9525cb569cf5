#pragma once
// Charts drawn as inline SVG text, for reports that must open offline and in CI artifacts (nothing
// fetched, no script). Pure functions of their data.
#include <string>
#include <vector>

namespace gi {

struct ChartSeries {
    std::string name;              // in the legend
    std::string colour;            // an SVG colour, e.g. "#1f77b4"
    std::vector<double> x, y;      // same length; non-finite y values are left out
    bool points = true;            // a marker at each point as well as the line
    bool line = true;              // false: markers only (a scatter)
};

struct LineChart {
    std::string title;
    std::string x_label, y_label;
    std::vector<ChartSeries> series;
    int width = 640, height = 300;
};

// The chart as one <svg> element: axes with ticks, a polyline per series (a <circle> per point
// when asked), the legend. Text is escaped. An empty chart says "no data".
std::string svg_line_chart(const LineChart& chart);

// Text safe inside HTML and SVG element content and attribute values.
std::string html_escape(const std::string& text);

}  // namespace gi
