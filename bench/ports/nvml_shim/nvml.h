/* The four NVML calls BabelStream's CUDAStream.cu makes (to print the memory clock), declared
 * for a toolkit installed without nvml.h; bench/gpu_ports.sh links the driver's own
 * libnvidia-ml.so.1, whose symbols these are (nvml.h maps nvmlInit and the PCI lookup to _v2). */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef enum { NVML_SUCCESS = 0 } nvmlReturn_t;
typedef enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 } nvmlClockType_t;
nvmlReturn_t nvmlInit_v2(void);
const char* nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* pciBusId, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock);
#define nvmlInit nvmlInit_v2
#define nvmlDeviceGetHandleByPciBusId nvmlDeviceGetHandleByPciBusId_v2
#ifdef __cplusplus
}
#endif
