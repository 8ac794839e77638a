/* legacy_warp_host.c: tests/kernels/legacy_warp.ptx. The classic reduction whose last
 * warp relies on lockstep execution through volatile shared memory must give the exact
 * block sums, and a warp spinning on a volatile shared flag set by another warp must see
 * it (the launch finishes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_reduce(harness_rng *rng, int n, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("legacy_reduce");
    unsigned grid = (unsigned)((n + 2 * (int)block - 1) / (2 * (int)block));
    int *in = harness_xmalloc((size_t)n * sizeof(int));
    uint32_t *out = harness_xmalloc(grid * 4), *exp = harness_xmalloc(grid * 4);
    for (int i = 0; i < n; i++) in[i] = (int)harness_rng_u32(rng);
    memset(exp, 0, grid * 4);
    for (int i = 0; i < n; i++) exp[i / (2 * (int)block)] += (uint32_t)in[i];
    void *args[] = {&in, &out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("legacy_reduce", exp, out, grid);
    if (bad) fprintf(stderr, "legacy_reduce n=%d block=%u\n", n, block);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int check_spin(unsigned grid)
{
    const ptxrtKernel *k = harness_find_kernel("spin_flag");
    uint32_t *out = harness_xmalloc(grid * 4), *exp = harness_xmalloc(grid * 4);
    for (unsigned b = 0; b < grid; b++) exp[b] = 42 + b;
    void *args[] = {&out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(64, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("spin_flag", exp, out, grid);
    free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x1E6Au);
    int f = check_reduce(&rng, 100000, 64) + check_reduce(&rng, 1 << 20, 256) + check_reduce(&rng, 5000, 1024);
    int rc = harness_finish("legacy_reduce", 3, f);
    f = check_spin(1) + check_spin(300);
    rc |= harness_finish("spin_flag", 2, f);
    return rc;
}
