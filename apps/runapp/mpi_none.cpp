// runapp built without MPI: one rank, nothing to gather.
#include "mpi.hpp"

namespace runapp::mpi {

World start() {
    return {};
}

std::vector<std::string> gather(const World&, const std::string& mine) {
    return {mine};
}

void send(const World&, std::string) {}

void wait_sent(const World&) {}

std::optional<std::pair<int, std::string>> receive(const World&, bool) {
    return std::nullopt;
}

void stop(const World&) {}

} // namespace runapp::mpi
