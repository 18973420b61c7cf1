// matmul's best step: each way of covering C (a split of K, thin edges by matmul_best_edge,
// aligned copies, clamped loads, stream-K, each order of a step's multiply-adds) run on every
// device, fully checked. Its defines per device and its plan for a problem are in
// test_apps_best_plan.cpp. Part of test_apps, so run again under Oclgrind.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "app.hpp"
#include "test_util.hpp"

namespace {

// Every device of both backends, and matmul's best step run on one at `size`, fully checked.
std::vector<duet::Device*> all_devices() {
    auto devs = duet_test::devices_of("opencl");
    for (auto* d : duet_test::devices_of("cuda"))
        devs.push_back(d);
    return devs;
}

duet::apps::Result run_best(duet::Device& dev, const char* size, duet::apps::Defines defines) {
    const auto& app = duet::apps::find_app("matmul");
    for (const auto& v : app.variants())
        if (v.name == "best") {
            duet::apps::RunConfig cfg;
            cfg.size = app.parse_size(size);
            cfg.reps = 1;
            cfg.warmup = 0;
            cfg.verify = duet::apps::Verify::full;
            cfg.defines = std::move(defines);
            return app.run(dev, v, cfg);
        }
    FAIL("matmul has no best step");
    return {};
}

} // namespace
TEST_CASE("apps: matmul best split in K adds its slices up right, any number of them") {
    // Slices of K (grid z) write partial products that matmul_split_sum adds; 5 slices of 29 are
    // more than its 4 tiles of 8, so one slice is empty and must contribute zeros. Oclgrind,
    // which simulates every work-item, gets K = 41 for the larger size instead of 257 (6 tiles
    // of 8: still more than one a slice at 2 and 3; M and N, so the edges, as before).
    const char* larger = duet_test::under_oclgrind() ? "129x65x41" : "129x65x257";
    for (auto* dev : all_devices())
        for (const char* splits : {"2", "3", "5"})
            for (const char* size : {"37x53x29", larger}) {
                SUBCASE((dev->info().id() + " split " + splits + " " + size).c_str()) {
                    // 3 slices of aligned copies (BEST_ALIGN), the others of the operands.
                    const auto r =
                        run_best(*dev, size,
                                 {{"BEST_SPLITK", splits},
                                  {"BEST_ALIGN", std::string(splits) == "3" ? "1" : "0"}});
                    INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                    CHECK(r.pass);
                    CHECK(r.note.find(std::string("K split in ") + splits) != std::string::npos);
                }
            }
}

