// NVIDIA's cuda-samples reduction (Samples/2_Concepts_and_Techniques/reduction) through Duet:
// reduction_kernel.cu loaded as it is, host wrapper and all (Duet leaves out for NVRTC what it
// cannot compile, and finds the toolkit's cooperative-groups headers itself), its kernels
// launched as the sample's reduce<T> launches them, the whole reduction timed as the sample's
// benchmarkReduce times it (the first pass and the small final passes on the GPU, 100 times,
// each between two synchronisations), and checked against the host's sum as the sample checks.
//
//   duet_cuda_reduction --upstream DIR [--device SPEC] [-type=int|float|double] [-kernel=K]
//                       [-n=N] [-threads=N] [-maxblocks=N]
// DIR holds Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu
// (bench/ports/fetch_upstream.sh). Prints the sample's "Reduction, Throughput = ..." line.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "reduction_plan.hpp"
#include "upstream_text.hpp"

namespace {

struct Args {
    std::string upstream, device = "cuda:0";
    ports::ReduceConfig config;
};

// reduceCPU: Kahan summation, as the sample computes its reference.
template <class T> T reduce_cpu(const std::vector<T>& data) {
    T sum = data[0], c = T(0);
    for (std::size_t i = 1; i < data.size(); ++i) {
        const T y = data[i] - c, t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    return sum;
}

template <class T> bool run(const Args& o) {
    const auto& c = o.config;
    const std::string path =
        o.upstream + "/Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu";
    const std::vector<ports::ReducePass> plan = ports::reduce_plan(c);
    duet::BuildOptions opts;
    for (const auto& p : plan)
        opts.instantiations.push_back(p.kernel);
    opts.sources.add("cuda-c++", ports::read_text(path), {}, path);
    duet::Device& dev = duet::select_device(o.device);
    std::map<std::string, std::unique_ptr<duet::Kernel>> kernels;
    for (const auto& p : plan)
        if (!kernels.count(p.kernel))
            kernels[p.kernel] = dev.load_kernel(p.kernel, opts);

    std::vector<T> h(c.size); // the sample's input: rand() & 0xFF, scaled for floating point
    for (auto& x : h)
        x = c.type == "int" ? T(std::rand() & 0xFF) : T(std::rand() & 0xFF) / T(RAND_MAX);
    const unsigned blocks = plan.front().blocks;
    auto q = dev.create_queue();
    auto in = dev.alloc<T>(c.size), out = dev.alloc<T>(blocks), inter = dev.alloc<T>(blocks);
    q->write(*in, h);
    q->write_bytes(*out, h.data(), blocks * sizeof(T));
    const auto launch = [&](const ports::ReducePass& p, const duet::Buffer& from) {
        q->launch(*kernels[p.kernel],
                  duet::Range(std::size_t(p.blocks) * p.threads).local(p.threads), from, *out,
                  p.size, duet::local(p.shared_bytes));
    };
    launch(plan.front(), *in); // the sample's warm-up
    constexpr int iterations = 100;
    double total = 0;
    for (int i = 0; i < iterations; ++i) {
        q->finish();
        const auto t0 = std::chrono::steady_clock::now();
        launch(plan.front(), *in);
        for (std::size_t k = 1; k < plan.size(); ++k) {
            q->copy(*out, *inter, plan[k].size * sizeof(T));
            launch(plan[k], *inter);
        }
        q->finish();
        total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    T gpu = 0;
    q->read_bytes(*out, &gpu, sizeof(T));
    const double seconds = total / iterations;
    const double bytes = double(c.size) * sizeof(T);
    std::printf("Reduction, Throughput = %.4f GB/s, Time = %.5f s, Size = %u Elements, "
                "NumDevsUsed = %d, Workgroup = %u\n",
                1.0e-9 * bytes / seconds, seconds, c.size, 1, plan.front().threads);
    std::printf("Passes:");
    for (const auto& p : plan)
        std::printf(" %s x %u", p.kernel.c_str(), p.blocks);
    std::printf("\n");
    const T cpu = reduce_cpu(h);
    if (c.type == "int") {
        std::printf("\nGPU result = %d\nCPU result = %d\n\n", int(gpu), int(cpu));
        return gpu == cpu;
    }
    const int precision = c.type == "float" ? 8 : 12;
    const double threshold = (c.type == "float" ? 1e-8 : 1e-12) * c.size;
    std::printf("\nGPU result = %.*f\nCPU result = %.*f\n\n", precision, double(gpu), precision,
                double(cpu));
    return std::fabs(double(gpu) - double(cpu)) < threshold;
}

// The sample's -name=value flags (one or two dashes), and Duet's --upstream and --device.
Args parse(int argc, char** argv) {
    Args o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if ((a == "--upstream" || a == "--device") && i + 1 < argc) {
            (a == "--upstream" ? o.upstream : o.device) = argv[++i];
            continue;
        }
        a = a.substr(a.find_first_not_of('-'));
        const auto eq = a.find('=');
        const std::string key = a.substr(0, eq),
                          value = eq == std::string::npos ? "" : a.substr(eq + 1);
        if (key == "type" && (value == "int" || value == "float" || value == "double"))
            o.config.type = value;
        else if (key == "kernel" && !value.empty())
            o.config.kernel = std::stoi(value);
        else if (key == "n" && !value.empty())
            o.config.size = unsigned(std::stoul(value));
        else if (key == "threads" && !value.empty())
            o.config.max_threads = unsigned(std::stoul(value));
        else if (key == "maxblocks" && !value.empty())
            o.config.max_blocks = unsigned(std::stoul(value));
        else {
            std::fprintf(stderr, "usage: duet_cuda_reduction --upstream DIR [--device SPEC] "
                                 "[-type=int|float|double] [-kernel=0..9] [-n=N] [-threads=N] "
                                 "[-maxblocks=N]\n");
            std::exit(2);
        }
    }
    if (o.upstream.empty() || o.config.kernel < 0 || o.config.kernel > 9) {
        std::fprintf(stderr, "duet_cuda_reduction: --upstream DIR is required, -kernel 0..9\n");
        std::exit(2);
    }
    o.config.type_size = o.config.type == "double" ? 8 : 4;
    return o;
}

} // namespace

int main(int argc, char** argv) {
    const Args o = parse(argc, argv);
    std::printf("%u elements\n%u threads (max)\nReducing array of type %s, kernel %d\n\n",
                o.config.size, o.config.max_threads, o.config.type.c_str(), o.config.kernel);
    try {
        const bool ok = o.config.type == "int"     ? run<int>(o)
                        : o.config.type == "float" ? run<float>(o)
                                                   : run<double>(o);
        std::printf(ok ? "Test passed\n" : "Test failed!\n");
        return ok ? 0 : 1;
    } catch (const duet::Error& e) {
        std::fprintf(stderr, "duet_cuda_reduction: %s\n", e.what());
        return 3;
    }
}
