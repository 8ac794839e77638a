/* param_barrier_host.c: runs tests/kernels/param_barrier.ptx (hand-written): a function
 * with barriers reads its `.param` arguments and writes its result on both sides of them,
 * each thread with its own values (once, and in a loop). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static uint32_t combine(uint32_t x, uint32_t y) { return 2u * x + y; }

static int after_barrier(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("param_after_barrier");
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    for (size_t g = 0; g < n; g++) {
        out[g] = 0xdeadbeefu;
        want[g] = combine((uint32_t)g + 1000u, 3u * (uint32_t)(g % block));
    }
    void *args[] = {&out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("param_after_barrier", want, out, n);
    if (bad) fprintf(stderr, "param_after_barrier: grid %u block %u\n", grid, block);
    free(out); free(want);
    return bad != 0;
}

static int loop(unsigned grid, unsigned block, uint32_t steps)
{
    const ptxrtKernel *k = harness_find_kernel("param_loop");
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    for (size_t g = 0; g < n; g++) {
        out[g] = 0xdeadbeefu;
        uint32_t acc = 0;
        for (uint32_t i = 0; i < steps; i++) acc += combine(7u * (uint32_t)g + i, i);
        want[g] = acc;
    }
    void *args[] = {&out, &steps};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("param_loop", want, out, n);
    if (bad) fprintf(stderr, "param_loop: grid %u block %u steps %u\n", grid, block, steps);
    free(out); free(want);
    return bad != 0;
}

int main(void)
{
    int failures = 0;
    static const unsigned shapes[][2] = {{1, 128}, {3, 64}, {2, 1024}, {5, 33}, {4, 1}};
    int n = (int)(sizeof shapes / sizeof shapes[0]);
    for (int i = 0; i < n; i++) failures += after_barrier(shapes[i][0], shapes[i][1]);
    int r = harness_finish("param_after_barrier", n, failures);
    failures = 0;
    static const unsigned lshapes[][3] = {{2, 64, 5}, {3, 256, 1}, {1, 96, 0}, {4, 32, 17}};
    int m = (int)(sizeof lshapes / sizeof lshapes[0]);
    for (int i = 0; i < m; i++) failures += loop(lshapes[i][0], lshapes[i][1], lshapes[i][2]);
    return harness_finish("param_loop", m, failures) | r;
}
