// Queue::launch_named: arguments bound by parameter name, so kernels written separately per
// language (their own names and parameter orders) launch from one host call. The binding only
// orders the arguments; launch_args then checks them against the kernel as every launch is.
#include <algorithm>

#include <duet/device.hpp>

namespace duet {

namespace {

Error binding_error(const Kernel& kernel, const std::string& what) {
    return Error::usage("launching " + kernel.name() + " by parameter name: " + what +
                        "; the kernel is " + kernel.declaration().signature());
}

} // namespace

Event Queue::launch_named(Kernel& kernel, const Range& range, const std::vector<NamedArg>& args) {
    const auto& params = kernel.declaration().parameter_names;
    if (params.empty() && !args.empty())
        throw binding_error(kernel, "its parameter names are not known (they are read from "
                                    "the sources an app gives; Duet's own kernels and binaries "
                                    "bind by position: use launch)");
    std::vector<KernelArg> ordered(params.size() + 1);
    std::vector<bool> set(params.size(), false);
    for (const auto& a : args) {
        const auto it = std::find(params.begin(), params.end(), a.name);
        if (a.name.empty() || it == params.end())
            throw binding_error(kernel, "it has no parameter named '" + a.name + "'");
        const auto i = static_cast<std::size_t>(it - params.begin());
        if (set[i])
            throw binding_error(kernel, "'" + a.name + "' is given twice");
        ordered[i] = a.arg;
        set[i] = true;
    }
    for (std::size_t i = 0; i < params.size(); ++i)
        if (!set[i])
            throw binding_error(kernel, "parameter " + std::to_string(i) + " '" + params[i] +
                                            "' has no argument");
    try {
        return launch_args(kernel, range, KernelArgs(ordered.data(), params.size()));
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::usage)
            throw;
        throw Error::usage(std::string(e.what()) + " (bound by name to " +
                           kernel.declaration().signature() + ")");
    }
}

} // namespace duet
