/* guard_tail_host.c: runs tests/kernels/guard_tail.ptx (hand-written): row d of each
 * block's 32 x 64 table gets d + 1 from the threads t < d - 5 (none in the first six
 * steps), through a row pointer stepped before each barrier; the other cells keep the
 * sentinel. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int check(unsigned grid, unsigned block, int steps)
{
    const ptxrtKernel *k = harness_find_kernel("guard_tail");
    size_t cells = (size_t)grid * 32 * 64;
    uint32_t *out = harness_xmalloc(cells * 4), *want = harness_xmalloc(cells * 4);
    for (size_t i = 0; i < cells; i++) out[i] = want[i] = 0xdeadbeefu;
    for (unsigned b = 0; b < grid; b++)
        for (int d = 0; d < steps; d++)
            for (unsigned t = 0; t < block && (int)t < d - 5; t++) want[(size_t)b * 2048 + (size_t)d * 64 + t] = (uint32_t)d + 1;
    void *args[] = {&out, &steps};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("guard_tail", want, out, cells);
    if (bad) fprintf(stderr, "guard_tail: grid %u block %u steps %d\n", grid, block, steps);
    free(out); free(want);
    return bad != 0;
}

int main(void)
{
    int shapes = 0, failures = 0;
    /* (grid, block, steps): empty first steps then some, all steps empty, one step, none */
    static const int s[][3] = {{3, 64, 32}, {2, 32, 20}, {2, 64, 6}, {4, 16, 12}, {2, 64, 1}, {2, 64, 0}, {5, 7, 32}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++, shapes++) failures += check((unsigned)s[i][0], (unsigned)s[i][1], s[i][2]);
    return harness_finish("guard_tail", shapes, failures);
}
