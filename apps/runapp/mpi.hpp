#pragma once
// runapp compare under mpirun: the small interface between runapp and MPI. Built with OpenMPI
// (mpi_openmpi.cpp) where CMake's FindMPI finds it, else as a world of one rank (mpi_none.cpp),
// so runapp without MPI is unchanged.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace runapp::mpi {

struct World {
    int rank = 0, size = 1;             // in MPI_COMM_WORLD
    int local_rank = 0, local_size = 1; // among the ranks on this host (MPI_COMM_TYPE_SHARED)
    bool active() const { return size > 1; }
};

// Starts MPI when runapp was built with it and mpirun launched it; otherwise a world of one.
World start();
// Every rank's text, on rank 0 in rank order (its own first); other ranks get an empty list.
std::vector<std::string> gather(const World& w, const std::string& mine);
// Sends `text` to rank 0 without waiting for rank 0 to take it (kept until wait_sent); in order.
void send(const World& w, std::string text);
// Waits until every send of this rank has been taken by rank 0.
void wait_sent(const World& w);
// On rank 0: the next text another rank sent, as (rank, text); nothing when none has arrived
// (or, with `block`, waits for one).
std::optional<std::pair<int, std::string>> receive(const World& w, bool block);
// Ends MPI after a normal run (an error exits without it: mpirun then ends the other ranks).
void stop(const World& w);

} // namespace runapp::mpi
