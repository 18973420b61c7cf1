#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "html_svg.hpp"

namespace runapp::html {

namespace {

constexpr double W = 900, left = 64, right = 16, plot_h = 250;

std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

// The vertical axis: linear from 0, or log10 when the values span more than 10x.
struct Scale {
    bool log = false;
    double lo = 0, hi = 1, top = 0; // data range; pixel y of the plot's top

    // A hostile file's figures may be huge or infinite (1.7e308 makes a log axis' top
    // pow(10, 309) = inf, and the tick loop would never end): the axis spans 1e-30..1e30 at most.
    static double finite(double v) {
        return std::isfinite(v) ? std::clamp(v, 0.0, 1e30) : v > 0 ? 1e30 : 0;
    }
    static Scale of(double min_pos, double max, double top) {
        Scale s;
        s.top = top;
        max = finite(max);
        min_pos = min_pos > 0 ? std::clamp(finite(min_pos), 1e-30, std::max(max, 1e-30)) : 0;
        if (max <= 0)
            return s;
        if (min_pos > 0 && max / min_pos > 10) {
            s.log = true;
            s.lo = std::pow(10, std::floor(std::log10(min_pos)));
            s.hi = std::pow(10, std::ceil(std::log10(max * 1.0001)));
        } else {
            const double raw = max / 5, mag = std::pow(10, std::floor(std::log10(raw)));
            const double step = raw / mag <= 1   ? mag
                                : raw / mag <= 2 ? 2 * mag
                                : raw / mag <= 5 ? 5 * mag
                                                 : 10 * mag;
            s.hi = std::ceil(max * 1.0001 / step) * step;
        }
        return s;
    }
    double y(double v) const {
        double f =
            log ? (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                : v / hi;
        return top + plot_h * (1 - std::clamp(f, 0.0, 1.0));
    }
    std::vector<double> ticks() const {
        std::vector<double> t;
        if (log) {
            for (double v = lo; v <= hi * 1.0001 && t.size() < 64; v *= 10)
                t.push_back(v);
        } else {
            for (int i = 0; i <= 5; ++i)
                t.push_back(hi * i / 5);
        }
        return t;
    }
};

// The grid, tick labels and axis title; returns nothing, draws into `out`.
void axis(std::ostream& out, const Scale& s, const std::string& unit) {
    for (double t : s.ticks()) {
        out << "<line class=\"grid\" x1=\"" << left << "\" x2=\"" << W - right << "\" y1=\""
            << num(s.y(t)) << "\" y2=\"" << num(s.y(t)) << "\"/>"
            << "<text class=\"tick\" x=\"" << left - 6 << "\" y=\"" << num(s.y(t) + 4)
            << "\" text-anchor=\"end\">" << esc(short_number(t)) << "</text>\n";
    }
    out << "<text class=\"axis-title\" transform=\"translate(14," << num(s.top + plot_h / 2)
        << ") rotate(-90)\" text-anchor=\"middle\">" << esc(unit) << (s.log ? " (log scale)" : "")
        << "</text>\n";
}

// How many times the legend wraps to a new row.
int legend_breaks(const std::vector<std::string>& series) {
    double x = left;
    int rows = 0;
    for (const auto& s : series) {
        const double w = 26 + 6.8 * std::min<std::size_t>(s.size(), 60);
        if (x + w > W - right && x > left) {
            x = left;
            ++rows;
        }
        x += w;
    }
    return rows;
}

// The legend's rows: series swatches laid out left to right; returns its height.
double legend(std::ostream& out, const std::vector<std::string>& series, double y0) {
    double x = left, y = y0;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const double w = 26 + 6.8 * std::min<std::size_t>(series[i].size(), 60);
        if (x + w > W - right && x > left) {
            x = left;
            y += 18;
        }
        out << "<rect class=\"s" << i % 8 << "\" x=\"" << num(x) << "\" y=\"" << num(y - 10)
            << "\" width=\"12\" height=\"12\" rx=\"2\"/><text class=\"legend\" x=\"" << num(x + 17)
            << "\" y=\"" << num(y) << "\">" << esc(series[i].substr(0, 60)) << "</text>\n";
        x += w;
    }
    return y - y0 + 18;
}

// Whether the variant names must be slanted so as not to collide.
bool slanted(const std::vector<std::string>& groups) {
    const double gw = (W - left - right) / std::max<std::size_t>(groups.size(), 1);
    std::size_t longest = 0;
    for (const auto& g : groups)
        longest = std::max(longest, std::min<std::size_t>(g.size(), 40));
    return longest * 7.0 > gw;
}

// The height under the plot that the variant names take.
double label_room(const std::vector<std::string>& groups) {
    std::size_t longest = 0;
    for (const auto& g : groups)
        longest = std::max(longest, std::min<std::size_t>(g.size(), 40));
    return slanted(groups) ? 30 + 3.6 * std::min<std::size_t>(longest, 25) : 28;
}

// The variant names under the groups, slanted when they would collide.
void group_labels(std::ostream& out, const std::vector<std::string>& groups, double y) {
    const double gw = (W - left - right) / std::max<std::size_t>(groups.size(), 1);
    const bool slant = slanted(groups);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const double x = left + gw * (g + 0.5);
        out << "<text class=\"label\" x=\"" << num(x) << "\" y=\"" << num(y + 16) << "\"";
        if (slant)
            out << " text-anchor=\"end\" transform=\"rotate(-30 " << num(x) << " " << num(y + 16)
                << ")\"";
        else
            out << " text-anchor=\"middle\"";
        // Slanted names are cut to stay inside the chart (the table has them in full).
        const std::size_t keep = slant ? 22 : 40;
        out << ">" << esc(groups[g].size() > keep ? groups[g].substr(0, keep) + "..." : groups[g])
            << "</text>\n";
    }
}

void open_svg(std::ostream& out, const std::string& id, const std::string& title,
              const std::string& desc, double height) {
    out << "<svg class=\"chart\" role=\"img\" aria-labelledby=\"" << id << "-t " << id
        << "-d\" viewBox=\"0 0 " << W << " " << num(height)
        << "\" xmlns=\"http://www.w3.org/2000/svg\">"
        << "<title id=\"" << id << "-t\">" << esc(title) << "</title><desc id=\"" << id << "-d\">"
        << esc(desc) << "</desc>\n";
}

} // namespace

