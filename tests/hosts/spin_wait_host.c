/* spin_wait_host.c: runs tests/kernels/spin_wait.ptx: warp w of each block spins on a
 * global flag until warp w + 1 has published its value (volatile, acquire/release and
 * atomic polling). Thread loops alone would spin forever in warp 0.
 *
 *   spin_*(flags, vals, out): out[thread] = sum over warps v >= w of (block * 1000 + v)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int run(const char *name, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel(name);
    unsigned warps = block / 32;
    size_t n = (size_t)grid * block;
    int *flags = harness_xmalloc((size_t)grid * warps * sizeof(int));
    int *vals = harness_xmalloc((size_t)grid * warps * sizeof(int));
    uint32_t *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    memset(flags, 0, (size_t)grid * warps * sizeof(int));
    memset(vals, 0, (size_t)grid * warps * sizeof(int));
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            uint32_t s = 0;
            for (unsigned v = t / 32; v < warps; v++) s += b * 1000 + v;
            exp[(size_t)b * block + t] = s;
        }
    void *args[] = {&flags, &vals, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32(name, exp, out, n);
    if (bad) fprintf(stderr, "%s grid=%u block=%u: %zu mismatches\n", name, grid, block, bad);
    free(flags); free(vals); free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    static const char *const kernels[] = {"spin_volatile", "spin_acquire", "spin_atomic", "spin_call"};
    static const unsigned shapes[][2] = {{3, 64}, {7, 96}, {4, 256}, {2, 1024}};
    int rc = 0;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        int failures = 0;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) failures += run(kernels[i], shapes[s][0], shapes[s][1]);
        rc |= harness_finish(kernels[i], (int)(sizeof shapes / sizeof shapes[0]), failures);
    }
    return rc;
}
