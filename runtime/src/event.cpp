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

void Event::wait() const { need(impl_).wait(); }

double Event::elapsed_ms() const { return need(impl_).elapsed_ms(); }

double Event::span_ms(const Event& first, const Event& last) {
    return need(first.impl_).elapsed_ms_until(need(last.impl_));
}

} // namespace duet
