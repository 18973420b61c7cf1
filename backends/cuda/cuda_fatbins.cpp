// Lookup in the table of embedded fatbins (the table itself is generated at configure time).
#include "cuda_fatbins.hpp"

#include <algorithm>

namespace duet::cuda {

std::string canonical_defines(const std::vector<std::pair<std::string, std::string>>& defines,
                              bool& unique) {
    auto sorted = defines;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    unique = std::adjacent_find(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
                 return a.first == b.first;
             }) == sorted.end();
    std::string out;
    for (const auto& [name, value] : sorted)
        out += (out.empty() ? "" : " ") + name + "=" + value;
    return out;
}

const EmbeddedFatbin* find_embedded_fatbin(std::string_view file, std::string_view defines) {
    for (const auto& f : embedded_fatbins())
        if (f.file == file && f.defines == defines)
            return &f;
    return nullptr;
}

} // namespace duet::cuda
