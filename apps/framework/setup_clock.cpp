// The problem's set-up on the host's clock (setup_clock.hpp).
#include "setup_clock.hpp"

namespace duet::apps {

namespace {
thread_local double total_ms = 0;
thread_local int depth = 0;
} // namespace

SetupTimer::SetupTimer() : t0_(std::chrono::steady_clock::now()), outermost_(depth++ == 0) {}

SetupTimer::~SetupTimer() {
    --depth;
    if (outermost_)
        total_ms +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_)
                .count();
}

double setup_ms_so_far() {
    return total_ms;
}

} // namespace duet::apps
