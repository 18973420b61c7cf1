// Launch contracts shared by both backends. Each check returns the problem as text (empty when
// there is none) so a backend can put it after its own "launching K over R on D" without
// building that text on the hot path of a launch that is fine.
#include <duet/backend/launch_checks.hpp>
#include <duet/device.hpp>

#include <algorithm>
#include <limits>

namespace duet {

namespace {

std::string given_kind(const KernelArg& a) {
    switch (a.kind) {
    case KernelArg::Kind::buffer:
        return "a buffer";
    case KernelArg::Kind::local:
        return "duet::local()";
    case KernelArg::Kind::extension:
        return std::string("a ") + a.extension->name();
    default:
        return "a scalar";
    }
}

std::string param_string(const KernelParam& p) {
    std::string s;
    if (!p.type.empty())
        s = p.type;
    else if (p.kind == KernelParam::Kind::buffer)
        s = "buffer";
    else if (p.kind == KernelParam::Kind::local)
        s = "local";
    else if (p.kind == KernelParam::Kind::scalar)
        s = "scalar";
    if (p.kind == KernelParam::Kind::scalar && p.size > 0 && p.type.empty())
        s += " of " + std::to_string(p.size) + " bytes";
    if (p.kind == KernelParam::Kind::unknown)
        s = p.size > 0 ? std::to_string(p.size) + " bytes" : "?";
    if (!p.name.empty())
        s += " " + p.name;
    return s;
}

// The size a parameter whose kind is unknown receives from `a` (Duet's CUDA convention).
std::size_t passed_size(const KernelArg& a) {
    switch (a.kind) {
    case KernelArg::Kind::buffer:
        return sizeof(void*);
    case KernelArg::Kind::local:
        return local_offset_param_size;
    case KernelArg::Kind::extension:
        return a.extension->param_size();
    default:
        return a.size;
    }
}

// Whether `a` can be passed for `p` by kind (and by size where the kind is unknown).
bool fits(const KernelParam& p, const KernelArg& a) {
    using K = KernelParam::Kind;
    switch (p.kind) {
    case K::buffer: // an extension's bytes may come in device memory (the backend checks)
        return a.kind == KernelArg::Kind::buffer || a.kind == KernelArg::Kind::extension;
    case K::local:
        return a.kind == KernelArg::Kind::local;
    case K::scalar:
        return a.kind == KernelArg::Kind::scalar && (p.size == 0 || a.size == p.size);
    default:
        return p.size == 0 || passed_size(a) == p.size;
    }
}

// The first parameter that the argument in its place does not fit; args.size() when they all
// fit (then the arguments simply stop early).
std::size_t first_misfit(const std::vector<KernelParam>& params, std::span<const KernelArg> args) {
    for (std::size_t i = 0; i < args.size() && i < params.size(); ++i)
        if (!fits(params[i], args[i]))
            return i;
    return args.size();
}

std::string named(const char* limit) {
    return *limit ? std::string(" (") + limit + ")" : std::string();
}

} // namespace

std::string KernelSignature::to_string() const {
    if (!known)
        return "(parameters unknown)";
    std::string s = "(";
    for (std::size_t i = 0; i < params.size(); ++i)
        s += (i ? ", " : "") + param_string(params[i]);
    return s + ")";
}

std::string kernel_args_problem(const KernelSignature& signature, std::span<const KernelArg> args) {
    const auto& params = signature.params;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i].kind == KernelArg::Kind::extension && !args[i].extension)
            return "argument " + std::to_string(i) +
                   " is an extension argument without its ExtensionArg (make it with "
                   "KernelArg::from)";
        if ((args[i].kind == KernelArg::Kind::buffer ||
             args[i].kind == KernelArg::Kind::extension) &&
            !args[i].buffer)
            return "argument " + std::to_string(i) +
                   " is a null buffer (or a HostBuffer the device cannot reach: its "
                   "device_buffer() is null)";
        if (args[i].kind == KernelArg::Kind::extension)
            if (std::string p = args[i].extension->problem(); !p.empty())
                return "argument " + std::to_string(i) + " is " + p;
        if (args[i].kind == KernelArg::Kind::local && args[i].size == 0)
            return "argument " + std::to_string(i) + " asks for 0 bytes of local memory";
    }
    if (!signature.known)
        return {};
    // The common case, a launch that is fine, builds no text: a launch is a hot path.
    if (args.size() == params.size() && first_misfit(params, args) == args.size())
        return {};
    const std::string counts = "the kernel takes " + std::to_string(params.size()) + " arguments " +
                               signature.to_string() + ", " + std::to_string(args.size()) +
                               " were given";
    if (args.size() < params.size()) {
        // The first parameter the arguments stop fitting is the one left out: those after it
        // have moved up one place.
        const std::size_t missing = first_misfit(params, args);
        return "argument " + std::to_string(missing) + " (" + param_string(params[missing]) +
               ") is not set: " + counts +
               "; pass every argument at every launch (none carry over from an earlier one)";
    }
    if (args.size() > params.size())
        return counts;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const KernelArg& a = args[i];
        const KernelParam& p = params[i];
        const std::string which = "argument " + std::to_string(i) + " (" + param_string(p) +
                                  ") of " + signature.to_string();
        using K = KernelParam::Kind;
        switch (p.kind) {
        case K::buffer:
            if (a.kind != KernelArg::Kind::buffer && a.kind != KernelArg::Kind::extension)
                return which + " is a buffer parameter, but " + given_kind(a) +
                       " was given; pass a duet::Buffer";
            break;
        case K::local:
            if (a.kind != KernelArg::Kind::local)
                return which + " is a local-memory parameter, but " + given_kind(a) +
                       " was given; pass duet::local(bytes)";
            break;
        case K::scalar:
            if (a.kind != KernelArg::Kind::scalar)
                return which + " is a scalar parameter, but " + given_kind(a) +
                       " was given; pass the value";
            if (p.size > 0 && a.size != p.size)
                return which + " is a " + std::to_string(p.size) + "-byte scalar, but a " +
                       std::to_string(a.size) +
                       "-byte value was given (check the type: int vs size_t, float vs double)";
            break;
        case K::unknown:
            if (p.size > 0 && passed_size(a) != p.size)
                return which + " is " + std::to_string(p.size) + " bytes, but " + given_kind(a) +
                       " of " + std::to_string(passed_size(a)) +
                       " bytes was given (check the type: int vs size_t, float vs double; "
                       "a buffer is a pointer, a duet_local_t parameter is 4 bytes)";
            break;
        }
    }
    return {};
}

