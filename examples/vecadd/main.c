/* The demo host: adds two vectors of a million floats with the `vecadd` kernel
 * (vecadd.cu -> vecadd.ptx with NVRTC -> vecadd.o with ptx2llvm), run on the CPU's
 * cores by ptxrt, and checks every element against the host's own sum.
 *
 *   ptx2llvm vecadd.ptx -o vecadd.o
 *   cc -Iptxrt/include main.c vecadd.o target/release/libptxrt.a -lpthread -ldl -lm -o vecadd
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ptxrt.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    const unsigned n = 1u << 20;
    const unsigned block = 256;
    const unsigned grid = 1024; /* the kernel's grid-stride loop covers the rest */

    float *a = malloc(n * sizeof *a);
    float *b = malloc(n * sizeof *b);
    float *c = malloc(n * sizeof *c);
    if (a == NULL || b == NULL || c == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (unsigned i = 0; i < n; i++) {
        a[i] = (float)(i % 1000) * 0.5f;
        b[i] = (float)(i % 97) - 48.0f;
        c[i] = -1.0f;
    }

    const ptxrtKernel *vecadd = ptxrtFindKernel("vecadd");
    if (vecadd == NULL) {
        fprintf(stderr, "kernel `vecadd` not found: %s\n", ptxrtGetLastErrorMessage());
        return 1;
    }

    ptxrtDim3 grid_dim = {grid, 1, 1};
    ptxrtDim3 block_dim = {block, 1, 1};
    unsigned n_arg = n;
    void *args[] = {&a, &b, &c, &n_arg};
    double t0 = seconds();
    ptxrtError_t err = ptxrtLaunchKernel(vecadd, grid_dim, block_dim, args, 0, NULL);
    double t1 = seconds();
    if (err != ptxrtSuccess) {
        fprintf(stderr, "launch failed: %s: %s\n", ptxrtGetErrorName(err),
                ptxrtGetLastErrorMessage());
        return 1;
    }

    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) {
            if (bad < 10) {
                printf("mismatch at c[%u]: expected %g, got %g\n", i, (double)(a[i] + b[i]),
                       (double)c[i]);
            }
            bad++;
        }
    }
    printf("vecadd: %u elements, grid %u x block %u, %d worker threads, %.2f ms\n", n, grid,
           block, ptxrtGetNumThreads(), (t1 - t0) * 1e3);
    printf("c[0] = %g, c[12345] = %g, c[%u] = %g\n", (double)c[0], (double)c[12345], n - 1,
           (double)c[n - 1]);
    if (bad) {
        printf("vecadd: FAILED (%u of %u elements wrong)\n", bad, n);
        return 1;
    }
    printf("vecadd: OK (all %u elements match the host's sums)\n", n);
    free(a);
    free(b);
    free(c);
    return 0;
}
