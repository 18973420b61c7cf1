// BabelStream's CUDA closures as functors NVRTC can name. CUDAStream.cu makes each operation's
// closure in host code (`[a=d_a,c=d_c] __device__ (size_t i) { c[i] = a[i]; }`), an nvcc
// --extended-lambda that NVRTC has no way to make; these functors hold the same captures and do
// the same work, one per lambda, and babelstream.cpp appends this file to the unchanged
// CUDAStream.cu so that `for_each_kernel<Copy<double>>` names upstream's kernel over them.
// startScalar is upstream's (0.4), given as a define as its OpenCL version gives it.

template <class T> struct Init {
    T* a;
    T* b;
    T* c;
    T initA, initB, initC;
    __device__ void operator()(size_t i) const {
        a[i] = initA;
        b[i] = initB;
        c[i] = initC;
    }
};

template <class T> struct Copy {
    T* a;
    T* c;
    __device__ void operator()(size_t i) const { c[i] = a[i]; }
};

template <class T> struct Mul {
    T* b;
    T* c;
    __device__ void operator()(size_t i) const { b[i] = startScalar * c[i]; }
};

template <class T> struct Add {
    T* a;
    T* b;
    T* c;
    __device__ void operator()(size_t i) const { c[i] = a[i] + b[i]; }
};

template <class T> struct Triad {
    T* a;
    T* b;
    T* c;
    __device__ void operator()(size_t i) const { a[i] = b[i] + startScalar * c[i]; }
};

template <class T> struct Nstream {
    T* a;
    T* b;
    T* c;
    __device__ void operator()(size_t i) const { a[i] += b[i] + startScalar * c[i]; }
};
