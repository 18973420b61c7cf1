#pragma once
// Duet: one API over CUDA and OpenCL. Include this and pick a device with duet::select_device.
#include <duet/device.hpp>
#include <duet/device_id.hpp>
#include <duet/error.hpp>
#include <duet/host_memory.hpp>
#include <duet/kernel_library.hpp>
#include <duet/library_path.hpp>
#include <duet/log_message.hpp>
#include <duet/private_files.hpp>
#include <duet/program_cache_info.hpp>
#include <duet/range.hpp>
#include <duet/registry.hpp>
#include <duet/stats.hpp>
#include <duet/tile_map.hpp>
#include <duet/tool_run.hpp>
#include <duet/version.hpp>
