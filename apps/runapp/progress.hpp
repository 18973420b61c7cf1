#pragma once
// Progress on long runs: one line on stderr per finished row (run, compare; per file for
// report), only when stderr is a terminal and --quiet is not given; silent when piped.
#include <functional>
#include <string>

#include "app.hpp"

namespace runapp {

class Progress {
  public:
    // On when !quiet and stderr is a terminal. `prefix` starts every line ("rank 1: " under MPI).
    explicit Progress(bool quiet, std::string prefix = {});
    bool on() const { return on_; }
    // What is running now, on a line the next output overwrites.
    void running(const std::string& what) const;
    // One finished row: "[3/12] matmul tiled16 on opencl:0 (512x512x512): 12.3 GFLOP/s PASS".
    void row(const duet::apps::Result& r);
    // One finished item of another kind (a file read by runapp report).
    void line(const std::string& text);
    void set_total(int total) { total_ = total; }
    // Called with every finished row, shown or not (under mpirun: sends it to rank 0).
    std::function<void(const duet::apps::Result&)> on_row;

  private:
    bool on_ = false;
    std::string prefix_;
    int done_ = 0, total_ = 0;
};

} // namespace runapp
