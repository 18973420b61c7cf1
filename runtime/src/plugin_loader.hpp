#pragma once
// Plugin loading (internal to libduet): where backend plugins are looked for, which are present,
// and opening one into a Backend with its report.
#include <filesystem>
#include <string>
#include <vector>

#include <duet/backend/backend.hpp>
#include <duet/registry.hpp>

namespace duet::detail {

// One backend as the loader left it: its report, and the Backend when it initialised.
struct LoadedBackend {
    BackendReport report;
    Backend* backend = nullptr; // never destroyed: drivers may be gone at static destruction
};

// DUET_BACKEND_PATH's directories (a wrong one is warned about once), then libduet's own
// directory's duet/ and the directory itself.
std::vector<std::filesystem::path> plugin_search_dirs();

// The NAME of every libduet_NAME.so in the search directories, sorted, each once.
std::vector<std::string> discover_plugins();

// Finds libduet_NAME.so, checks it, opens it, checks its ABI and creates its backend. Never
// throws: a plugin that is missing, damaged or fails is a report with a reason and no backend.
LoadedBackend load_plugin(const std::string& name);

} // namespace duet::detail
