#include <duet/error.hpp>

namespace duet {

namespace {
std::string compose(const std::string& backend, const std::string& call, long code,
                    const std::string& code_name, const std::string& message) {
    std::string s;
    if (!backend.empty())
        s += backend + ": ";
    if (!call.empty()) {
        s += call + " failed";
        if (!code_name.empty())
            s += " with " + code_name + " (" + std::to_string(code) + ")";
        s += ": ";
    }
    return s + message;
}
} // namespace

Error::Error(ErrorKind kind, std::string backend, std::string call, long code,
             std::string code_name, std::string message, std::string build_log)
    : std::runtime_error(compose(backend, call, code, code_name, message) +
                         (build_log.empty() ? "" : "\n--- build log ---\n" + build_log)),
      kind_(kind), backend_(std::move(backend)), call_(std::move(call)), code_(code),
      code_name_(std::move(code_name)), detail_(std::move(message)),
      build_log_(std::move(build_log)) {}

Error Error::usage(std::string message) {
    return Error(ErrorKind::usage, "", "", 0, "", std::move(message));
}

Error Error::not_found(std::string message, std::string backend) {
    return Error(ErrorKind::not_found, std::move(backend), "", 0, "", std::move(message));
}

Error Error::unavailable(std::string message, std::string backend) {
    return Error(ErrorKind::unavailable, std::move(backend), "", 0, "", std::move(message));
}

Error Error::runtime(std::string message, std::string backend) {
    return Error(ErrorKind::runtime, std::move(backend), "", 0, "", std::move(message));
}

Error Error::unsupported(std::string message, std::string backend) {
    return Error(ErrorKind::unsupported, std::move(backend), "", 0, "", std::move(message));
}

} // namespace duet
