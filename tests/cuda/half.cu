// Half precision (cuda_fp16.h): conversions, arithmetic, __half2, shuffles and atomicAdd,
// checked against the same computations on the host (the header works on both sides).
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#include <cmath>
#include <vector>
#include "cuda_check.h"
#endif
#include <cuda_fp16.h>

__global__ void axpy_half(int n, __half a, const __half *x, __half *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(a, x[i], y[i]);
}

__global__ void half2_ops(int n, const __half2 *x, __half2 *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hmul2(x[i], x[i]) + __hadd2(x[i], y[i]) - __hmax2(x[i], y[i]);
}

__global__ void warp_sum(const __half *x, float *out, __half *atomic_sum) {
    __half v = x[threadIdx.x];
    for (int off = 16; off > 0; off /= 2) v = v + __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = __half2float(v);
    atomicAdd(atomic_sum, __float2half(1.0f));
}

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
int main() {
    // conversions, exactly as IEEE binary16 rounds
    EXPECT(__half_as_ushort(__float2half(1.0f)) == 0x3c00);
    EXPECT(__half_as_ushort(__float2half(65504.0f)) == 0x7bff);
    EXPECT(__half_as_ushort(__float2half(65520.0f)) == 0x7c00);          // rounds to infinity
    EXPECT(__half_as_ushort(__float2half(5.960464477539063e-08f)) == 0x0001); // smallest subnormal
    EXPECT(__half_as_ushort(__float2half(1.0009765625f * 0.5f + 0.5f)) == 0x3c00); // tie to even
    EXPECT(__half2float(__ushort_as_half(0x3555)) == 0.333251953125f);
    EXPECT(__hisnan(__float2half(NAN)) && __hisinf(__float2half(-INFINITY)) == -1);

    const int n = 1000;
    std::vector<__half> hx(n), hy(n), want(n);
    __half a = __float2half(0.75f);
    for (int i = 0; i < n; ++i) {
        hx[i] = __float2half(std::sin(0.01f * i));
        hy[i] = __float2half(0.5f - 0.001f * i);
        want[i] = __hfma(a, hx[i], hy[i]);
    }
    __half *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dx, n * sizeof(__half)));
    CUDA_CHECK(cudaMalloc(&dy, n * sizeof(__half)));
    CUDA_CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, hy.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
    axpy_half<<<(n + 127) / 128, 128>>>(n, a, dx, dy);
    std::vector<__half> got(n);
    CUDA_CHECK(cudaMemcpy(got.data(), dy, n * sizeof(__half), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(__half_as_ushort(got[i]) == __half_as_ushort(want[i]));
    std::printf("half axpy: OK\n");

    const int m = n / 2;
    std::vector<__half2> x2(m), y2(m), want2(m);
    for (int i = 0; i < m; ++i) {
        x2[i] = __halves2half2(hx[2 * i], hx[2 * i + 1]);
        y2[i] = __floats2half2_rn(0.25f * i / m, -0.5f);
        want2[i] = __hmul2(x2[i], x2[i]) + __hadd2(x2[i], y2[i]) - __hmax2(x2[i], y2[i]);
    }
    __half2 *dx2, *dy2;
    CUDA_CHECK(cudaMalloc(&dx2, m * sizeof(__half2)));
    CUDA_CHECK(cudaMalloc(&dy2, m * sizeof(__half2)));
    CUDA_CHECK(cudaMemcpy(dx2, x2.data(), m * sizeof(__half2), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy2, y2.data(), m * sizeof(__half2), cudaMemcpyHostToDevice));
    half2_ops<<<(m + 127) / 128, 128>>>(m, dx2, dy2);
    std::vector<__half2> got2(m);
    CUDA_CHECK(cudaMemcpy(got2.data(), dy2, m * sizeof(__half2), cudaMemcpyDeviceToHost));
    for (int i = 0; i < m; ++i)
        EXPECT(__half_as_ushort(got2[i].x) == __half_as_ushort(want2[i].x) &&
               __half_as_ushort(got2[i].y) == __half_as_ushort(want2[i].y));
    std::printf("half2: OK\n");

    float *sums;
    __half *counter;
    CUDA_CHECK(cudaMalloc(&sums, 4 * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&counter, 2 * sizeof(__half)));
    CUDA_CHECK(cudaMemset(counter, 0, 2 * sizeof(__half)));
    warp_sum<<<1, 128>>>(dx, sums, counter + 1);
    float hs[4];
    __half hc[2];
    CUDA_CHECK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hc, counter, sizeof hc, cudaMemcpyDeviceToHost));
    for (int w = 0; w < 4; ++w) {
        float s = 0.0f;
        for (int j = 0; j < 32; ++j) s += __half2float(hx[w * 32 + j]);
        EXPECT(std::fabs(hs[w] - s) < 0.05f);
    }
    EXPECT(__half2float(hc[1]) == 128.0f && __half_as_ushort(hc[0]) == 0);
    std::printf("half shuffles and atomics: OK\n");

    for (void *p : {(void *)dx, (void *)dy, (void *)dx2, (void *)dy2, (void *)sums, (void *)counter}) CUDA_CHECK(cudaFree(p));
    std::printf("half: OK\n");
    return 0;
}
#endif // __CUDACC_RTC__
