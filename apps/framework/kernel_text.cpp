// One kernel text through both APIs: the routes come from the dialect table, the device says
// which it takes (Device::route_for).
#include "kernel_text.hpp"

#include <sstream>

namespace duet::apps {

namespace {

thread_local std::string scope_dialect;

} // namespace

KernelTextScope::KernelTextScope(const std::string& dialect) : before_(scope_dialect) {
    scope_dialect = dialect;
}

KernelTextScope::~KernelTextScope() {
    scope_dialect = before_;
}

const std::string& kernel_text_in_scope() {
    return scope_dialect;
}

std::string kernel_text_note(const Device& dev, const std::string& dialect_name) {
    const Dialect& d = dialect(dialect_name);
    const std::string what = "one text: " + d.title + " (" + d.kernel_dir + "/)";
    std::string why;
    const DialectRoute* r = dev.route_for(d, why);
    if (!r)
        throw Error::unsupported("--kernel-text " + d.name + ": " + why);
    return r->translation.empty() ? std::string() : what + " through " + r->translation;
}

bool kernel_text_translated(const Device& dev, const std::string& dialect_name) {
    if (dialect_name.empty())
        return false;
    std::string why;
    const DialectRoute* r = dev.route_for(dialect(dialect_name), why);
    return r && !r->translation.empty();
}

std::string first_error_line(const std::string& log) {
    std::string fallback;
    for (const char* mark : {"error:", "LLVM ERROR"}) {
        std::istringstream in(log);
        for (std::string line; std::getline(in, line);) {
            if (line.find(mark) != std::string::npos)
                return line;
            if (fallback.empty() && line.find_first_not_of(" \t\r") != std::string::npos)
                fallback = line;
        }
    }
    return fallback;
}

Error kernel_text_refused(const Device& dev, const std::string& dialect_name, const Error& e) {
    const Dialect& d = dialect(dialect_name);
    // The compiler's line that says why, else the Error's own message.
    std::string first = first_error_line(e.build_log());
    if (first.empty())
        first = e.what();
    std::string why;
    const DialectRoute* r = dev.route_for(d, why);
    return Error::unsupported("--kernel-text " + d.name + ": its " + d.title +
                              " text does not build through " +
                              (r ? r->translation : std::string("its route")) + ": " + first);
}

} // namespace duet::apps
