// Built with --default-stream per-thread: stream 0 is each host thread's own default
// stream, so a kernel launched by one thread waits for a flag set by a kernel that another
// thread launches later (on a single legacy stream it could not: it would run first and
// give up after its bound).
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#include <chrono>
#include <thread>
#include "cuda_check.h"
#endif

__global__ void wait_for(volatile int *flag, int *seen) {
    long long i = 0;
    while (*flag == 0 && i < 2000000000LL) ++i;
    *seen = *flag;
}

__global__ void set_flag(volatile int *flag) { *flag = 1; }

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
int main() {
    int *m = nullptr;
    CUDA_CHECK(cudaMallocManaged(&m, 2 * sizeof(int)));
    m[0] = 0;
    m[1] = 0;
    std::thread waiter([&] {
        wait_for<<<1, 1>>>(m, m + 1);
        CUDA_CHECK(cudaStreamSynchronize(0));
    });
    std::thread setter([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        set_flag<<<1, 1>>>(m);
        CUDA_CHECK(cudaStreamSynchronize(0));
    });
    waiter.join();
    setter.join();
    EXPECT(m[1] == 1);
    CUDA_CHECK(cudaFree(m));
    std::printf("per_thread_default: OK\n");
    return 0;
}
#endif // __CUDACC_RTC__
