// svg_chart.hpp - small inline SVG charts for the HTML report (no scripts, no external files):
// horizontal grouped bars (linear or log scale) and a scatter plot (log x).
#pragma once

#include <string>
#include <vector>

namespace pcwtbench {

struct ChartSeries {
    std::string name;
    std::string color;
};

struct BarGroup {
    std::string label;
    std::vector<double> values;      // one per series; <= 0 or NaN: no bar
    std::vector<std::string> colors; // optional: a colour per value instead of the series colour
};

struct BarChart {
    std::string title;
    std::string axis_label;
    std::vector<ChartSeries> series; // a legend is drawn when there are several
    std::vector<BarGroup> groups;
    bool log_scale = false;
    int decimals = 2;
};

struct ScatterPoint {
    double x = 0, y = 0;
    std::string color;
    std::string label;   // drawn beside the point ("" for none)
    std::string tooltip; // shown on hover
    double radius = 4;
    bool hollow = false;
};

struct ScatterChart {
    std::string title, x_label, y_label;
    std::vector<ScatterPoint> points;
    std::vector<ChartSeries> legend;
    std::string note; // a line under the legend (marker meaning)
};

std::string render_bar_chart(const BarChart &chart);
std::string render_scatter(const ScatterChart &chart);

} // namespace pcwtbench
