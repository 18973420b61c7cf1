#pragma once
// The problem's set-up on the host's clock. What the rows of one problem share (its inputs, its
// references and sums, its first upload to a device, output memory, a device's download space
// and start-up) is made by whichever row asks first; the time it took is kept apart from that
// row's own work, so that a row's figures say what the step costs and the set-up is reported
// once (Result::wall_parts.setup).
#include <chrono>

namespace duet::apps {

// Counts the time from its construction to its destruction as set-up of this thread's current
// row. Nested timers count once (the outermost).
class SetupTimer {
  public:
    SetupTimer();
    ~SetupTimer();
    SetupTimer(const SetupTimer&) = delete;
    SetupTimer& operator=(const SetupTimer&) = delete;

  private:
    std::chrono::steady_clock::time_point t0_;
    bool outermost_;
};

// This thread's set-up time so far (ms): a row reads it before and after.
double setup_ms_so_far();

} // namespace duet::apps
