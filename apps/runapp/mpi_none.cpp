// runapp built without MPI: one rank, nothing to gather.
#include "mpi.hpp"

namespace runapp::mpi {

World start() {
    return {};
}

std::vector<std::string> gather(const World&, const std::string& mine) {
    return {mine};
}

void stop(const World&) {}

} // namespace runapp::mpi
