// Unit tests of problems made once and shared (apps/framework/problem.hpp, part of test_units):
// the counter-based inputs, their cache, the shared uploads, and the checks on every core.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include <duet/duet.hpp>

#include "app.hpp"
#include "guard.hpp"
#include "problem.hpp"
#include "setup_clock.hpp"
#include "test_util.hpp"

using namespace duet::apps;

TEST_CASE("inputs: element i is a pure function of (seed, i), whatever the thread count") {
    const std::size_t n = (std::size_t{1} << 18) + 7; // several parts on any core count
    const auto v = random_floats(n, 42, -1.f, 1.f);
    REQUIRE(v.size() == n);
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, n / 2, n - 1})
        CHECK(v[i] == uniform_float(counter_random(42, i), -1.f, 1.f));
    // A prefix is the same numbers: the split across threads changes nothing.
    const auto head = random_floats(1000, 42, -1.f, 1.f);
    CHECK(std::equal(head.begin(), head.end(), v.begin()));
    CHECK(random_floats(1000, 43, -1.f, 1.f) != head);
    // Uniform enough to be inputs: the mean near 0, both signs, no value out of range.
    double sum = 0;
    float lo = 1, hi = -1;
    for (float x : v) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        sum += x;
    }
    CHECK(lo >= -1.f);
    CHECK(lo < -0.999f);
    CHECK(hi < 1.f);
    CHECK(hi > 0.999f);
    CHECK(std::fabs(sum / double(n)) < 0.01);
}

TEST_CASE("inputs: ranges are half-open for floats and closed for ints, extremes reached") {
    CHECK(uniform_float(0, 2.f, 3.f) == 2.f);
    CHECK(uniform_float(~std::uint64_t{0}, 2.f, 3.f) < 3.f);
    CHECK(uniform_int(0, -5, 5) == -5);
    CHECK(uniform_int(~std::uint64_t{0}, -5, 5) == 5);
    CHECK(uniform_int(~std::uint64_t{0}, INT32_MIN, INT32_MAX) == INT32_MAX);
    const auto ints = random_ints(20000, 7, -3, 3);
    std::set<int> seen(ints.begin(), ints.end());
    CHECK(seen == std::set<int>{-3, -2, -1, 0, 1, 2, 3});
}

TEST_CASE("shared inputs: one array per (n, seed, range), the same numbers as random_floats") {
    const auto a = shared_floats(5000, 11);
    CHECK(a == shared_floats(5000, 11)); // the same array, not a copy
    CHECK(a != shared_floats(5000, 12));
    CHECK(a != shared_floats(5000, 11, 0.f, 1.f));
    CHECK(*a == random_floats(5000, 11));
    const auto i = shared_ints(5000, 11, -9, 9);
    CHECK(*i == random_ints(5000, 11, -9, 9));
}

TEST_CASE("checks on every core: the first NaN is named, the largest error is found") {
    std::vector<float> out(300000, 1.f);
    Result r;
    r.tolerance = 0.1;
    compare_each(
        r, out, out.size(), [](std::size_t i) { return i; }, [](std::size_t) { return 1.0; });
    CHECK(r.pass);
    CHECK(r.max_error == 0);
    out[123456] = 1.5f; // one wrong element among many parts
    compare_each(
        r, out, out.size(), [](std::size_t i) { return i; }, [](std::size_t) { return 1.0; });
    CHECK_FALSE(r.pass);
    CHECK(r.max_error == doctest::Approx(0.5));
    out[200001] = std::numeric_limits<float>::quiet_NaN();
    out[250000] = std::numeric_limits<float>::infinity();
    Result n;
    n.tolerance = 1;
    compare_each(
        n, out, 0, [](std::size_t i) { return i; }, [](std::size_t) { return 1.0; });
    CHECK_FALSE(n.pass); // nothing compared, yet a NaN anywhere fails
    CHECK(n.note.find("output 200001 is NaN") != std::string::npos);
}

TEST_CASE("checks in one pass: compare_all gives compare_each's outcome, notes included") {
    const auto ref = [](std::size_t) { return 1.0; };
    const auto same = [&](std::vector<float> out, double tolerance) {
        Result a, b;
        a.tolerance = b.tolerance = tolerance;
        compare_all(a, out, ref);
        compare_each(
            b, out, out.size(), [](std::size_t i) { return i; }, ref);
        CHECK(a.pass == b.pass);
        CHECK(a.note == b.note);
        CHECK((a.max_error == b.max_error || (std::isnan(a.max_error) && std::isnan(b.max_error))));
        return a;
    };
    std::vector<float> out(300000, 1.f);
    CHECK(same(out, 0.1).pass);
    out[123456] = 1.5f;
    const Result wrong = same(out, 0.1);
    CHECK_FALSE(wrong.pass);
    CHECK(wrong.max_error == doctest::Approx(0.5));
    out[250000] = std::numeric_limits<float>::infinity(); // an Inf alone is named too
    const Result inf = same(out, 1);
    CHECK_FALSE(inf.pass);
    CHECK(inf.note.find("output 250000") != std::string::npos);
    out[200001] = std::numeric_limits<float>::quiet_NaN(); // the first non-finite one is named
    CHECK(same(out, 1).note.find("output 200001 is NaN") != std::string::npos);
}

