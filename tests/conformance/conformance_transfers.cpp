// Conformance, on every device of every backend: transfers, fills, copies, pinned host memory
// and Duet's own vecadd kernels; reads and writes past a buffer's end are usage errors.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "conformance.hpp"

using conformance::contains;
using duet::Error;
using duet::Range;

namespace {

template <class T> void check_fill(duet::Queue& q, duet::Buffer& buf, T value, std::size_t count) {
    q.fill(buf, std::uint8_t{0x5a}, buf.size()); // a background the fill must replace
    q.fill(buf, value, count);
    std::vector<unsigned char> host(buf.size());
    q.read(buf, host);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count * sizeof(T); ++i)
        wrong += host[i] != reinterpret_cast<const unsigned char*>(&value)[i % sizeof(T)];
    for (std::size_t i = count * sizeof(T); i < host.size(); ++i)
        wrong += host[i] != 0x5a; // past the filled part: untouched
    CHECK_MESSAGE(wrong == 0, sizeof(T)
                                  << "-byte fill of " << count << ": " << wrong << " wrong bytes");
}

} // namespace

TEST_CASE("conformance: transfers, fills, copies and vecadd") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            MESSAGE("device: " << dev->label());
            auto q = dev->create_queue(duet::QueueOptions::timed());
            const int n = 1000; // not a multiple of the work-group size
            std::vector<float> a(n), b(n), c(n, -1.f);
            std::iota(a.begin(), a.end(), 0.f);
            for (int i = 0; i < n; ++i)
                b[i] = 0.5f * float(i);
            auto da = dev->alloc<float>(n), db = dev->alloc<float>(n), dc = dev->alloc<float>(n);
            CHECK(da->size() == n * sizeof(float));
            q->write(*da, a);
            q->write(*db, b);
            for (const char* kname : {"vecadd_naive", "vecadd_vec4"}) {
                INFO(kname);
                q->fill(*dc, -7.f, n);
                auto k = dev->load_kernel(kname);
                CHECK(k->name() == kname);
                CHECK(k->max_work_group_size() >= 1);
                auto ev = q->launch(*k, Range(duet::round_up(n, 64)).local(64), *da, *db, *dc, n);
                q->read(*dc, c);
                CHECK(ev.elapsed_ms() >= 0);
                int wrong = 0;
                for (int i = 0; i < n; ++i)
                    wrong += c[i] != a[i] + b[i];
                CHECK(wrong == 0);
            }
            // Device-to-device copy and a read at an offset.
            auto dd = dev->alloc<float>(n);
            q->copy(*da, *dd, n * sizeof(float));
            std::vector<float> tail(10);
            q->read_bytes(*dd, tail.data(), 10 * sizeof(float), (n - 10) * sizeof(float));
            CHECK(tail[9] == a[n - 1]);
            // Pinned host memory round trip.
            auto pinned = dev->alloc_host(n * sizeof(float));
            std::fill_n(static_cast<float*>(pinned->data()), n, 0.f);
            q->read_bytes(*da, pinned->data(), n * sizeof(float));
            CHECK(static_cast<float*>(pinned->data())[123] == 123.f);
        }
    }
}

TEST_CASE("conformance: fills with 1, 2, 4, 8 and 16-byte patterns, including tails") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            auto buf = dev->alloc_bytes(4096 + 64 + 8);
            check_fill(*q, *buf, 3.5f, 1000);        // 4000 bytes: a 16-byte tail of 0
            check_fill(*q, *buf, 0x12345678u, 1021); // 4084 bytes: a 4-byte tail
            check_fill(*q, *buf, std::uint16_t{0xbeef}, 2047);
            check_fill(*q, *buf, std::uint64_t{0x0102030405060708ull}, 513);
            struct P16 {
                std::uint32_t v[4];
            };
            check_fill(*q, *buf, P16{{1, 2, 3, 4}}, 260);
            check_fill(*q, *buf, std::uint8_t{7}, 4097);
            check_fill(*q, *buf, 0.f, 1024);         // all bytes equal: CUDA's cudaMemset path
            check_fill(*q, *buf, 0x9abcdef0u, 1024); // 4096 bytes: OpenCL widens it to 128
            try {                                    // buf->size() floats: four times the buffer
                q->fill(*buf, 1.f, buf->size());
                FAIL("no error");
            } catch (const Error& e) {
                CHECK(e.kind() == duet::ErrorKind::usage);
            }
        }
    }
}

TEST_CASE("conformance: copies, pinned host memory and event spans") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            const std::size_t n = 1 << 16;
            auto q = dev->create_queue(duet::QueueOptions::timed());
            auto host = dev->alloc_host(n * sizeof(int));
            CHECK(host->pinned());
            auto* p = static_cast<int*>(host->data());
            for (std::size_t i = 0; i < n; ++i)
                p[i] = static_cast<int>(i * 7);
            auto a = dev->alloc<int>(n), b = dev->alloc<int>(n);
            auto first = q->write_bytes(*a, p, n * sizeof(int), 0, false);
            q->copy(*a, *b, n * sizeof(int));
            std::vector<int> back(n);
            auto last = q->read(*b, back);
            CHECK(duet::Event::span_ms(first, last) >= 0.0);
            CHECK(std::equal(back.begin(), back.end(), p));
        }
    }
}

TEST_CASE("conformance: reads and writes past the end are usage errors naming both sizes") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            auto buf = dev->alloc_bytes(1024);
            std::vector<unsigned char> host(64);
            try {
                q->write_bytes(*buf, host.data(), 64, 1000);
                FAIL("no error");
            } catch (const Error& e) {
                CHECK(e.kind() == duet::ErrorKind::usage);
                CHECK(contains(e.what(), "1000"));
                CHECK(contains(e.what(), "1024"));
            }
            try {
                q->read_bytes(*buf, host.data(), 64, 961);
                FAIL("no error");
            } catch (const Error& e) {
                CHECK(e.kind() == duet::ErrorKind::usage);
                CHECK(contains(e.what(), "961"));
            }
            // The edge itself is fine.
            q->write_bytes(*buf, host.data(), 64, 960);
        }
    }
}
