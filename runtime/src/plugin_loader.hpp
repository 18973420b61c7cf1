#pragma once
// Plugin loading (internal to libduet): where backend plugins are looked for, which are present,
// and opening one into a Backend with its report.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <duet/backend/backend.hpp>
#include <duet/registry.hpp>

namespace duet::detail {

// One backend as the loader left it: its report, and the Backend when it initialised.
struct LoadedBackend {
    BackendReport report;
    Backend* backend = nullptr; // never destroyed: drivers may be gone at static destruction
};

// Where plugins come from: DUET_BACKEND_PATH's trusted directories, then libduet's own
// directory's duet/ and the directory itself; the plugins DUET_BACKEND_PATH names by file; and
// each entry refused, with the reason (each also warned about once).
struct PluginPath {
    std::vector<std::filesystem::path> dirs; // DUET_BACKEND_PATH's, then libduet's own
    std::size_t own_from = 0;                // dirs[own_from...] are libduet's own
    std::vector<std::pair<std::string, std::filesystem::path>> files; // NAME, libduet_NAME.so
    std::vector<std::string> refused;
};

// DUET_BACKEND_PATH, read and checked once.
const PluginPath& plugin_path();

// The NAME of every plugin that may load: the shipped backends (cuda, opencl) found in the
// directories, and the plugins named by file. Sorted, each once.
std::vector<std::string> discover_plugins();

// A note for each libduet_NAME.so of another name in the directories, which is not loaded.
std::vector<std::string> unshipped_plugins();

// Finds libduet_NAME.so, checks it, opens it, checks its ABI and creates its backend. Never
// throws: a plugin that is missing, damaged or fails is a report with a reason and no backend.
LoadedBackend load_plugin(const std::string& name);

} // namespace duet::detail
