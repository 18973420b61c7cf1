// The Queue's entry points: every transfer, fill and launch is checked here, once for all
// backends, before the backend's do_* hook (and so any driver) sees it. A mistake is reported
// with the numbers that make it one, in the same words on every backend.
#include <duet/backend/launch_checks.hpp>
#include <duet/backend/log.hpp>
#include <duet/backend/transfer_checks.hpp>
#include <duet/device.hpp>

namespace duet {

namespace {

void check_span(const Queue& q, const char* op, std::size_t bytes, std::size_t offset,
                const Buffer& b) {
    if (std::string problem = span_problem(op, bytes, offset, b.size()); !problem.empty())
        throw Error::usage(q.device().label() + ": " + problem);
}

void check_host_pointer(const Queue& q, const char* op, std::size_t bytes, const void* host) {
    if (bytes > 0 && !host)
        throw Error::usage(q.device().label() + ": " + op + " of " + std::to_string(bytes) +
                           " bytes with a null host pointer");
}

std::string dims_string(const std::array<std::size_t, 3>& v, int dims) {
    std::string s = std::to_string(v[0]);
    for (int d = 1; d < dims; ++d) {
        s += 'x'; // not "x" + ...: GCC 12's -Wrestrict misreads that in Release builds
        s += std::to_string(v[d]);
    }
    return s;
}

// The debug line of a launch: the local size passed and where it came from.
void log_launch(const Kernel& kernel, const Range& range, const Device& device,
                const std::array<std::size_t, 3>& local) {
    const bool driver = range.driver_chooses_local();
    log().debug("launch {} over {} on {}: local size {} ({})", kernel.name(), range.to_string(),
                device.label(),
                driver ? std::string("left to the driver") : dims_string(local, range.dims()),
                range.has_local() ? "the app's"
                : driver          ? "Range::driver_local"
                                  : "Duet's default rule, default_local_size");
}

} // namespace

Event Queue::write_bytes(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset,
                         bool blocking) {
    check_span(*this, "a write", bytes, offset, dst);
    check_host_pointer(*this, "a write", bytes, src);
    return do_write_bytes(dst, src, bytes, offset, blocking);
}

Event Queue::read_bytes(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset,
                        bool blocking) {
    check_span(*this, "a read", bytes, offset, src);
    check_host_pointer(*this, "a read", bytes, dst);
    return do_read_bytes(src, dst, bytes, offset, blocking);
}

Event Queue::copy(const Buffer& src, Buffer& dst, std::size_t bytes) {
    check_span(*this, "a copy from the source", bytes, 0, src);
    check_span(*this, "a copy to the destination", bytes, 0, dst);
    return do_copy(src, dst, bytes);
}

Event Queue::fill_bytes(Buffer& dst, const void* pattern, std::size_t pattern_size,
                        std::size_t bytes) {
    if (std::string problem = fill_problem(pattern, pattern_size, bytes); !problem.empty())
        throw Error::usage(device().label() + ": " + problem);
    check_span(*this, "a fill", bytes, 0, dst);
    return do_fill_bytes(dst, pattern, pattern_size, bytes);
}

Event Queue::launch_args(Kernel& kernel, const Range& range, KernelArgs args) {
    LaunchContract contract = launch_contract(kernel);
    // The app's local size, the driver's choice (zeros: the backend asks its driver), or the
    // one default work-group rule, for every backend.
    const bool driver = range.driver_chooses_local();
    const std::array<std::size_t, 3> local =
        range.has_local() ? range.local_size()
        : driver          ? std::array<std::size_t, 3>{0, 0, 0}
                          : default_local_size(range, kernel.max_work_group_size());
    if (log().should_log(spdlog::level::debug))
        log_launch(kernel, range, device(), local);
    // Built only when a check fails: a launch is a hot path.
    const auto doing = [&] {
        return "launching " + kernel.name() + " over " + range.to_string() +
               (range.has_local() || driver
                    ? std::string()
                    : " (local size chosen: " + dims_string(local, range.dims()) + ")") +
               " on " + device().label();
    };
    if (driver) { // only the global size is the app's to check; the driver sizes the groups
        contract.limits.max_groups = {0, 0, 0};
        contract.limits.max_group_items = 0;
    }
    if (std::string problem = launch_range_problem(
            range, driver ? std::array<std::size_t, 3>{1, 1, 1} : local, contract.limits);
        !problem.empty())
        throw Error::usage(doing() + ": " + problem);

    // Arguments that map onto parameters: all, except duet::local ones that become shared
    // memory where the backend has that idiom.
    static const KernelSignature unknown;
    const KernelSignature& signature = contract.signature ? *contract.signature : unknown;
    const bool shared = contract.surplus_locals_are_shared && locals_beyond_params(signature, args);
    std::vector<KernelArg> mapped;
    std::span<const KernelArg> passed = args;
    if (shared) {
        for (const auto& a : args)
            if (a.kind != KernelArg::Kind::local)
                mapped.push_back(a);
        passed = mapped;
    }
    if (std::string problem = kernel_args_problem(signature, passed); !problem.empty()) {
        bool local_surplus = false;
        for (const auto& a : args)
            local_surplus |= a.kind == KernelArg::Kind::local;
        local_surplus &= signature.known && args.size() > signature.params.size();
        throw Error::usage(doing() + ": " + problem +
                           (contract.surplus_locals_are_shared && local_surplus
                                ? " (duet::local arguments with no parameter become extern "
                                  "__shared__ memory only when all of them have none)"
                                : ""));
    }
    if (std::string problem = parameter_bytes_problem(passed, contract.limits.max_parameter_bytes);
        !problem.empty())
        throw Error::usage(doing() + ": " + problem);
    if (contract.limits.max_local_bytes) {
        std::size_t local_total = 0;
        for (const auto& a : args)
            if (a.kind == KernelArg::Kind::local)
                local_total += a.size;
        if (local_total > contract.limits.max_local_bytes)
            throw Error::usage(doing() + ": " + std::to_string(local_total) +
                               " bytes of local memory asked for, the device has " +
                               std::to_string(contract.limits.max_local_bytes));
    }
    return do_launch(kernel, range, local, args);
}

} // namespace duet
