// Errors as CUDA has them: a kernel that faults leaves a sticky error that every later call
// returns (and cudaGetLastError does not clear) until cudaDeviceReset; a bad launch
// configuration is not sticky.
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#include <cassert>
#include "cuda_check.h"
#endif

__global__ void store(int *p, int v) { p[threadIdx.x] = v; }

__global__ void check_positive(const int *p) { assert(p[threadIdx.x] > 0); }

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
int main() {
    int *d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, 64 * sizeof(int)));

    // not sticky: the configuration error is returned once
    store<<<1, 4096>>>(d, 1);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    EXPECT(cudaGetLastError() == cudaSuccess);
    store<<<1, 64>>>(d, 2);
    CUDA_CHECK(cudaDeviceSynchronize());

    // sticky: a fault inside the kernel
    store<<<1, 32>>>((int *)16, 3); // a null-page address
    CUDA_CHECK(cudaGetLastError()); // the launch itself was fine
    cudaError_t e = cudaDeviceSynchronize();
    EXPECT(e == cudaErrorIllegalAddress);
    std::printf("fault: %s: %s\n", cudaGetErrorName(e), cudaGetErrorString(e));
    EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);
    EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);
    EXPECT(cudaPeekAtLastError() == cudaErrorIllegalAddress);
    int *other = nullptr;
    EXPECT_ERR(cudaMalloc(&other, 16), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaMemset(d, 0, 16), cudaErrorIllegalAddress);
    store<<<1, 1>>>(d, 4);
    EXPECT(cudaGetLastError() == cudaErrorIllegalAddress);
    EXPECT_ERR(cudaStreamSynchronize(0), cudaErrorIllegalAddress);

    // cudaDeviceReset clears it (and frees device memory)
    CUDA_CHECK(cudaDeviceReset());
    EXPECT(cudaGetLastError() == cudaSuccess);
    CUDA_CHECK(cudaMalloc(&d, 64 * sizeof(int)));
    store<<<1, 64>>>(d, 5);
    int h[64];
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i) EXPECT(h[i] == 5);
    // a failed device-side assert: cudaErrorAssert, sticky
    check_positive<<<1, 64>>>(d);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemset(d, 0, sizeof(int)));
    check_positive<<<1, 64>>>(d);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorAssert);
    EXPECT(cudaGetLastError() == cudaErrorAssert);
    EXPECT_ERR(cudaMemset(d, 0, 4), cudaErrorAssert);
    CUDA_CHECK(cudaDeviceReset());
    std::printf("sticky_errors: OK\n");
    return 0;
}
#endif // __CUDACC_RTC__
