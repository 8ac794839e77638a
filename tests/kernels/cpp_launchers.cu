// cpp_launchers.cu: C++ kernels (mangled names) for the readable C++ launchers of
// ptx2llvm --header and the argument checks of ptxrtLaunchKernelEx
// (tests/hosts/cpp_launchers_host.cpp). cpp_launchers.ptx was generated from it with NVRTC.
struct Params {
    float scale;
    float offset;
    int count;
    float lo;
    float hi;
};

// Overloads: one launcher name, two parameter lists.
__global__ void scale(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

__global__ void scale(const double *x, double *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 3.0 * x[i];
}

namespace ns {
__global__ void fill(int *out, int value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value + i;
}
}

// A pointer the kernel never reads (as with data read only through a texture bound to it):
// still a pointer parameter in the launchers.
__global__ void unused_pointer(const float *unused, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 7.0f;
}

// A 20-byte struct passed by value.
__global__ void with_struct(Params p, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.count) out[i] = fminf(fmaxf(p.scale * (float)i + p.offset, p.lo), p.hi);
}

template <typename T>
__global__ void add_one(T *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += (T)1;
}

template __global__ void add_one<float>(float *, int);
template __global__ void add_one<int>(int *, int);
