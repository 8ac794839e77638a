// saxpy.cu: the Rust example's kernel (a C++ kernel: its PTX name is mangled, and the
// launcher ptx2llvm --rust writes takes the demangled name and element types).
// saxpy.ptx next to this file was generated from it with NVRTC
// (../shared/tools/cuda2ptx saxpy.cu -o saxpy.ptx).
__global__ void saxpy(float a, const float *x, float *y, unsigned int n)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
