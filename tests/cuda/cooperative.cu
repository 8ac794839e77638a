// A cooperative launch: every block of the grid is resident at once, so a grid-wide barrier
// spun on global atomics completes. Grids above the co-residency limit are refused.
#include <cuda_runtime.h>
#include <vector>
#include "cuda_check.h"

__device__ unsigned int g_arrived;
__device__ volatile unsigned int g_generation;

// A sense-reversing grid barrier, as cooperative groups' grid.sync() does it.
__device__ void grid_sync() {
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int gen = g_generation;
        __threadfence();
        unsigned int nblocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(&g_arrived, 1) == nblocks - 1) {
            g_arrived = 0;
            __threadfence();
            g_generation = gen + 1;
        } else {
            while (g_generation == gen) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}

// Each phase reads what other blocks wrote in the previous phase.
__global__ void phases(int *data, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < rounds; ++r) {
        int left = data[(i + n - 1) % n];
        int right = data[(i + 1) % n];
        grid_sync();
        data[i] = left + right + 1;
        grid_sync();
    }
}

int main() {
    int dev = 0, sms = 0, per_sm = 0, coop = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    EXPECT(coop == 1);
    const int threads = 256;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, threads, 0));
    EXPECT(per_sm == 8);
    int blocks = sms * per_sm; // the whole device
    int n = blocks * threads, rounds = 5;
    std::vector<int> h(n), want(n);
    for (int i = 0; i < n; ++i) want[i] = h[i] = i % 13;
    for (int r = 0; r < rounds; ++r) {
        std::vector<int> next(n);
        for (int i = 0; i < n; ++i) next[i] = want[(i + n - 1) % n] + want[(i + 1) % n] + 1;
        want = next;
    }
    int *d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    void *args[] = {&d, &n, &rounds};
    CUDA_CHECK(cudaLaunchCooperativeKernel((void *)phases, dim3(blocks), dim3(threads), args, 0, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == want[i]);
    std::printf("cooperative grid of %d blocks: OK\n", blocks);

    // one block more than can be resident
    int too_many = blocks + 1;
    EXPECT_ERR(cudaLaunchCooperativeKernel((void *)phases, dim3(too_many), dim3(threads), args, 0, 0),
               cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
    CUDA_CHECK(cudaFree(d));
    std::printf("cooperative: OK\n");
    return 0;
}
