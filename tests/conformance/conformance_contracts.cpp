// Conformance, on every device of every backend: the launch contracts, each a misuse that once
// crashed or silently misbehaved. Local memory as each language takes it, and arguments per
// launch, checked against the kernel's signature (OpenCL knows each parameter's type and name,
// CUDA only its size: the messages say what the backend knows). Ranges, threads and queue
// lifetime are in conformance_contracts_limits.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include <duet/cuda/tile_map.hpp> // the earlier spelling, duet::cuda::tile_map, still works

#include "contract_kernels.hpp"

using conformance::contains;
using conformance::usage_error;
using duet::Range;

TEST_CASE("conformance: the histogram and two duet::local arguments, as each language takes them") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            // OpenCL: a __local int* parameter; CUDA: `extern __shared__` bins, no parameter.
            auto k = conformance::load_or_skip(*dev, "histogram", conformance::histogram_program());
            if (!k)
                continue;
            auto q = dev->create_queue();
            const int n = 4096 + 77;
            const duet_test::HistogramCase hc(n);
            std::vector<int> hist(256, -1);
            auto dd = dev->alloc<int>(n), dh = dev->alloc<int>(256);
            q->write(*dd, hc.data);
            q->write(*dh, std::vector<int>(256, 0)); // not fill: Oclgrind counts it uninitialised
            q->launch(*k, Range(duet::round_up(n, 64)).local(64), *dd, *dh, n,
                      duet::local(256 * sizeof(int)));
            q->read(*dh, hist);
            CHECK(hist == hc.want);

            // Two local arguments: two __local parameters, or one shared array laid out in
            // argument order, 16-byte aligned.
            auto two =
                conformance::load_or_skip(*dev, "two_locals", conformance::contract_program());
            auto dout = dev->alloc<int>(33);
            q->launch(*two, Range(33).local(33), *dout, duet::local(33 * sizeof(int)),
                      duet::local(33 * sizeof(int)));
            std::vector<int> out(33);
            q->read(*dout, out);
            int wrong = 0;
            for (int l = 0; l < 33; ++l)
                wrong += out[l] != (32 - l) + 100 * l;
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("conformance: arguments are per launch and checked against the signature") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            const int n = 256;
            conformance::Axpy ax(*dev, n);
            auto& [k, q, dx, dy] = ax;
            if (!k)
                continue;
            const bool cuda = conformance::runs_cuda(*dev);
            std::vector<float> x(n, 2.f), y(n, 1.f);
            q->write(*dx, x);
            q->write(*dy, y);
            q->launch(*k, Range(n).local(64), *dx, *dy, 3.f, n);
            q->read(*dy, y);
            CHECK(y[0] == 7.f);

            // The last argument left out: named, never taken from the launch before.
            std::string e = usage_error([&] { q->launch(*k, Range(n).local(64), *dx, *dy, 3.f); });
            CHECK(contains(e, "argument 3"));
            CHECK(contains(e, "not set"));
            CHECK(contains(e, "4 arguments"));
            CHECK(contains(e, "3 were given"));
            // The signature: OpenCL's names (-cl-kernel-arg-info), CUDA's parameter sizes.
            CHECK(contains(e, cuda ? "(8 bytes, 8 bytes, 4 bytes, 4 bytes)" : "int n"));
            // One too many: both counts and the signature.
            e = usage_error([&] { q->launch(*k, Range(n).local(64), *dx, *dy, 3.f, n, n); });
            CHECK(contains(e, "4 arguments"));
            CHECK(contains(e, "5 were given"));
            // Kinds and sizes.
            e = usage_error([&] { q->launch(*k, Range(n).local(64), n, *dy, 3.f, n); });
            CHECK(contains(e, "argument 0"));
            CHECK(contains(e, "buffer"));
            e = usage_error([&] { q->launch(*k, Range(n).local(64), *dx, *dy, *dx, n); });
            CHECK(contains(e, "argument 2"));
            e = usage_error([&] { q->launch(*k, Range(n).local(64), *dx, *dy, 3.0, n); });
            CHECK(contains(e, "argument 2"));
            CHECK(contains(e, cuda ? "scalar of 8 bytes" : "8-byte"));
            e = usage_error(
                [&] { q->launch(*k, Range(n).local(64), *dx, duet::local(64), 3.f, n); });
            CHECK(contains(e, "argument 1"));
            e = usage_error(
                [&] { q->launch(*k, Range(n).local(64), *dx, *dy, 3.f, std::int64_t{n}); });
            CHECK(contains(e, "argument 3"));
            // Nothing above reached the device: y is as the one good launch left it.
            q->read(*dy, y);
            CHECK(y[n - 1] == 7.f);
        }
    }
}

// The tile map (duet::tile_map, an extension): its shape is checked by the runtime on every
// device, and a kernel that wants a buffer refuses it by name on every backend.
TEST_CASE("conformance: a tile map's shape is checked, and a buffer parameter takes none") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            const int n = 256;
            conformance::Axpy ax(*dev, n);
            auto& [k, q, dx, dy] = ax;
            if (!k)
                continue;
            const auto launch = [&](const duet::TileMap& t) {
                return usage_error([&] { q->launch(*k, Range(n).local(64), t, *dy, 3.f, n); });
            };
            // Shapes the tile copier cannot take, named before anything else is looked at.
            std::string e = launch(duet::cuda::tile_map(*dx, 8, 32, 300, 32));
            CHECK(contains(e, "argument 0"));
            CHECK(contains(e, "box of 300 x 32"));
            e = launch(duet::tile_map(*dx, 8, 32, 8, 64));
            CHECK(contains(e, "box of 8 x 64"));
            e = launch(duet::tile_map(*dx, 16, 15, 8, 8));
            CHECK(contains(e, "15 floats"));
            CHECK(contains(e, "16 bytes"));
            e = launch(duet::tile_map(*dx, 16, 32, 8, 8)); // 512 floats over 256
            CHECK(contains(e, "over a buffer of 1024 bytes"));
            e = launch(duet::tile_map(*dx, 0, 32, 8, 8));
            CHECK(contains(e, "empty"));
            // A good shape where the kernel wants the buffer itself, named: CUDA by its size (a
            // 128-byte CUtensorMap for an 8-byte pointer); OpenCL by the device where it has no
            // tile copy engine (the nv.sm90a_ptx extension), else by the parameter's type.
            e = launch(duet::tile_map(*dx, 8, 32, 8, 32));
            CHECK(contains(e, "argument 0"));
            CHECK(contains(e, "duet::tile_map"));
            if (conformance::runs_cuda(*dev))
                CHECK(contains(e, "128 bytes"));
            else
                CHECK(contains(e, dev->info().has_extension("nv.sm90a_ptx")
                                      ? "global const DuetTileMap*"
                                      : "(the device extension nv.sm90a_ptx)"));
        }
    }
}
