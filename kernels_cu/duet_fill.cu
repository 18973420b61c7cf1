// The CUDA backend's own kernel, not an app's: Queue::fill with a 2-, 4-, 8- or 16-byte
// pattern (cudaMemset only repeats single bytes). No OpenCL twin: clEnqueueFillBuffer does this.
//
// The host repeats the pattern to 16 bytes; since the pattern size divides 16 and cudaMalloc
// memory is 256-byte aligned, byte k of the buffer is byte k % 16 of `pattern`, so the bulk is
// written with 16-byte stores and the tail (bytes % 16) one byte at a time.
extern "C" __global__ void duet_fill_bytes(uint4* dst, unsigned long long bytes, uint4 pattern) {
    const unsigned long long chunks = bytes / 16;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long gid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned long long i = gid; i < chunks; i += stride)
        dst[i] = pattern;
    const unsigned long long tail = bytes - chunks * 16;
    if (gid < tail) {
        const unsigned char* p = reinterpret_cast<const unsigned char*>(&pattern);
        reinterpret_cast<unsigned char*>(dst)[chunks * 16 + gid] = p[gid];
    }
}
