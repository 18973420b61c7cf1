#pragma once
// runapp compare under mpirun: each rank's rows reach rank 0 as they finish, not only at the
// end. Rank 0 prints them as progress lines and keeps every finished row in `--format json
// --output FILE` (a document marked "partial", rewritten as rows arrive), so a run that one
// rank's crash or hang ends keeps what finished, with which ranks had finished and how many rows
// each sent ("mpi_ranks"; runapp report names the ranks and devices missing). The final merge is
// finish_ranks' gather.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "cli.hpp"
#include "mpi.hpp"
#include "progress.hpp"

namespace runapp {

class RankRows {
  public:
    RankRows(const mpi::World& w, const Cli& c, Progress& progress, int argc, char** argv);
    // One row of this rank finished: sent to rank 0, or (on rank 0) kept and written.
    void finished(const duet::apps::Result& r);
    // This rank's device rows are done: the other ranks say so to rank 0; rank 0 takes every
    // rank's rows until each has said so.
    void done();

  private:
    bool take(bool wait); // rank 0: what the other ranks sent; true when something came
    void write_partial();

    mpi::World world_;
    const Cli& cli_;
    Progress& progress_;
    int argc_;
    char** argv_;
    std::vector<nlohmann::json> rows_; // rank 0: every row finished so far
    int done_ranks_ = 0;
    std::vector<int> rows_of_rank_; // rank 0: rows received from each rank
    std::vector<bool> rank_done_;   // rank 0: the ranks that said their rows are done
    bool write_failed_ = false;
};

} // namespace runapp