std::string parameter_bytes_problem(std::span<const KernelArg> args, std::size_t limit) {
    if (limit == 0)
        return {};
    std::size_t total = 0;
    for (const auto& a : args)
        total += passed_size(a); // each at most max_value_arg_bytes: no overflow in practice
    if (total <= limit)
        return {};
    return "the arguments take " + std::to_string(total) +
           " bytes in all, over the device's limit of " + std::to_string(limit) +
           " bytes of kernel parameters (DeviceInfo::max_parameter_bytes); pass large data in "
           "a duet::Buffer";
}

bool locals_beyond_params(const KernelSignature& signature, std::span<const KernelArg> args) {
    std::size_t locals = 0;
    for (const auto& a : args)
        locals += a.kind == KernelArg::Kind::local;
    return signature.known && locals > 0 && args.size() > signature.params.size() &&
           args.size() - locals == signature.params.size();
}

std::string launch_range_problem(const Range& range, const std::array<std::size_t, 3>& local,
                                 const LaunchLimits& limits) {
    static const char axis[] = "xyz";
    const auto& g = range.global();
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    if (range.dims() > limits.max_dims)
        return std::to_string(range.dims()) + " dimensions, the device allows " +
               std::to_string(limits.max_dims);
    std::size_t items = 1, group = 1;
    for (int d = 0; d < 3; ++d) {
        const std::string in = std::string(" in ") + axis[d];
        if (g[d] == 0)
            return "a zero global size" + in;
        if (local[d] == 0)
            return "a zero local size" + in;
        if (g[d] % local[d] != 0)
            return "the global size " + std::to_string(g[d]) + in +
                   " is not a multiple of the local size " + std::to_string(local[d]) +
                   "; round it up (Range::rounded_up) and bounds-check in the kernel";
        if (items > max / g[d])
            return "the global sizes multiply to more than size_t holds";
        items *= g[d];
        if (group > max / local[d])
            return "the local sizes multiply to more than size_t holds";
        group *= local[d];
        if (limits.max_local[d] && local[d] > limits.max_local[d])
            return "a local size of " + std::to_string(local[d]) + in +
                   ", over the device's limit of " + std::to_string(limits.max_local[d]) +
                   named(limits.local_name);
        if (limits.max_groups[d] && g[d] / local[d] > limits.max_groups[d])
            return std::to_string(g[d] / local[d]) + " work-groups" + in +
                   ", over the device's limit of " + std::to_string(limits.max_groups[d]) +
                   named(limits.groups_name) + "; use a larger local size or fewer work-items";
    }
    for (int d = 0; d < 3; ++d) // after the overflow checks of every dimension
        if (limits.max_global && g[d] > limits.max_global)
            return "a global size of " + std::to_string(g[d]) + " in " + axis[d] +
                   ", over the device's limit of " + std::to_string(limits.max_global) +
                   " work-items per dimension";
    if (limits.max_total && items > limits.max_total)
        return std::to_string(items) + " work-items in all, over the " +
               std::to_string(limits.max_total) +
               " this backend launches at once; split the work "
               "into several launches";
    if (limits.max_group_items && group > limits.max_group_items)
        return "work-groups of " + std::to_string(group) +
               " work-items, over this kernel's limit of " +
               std::to_string(limits.max_group_items) + " on this device" +
               named(limits.group_items_name) +
               " (registers or local memory may allow fewer "
               "than the device's " +
               "maximum)";
    return {};
}

namespace {
// Largest power of two <= cap that divides `global`.
std::size_t dividing_power_of_two(std::size_t global, std::size_t cap) {
    std::size_t l = cap;
    while (l > 1 && global % l != 0)
        l /= 2;
    return l;
}
} // namespace

std::array<std::size_t, 3> default_local_size(const Range& range, std::size_t max_items) {
    static constexpr std::array<std::array<std::size_t, 3>, 3> caps{
        {{256, 1, 1}, {16, 16, 1}, {8, 8, 4}}};
    const auto& cap = caps[static_cast<std::size_t>(range.dims() - 1)];
    std::array<std::size_t, 3> local{1, 1, 1};
    for (int d = 0; d < range.dims(); ++d)
        local[d] = dividing_power_of_two(range.global()[d], cap[d]);
    // Halving a power-of-two divisor keeps it a divisor, so the result still tiles the range.
    while (local[0] * local[1] * local[2] > std::max<std::size_t>(max_items, 1)) {
        auto& largest = local[0] >= local[1] && local[0] >= local[2] ? local[0]
                        : local[1] >= local[2]                       ? local[1]
                                                                     : local[2];
        largest /= 2;
    }
    return local;
}

} // namespace duet
