// runapp compile: what each vendor's compiler says about a kernel, read from its output.
// Pure functions of the text, unit tested on captured samples (tests/test_compile.cpp).
#include <algorithm>
#include <regex>
#include <sstream>

#include "cmd_compile.hpp"

namespace runapp::compile {

namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

long to_long(const std::string& s) {
    try {
        return std::stol(s);
    } catch (...) {
        return -1;
    }
}

} // namespace

// PTM.txt lists each kernel ("KernelName X") and its patch tokens ("Token N", then "Hex" bytes,
// little-endian 32-bit words after the 8-byte token header). The tokens read (IGC's patch list):
// 15 ALLOCATE_LOCAL_SURFACE {offset, inline local bytes}; 18 MEDIA_VFE_STATE and 55 its slot 1
// {scratch offset, per-thread scratch bytes}: spills and private arrays; 23 EXECUTION_ENVIRONMENT
// {required work-group x, y, z, largest compiled SIMD width, ...}.
std::vector<KernelUsage> parse_ocloc_ptm(const std::string& text) {
    std::vector<KernelUsage> out;
    std::istringstream in(text);
    std::string line;
    long token = -1;
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (t.rfind("KernelName ", 0) == 0) {
            KernelUsage k;
            k.kernel = trim(t.substr(11));
            k.scratch = 0; // a kernel without a scratch token uses none
            k.local = 0;
            out.push_back(k);
            token = -1;
            continue;
        }
        if (out.empty())
            continue;
        std::smatch m;
        static const std::regex token_re(R"(^\d+ Token (\d+)$)");
        if (std::regex_match(t, m, token_re)) {
            token = to_long(m[1]);
            continue;
        }
        if (t.rfind("Hex", 0) != 0 || token < 0)
            continue;
        std::vector<unsigned long> bytes;
        std::istringstream hex(t.substr(3));
        std::string b;
        while (hex >> b)
            bytes.push_back(std::stoul(b, nullptr, 16) & 0xff);
        auto word = [&](std::size_t i) -> long {
            if (bytes.size() < 4 * (i + 1))
                return -1;
            return long(bytes[4 * i] | bytes[4 * i + 1] << 8 | bytes[4 * i + 2] << 16 |
                        bytes[4 * i + 3] << 24);
        };
        auto& k = out.back();
        if (token == 15 && word(1) >= 0)
            k.local = word(1);
        else if ((token == 18 || token == 55) && word(1) >= 0)
            k.scratch = std::max(k.scratch, word(1));
        else if (token == 23) {
            k.simd = word(3);
            const long x = word(0), y = word(1), z = word(2);
            if (x > 0 && y > 0 && z > 0) {
                k.max_wg = x * y * z;
                k.note = "reqd_work_group_size";
            }
        }
        token = -1;
    }
    return out;
}

// The kernels' metadata follows "amdhsa.kernels:"; each kernel is a list item ("  - ") whose
// own keys are indented by four spaces (its arguments' keys lie deeper).
std::vector<KernelUsage> parse_amdgpu_asm(const std::string& text) {
    std::vector<KernelUsage> out;
    std::istringstream in(text);
    std::string line;
    bool in_kernels = false;
    long vspill = -1, sspill = -1;
    auto finish = [&] {
        if (!out.empty() && (vspill >= 0 || sspill >= 0))
            out.back().spill = std::max(0L, vspill) * 4 + std::max(0L, sspill) * 4;
        vspill = sspill = -1;
    };
    static const std::regex key_re(R"(^    \.(\w+):\s*(\S+)\s*$)");
    while (std::getline(in, line)) {
        if (line.rfind("amdhsa.kernels:", 0) == 0) {
            in_kernels = true;
            continue;
        }
        if (!in_kernels)
            continue;
        if (!line.empty() && line[0] != ' ') // the next top-level key ends the list
            break;
        if (line.rfind("  - ", 0) == 0) {
            finish();
            out.push_back({});
            line = "    " + line.substr(4); // the item's first key sits on its dash line
        }
        std::smatch m;
        if (out.empty() || !std::regex_match(line, m, key_re))
            continue;
        const std::string key = m[1], value = m[2];
        auto& k = out.back();
        if (key == "name")
            k.kernel = value;
        else if (key == "vgpr_count")
            k.vgpr = to_long(value);
        else if (key == "sgpr_count")
            k.sgpr = to_long(value);
        else if (key == "agpr_count")
            k.agpr = to_long(value);
        else if (key == "vgpr_spill_count")
            vspill = to_long(value);
        else if (key == "sgpr_spill_count")
            sspill = to_long(value);
        else if (key == "group_segment_fixed_size")
            k.local = to_long(value);
        else if (key == "private_segment_fixed_size")
            k.scratch = to_long(value);
        else if (key == "max_flat_workgroup_size")
            k.max_wg = to_long(value);
        else if (key == "wavefront_size")
            k.simd = to_long(value);
    }
    finish();
    out.erase(std::remove_if(out.begin(), out.end(),
                             [](const KernelUsage& k) { return k.kernel.empty(); }),
              out.end());
    return out;
}

long nvidia_max_threads(long regs) {
    if (regs <= 0)
        return 1024;
    // Registers are allocated per warp in units of 256; an SM (sm_70..sm_90) has 65536.
    const long per_warp = (regs * 32 + 255) / 256 * 256;
    return std::min(1024L, 65536 / per_warp * 32);
}

std::vector<KernelUsage> parse_ptxas(const std::string& text) {
    std::vector<KernelUsage> out;
    static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
    static const std::regex frame_re(
        R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex used_re(R"(Used (\d+) registers)");
    static const std::regex smem_re(R"((\d+) bytes smem)");
    std::istringstream in(text);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, entry_re)) {
            KernelUsage k;
            k.kernel = m[1];
            k.local = 0;
            out.push_back(k);
            continue;
        }
        if (out.empty())
            continue;
        auto& k = out.back();
        if (std::regex_search(line, m, frame_re)) {
            k.scratch = to_long(m[1]);
            k.spill = to_long(m[2]);
        }
        if (std::regex_search(line, m, used_re)) {
            k.vgpr = to_long(m[1]);
            k.max_wg = nvidia_max_threads(k.vgpr);
            k.simd = 32;
            k.note = "largest block from the register count (64K registers per SM)";
        }
        if (std::regex_search(line, m, smem_re))
            k.local = to_long(m[1]);
    }
    return out;
}

} // namespace runapp::compile
