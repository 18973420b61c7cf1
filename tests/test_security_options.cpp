// Compiler options by allow-list, include lines in every spelling the preprocessor reads, and
// bounded name expressions (docs/design/security.md; issue 50 items 4 to 7 and 11).
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <doctest/doctest.h>

#include <duet/backend/build_options.hpp>
#include <duet/backend/include_expand.hpp>
#include <duet/backend/kernel_sources.hpp>
#include <duet/duet.hpp>

#include "runapp_child.hpp"
#include "security_util.hpp"
#include "test_util.hpp"

using duet::KernelLanguage;
using duet_test::in_child_within;

namespace {

// The usage Error's message for `options` in `field`, or "accepted".
std::string options_verdict(const char* field, const std::vector<std::string>& options) {
    try {
        const std::string f = field;
        duet::check_compiler_options(f == "cuda_options" ? "cuda-c++" : "opencl-c", f, options);
        return "accepted";
    } catch (const duet::Error& e) {
        return e.kind() == duet::ErrorKind::usage ? e.what() : "not a usage error";
    }
}

std::string include_verdict(const std::string& text, KernelLanguage lang) {
    try {
        duet::check_kernel_includes(text, lang, "k.cl", {"a.clh", "a.cuh"});
        return "accepted";
    } catch (const duet::Error& e) {
        return e.kind() == duet::ErrorKind::usage ? e.what() : "not a usage error";
    }
}

} // namespace

TEST_CASE("security: compiler options pass by allow-list, per language, in every form") {
    TempDir t("options");
    const std::string dir = t.path.string();
    for (const std::vector<std::string>& ok :
         std::vector<std::vector<std::string>>{{"-DX=1",
                                                "-D",
                                                "Y",
                                                "-UZ",
                                                "-I" + dir,
                                                "-I",
                                                dir,
                                                "-cl-std=CL3.0",
                                                "-cl-mad-enable",
                                                "-cl-fast-relaxed-math",
                                                "-w",
                                                "-Werror",
                                                "-Wno-unused",
                                                "-g",
                                                "-O2",
                                                "-O",
                                                "-cl-kernel-arg-info",
                                                "-cl-nv-maxrregcount",
                                                "32",
                                                "-cl-nv-opt-level=3",
                                                "-cl-nv-verbose"}}) {
        CHECK(options_verdict("opencl_options", ok) == "accepted");
    }
    CHECK(options_verdict("cuda_options", {"-std=c++20",
                                           "--std=c++17",
                                           "-lineinfo",
                                           "--generate-line-info",
                                           "--use_fast_math",
                                           "-G",
                                           "-I" + dir,
                                           "--include-path=" + dir,
                                           "-maxrregcount=64",
                                           "--maxrregcount",
                                           "32",
                                           "-ftz=true",
                                           "--prec-div=false",
                                           "-fmad=false",
                                           "-rdc=true",
                                           "-default-device",
                                           "--dopt=on",
                                           "-extra-device-vectorization",
                                           "-restrict",
                                           "--diag-suppress=177,550",
                                           "-DX",
                                           "--define-macro=Y=2"}) == "accepted");
    // What the issue found passing (or crashing drivers), and other spellings of the same.
    for (const std::vector<std::string>& bad :
         std::vector<std::vector<std::string>>{{"-stats-file=/tmp/x"},
                                               {"-ftest-coverage"},
                                               {"-coverage-notes-file=/tmp/x"},
                                               {"-header-include-file", "x"},
                                               {"-oFILE"},
                                               {"-o", "f"},
                                               {"-MFFILE"},
                                               {"-MD"},
                                               {"-save-temps"},
                                               {"-fsanitize=address"},
                                               {"-Rpass=.*"},
                                               {"-Xclang", "-load"},
                                               {"-mllvm", "-x"},
                                               {"-cl-std=CL9.9"},
                                               {"-Wl,-o,x"},
                                               {"-Wp,-MD,x"},
                                               {"-Ofast"},
                                               {"-D"},
                                               {"-DX=a b"},
                                               {"-D", "-o"},
                                               {"-I"},
                                               {"-I/nonexistent-dir"},
                                               {"--cl-mad-enable"},
                                               {"std=CL1.2"},
                                               {""},
                                               {"-"},
                                               {"-include", "x.h"}}) {
        const std::string why = options_verdict("opencl_options", bad);
        INFO(bad.front());
        CHECK(why.find("BuildOptions::opencl_options") != std::string::npos);
    }
    for (const std::vector<std::string>& bad :
         std::vector<std::vector<std::string>>{{"-arch=x86_64"},
                                               {"--gpu-architecture", "sm_90"},
                                               {"-dlto"},
                                               {"--time=t.csv"},
                                               {"--fdevice-time-trace=t.json"},
                                               {"-Xptxas=--output-file,x"},
                                               {"--pch"},
                                               {"--create-pch=x"},
                                               {"-ftz=maybe"},
                                               {"-maxrregcount=x"},
                                               {"-std=c++99"},
                                               {"--pre-include=x.h"},
                                               {"-lineinfo=1"},
                                               {"-o", "x"}}) {
        INFO(bad.front());
        CHECK(options_verdict("cuda_options", bad).find("BuildOptions::cuda_options") !=
              std::string::npos);
    }
    // The message names the option and says what is allowed.
    const std::string why = options_verdict("opencl_options", {"-stats-file=/tmp/x"});
    CHECK(why.find("'-stats-file=/tmp/x' is not allowed") != std::string::npos);
    CHECK(why.find("-cl-mad-enable") != std::string::npos);
    // An include directory someone else can write could hold any header: refused.
    const fs::path open_dir = t.path / "open";
    fs::create_directories(open_dir);
    ::chmod(open_dir.c_str(), 0777);
    CHECK(options_verdict("opencl_options", {"-I" + open_dir.string()}) != "accepted");
}

