// The OpenCL backend's routes through another compiler (opencl_routes.hpp): CUDA C++ as SPIR-V
// on devices that take IL, as PTX on NVIDIA's OpenCL, and the programs made from either (or
// from an app's own SPIR-V or PTX text).
#include "opencl_routes.hpp"

#include <chrono>

#include <duet/backend/log.hpp>

#include "opencl_check.hpp"
#include "opencl_clang.hpp"
#include "opencl_cuda_ptx.hpp"
#include "opencl_device.hpp"

namespace duet::opencl {

bool takes_il(const cl::Device& d, std::string& why) {
    std::string il, extensions;
    try {
        extensions = d.getInfo<CL_DEVICE_EXTENSIONS>();
        il = d.getInfo<CL_DEVICE_IL_VERSION>();
    } catch (const cl::Error&) {
        // OpenCL 1.2 devices have no CL_DEVICE_IL_VERSION.
    }
    if (il.find("SPIR-V") == std::string::npos &&
        extensions.find("cl_khr_il_program") == std::string::npos) {
        why = "the device takes no SPIR-V (it reports neither cl_khr_il_program nor an IL "
              "version)";
        return false;
    }
    why = clang_tools(ClangTarget::spir_v).missing;
    return why.empty();
}

bool takes_ptx(const cl::Platform& platform, bool compile, std::string& why) {
    std::string name;
    try {
        name = platform.getInfo<CL_PLATFORM_NAME>();
    } catch (const cl::Error&) {
    }
    // NVIDIA's OpenCL gives PTX as a program's binary and builds one from PTX; PoCL's CUDA
    // devices and every other platform have binaries of their own.
    if (name != "NVIDIA CUDA") {
        why = "the device takes no PTX (only NVIDIA's OpenCL, platform \"NVIDIA CUDA\", builds "
              "programs from PTX binaries; this is \"" +
              name + "\")";
        return false;
    }
    why = compile ? cuda_ptx_missing() : ""; // NVRTC, else clang with libclc
    return why.empty();
}

namespace {

const char* form_name(ProgramForm form) {
    return form == ProgramForm::il ? "SPIR-V" : "program binary";
}

cl_program create_program(OpenclDevice& dev, ProgramForm form,
                          const std::vector<unsigned char>& bytes, const std::string& origin) {
    cl_int err = CL_SUCCESS, status = CL_SUCCESS;
    cl_program p = nullptr;
    const char* call =
        form == ProgramForm::il ? "clCreateProgramWithIL" : "clCreateProgramWithBinary";
    if (form == ProgramForm::il) {
        p = clCreateProgramWithIL(dev.context()(), bytes.data(), bytes.size(), &err);
    } else {
        const cl_device_id id = dev.cl_device()();
        const std::size_t size = bytes.size();
        const unsigned char* data = bytes.data();
        p = clCreateProgramWithBinary(dev.context()(), 1, &id, &size, &data, &status, &err);
        if (err == CL_SUCCESS && status != CL_SUCCESS) {
            clReleaseProgram(p);
            err = status;
        }
    }
    if (err != CL_SUCCESS)
        throw Error(ErrorKind::build, "opencl", call, err, error_name(err),
                    std::string("loading the ") + form_name(form) + " of " + origin + " on " +
                        dev.where());
    return p;
}

} // namespace

std::shared_ptr<ProgramEntry> build_program_from(OpenclDevice& dev, ProgramForm form,
                                                 const std::vector<unsigned char>& bytes,
                                                 const std::string& options,
                                                 const std::string& origin) {
    const auto t0 = std::chrono::steady_clock::now();
    auto entry = std::make_shared<ProgramEntry>();
    log().debug("{}: building {} bytes of {} on {}", origin, bytes.size(), form_name(form),
                dev.where());
    entry->program = cl::Program(create_program(dev, form, bytes, origin));
    try {
        entry->program.build(std::vector<cl::Device>{dev.cl_device()}, options.c_str());
    } catch (const cl::Error& e) {
        std::string log;
        try {
            log = entry->program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(dev.cl_device());
        } catch (...) {
        }
        throw Error(ErrorKind::build, "opencl", "clBuildProgram", e.err(), error_name(e.err()),
                    std::string("building the ") + form_name(form) + " of " + origin + " for " +
                        dev.where() + " failed; the compiler's log follows",
                    log);
    }
    entry->options = options;
    entry->origin = origin;
    entry->build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return entry;
}

} // namespace duet::opencl
