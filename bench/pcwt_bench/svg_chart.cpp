// svg_chart.cpp - see svg_chart.hpp.
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>

#include "text_format.hpp"

namespace pcwtbench {

namespace {

const double kWidth = 760;

bool usable(double v, bool log)
{
    return std::isfinite(v) && (log ? v > 0 : v >= 0);
}

// A 1-2-5 step covering span in about n steps.
double nice_step(double span, int n)
{
    if (span <= 0)
        return 1;
    const double raw = span / n;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * p)
            return m * p;
    return 10 * p;
}

std::string tick_text(double v)
{
    if (v >= 1e6)
        return fixed(v / 1e6, 0) + "M";
    if (v >= 1e4)
        return fixed(v / 1e3, 0) + "k";
    if (v >= 1 || v == 0)
        return fixed(v, std::fabs(v - std::round(v)) < 1e-9 ? 0 : 1);
    return fixed(v, v >= 0.1 ? 1 : 2);
}

struct Scale {
    bool log = false;
    double lo = 0, hi = 1;      // data range
    double x0 = 0, x1 = 1;      // pixel range
    double map(double v) const
    {
        const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
        return x0 + std::clamp(t, 0.0, 1.0) * (x1 - x0);
    }
    std::vector<double> ticks() const
    {
        std::vector<double> t;
        if (log) {
            for (double d = lo; d <= hi * 1.0001 && t.size() < 60; d *= 10) {
                t.push_back(d);
                if (hi / lo <= 100 && d * 2 < hi) {
                    t.push_back(d * 2);
                    if (d * 5 < hi)
                        t.push_back(d * 5);
                }
            }
        } else {
            const double step = nice_step(hi - lo, 5);
            for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-6 && t.size() < 60; v += step)
                t.push_back(v);
        }
        return t;
    }
};

Scale make_scale(double mn, double mx, bool log, double x0, double x1, bool from_zero)
{
    Scale s;
    s.log = log;
    s.x0 = x0;
    s.x1 = x1;
    if (!std::isfinite(mn))
        mn = log ? 1 : 0;
    if (!std::isfinite(mx))
        mx = mn;
    if (log) {
        if (!(mn > 0))
            mn = 1;
        if (!(mx > mn))
            mx = mn * 10;
        s.lo = std::pow(10.0, std::floor(std::log10(mn)));
        s.hi = std::pow(10.0, std::ceil(std::log10(mx)));
        if (s.hi <= s.lo)
            s.hi = s.lo * 10;
    } else {
        if (!(mx > 0))
            mx = 1;
        const double lo = from_zero ? 0 : mn;
        const double step = nice_step(mx - lo > 0 ? mx - lo : 1, 5);
        s.lo = from_zero ? 0 : std::floor(lo / step) * step;
        s.hi = std::ceil(mx / step) * step;
        if (s.hi <= s.lo)
            s.hi = s.lo + step;
    }
    return s;
}

std::string num(double v)
{
    return fixed(v, 1);
}

std::string text(double x, double y, const std::string &s, const std::string &extra = "")
{
    return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (extra.empty() ? "" : " " + extra) + ">" +
           xml_escape(s) + "</text>";
}

std::string svg_open(double height, const std::string &title)
{
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + num(kWidth) + "\" height=\"" +
           num(height) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
           "\" role=\"img\" aria-label=\"" + xml_escape(title) + "\">" +
           "<rect x=\"0\" y=\"0\" width=\"" + num(kWidth) + "\" height=\"" + num(height) + "\" fill=\"#ffffff\"/>" +
           text(10, 20, title, "class=\"ctitle\"");
}

const double kLegendLine = 16;

