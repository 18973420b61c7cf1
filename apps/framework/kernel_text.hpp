#pragma once
// One kernel text through both APIs (runapp --kernel-text, RunConfig::kernel_text): how a device
// takes Duet's kernel files of one dialect, by the dialect table's routes, and what a row says
// when it cannot.
#include <string>

#include <duet/duet.hpp>

namespace duet::apps {

// How `dev` builds Duet's kernel files of `dialect`, for a row's note ("one text: OpenCL C
// (kernels_cl/) through opencl-c-on-nvrtc"; "" for the device's own language). Throws
// ErrorKind::unsupported naming why when the device takes no route for it (the row is then SKIPPED
// with that reason).
std::string kernel_text_note(const Device& dev, const std::string& dialect);
// True when `dev` builds `dialect` through a translation (not its own language): a build
// failure there is the translation's limit, not a fault of the step.
bool kernel_text_translated(const Device& dev, const std::string& dialect);
// While alive, this thread's device profiles (profile_of) answer for Duet's kernel files of
// `dialect` ("" : each device's own): the build switches and tiles that text takes, so one text
// builds with the same defines on both APIs of a GPU and only the compilers differ.
class KernelTextScope {
  public:
    explicit KernelTextScope(const std::string& dialect);
    ~KernelTextScope();
    KernelTextScope(const KernelTextScope&) = delete;
    KernelTextScope& operator=(const KernelTextScope&) = delete;

  private:
    std::string before_;
};
// The innermost KernelTextScope's dialect on this thread, "" outside any.
const std::string& kernel_text_in_scope();

// The line of a compiler's log that says what went wrong: the first "error:" line, else an
// "LLVM ERROR" line (a crashing tool's), else the log's first non-empty line; "" for none.
std::string first_error_line(const std::string& log);

// `e` (a build Error of a translated text) as an unsupported Error: the step's text does not
// build through the route, with the compiler's first error line.
Error kernel_text_refused(const Device& dev, const std::string& dialect, const Error& e);

} // namespace duet::apps
