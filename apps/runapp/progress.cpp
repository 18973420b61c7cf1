#include <iostream>

#include <unistd.h>

#include "output.hpp"
#include "progress.hpp"

namespace runapp {

Progress::Progress(bool quiet, std::string prefix)
    : on_(!quiet && isatty(STDERR_FILENO)), prefix_(std::move(prefix)) {}

void Progress::running(const std::string& what) const {
    if (on_)
        std::cerr << "\r\033[K" << prefix_ << what << " ..." << std::flush;
}

void Progress::row(const duet::apps::Result& r) {
    if (on_row)
        on_row(r);
    if (!on_)
        return;
    ++done_;
    std::string count =
        "[" + std::to_string(done_) + (total_ > 0 ? "/" + std::to_string(total_) : "") + "] ";
    std::string figure = r.skipped || r.implausible ? std::string() : throughput(r) + " ";
    std::cerr << "\r\033[K" << prefix_ << count << r.app << " " << r.variant << " on "
              << r.device_id << " (" << r.size_label << "): " << figure << check_label(r) << "\n";
    // The problem's set-up, said once, by the row that made it (setup_clock.hpp).
    if (r.wall_parts.setup >= 50)
        std::cerr << prefix_ << "      set-up of this problem (inputs, references, upload to "
                  << r.device_id << "): " << fmt("%.2f", r.wall_parts.setup / 1e3) << " s\n";
    std::cerr << std::flush;
}

void Progress::line(const std::string& text) {
    if (!on_)
        return;
    ++done_;
    std::cerr << "\r\033[K" << prefix_ << "[" << done_
              << (total_ > 0 ? "/" + std::to_string(total_) : "") << "] " << text << "\n"
              << std::flush;
}

} // namespace runapp
