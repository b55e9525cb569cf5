#pragma once
// A line chart as values: what a page should draw, not how. Strategies say which charts of a run
// they want in its report (search/strategy_table.hpp) and report/svg_chart.hpp draws them.
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

}  // namespace gi
