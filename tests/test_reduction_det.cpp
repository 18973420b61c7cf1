// reduction's det_f32: the same bits whatever the work-group size, the device's compute units
// or the backend. Each device's sum must equal, bit for bit, the documented order of additions
// computed here on the host (kernels_cl/reduction_det.cl), which knows no device at all.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "app.hpp"
#include "reduction.hpp"
#include "reduction_det.hpp"
#include "runapp_shell.hpp"
#include "test_util.hpp"

namespace {

constexpr std::size_t lanes = 256, chunk_floats = 16384, chunk_pairs = 4096;

// The kernels' TwoSum and merge, in the same order of operations.
void add(float& s, float& c, float x) {
    const float t = s + x, b = t - s;
    const float e = (s - (t - b)) + (x - b);
    s = t;
    c = c + e;
}
void merge(float& s, float& c, float s2, float c2) {
    const float t = s + s2, b = t - s;
    const float e = (s - (t - b)) + (s2 - b);
    s = t;
    c = (c + c2) + e;
}

// One pass: chunk g's 256 lanes, each in its order, then the tree. `pairs`: in holds (s, c).
std::vector<float> host_pass(const std::vector<float>& in, std::size_t n, bool pairs) {
    const std::size_t chunk = pairs ? chunk_pairs : chunk_floats;
    std::vector<float> out;
    for (std::size_t base = 0; base < n; base += chunk) {
        std::vector<float> sd(2 * lanes);
        for (std::size_t v = 0; v < lanes; ++v) {
            float s = 0, c = 0;
            if (pairs) {
                for (std::size_t j = 0; j < chunk / lanes; ++j)
                    if (const std::size_t i = base + v + j * lanes; i < n)
                        merge(s, c, in[2 * i], in[2 * i + 1]);
            } else {
                for (std::size_t j = 0; j < chunk / (4 * lanes); ++j)
                    for (std::size_t e = 0; e < 4; ++e) {
                        const std::size_t i = base + 4 * (v + j * lanes) + e;
                        add(s, c, i < n ? in[i] : 0.0f);
                    }
            }
            sd[2 * v] = s;
            sd[2 * v + 1] = c;
        }
        for (std::size_t h = lanes / 2; h >= 1; h /= 2)
            for (std::size_t v = 0; v < h; ++v)
                merge(sd[2 * v], sd[2 * v + 1], sd[2 * (v + h)], sd[2 * (v + h) + 1]);
        out.push_back(sd[0]);
        out.push_back(sd[1]);
    }
    return out;
}

std::uint32_t host_bits(std::size_t n, std::uint64_t seed) {
    // The float steps' own input (reduction_problem: values whose plain sums are exact).
    const auto& input = *duet::apps::reduction_problem<float>(n, seed).input;
    std::vector<float> cur(input.begin(), input.end());
    cur = host_pass(cur, n, false);
    while (cur.size() > 2)
        cur = host_pass(cur, cur.size() / 2, true);
    return std::bit_cast<std::uint32_t>(cur[0] + cur[1]);
}

// The sum's bits from a run's note ("bits 0x1234abcd"); nullopt when absent.
std::optional<std::uint32_t> note_bits(const std::string& text) {
    std::smatch m;
    if (!std::regex_search(text, m, std::regex("bits 0x([0-9a-f]{8})")))
        return std::nullopt;
    return static_cast<std::uint32_t>(std::stoul(m[1].str(), nullptr, 16));
}

const duet::apps::App& reduction() {
    for (const auto* app : duet::apps::all_apps())
        if (app->name() == "reduction")
            return *app;
    FAIL("no reduction app");
    throw 0;
}

const duet::apps::Step& det_step() {
    for (const auto& s : reduction().steps())
        if (s.name == "det_f32")
            return s;
    FAIL("reduction has no det_f32 step");
    throw 0;
}

} // namespace

TEST_CASE("det_f32: the bits of the documented order on every device, whatever the group size") {
    const bool sim = duet_test::under_oclgrind();
    const std::vector<std::size_t> sizes = sim ? std::vector<std::size_t>{1, 5003, 40000}
                                               : std::vector<std::size_t>{1, 65537, 1000003};
    auto devs = duet_test::devices_of("opencl");
    for (auto* d : duet_test::devices_of("cuda"))
        devs.push_back(d);
    for (auto* dev : devs)
        for (const std::size_t n : sizes) {
            const std::uint32_t want = host_bits(n, 42);
            for (const std::size_t local : {0, 1, 3, 32, 64, 256}) {
                if (local > dev->info().max_work_group_size)
                    continue;
                SUBCASE((dev->info().id() + " n=" + std::to_string(n) +
                         " local=" + (local ? std::to_string(local) : "default"))
                            .c_str()) {
                    duet::apps::RunConfig cfg;
                    cfg.size = {n};
                    cfg.reps = 3; // three repeats after the timed run, each compared
                    cfg.warmup = 0;
                    if (local)
                        cfg.local = std::array<std::size_t, 2>{local, 1};
                    const auto r = reduction().run(*dev, det_step(), cfg);
                    INFO(dev->label() << ": " << r.note);
                    CHECK(r.pass);
                    CHECK(r.note.find("same bits in 3 of 3") != std::string::npos);
                    const auto got = note_bits(r.note);
                    REQUIRE(got);
                    CHECK(*got == want);
                }
            }
        }
}

TEST_CASE("det_f32: its passes follow from n alone") {
    duet::apps::RunConfig cfg;
    const auto p = duet::apps::det_plan(std::size_t{1} << 28, cfg);
    REQUIRE(p.size() == 3);
    CHECK((p[0].items == (std::size_t{1} << 28) && p[0].groups == 16384 && !p[0].pairs));
    CHECK((p[1].items == 16384 && p[1].groups == 4 && p[1].pairs));
    CHECK((p[2].items == 4 && p[2].groups == 1 && p[2].pairs));
    CHECK(duet::apps::det_plan(1, cfg).size() == 1);
}

TEST_CASE("det_f32: the same bits on PoCL with one compute unit as with all of them") {
    if (duet_test::under_oclgrind())
        return; // PoCL's own variable; the order test above covers Oclgrind
    std::string id;
    for (auto* d : duet_test::devices_of("opencl"))
        if (d->info().platform.find("Portable") != std::string::npos && d->info().compute_units > 1)
            id = d->info().id();
    if (id.empty()) {
        MESSAGE("no PoCL device with several compute units: nothing to compare");
        return;
    }
    const std::string run = duet_test::runapp_path() + " run reduction --device " + id +
                            " --size 1000003 --reps 2 --variant det_f32,grid_stride_f32";
    const auto [rc_all, all] = duet_test::shell(run);
    const auto [rc_one, one] = duet_test::shell("POCL_MAX_PTHREAD_COUNT=1 " + run);
    INFO(all << "\n---- with one compute unit:\n" << one);
    REQUIRE(rc_all == 0);
    REQUIRE(rc_one == 0);
    // The environment did change the device: grid_stride sizes its grid by the compute units.
    const std::regex groups("grid_stride_f32.*?passes \\((\\d+), 1 groups\\)");
    std::smatch ma, mo;
    REQUIRE(std::regex_search(all, ma, groups));
    REQUIRE(std::regex_search(one, mo, groups));
    CHECK(ma[1].str() != mo[1].str());
    const auto bits_all = note_bits(all), bits_one = note_bits(one);
    REQUIRE(bits_all);
    REQUIRE(bits_one);
    CHECK(*bits_all == *bits_one);
    CHECK(*bits_all == host_bits(1000003, 42));
}
