#pragma once
// LD_LIBRARY_PATH elements that are empty or relative make the dynamic linker look for every
// library it loads later (a backend's vendor libraries, the OpenCL ICD loader and the drivers it
// opens) in the current directory, or one below it: a file there, damaged or hostile, would be
// mapped into the process. Duet refuses to load backends under such a path (fail closed).
#include <string>

namespace duet {

// "" when LD_LIBRARY_PATH (`value`; the environment's when null) holds only absolute elements;
// otherwise why backends are not loaded and what to do.
std::string library_path_problem(const char* value = nullptr);

// `value` without its empty and relative elements.
std::string safe_library_path(const std::string& value);

} // namespace duet
