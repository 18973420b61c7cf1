// See transfer_checks.hpp: the rules both backends apply to transfers and fills.
#include <duet/backend/transfer_checks.hpp>

#include <fmt/format.h>

namespace duet {

std::string span_problem(const char* op, std::size_t bytes, std::size_t offset, std::size_t size) {
    if (offset <= size && bytes <= size - offset) // no overflow: offset + bytes is never formed
        return {};
    return fmt::format("{} of {} bytes at offset {} does not fit a buffer of {} bytes: offset + "
                       "bytes = {} + {} > {} (past the end of the buffer)",
                       op, bytes, offset, size, offset, bytes, size);
}

std::string fill_problem(const void* pattern, std::size_t pattern_size, std::size_t bytes) {
    if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8 &&
        pattern_size != 16)
        return fmt::format("a fill pattern of {} bytes; patterns are 1, 2, 4, 8 or 16 bytes",
                           pattern_size);
    if (!pattern)
        return "a fill with a null pattern pointer";
    if (bytes % pattern_size != 0)
        return fmt::format("a fill of {} bytes is not a whole number of {}-byte patterns", bytes,
                           pattern_size);
    return {};
}

} // namespace duet