// The legend from baseline y, wrapped onto further lines where it would leave the chart; *lines
// gets the number of lines used.
std::string legend(const std::vector<ChartSeries> &series, double y, int *lines = nullptr)
{
    std::string s;
    double x = 12;
    int n = series.empty() ? 0 : 1;
    for (const ChartSeries &c : series) {
        const double w = 24 + 6.5 * static_cast<double>(c.name.size());
        if (x > 12 && x + w - 10 > kWidth - 10) {
            x = 12;
            y += kLegendLine;
            ++n;
        }
        s += "<rect x=\"" + num(x) + "\" y=\"" + num(y - 9) + "\" width=\"10\" height=\"10\" fill=\"" + c.color + "\"/>";
        s += text(x + 14, y, c.name, "class=\"small\"");
        x += w;
    }
    if (lines)
        *lines = n;
    return s;
}

int legend_lines(const std::vector<ChartSeries> &series)
{
    int n = 0;
    legend(series, 0, &n);
    return n;
}

} // namespace

std::string render_bar_chart(const BarChart &chart)
{
    const double bar_h = 12, bar_gap = 2, group_gap = 12;
    const double left = 170, right = 80;
    const bool has_legend = chart.series.size() > 1;
    const double top = has_legend ? 52 + kLegendLine * (legend_lines(chart.series) - 1) : 34;
    double mn = INFINITY, mx = 0;
    for (const BarGroup &g : chart.groups)
        for (double v : g.values)
            if (usable(v, chart.log_scale)) {
                mn = std::min(mn, v);
                mx = std::max(mx, v);
            }
    const size_t per_group = std::max<size_t>(1, chart.series.size());
    const double group_h = static_cast<double>(per_group) * (bar_h + bar_gap) - bar_gap;
    const double plot_h = static_cast<double>(chart.groups.size()) * (group_h + group_gap);
    const double height = top + plot_h + 44;
    const Scale sc = make_scale(mn, mx, chart.log_scale, left, kWidth - right, true);

    std::string s = svg_open(height, chart.title);
    if (has_legend)
        s += legend(chart.series, 40);
    // Grid and axis.
    const double axis_y = top + plot_h;
    for (double t : sc.ticks()) {
        const double x = sc.map(t);
        s += "<line x1=\"" + num(x) + "\" y1=\"" + num(top - 4) + "\" x2=\"" + num(x) + "\" y2=\"" + num(axis_y) +
             "\" class=\"grid\"/>";
        s += text(x, axis_y + 14, tick_text(t), "class=\"small\" text-anchor=\"middle\"");
    }
    s += "<line x1=\"" + num(left) + "\" y1=\"" + num(axis_y) + "\" x2=\"" + num(kWidth - right) + "\" y2=\"" +
         num(axis_y) + "\" class=\"axis\"/>";
    s += text((left + kWidth - right) / 2, axis_y + 32,
              chart.axis_label + (chart.log_scale ? " (log scale)" : ""), "class=\"small\" text-anchor=\"middle\"");
    // Bars.
    double y = top;
    for (const BarGroup &g : chart.groups) {
        s += text(left - 8, y + group_h / 2 + 4, g.label, "text-anchor=\"end\"");
        for (size_t k = 0; k < g.values.size() && k < per_group; ++k) {
            const double by = y + static_cast<double>(k) * (bar_h + bar_gap);
            const double v = g.values[k];
            const std::string series_name = k < chart.series.size() ? chart.series[k].name : "";
            if (!usable(v, chart.log_scale) || (!chart.log_scale && v <= 0)) {
                s += text(left + 4, by + bar_h - 2, "n/a", "class=\"small muted\"");
                continue;
            }
            const std::string color = k < g.colors.size() && !g.colors[k].empty()
                                          ? g.colors[k]
                                          : (k < chart.series.size() ? chart.series[k].color : "#4477aa");
            const double x1 = sc.map(v);
            s += "<rect x=\"" + num(left) + "\" y=\"" + num(by) + "\" width=\"" + num(std::max(1.0, x1 - left)) +
                 "\" height=\"" + num(bar_h) + "\" fill=\"" + color + "\"><title>" +
                 xml_escape(g.label + (series_name.empty() ? "" : ", " + series_name) + ": " +
                            fixed(v, chart.decimals)) +
                 "</title></rect>";
            s += text(x1 + 4, by + bar_h - 2, fixed(v, chart.decimals), "class=\"small\"");
        }
        y += group_h + group_gap;
    }
    return s + "</svg>";
}

