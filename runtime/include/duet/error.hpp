#pragma once
// duet::Error: every failure the runtime reports, with the backend, the call and its code.
#include <stdexcept>
#include <string>

namespace duet {

// What kind of failure: decides runapp's exit code (usage = 2, everything else = 3).
// `unsupported`: the device cannot run this variant as written (a work-group over its limit);
// a ladder run skips it and says why instead of stopping.
enum class ErrorKind { usage, not_found, unavailable, build, runtime, unsupported };

// A runtime failure: what was being done, which call failed, its code and name, what to do.
class Error : public std::runtime_error {
  public:
    // Builds the message "backend: call failed with NAME (code): message".
    Error(ErrorKind kind, std::string backend, std::string call, long code, std::string code_name,
          std::string message, std::string build_log = {});
    // A usage error: bad input from the caller, no backend call involved.
    static Error usage(std::string message);
    // A lookup that found nothing (device, kernel, app); message should list what exists.
    static Error not_found(std::string message, std::string backend = {});
    // Something needed is missing (no device, no compiler, the cache off), not a failed call.
    static Error unavailable(std::string message, std::string backend = {});
    // A failure with no API call to name (writing results, a broken build of Duet).
    static Error runtime(std::string message, std::string backend = {});
    // The device cannot run this as written (a work-group over its limit): skipped, not failed.
    static Error unsupported(std::string message, std::string backend = {});

    ErrorKind kind() const noexcept { return kind_; }
    const std::string& backend() const noexcept { return backend_; }
    const std::string& call() const noexcept { return call_; }
    long code() const noexcept { return code_; }
    const std::string& code_name() const noexcept { return code_name_; }
    const std::string& detail() const noexcept { return detail_; }
    // Compiler output for build failures, empty otherwise.
    const std::string& build_log() const noexcept { return build_log_; }

  private:
    ErrorKind kind_;
    std::string backend_, call_;
    long code_;
    std::string code_name_, detail_, build_log_;
};

} // namespace duet