TEST_CASE("apps: matmul best spread over the compute units gets every entry right") {
    // Small blocks (32x64) so that Oclgrind runs it: 70x130 is 3x3 blocks, K 45 six tiles of 8
    // (A's rows read by float). 2 groups take 4 blocks each and cut the last in K; 4 take one
    // round and cut the rest; 7 cut most; 9, one each. Its pieces added by its own launch, and
    // (not under Oclgrind, which takes the groups' counting for a race) by the second group to
    // finish each; with the edge kernel beside it (70x131: 2x2 blocks, at most 4 groups).
    const auto spread = [](duet::Device& dev, const char* size, const char* groups, const char* sum,
                           std::pair<std::string, std::string> one_more) {
        return run_best(dev, size,
                        {{"BEST_STREAM", "1"},
                         {"BEST_GROUPS", groups},
                         {"BEST_STREAM_SUM", sum},
                         std::move(one_more),
                         {"BEST_ALIGN", "0"},
                         {"BEST_BM", "32"},
                         {"BEST_BN", "64"}});
    };
    for (auto* dev : all_devices())
        for (const char* groups : {"2", "4", "7", "9"})
            for (const char* sum : {"0", "1"})
                for (const char* size : {"70x130x45", "70x131x45"}) {
                    if (sum[0] == '0' && duet_test::under_oclgrind())
                        continue;
                    const bool edges = std::string(size) == "70x131x45";
                    SUBCASE((dev->info().id() + " " + size + " groups " + groups + " sum " + sum)
                                .c_str()) {
                        const auto r =
                            spread(*dev, size, groups, sum, {"BEST_EDGES", edges ? "1" : "0"});
                        INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                        CHECK(r.pass);
                        CHECK(r.verified);
                        const int most = std::min(std::stoi(groups), edges ? 4 : 9);
                        CHECK(r.note.find("spread over " + std::to_string(most) + " group") !=
                              std::string::npos);
                        CHECK((r.note.find("matmul_best_stream_sum") != std::string::npos) ==
                              (sum[0] == '1'));
                        CHECK((r.note.find("by matmul_best_edge") != std::string::npos) == edges);
                    }
                }
    // The host counts the kernel's work in its tiles of K: a depth of the user's (4: K 45 is 12
    // tiles) as well as the default. A count that differed would leave C unwritten. And C's
    // unaligned rows out through local memory at the user's BEST_ROWS_OUT=1 (the host leaves it
    // out of this kernel), its slices 8 rows of 64 for blocks of 32 rows.
    for (auto* dev : all_devices()) {
        SUBCASE((dev->info().id() + " BEST_BK=4").c_str()) {
            const auto r = spread(*dev, "70x130x45", "4", "1", {"BEST_BK", "4"});
            INFO(dev->label() << " max error " << r.max_error << " " << r.note);
            CHECK(r.pass);
            CHECK(r.verified);
        }
        SUBCASE((dev->info().id() + " BEST_ROWS_OUT=1").c_str()) {
            const auto r = spread(*dev, "70x131x45", "4", "1", {"BEST_ROWS_OUT", "1"});
            INFO(dev->label() << " max error " << r.max_error << " " << r.note);
            CHECK(r.pass);
            CHECK(r.verified);
        }
    }
    // Every block inside C and K whole tiles (64x128x48: 2x2 blocks, 6 tiles of 8): the host
    // builds the OpenCL kernel without its checked loop (BEST_ALL_INSIDE), whole blocks and
    // pieces alike; a user's BEST_ALL_INSIDE=1 where a block reaches past C is refused.
    for (auto* dev : all_devices()) {
        for (const char* groups : {"3", "4"})
            SUBCASE((dev->info().id() + " all inside, groups " + groups).c_str()) {
                const auto r = spread(*dev, "64x128x48", groups, "1", {"BEST_EDGES", "0"});
                INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                CHECK(r.pass);
                CHECK(r.verified);
                CHECK(r.note.find(std::string("spread over ") + groups + " group") !=
                      std::string::npos);
            }
        SUBCASE((dev->info().id() + " BEST_ALL_INSIDE=1 past C").c_str()) {
            CHECK_THROWS_WITH_AS(spread(*dev, "70x130x45", "4", "1", {"BEST_ALL_INSIDE", "1"}),
                                 doctest::Contains("leave it out"), duet::Error);
        }
    }
}

TEST_CASE("apps: matmul best with C's edges by matmul_best_edge gets every entry right") {
    // Thin and wide remainders, no whole block at all, one row, one column; with and without
    // aligned copies (131x255: B's copied rows of 256 are one whole block, C's of 255 are not).
    for (auto* dev : all_devices())
        for (const char* size : {"131x259x37", "131x255x37", "1x300x250", "300x1x270", "33x40x9"})
            for (const char* align : {"0", "1", "2"}) {
                SUBCASE((dev->info().id() + " edges " + size + " align " + align).c_str()) {
                    const auto r =
                        run_best(*dev, size, {{"BEST_EDGES", "1"}, {"BEST_ALIGN", align}});
                    INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                    CHECK(r.pass);
                    CHECK(r.verified);
                    CHECK(r.note.find("by matmul_best_edge") != std::string::npos);
                    // Every size has rows to align; with 2 only B's (N % 4 != 0) are copied.
                    const std::string s = size;
                    const bool b_unaligned = s.find("x259x") != std::string::npos ||
                                             s.find("x255x") != std::string::npos ||
                                             s.find("x1x") != std::string::npos;
                    CHECK((r.note.find("matmul_best_copy") != std::string::npos) ==
                          (align[0] == '1' || (align[0] == '2' && b_unaligned)));
                    CHECK((r.note.find("(A ") != std::string::npos) == (align[0] == '1'));
                }
            }
}

TEST_CASE("apps: matmul best's blocks at C's edges with clamped loads get every entry right") {
    // Aligned rows of B, blocks past C's last rows and columns (BEST_CLAMP from the plan), and
    // the same with the checked loads; A's rows aligned, and by float (K = 21); and C's rows
    // unaligned (N = 261: B's rows by float, C's out through local memory, BEST_ROWS_OUT).
    for (auto* dev : all_devices())
        for (const char* size : {"132x260x20", "132x260x21", "130x261x20"})
            for (const char* clamp : {"0", "1"}) {
                SUBCASE((dev->info().id() + " " + size + " clamp " + clamp).c_str()) {
                    const auto r =
                        run_best(*dev, size,
                                 {{"BEST_EDGES", "0"}, {"BEST_ALIGN", "0"}, {"BEST_CLAMP", clamp}});
                    INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                    CHECK(r.pass);
                    CHECK(r.verified);
                }
            }
}

