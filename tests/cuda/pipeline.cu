// A multi-kernel pipeline in ordinary CUDA style: device math, a shared-memory + warp-shuffle
// reduction, a template kernel, device printf, and an iterative Jacobi solver that launches
// thousands of small kernels; every result is checked against the host.
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>
#include "cuda_check.h"
#endif

__constant__ float c_params[3]; // a, b, c of the transform

__global__ void transform(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    float y = c_params[0] * expf(-x * x) + c_params[1] * sinf(x) * cosf(x) + rsqrtf(1.0f + x * x) +
              __fdividef(x, 2.0f + fabsf(x)) + tanhf(x) + logf(1.0f + x * x) + powf(fabsf(x) + 1.0f, 0.5f) +
              c_params[2] * sqrtf(fabsf(x));
    out[i] = y;
}

__global__ void transform_d(const double *in, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = exp(-in[i]) + log(1.0 + in[i] * in[i]) + sqrt(fabs(in[i])) + sin(in[i]) + atan2(in[i], 2.0);
}

__inline__ __device__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// One partial sum per block: warp shuffles, then shared memory across warps.
__global__ void block_sum(const float *in, float *partial, int n) {
    __shared__ float warp_sums[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = warp_sum(v);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) partial[blockIdx.x] = v;
    }
}

template <typename T, int K>
__global__ void scale_add(T *y, const T *x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] * K + y[i];
}
// Instantiated here, not only by the launch in main: NVRTC sees no host code.
template __global__ void scale_add<float, 2>(float *, const float *, float, int);

// One Jacobi sweep of -u'' = f on a 1D grid with u(0) = u(1) = 0.
__global__ void jacobi(const float *u, float *u_new, const float *f, float h2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float left = i > 0 ? u[i - 1] : 0.0f;
    float right = i < n - 1 ? u[i + 1] : 0.0f;
    u_new[i] = 0.5f * (left + right + h2 * f[i]);
}

__global__ void hello(int value) {
    if (threadIdx.x == 0 && blockIdx.x == 0) printf("device printf: %d %.2f\n", value, 1.5);
}

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
static bool close_to(double a, double b, double tol) { return std::fabs(a - b) <= tol * (1.0 + std::fabs(b)); }

