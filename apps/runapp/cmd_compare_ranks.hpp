#pragma once
// runapp compare under mpirun: which of this host's devices a rank runs, and rank 0's merge of
// every rank's rows into one presented result.
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "app.hpp"
#include "cli.hpp"
#include "mpi.hpp"

namespace runapp {

// This rank's share of the host's devices: one per local rank, round robin.
std::vector<duet::Device*> devices_of_rank(const mpi::World& w,
                                           const std::vector<duet::Device*>& all);
// Sends this rank's rows (failures as rows too) to rank 0, which merges them (one run per host)
// and writes the table/JSON/HTML; returns the exit code (rank 0's says for everyone).
int finish_ranks(const mpi::World& w, const Cli& c, std::vector<duet::apps::Result> results,
                 const std::vector<std::string>& failures, int argc, char** argv);

} // namespace runapp
