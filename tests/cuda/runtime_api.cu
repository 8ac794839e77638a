// The CUDA runtime API on ptxrt: memory, copies of every kind, symbols, device queries,
// function attributes, occupancy, launch errors. Ordinary CUDA host code.
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#include <cstring>
#include <vector>
#include "cuda_check.h"
#endif

__constant__ float c_scale[4];
__device__ int d_counter;
__device__ float d_table[256];

__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * c_scale[i % 4] + d_table[i % 256];
        atomicAdd(&d_counter, 1);
    }
}

__global__ void big_shared(float *out) {
    extern __shared__ float buf[];
    int n = 60 * 1024 / sizeof(float);
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = (float)i;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = buf[n - 1];
}

__global__ __launch_bounds__(128) void bounded(int *p) { p[threadIdx.x] = threadIdx.x; }

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
int main() {
    // ---- device queries
    int count = 0, dev = -1;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    EXPECT(count == 1);
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaGetDevice(&dev));
    EXPECT(dev == 0);
    EXPECT_ERR(cudaSetDevice(1), cudaErrorInvalidDevice);
    EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);
    EXPECT(cudaGetLastError() == cudaSuccess);
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    EXPECT(prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024);
    EXPECT(prop.multiProcessorCount >= 1 && prop.maxBlocksPerMultiProcessor == 32);
    EXPECT(prop.sharedMemPerBlock == 48 * 1024 && prop.sharedMemPerBlockOptin == 227 * 1024);
    EXPECT(prop.major == 9 && prop.minor == 0 && prop.totalGlobalMem > 0 && prop.unifiedAddressing == 1);
    EXPECT(prop.reserved[62] == 0 && std::strlen(prop.name) > 0);
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    EXPECT(v == prop.multiProcessorCount);
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    EXPECT(v == 227 * 1024);
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
    EXPECT(v == 9);
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    EXPECT(total_b > 0 && free_b <= total_b);
    std::printf("device: %s, %d multiprocessors\n", prop.name, prop.multiProcessorCount);

    // ---- memory and copies
    const int n = 1000;
    std::vector<float> h(n), back(n);
    for (int i = 0; i < n; ++i) h[i] = (float)i;
    float *d_in = nullptr, *d_out = nullptr, *pinned = nullptr, *managed = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
    CUDA_CHECK(cudaMallocManaged(&managed, n * sizeof(float)));
    EXPECT(((size_t)d_in % 256) == 0);
    CUDA_CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_out, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(pinned, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(managed, pinned, n * sizeof(float), cudaMemcpyDefault));
    CUDA_CHECK(cudaMemcpy(back.data(), managed, n * sizeof(float), cudaMemcpyDefault));
    for (int i = 0; i < n; ++i) EXPECT(back[i] == h[i]);
    CUDA_CHECK(cudaMemset(d_out, 0, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(back.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(back[i] == 0.0f);
    CUDA_CHECK(cudaMemsetAsync(d_out, 0xff, 4 * sizeof(float), 0));
    CUDA_CHECK(cudaMemcpyAsync(back.data(), d_out, 4 * sizeof(float), cudaMemcpyDeviceToHost, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned bits;
    std::memcpy(&bits, &back[3], 4);
    EXPECT(bits == 0xffffffffu);
    // 2D: a 10x7 window of a pitched allocation
    float *pitched = nullptr;
    size_t pitch = 0;
    CUDA_CHECK(cudaMallocPitch(&pitched, &pitch, 10 * sizeof(float), 7));
    EXPECT(pitch >= 10 * sizeof(float));
    CUDA_CHECK(cudaMemcpy2D(pitched, pitch, h.data(), 10 * sizeof(float), 10 * sizeof(float), 7, cudaMemcpyHostToDevice));
    std::vector<float> win(70);
    CUDA_CHECK(cudaMemcpy2D(win.data(), 10 * sizeof(float), pitched, pitch, 10 * sizeof(float), 7, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 70; ++i) EXPECT(win[i] == h[i]);
    EXPECT_ERR(cudaMemcpy2D(pitched, 4, h.data(), 40, 40, 7, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
    // rows 2..4 cleared in stream order, the rest kept
    cudaStream_t s2d;
    CUDA_CHECK(cudaStreamCreate(&s2d));
    CUDA_CHECK(cudaMemset2DAsync((char *)pitched + 2 * pitch, pitch, 0, 10 * sizeof(float), 3, s2d));
    CUDA_CHECK(cudaStreamSynchronize(s2d));
    CUDA_CHECK(cudaStreamDestroy(s2d));
    CUDA_CHECK(cudaMemcpy2D(win.data(), 10 * sizeof(float), pitched, pitch, 10 * sizeof(float), 7, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 70; ++i) EXPECT(win[i] == (i >= 20 && i < 50 ? 0.0f : h[i]));
    EXPECT_ERR(cudaMemset2DAsync(pitched, 4, 0, 40, 7, 0), cudaErrorInvalidPitchValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidPitchValue);
    // peer copies: one device
    float *peer = nullptr;
    CUDA_CHECK(cudaMalloc(&peer, 16 * sizeof(float)));
    CUDA_CHECK(cudaMemcpyPeer(peer, 0, d_in, 0, 16 * sizeof(float)));
    std::vector<float> peer_back(16);
    CUDA_CHECK(cudaMemcpy(peer_back.data(), peer, 16 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; ++i) EXPECT(peer_back[i] == h[i]);
    EXPECT_ERR(cudaMemcpyPeer(peer, 1, d_in, 0, 16 * sizeof(float)), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaMemcpyPeerAsync(peer, 0, h.data(), 0, 16 * sizeof(float), 0), cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    CUDA_CHECK(cudaFree(peer));

    // ---- error paths of copies
    std::vector<float> host_only(16);
    EXPECT_ERR(cudaMemcpy(host_only.data(), h.data(), 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(back.data(), host_only.data(), 64, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d_in, h.data(), (n + 1) * sizeof(float), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d_in, nullptr, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d_in, h.data(), 4, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    EXPECT_ERR(cudaFree(host_only.data()), cudaErrorInvalidValue);
    EXPECT_ERR(cudaFree(d_in + 1), cudaErrorInvalidValue);
    EXPECT_ERR(cudaFreeHost(d_in), cudaErrorInvalidValue);
    EXPECT(cudaPeekAtLastError() == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaSuccess);
    CUDA_CHECK(cudaFree(nullptr));
    // stream-ordered allocation, hints, limits
    cudaStream_t ms;
    CUDA_CHECK(cudaStreamCreate(&ms));
    int *async_buf = nullptr;
    CUDA_CHECK(cudaMallocAsync((void **)&async_buf, 64 * sizeof(int), ms));
    CUDA_CHECK(cudaMemsetAsync(async_buf, 0, 64 * sizeof(int), ms));
    CUDA_CHECK(cudaFreeAsync(async_buf, ms));
    CUDA_CHECK(cudaStreamSynchronize(ms));
    EXPECT_ERR(cudaFree(async_buf), cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    CUDA_CHECK(cudaStreamDestroy(ms));
    CUDA_CHECK(cudaMemPrefetchAsync(managed, n * sizeof(float), 0, 0));
    CUDA_CHECK(cudaMemAdvise(managed, n * sizeof(float), cudaMemAdviseSetReadMostly, 0));
    size_t heap = 0;
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20));
    CUDA_CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap == (64 << 20));
    std::printf("memory: OK\n");

    // ---- symbols
    float s[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    std::vector<float> table(256);
    for (int i = 0; i < 256; ++i) table[i] = 0.5f * i;
    CUDA_CHECK(cudaMemcpyToSymbol(c_scale, s, sizeof s));
    CUDA_CHECK(cudaMemcpyToSymbol(d_table, table.data(), 128 * sizeof(float)));
    CUDA_CHECK(cudaMemcpyToSymbol(d_table, table.data() + 128, 128 * sizeof(float), 128 * sizeof(float)));
    int zero = 0;
    CUDA_CHECK(cudaMemcpyToSymbol(d_counter, &zero, sizeof zero));
    float *table_addr = nullptr;
    CUDA_CHECK(cudaGetSymbolAddress((void **)&table_addr, d_table));
    size_t table_size = 0;
    CUDA_CHECK(cudaGetSymbolSize(&table_size, d_table));
    EXPECT(table_addr != nullptr && table_size == 256 * sizeof(float));
    std::vector<float> table_back(256);
    CUDA_CHECK(cudaMemcpy(table_back.data(), table_addr, 256 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 256; ++i) EXPECT(table_back[i] == table[i]);
    EXPECT_ERR(cudaMemcpyToSymbol(d_table, table.data(), 257 * sizeof(float)), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpyToSymbol(host_only, table.data(), 4), cudaErrorInvalidSymbol);
    EXPECT(cudaGetLastError() == cudaErrorInvalidSymbol);

    scale<<<(n + 127) / 128, 128>>>(d_out, d_in, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(back.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(back[i] == h[i] * s[i % 4] + table[i % 256]);
    int counted = 0;
    CUDA_CHECK(cudaMemcpyFromSymbol(&counted, d_counter, sizeof counted));
    EXPECT(counted == n);
    std::printf("symbols: OK\n");

    // ---- launch configuration errors are returned at the launch, and cleared by cudaGetLastError
    scale<<<1, 2048>>>(d_out, d_in, n);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    EXPECT(cudaGetLastError() == cudaSuccess);
    scale<<<dim3(1, 70000), 32>>>(d_out, d_in, n);
    EXPECT(cudaPeekAtLastError() == cudaErrorInvalidConfiguration);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    bounded<<<1, 256>>>((int *)d_out);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    // dynamic shared memory above 48 KiB needs the attribute
    big_shared<<<1, 64, 60 * 1024>>>(d_out);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    CUDA_CHECK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 60 * 1024));
    big_shared<<<1, 64, 60 * 1024>>>(d_out);
    CUDA_CHECK(cudaGetLastError());
    float last = 0;
    CUDA_CHECK(cudaMemcpy(&last, d_out, sizeof last, cudaMemcpyDeviceToHost));
    EXPECT(last == (float)(60 * 1024 / 4 - 1));
    EXPECT_ERR(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024), cudaErrorInvalidValue);
    // launching something that is not a kernel
    EXPECT_ERR(cudaLaunchKernel((const void *)&main, dim3(1), dim3(1), nullptr, 0, 0), cudaErrorInvalidDeviceFunction);
    EXPECT(cudaGetLastError() == cudaErrorInvalidDeviceFunction);
    // cudaLaunchKernel with explicit arguments
    int nn = n;
    void *args[] = {&d_out, &d_in, &nn};
    CUDA_CHECK(cudaLaunchKernel(scale, dim3((n + 255) / 256), dim3(256), args, 0, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("launch errors: OK\n");

    // ---- function attributes and occupancy
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, bounded));
    EXPECT(fa.maxThreadsPerBlock == 128);
    CUDA_CHECK(cudaFuncGetAttributes(&fa, scale));
    EXPECT(fa.maxThreadsPerBlock == 1024 && fa.sharedSizeBytes == 0);
    CUDA_CHECK(cudaFuncGetAttributes(&fa, big_shared));
    EXPECT(fa.maxDynamicSharedSizeBytes == 60 * 1024);
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 0));
    EXPECT(blocks == 8);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 32, 0));
    EXPECT(blocks == 32);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, big_shared, 64, 60 * 1024));
    EXPECT(blocks == 3);
    int min_grid = 0, block_size = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, scale, 0, 0));
    EXPECT(block_size == 1024 && min_grid == 2 * prop.multiProcessorCount);
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, bounded));
    EXPECT(block_size == 128);
    CUDA_CHECK(cudaFuncSetSharedMemConfig(scale, cudaSharedMemBankSizeFourByte));
    EXPECT_ERR(cudaFuncSetSharedMemConfig((const void *)&fa, cudaSharedMemBankSizeDefault), cudaErrorInvalidDeviceFunction);
    EXPECT(cudaGetLastError() == cudaErrorInvalidDeviceFunction);
    int chosen = -1;
    CUDA_CHECK(cudaChooseDevice(&chosen, &prop));
    EXPECT(chosen == 0);
    std::printf("attributes: OK\n");

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(pitched));
    CUDA_CHECK(cudaFreeHost(pinned));
    CUDA_CHECK(cudaFree(managed));
    EXPECT_ERR(cudaFree(d_in), cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    // the old name of cudaDeviceReset: frees what is left
    float *left = nullptr;
    CUDA_CHECK(cudaMalloc(&left, 64));
    CUDA_CHECK(cudaThreadExit());
    EXPECT_ERR(cudaFree(left), cudaErrorInvalidValue);
    std::printf("runtime_api: OK\n");
    return 0;
}
#endif // __CUDACC_RTC__
