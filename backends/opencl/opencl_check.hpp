#pragma once
// Turning OpenCL status codes into duet::Error with the call, the code's name and a hint.
#include <string>

#include "opencl_common.hpp"

namespace duet::opencl {

// "CL_OUT_OF_RESOURCES" for -5, "CL_UNKNOWN_ERROR" for codes it does not know.
const char* error_name(cl_int code);
// What a user can do about a code, "" when there is nothing specific to say.
const char* error_hint(cl_int code);
// Throws duet::Error for a failed call: `doing` says what was being done, on which device.
[[noreturn]] void fail(cl_int code, const std::string& call, const std::string& doing);
// Calls fail() unless code is CL_SUCCESS.
inline void check(cl_int code, const char* call, const std::string& doing) {
    if (code != CL_SUCCESS)
        fail(code, call, doing);
}
// Converts a CLHPP exception (it carries the call name and the code).
[[noreturn]] void rethrow(const cl::Error& e, const std::string& doing);

} // namespace duet::opencl
