// The twin of block_sum.cl, written the CUDA way: no parameter for the local memory, which
// arrives as the dynamic shared array (duet::local on the host gives its size). The host's
// launch line is the same for both.
extern "C" __global__ void block_sum(const float* in, float* partial, int n) {
    extern __shared__ float tile[];
    const int l = threadIdx.x, i = blockIdx.x * blockDim.x + l;
    tile[l] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (l < s)
            tile[l] += tile[l + s];
        __syncthreads();
    }
    if (l == 0)
        partial[blockIdx.x] = tile[0];
}
