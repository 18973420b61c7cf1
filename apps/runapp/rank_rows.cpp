#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>
#include <thread>

#include "output.hpp"
#include "rank_rows.hpp"
#include "timing.hpp"

namespace runapp {

namespace fs = std::filesystem;

RankRows::RankRows(const mpi::World& w, const Cli& c, Progress& progress, int argc, char** argv)
    : world_(w), cli_(c), progress_(progress), argc_(argc), argv_(argv),
      rows_of_rank_(std::size_t(std::max(w.size, 1)), 0),
      rank_done_(std::size_t(std::max(w.size, 1)), false) {}

void RankRows::finished(const duet::apps::Result& r) {
    if (!world_.active())
        return;
    if (world_.rank != 0) {
        mpi::send(world_, "R" + dump_json(to_json(r), -1));
        return;
    }
    rows_.push_back(to_json(r));
    ++rows_of_rank_[0];
    take(false);
    write_partial();
}

bool RankRows::take(bool wait) {
    bool got = false;
    while (auto m = mpi::receive(world_, false)) {
        got = true;
        duet::apps::heartbeat(); // another rank's progress is the run's progress
        auto& [rank, text] = *m;
        const bool known = rank >= 0 && std::size_t(rank) < rank_done_.size();
        if (text.empty() || text[0] != 'R') {
            ++done_ranks_;
            if (known)
                rank_done_[std::size_t(rank)] = true;
            continue;
        }
        if (known)
            ++rows_of_rank_[std::size_t(rank)];
        auto row = nlohmann::json::parse(text.substr(1), nullptr, false);
        if (row.is_discarded() || !row.is_object())
            continue; // finish_ranks' gather still has every row
        progress_.line("rank " + std::to_string(rank) + ": " + row.value("app", "") + " " +
                       row.value("variant", "") + " on " + row.value("device_id", "") + " (" +
                       row.value("size", "") + "): " + row.value("status", ""));
        rows_.push_back(std::move(row));
    }
    if (!got && wait)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return got;
}

void RankRows::done() {
    if (!world_.active())
        return;
    if (world_.rank != 0) {
        mpi::send(world_, "D"); // taken by rank 0 before finish_ranks' gather ends
        return;
    }
    rank_done_[0] = true;
    while (done_ranks_ < world_.size - 1)
        if (take(true))
            write_partial();
}

// The rows so far as a result document in --output (with --format json), through a temporary
// file renamed into place: a run ended by a rank's crash or a --timeout keeps what finished.
void RankRows::write_partial() {
    const std::string& out = cli_.output;
    std::error_code ec;
    if (world_.rank != 0 || out.empty() || cli_.format != Format::json || write_failed_ ||
        (fs::exists(out, ec) && !fs::is_regular_file(out, ec)))
        return;
    nlohmann::json doc = provenance(argc_, argv_);
    doc["partial"] = "the rows that had finished when this was written; the run did not end "
                     "(yet): a rank that crashed or hung lost only its unfinished rows";
    nlohmann::json finished = nlohmann::json::array();
    for (std::size_t i = 0; i < rank_done_.size(); ++i)
        if (rank_done_[i])
            finished.push_back(i);
    doc["mpi_ranks"] = {{"ranks", world_.size}, {"finished", finished}, {"rows", rows_of_rank_}};
    doc["results"] = rows_;
    const std::string tmp = out + ".partial";
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << dump_json(doc) << "\n";
        f.close();
        if (!f)
            write_failed_ = true;
    }
    if (!write_failed_)
        fs::rename(tmp, out, ec);
    if (write_failed_ || ec) {
        write_failed_ = true;
        fs::remove(tmp, ec);
        std::cerr << "runapp: warning: cannot keep the finished rows in " << out
                  << " as they arrive; they are written at the end\n";
    }
}

} // namespace runapp
