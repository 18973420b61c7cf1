// The Device's entry points that check before the backend builds: defines, compiler options
// name expressions and kernel names, once for all backends (build_options.cpp's rules), so what one
// backend refuses every backend refuses. Which of an app's texts a device builds follows the
// dialect table (dialects.cpp): the device's own language first, then the table's routes that
// the backend says it takes (Device::takes).
#include <algorithm>

#include <duet/backend/build_options.hpp>
#include <duet/backend/kernel_sources.hpp>
#include <duet/device.hpp>

namespace duet {

namespace {

void check_options(const BuildOptions& options) {
    for (const auto& [n, v] : options.defines)
        check_define(n, v);
    for (const auto& [key, list] : options.compiler_options)
        (void)dialect(key); // a key that names no dialect is a usage Error
    for (const auto& d : dialects()) {
        const std::string field = "compiler_options[\"" + d.name + "\"]" +
                                  (d.options_field.empty() ? "" : " / " + d.options_field);
        check_compiler_options(d.name, field, options.options_for(d.name));
    }
    check_name_expressions(options.instantiations);
}

// The name a kernel scanner gives the kernel a CUDA C++ name expression names (the scanners
// read no namespaces nor template arguments): `ns::dot_kernel<double>` is dot_kernel.
std::string declared_name(const std::string& expression) {
    std::string base = expression.substr(0, expression.find('<'));
    while (!base.empty() && base.back() == ' ')
        base.pop_back();
    const auto colons = base.rfind("::");
    return colons == std::string::npos ? base : base.substr(colons + 2);
}

// `given` with Duet's own kernel `name` as a text of `given.own_dialect` (so the dialect table's
// routes decide how a device takes it).
BuildOptions own_text(const std::string& name, const BuildOptions& given) {
    const Dialect& d = dialect(given.own_dialect);
    if (d.kernel_dir.empty() || !d.language) {
        std::string written;
        for (const auto& row : dialects())
            if (!row.kernel_dir.empty())
                written += (written.empty() ? "" : ", ") + row.name;
        throw Error::usage("own_dialect " + d.name + ": Duet's own kernels are written in " +
                           written + " only");
    }
    auto file = find_kernel_source(name, *d.language, true); // headers inlined: it leaves home
    if (!file)
        throw Error::not_found("Duet has no " + d.title + " kernel named " + name +
                               " (own_dialect " + d.name + ")");
    BuildOptions out = given;
    out.sources.add(d.name, std::move(file->text), {}, d.kernel_dir + "/" + file->name);
    return out;
}

} // namespace

BuildOptions Device::with_own_text(const std::string& name, const BuildOptions& given) const {
    if (given.own_dialect.empty() || !given.sources.empty() ||
        given.own_dialect == dialect_of(info().kernel_language).name)
        return given;
    return own_text(name, given);
}

std::unique_ptr<Kernel> Device::load_kernel(const std::string& name, const BuildOptions& given) {
    check_options(given);
    const BuildOptions options = with_own_text(name, given);
    std::string kernel_name = name;
    KernelDecl declared{name, {}, {}};
    if (!options.sources.empty()) {
        for (const auto& t : options.sources.all())
            check_kernel_names(t.text, dialect(t.dialect), t.origin);
        const auto [text, route] = choose_text(options.sources);
        if (!text.kernel.empty())
            kernel_name = declared.name = text.kernel;
        for (auto& d : scan_kernels(text.text, dialect(text.dialect)))
            if (d.name == kernel_name || d.name == declared_name(kernel_name)) {
                declared = std::move(d);
                break;
            }
    }
    auto kernel = do_load_kernel(kernel_name, options);
    kernel->declaration_ = std::move(declared);
    return kernel;
}

bool Device::takes(const Dialect& d, const DialectRoute& route, std::string& why) const {
    if (route.translation.empty() && d.language == info().kernel_language)
        return true;
    why = route.translation.empty()
              ? "the " + info().backend + " backend does not build " + d.title + " itself"
              : "the " + info().backend + " backend does not offer " + route.translation +
                    (route.needs.empty() ? "" : " (" + route.needs + ")") + " on this device";
    return false;
}

const DialectRoute* Device::route_for(const Dialect& d, std::string& why) const {
    why.clear();
    for (const auto& r : d.routes) {
        if (r.backend != info().backend)
            continue;
        std::string no;
        if (takes(d, r, no))
            return &r;
        why += (why.empty() ? "" : "; ") + no;
    }
    if (why.empty())
        why = "the dialect table has no route for it to the " + info().backend + " backend";
    return nullptr;
}

std::pair<KernelText, DialectRoute> Device::choose_text(const KernelSources& sources) const {
    auto texts = sources.all();
    const std::string own = dialect_of(info().kernel_language).name;
    std::stable_partition(texts.begin(), texts.end(),
                          [&](const KernelText& t) { return t.dialect == own; });
    std::string why_not;
    for (const auto& t : texts) {
        const Dialect& d = dialect(t.dialect);
        std::string why;
        if (const DialectRoute* r = route_for(d, why))
            return {t, *r};
        why_not += "; " + d.title + " (" + t.origin + "): " + why;
    }
    throw Error::usage("no kernel text given can be built for " + label() + why_not +
                       ". Give the kernel in a dialect this device takes");
}

std::unique_ptr<Buffer> Device::view(const Buffer&, std::size_t, std::size_t) {
    throw Error::unsupported("buffer views are not supported by " + info().backend + " (" +
                             info().id() + ")");
}

std::unique_ptr<Buffer> Device::read_in_place(std::shared_ptr<const void>, const void*,
                                              std::size_t) {
    return nullptr;
}

} // namespace duet
