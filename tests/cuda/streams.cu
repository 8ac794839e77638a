// Streams and events on ptxrt: launches are asynchronous and ordered within a stream,
// different streams run concurrently, the legacy default stream synchronizes with blocking
// streams (not with non-blocking ones), cudaStreamPerThread, events, host functions.
// Kernels that wait for each other give up after a bound, so a wrong order fails instead
// of hanging.
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#include <thread>
#include <vector>
#include "cuda_check.h"
#endif

#define SPIN_LIMIT 4000000000LL

// Waits until *flag == want (or the bound); records whether it was seen.
__global__ void wait_for(volatile int *flag, int want, int *seen) {
    long long i = 0;
    while (*flag != want && i < SPIN_LIMIT) ++i;
    *seen = (*flag == want);
}

__global__ void set_flag(volatile int *flag, int value) { *flag = value; }

__device__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Waits 50 ms, then stores.
__global__ void slow_store(int *p, int value) {
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < 50000000ull) {
    }
    *p = value;
}

__global__ void copy_int(int *dst, const int *src) { *dst = *src; }

__global__ void step(int *a, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * 3 + k;
}

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
static void host_append(void *p) {
    std::vector<int> *v = (std::vector<int> *)p;
    v->push_back((int)v->size());
}

int main() {
    int *m = nullptr; // managed: flags and results
    CUDA_CHECK(cudaMallocManaged(&m, 64 * sizeof(int)));
    for (int i = 0; i < 64; ++i) m[i] = 0;

    // ---- asynchronous: the launch returns while the kernel waits for the host
    wait_for<<<1, 1>>>(m + 0, 1, m + 1);
    CUDA_CHECK(cudaGetLastError());
    EXPECT_ERR(cudaStreamQuery(0), cudaErrorNotReady);
    EXPECT(cudaGetLastError() == cudaErrorNotReady);
    ((volatile int *)m)[0] = 1;
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT(m[1] == 1);
    CUDA_CHECK(cudaStreamQuery(0));
    std::printf("asynchronous launches: OK\n");

    // ---- ordering within a stream: 50 dependent steps
    const int n = 4096;
    int *a = nullptr;
    CUDA_CHECK(cudaMalloc(&a, n * sizeof(int)));
    std::vector<int> h(n), want(n);
    for (int i = 0; i < n; ++i) want[i] = h[i] = i % 7;
    cudaStream_t s1, s2, nb;
    CUDA_CHECK(cudaStreamCreate(&s1));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamDefault));
    CUDA_CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(a, h.data(), n * sizeof(int), cudaMemcpyHostToDevice, s1));
    for (int k = 0; k < 50; ++k) {
        step<<<n / 256, 256, 0, s1>>>(a, n, k);
        for (int i = 0; i < n; ++i) want[i] = want[i] * 3 + k;
    }
    std::vector<int> got(n);
    CUDA_CHECK(cudaMemcpyAsync(got.data(), a, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
    CUDA_CHECK(cudaStreamSynchronize(s1));
    for (int i = 0; i < n; ++i) EXPECT(got[i] == want[i]);
    std::printf("stream order: OK\n");

    // ---- concurrency: a kernel on s1 waits for one launched later on s2
    m[2] = 0;
    wait_for<<<1, 1, 0, s1>>>(m + 2, 7, m + 3);
    set_flag<<<1, 1, 0, s2>>>(m + 2, 7);
    CUDA_CHECK(cudaStreamSynchronize(s1));
    CUDA_CHECK(cudaStreamSynchronize(s2));
    EXPECT(m[3] == 1);
    std::printf("concurrent streams: OK\n");

    // ---- legacy default stream: waits for earlier work of blocking streams, and blocking
    // streams wait for earlier work of the legacy stream
    m[4] = 0;
    m[5] = 0;
    slow_store<<<1, 1, 0, s1>>>(m + 4, 42);
    copy_int<<<1, 1>>>(m + 5, m + 4);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT(m[5] == 42);
    m[6] = 0;
    m[7] = 0;
    slow_store<<<1, 1>>>(m + 6, 43);
    copy_int<<<1, 1, 0, s2>>>(m + 7, m + 6);
    CUDA_CHECK(cudaStreamSynchronize(s2));
    EXPECT(m[7] == 43);
    // a non-blocking stream does not wait for the legacy stream: the legacy stream's kernel
    // waits for it
    m[8] = 0;
    wait_for<<<1, 1>>>(m + 8, 5, m + 9);
    set_flag<<<1, 1, 0, nb>>>(m + 8, 5);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT(m[9] == 1);
    std::printf("legacy default stream: OK\n");

    // ---- per-thread default streams: two host threads, concurrently
    int *pt = nullptr;
    CUDA_CHECK(cudaMalloc(&pt, 2 * n * sizeof(int)));
    CUDA_CHECK(cudaMemset(pt, 0, 2 * n * sizeof(int)));
    auto worker = [&](int t) {
        for (int k = 0; k < 20; ++k) step<<<n / 128, 128, 0, cudaStreamPerThread>>>(pt + t * n, n, k + t);
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    };
    std::thread t0(worker, 0), t1(worker, 1);
    t0.join();
    t1.join();
    std::vector<int> pt_h(2 * n);
    CUDA_CHECK(cudaMemcpy(pt_h.data(), pt, 2 * n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 2; ++t) {
        int w = 0;
        for (int k = 0; k < 20; ++k) w = w * 3 + k + t;
        for (int i = 0; i < n; ++i) EXPECT(pt_h[t * n + i] == w);
    }
    std::printf("per-thread streams: OK\n");

    // ---- events
    cudaEvent_t start, stop, mark, untimed;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventCreateWithFlags(&mark, cudaEventDefault));
    CUDA_CHECK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    float ms = -1;
    EXPECT_ERR(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);
    CUDA_CHECK(cudaEventQuery(start)); // never recorded: complete
    m[10] = 0;
    CUDA_CHECK(cudaEventRecord(start, s1));
    wait_for<<<1, 1, 0, s1>>>(m + 10, 1, m + 11);
    CUDA_CHECK(cudaEventRecord(stop, s1));
    EXPECT_ERR(cudaEventQuery(stop), cudaErrorNotReady);
    EXPECT_ERR(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
    ((volatile int *)m)[10] = 1;
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventQuery(stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f && ms < 60000.0f);
    EXPECT(m[11] == 1);
    CUDA_CHECK(cudaEventRecord(untimed, s1));
    CUDA_CHECK(cudaEventSynchronize(untimed));
    EXPECT_ERR(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
    // cudaStreamWaitEvent: s2 waits for s1's slow store
    m[12] = 0;
    m[13] = 0;
    slow_store<<<1, 1, 0, s1>>>(m + 12, 77);
    CUDA_CHECK(cudaEventRecord(mark, s1));
    CUDA_CHECK(cudaStreamWaitEvent(s2, mark, 0));
    copy_int<<<1, 1, 0, s2>>>(m + 13, m + 12);
    CUDA_CHECK(cudaStreamSynchronize(s2));
    EXPECT(m[13] == 77);
    std::printf("events: OK (%.3f ms)\n", ms);

    // ---- host functions run in stream order
    std::vector<int> order;
    for (int k = 0; k < 5; ++k) {
        step<<<1, 32, 0, s1>>>(a, 32, k);
        CUDA_CHECK(cudaLaunchHostFunc(s1, host_append, &order));
    }
    CUDA_CHECK(cudaStreamSynchronize(s1));
    EXPECT(order.size() == 5 && order[4] == 4);

    // ---- destroying a stream lets its queued work finish
    cudaStream_t s3;
    CUDA_CHECK(cudaStreamCreate(&s3));
    m[14] = 0;
    slow_store<<<1, 1, 0, s3>>>(m + 14, 9);
    CUDA_CHECK(cudaStreamDestroy(s3));
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT(m[14] == 9);
    EXPECT_ERR(cudaStreamSynchronize(s3), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaStreamDestroy(s3), cudaErrorInvalidResourceHandle);
    step<<<1, 1, 0, s3>>>(a, 1, 0);
    EXPECT(cudaGetLastError() == cudaErrorInvalidResourceHandle);

    CUDA_CHECK(cudaEventDestroy(start));
    EXPECT_ERR(cudaEventDestroy(start), cudaErrorInvalidResourceHandle);
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaEventDestroy(mark));
    CUDA_CHECK(cudaEventDestroy(untimed));
    CUDA_CHECK(cudaStreamDestroy(s1));
    CUDA_CHECK(cudaStreamDestroy(s2));
    CUDA_CHECK(cudaStreamDestroy(nb));
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(pt));
    CUDA_CHECK(cudaFree(m));
    std::printf("streams: OK\n");
    return 0;
}
#endif // __CUDACC_RTC__
