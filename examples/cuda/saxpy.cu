// An ordinary CUDA program: build it with `ptx2llvm-cc -O3 saxpy.cu -o saxpy`, or with CMake
// (CMakeLists.txt here: ptx2llvm_add_cuda_executable).
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#endif

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t err = (call);                                                          \
        if (err != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

__constant__ float alpha;

__global__ void saxpy(int n, const float *x, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = alpha * x[i] + y[i];
}

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
int main() {
    const int n = 1 << 20, chunks = 4, chunk = n / chunks;
    float *x, *y;
    CUDA_CHECK(cudaMallocHost(&x, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&y, n * sizeof(float)));
    for (int i = 0; i < n; ++i) {
        x[i] = 1.0f;
        y[i] = (float)i;
    }
    float a = 2.0f;
    CUDA_CHECK(cudaMemcpyToSymbol(alpha, &a, sizeof a));

    float *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
    int block = 0, min_grid = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, saxpy));

    // Copy in, compute and copy out in chunks, one stream per chunk.
    cudaStream_t streams[chunks];
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    for (int c = 0; c < chunks; ++c) {
        CUDA_CHECK(cudaStreamCreate(&streams[c]));
        size_t off = (size_t)c * chunk, bytes = chunk * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(dx + off, x + off, bytes, cudaMemcpyHostToDevice, streams[c]));
        CUDA_CHECK(cudaMemcpyAsync(dy + off, y + off, bytes, cudaMemcpyHostToDevice, streams[c]));
        saxpy<<<min_grid, block, 0, streams[c]>>>(chunk, dx + off, dy + off);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(y + off, dy + off, bytes, cudaMemcpyDeviceToHost, streams[c]));
    }
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    int errors = 0;
    for (int i = 0; i < n; ++i) errors += y[i] != 2.0f + (float)i;
    std::printf("saxpy of %d elements in %d streams (block %d, grid %d): %.3f ms, %s\n", n, chunks, block,
                min_grid, ms, errors ? "WRONG" : "OK");

    for (int c = 0; c < chunks; ++c) CUDA_CHECK(cudaStreamDestroy(streams[c]));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFreeHost(x));
    CUDA_CHECK(cudaFreeHost(y));
    return errors ? 1 : 0;
}
#endif // __CUDACC_RTC__
