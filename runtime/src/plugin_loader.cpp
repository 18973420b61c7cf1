// Plugin loading: a backend is a module libduet_NAME.so exporting duet_backend_abi() and
// duet_backend_create() (backend/backend.hpp). Plugins are looked for in DUET_BACKEND_PATH, then
// next to libduet (lib/duet/, lib/). Loading a plugin runs its code, so DUET_BACKEND_PATH gets
// the cache directory's trust checks (docs/design/security.md): absolute entries only, no directory
// or file that someone else can change, and from a directory only the backends Duet ships; any
// other plugin only when its file is named. The backends Duet ships are the build's manifest,
// not names written here. A plugin that is missing or fails to load is a
// backend with zero devices and a reason, never an exception.
#include "plugin_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>

#include <dlfcn.h>

#include <duet/backend/elf_check.hpp>
#include <duet/backend/log.hpp>
#include <duet/backend/private_files.hpp>
#include <duet/library_path.hpp>

#ifndef DUET_BUILD_BACKENDS
#define DUET_BUILD_BACKENDS ""
#endif

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

// NAME of a file named libduet_NAME.so, or "" when it is not one.
std::string name_of(const std::string& file) {
    const std::string prefix = plugin_prefix, suffix = plugin_suffix;
    if (file.size() <= prefix.size() + suffix.size() || file.rfind(prefix, 0) != 0 ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
        return "";
    const std::string name =
        file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
    return valid_name(name) ? name : "";
}

// The backends this build of Duet ships, its manifest (the top-level CMakeLists.txt's
// DUET_BACKENDS): the only names loaded from a directory. Any other plugin runs only when
// DUET_BACKEND_PATH names its file.
const std::vector<std::string>& manifest() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        std::stringstream ss(DUET_BUILD_BACKENDS);
        for (std::string n; std::getline(ss, n, ',');)
            if (valid_name(n))
                out.push_back(n);
        return out;
    }();
    return names;
}

bool shipped(const std::string& name) {
    return std::find(manifest().begin(), manifest().end(), name) != manifest().end();
}

std::string manifest_text() {
    std::string out;
    for (const auto& n : manifest())
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

void refuse(PluginPath& p, const std::string& entry, const std::string& why) {
    p.refused.push_back("DUET_BACKEND_PATH entry " + entry + " refused: " + why);
    log().warn("{}", p.refused.back());
}

// One entry of DUET_BACKEND_PATH: an absolute directory, or an absolute libduet_NAME.so.
void add_entry(PluginPath& p, const std::string& e) {
    if (!fs::path(e).is_absolute())
        return refuse(p, e,
                      "it is relative, so it would load whatever lies there in the directory "
                      "runapp is started from; give an absolute path");
    std::error_code ec;
    const bool dir = fs::is_directory(e, ec);
    if (!dir && fs::path(e).extension() == plugin_suffix) {
        const std::string name = name_of(fs::path(e).filename().string());
        std::string why;
        if (name.empty())
            return refuse(p, e, "a plugin file must be named libduet_NAME.so");
        if (!check_trusted_path(e, TrustRule{"DUET_BACKEND_PATH", false, true}, &why))
            return refuse(p, e, why);
        p.files.emplace_back(name, fs::path(e));
        return;
    }
    if (!dir)
        return refuse(p, e,
                      "it is not a directory; plugins are looked for next to libduet instead. "
                      "Fix the path or unset it");
    std::string why;
    if (!check_trusted_path(e, TrustRule{"DUET_BACKEND_PATH", true, true}, &why))
        return refuse(p, e, why);
    p.dirs.emplace_back(e);
}

PluginPath parse_plugin_path() {
    PluginPath p;
    if (const char* env = std::getenv("DUET_BACKEND_PATH")) {
        std::stringstream ss(env);
        for (std::string e; std::getline(ss, e, ':');)
            if (!e.empty())
                add_entry(p, e);
    }
    // libduet's own directories are as trusted as libduet itself.
    const fs::path lib = library_dir();
    p.own_from = p.dirs.size();
    if (!lib.empty()) {
        p.dirs.push_back(lib / "duet");
        p.dirs.push_back(lib);
    }
    return p;
}

} // namespace

const PluginPath& plugin_path() {
    static const PluginPath p = parse_plugin_path();
    return p;
}

std::vector<std::string> discover_plugins() {
    std::set<std::string> names;
    for (const auto& [name, file] : plugin_path().files)
        names.insert(name);
    for (const auto& d : plugin_path().dirs) {
        std::error_code ec;
        for (auto it = fs::directory_iterator(d, ec); !ec && it != fs::directory_iterator();
             it.increment(ec))
            if (const std::string name = name_of(it->path().filename().string()); shipped(name))
                names.insert(name);
    }
    return {names.begin(), names.end()};
}

std::vector<std::string> unshipped_plugins() {
    std::vector<std::string> out;
    for (const auto& d : plugin_path().dirs) {
        std::error_code ec;
        for (auto it = fs::directory_iterator(d, ec); !ec && it != fs::directory_iterator();
             it.increment(ec)) {
            const std::string name = name_of(it->path().filename().string());
            if (!name.empty() && !shipped(name))
                out.push_back(it->path().string() +
                              " not loaded: Duet loads only its own backends (" + manifest_text() +
                              ") from a directory; name the file itself in DUET_BACKEND_PATH to "
                              "load it");
        }
    }
    return out;
}

namespace {

// Where libduet_NAME.so is: a file named in DUET_BACKEND_PATH, else the first of the trusted
// directories holding one; in a DUET_BACKEND_PATH directory the file must be trusted itself
// (the directory's checks do not cover it: it may be writable by others, someone else's, or a
// link to such a file). libduet's own directories are as trusted as libduet. Empty, with
// `reason` set, when there is none.
fs::path find_plugin(const std::string& name, std::string& reason) {
    const std::string file = plugin_file(name);
    for (const auto& [named, path] : plugin_path().files)
        if (named == name)
            return path;
    std::string looked, untrusted;
    const auto& dirs = plugin_path().dirs;
    for (std::size_t i = 0; i < dirs.size(); ++i) {
        const fs::path& d = dirs[i];
        looked += (looked.empty() ? "" : ", ") + d.string();
        std::error_code ec;
        std::string why;
        if (!shipped(name) || !fs::exists(d / file, ec))
            continue;
        if (i >= plugin_path().own_from ||
            check_trusted_path((d / file).string(), TrustRule{"DUET_BACKEND_PATH", false, true},
                               &why))
            return d / file;
        if (untrusted.empty()) {
            untrusted = "plugin " + (d / file).string() + " refused: " + why;
            log().warn("{}", untrusted);
        }
    }
    reason = !untrusted.empty() ? untrusted
                                : "plugin " + file + " not found (looked in " + looked +
                                      "); this build of Duet has no " + name +
                                      " backend, or DUET_BACKEND_PATH is wrong";
    return {};
}

} // namespace

LoadedBackend load_plugin(const std::string& name) {
    LoadedBackend l;
    l.report.name = name;
    if (std::string why = library_path_problem(); !why.empty()) { // fail closed
        l.report.reason = std::move(why);
        return l;
    }
    const fs::path found = find_plugin(name, l.report.reason);
    if (found.empty())
        return l;
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