std::string render_scatter(const ScatterChart &chart)
{
    const double left = 60, right = 30, plot_h = 330;
    const double top = 56 + kLegendLine * std::max(0, legend_lines(chart.legend) - 1);
    const double height = top + plot_h + 50;
    double xmn = INFINITY, xmx = 0, ymn = INFINITY, ymx = 0;
    for (const ScatterPoint &p : chart.points) {
        if (!(p.x > 0) || !std::isfinite(p.y))
            continue;
        xmn = std::min(xmn, p.x);
        xmx = std::max(xmx, p.x);
        ymn = std::min(ymn, p.y);
        ymx = std::max(ymx, p.y);
    }
    const Scale xs = make_scale(xmn, xmx, true, left, kWidth - right, false);
    Scale ys = make_scale(std::isfinite(ymn) ? ymn : 0, ymx, false, top + plot_h, top, false);
    std::string s = svg_open(height, chart.title);
    s += legend(chart.legend, 38);
    if (!chart.note.empty())
        s += text(kWidth - right, 38, chart.note, "class=\"small muted\" text-anchor=\"end\"");
    for (double t : xs.ticks()) {
        const double x = xs.map(t);
        s += "<line x1=\"" + num(x) + "\" y1=\"" + num(top) + "\" x2=\"" + num(x) + "\" y2=\"" + num(top + plot_h) +
             "\" class=\"grid\"/>" + text(x, top + plot_h + 14, tick_text(t), "class=\"small\" text-anchor=\"middle\"");
    }
    for (double t : ys.ticks()) {
        const double y = ys.map(t);
        s += "<line x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(kWidth - right) + "\" y2=\"" + num(y) +
             "\" class=\"grid\"/>" + text(left - 6, y + 4, tick_text(t), "class=\"small\" text-anchor=\"end\"");
    }
    s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(kWidth - right - left) +
         "\" height=\"" + num(plot_h) + "\" class=\"frame\"/>";
    s += text((left + kWidth - right) / 2, top + plot_h + 34, chart.x_label + " (log scale)",
              "class=\"small\" text-anchor=\"middle\"");
    s += text(14, top + plot_h / 2, chart.y_label,
              "class=\"small\" text-anchor=\"middle\" transform=\"rotate(-90 14 " + num(top + plot_h / 2) + ")\"");
    struct Box {
        double x0, y0, x1, y1;
    };
    std::vector<Box> labels; // placed label boxes: a new label moves down or up until it is clear
    for (const ScatterPoint &p : chart.points) {
        if (!(p.x > 0) || !std::isfinite(p.y))
            continue;
        const double x = xs.map(p.x), y = ys.map(p.y);
        s += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(p.radius) + "\" " +
             (p.hollow ? "fill=\"#ffffff\" stroke=\"" + p.color + "\" stroke-width=\"2\""
                       : "fill=\"" + p.color + "\" fill-opacity=\"0.8\"") +
             "><title>" + xml_escape(p.tooltip) + "</title></circle>";
        if (!p.label.empty()) {
            const double w = 6.5 * static_cast<double>(p.label.size()), lx = x + p.radius + 3;
            double ly = y - p.radius;
            for (double dy : {0.0, 13.0, -13.0, 26.0, -26.0, 39.0, -39.0}) {
                const Box b{lx, y - p.radius + dy - 10, lx + w, y - p.radius + dy + 2};
                bool clear = true;
                for (const Box &o : labels)
                    clear = clear && (b.x1 < o.x0 || b.x0 > o.x1 || b.y1 < o.y0 || b.y0 > o.y1);
                if (clear) {
                    ly = y - p.radius + dy;
                    labels.push_back(b);
                    break;
                }
            }
            s += text(lx, ly, p.label, "class=\"small\"");
        }
    }
    return s + "</svg>";
}

} // namespace pcwtbench
