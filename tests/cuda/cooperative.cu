// A cooperative launch: every block of the grid is resident at once, so a grid-wide barrier
// spun on global atomics completes. Grids above the co-residency limit are refused.
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#include <vector>
#include "cuda_check.h"
#endif
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

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

// The same with cooperative groups (ptxrt's cooperative_groups.h), plus a tile reduction.
__global__ void cg_phases(int *data, int *tile_sums, int n, int rounds) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    int i = (int)grid.thread_rank();
    for (int r = 0; r < rounds; ++r) {
        int left = data[(i + n - 1) % n];
        int right = data[(i + 1) % n];
        grid.sync();
        data[i] = left + right + 1;
        grid.sync();
    }
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int v = data[i] % 7;
    int total = cg::reduce(tile, v, cg::plus<int>());
    for (int off = 16; off > 0; off /= 2) v += tile.shfl_down(v, off);
    if (tile.thread_rank() == 0) tile_sums[i / 32] = v == total ? v : -1;
    cg::sync(block);
}

// 1 in a cooperative launch, 0 in an ordinary one.
__global__ void grid_valid(int *out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) *out = cg::this_grid().is_valid() ? 1 : 0;
}

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
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

    std::vector<int> h0(n);
    for (int i = 0; i < n; ++i) h0[i] = i % 13;
    int *sums = nullptr;
    CUDA_CHECK(cudaMalloc(&sums, n / 32 * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d, h0.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    void *cg_args[] = {&d, &sums, &n, &rounds};
    CUDA_CHECK(cudaLaunchCooperativeKernel(cg_phases, dim3(blocks), dim3(threads), cg_args, 0, 0));
    std::vector<int> hs(n / 32);
    CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hs.data(), sums, n / 32 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == want[i]);
    for (int t = 0; t < n / 32; ++t) {
        int s = 0;
        for (int j = 0; j < 32; ++j) s += want[t * 32 + j] % 7;
        EXPECT(hs[t] == s);
    }
    CUDA_CHECK(cudaFree(sums));
    std::printf("cooperative groups: OK\n");

    // one block more than can be resident
    int too_many = blocks + 1;
    EXPECT_ERR(cudaLaunchCooperativeKernel((void *)phases, dim3(too_many), dim3(threads), args, 0, 0),
               cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
    // grid_group::is_valid(): only a cooperative launch has a grid workspace
    int *valid = nullptr, got = -1;
    CUDA_CHECK(cudaMalloc(&valid, sizeof(int)));
    grid_valid<<<2, 32>>>(valid);
    CUDA_CHECK(cudaMemcpy(&got, valid, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(got == 0);
    void *valid_args[] = {&valid};
    CUDA_CHECK(cudaLaunchCooperativeKernel((void *)grid_valid, dim3(2), dim3(32), valid_args, 0, 0));
    CUDA_CHECK(cudaMemcpy(&got, valid, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(got == 1);
    CUDA_CHECK(cudaFree(valid));
    CUDA_CHECK(cudaFree(d));
    std::printf("cooperative: OK\n");
    return 0;
}
#endif // __CUDACC_RTC__
