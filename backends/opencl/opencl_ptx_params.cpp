// NVRTC's PTX in NVIDIA OpenCL's form (opencl_ptx_params.hpp): a pure text transform.
#include "opencl_ptx_params.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace duet::opencl {

namespace {

std::string_view trim_line(std::string_view line) {
    const std::size_t b = line.find_first_not_of(" \t\r");
    return b == std::string_view::npos ? std::string_view{} : line.substr(b);
}

bool begins(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

bool ptx_ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// Whether `line` names `word` as a whole identifier.
bool names_word(std::string_view line, std::string_view word) {
    for (auto at = line.find(word); at != std::string_view::npos; at = line.find(word, at + 1))
        if ((at == 0 || !ptx_ident_char(line[at - 1])) &&
            (at + word.size() == line.size() || !ptx_ident_char(line[at + word.size()])))
            return true;
    return false;
}

// The name a `.entry` line declares ("" when the line declares none).
std::string entry_name(std::string_view body) {
    const std::size_t at = body.find(".entry ");
    if (at == std::string_view::npos || begins(body, "//"))
        return "";
    std::size_t b = at + 7;
    while (b < body.size() && (body[b] == ' ' || body[b] == '\t'))
        ++b;
    std::size_t e = b;
    while (e < body.size() && ptx_ident_char(body[e]))
        ++e;
    return std::string(body.substr(b, e - b));
}

// One entry of the text: its name, and the lines of its parameters.
struct Entry {
    std::string name;
    std::vector<std::size_t> params; // indices into the lines
    bool uses_dynamic_shared = false;
};

// The text's lines, its entries, its `extern __shared__` arrays, and whether a .func uses one.
struct Scan {
    std::vector<std::string_view> lines;
    std::vector<Entry> entries;
    bool func_uses_dynamic_shared = false;
};

Scan scan_ptx_text(std::string_view ptx) {
    Scan s;
    for (std::size_t at = 0; at <= ptx.size();) {
        const std::size_t end = std::min(ptx.find('\n', at), ptx.size());
        s.lines.push_back(ptx.substr(at, end - at));
        at = end + 1;
    }
    std::vector<std::string> shared; // `.extern .shared .align 16 .b8 dyn[];` gives dyn
    for (const auto line : s.lines)
        if (const auto body = trim_line(line); begins(body, ".extern .shared ")) {
            const std::size_t open = body.find('[');
            const std::size_t last = body.substr(0, open).find_last_of(" \t");
            if (open != std::string_view::npos && last != std::string_view::npos)
                shared.emplace_back(body.substr(last + 1, open - last - 1));
        }
    bool in_params = false, in_func = false;
    for (std::size_t i = 0; i < s.lines.size(); ++i) {
        const auto body = trim_line(s.lines[i]);
        if (std::string name = entry_name(body); !name.empty()) {
            s.entries.push_back({std::move(name), {}, false});
            in_params = body.find(')') == std::string_view::npos;
            in_func = false;
            continue;
        }
        if (body.find(".func ") != std::string_view::npos && !begins(body, "//")) {
            in_func = true;
            in_params = false;
            continue;
        }
        if (in_params && begins(body, ".param "))
            s.entries.back().params.push_back(i);
        if (in_params && begins(body, ")"))
            in_params = false;
        for (const auto& name : shared)
            if (!begins(body, ".extern ") && names_word(body, name)) {
                if (in_func)
                    s.func_uses_dynamic_shared = true;
                else if (!s.entries.empty())
                    s.entries.back().uses_dynamic_shared = true;
            }
    }
    return s;
}

bool is_pointer_type(const std::string& type) {
    return type.find('*') != std::string::npos;
}

// Which parameters of `entry` are pointers, from the kernels of its identifier and count; ""
// in `why` on success.
std::vector<bool> pointer_parameters(const Entry& entry, const std::vector<KernelDecl>& kernels,
                                     std::vector<std::string>& types, std::string& why) {
    const std::string id = entry_identifier(entry.name);
    std::vector<std::vector<bool>> masks;
    for (const auto& k : kernels) {
        if (k.name != id || k.parameter_types.size() != entry.params.size())
            continue;
        std::vector<bool> mask;
        for (const auto& t : k.parameter_types)
            mask.push_back(is_pointer_type(t));
        if (masks.empty())
            types = k.parameter_types;
        masks.push_back(std::move(mask));
    }
    if (masks.empty()) {
        why = "Duet read no CUDA kernel '" + (id.empty() ? entry.name : id) + "' with " +
              std::to_string(entry.params.size()) +
              " parameters in the text, so it cannot tell which are buffers";
        return {};
    }
    for (const auto& m : masks)
        if (m != masks.front()) {
            why = "overloads of '" + id + "' with " + std::to_string(entry.params.size()) +
                  " parameters differ in which are pointers, so Duet cannot tell which are "
                  "buffers";
            return {};
        }
    return masks.front();
}

// The line of a pointer parameter as NVIDIA's OpenCL reads a buffer; "" if it is not a .u64.
std::string marked_buffer(std::string_view line, const std::string& type) {
    const std::size_t at = line.find(".param .u64 ");
    if (at == std::string_view::npos)
        return "";
    return std::string(line.substr(0, at)) + ".param .u64 .ptr .global .align " +
           std::to_string(pointee_alignment(type)) + " " + std::string(line.substr(at + 12));
}

// The target line with texmode_independent (the driver's and clang's nvcl form).
std::string nvcl_target(std::string_view line) {
    if (line.find("texmode_independent") != std::string_view::npos)
        return std::string(line);
    return std::string(line) + ", texmode_independent";
}

} // namespace

NvclPtx nvcl_form(std::string_view ptx, const std::vector<KernelDecl>& kernels) {
    NvclPtx out;
    ptx = ptx.substr(0, ptx.find('\0'));
    Scan s = scan_ptx_text(ptx);
    if (s.entries.empty()) {
        out.error = "the PTX declares no .entry";
        return out;
    }
    std::vector<std::string> lines(s.lines.begin(), s.lines.end());
    bool target = false;
    for (auto& line : lines)
        if (begins(trim_line(line), ".target ")) {
            line = nvcl_target(line);
            target = true;
        }
    if (!target) {
        out.error = "the PTX has no .target line";
        return out;
    }
    for (const auto& e : s.entries) {
        if (e.uses_dynamic_shared || s.func_uses_dynamic_shared) {
            out.refused[e.name] =
                "it uses an extern __shared__ array (dynamic shared memory), which no OpenCL "
                "launch sizes: give the array a size, or run it on a CUDA device";
            continue;
        }
        std::vector<std::string> types;
        std::string why;
        const std::vector<bool> pointers = pointer_parameters(e, kernels, types, why);
        for (std::size_t p = 0; why.empty() && p < pointers.size(); ++p) {
            if (!pointers[p])
                continue;
            std::string line = marked_buffer(lines[e.params[p]], types[p]);
            if (line.empty())
                why = "its pointer parameter " + std::to_string(p) + " is not a .u64 in the PTX";
            else
                lines[e.params[p]] = std::move(line);
        }
        if (!why.empty())
            out.refused[e.name] = why;
    }
    for (std::size_t i = 0; i < lines.size(); ++i)
        out.ptx += lines[i] + (i + 1 < lines.size() ? "\n" : "");
    return out;
}

namespace {

// An Itanium <source-name> at `i` (<length><identifier>), moving `i` past it; "" if none.
std::string itanium_source_name(std::string_view s, std::size_t& i) {
    std::size_t len = 0, j = i;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
        len = len * 10 + static_cast<std::size_t>(s[j++] - '0');
    if (j == i || len == 0 || j + len > s.size())
        return "";
    i = j + len;
    return std::string(s.substr(j, len));
}

} // namespace

std::string entry_identifier(std::string_view entry) {
    if (!begins(entry, "_Z"))
        return std::string(entry);
    std::size_t i = 2;
    if (i < entry.size() && entry[i] == 'L') // internal linkage
        ++i;
    if (i >= entry.size() || entry[i] != 'N')
        return itanium_source_name(entry, i);
    // A nested name: its qualifiers, then prefixes up to E (or I: template arguments follow
    // the last name); the kernel is the last one.
    ++i;
    while (i < entry.size() && (entry[i] == 'r' || entry[i] == 'V' || entry[i] == 'K'))
        ++i;
    std::string last;
    while (i < entry.size() && entry[i] != 'E' && entry[i] != 'I') {
        if (entry.substr(i, 2) == "St") { // std::
            i += 2;
            continue;
        }
        std::string name = itanium_source_name(entry, i);
        if (name.empty())
            return "";
        last = std::move(name);
    }
    return last;
}

int pointee_alignment(const std::string& type) {
    const std::size_t star = type.find('*');
    if (star == std::string::npos)
        return 1;
    if (type.find('*', star + 1) != std::string::npos)
        return 8; // a pointer to pointers
    std::set<std::string> words;
    std::string word;
    for (const char c : type.substr(0, star) + " ") {
        if (ptx_ident_char(c)) {
            word += c;
        } else if (!word.empty()) {
            if (word != "const" && word != "volatile" && word != "signed" && word != "struct")
                words.insert(word);
            word.clear();
        }
    }
    const auto is = [&](std::initializer_list<const char*> names) {
        return std::any_of(names.begin(), names.end(),
                           [&](const char* n) { return words.count(n) > 0; });
    };
    if (is({"float4", "int4", "uint4", "double2", "longlong2", "ulonglong2"}))
        return 16;
    if (is({"double", "long", "int64_t", "uint64_t", "size_t", "ptrdiff_t", "float2", "int2",
            "uint2", "short4", "ushort4"}))
        return 8;
    // Before int's: "unsigned char", "short int".
    if (is({"char", "bool", "int8_t", "uint8_t"}))
        return 1;
    if (is({"short", "int16_t", "uint16_t", "__half", "half", "__nv_bfloat16", "char2", "uchar2"}))
        return 2;
    if (is({"float", "int", "unsigned", "int32_t", "uint32_t", "__half2", "char4", "uchar4",
            "short2", "ushort2", "__nv_bfloat162"}))
        return 4;
    return 1;
}

} // namespace duet::opencl
