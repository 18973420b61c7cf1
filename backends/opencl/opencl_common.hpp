#pragma once
// One place that configures and includes OpenCL-CLHPP for the backend.
#include <CL/opencl.hpp>
#include <CL/cl_ext.h>
