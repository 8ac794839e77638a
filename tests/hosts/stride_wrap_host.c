/* stride_wrap_host.c: runs tests/kernels/stride_wrap.ptx (hand-written): grid-stride loops
 * whose 32-bit induction crosses 2^31 (within a pass, at a block boundary, after some
 * passes) or never does, in 1D and 2D blocks and in blocks fused along x. Checks how often
 * each element was visited and each thread's trip count (stride_wrap), or which thread
 * stored each element (stride_wrap_fused), against a host simulation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define TWO_31 0x80000000u

static int check(const char *name, unsigned grid, unsigned bx, unsigned by, uint32_t off, uint32_t n, uint32_t mul)
{
    const ptxrtKernel *k = harness_find_kernel(name);
    int counts = strcmp(name, "stride_wrap") == 0; /* else: stores of the global index */
    uint32_t untouched = counts ? 0 : 0xdeadbeefu;
    /* Elements [off, min(n, 2^31)) are counted in pos, [2^31, n) in neg (off < 2^31 <= n or not). */
    size_t pos_len = off < TWO_31 && n > off ? (size_t)((n < TWO_31 ? n : TWO_31) - off) : 0;
    uint32_t neg_lo = off > TWO_31 ? off : TWO_31;
    size_t neg_len = n > neg_lo ? (size_t)(n - neg_lo) : 0;
    size_t threads = (size_t)grid * bx * by;
    uint32_t *pos = harness_xmalloc((pos_len + 1) * 4), *neg = harness_xmalloc((neg_len + 1) * 4), *trips = harness_xmalloc(threads * 4);
    uint32_t *want_pos = harness_xmalloc((pos_len + 1) * 4), *want_neg = harness_xmalloc((neg_len + 1) * 4), *want_trips = harness_xmalloc(threads * 4);
    for (size_t i = 0; i <= pos_len; i++) pos[i] = want_pos[i] = untouched;
    for (size_t i = 0; i <= neg_len; i++) neg[i] = want_neg[i] = untouched;
    uint32_t stride = grid * bx * mul;
    for (unsigned b = 0; b < grid; b++)
        for (unsigned y = 0; y < by; y++)
            for (unsigned x = 0; x < bx; x++) {
                uint32_t count = 0, gid = b * bx + x;
                for (uint32_t i = gid + off; i < n; i += stride, count++) {
                    uint32_t *at = i < TWO_31 ? &want_pos[i - off] : &want_neg[i - neg_lo];
                    *at = counts ? *at + 1 : gid;
                }
                want_trips[((size_t)b * by + y) * bx + x] = count;
                trips[((size_t)b * by + y) * bx + x] = 0xdeadbeefu;
            }
    /* pos_base + 4 * sext(i) = pos + 4 * (i - off) for i < 2^31; neg_base + 4 * sext(i) =
     * neg + 4 * (i - neg_lo) for i >= 2^31, where sext(i) = i - 2^32. */
    uint64_t pos_base = (uint64_t)(uintptr_t)pos - 4 * (uint64_t)off;
    uint64_t neg_base = (uint64_t)(uintptr_t)neg + 4 * ((uint64_t)1 << 32) - 4 * (uint64_t)neg_lo;
    void *args[] = {&off, &n, &mul, &pos_base, &neg_base, &trips};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(bx, by, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("stride_wrap below 2^31", want_pos, pos, pos_len);
    bad += harness_compare_u32("stride_wrap from 2^31", want_neg, neg, neg_len);
    if (counts) bad += harness_compare_u32("stride_wrap trips", want_trips, trips, threads);
    if (bad) fprintf(stderr, "%s: grid %u block %ux%u off %#x n %#x stride x%u\n", name, grid, bx, by, off, n, mul);
    free(pos); free(neg); free(trips); free(want_pos); free(want_neg); free(want_trips);
    return bad != 0;
}

int main(void)
{
    int shapes = 0, failures = 0;
    /* (grid, bx, by, off, n, stride multiple) */
    static const uint32_t s[][6] = {
        {4, 64, 1, 0x7fffff00u - 37, TWO_31 + 300, 1},   /* crosses inside a block's pass */
        {2, 64, 1, TWO_31 - 128, TWO_31 + 700, 1},       /* at a block boundary, then passes past it */
        {3, 32, 4, 0x7fffffffu - 70, TWO_31 + 200, 1},   /* 2D blocks (rows share i) */
        {5, 96, 1, 0x7fffff00u, TWO_31 + 1000, 3},       /* several passes before the crossing */
        {8, 64, 1, 0, 5000, 1},                          /* never */
        {4, 64, 1, 0x7ffffff0u, 0x7ffffff0u, 1},         /* no thread enters the loop */
        {3, 50, 1, TWO_31 + 5, TWO_31 + 900, 2},         /* starts below zero (signed) */
        {1, 256, 1, 0x7fffffffu - 255, TWO_31 + 256, 1}, /* the last thread's first i is 2^31 - 1 */
        {1, 256, 1, 0x7fffffffu - 254, TWO_31 + 256, 1}, /* ... is 2^31: the first pass crosses */
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++, shapes++)
        failures += check("stride_wrap", s[i][0], s[i][1], s[i][2], s[i][3], s[i][4], s[i][5]);
    /* Fused along x: runs of blocks share a pass. */
    static const uint32_t f[][5] = {
        {64, 32, 0x7fffff00u - 500, TWO_31 + 3000, 1},
        {40, 64, TWO_31 - 64 * 17, TWO_31 + 5000, 2},
        {33, 48, 0, 20000, 1},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++, shapes++)
        failures += check("stride_wrap_fused", f[i][0], f[i][1], 1, f[i][2], f[i][3], f[i][4]);
    return harness_finish("stride_wrap", shapes, failures);
}
