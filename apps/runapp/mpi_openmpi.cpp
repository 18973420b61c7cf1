// runapp built with MPI: ranks on one host split its devices; rank 0 gathers every rank's rows
// (the JSON result document each would have written) and presents one merged result.
#include <cstdlib>
#include <deque>
#include <stdexcept>

#include <mpi.h>

#include "mpi.hpp"

namespace runapp::mpi {

namespace {

void check(int rc, const char* call) {
    if (rc != MPI_SUCCESS)
        throw std::runtime_error(std::string("MPI: ") + call + " failed (code " +
                                 std::to_string(rc) + ")");
}

// Rows on their way to rank 0 (apps/runapp/rank_rows.hpp): one tag, so that they arrive in the
// order they were sent; each text and its request live until wait_sent.
constexpr int rows_tag = 38;
std::deque<std::pair<std::string, MPI_Request>> pending;

} // namespace

World start() {
    // Only under a launcher: a plain `runapp compare` never starts MPI (no singleton start-up,
    // no change when no mpirun is involved).
    if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMIX_RANK"))
        return {};
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready)
        check(MPI_Init(nullptr, nullptr), "MPI_Init");
    World w;
    check(MPI_Comm_rank(MPI_COMM_WORLD, &w.rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &w.size), "MPI_Comm_size");
    MPI_Comm local;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank, MPI_INFO_NULL, &local),
          "MPI_Comm_split_type");
    check(MPI_Comm_rank(local, &w.local_rank), "MPI_Comm_rank");
    check(MPI_Comm_size(local, &w.local_size), "MPI_Comm_size");
    MPI_Comm_free(&local);
    return w;
}

std::vector<std::string> gather(const World& w, const std::string& mine) {
    if (!w.active())
        return {mine};
    wait_sent(w); // the rows sent as they finished (rank 0 took them before the gather)
    if (mine.size() > static_cast<std::size_t>(INT32_MAX))
        throw std::runtime_error("MPI: this rank's results are larger than 2 GiB");
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(w.rank == 0 ? w.size : 0);
    check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<int> offsets(lens.size());
    long long total = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) {
        if (total > INT32_MAX)
            throw std::runtime_error("MPI: the ranks' results together are larger than 2 GiB");
        offsets[i] = static_cast<int>(total);
        total += lens[i];
    }
    if (total > INT32_MAX)
        throw std::runtime_error("MPI: the ranks' results together are larger than 2 GiB");
    std::string all(static_cast<std::size_t>(total), '\0');
    check(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR,
                      0, MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < lens.size(); ++i)
        out.push_back(all.substr(offsets[i], lens[i]));
    return out;
}

void send(const World& w, std::string text) {
    if (!w.active() || w.rank == 0)
        return;
    if (text.size() > static_cast<std::size_t>(INT32_MAX))
        throw std::runtime_error("MPI: a row is larger than 2 GiB");
    pending.emplace_back(std::move(text), MPI_REQUEST_NULL);
    auto& [buf, req] = pending.back();
    check(MPI_Isend(buf.data(), static_cast<int>(buf.size()), MPI_CHAR, 0, rows_tag, MPI_COMM_WORLD,
                    &req),
          "MPI_Isend");
}

void wait_sent(const World& w) {
    if (!w.active())
        return;
    for (auto& [buf, req] : pending)
        check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
    pending.clear();
}

std::optional<std::pair<int, std::string>> receive(const World& w, bool block) {
    if (!w.active() || w.rank != 0)
        return std::nullopt;
    MPI_Status st;
    int ready = 1;
    if (block)
        check(MPI_Probe(MPI_ANY_SOURCE, rows_tag, MPI_COMM_WORLD, &st), "MPI_Probe");
    else
        check(MPI_Iprobe(MPI_ANY_SOURCE, rows_tag, MPI_COMM_WORLD, &ready, &st), "MPI_Iprobe");
    if (!ready)
        return std::nullopt;
    int len = 0;
    check(MPI_Get_count(&st, MPI_CHAR, &len), "MPI_Get_count");
    std::string text(static_cast<std::size_t>(len), '\0');
    check(MPI_Recv(text.data(), len, MPI_CHAR, st.MPI_SOURCE, rows_tag, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    return std::make_pair(st.MPI_SOURCE, std::move(text));
}

void stop(const World& w) {
    if (w.active())
        MPI_Finalize();
}

} // namespace runapp::mpi
