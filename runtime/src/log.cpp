#include <cstdlib>

#include <spdlog/sinks/stdout_color_sinks.h>

#include <duet/backend/log.hpp>

namespace duet {

spdlog::logger& log() {
    static std::shared_ptr<spdlog::logger> logger = [] {
        auto l = std::make_shared<spdlog::logger>(
            "duet", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
        l->set_pattern("[duet %l %T.%e] %v");
        const char* env = std::getenv("DUET_LOG_LEVEL");
        l->set_level(env ? spdlog::level::from_str(env) : spdlog::level::warn);
        return l;
    }();
    return *logger;
}

} // namespace duet