TEST_CASE("read in place: the buffer is the host memory, held until the device is done") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        INFO(dev->info().id());
        auto q = dev->create_queue();
        auto host = std::make_shared<HostVector<float>>(4096, 1.5f);
        std::weak_ptr<HostVector<float>> watch = host;
        auto buf = dev->read_in_place(host, host->data(), 4096 * sizeof(float));
        if (!buf) { // a simulator, or a device that is not the CPU
            CHECK((!dev->info().is_cpu() || dev->info().caps.simulator));
            continue;
        }
        // Misaligned memory is refused (the caller copies), never read from a wrong address.
        CHECK(dev->read_in_place(host, host->data() + 1, 4095 * sizeof(float)) == nullptr);
        host.reset();
        CHECK_FALSE(watch.expired()); // the buffer holds it
        std::vector<float> back(4096);
        q->read(*buf, back);
        CHECK(back == std::vector<float>(4096, 1.5f));
        buf.reset();
        q->finish();
        CHECK(watch.expired());
    }
}

TEST_CASE("shared uploads: one device copy per problem, released for another problem") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        INFO(dev->info().id());
        auto q = dev->create_queue(duet::QueueOptions::timed()); // upload_shared times the write
        const auto a = shared_floats(1024, 5), b = shared_floats(1024, 6);
        auto up1 = upload_shared(*dev, *q, "p1", a, a->data(), 4096);
        CHECK_FALSE(up1.reused);
        auto up2 = upload_shared(*dev, *q, "p1", a, a->data(), 4096);
        CHECK(up2.reused);
        CHECK(up2.buffer == up1.buffer);
        const auto upb = upload_shared(*dev, *q, "p1", b, b->data(), 4096);
        CHECK(upb.buffer != up1.buffer);
        std::vector<float> back(1024);
        q->read(*up2.buffer, back);
        CHECK(std::equal(back.begin(), back.end(), a->begin()));
        // A CPU device reads the (page-aligned) host array in place; a simulator gets a copy.
        CHECK(up1.in_place == (dev->info().is_cpu() && !dev->info().caps.simulator));
        // Another problem on the device frees the first one's copies.
        std::weak_ptr<duet::Buffer> old = up1.buffer;
        {
            const auto keep = upload_shared(*dev, *q, "p2", a, a->data(), 4096);
            CHECK_FALSE(keep.reused);
        }
        up1.buffer.reset();
        up2.buffer.reset();
        CHECK(old.expired());
        release_shared_uploads();
    }
}

TEST_CASE("set-up clock: nested timers count once, and only their own time") {
    const double before = setup_ms_so_far();
    const auto t0 = std::chrono::steady_clock::now();
    {
        const SetupTimer outer;
        const SetupTimer inner;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const double elapsed =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double counted = setup_ms_so_far() - before;
    CHECK(counted >= 20);
    CHECK(counted <= elapsed); // counted twice would be about twice the sleep
}

TEST_CASE("wall parts: a problem's first row carries its set-up, the others none; parts add up") {
    const auto& app = find_app("vecadd");
    for (auto* dev : duet_test::devices_of("opencl")) {
        INFO(dev->info().id());
        RunConfig cfg;
        cfg.size = {1 << 16};
        cfg.reps = 2;
        cfg.warmup = 0;
        cfg.seed = 0x5e7u + std::uint64_t(dev->info().local_index); // a problem no other test made
        std::vector<Result> rows;
        for (const auto& v : select_variants(app, "naive,vec4"))
            rows.push_back(app.run(*dev, v, cfg));
        for (const auto& r : rows) {
            INFO(r.variant);
            CHECK(r.pass);
            const auto& w = r.wall_parts;
            const double sum =
                w.setup + w.build + w.buffers + w.runs + w.download + w.check + w.poison;
            CHECK(sum == doctest::Approx(r.wall_ms).epsilon(1e-9));
            CHECK(w.runs > 0);
            CHECK(w.poison > 0); // each timed run's output poisoned again, timed apart
        }
        CHECK(rows[0].wall_parts.setup > 0);  // the inputs were made and uploaded here
        CHECK(rows[1].wall_parts.setup == 0); // and found made
        release_shared_uploads();
    }
}

TEST_CASE("outputs: memory of one size is reused, poisoned again, never shared by two at once") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        INFO(dev->info().id());
        auto q = dev->create_queue();
        constexpr std::size_t bytes = std::size_t{1} << 16;
        const duet::Buffer* first = nullptr;
        {
            GuardedOutput o1(*dev, *q, bytes);
            GuardedOutput o2(*dev, *q, bytes); // o1 is in use: other memory
            CHECK(&o2.buffer() != &o1.buffer());
            first = &o1.buffer();
            const std::vector<float> ones(bytes / sizeof(float), 1.0f);
            q->write(o1.buffer(), ones);
            q->finish();
        }
        GuardedOutput again(*dev, *q, bytes);
        CHECK(&again.buffer() == first); // the first idle one of its size, written over
        std::vector<unsigned char> back(bytes);
        q->read_bytes(again.buffer(), back.data(), bytes);
        CHECK(std::all_of(back.begin(), back.end(), [](unsigned char v) { return v == 0xFF; }));
        Result r;
        r.pass = true;
        again.check(r, *q);
        CHECK(r.pass);
        release_shared_uploads();
    }
}
