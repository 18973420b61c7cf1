#pragma once
// Duet's one logger (spdlog). Level from DUET_LOG_LEVEL; quiet by default. spdlog is compiled
// once, into libduet (runtime/src/log.cpp), and fmt is header-only: a file that logs pays for
// spdlog's declarations only, and the binaries need no libspdlog or libfmt at run time.
#ifndef SPDLOG_COMPILED_LIB
#define SPDLOG_COMPILED_LIB
#endif
#ifndef FMT_HEADER_ONLY
#define FMT_HEADER_ONLY
#endif
#include <spdlog/spdlog.h>

namespace duet {
// The logger every part of Duet writes to (stderr, "duet" prefix).
spdlog::logger& log();
} // namespace duet
