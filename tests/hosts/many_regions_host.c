/* many_regions_host.c: runs tests/kernels/many_regions.ptx (NVRTC), kernels with more than
 * 12 sync points, which ptx2llvm compiles as one thread loop for all regions, and checks
 * them against host references.
 *
 *   scan_unrolled(in, out, n)   inclusive block scan, 21 barriers, early-exit threads
 *   rounds(in, out)             8 rounds of warp butterfly sums and shared-memory rotations
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_scan(harness_rng *rng, unsigned grid, unsigned block, int n)
{
    const ptxrtKernel *k = harness_find_kernel("scan_unrolled");
    size_t total = (size_t)grid * block;
    int *in = harness_xmalloc(total * 4), *out = harness_xmalloc(total * 4), *expect = harness_xmalloc(total * 4);
    for (size_t i = 0; i < total; i++) {
        in[i] = (int)(harness_rng_u32(rng) % 2001) - 1000;
        out[i] = expect[i] = 0x5a5a5a5a;
    }
    for (unsigned b = 0; b < grid; b++) {
        int sum = 0;
        for (unsigned t = 0; t < block; t++) {
            size_t g = (size_t)b * block + t;
            if ((long)g >= n) break;
            sum += in[g];
            expect[g] = sum;
        }
    }
    void *args[] = {&in, &out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, block * sizeof(int), NULL));
    size_t bad = harness_compare_u32("scan_unrolled", (const uint32_t *)expect, (const uint32_t *)out, total);
    if (bad) fprintf(stderr, "scan_unrolled grid=%u block=%u n=%d\n", grid, block, n);
    free(in);
    free(out);
    free(expect);
    return bad != 0;
}

static int check_rounds(harness_rng *rng, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("rounds");
    size_t total = (size_t)grid * block;
    uint32_t *in = harness_xmalloc(total * 4), *out = harness_xmalloc(total * 4), *expect = harness_xmalloc(total * 4);
    uint32_t *v = harness_xmalloc(block * 4), *s = harness_xmalloc(block * 4);
    for (size_t i = 0; i < total; i++) in[i] = harness_rng_u32(rng);
    for (unsigned b = 0; b < grid; b++) {
        memcpy(v, in + (size_t)b * block, block * 4);
        for (unsigned r = 0; r < 8; r++) {
            for (unsigned w0 = 0; w0 < block; w0 += 32) {
                uint32_t w = 0;
                for (unsigned l = 0; l < 32; l++) w += v[w0 + l];
                for (unsigned l = 0; l < 32; l++) {
                    if (w & 1) v[w0 + l] ^= w;
                    else v[w0 + l] += w >> 3;
                }
            }
            memcpy(s, v, block * 4);
            for (unsigned t = 0; t < block; t++) v[t] = s[(t + r + 1) % block] + (v[t] >> 1);
        }
        memcpy(expect + (size_t)b * block, v, block * 4);
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("rounds", expect, out, total);
    if (bad) fprintf(stderr, "rounds grid=%u block=%u\n", grid, block);
    free(in);
    free(out);
    free(expect);
    free(v);
    free(s);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x5ca7);
    int bad = 0, n = 0;
    static const unsigned shapes[][2] = {{1, 32}, {5, 96}, {3, 256}, {2, 1024}, {4, 33}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        unsigned grid = shapes[i][0], block = shapes[i][1];
        int total = (int)(grid * block);
        bad |= check_scan(&rng, grid, block, total);
        bad |= check_scan(&rng, grid, block, total - (int)block / 2 - 1);
        if (block % 32 == 0) bad |= check_rounds(&rng, grid, block);
        n++;
    }
    if (bad) return 1;
    printf("many_regions: %d shapes OK\n", n);
    return 0;
}
