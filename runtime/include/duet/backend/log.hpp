#pragma once
// Duet's one logger (spdlog, header-only). Level from DUET_LOG_LEVEL; quiet by default.
#ifndef SPDLOG_HEADER_ONLY
#define SPDLOG_HEADER_ONLY
#endif
#ifndef FMT_HEADER_ONLY
#define FMT_HEADER_ONLY
#endif
#include <spdlog/spdlog.h>

namespace duet {
// The logger every part of Duet writes to (stderr, "duet" prefix).
spdlog::logger& log();
} // namespace duet
