// Plugin loading: a backend is a module libduet_NAME.so exporting duet_backend_abi() and
// duet_backend_create() (backend/backend.hpp). Plugins are looked for in DUET_BACKEND_PATH, then
// next to libduet (lib/duet/, lib/). A plugin that is missing or fails to load is a backend
// with zero devices and a reason, never an exception.
#include "plugin_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>

#include <dlfcn.h>

#include <duet/backend/elf_check.hpp>
#include <duet/backend/library_path.hpp>
#include <duet/backend/log.hpp>

namespace duet::detail {

namespace fs = std::filesystem;

namespace {

constexpr const char* plugin_prefix = "libduet_";
constexpr const char* plugin_suffix = ".so";

fs::path library_dir() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&library_dir), &info) && info.dli_fname)
        return fs::path(info.dli_fname).parent_path();
    return {};
}

std::string plugin_file(const std::string& name) {
    return plugin_prefix + name + plugin_suffix;
}

// A backend name is what a device id starts with ("NAME:0"): letters, digits and '_'.
bool valid_name(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '_';
    });
}

} // namespace

std::vector<fs::path> plugin_search_dirs() {
    std::vector<fs::path> dirs;
    if (const char* env = std::getenv("DUET_BACKEND_PATH")) {
        std::stringstream ss(env);
        for (std::string d; std::getline(ss, d, ':');) {
            if (d.empty())
                continue;
            std::error_code ec;
            if (!fs::is_directory(d, ec)) {
                static std::once_flag said;
                std::call_once(said, [&] {
                    log().warn("DUET_BACKEND_PATH names {}, which is not a directory; plugins are "
                               "looked for next to libduet instead. Fix the path or unset it",
                               d);
                });
            }
            dirs.emplace_back(d);
        }
    }
    const fs::path lib = library_dir();
    if (!lib.empty()) {
        dirs.push_back(lib / "duet");
        dirs.push_back(lib);
    }
    return dirs;
}

std::vector<std::string> discover_plugins() {
    std::set<std::string> names;
    const std::string prefix = plugin_prefix, suffix = plugin_suffix;
    for (const auto& d : plugin_search_dirs()) {
        std::error_code ec;
        for (auto it = fs::directory_iterator(d, ec); !ec && it != fs::directory_iterator();
             it.increment(ec)) {
            const std::string f = it->path().filename().string();
            if (f.size() <= prefix.size() + suffix.size() || f.rfind(prefix, 0) != 0 ||
                f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0)
                continue;
            const std::string name =
                f.substr(prefix.size(), f.size() - prefix.size() - suffix.size());
            if (valid_name(name))
                names.insert(name);
        }
    }
    return {names.begin(), names.end()};
}

LoadedBackend load_plugin(const std::string& name) {
    LoadedBackend l;
    l.report.name = name;
    if (std::string why = library_path_problem(); !why.empty()) { // fail closed
        l.report.reason = std::move(why);
        return l;
    }
    const std::string file = plugin_file(name);
    std::string looked;
    fs::path found;
    for (const auto& d : plugin_search_dirs()) {
        looked += (looked.empty() ? "" : ", ") + d.string();
        std::error_code ec;
        if (fs::exists(d / file, ec)) {
            found = d / file;
            break;
        }
    }
    if (found.empty()) {
        l.report.reason = "plugin " + file + " not found (looked in " + looked +
                          "); this build of Duet has no " + name +
                          " backend, or DUET_BACKEND_PATH is wrong";
        return l;
    }
    l.report.plugin = found.string();
    // A truncated plugin would be mapped and then kill the process with SIGBUS on first touch.
    if (const std::string bad = check_shared_library(found.string()); !bad.empty()) {
        l.report.reason = "plugin " + found.string() + " is damaged (" + bad +
                          "); reinstall or rebuild Duet, or fix DUET_BACKEND_PATH";
        return l;
    }
    log().debug("dlopen({})", found.string());
    void* h = dlopen(found.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        l.report.reason = "plugin " + found.string() + " could not be opened: " + (e ? e : "?");
        return l;
    }
    auto abi = reinterpret_cast<duet_backend_abi_fn>(dlsym(h, "duet_backend_abi"));
    auto create = reinterpret_cast<duet_backend_create_fn>(dlsym(h, "duet_backend_create"));
    if (!abi || !create) {
        l.report.reason = "plugin " + found.string() + " lacks the duet_backend_* entry points";
        return l;
    }
    if (abi() != DUET_BACKEND_ABI) {
        l.report.reason = "plugin " + found.string() + " was built for backend ABI " +
                          std::to_string(abi()) + ", this libduet needs " +
                          std::to_string(DUET_BACKEND_ABI) + "; rebuild or reinstall it";
        return l;
    }
    try {
        l.backend = create();
    } catch (const std::exception& e) {
        l.report.reason = std::string("backend initialisation failed: ") + e.what();
        return l;
    }
    if (!l.backend) {
        l.report.reason = "backend initialisation returned nothing";
        return l;
    }
    const std::string plugin = l.report.plugin;
    l.report = l.backend->report();
    l.report.name = name; // the file names the backend, whatever its report says
    l.report.plugin = plugin;
    l.report.loaded = true;
    l.report.device_count = static_cast<int>(l.backend->device_count());
    return l;
}

} // namespace duet::detail
