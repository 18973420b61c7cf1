// The program cache's public face (program_cache_info.hpp), over ProgramCache::instance().
#include <duet/backend/program_cache.hpp>
#include <duet/program_cache_info.hpp>

namespace duet {

ProgramCacheStatus program_cache_status() {
    const auto& cache = ProgramCache::instance();
    return {cache.dir(), cache.enabled(), cache.why_off()};
}

std::vector<CachedProgram> program_cache_list() {
    std::vector<CachedProgram> out;
    for (const auto& e : ProgramCache::instance().list())
        out.push_back({e.path, e.description, e.bytes, e.duet_entry, e.unfinished});
    return out;
}

std::size_t program_cache_clear() {
    return ProgramCache::instance().clear();
}

} // namespace duet