std::string esc(const std::string& s) {
    std::string o;
    o.reserve(s.size());
    for (char c : s)
        switch (c) {
        case '<':
            o += "&lt;";
            break;
        case '>':
            o += "&gt;";
            break;
        case '&':
            o += "&amp;";
            break;
        case '"':
            o += "&quot;";
            break;
        case '\'':
            o += "&#39;";
            break;
        default:
            o += c;
        }
    return o;
}

std::string short_number(double v) {
    char b[32];
    const double a = std::fabs(v);
    if (a >= 1e6)
        std::snprintf(b, sizeof b, "%.3gM", v / 1e6);
    else if (a >= 1e3)
        std::snprintf(b, sizeof b, "%.3gk", v / 1e3);
    else
        std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

void bar_chart(std::ostream& out, const BarChart& c) {
    double min_pos = 0, max = 0;
    for (const auto& row : c.cells)
        for (const auto& cell : row)
            if (cell.status.empty() && cell.value > 0) {
                for (double v : {cell.value, cell.lo > 0 ? cell.lo : cell.value})
                    min_pos = min_pos > 0 ? std::min(min_pos, v) : v;
                max = std::max({max, cell.value, cell.hi});
            }
    // Legend first (its height sets where the plot starts).
    const double legend_rows = 1 + legend_breaks(c.series);
    const double top = 14 + 18 * legend_rows + 10;
    const Scale s = Scale::of(min_pos, max, top);
    const double bottom = top + plot_h;
    open_svg(out, c.id, c.title, c.desc, bottom + label_room(c.groups));
    legend(out, c.series, 22);
    axis(out, s, c.unit);
    const double gw = (W - left - right) / std::max<std::size_t>(c.groups.size(), 1);
    const double bw = std::min(34.0, gw * 0.8 / std::max<std::size_t>(c.series.size(), 1));
    for (std::size_t g = 0; g < c.groups.size(); ++g)
        for (std::size_t k = 0; k < c.series.size() && k < c.cells[g].size(); ++k) {
            const Cell& cell = c.cells[g][k];
            const double x = left + gw * g + (gw - bw * c.series.size()) / 2 + bw * k;
            if (!cell.status.empty() || !(cell.value > 0)) {
                // No result: a marker on the axis that says why, never a bar.
                const std::string what = cell.status.empty() ? "no time" : cell.status;
                out << "<g class=\"nobar" << (what == "FAIL" ? " failmark" : "") << "\"><title>"
                    << esc(c.series[k] + ", " + c.groups[g] + ": " + what +
                           (cell.tip.empty() ? "" : " — " + cell.tip))
                    << "</title><text x=\"" << num(x + bw / 2 + 3) << "\" y=\"" << num(bottom - 4)
                    << "\" transform=\"rotate(-90 " << num(x + bw / 2 + 3) << " " << num(bottom - 4)
                    << ")\">" << esc(what == "not run" ? "—" : "× " + what) << "</text></g>\n";
                continue;
            }
            const double y = s.y(cell.value);
            out << "<g><title>" << esc(c.series[k] + ", " + c.groups[g] + ": " + cell.tip)
                << "</title>"
                << "<rect class=\"bar s" << k % 8 << (cell.unchecked ? " unchecked" : "")
                << "\" data-status=\"" << (cell.unchecked ? "unverified" : "pass") << "\" x=\""
                << num(x + 1) << "\" y=\"" << num(y) << "\" width=\"" << num(std::max(bw - 2, 1.0))
                << "\" height=\"" << num(std::max(bottom - y, 1.0)) << "\"/>";
            if (cell.lo > 0 && cell.hi > 0 && cell.hi > cell.lo * 1.001) {
                const double cx = x + bw / 2, y1 = s.y(cell.hi), y2 = s.y(cell.lo);
                out << "<path class=\"whisker\" d=\"M" << num(cx) << " " << num(y1) << "V"
                    << num(y2) << "M" << num(cx - 4) << " " << num(y1) << "h8M" << num(cx - 4)
                    << " " << num(y2) << "h8\"/>";
            }
            out << "</g>\n";
        }
    out << "<line class=\"axis\" x1=\"" << left << "\" x2=\"" << W - right << "\" y1=\""
        << num(bottom) << "\" y2=\"" << num(bottom) << "\"/>\n";
    group_labels(out, c.groups, bottom);
    out << "</svg>\n";
}

void ladder_chart(std::ostream& out, const Ladder& c) {
    double min_pos = 0, max = 0;
    for (const auto& row : c.total)
        for (double v : row)
            if (v > 0) {
                min_pos = min_pos > 0 ? std::min(min_pos, v) : v;
                max = std::max(max, v);
            }
    const double legend_rows = 1 + legend_breaks(c.series);
    const double top = 14 + 18 * legend_rows + 10;
    const Scale s = Scale::of(std::min(min_pos, 1.0), std::max(max, 1.0), top);
    const double bottom = top + plot_h;
    open_svg(out, c.id, c.title, c.desc, bottom + label_room(c.groups));
    legend(out, c.series, 22);
    axis(out, s, "speed-up over the first step");
    const double gw = (W - left - right) / std::max<std::size_t>(c.groups.size(), 1);
    const bool labels =
        c.series.size() == 1; // more would collide: the tooltips and table have them
    for (std::size_t k = 0; k < c.series.size(); ++k) {
        bool have = false, gap = false;
        double px = 0, py = 0;
        for (std::size_t g = 0; g < c.groups.size(); ++g) {
            const double v = c.total[k][g];
            if (!(v > 0)) {
                gap = have;
                continue;
            }
            const double x = left + gw * (g + 0.5), y = s.y(v);
            if (have)
                out << "<line class=\"ladder s" << k % 8 << (gap ? " gap" : "") << "\" x1=\""
                    << num(px) << "\" y1=\"" << num(py) << "\" x2=\"" << num(x) << "\" y2=\""
                    << num(y) << "\"/>\n";
            char tip[96];
            std::snprintf(tip, sizeof tip, "total %.2fx, step %.2fx", v, c.step[k][g]);
            out << "<g><title>" << esc(c.series[k] + ", " + c.groups[g] + ": " + tip)
                << "</title><circle class=\"dot s" << k % 8 << "\" cx=\"" << num(x) << "\" cy=\""
                << num(y) << "\" r=\"4.5\"/></g>\n";
            if (labels && have) {
                char b[32];
                std::snprintf(b, sizeof b, "×%.2g", c.step[k][g]);
                out << "<text class=\"steplabel\" x=\"" << num(x) << "\" y=\"" << num(y - 10)
                    << "\" text-anchor=\"middle\">" << b << "</text>\n";
            }
            have = true;
            gap = false;
            px = x;
            py = y;
        }
    }
    out << "<line class=\"axis\" x1=\"" << left << "\" x2=\"" << W - right << "\" y1=\""
        << num(bottom) << "\" y2=\"" << num(bottom) << "\"/>\n";
    group_labels(out, c.groups, bottom);
    out << "</svg>\n";
}

} // namespace runapp::html
