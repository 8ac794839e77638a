/* The CUDA runtime API from C (no CUDA syntax): memory, streams, events and
 * cudaLaunchKernel with a kernel descriptor from ptxrtFindKernel (examples/vecadd's PTX,
 * translated with ptx2llvm). */
#include <stdio.h>
#include <stdlib.h>
#include "cuda_runtime.h"
#include "ptxrt.h"

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(void) {
    const unsigned int n = 5000;
    const void *vecadd = ptxrtFindKernel("vecadd");
    if (!vecadd) {
        fprintf(stderr, "vecadd not found: %s\n", ptxrtGetLastErrorMessage());
        return 1;
    }
    float *h = (float *)malloc(3 * n * sizeof(float));
    for (unsigned int i = 0; i < n; ++i) {
        h[i] = (float)i;
        h[n + i] = 2.0f * (float)i;
    }
    float *d = NULL;
    CHECK(cudaMalloc((void **)&d, 3 * n * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaMemcpyAsync(d, h, 2 * n * sizeof(float), cudaMemcpyHostToDevice, s));
    float *a = d, *b = d + n, *c = d + 2 * n;
    unsigned int nn = n;
    void *args[] = {&a, &b, &c, &nn};
    dim3 grid = {16, 1, 1}, block = {128, 1, 1};
    CHECK(cudaLaunchKernel(vecadd, grid, block, args, 0, s));
    CHECK(cudaMemcpyAsync(h + 2 * n, c, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaEventSynchronize(done));
    for (unsigned int i = 0; i < n; ++i) {
        if (h[2 * n + i] != 3.0f * (float)i) {
            fprintf(stderr, "c[%u] = %f\n", i, h[2 * n + i]);
            return 1;
        }
    }
    dim3 too_big = {1, 1, 1}, threads = {2048, 1, 1};
    if (cudaLaunchKernel(vecadd, too_big, threads, args, 0, s) != cudaErrorInvalidConfiguration) return 1;
    if (cudaGetLastError() != cudaErrorInvalidConfiguration) return 1;
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    free(h);
    printf("c_host: OK\n");
    return 0;
}
