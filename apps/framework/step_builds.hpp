#pragma once
// The builds a run starts from: each step's kernel with the tile macros of its textbook (first)
// shape, per device description. The step records are the one source of the kernels' tile macros
// (the kernels have no defaults), so whatever builds a kernel file outside a run asks here: the
// CUDA plugin's embedded images (duet_step_builds, backends/cuda/CMakeLists.txt) and
// `runapp compile`.
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "app.hpp"

namespace duet::apps {

// One step's first build on a device.
struct StepBuild {
    std::string app, step;  // "matmul", "reg4x4"
    std::string kernel;     // the first shape's kernel: "matmul_reg4x4"
    std::string file;       // the kernel's file in the device's language: "matmul_reg.cu"
    Defines defines;        // the step's defines and its first shape's, sorted by name
    bool device_specific{}; // the step's hooks add defines of the device's own (cpu's widths)
    bool extra{};           // an extra kernel's file (Step::extra_kernels), built with the step's
                            // defines and switches of its host code's own: never this build as is
};

// A device of `lang` with nothing measured (no vendor or compute capability): the device
// profiles' plain rows for the language, and the limits every device of it has (CUDA: blocks of
// 1024 threads, 48 KiB of static shared memory).
DeviceInfo plain_device(KernelLanguage lang);
// Every step of every app on `info` with no --define: the step's own defines (its hooks') and the
// tile macros of its first shape that `info`'s limits allow (the one a run builds first), those the
// hooks set standing (build_fitting's rule). A step the device would refuse to run (Needs::refuses)
// is listed all the same (a build needs no device: tf32 on a plain CUDA device is the build of
// every GPU with tensor cores but wgmma); one whose kernel has no file in the language is left out.
// Then each extra kernel's file with the step's defines (`extra`).
std::vector<StepBuild> step_builds(const DeviceInfo& info);
// The kernel files of `lang` (headers aside) that no step's first build names and that build
// with no defines: neither they nor a header they include requires a step record's macro (an
// `#error "... is set by the host from the step record ..."`). The files of extra kernels.
std::vector<std::string> bare_files(KernelLanguage lang);
// "NAME=VALUE NAME=VALUE", in the order given.
std::string defines_text(const Defines& defines);

} // namespace duet::apps
