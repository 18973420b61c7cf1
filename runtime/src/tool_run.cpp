// Running a system tool privately (duet/tool_run.hpp).
#include <duet/tool_run.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <duet/backend/log.hpp>
#include <duet/error.hpp>

extern char** environ;

namespace duet {

namespace fs = std::filesystem;

PrivateTempDir::PrivateTempDir(const std::string& prefix, const std::string& purpose) {
    std::string base = "/tmp";
    if (const char* t = std::getenv("TMPDIR");
        t && *t == '/' && std::string(t).find(' ') == std::string::npos)
        base = t;
    std::string tmpl = base + "/" + prefix + "-XXXXXX";
    if (!::mkdtemp(tmpl.data()))
        throw Error::runtime("cannot make a private temporary folder for " + purpose + " in " +
                             base + ": " + std::strerror(errno) +
                             " (set TMPDIR to a folder you can write)");
    path_ = tmpl;
}

PrivateTempDir::~PrivateTempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

std::string read_whole_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

ToolRun run_tool(const std::vector<std::string>& argv, const fs::path& dir) {
    ToolRun r;
    std::string line;
    for (const auto& a : argv)
        line += (line.empty() ? "" : " ") + a;
    log().debug("spawn: {}", line);
    const fs::path log_file = dir / "tool.log";
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = -1;
    const int err = posix_spawn(&pid, argv.at(0).c_str(), &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        r.output = "could not start " + argv[0] + ": " + std::strerror(err);
        return r;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.output = read_whole_file(log_file);
    if (WIFSIGNALED(status))
        r.output +=
            "\n(" + argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status)) + ")";
    return r;
}

} // namespace duet
