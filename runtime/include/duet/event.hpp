#pragma once
// Events: completion and device-side timing of one queued operation.
#include <functional>
#include <memory>

namespace duet {

// Backend half of an Event.
class EventImpl {
  public:
    virtual ~EventImpl() = default;
    // Blocks until the operation is complete.
    virtual void wait() = 0;
    // Device time from this operation's start to its end, in milliseconds.
    virtual double elapsed_ms() = 0;
    // Device time from this operation's start to the end of `last` (same queue, enqueued later).
    virtual double elapsed_ms_until(EventImpl& last) = 0;
};

// A handle to one queued operation; cheap to copy. A default-constructed Event is empty.
class Event {
  public:
    Event() = default;
    explicit Event(std::shared_ptr<EventImpl> impl) : impl_(std::move(impl)) {}
    // True when the event refers to an operation.
    bool valid() const { return static_cast<bool>(impl_); }
    // Waits for the operation.
    void wait() const;
    // Device time of the operation in ms (waits for it first).
    double elapsed_ms() const;
    // Device time from the start of `first` to the end of `last`: times a group of launches.
    static double span_ms(const Event& first, const Event& last);

  private:
    std::shared_ptr<EventImpl> impl_;
};

// An Event without device timestamps, from a queue created with timing off: wait() runs `wait`
// (which waits for the whole queue), elapsed_ms() is a usage Error.
Event untimed_event(std::function<void()> wait);

} // namespace duet
