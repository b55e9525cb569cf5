#pragma once
// Charts drawn as inline SVG text, for reports that must open offline and in CI artifacts (nothing
// fetched, no script). Pure functions of their data.
#include <string>

#include "util/line_chart.hpp"

namespace gi {

// The chart as one <svg> element: axes with ticks, a polyline per series (a <circle> per point
// when asked), the legend. Text is escaped. An empty chart says "no data".
std::string svg_line_chart(const LineChart& chart);

// Text safe inside HTML and SVG element content and attribute values.
std::string html_escape(const std::string& text);

}  // namespace gi