TEST_CASE("security: include lines are found in every spelling the preprocessor reads") {
    CHECK(include_verdict("#include \"a.clh\"\n", KernelLanguage::opencl_c) == "accepted");
    CHECK(include_verdict("  #  include \"a.clh\" // why\n", KernelLanguage::opencl_c) ==
          "accepted");
    CHECK(include_verdict("#include /* c */ \"a.clh\" /* c\n */\n", KernelLanguage::opencl_c) ==
          "accepted");
    CHECK(include_verdict("const char* s = \"#include </etc/x>\"; // #include <y>\n",
                          KernelLanguage::opencl_c) == "accepted");
    CHECK(include_verdict("#include <cuda_fp16.h>\n#include \"a.cuh\"\n", KernelLanguage::cuda) ==
          "accepted");
    CHECK(include_verdict("auto s = R\"(\n#include </etc/x>\n)\";\n", KernelLanguage::cuda) ==
          "accepted");
    // Each spelling of the issue, and others the preprocessor takes: refused, naming the line.
    const std::vector<std::pair<std::string, int>> bad = {
        {"#include \"/secret\"\n", 1},
        {"\n#include </secret>\n", 2},
        {"#include \"/secret\" // x\n", 1},
        {"int a;\n#/**/include \"/secret\"\n", 2},
        {"#inc\\\nlude \"/secret\"\n", 1},
        {"#include \\ \n\"/secret\"\n", 1},
        {"#define F \"/secret\"\n#include F\n", 2},
        {"%:include \"/secret\"\n", 1},
        {"/* a\n b */ #include \"/secret\"\n", 1},
        {"#include_next \"a.clh\"\n", 1},
        {"#import \"/secret\"\n", 1},
        {"#embed \"/secret\"\n", 1},
        {"#if __has_include(\"/secret\")\n#endif\n", 1},
        {"#include \"../a.clh\"\n", 1},
        {"#include \"a.clh\" x\n", 1},
        {"?\?=include \"/secret\"\n", 1},
        {"x = 1; /* never closed\n#include \"a.clh\"\n", 1},
        {"#define X 1 \\\n", 1},
        // C reads ' as a character literal where C++ for OpenCL reads a digit separator (and
        // a raw string): both readings are checked.
        {"int x = 1'0'/*';\n#include \"/secret\"\n// */\n", 2},
        {"s = R\"(/*)\";\n#include \"/secret\"\n// */\n", 2},
    };
    for (const auto& [text, line] : bad) {
        INFO(text);
        const std::string why = include_verdict(text, KernelLanguage::opencl_c);
        CHECK(why.find("kernel file k.cl line " + std::to_string(line) + ":") != std::string::npos);
    }
    CHECK(include_verdict("#include <../x.h>\n", KernelLanguage::cuda) != "accepted");
    CHECK(include_verdict("#include </etc/x.h>\n", KernelLanguage::cuda) != "accepted");
    CHECK(include_verdict("#include \"/etc/x.h\"\n", KernelLanguage::cuda) != "accepted");
}

TEST_CASE("security: include expansion frames headers by #line, and its bound holds") {
    const std::string header = "int h;\n";
    const auto lookup = [&](const std::string& n) { return n == "a.clh" ? &header : nullptr; };
    const std::string out =
        duet::expand_includes("m.cl", "int a;\n#/* x */include \\\n\"a.clh\" // y\nint b;", lookup);
    CHECK(out == "int a;\n#line 1 \"a.clh\"\nint h;\n#line 4 \"m.cl\"\nint b;\n");
    // Eight headers each including the next 30 times, in other spellings: still bounded.
    std::vector<std::string> texts(8);
    for (int h = 0; h < 8; ++h)
        for (int i = 0; i < 30; ++i)
            texts[h] += h < 7 ? "# /**/ include \\\n\"h" + std::to_string(h + 1) + ".clh\" // x\n"
                              : "int x;\n";
    CHECK(in_child_within(30, [&] {
        try {
            duet::expand_includes("d.cl", "%:include \"h0.clh\"\n", [&](const std::string& n) {
                return n.size() == 6 ? &texts[std::size_t(n[1] - '0')] : nullptr;
            });
        } catch (const duet::Error& e) {
            return std::string(e.what()).find("more than 64 MiB") != std::string::npos;
        }
        return false;
    }));
}

TEST_CASE("security: name expressions are bounded before NVRTC sees them") {
    std::string nested;
    for (int i = 0; i < 50000; ++i)
        nested += "A<";
    CHECK_THROWS_AS(duet::check_name_expressions({nested}), duet::Error);
    CHECK_THROWS_AS(duet::check_name_expressions({std::string(4097, 'a')}), duet::Error);
    CHECK_NOTHROW(duet::check_name_expressions({std::string(4096, 'a')}));
    std::string deep = "f";
    for (int i = 0; i < 65; ++i)
        deep += "<int";
    deep += std::string(65, '>');
    CHECK_THROWS_AS(duet::check_name_expressions({deep}), duet::Error);
}

TEST_CASE("security: Duet's own kernels pass the include check in both languages") {
    for (const auto lang : {KernelLanguage::opencl_c, KernelLanguage::cuda}) {
        std::size_t found = 0;
        for (const auto& name : duet::kernel_names(lang)) {
            INFO(name);
            std::optional<duet::SourceFile> f;
            CHECK_NOTHROW(f = duet::find_kernel_source(name, lang));
            found += f.has_value();
        }
        CHECK(found > 10);
    }
}
