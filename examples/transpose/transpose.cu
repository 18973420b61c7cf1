// The twin of transpose.cl: one element per thread of a 2-D grid.
extern "C" __global__ void transpose(const float* in, float* out, int w, int h) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[x * h + y] = in[y * w + x];
}
