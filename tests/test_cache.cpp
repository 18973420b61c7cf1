// The program cache: round trips, damaged entries, unwritable directories, concurrent writers.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include <duet/backend/program_cache.hpp>

namespace fs = std::filesystem;
using duet::ProgramCache;

namespace {
fs::path fresh_dir(const std::string& name) {
    fs::path p =
        fs::temp_directory_path() / ("duet-test-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(p);
    return p;
}
} // namespace

TEST_CASE("cache keys differ whenever any part differs, including how parts split") {
    const auto k = ProgramCache::key({"opencl", "src", "-DX=1", "dev", "drv"});
    CHECK(k.size() == 32);
    CHECK(k == ProgramCache::key({"opencl", "src", "-DX=1", "dev", "drv"}));
    CHECK(k != ProgramCache::key({"opencl", "src", "-DX=2", "dev", "drv"}));
    CHECK(k != ProgramCache::key({"opencl", "src", "-DX=1", "dev", "drv2"}));
    CHECK(ProgramCache::key({"ab", "c"}) != ProgramCache::key({"a", "bc"}));
}

TEST_CASE("cache: store, load, list, clear") {
    const auto dir = fresh_dir("rt");
    ProgramCache c(dir.string());
    REQUIRE(c.enabled());
    const std::vector<unsigned char> data = {1, 2, 3, 0, 255, 7};
    const auto key = ProgramCache::key({"x"});
    CHECK_FALSE(c.load(key));
    c.store(key, data, "test entry");
    auto back = c.load(key);
    REQUIRE(back);
    CHECK(*back == data);
    const auto entries = c.list();
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].description == "test entry");
    CHECK(c.clear() == 1);
    CHECK_FALSE(c.load(key));
    fs::remove_all(dir);
}

TEST_CASE("cache: truncated, corrupted and foreign entries read as misses") {
    const auto dir = fresh_dir("bad");
    ProgramCache c(dir.string());
    const std::vector<unsigned char> data(1000, 42);
    const auto key = ProgramCache::key({"y"});
    const fs::path file = dir / (key + ".bin");

    SUBCASE("truncated") {
        c.store(key, data, "d");
        fs::resize_file(file, fs::file_size(file) - 10);
        CHECK_FALSE(c.load(key));
    }
    SUBCASE("one byte flipped") {
        c.store(key, data, "d");
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-5, std::ios::end);
        f.put('\x13');
        f.close();
        CHECK_FALSE(c.load(key));
    }
    SUBCASE("extra bytes") {
        c.store(key, data, "d");
        std::ofstream(file, std::ios::app | std::ios::binary) << "junk";
        CHECK_FALSE(c.load(key));
    }
    SUBCASE("not a cache file") {
        fs::create_directories(dir);
        std::ofstream(file) << "hello";
        CHECK_FALSE(c.load(key));
    }
    SUBCASE("empty file") {
        fs::create_directories(dir);
        std::ofstream{file};
        CHECK_FALSE(c.load(key));
    }
    fs::remove_all(dir);
}

TEST_CASE("cache: an unwritable or impossible directory means no cache, not a failure") {
    if (::geteuid() == 0) {
        // root writes anywhere; a path under a regular file can never be a directory.
        const auto f = fresh_dir("file");
        std::ofstream(f) << "x";
        ProgramCache c((f / "sub").string());
        CHECK_FALSE(c.enabled());
        c.store("k", {1, 2}, "d"); // must not throw
        CHECK_FALSE(c.load("k"));
        fs::remove(f);
    } else {
        const auto dir = fresh_dir("ro");
        fs::create_directories(dir);
        ::chmod(dir.c_str(), 0555);
        ProgramCache c(dir.string());
        CHECK_FALSE(c.enabled());
        c.store("k", {1, 2}, "d");
        CHECK_FALSE(c.load("k"));
        ::chmod(dir.c_str(), 0755);
        fs::remove_all(dir);
    }
    ProgramCache off("");
    CHECK_FALSE(off.enabled());
    CHECK(off.list().empty());
}

TEST_CASE("cache: concurrent writers of one key leave one whole entry") {
    const auto dir = fresh_dir("race");
    ProgramCache c(dir.string());
    const auto key = ProgramCache::key({"z"});
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            // Same content as concurrent builds of one program would produce.
            std::vector<unsigned char> data(200000, static_cast<unsigned char>(7));
            for (int i = 0; i < 20; ++i) {
                c.store(key, data, std::string("writer ") += std::to_string(t));
                auto got = c.load(key);
                if (got)
                    REQUIRE(*got == data);
            }
        });
    for (auto& t : threads)
        t.join();
    auto got = c.load(key);
    REQUIRE(got);
    CHECK(got->size() == 200000);
    std::size_t files = 0;
    for (auto& e : fs::directory_iterator(dir))
        files += e.is_regular_file() && e.path().filename() != "cache.key";
    CHECK(files == 1); // no temporary files left behind
    fs::remove_all(dir);
}