TEST_CASE("apps: matmul best's multiply-adds in each order give the same entries") {
    // BEST_ORDER reorders a step's multiply-adds (a hint to the compiler's register
    // allocation): each entry still sums over K in the same order, so every order gives the same
    // numbers, with blocks inside C (the hot loop) and at its edges, in best and in the stream
    // kernel. The orders are those each language's kernels offer, the ones the host builds:
    // OpenCL 0 (row by row), 3 (pairs of rows, serpentine) and 4 (the last row first); CUDA 1
    // (serpentine) and 4. (Under Oclgrind one block and order 3, and B's columns swapped: the
    // order moves no memory access, and the swap only which float of each 16 bytes goes where.)
    const bool sim = duet_test::under_oclgrind();
    const std::vector<const char*> sizes =
        sim ? std::vector<const char*>{"128x256x24"}
            : std::vector<const char*>{"256x512x48", "300x520x37"};
    for (auto* dev : all_devices())
        for (const char* size : sizes) {
            SUBCASE((dev->info().id() + " " + size).c_str()) {
                const bool cuda = dev->info().kernel_language == duet::KernelLanguage::cuda;
                const char* first = cuda ? "1" : "0";      // the kernels' own default
                const char* serpentine = cuda ? "1" : "3"; // the serpentine order of each
                const std::vector<const char*> orders =
                    cuda ? std::vector<const char*>{"4"}
                         : (sim ? std::vector<const char*>{"3"}
                                : std::vector<const char*>{"3", "4"});
                const auto rows = run_best(*dev, size, {{"BEST_ORDER", first}});
                CHECK(rows.pass);
                for (const char* order : orders) {
                    const auto r = run_best(*dev, size, {{"BEST_ORDER", order}});
                    INFO(dev->label() << " order " << order << " max errors " << rows.max_error
                                      << " " << r.max_error);
                    CHECK(r.pass);
                    CHECK(r.verified);
                    CHECK(r.max_error == rows.max_error);
                }
                // B's columns swapped in pairs in local memory and back in registers
                // (BEST_BSWAP, NVIDIA OpenCL's stream build): the same sums again.
                const auto swapped =
                    run_best(*dev, size, {{"BEST_ORDER", serpentine}, {"BEST_BSWAP", "1"}});
                INFO(dev->label() << " swapped max errors " << rows.max_error << " "
                                  << swapped.max_error);
                CHECK(swapped.pass);
                CHECK(swapped.verified);
                CHECK(swapped.max_error == rows.max_error);
                if (!sim) { // and the stream kernel's (the last row first where NVIDIA's compiler)
                    const auto s0 =
                        run_best(*dev, size, {{"BEST_STREAM", "1"}, {"BEST_ORDER", first}});
                    const auto s4 =
                        run_best(*dev, size, {{"BEST_STREAM", "1"}, {"BEST_ORDER", "4"}});
                    INFO(dev->label()
                         << " stream max errors " << s0.max_error << " " << s4.max_error);
                    CHECK(s0.pass);
                    CHECK(s4.pass);
                    CHECK(s4.note.find("matmul_best_stream") != std::string::npos);
                    CHECK(s4.max_error == s0.max_error);
                    const auto s3 = run_best(
                        *dev, size,
                        {{"BEST_STREAM", "1"}, {"BEST_ORDER", serpentine}, {"BEST_BSWAP", "1"}});
                    CHECK(s3.pass);
                    CHECK(s3.max_error == s0.max_error);
                }
            }
        }
}

TEST_CASE("apps: a split of K beyond 64 slices is a usage error") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        try {
            run_best(*dev, "64", {{"BEST_SPLITK", "65"}});
            FAIL("BEST_SPLITK=65 was accepted");
        } catch (const duet::Error& e) {
            CHECK(e.kind() == duet::ErrorKind::usage);
            CHECK(std::string(e.what()).find("BEST_SPLITK") != std::string::npos);
        }
        break;
    }
}
