// See elf_check.hpp. Only the headers are read (bounded), with O_NONBLOCK so that a FIFO in
// place of a library never blocks.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <duet/backend/elf_check.hpp>

namespace duet {

namespace {

#if defined(__x86_64__)
constexpr int host_machine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int host_machine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr int host_machine = EM_PPC64;
#elif defined(__riscv)
constexpr int host_machine = EM_RISCV;
#else
constexpr int host_machine = -1; // not checked
#endif

bool read_at(int fd, void* buf, std::size_t n, off_t at) {
    return ::pread(fd, buf, n, at) == static_cast<ssize_t>(n);
}

std::string check_fd(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return std::string("cannot inspect it: ") + std::strerror(errno);
    if (!S_ISREG(st.st_mode))
        return "not a regular file";
    const auto size = static_cast<std::uint64_t>(st.st_size);
    Elf64_Ehdr eh{};
    if (size < sizeof eh || !read_at(fd, &eh, sizeof eh, 0))
        return "truncated: " + std::to_string(size) + " bytes, less than an ELF header";
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return "not an ELF file";
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || sizeof(void*) != 8)
        return "not a 64-bit ELF library (wrong class for this machine)";
    if (eh.e_ident[EI_DATA] !=
        (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB))
        return "wrong byte order for this machine";
    if (eh.e_type != ET_DYN)
        return "not a shared library (ELF type " + std::to_string(eh.e_type) + ")";
    if (host_machine >= 0 && eh.e_machine != host_machine)
        return "built for another machine (ELF machine " + std::to_string(eh.e_machine) +
               ", this one is " + std::to_string(host_machine) + ")";
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 4096)
        return "damaged ELF header (program header table)";
    std::uint64_t need = eh.e_phoff + std::uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr);
    if (need > size)
        return "truncated: " + std::to_string(size) + " bytes, its program headers need " +
               std::to_string(need);
    std::vector<Elf64_Phdr> ph(eh.e_phnum);
    if (!read_at(fd, ph.data(), ph.size() * sizeof(Elf64_Phdr), static_cast<off_t>(eh.e_phoff)))
        return "cannot read its program headers";
    for (const auto& p : ph)
        if (p.p_type == PT_LOAD || p.p_type == PT_DYNAMIC)
            need = std::max<std::uint64_t>(need, p.p_offset + p.p_filesz);
    if (eh.e_shnum)
        need =
            std::max<std::uint64_t>(need, eh.e_shoff + std::uint64_t(eh.e_shnum) * eh.e_shentsize);
    if (need > size)
        return "truncated: " + std::to_string(size) + " bytes, its segments need " +
               std::to_string(need);
    return {};
}

} // namespace

std::string find_shared_library(const std::string& name) {
    if (name.find('/') != std::string::npos)
        return name;
    std::vector<std::string> dirs;
    if (const char* l = std::getenv("LD_LIBRARY_PATH")) {
        std::stringstream ss(l);
        for (std::string d; std::getline(ss, d, ':');)
            if (!d.empty())
                dirs.push_back(d);
    }
    for (const char* d : {"/usr/local/lib", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                          "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64",
                          "/usr/lib64", "/lib", "/usr/lib"})
        dirs.push_back(d);
    for (const auto& d : dirs) {
        const std::string p = d + "/" + name;
        if (::access(p.c_str(), F_OK) == 0)
            return p;
    }
    return {};
}

std::string check_shared_library(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return std::string("cannot open it: ") + std::strerror(errno);
    std::string why = check_fd(fd);
    ::close(fd);
    return why;
}

} // namespace duet
