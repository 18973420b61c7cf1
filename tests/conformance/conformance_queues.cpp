// Conformance, on every device of every backend: a queue without timing runs the same work, and
// its events say they cannot be timed.
#include <vector>

#include "conformance.hpp"

TEST_CASE("conformance: a queue without timing runs the same work; its events cannot be timed") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue({.timing = false});
            const int n = 777;
            std::vector<float> a(n, 1.25f), c(n, 0.f);
            auto da = dev->alloc<float>(n), dc = dev->alloc<float>(n);
            q->write(*da, a);
            auto k = dev->load_kernel("vecadd_naive");
            auto ev = q->launch(*k, duet::Range(duet::round_up(n, 64)).local(64), *da, *da, *dc, n);
            ev.wait();
            q->read(*dc, c);
            CHECK(c[0] == 2.5f);
            CHECK(c[n - 1] == 2.5f);
            CHECK_THROWS_WITH_AS(ev.elapsed_ms(), doctest::Contains("timing off"), duet::Error);
        }
    }
}
