#pragma once
// A shared library checked before anyone maps it: dlopen of a truncated file maps pages past
// its end, and the first touch of one kills the process with SIGBUS.
#include <string>

namespace duet {

// "" when `path` is a regular file holding a whole ELF shared object for this machine (class,
// byte order, machine, every loadable segment and the section table inside the file);
// otherwise what is wrong with it, e.g. "truncated: 4096 bytes, its segments need 81920".
std::string check_shared_library(const std::string& path);

// Where the dynamic linker would find `name` (a path is returned as is; a bare soname is looked
// for in LD_LIBRARY_PATH and the usual library directories); "" when not found.
std::string find_shared_library(const std::string& name);

} // namespace duet
