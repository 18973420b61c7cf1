// BabelStream (github.com/UoB-HPC/BabelStream) through Duet: its CUDA kernels (CUDAStream.cu)
// and its OpenCL kernels (OCLStream.cpp's kernel string), read as they are from the folder
// given, run from this one host program on any device: copy, mul, add, triad, dot (and nstream
// with --only All) at upstream's default sizes, upstream's check of the results, and its table
// of bandwidths (the first iteration dropped). bench/ports/fetch_upstream.sh fills the folder.
//
//   duet_babelstream --upstream DIR [--device SPEC] [-s N] [-n TIMES] [--float] [--only All]
//                    [--csv]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "babelstream_check.hpp"
#include "babelstream_kernels.hpp"

namespace {

struct Args {
    std::string upstream, device = "0";
    std::size_t n = 33554432, times = 100;
    bool is_float = false, all = false, csv = false;
};

// The host side of babelstream_closures.cuh's functors: the same fields in the same order.
template <class T> struct Init {
    T *a, *b, *c;
    T init_a, init_b, init_c;
};
template <class T> struct Two { T *x, *y; };
template <class T> struct Three { T *a, *b, *c; };

// One operation: upstream's label and weight (arrays moved per element), its kernel in each
// text, and its closure's value where the kernel takes one.
struct Op {
    Op(const char* l, std::size_t w, const char* cl, const char* f,
       std::function<duet::KernelArg()> make)
        : label(l), weight(w), cl_kernel(cl), functor(f), closure(std::move(make)) {}
    const char* label;
    std::size_t weight;
    const char* cl_kernel;
    const char* functor;
    std::function<duet::KernelArg()> closure;
    std::unique_ptr<duet::Kernel> kernel;
    duet::Range range{1};
    std::vector<duet::NamedArg> args;
};

void print_row(const Args& o, const char* label, double mbs, double mn, double mx, double avg,
               std::size_t elem) {
    if (o.csv)
        std::printf("%s,%zu,%zu,%zu,%.6g,%.6g,%.6g,%.6g\n", label, o.times, o.n, elem, mbs, mn, mx,
                    avg);
    else
        std::printf("%-12s%-12.3f%-12.5f%-12.5f%-12.5f\n", label, mbs, mn, mx, avg);
}

template <class T> int run(const Args& o) {
    const ports::BabelStream up = ports::read_babelstream(o.upstream);
    duet::Device& dev = duet::select_device(o.device);
    auto q = dev.create_queue();
    auto a = dev.alloc<T>(o.n), b = dev.alloc<T>(o.n), c = dev.alloc<T>(o.n);
    const std::string t = o.is_float ? "float" : "double";
    const auto load = [&](const char* cl, const char* functor) {
        const std::string cu = functor ? "for_each_kernel<" + std::string(functor) + "<" + t + ">>"
                                       : "dot_kernel<" + t + ">";
        return dev.load_kernel(cl, ports::stream_options(up, o.is_float, cl, cu));
    };
    // Device addresses are asked for only by a kernel over a closure (bind calls `closure`).
    Init<T> init{};
    Two<T> copy{}, mul{};
    Three<T> add{}, triad{}, nstream{};
    const auto ptr = [](duet::Buffer& x) { return x.device_pointer<T>(); };
    std::vector<Op> ops;
    ops.emplace_back("Init", 0, "init", "Init", [&] {
        init = {ptr(*a), ptr(*b), ptr(*c), T(up.start_a), T(up.start_b), T(up.start_c)};
        return duet::KernelArg::from(init);
    });
    ops.emplace_back("Copy", 2, "copy", "Copy", [&] {
        copy = {ptr(*a), ptr(*c)};
        return duet::KernelArg::from(copy);
    });
    ops.emplace_back("Mul", 2, "mul", "Mul", [&] {
        mul = {ptr(*b), ptr(*c)};
        return duet::KernelArg::from(mul);
    });
    ops.emplace_back("Add", 3, "add", "Add", [&] {
        add = {ptr(*a), ptr(*b), ptr(*c)};
        return duet::KernelArg::from(add);
    });
    ops.emplace_back("Triad", 3, "triad", "Triad", [&] {
        triad = {ptr(*a), ptr(*b), ptr(*c)};
        return duet::KernelArg::from(triad);
    });
    ops.emplace_back("Dot", 2, "stream_dot", nullptr, nullptr);
    if (o.all)
        ops.emplace_back("Nstream", 4, "nstream", "Nstream", [&] {
            nstream = {ptr(*a), ptr(*b), ptr(*c)};
            return duet::KernelArg::from(nstream);
        });
    for (auto& op : ops)
        op.kernel = load(op.cl_kernel, op.functor);

    Op& dot = *std::find_if(ops.begin(), ops.end(), [](const Op& x) { return !x.functor; });
    const ports::DotShape shape = ports::dot_shape(dev, *dot.kernel, up);
    auto sums = dev.alloc_host(sizeof(T) * shape.groups); // the partial sums, written by the GPU
    const T init_a = T(up.start_a), init_b = T(up.start_b), init_c = T(up.start_c);
    for (auto& op : ops) {
        ports::ArgPool pool{
            {"a", duet::KernelArg::from(*a)},
            {"b", duet::KernelArg::from(*b)},
            {"c", duet::KernelArg::from(*c)},
            {"initA", duet::KernelArg::from(init_a)},
            {"initB", duet::KernelArg::from(init_b)},
            {"initC", duet::KernelArg::from(init_c)},
            {"array_size", duet::KernelArg::from(std::int64_t(o.n))},
            {"sum", duet::KernelArg::from(*sums)},
            {"sums", duet::KernelArg::from(*sums)},
            {"wg_sum", duet::KernelArg::from(duet::local(sizeof(T) * shape.group))}};
        const auto& params = op.kernel->declaration().parameter_names;
        if (op.closure && std::count(params.begin(), params.end(), "f"))
            pool["f"] = op.closure();
        op.range = op.functor ? ports::stream_range(*op.kernel, o.n, up)
                              : duet::Range(shape.groups * shape.group).local(shape.group);
        const std::size_t blocks = std::max<std::size_t>(1, op.range.global()[0] / up.tbsize);
        pool["start"] = duet::KernelArg::from(std::uint64_t((o.n + blocks - 1) / blocks));
        op.args = ports::bind(*op.kernel, pool);
    }

    const T* partial = static_cast<const T*>(sums->data());
    T sum{};
    const auto run_op = [&](Op& op) {
        q->launch_named(*op.kernel, op.range, op.args);
        q->finish();
        if (!op.functor) {
            sum = T{};
            for (std::size_t i = 0; i < shape.groups; ++i)
                sum += partial[i];
        }
    };
    run_op(ops[0]); // init_arrays
    std::vector<std::vector<double>> timings(ops.size());
    using clock = std::chrono::high_resolution_clock;
    for (std::size_t k = 0; k < o.times; ++k)
        for (std::size_t i = 1; i < ops.size(); ++i) {
            const auto t0 = clock::now();
            run_op(ops[i]);
            timings[i].push_back(std::chrono::duration<double>(clock::now() - t0).count());
        }
    std::vector<T> ha(o.n), hb(o.n), hc(o.n);
    q->read(*a, ha);
    q->read(*b, hb);
    q->read(*c, hc);
    q->finish();

    // Upstream's check runs the operations in its own order: Copy, Mul, Add, Triad, Dot, Nstream.
    std::vector<std::string> order;
    for (std::size_t i = 1; i < ops.size(); ++i)
        order.push_back(ops[i].label);
    const std::size_t failed =
        ports::check_solution<T>(o.times, order, ha.data(), hb.data(), hc.data(), sum, o.n,
                                 up.start_a, up.start_b, up.start_c, up.scalar);
    if (o.csv)
        std::printf("function,num_times,n_elements,sizeof,max_MB_per_sec,min_runtime,"
                    "max_runtime,avg_runtime\n");
    else
        std::printf("%-12s%-12s%-12s%-12s%-12s\n", "Function", "MBytes/sec", "Min (sec)", "Max",
                    "Average");
    for (std::size_t i = 1; i < ops.size(); ++i) {
        const auto& ts = timings[i];
        const auto mm = std::minmax_element(ts.begin() + 1, ts.end());
        const double avg = std::accumulate(ts.begin() + 1, ts.end(), 0.0) / double(o.times - 1);
        const double mbs = 1e-6 * double(ops[i].weight * sizeof(T) * o.n) / *mm.first;
        print_row(o, ops[i].label, mbs, *mm.first, *mm.second, avg, sizeof(T));
    }
    return failed ? 1 : 0;
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "%s\nusage: duet_babelstream --upstream DIR [--device SPEC] [-s N] [-n TIMES] "
                 "[--float] [--only All] [--csv]\n",
                 why);
    std::exit(2);
}

