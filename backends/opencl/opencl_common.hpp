#pragma once
// One place that configures and includes OpenCL-CLHPP for the backend.
#include <CL/cl_ext.h>
#include <CL/opencl.hpp>
