// The step list of docs/design/ladders.md from the records (step.hpp: steps_markdown).
#include <string>

#include "app.hpp"

namespace duet::apps {

namespace {

std::string shape_text(const Shape& s) {
    return std::to_string(s.local[0]) + (s.local[1] > 1 ? "x" + std::to_string(s.local[1]) : "");
}

std::string needs_text(const Step& step) {
    std::string out;
    if (step.needs.sub_groups == SubGroups::uses)
        out = "sub-groups/warps where present, else a local tree";
    if (!step.needs.refuses_note.empty())
        out += (out.empty() ? "" : "; ") + step.needs.refuses_note;
    return out.empty() ? "-" : out;
}

std::string tuning_text(const Step& step) {
    if (!step.tuning)
        return "-";
    std::string out;
    for (const auto& p : step.tuning->params)
        out += (out.empty() ? "" : ", ") + p;
    if (step.tuning->local_param)
        out += std::string(out.empty() ? "" : ", ") + "work-group size";
    return out;
}

} // namespace

std::string steps_markdown() {
    const RunConfig defaults;
    const DeviceInfo any; // the textbook shapes do not depend on the device
    std::string md;
    for (const App* app : all_apps()) {
        md += "### " + app->name() + ": " + app->description() + "\n\n";
        md += "| step | kernel | what it changes | work-items (textbook) | local memory | needs | "
              "tuned |\n";
        md += "|---|---|---|---|---|---|---|\n";
        for (const Step& s : app->steps()) {
            std::string items = "-", bytes = "-";
            if (s.shapes) {
                const auto shapes = s.shapes(defaults, any);
                if (!shapes.empty()) {
                    items = shape_text(shapes.front());
                    if (shapes.front().local_bytes)
                        bytes = std::to_string(shapes.front().local_bytes) + " B";
                }
            }
            md += "| `" + s.name + "` | `" + s.kernel + "` | " + s.description + " | " + items +
                  " | " + bytes + " | " + needs_text(s) + " | " + tuning_text(s) + " |\n";
        }
        md += "\n";
    }
    return md;
}

} // namespace duet::apps
