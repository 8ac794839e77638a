// Plain C++ host code (no CUDA syntax) linked with an object made by ptx2llvm-cc -c.
#include <cuda_runtime.h>
#include <vector>
#include "cuda_check.h"

cudaError_t launch_add_bias(float *v, int n, float bias, cudaStream_t stream);

int main() {
    const int n = 1000;
    std::vector<float> h(n, 1.0f);
    float *d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(launch_add_bias(d, n, 2.5f, s));
    CUDA_CHECK(launch_add_bias(d, n, 0.5f, s));
    CUDA_CHECK(cudaMemcpyAsync(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == 4.0f);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
    std::printf("two_files: OK\n");
    return 0;
}