int main() {
    const int n = 10000;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = -3.0f + 6.0f * i / n;
    float params[3] = {1.5f, -0.5f, 0.25f};
    CUDA_CHECK(cudaMemcpyToSymbol(c_params, params, sizeof params));

    float *d_x, *d_y, *d_partial;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_partial, 64 * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    CUDA_CHECK(cudaEventRecord(t0, s));
    transform<<<(n + 255) / 256, 256, 0, s>>>(d_x, d_y, n);
    CUDA_CHECK(cudaGetLastError());
    block_sum<<<64, 256, 0, s>>>(d_y, d_partial, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(t1, s));
    std::vector<float> y(n), partial(64);
    CUDA_CHECK(cudaMemcpyAsync(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(partial.data(), d_partial, 64 * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    double sum = 0.0, want_sum = 0.0;
    for (int i = 0; i < n; ++i) {
        double v = x[i];
        double want = params[0] * std::exp(-v * v) + params[1] * std::sin(v) * std::cos(v) + 1.0 / std::sqrt(1.0 + v * v) +
                      v / (2.0 + std::fabs(v)) + std::tanh(v) + std::log(1.0 + v * v) + std::pow(std::fabs(v) + 1.0, 0.5) +
                      params[2] * std::sqrt(std::fabs(v));
        if (!close_to(y[i], want, 1e-5)) {
            std::fprintf(stderr, "transform[%d] = %.9g, want %.9g\n", i, y[i], want);
            return 1;
        }
        want_sum += y[i];
    }
    for (int b = 0; b < 64; ++b) sum += partial[b];
    EXPECT(close_to(sum, want_sum, 1e-4));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    std::printf("transform + reduction: OK (sum %.4f, %.3f ms)\n", sum, ms);

    // double-precision math
    std::vector<double> xd(n), yd(n);
    for (int i = 0; i < n; ++i) xd[i] = -5.0 + 10.0 * i / n;
    double *d_xd, *d_yd;
    CUDA_CHECK(cudaMalloc(&d_xd, n * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_yd, n * sizeof(double)));
    CUDA_CHECK(cudaMemcpy(d_xd, xd.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    transform_d<<<(n + 127) / 128, 128>>>(d_xd, d_yd, n);
    CUDA_CHECK(cudaMemcpy(yd.data(), d_yd, n * sizeof(double), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        double v = xd[i];
        double want = std::exp(-v) + std::log(1.0 + v * v) + std::sqrt(std::fabs(v)) + std::sin(v) + std::atan2(v, 2.0);
        if (!close_to(yd[i], want, 1e-12)) {
            std::fprintf(stderr, "transform_d[%d] = %.17g, want %.17g\n", i, yd[i], want);
            return 1;
        }
    }
    std::printf("double math: OK\n");

    // a template kernel
    scale_add<float, 2><<<(n + 255) / 256, 256>>>(d_y, d_x, 0.5f, n);
    std::vector<float> y2(n);
    CUDA_CHECK(cudaMemcpy(y2.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(y2[i] == 0.5f * x[i] * 2 + y[i]);
    std::printf("template kernel: OK\n");

    // Jacobi: 4000 sweeps, two launches each kept on one stream; f = pi^2 sin(pi x)
    const int m = 64;
    const float h = 1.0f / (m + 1);
    std::vector<float> f(m);
    for (int i = 0; i < m; ++i) f[i] = (float)(M_PI * M_PI * std::sin(M_PI * (i + 1) * h));
    float *d_u, *d_v, *d_f;
    CUDA_CHECK(cudaMalloc(&d_u, m * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_v, m * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_f, m * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_u, 0, m * sizeof(float), s));
    CUDA_CHECK(cudaMemsetAsync(d_v, 0, m * sizeof(float), s));
    CUDA_CHECK(cudaMemcpyAsync(d_f, f.data(), m * sizeof(float), cudaMemcpyHostToDevice, s));
    const int sweeps = 4000;
    for (int it = 0; it < sweeps; ++it) {
        jacobi<<<1, m, 0, s>>>(d_u, d_v, d_f, h * h, m);
        jacobi<<<1, m, 0, s>>>(d_v, d_u, d_f, h * h, m);
    }
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> u(m);
    CUDA_CHECK(cudaMemcpyAsync(u.data(), d_u, m * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    // the same iteration on the host, and the exact solution sin(pi x)
    std::vector<float> hu(m, 0.0f), hv(m, 0.0f);
    for (int it = 0; it < 2 * sweeps; ++it) {
        for (int i = 0; i < m; ++i) {
            float left = i > 0 ? hu[i - 1] : 0.0f, right = i < m - 1 ? hu[i + 1] : 0.0f;
            hv[i] = 0.5f * (left + right + h * h * f[i]);
        }
        hu.swap(hv);
    }
    double err = 0.0;
    for (int i = 0; i < m; ++i) {
        EXPECT(close_to(u[i], hu[i], 1e-5));
        err = std::fmax(err, std::fabs(u[i] - std::sin(M_PI * (i + 1) * h)));
    }
    EXPECT(err < 1e-2);
    std::printf("jacobi: %d launches OK (max error %.2e)\n", 2 * sweeps, err);

    hello<<<2, 32>>>(7);
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaEventDestroy(t0));
    CUDA_CHECK(cudaEventDestroy(t1));
    CUDA_CHECK(cudaStreamDestroy(s));
    for (void *p : {(void *)d_x, (void *)d_y, (void *)d_partial, (void *)d_xd, (void *)d_yd, (void *)d_u, (void *)d_v, (void *)d_f})
        CUDA_CHECK(cudaFree(p));
    std::printf("pipeline: OK\n");
    return 0;
}
#endif // __CUDACC_RTC__
