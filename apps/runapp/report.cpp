#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <tuple>

#include <duet/duet.hpp>

#include "output.hpp"
#include "report.hpp"

namespace runapp {

namespace {

using duet::apps::Result;

// Results of one app at one size, in the order they ran: one row per step, whatever launch
// shape each device chose (the shape is said in the row's label, or in each cell where the
// devices differ: shape_of).
struct Group {
    std::string app, size;
    std::vector<std::string> variants, devices;
    std::map<std::pair<std::string, std::string>, const Result*> cell; // (variant, device)
};

std::vector<Group> group(std::vector<Result>& results) {
    label_repeated_rows(results); // one cell per key: a repeated key's rows are rows of their own
    std::vector<Group> groups;
    // First-seen order, found through sets and maps: a file of many names stays n log n.
    std::map<std::pair<std::string, std::string>, std::size_t> at; // (app, size) -> group
    std::set<std::pair<std::size_t, std::string>> variants, devices;
    for (const auto& r : results) {
        const auto [where, added] = at.emplace(std::make_pair(r.app, r.size_label), groups.size());
        if (added)
            groups.push_back({r.app, r.size_label, {}, {}, {}});
        Group& g = groups[where->second];
        const std::string& variant = r.variant;
        if (variants.emplace(where->second, variant).second)
            g.variants.push_back(variant);
        if (devices.emplace(where->second, r.device_id).second)
            g.devices.push_back(r.device_id);
        g.cell[{variant, r.device_id}] = &r;
    }
    return groups;
}

// A group whose variants x devices would be mostly holes (every row its own variant and
// device: 4,000 rows made a 680 MB table) is listed one result a line instead.
bool print_if_sparse(std::ostream& out, const Group& g) {
    if (g.variants.size() * g.devices.size() <= 4 * g.cell.size() + 64)
        return false;
    Table t({"variant", "device", "ms", "throughput", "check"});
    for (const auto& [key, r] : g.cell)
        t.add({key.first + at_shape(r->local_label), key.second,
               r->skipped || r->implausible ? "-" : fmt("%.4f", r->kernel_ms.median),
               r->skipped ? "-" : throughput(*r), check_label(*r)});
    t.print(out);
    out << g.cell.size() << " results over " << g.variants.size() << " variants and "
        << g.devices.size() << " devices: too sparse for a grid, listed instead\n\n";
    return true;
}

// The id of a device in the group that is the same GPU as `id` through a backend listed before
// it (duet::devices() holds the build's backends in order, CUDA's first), so each pair is shown
// once, as the later device's time over the earlier one's; "" when there is none.
std::string earlier_twin(const std::string& id, const std::vector<std::string>& ids) {
    const auto& all = duet::devices();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i]->info().id() == id)
            for (auto* o : duet::same_physical_device(*all[i]))
                if (std::find(all.begin(), all.begin() + i, o) != all.begin() + i &&
                    std::find(ids.begin(), ids.end(), o->info().id()) != ids.end())
                    return o->info().id();
    return {};
}

// The (OpenCL id, CUDA id) pairs of the group that are one GPU: from `known` (what the result
// files say) or, without it, from this machine's devices. Each gets an A/B column.
Twins twins_in(const Group& g, const Twins* known) {
    Twins twins;
    for (const auto& d : g.devices) {
        std::string t;
        if (!known)
            t = earlier_twin(d, g.devices);
        else
            for (const auto& [ocl, cu] : *known)
                if (ocl == d &&
                    std::find(g.devices.begin(), g.devices.end(), cu) != g.devices.end())
                    t = cu;
        if (!t.empty())
            twins.emplace_back(d, t);
    }
    return twins;
}

// Speed-ups are against the last step (and the first step) that ran on that device: skipped,
// failed and implausible rows have no time to compare. The step compared with is named when it
// is not the row above, and the legend says so.
struct Steps {
    std::map<std::string, double> first, prev;
    std::map<std::string, std::string> prev_name;
    std::map<std::string, bool> gap; // a row without a time since the previous that had one
};

// The launch shape every device of variant `v`'s row ran in ("" when none has one); nullopt
// when they differ, and each cell says its own.
std::optional<std::string> shape_of(const Group& g, const std::string& v) {
    std::optional<std::string> shape;
    for (const auto& d : g.devices)
        if (auto it = g.cell.find({v, d}); it != g.cell.end() && !it->second->skipped) {
            if (shape && *shape != it->second->local_label)
                return std::nullopt;
            shape = it->second->local_label;
        }
    return shape.value_or("");
}

