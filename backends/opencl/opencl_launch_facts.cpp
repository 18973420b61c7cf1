// The launch facts of DeviceInfo on OpenCL: every device-type bit, and the native and preferred
// vector widths per element type (describe_launch_facts, opencl_device.hpp).
#include "opencl_device.hpp"

namespace duet::opencl {

namespace {

// One width query; 0 when the driver does not answer.
int width(const cl::Device& d, cl_device_info what) {
    cl_uint w = 0;
    return clGetDeviceInfo(d(), what, sizeof w, &w, nullptr) == CL_SUCCESS ? static_cast<int>(w)
                                                                           : 0;
}

} // namespace

void describe_launch_facts(const cl::Device& d, cl_device_type type, DeviceInfo& i) {
    i.device_type_bits = 0;
    if (type & CL_DEVICE_TYPE_CPU)
        i.device_type_bits |= device_type_bit(DeviceType::cpu);
    if (type & CL_DEVICE_TYPE_GPU)
        i.device_type_bits |= device_type_bit(DeviceType::gpu);
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        i.device_type_bits |= device_type_bit(DeviceType::accelerator);
    if (type & ~cl_device_type(CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT))
        i.device_type_bits |= device_type_bit(DeviceType::other); // CUSTOM and later types
    if (i.device_type_bits == 0)
        i.device_type_bits = device_type_bit(i.device_type);

    i.native_vector_width = {width(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR),
                             width(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT),
                             width(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_INT),
                             width(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG),
                             width(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF),
                             width(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT),
                             width(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE)};
    i.preferred_vector_width = {width(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR),
                                width(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT),
                                width(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT),
                                width(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG),
                                width(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF),
                                width(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT),
                                width(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE)};
    const auto& n = i.native_vector_width;
    i.details.emplace_back("Native vector widths (char short int long half float double)",
                           std::to_string(n.i8) + " " + std::to_string(n.i16) + " " +
                               std::to_string(n.i32) + " " + std::to_string(n.i64) + " " +
                               std::to_string(n.f16) + " " + std::to_string(n.f32) + " " +
                               std::to_string(n.f64));
}

} // namespace duet::opencl
