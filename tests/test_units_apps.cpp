// Unit tests of the apps' framework (part of test_units): sizes, the app and variant names,
// every variant's kernel in both languages, and which indices a check reads.
#include <doctest/doctest.h>

#include <duet/backend/kernel_sources.hpp>
#include <duet/duet.hpp>

#include "app.hpp"
#include "cpu_steps.hpp"

using duet::Error;

TEST_CASE("sizes: counts, powers, suffixes and shapes; bad sizes are usage errors") {
    using duet::apps::parse_dims;
    CHECK(parse_dims("4096") == std::vector<std::size_t>{4096});
    CHECK(parse_dims("2^20") == std::vector<std::size_t>{1u << 20});
    CHECK(parse_dims("16M") == std::vector<std::size_t>{16u << 20});
    CHECK(parse_dims("64k") == std::vector<std::size_t>{65536});
    CHECK(parse_dims("1920x1080") == std::vector<std::size_t>{1920, 1080});
    CHECK(parse_dims("37x53x29") == std::vector<std::size_t>{37, 53, 29});
    for (const char* bad :
         {"0", "-5", "abc", "", "12abc", "3^4", "1x", "x2", "1.5", "2^99", "99999999999999999"}) {
        INFO(bad);
        try {
            parse_dims(bad);
            FAIL("accepted");
        } catch (const Error& e) {
            CHECK(e.kind() == duet::ErrorKind::usage);
            CHECK(std::string(e.what()).find("size") != std::string::npos);
        }
    }
}

TEST_CASE("every app variant's kernel exists in both languages") {
    for (const auto* app : duet::apps::all_apps())
        for (const auto& v : app->variants()) {
            INFO(app->name() << " " << v.name << " -> " << v.kernel);
            CHECK(duet::find_kernel_source(v.kernel, duet::KernelLanguage::opencl_c));
            CHECK(duet::find_kernel_source(v.kernel, duet::KernelLanguage::cuda));
        }
}

TEST_CASE("apps: unknown app and variant name what exists") {
    CHECK_THROWS_WITH_AS(duet::apps::find_app("fft"), doctest::Contains("the apps are: vecadd"),
                         Error);
    const auto& v = duet::apps::find_app("vecadd");
    CHECK_THROWS_WITH_AS(duet::apps::select_variants(v, "naive,bogus"),
                         doctest::Contains("its variants are"), Error);
    CHECK(duet::apps::select_variants(v, "all").size() == v.variants().size());
    CHECK(duet::apps::select_variants(v, "naive").size() == 1);
}

TEST_CASE("check_indices: full checks everything, sample includes both ends") {
    using duet::apps::check_indices;
    using duet::apps::Verify;
    CHECK(check_indices(100, Verify::full, 1).size() == 100);
    CHECK(check_indices(100, Verify::off, 1).empty());
    const auto s = check_indices(1000000, Verify::sample, 1);
    CHECK(s.front() == 0);
    CHECK(s.back() == 999999);
    CHECK(s.size() < 5000);
}

TEST_CASE("cpu steps: vector width from the device's preferred, else native, float width") {
    using duet::apps::cpu_vector_width;
    duet::apps::RunConfig cfg;
    duet::DeviceInfo info;
    info.backend = "opencl";
    info.kernel_language = duet::KernelLanguage::opencl_c;
    const auto width = [&](std::vector<std::pair<std::string, std::string>> details) {
        info.details = std::move(details);
        return cpu_vector_width(info, cfg);
    };
    CHECK(width({{"Preferred float vector width", "8"}, {"Native float vector width", "8"}}) == 8);
    CHECK(width({{"Preferred float vector width", "16"}, {"Native float vector width", "16"}}) ==
          16);
    // Intel's CPU runtime: prefers 1 (its compiler widens scalar code), native 8 with AVX2
    CHECK(width({{"Preferred float vector width", "1"}, {"Native float vector width", "8"}}) == 8);
    CHECK(width({{"Preferred float vector width", "1"}, {"Native float vector width", "1"}}) == 4);
    CHECK(width({{"Preferred float vector width", "32"}}) == 16);
    CHECK(width({}) == 8);
    cfg.defines = {{"CPU_VW", "16"}};
    CHECK(width({{"Preferred float vector width", "4"}}) == 16);
    cfg.defines = {{"CPU_VW", "3"}};
    CHECK_THROWS_AS(width({}), duet::Error);
    cfg.defines.clear();
    info.kernel_language = duet::KernelLanguage::cuda; // the CUDA twins are built for 8
    CHECK(width({{"Preferred float vector width", "4"}}) == 8);
}