// Device `d`'s cells of variant `v`'s row: ms (with `own_shape`, the shape it ran in too),
// throughput, step, total and (with `x_cpu`) x CPU; its check label goes to `checks`.
void add_device_cells(std::vector<std::string>& row, std::vector<std::string>& checks,
                      const Group& g, const std::string& v, const std::string& d, bool x_cpu,
                      bool own_shape, Steps& s) {
    auto it = g.cell.find({v, d});
    if (it == g.cell.end() || it->second->skipped || it->second->implausible ||
        (it->second->verified && !it->second->pass)) {
        if (it == g.cell.end())
            row.insert(row.end(), {"-", "-", "-", "-"});
        else {
            const Result& r = *it->second;
            checks.push_back(check_label(r));
            row.insert(row.end(), {r.skipped       ? "skipped"
                                   : r.implausible ? "implausible"
                                                   : "failed",
                                   "-", "-", "-"});
        }
        if (x_cpu)
            row.push_back("-");
        s.gap[d] = true;
        return;
    }
    const Result& r = *it->second;
    checks.push_back(check_label(r));
    const double ms = r.kernel_ms.median;
    row.push_back(fmt("%.4f", ms) + (r.clock == "device events" ? "" : " (host)") +
                  (own_shape ? at_shape(r.local_label) : ""));
    row.push_back(throughput(r));
    std::string step = s.prev.count(d) && ms > 0 ? fmt("%.2fx", s.prev[d] / ms) : "-";
    if (s.prev.count(d) && s.gap[d])
        step += " vs " + s.prev_name[d];
    s.gap[d] = false;
    row.push_back(step);
    row.push_back(s.first.count(d) && ms > 0 ? fmt("%.2fx", s.first[d] / ms) : "1.00x");
    if (x_cpu)
        row.push_back(x_cpu_label(r));
    if (!s.first.count(d))
        s.first[d] = ms;
    s.prev[d] = ms;
    s.prev_name[d] = v;
}

// A row's check: the worst of its devices' (FAIL, IMPLAUSIBLE, SKIPPED, UNCHECKED).
std::string worst_check(const std::vector<std::string>& checks) {
    if (checks.empty())
        return "SKIPPED";
    for (const char* worst : {"FAIL", "IMPLAUSIBLE", "SKIPPED", "UNCHECKED", "PASS (sample)"})
        if (std::find(checks.begin(), checks.end(), worst) != checks.end())
            return worst;
    return "PASS";
}

// The A/B cell: OpenCL's time over CUDA's for variant `v` on one GPU, "-" without both.
std::string twin_ratio(const Group& g, const std::string& v, const std::string& ocl,
                       const std::string& cu) {
    auto a = g.cell.find({v, ocl}), b = g.cell.find({v, cu});
    const auto timed = [](const Result& r) {
        return !r.skipped && !r.implausible && r.kernel_ms.median > 0;
    };
    return a != g.cell.end() && b != g.cell.end() && timed(*a->second) && timed(*b->second)
               ? fmt("%.2f", a->second->kernel_ms.median / b->second->kernel_ms.median)
               : "-";
}

// What the table's columns mean, on one line under it.
void print_legend(std::ostream& out, const Group& g, bool twins, bool x_cpu) {
    out << "step: speed-up over the variant above that ran (named when rows between did not "
           "run); total: over the first variant that ran; @: the launch shape (work-group), in "
           "the cell where the devices' differ";
    bool host_clock = false;
    for (const auto& [key, r] : g.cell)
        host_clock = host_clock || (!r->skipped && r->clock != "device events");
    if (host_clock)
        out << "; (host): timed on the host clock, the device's events disagreed (JSON: clock)";
    for (const auto& [key, r] : g.cell)
        if (!r->kernel_text.empty()) {
            out << "; [" << r->kernel_text << "]: every device built the step's " << r->kernel_text
                << " text (--kernel-text), so a ratio compares the compilers";
            break;
        }
    if (twins)
        out << "; A/B: OpenCL time over CUDA time on the same GPU";
    if (x_cpu)
        out << "; x CPU: speed-up over the native CPU reference below (host clock)";
    out << "\n";
}

} // namespace

