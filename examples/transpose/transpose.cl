// out = in transposed: in is h rows of w, out is w rows of h; one element per work-item (2-D).
__kernel void transpose(__global const float* in, __global float* out, const int w, const int h) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x < w && y < h)
        out[x * h + y] = in[y * w + x];
}
