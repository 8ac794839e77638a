/* step_ahead_host.c: runs tests/kernels/step_ahead.ptx (hand-written): column sums of a
 * matrix read one row per iteration of a loop through a barrier, with rows far apart in
 * memory (the block function prefetches rows ahead) and close together (it does not), for
 * one to many iterations. Checks each column's sum and iteration count. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int check(unsigned grid, unsigned block, unsigned rows)
{
    const ptxrtKernel *k = harness_find_kernel("column_sums");
    unsigned cols = grid * block;
    size_t cells = (size_t)cols * rows;
    uint32_t *in = harness_xmalloc(cells * 4), *out = harness_xmalloc((size_t)cols * 8), *want = harness_xmalloc((size_t)cols * 8);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)cols * 31 + rows);
    harness_fill_u32(&rng, in, cells, 1000000);
    for (unsigned c = 0; c < cols; c++) {
        uint32_t sum = 0;
        for (unsigned r = 0; r < rows; r++) sum += in[(size_t)r * cols + c];
        want[2 * c] = sum;
        want[2 * c + 1] = rows;
        out[2 * c] = out[2 * c + 1] = 0xdeadbeefu;
    }
    void *args[] = {&in, &out, &cols, &rows};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("step_ahead", want, out, (size_t)cols * 2);
    if (bad) fprintf(stderr, "step_ahead: grid %u block %u rows %u\n", grid, block, rows);
    free(in); free(out); free(want);
    return bad != 0;
}

int main(void)
{
    int shapes = 0, failures = 0;
    /* (grid, block, rows): rows 256 KB apart and more (prefetched), 4 KB apart (not), one row */
    static const unsigned s[][3] = {{256, 256, 12}, {512, 128, 9}, {1024, 64, 5}, {16, 64, 40}, {256, 256, 1}, {96, 96, 7}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++, shapes++) failures += check(s[i][0], s[i][1], s[i][2]);
    return harness_finish("step_ahead", shapes, failures);
}
