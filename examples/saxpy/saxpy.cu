// y = a*x + y, one element per thread: the twin of saxpy.cl (same name, same arguments).
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
