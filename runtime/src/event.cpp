#include <duet/error.hpp>
#include <duet/event.hpp>

namespace duet {

namespace {
EventImpl& need(const std::shared_ptr<EventImpl>& impl) {
    if (!impl)
        throw Error::usage("this duet::Event is empty: it was not returned by a queue operation");
    return *impl;
}
} // namespace

void Event::wait() const {
    need(impl_).wait();
}

double Event::elapsed_ms() const {
    return need(impl_).elapsed_ms();
}

double Event::span_ms(const Event& first, const Event& last) {
    return need(first.impl_).elapsed_ms_until(need(last.impl_));
}

namespace {
class UntimedEvent final : public EventImpl {
  public:
    explicit UntimedEvent(std::function<void()> wait) : wait_(std::move(wait)) {}
    void wait() override { wait_(); }
    double elapsed_ms() override { throw no_timing(); }
    double elapsed_ms_until(EventImpl&) override { throw no_timing(); }

  private:
    static Error no_timing() {
        return Error::usage("this operation was queued on a queue with timing off (the "
                            "default); create the queue with QueueOptions::timed() to read "
                            "device times");
    }
    std::function<void()> wait_;
};
} // namespace

Event untimed_event(std::function<void()> wait) {
    return Event(std::make_shared<UntimedEvent>(std::move(wait)));
}

} // namespace duet
