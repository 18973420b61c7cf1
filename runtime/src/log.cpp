#include <cstdlib>
#include <string>

#include <duet/backend/log.hpp>
#include <duet/log_message.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>

// The one file that compiles spdlog (SPDLOG_COMPILED_LIB, from backend/log.hpp): its
// implementation, which every file that logs would otherwise compile again (about 7 s of CPU
// each at -O2), for the parts Duet uses: the logger and its registry, the pattern formatter,
// the colour sink on stderr.
#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_color_sinks-inl.h>
#include <spdlog/spdlog-inl.h>

namespace duet {

spdlog::logger& log() {
    static std::shared_ptr<spdlog::logger> logger = [] {
        auto l = std::make_shared<spdlog::logger>(
            "duet", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
        l->set_pattern("[duet %l %T.%e] %v");
        l->set_level(spdlog::level::warn);
        // spdlog reads an unknown name as "off", which would silence the very warnings that
        // explain a problem: an unknown level keeps the default and says which names exist.
        if (const char* env = std::getenv("DUET_LOG_LEVEL"); env && *env) {
            const std::string name = env;
            const auto level = spdlog::level::from_str(name);
            if (level != spdlog::level::off || name == "off")
                l->set_level(level);
            else
                l->warn("DUET_LOG_LEVEL={} is not a log level; using warn. Valid levels: trace, "
                        "debug, info, warn, error, critical, off",
                        name);
        }
        return l;
    }();
    return *logger;
}

static_assert(int(LogLevel::trace) == spdlog::level::trace &&
                  int(LogLevel::warn) == spdlog::level::warn &&
                  int(LogLevel::critical) == spdlog::level::critical,
              "LogLevel follows spdlog's level order");

void log_message(LogLevel level, const std::string& text) {
    log().log(static_cast<spdlog::level::level_enum>(static_cast<int>(level)), "{}", text);
}

} // namespace duet
