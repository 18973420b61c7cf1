#pragma once
// Building programs (embedded sources, user sources, the binary cache) and kernels.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <duet/backend/launch_checks.hpp>
#include <duet/device.hpp>

#include "opencl_common.hpp"

namespace duet::opencl {

class OpenclDevice;

// A built program, shared by the kernels made from it.
struct ProgramEntry {
    cl::Program program;
    std::string options;
    std::string origin; // file name or the user's source origin
    double build_ms = 0;
    bool cache_hit = false; // from the on-disk cache, not compiled
    // PTX of CUDA C++ (opencl_cuda_ptx.hpp): a name the app loads → its .entry's name, and the
    // entries that cannot be launched → why.
    std::map<std::string, std::string> entries, refused;
};

// The parameters of `k`: their count always (CL_KERNEL_NUM_ARGS); kind, type, size and name
// from clGetKernelArgInfo where the implementation gives them (programs are built with
// -cl-kernel-arg-info for this), kind unknown where it does not.
KernelSignature kernel_signature(const cl::Kernel& k);

// A kernel of a built program. clSetKernelArg changes the cl_kernel, so a launch sets the
// arguments and enqueues under launch_mutex(): launches from several threads are safe.
class OpenclKernel final : public Kernel {
  public:
    OpenclKernel(cl::Kernel k, std::string name, std::shared_ptr<ProgramEntry> program,
                 std::size_t max_wg, double build_ms, Provenance provenance, cl::Device device)
        : kernel_(std::move(k)), name_(std::move(name)), program_(std::move(program)),
          max_wg_(max_wg), build_ms_(build_ms), provenance_(provenance),
          signature_(kernel_signature(kernel_)), device_(std::move(device)) {}
    const std::string& name() const override { return name_; }
    std::size_t max_work_group_size() const override { return max_wg_; }
    double build_ms() const override { return build_ms_; }
    Provenance provenance() const override { return provenance_; }
    const std::string& build_options() const override { return program_->options; }
    // The largest multiple of CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE within the kernel's
    // work-group limit, once the local memory fits (opencl_program.cpp).
    std::size_t suggested_group_size(std::size_t dynamic_local_bytes) const override;
    cl::Kernel& get() { return kernel_; }
    const KernelSignature& signature() const { return signature_; }
    std::mutex& launch_mutex() { return launch_mutex_; }
    // The SvmRegistry generation whose list of SVM allocations the kernel was last given
    // (CL_KERNEL_EXEC_INFO_SVM_PTRS; 0: none yet). Under launch_mutex().
    std::uint64_t svm_generation = 0;

  private:
    cl::Kernel kernel_;
    std::string name_;
    std::shared_ptr<ProgramEntry> program_;
    std::size_t max_wg_;
    double build_ms_;
    Provenance provenance_;
    KernelSignature signature_;
    cl::Device device_;
    std::mutex launch_mutex_;
};

// The compiler options for a build: the defines (checked by Device::load_kernel), fast math only
// when asked for.
std::string build_options(const BuildOptions& options);
// Builds `source` for the device, through the on-disk cache. Throws a build Error with the log.
std::shared_ptr<ProgramEntry> build_program(OpenclDevice& dev, const std::string& source,
                                            const std::string& options, const std::string& origin);

// ---- Hopper's sm_90a-only PTX in OpenCL C (opencl_program_sm90a.cpp, opencl_ptx.hpp) ----
// Defined for the source build of a kernel that holds marked sm_90a lines where they cannot be
// raised (the device lacks the nv.sm90a_ptx extension, or the raised build failed): the
// kernel then takes another path (kernels_cl/sm90a.clh).
inline constexpr const char* sm90a_fallback_define = "DUET_SM90A_FALLBACK";
// Whether `source` names the marker at all (then the sm_90a path applies to its builds).
bool may_hold_sm90a(const std::string& source);
// Whether the program's binary (NVIDIA: PTX) still holds marked lines.
bool holds_sm90a(const cl::Program& p);
// `from_source` built again from its own PTX raised to sm_90a, where that PTX holds marked
// lines; nothing where it holds none (`why` empty) or where the raise or the build failed (`why`
// says how, with the driver's log).
std::optional<cl::Program> build_sm90a(OpenclDevice& dev, const cl::Program& from_source,
                                       const std::string& options, const std::string& origin,
                                       std::string& why);

} // namespace duet::opencl
