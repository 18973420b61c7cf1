#include "opencl_check.hpp"

#include <duet/backend/log.hpp>
#include <duet/error.hpp>

namespace duet::opencl {

const char* error_name(cl_int code) {
    switch (code) {
#define DUET_CL_CASE(x)                                                                            \
    case x:                                                                                        \
        return #x;
        DUET_CL_CASE(CL_SUCCESS)
        DUET_CL_CASE(CL_DEVICE_NOT_FOUND)
        DUET_CL_CASE(CL_DEVICE_NOT_AVAILABLE)
        DUET_CL_CASE(CL_COMPILER_NOT_AVAILABLE)
        DUET_CL_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        DUET_CL_CASE(CL_OUT_OF_RESOURCES)
        DUET_CL_CASE(CL_OUT_OF_HOST_MEMORY)
        DUET_CL_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
        DUET_CL_CASE(CL_MEM_COPY_OVERLAP)
        DUET_CL_CASE(CL_IMAGE_FORMAT_MISMATCH)
        DUET_CL_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        DUET_CL_CASE(CL_BUILD_PROGRAM_FAILURE)
        DUET_CL_CASE(CL_MAP_FAILURE)
        DUET_CL_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        DUET_CL_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        DUET_CL_CASE(CL_COMPILE_PROGRAM_FAILURE)
        DUET_CL_CASE(CL_LINKER_NOT_AVAILABLE)
        DUET_CL_CASE(CL_LINK_PROGRAM_FAILURE)
        DUET_CL_CASE(CL_DEVICE_PARTITION_FAILED)
        DUET_CL_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        DUET_CL_CASE(CL_INVALID_VALUE)
        DUET_CL_CASE(CL_INVALID_DEVICE_TYPE)
        DUET_CL_CASE(CL_INVALID_PLATFORM)
        DUET_CL_CASE(CL_INVALID_DEVICE)
        DUET_CL_CASE(CL_INVALID_CONTEXT)
        DUET_CL_CASE(CL_INVALID_QUEUE_PROPERTIES)
        DUET_CL_CASE(CL_INVALID_COMMAND_QUEUE)
        DUET_CL_CASE(CL_INVALID_HOST_PTR)
        DUET_CL_CASE(CL_INVALID_MEM_OBJECT)
        DUET_CL_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        DUET_CL_CASE(CL_INVALID_IMAGE_SIZE)
        DUET_CL_CASE(CL_INVALID_SAMPLER)
        DUET_CL_CASE(CL_INVALID_BINARY)
        DUET_CL_CASE(CL_INVALID_BUILD_OPTIONS)
        DUET_CL_CASE(CL_INVALID_PROGRAM)
        DUET_CL_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
        DUET_CL_CASE(CL_INVALID_KERNEL_NAME)
        DUET_CL_CASE(CL_INVALID_KERNEL_DEFINITION)
        DUET_CL_CASE(CL_INVALID_KERNEL)
        DUET_CL_CASE(CL_INVALID_ARG_INDEX)
        DUET_CL_CASE(CL_INVALID_ARG_VALUE)
        DUET_CL_CASE(CL_INVALID_ARG_SIZE)
        DUET_CL_CASE(CL_INVALID_KERNEL_ARGS)
        DUET_CL_CASE(CL_INVALID_WORK_DIMENSION)
        DUET_CL_CASE(CL_INVALID_WORK_GROUP_SIZE)
        DUET_CL_CASE(CL_INVALID_WORK_ITEM_SIZE)
        DUET_CL_CASE(CL_INVALID_GLOBAL_OFFSET)
        DUET_CL_CASE(CL_INVALID_EVENT_WAIT_LIST)
        DUET_CL_CASE(CL_INVALID_EVENT)
        DUET_CL_CASE(CL_INVALID_OPERATION)
        DUET_CL_CASE(CL_INVALID_GL_OBJECT)
        DUET_CL_CASE(CL_INVALID_BUFFER_SIZE)
        DUET_CL_CASE(CL_INVALID_MIP_LEVEL)
        DUET_CL_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
        DUET_CL_CASE(CL_INVALID_PROPERTY)
        DUET_CL_CASE(CL_INVALID_IMAGE_DESCRIPTOR)
        DUET_CL_CASE(CL_INVALID_COMPILER_OPTIONS)
        DUET_CL_CASE(CL_INVALID_LINKER_OPTIONS)
        DUET_CL_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
        DUET_CL_CASE(CL_PLATFORM_NOT_FOUND_KHR)
#undef DUET_CL_CASE
    default:
        return "CL_UNKNOWN_ERROR";
    }
}

const char* error_hint(cl_int code) {
    switch (code) {
    case CL_OUT_OF_RESOURCES:
        return " A kernel may have read or written out of bounds, or used more registers or "
               "local memory than the device has; run it under Oclgrind to find out.";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
        return " Use a smaller size or free other allocations.";
    case CL_INVALID_WORK_GROUP_SIZE:
        return " Choose a local size within the device's and the kernel's limits that divides "
               "the global size (runapp info shows the limits).";
    case CL_INVALID_ARG_SIZE:
        return " A scalar argument's C++ type does not match the kernel parameter's type "
               "(e.g. size_t passed for int).";
    case CL_PLATFORM_NOT_FOUND_KHR:
        return " The ICD loader found no OpenCL implementation: install one (pocl-opencl-icd, "
               "a GPU driver) or check /etc/OpenCL/vendors and OCL_ICD_VENDORS.";
    default:
        return "";
    }
}

void fail(cl_int code, const std::string& call, const std::string& doing) {
    throw Error(code == CL_BUILD_PROGRAM_FAILURE ? ErrorKind::build : ErrorKind::runtime, "opencl",
                call, code, error_name(code), doing + "." + error_hint(code));
}

void rethrow(const cl::Error& e, const std::string& doing) {
    fail(e.err(), e.what(), doing);
}

} // namespace duet::opencl
