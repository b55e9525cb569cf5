#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "util/format.hpp"

namespace gi {

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

namespace {

// At most this many ticks on an axis, whatever the data: the step below is about a fifth of the
// span, so more means the loop is no longer moving (issue 39: values a few ulps apart once made
// `t += step` stand still and fill memory).
constexpr int kMaxTicks = 12;

// About five round tick values covering [low, high]; none when the span cannot be divided. Finite
// for any finite input, spans that overflow a double included (everything is halved first).
std::vector<double> ticks(double low, double high) {
    if (!std::isfinite(low) || !std::isfinite(high) || !(high > low)) return {};
    const double span = high - low;
    const double raw = std::isfinite(span) ? span / 5 : (high / 2 - low / 2) / 2.5;  // +-1e308 overflow the span
    if (!(raw > 0) || !std::isfinite(raw)) return {};
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 0;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * magnitude >= raw) {
            step = m * magnitude;
            break;
        }
    if (!(step > 0) || !std::isfinite(step)) return {};
    std::vector<double> out;
    const double first = std::ceil(low / step) * step;
    for (int i = 0; i < kMaxTicks; ++i) {
        // From `first` each time, not `t += step`: a step below half an ulp of t never moves it.
        const double t = first + i * step;
        if (!std::isfinite(t) || t > high + step * 1e-9) break;
        if (!out.empty() && !(t > out.back())) break;
        out.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
    }
    return out;
}

// Widens [low, high] when its width is lost in rounding: equal values, or values a few ulps apart
// (1 and 1.0000000000000002; 1e17 and 1e17 + 16). Such a span has no ticks worth printing and
// would put the two values at the two edges; they are drawn as one level in a 20% band instead.
void widen_degenerate(double& low, double& high) {
    const double scale = std::max(std::abs(low), std::abs(high));
    if (high - low > scale * 1e-12) return;
    const double half = std::max(1.0, scale * 0.1);
    const double middle = low / 2 + high / 2;
    low = middle - half;
    high = middle + half;
}

// Where `v` lies between `low` and `high`, 0 to 1, without overflowing when the span is wider
// than the largest double.
double fraction(double v, double low, double high) {
    const double span = high - low;
    if (std::isfinite(span)) return (v - low) / span;
    return (v / 2 - low / 2) / (high / 2 - low / 2);
}

}  // namespace

std::string svg_line_chart(const LineChart& chart) {
    // The legend gets rows of its own under the title, so it never covers a line.
    const double legend_row = 16;
    double legend_width = 0;
    int legend_rows = 1;
    for (const ChartSeries& s : chart.series) {
        const double w = 24 + 6.5 * static_cast<double>(s.name.size());
        if (legend_width > 0 && 64 + legend_width + w > chart.width - 16) {
            ++legend_rows;
            legend_width = 0;
        }
        legend_width += w;
    }
    const double left = 64, right = 16, top = 28 + legend_rows * legend_row, bottom = 48;
    const double plot_w = chart.width - left - right, plot_h = chart.height - top - bottom;
    double x_min = INFINITY, x_max = -INFINITY, y_min = INFINITY, y_max = -INFINITY;
    for (const ChartSeries& s : chart.series)
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
            x_min = std::min(x_min, s.x[i]);
            x_max = std::max(x_max, s.x[i]);
            y_min = std::min(y_min, s.y[i]);
            y_max = std::max(y_max, s.y[i]);
        }
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << chart.width << "\" height=\""
        << chart.height << "\" viewBox=\"0 0 " << chart.width << " " << chart.height << "\">\n"
        << "<text x=\"" << left << "\" y=\"18\" class=\"chart-title\">" << html_escape(chart.title) << "</text>\n";
    if (!std::isfinite(x_min)) {
        svg << "<text x=\"" << left << "\" y=\"" << top + plot_h / 2 << "\" class=\"no-data\">no data</text>\n</svg>\n";
        return svg.str();
    }
    widen_degenerate(x_min, x_max);
    if (y_min > 0 && y_min < y_max * 0.5) y_min = 0;  // show the distance from zero when it is not far
    widen_degenerate(y_min, y_max);
    auto px = [&](double x) { return left + fraction(x, x_min, x_max) * plot_w; };
    auto py = [&](double y) { return top + plot_h - fraction(y, y_min, y_max) * plot_h; };
    svg << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\"" << plot_h
        << "\" fill=\"none\" stroke=\"#999\"/>\n";
    for (double t : ticks(y_min, y_max))
        svg << "<line x1=\"" << left - 4 << "\" x2=\"" << left + plot_w << "\" y1=\"" << py(t) << "\" y2=\"" << py(t)
            << "\" stroke=\"#e5e5e5\"/><text x=\"" << left - 6 << "\" y=\"" << py(t) + 4 << "\" text-anchor=\"end\" class=\"tick\">"
            << significant(t, 4) << "</text>\n";
    for (double t : ticks(x_min, x_max))
        svg << "<line x1=\"" << px(t) << "\" x2=\"" << px(t) << "\" y1=\"" << top + plot_h << "\" y2=\"" << top + plot_h + 4
            << "\" stroke=\"#999\"/><text x=\"" << px(t) << "\" y=\"" << top + plot_h + 16
            << "\" text-anchor=\"middle\" class=\"tick\">" << significant(t, 4) << "</text>\n";
    svg << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << chart.height - 8 << "\" text-anchor=\"middle\" class=\"axis\">"
        << html_escape(chart.x_label) << "</text>\n"
        << "<text x=\"14\" y=\"" << top + plot_h / 2 << "\" text-anchor=\"middle\" class=\"axis\" transform=\"rotate(-90 14 "
        << top + plot_h / 2 << ")\">" << html_escape(chart.y_label) << "</text>\n";
    double legend_x = left;
    double legend_y = 26;
    for (const ChartSeries& s : chart.series) {
        const double w = 24 + 6.5 * static_cast<double>(s.name.size());
        if (legend_x > left && legend_x + w > chart.width - right) {
            legend_x = left;
            legend_y += legend_row;
        }
        std::ostringstream points, markers;
        int count = 0;
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
            points << (count++ ? " " : "") << px(s.x[i]) << "," << py(s.y[i]);
            if (s.points)
                markers << "<circle cx=\"" << px(s.x[i]) << "\" cy=\"" << py(s.y[i]) << "\" r=\"2.5\" fill=\""
                        << html_escape(s.colour) << "\"/>";
        }
        svg << "<polyline class=\"series\" data-series=\"" << html_escape(s.name) << "\" data-points=\"" << count
            << "\" fill=\"none\" stroke=\"" << (s.line ? html_escape(s.colour) : std::string("none"))
            << "\" stroke-width=\"1.5\" points=\"" << points.str()
            << "\"/>\n" << markers.str() << "\n";
        svg << "<rect x=\"" << legend_x << "\" y=\"" << legend_y << "\" width=\"10\" height=\"10\" fill=\""
            << html_escape(s.colour) << "\"/><text x=\"" << legend_x + 14 << "\" y=\"" << legend_y + 9 << "\" class=\"legend\">"
            << html_escape(s.name) << "</text>\n";
        legend_x += w;
    }
    svg << "</svg>\n";
    return svg.str();
}

}  // namespace gi