void label_repeated_rows(std::vector<Result>& rows) {
    std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, int> seen;
    for (auto& r : rows) {
        const int n = ++seen[{r.app, r.size_label, r.variant, r.local_label, r.device_id}];
        if (n == 1)
            continue;
        const char* th = n % 100 / 10 == 1 ? "th"
                         : n % 10 == 1     ? "st"
                         : n % 10 == 2     ? "nd"
                         : n % 10 == 3     ? "rd"
                                           : "th";
        r.variant += " (" + std::to_string(n) + th + " row)";
    }
}

// Why each skipped cell did not run, one line each (the JSON's note in full).
void print_skip_reasons(std::ostream& out, const Group& g) {
    for (const auto& v : g.variants)
        for (const auto& d : g.devices)
            if (auto it = g.cell.find({v, d}); it != g.cell.end() && it->second->skipped) {
                std::string why = it->second->note;
                if (why.rfind("skipped: ", 0) == 0)
                    why.erase(0, 9);
                if (why.size() > 200)
                    why = why.substr(0, 197) + "...";
                out << printable("skipped (" + v + " on " + d + "): " + why) << "\n";
            }
}

void print_comparison(std::ostream& out, const std::vector<Result>& results) {
    print_comparison(out, results, nullptr);
}

void print_comparison(std::ostream& out, const std::vector<Result>& all, const Twins* known) {
    // The native CPU reference rows go under their group's table, not into a device column.
    std::vector<Result> results, natives;
    for (const auto& r : all)
        (r.backend == "native" ? natives : results).push_back(r);
    // A step run from one dialect's text on every device (--kernel-text) is a row of its own
    // beside the twins' row of the same step.
    for (auto& r : results)
        r.variant = r.step_label();
    for (const auto& g : group(results)) {
        out << printable(g.app + ", size " + g.size) << "\n";
        if (print_if_sparse(out, g))
            continue;
        std::vector<const Result*> refs;
        for (const auto& r : natives)
            if (r.app == g.app && r.size_label == g.size)
                refs.push_back(&r);
        std::vector<std::string> header = {"variant"};
        for (const auto& d : g.devices) {
            header.insert(header.end(), {d + " ms", "throughput", "step", "total"});
            if (!refs.empty())
                header.push_back("x CPU");
        }
        const Twins twins = twins_in(g, known);
        for (const auto& [ocl, cu] : twins)
            header.push_back(ocl + "/" + cu);
        header.push_back("check");
        Table t(header);
        Steps steps;
        for (const auto& v : g.variants) {
            const auto shape = shape_of(g, v);
            std::vector<std::string> row = {v + at_shape(shape.value_or(""))};
            std::vector<std::string> checks;
            for (const auto& d : g.devices)
                add_device_cells(row, checks, g, v, d, !refs.empty(), !shape, steps);
            for (const auto& [ocl, cu] : twins)
                row.push_back(twin_ratio(g, v, ocl, cu));
            row.push_back(worst_check(checks));
            t.add(row);
        }
        t.print(out);
        print_legend(out, g, !twins.empty(), !refs.empty());
        print_skip_reasons(out, g);
        for (const Result* r : refs)
            out << printable("native CPU reference " + r->variant + ": " + r->device_name + ": " +
                             (r->kernel_ms.median > 0 ? fmt("%.4f ms", r->kernel_ms.median) : "-") +
                             ", " + throughput(*r) + ", " + check_label(*r) +
                             (r->note.empty() ? "" : " (" + r->note + ")"))
                << "\n";
        out << "\n";
    }
}

int results_exit_code(const std::vector<Result>& results, std::vector<std::string>& why) {
    for (const auto& r : results)
        if (r.verified && !r.pass)
            return 1;
    int code = 0;
    for (const auto& r : results)
        if (r.implausible) {
            why.push_back(r.app + " " + r.variant + " on " + r.device_id +
                          ": the time is implausible, no result");
            code = 3;
        }
    // Per app and device: every row skipped means nothing ran there.
    std::map<std::pair<std::string, std::string>, std::pair<int, std::string>> ran;
    for (const auto& r : results) {
        auto& [count, reasons] = ran[{r.app, r.device_id}];
        if (!r.skipped)
            count = 1;
        else if (count == 0)
            reasons += "\n  " + r.variant + ": " + r.note;
    }
    for (const auto& [key, v] : ran)
        if (v.first == 0) {
            why.push_back("nothing ran: every variant of " + key.first + " was skipped on " +
                          key.second + ":" + v.second);
            code = 3;
        }
    return code;
}

} // namespace runapp
