// Shared by the two files of ocl_sm90_probe (see ocl_sm90_probe.cpp): an OpenCL context on one
// device and the few helpers every question uses.
#pragma once
#include <CL/cl.h>

#include <string>
#include <vector>

namespace probe {

struct Ctx {
    cl_device_id dev = nullptr;
    cl_context ctx = nullptr;
    cl_command_queue q = nullptr;
};

std::string info_str(cl_device_id d, cl_device_info what);
std::string replace_all(std::string s, const std::string& from, const std::string& to);
cl_program build(Ctx& c, const std::string& text, bool binary, const char* what,
                 const char* options = "");
std::string program_ptx(cl_program p);
cl_mem buffer(Ctx& c, std::size_t words, const std::vector<cl_uint>* init = nullptr);
std::vector<cl_uint> launch(Ctx& c, cl_kernel k, std::size_t groups, cl_mem out, std::size_t words,
                            const char* what);
std::string param_decl(Ctx& c, std::string* ptx_out = nullptr);
std::string hand_ptx(const std::string& body, const std::string& decl);
cl_kernel kernel_of(cl_program p, const char* name);

int dump_ptx(const char* dir);
int probe_info(Ctx& c);
int probe_plain(Ctx& c, const std::string& decl);
int probe_cluster(Ctx& c, const std::string& decl, const std::string& which);
int probe_src_cluster(Ctx& c);
int probe_static(Ctx& c, const std::string& decl);
int probe_static_src(Ctx& c);
int probe_local(Ctx& c, bool via_ptx);
int probe_bulk(Ctx& c, const std::string& decl, bool multicast);
int probe_tma(Ctx& c, const std::string& decl, const std::string& how);
std::string tma_dump(const std::string& decl, const std::string& how);

} // namespace probe
