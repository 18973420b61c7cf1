// Programs whose kernels hold Hopper's sm_90a-only PTX (opencl_ptx.hpp): built from source for
// sm_90 by the driver as usual, then again from the driver's own PTX with the marked lines
// uncommented and the target raised to sm_90a, as a program binary. Why this is sound: the
// compiler never looks inside an asm string, so the PTX it emits around a hidden line (operands
// substituted, registers allocated for the asm's constraints, volatile asm kept in order) is the
// PTX it would emit if ptxas took the line; only ptxas, which runs again on the raised text,
// sees the difference.
#include <duet/backend/log.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"
#include "opencl_program.hpp"
#include "opencl_ptx.hpp"

namespace duet::opencl {

namespace {

std::string log_of(const cl::Program& p, const cl::Device& d) {
    try {
        return p.getBuildInfo<CL_PROGRAM_BUILD_LOG>(d);
    } catch (...) {
        return "(the build log could not be read)";
    }
}

// The program's binary as text (NVIDIA's OpenCL gives PTX); empty in `why`'s absence of one.
std::string binary_text(const cl::Program& p, std::string& why) {
    try {
        const auto bins = p.getInfo<CL_PROGRAM_BINARIES>();
        if (!bins.empty() && !bins[0].empty())
            return std::string(bins[0].begin(), bins[0].end());
        why = "the driver gave no program binary to raise";
    } catch (const cl::Error& e) {
        why = std::string("its program binary could not be read (") + error_name(e.err()) + ")";
    }
    return "";
}

} // namespace

bool may_hold_sm90a(const std::string& source) {
    return source.find(sm90a_marker) != std::string::npos;
}

bool holds_sm90a(const cl::Program& p) {
    std::string why;
    return holds_sm90a_lines(binary_text(p, why));
}

std::optional<cl::Program> build_sm90a(OpenclDevice& dev, const cl::Program& from_source,
                                       const std::string& options, const std::string& origin,
                                       std::string& why) {
    const std::string text = binary_text(from_source, why);
    if (text.empty() || !holds_sm90a_lines(text))
        return std::nullopt; // nothing hidden (the kernel took another path), or `why`
    RaisedPtx raised = raise_to_sm90a(text);
    if (!raised.error.empty()) {
        why = raised.error;
        return std::nullopt;
    }
    std::vector<cl::Device> devs{dev.cl_device()};
    cl::Program p;
    try {
        log().debug("clCreateProgramWithBinary({}: {} bytes of sm_90a PTX, {} lines uncommented)",
                    origin, raised.ptx.size(), raised.lines);
        const std::vector<unsigned char> bin(raised.ptx.begin(), raised.ptx.end());
        p = cl::Program(dev.context(), devs, cl::Program::Binaries{bin});
        p.build(devs, options.c_str());
    } catch (const cl::Error& e) {
        why = std::string(error_name(e.err())) + " building the sm_90a PTX" +
              (p() ? ": " + log_of(p, dev.cl_device()) : std::string());
        return std::nullopt;
    }
    log().info("{}: built for sm_90a from the driver's PTX ({} marked lines)", origin,
               raised.lines);
    return p;
}

} // namespace duet::opencl
