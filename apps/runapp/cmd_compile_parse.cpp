// runapp compile: what each vendor's compiler says about a kernel, read from its output.
// Pure functions of the text, unit tested on captured samples (tests/test_compile.cpp). The
// output quotes kernel names of any length, so it is read with plain scans, never std::regex
// (libstdc++'s recurses per character and overflows the stack on a long name).
#include <algorithm>
#include <cctype>
#include <cstdlib>
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

bool digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// The number whose digits start at s[at], moving `at` past them; -1 when there is none.
long digits_at(const std::string& s, std::size_t& at) {
    const std::size_t from = at;
    while (at < s.size() && digit(s[at]))
        ++at;
    return at > from ? to_long(s.substr(from, at - from)) : -1;
}

// The number whose digits end just before s[at]; -1 when there is none.
long digits_before(const std::string& s, std::size_t at) {
    std::size_t from = at;
    while (from > 0 && digit(s[from - 1]))
        --from;
    return from < at ? to_long(s.substr(from, at - from)) : -1;
}

// s[at...] starts with `word`: `at` moves past it.
bool skip(const std::string& s, std::size_t& at, const std::string& word) {
    if (s.compare(at, word.size(), word) != 0)
        return false;
    at += word.size();
    return true;
}

// "N<suffix>": the N before the first `suffix` that digits precede; -1 when none does.
long number_before(const std::string& line, const std::string& suffix) {
    for (auto at = line.find(suffix); at != std::string::npos; at = line.find(suffix, at + 1))
        if (const long n = digits_before(line, at); n >= 0)
            return n;
    return -1;
}

// "<prefix>N<suffix>": the N of the first such place; -1 when none.
long number_between(const std::string& line, const std::string& prefix, const std::string& suffix) {
    for (auto at = line.find(prefix); at != std::string::npos; at = line.find(prefix, at + 1)) {
        std::size_t i = at + prefix.size();
        const long n = digits_at(line, i);
        if (n >= 0 && skip(line, i, suffix))
            return n;
    }
    return -1;
}

// "N Token T" (a whole trimmed line of ocloc's PTM listing): T, or -1.
long ptm_token(const std::string& t) {
    std::size_t i = 0;
    if (digits_at(t, i) < 0 || !skip(t, i, " Token "))
        return -1;
    const long token = digits_at(t, i);
    return i == t.size() ? token : -1;
}

// "    .KEY: VALUE" (a kernel's own key in amdhsa metadata): false for any other line.
bool amd_key(const std::string& line, std::string& key, std::string& value) {
    std::size_t i = 0;
    if (!skip(line, i, "    ."))
        return false;
    const std::size_t k = i;
    while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_'))
        ++i;
    if (i == k || i >= line.size() || line[i] != ':')
        return false;
    key = line.substr(k, i - k);
    const std::string rest = trim(line.substr(i + 1));
    if (rest.empty() || rest.find_first_of(" \t\r\n\v\f") != std::string::npos)
        return false;
    value = rest;
    return true;
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
        if (const long tk = ptm_token(t); tk >= 0) {
            token = tk;
            continue;
        }
        if (t.rfind("Hex", 0) != 0 || token < 0)
            continue;
        std::vector<unsigned long> bytes;
        std::istringstream hex(t.substr(3));
        std::string b;
        while (hex >> b)
            bytes.push_back(std::strtoul(b.c_str(), nullptr, 16) & 0xff);
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
        std::string key, value;
        if (out.empty() || !amd_key(line, key, value))
            continue;
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

// "Stack frame" line: N bytes stack frame, N bytes spill stores, N bytes spill loads.
bool ptxas_frame(const std::string& line, KernelUsage& k) {
    const std::string frame = " bytes stack frame, ";
    for (auto at = line.find(frame); at != std::string::npos; at = line.find(frame, at + 1)) {
        std::size_t i = at + frame.size();
        const long stack = digits_before(line, at), stores = digits_at(line, i);
        if (stack >= 0 && stores >= 0 && skip(line, i, " bytes spill stores, ") &&
            digits_at(line, i) >= 0 && skip(line, i, " bytes spill loads")) {
            k.scratch = stack;
            k.spill = stores;
            return true;
        }
    }
    return false;
}

std::vector<KernelUsage> parse_ptxas(const std::string& text) {
    std::vector<KernelUsage> out;
    const std::string entry = "Compiling entry function '";
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (const auto at = line.find(entry); at != std::string::npos) {
            const auto from = at + entry.size(), close = line.find('\'', from);
            if (close != std::string::npos && close > from) {
                KernelUsage k;
                k.kernel = line.substr(from, close - from);
                k.local = 0;
                out.push_back(k);
                continue;
            }
        }
        if (out.empty())
            continue;
        auto& k = out.back();
        ptxas_frame(line, k);
        if (const long regs = number_between(line, "Used ", " registers"); regs >= 0) {
            k.vgpr = regs;
            k.max_wg = nvidia_max_threads(k.vgpr);
            k.simd = 32;
            k.note = "largest block from the register count (64K registers per SM)";
        }
        if (const long smem = number_before(line, " bytes smem"); smem >= 0)
            k.local = smem;
    }
    return out;
}

} // namespace runapp::compile
