#pragma once
// Writes an app's message to Duet's logger, so that it follows DUET_LOG_LEVEL and looks like the
// runtime's own ("[duet warn 12:00:00.000] ..." on stderr).
#include <string>

namespace duet {

// The levels of DUET_LOG_LEVEL, least to most severe.
enum class LogLevel { trace, debug, info, warn, error, critical };

// Logs `text` at `level`; shown when DUET_LOG_LEVEL lets that level through (warn by default).
void log_message(LogLevel level, const std::string& text);

} // namespace duet
