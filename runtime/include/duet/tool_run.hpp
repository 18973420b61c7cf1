#pragma once
// Running a system tool on Duet's behalf (a compiler, a translator): never through a shell, with
// an argument array, in a private temporary folder (mkdtemp: mode 0700, a fresh name) that is
// removed afterwards, its standard input /dev/null and its output kept in a file of that folder.
// runapp compile's vendor compilers and the OpenCL backend's SPIR-V route run this way.
#include <filesystem>
#include <string>
#include <vector>

namespace duet {

// A private temporary folder under $TMPDIR (when it names an absolute path without spaces) or
// /tmp, removed with everything in it when this goes. `purpose` ("the SPIR-V build") is named in
// the error when the folder cannot be made.
class PrivateTempDir {
  public:
    explicit PrivateTempDir(const std::string& prefix, const std::string& purpose);
    ~PrivateTempDir();
    PrivateTempDir(const PrivateTempDir&) = delete;
    PrivateTempDir& operator=(const PrivateTempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// What a tool did: its exit status (-1 when it could not start or was killed) and everything it
// printed on standard output and error, with the signal named when one ended it.
struct ToolRun {
    int code = -1;
    std::string output;
};

// Runs argv (argv[0] a path, never looked up in PATH) in `dir`, its output to dir/tool.log.
ToolRun run_tool(const std::vector<std::string>& argv, const std::filesystem::path& dir);

// A file's whole contents ("" when it cannot be read).
std::string read_whole_file(const std::filesystem::path& p);

} // namespace duet
