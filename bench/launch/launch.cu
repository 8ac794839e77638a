// Launch overhead: empty kernels launched back to back on one stream (and on the legacy
// default stream), timed on the host around the launches and the final synchronization.
// Usage: launch [launches] [budget_us]   (defaults 100000 and 5; exit 1 over budget)
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "../../tests/cuda/cuda_check.h"
#endif

__global__ void empty() {}
__global__ void empty_args(float *p, int n, float a) {
    if (p && threadIdx.x >= (unsigned)n) p[0] = a;
}

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
template <class F>
static double per_launch_us(int launches, F launch, cudaStream_t s) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) launch();
    CUDA_CHECK(cudaStreamSynchronize(s));
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
}

int main(int argc, char **argv) {
    int launches = argc > 1 ? std::atoi(argv[1]) : 100000;
    double budget = argc > 2 ? std::atof(argv[2]) : 5.0;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    // warm up (threads, pool)
    per_launch_us(1000, [&] { empty<<<1, 1, 0, s>>>(); }, s);
    double one = per_launch_us(launches, [&] { empty<<<1, 1, 0, s>>>(); }, s);
    double args = per_launch_us(launches, [&] { empty_args<<<1, 32, 0, s>>>(nullptr, 0, 1.0f); }, s);
    double legacy = per_launch_us(launches, [&] { empty<<<1, 1>>>(); }, 0);
    CUDA_CHECK(cudaGetLastError());
    std::printf("launch overhead, %d empty kernels: %.2f us/launch on one stream, %.2f us with 3 arguments, "
                "%.2f us on the legacy default stream (budget %.1f us)\n",
                launches, one, args, legacy, budget);
    CUDA_CHECK(cudaStreamDestroy(s));
    return one <= budget ? 0 : 1;
}
#endif // __CUDACC_RTC__
