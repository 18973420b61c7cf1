#include <algorithm>
#include <iostream>

#include "cmd_compare_ranks.hpp"
#include "cmd_report.hpp"
#include "output.hpp"
#include "report.hpp"
#include "result_file.hpp"

namespace runapp {

std::vector<duet::Device*> devices_of_rank(const mpi::World& w,
                                           const std::vector<duet::Device*>& all) {
    if (!w.active())
        return all;
    std::vector<duet::Device*> mine;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (static_cast<int>(i % static_cast<std::size_t>(w.local_size)) == w.local_rank)
            mine.push_back(all[i]);
    if (mine.empty())
        std::cerr << "runapp: rank " << w.rank << ": no device left for this rank (" << all.size()
                  << " device(s) for " << w.local_size << " ranks on this host)\n";
    return mine;
}

int finish_ranks(const mpi::World& w, const Cli& c, std::vector<duet::apps::Result> results,
                 const std::vector<std::string>& failures, int argc, char** argv) {
    nlohmann::json doc = provenance(argc, argv);
    doc["mpi"] = {{"rank", w.rank}, {"ranks", w.size}, {"local_rank", w.local_rank}};
    doc["failures"] = nlohmann::json::array();
    for (const auto& f : failures) {
        doc["failures"].push_back("rank " + std::to_string(w.rank) + ": " + f);
        // The failure as a row too: the merged table shows it where the device's rows would be.
        duet::apps::Result r;
        const auto colon = f.find(": ");
        r.app = f.substr(0, f.find(' '));
        r.variant = "(device error)";
        const auto on = f.find(" on ");
        r.device_id = on == std::string::npos ? "rank " + std::to_string(w.rank)
                                              : f.substr(on + 4, f.find(' ', on + 4) - on - 4);
        r.skipped = true;
        r.note = "failed: " + (colon == std::string::npos ? f : f.substr(colon + 2));
        results.push_back(std::move(r));
    }
    doc["results"] = nlohmann::json::array();
    for (const auto& r : results)
        doc["results"].push_back(to_json(r));
    const auto texts = mpi::gather(w, dump_json(doc, -1));
    if (w.rank != 0) {
        mpi::stop(w);
        return 0;
    }
    // One run per host: the ranks of one host ran on its devices, side by side.
    std::vector<Run> runs;
    int code = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        try {
            for (auto& run : parse_result_text(texts[i])) {
                auto same = std::find_if(runs.begin(), runs.end(), [&](const Run& r) {
                    return r.info.machine.host == run.info.machine.host;
                });
                if (same == runs.end())
                    runs.push_back(std::move(run));
                else
                    merge_into(*same, std::move(run));
            }
        } catch (const BadResultFile& e) {
            std::cerr << "runapp: error: rank " << i << "'s rows could not be read: " << e.what()
                      << "\n";
            code = 3;
        }
    }
    for (auto& run : runs)
        run.info.document.erase("mpi"); // a rank's place, not the merged run's
    std::vector<duet::apps::Result> all;
    for (const auto& run : runs)
        all.insert(all.end(), run.results.begin(), run.results.end());
    code = std::max(code, present_runs(c, std::move(runs)));
    std::vector<std::string> why;
    const int result_code = results_exit_code(all, why);
    for (const auto& line : why)
        std::cerr << "runapp: error: " << line << "\n";
    mpi::stop(w);
    return result_code ? result_code : code;
}

} // namespace runapp