Args parse(int argc, char** argv) {
    Args o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto next = [&]() -> std::string {
            if (++i >= argc)
                usage(("a value is missing after " + a).c_str());
            return argv[i];
        };
        if (a == "--upstream")
            o.upstream = next();
        else if (a == "--device")
            o.device = next();
        else if (a == "-s" || a == "--arraysize")
            o.n = std::stoull(next());
        else if (a == "-n" || a == "--numtimes")
            o.times = std::stoull(next());
        else if (a == "--float")
            o.is_float = true;
        else if (a == "--only")
            o.all = next() == "All";
        else if (a == "--csv")
            o.csv = true;
        else
            usage(("unknown argument " + a).c_str());
    }
    if (o.upstream.empty())
        usage("--upstream DIR is required (bench/ports/fetch_upstream.sh fills it)");
    if (o.times < 2 || o.n == 0)
        usage("-n must be at least 2 and -s at least 1");
    return o;
}

} // namespace

int main(int argc, char** argv) {
    const Args o = parse(argc, argv);
    try {
        if (!o.csv)
            std::printf("BabelStream (through Duet)\nNumber of elements: %zu\nPrecision: %s\n", o.n,
                        o.is_float ? "float" : "double");
        const int rc = o.is_float ? run<float>(o) : run<double>(o);
        if (rc)
            std::fprintf(stderr, "duet_babelstream: validation failed\n");
        return rc;
    } catch (const duet::Error& e) {
        std::fprintf(stderr, "duet_babelstream: %s\n", e.what());
        return 3;
    }
}
