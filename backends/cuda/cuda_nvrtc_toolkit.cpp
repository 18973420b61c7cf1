// Toolkit headers for NVRTC (cuda_nvrtc_toolkit.hpp). The digest follows #include lines by
// text, not by preprocessing: NVRTC cannot say which files it read, and following every include
// whatever its #if over-covers (a header the build skipped still keys it), which is the safe
// side for a cache key.
#include "cuda_nvrtc_toolkit.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <duet/backend/program_cache.hpp>

namespace duet::cuda {

namespace {

namespace fs = std::filesystem;

// The names of a text's #include lines, in order ("cub/cub.cuh", "stdio.h").
std::vector<std::string> included_names(const std::string& text) {
    std::vector<std::string> names;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::size_t p = line.find_first_not_of(" \t");
        if (p == std::string::npos || line[p] != '#')
            continue;
        p = line.find_first_not_of(" \t", p + 1);
        if (p == std::string::npos || line.compare(p, 7, "include") != 0)
            continue;
        p = line.find_first_of("<\"", p + 7);
        if (p == std::string::npos)
            continue;
        const char close = line[p] == '<' ? '>' : '"';
        const std::size_t end = line.find(close, p + 1);
        if (end != std::string::npos && end > p + 1)
            names.push_back(line.substr(p + 1, end - p - 1));
    }
    return names;
}

std::string read_text(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A file's contents by path, read once per process (headers do not change under a process
// that compiles with them, and CUB's few hundred would otherwise be read for every build).
const std::string& cached_text(const fs::path& p) {
    static std::mutex mutex;
    static std::map<std::string, std::string> texts;
    std::lock_guard lock(mutex);
    auto [it, added] = texts.try_emplace(p.string());
    if (added)
        it->second = read_text(p);
    return it->second;
}

} // namespace

std::string toolkit_headers_digest(const std::string& source,
                                   const std::vector<std::string>& dirs) {
    std::vector<std::string> parts; // path, contents, path, contents, ...
    std::set<std::string> seen;
    std::vector<std::pair<std::string, fs::path>> todo; // (name, directory of the includer)
    for (auto& n : included_names(source))
        todo.emplace_back(std::move(n), fs::path());
    while (!todo.empty()) {
        auto [name, from] = todo.back();
        todo.pop_back();
        std::vector<fs::path> candidates;
        if (!from.empty())
            candidates.push_back(from / name); // "name" beside the including header
        for (const auto& d : dirs)
            candidates.push_back(fs::path(d) / name);
        for (const auto& c : candidates) {
            std::error_code ec;
            if (!fs::is_regular_file(c, ec))
                continue;
            const std::string path = fs::weakly_canonical(c, ec).string();
            if (seen.insert(path).second) {
                const std::string& text = cached_text(path);
                parts.push_back(path);
                parts.push_back(text);
                for (auto& n : included_names(text))
                    todo.emplace_back(std::move(n), fs::path(path).parent_path());
            }
            break;
        }
    }
    if (parts.empty())
        return {};
    std::vector<std::string_view> views(parts.begin(), parts.end());
    return "toolkit headers " + std::to_string(parts.size() / 2) + " " + ProgramCache::key(views);
}

} // namespace duet::cuda
