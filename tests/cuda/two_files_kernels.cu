// Compiled on its own (ptx2llvm-cc -c): a kernel and the host function that launches it.
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#endif

__device__ float d_bias;

__global__ void add_bias(float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += d_bias;
}

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
cudaError_t launch_add_bias(float *v, int n, float bias, cudaStream_t stream) {
    cudaError_t e = cudaMemcpyToSymbolAsync(d_bias, &bias, sizeof bias, 0, cudaMemcpyHostToDevice, stream);
    if (e != cudaSuccess) return e;
    add_bias<<<(n + 127) / 128, 128, 0, stream>>>(v, n);
    return cudaGetLastError();
}
#endif // __CUDACC_RTC__
