/* interchange_host.c: runs tests/kernels/interchange.ptx (NVRTC output of interchange.cu):
 * grid-stride loops whose trip counts differ between the threads of a block (zero for
 * some), which the block function runs one iteration of every thread at a time. Checks
 * every output against a host simulation of each thread.
 *
 *   stride_scale  barrier-free, 32-bit induction; per thread: trips and the index it stopped at
 *   stride_until  2D blocks, 64-bit induction, an early return inside the loop
 *   stride_sums   a grid-stride sum, a shared-memory tree with barriers, a second loop after them
 *   stride_rows   2D blocks and grid, blocks fused along x (runs of many blocks per call), a
 *                 per-thread running value
 *   tile_loops    uniform loops (the same passes for every thread that stays) inside a loop
 *                 over shared-memory tiles with barriers; threads from `active` on return first
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define SENTINEL 0x7eadbeefu

static int check_scale(unsigned grid, unsigned block, int n, int stride_mul)
{
    const ptxrtKernel *k = harness_find_kernel("stride_scale");
    unsigned threads = grid * block;
    size_t len = n > 0 ? (size_t)n : 1;
    uint32_t *in = harness_xmalloc(len * 4), *out = harness_xmalloc(len * 4), *expect = harness_xmalloc(len * 4);
    uint32_t *trips = harness_xmalloc(threads * 4), *last = harness_xmalloc(threads * 4);
    uint32_t *want_trips = harness_xmalloc(threads * 4), *want_last = harness_xmalloc(threads * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 7919 + block * 31 + (uint64_t)n);
    harness_fill_u32(&rng, in, len, 100000);
    for (size_t i = 0; i < len; i++) out[i] = expect[i] = SENTINEL;
    int stride = (int)threads * stride_mul;
    for (unsigned g = 0; g < threads; g++) {
        int count = 0, i;
        for (i = (int)g * 3 - 5; i < n; i += stride) {
            if (i >= 0) expect[i] = in[i] * 2 + (uint32_t)count;
            count++;
        }
        want_trips[g] = (uint32_t)count;
        want_last[g] = (uint32_t)i;
    }
    void *args[] = {&n, &stride_mul, &in, &out, &trips, &last};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("stride_scale out", expect, out, n > 0 ? (size_t)n : 0);
    bad += harness_compare_u32("stride_scale trips", want_trips, trips, threads);
    bad += harness_compare_u32("stride_scale last", want_last, last, threads);
    if (bad) fprintf(stderr, "stride_scale: grid %u block %u n %d stride x%d\n", grid, block, n, stride_mul);
    free(in); free(out); free(expect); free(trips); free(last); free(want_trips); free(want_last);
    return bad != 0;
}

static int check_until(unsigned grid, unsigned bx, unsigned by, unsigned long long n)
{
    const ptxrtKernel *k = harness_find_kernel("stride_until");
    unsigned long long threads = (unsigned long long)grid * bx * by;
    size_t len = n > 0 ? (size_t)n : 1;
    float *in = harness_xmalloc(len * 4), *out = harness_xmalloc(len * 4), *expect = harness_xmalloc(len * 4);
    uint32_t *stopped = harness_xmalloc(threads * 4), *want = harness_xmalloc(threads * 4);
    harness_rng rng;
    harness_rng_seed(&rng, n * 13 + grid * bx * by);
    harness_fill_float(&rng, in, len, 0.0f, 10.0f);
    for (size_t i = 0; i < len; i++) {
        if (harness_rng_u32(&rng) % 97 == 0) in[i] = -1.0f - in[i];
        out[i] = expect[i] = -7.0f;
    }
    for (unsigned long long g = 0; g < threads; g++) {
        want[g] = 0;
        for (unsigned long long i = g; i < n; i += threads) {
            if (in[i] < 0.0f) {
                want[g] = 1;
                break;
            }
            expect[i] = in[i] * 0.5f + 1.0f;
        }
    }
    void *args[] = {&n, &in, &out, &stopped};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(bx, by, 1), args, 0, NULL));
    size_t bad = harness_compare_f32("stride_until out", expect, out, (size_t)n, 0, 0);
    bad += harness_compare_u32("stride_until stopped", want, stopped, threads);
    if (bad) fprintf(stderr, "stride_until: grid %u block %ux%u n %llu\n", grid, bx, by, n);
    free(in); free(out); free(expect); free(stopped); free(want);
    return bad != 0;
}

static int check_sums(unsigned grid, unsigned block, int n)
{
    const ptxrtKernel *k = harness_find_kernel("stride_sums");
    unsigned threads = grid * block;
    size_t len = n > 0 ? (size_t)n : 1;
    uint32_t *in = harness_xmalloc(len * 4), *partial = harness_xmalloc(grid * 4), *again = harness_xmalloc(threads * 4);
    uint32_t *want_partial = harness_xmalloc(grid * 4), *want_again = harness_xmalloc(threads * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)n * 3 + threads);
    harness_fill_u32(&rng, in, len, 1u << 30);
    for (unsigned b = 0; b < grid; b++) {
        uint32_t total = 0;
        for (unsigned t = 0; t < block; t++)
            for (int i = (int)(b * block + t); i < n; i += (int)threads) total += in[i] * (t + 1);
        want_partial[b] = total;
        for (unsigned t = 0; t < block; t++) {
            uint32_t w = 0;
            for (int i = (int)(b * block + t + total % 7); i < n; i += (int)threads) w ^= in[i] + (uint32_t)i;
            want_again[b * block + t] = w;
        }
    }
    void *args[] = {&n, &in, &partial, &again};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, block * 4, NULL));
    size_t bad = harness_compare_u32("stride_sums partial", want_partial, partial, grid);
    bad += harness_compare_u32("stride_sums again", want_again, again, threads);
    if (bad) fprintf(stderr, "stride_sums: grid %u block %u n %d\n", grid, block, n);
    free(in); free(partial); free(again); free(want_partial); free(want_again);
    return bad != 0;
}

static int check_rows(unsigned gx, unsigned gy, unsigned bx, unsigned by, int n)
{
    const ptxrtKernel *k = harness_find_kernel("stride_rows");
    unsigned width = gx * bx, height = gy * by;
    size_t len = (size_t)height * (size_t)(n > 0 ? n : 1);
    uint32_t *in = harness_xmalloc(len * 4);
    uint32_t *out = harness_xmalloc((size_t)width * height * 4), *want = harness_xmalloc((size_t)width * height * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)gx * 104729 + gy * 31 + bx * 7 + by + (uint64_t)n);
    harness_fill_u32(&rng, in, len, 0xffffffffu);
    for (unsigned y = 0; y < height; y++)
        for (unsigned x = 0; x < width; x++) {
            uint32_t v = y * 2654435761u;
            for (int i = (int)x; i < n; i += (int)width) v = (v ^ in[(size_t)y * (size_t)n + (size_t)i]) * 16777619u + (uint32_t)i;
            want[(size_t)y * width + x] = v;
        }
    void *args[] = {&n, &in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(gx, gy, 1), harness_dim3(bx, by, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("stride_rows out", want, out, (size_t)width * height);
    if (bad) fprintf(stderr, "stride_rows: grid %ux%u block %ux%u n %d\n", gx, gy, bx, by, n);
    free(in); free(out); free(want);
    return bad != 0;
}

static int check_tiles(unsigned grid, unsigned block, int n, int active)
{
    const ptxrtKernel *k = harness_find_kernel("tile_loops");
    unsigned threads = grid * block;
    size_t len = (size_t)threads + (size_t)n + block;
    float *pos = harness_xmalloc(len * 4), *acc = harness_xmalloc(threads * 4), *want_acc = harness_xmalloc(threads * 4);
    uint32_t *count = harness_xmalloc(threads * 4), *want_count = harness_xmalloc(threads * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 613 + block * 17 + (uint64_t)n * 3 + (uint64_t)active);
    harness_fill_float(&rng, pos, len, -4.0f, 4.0f);
    for (unsigned g = 0; g < threads; g++) {
        acc[g] = want_acc[g] = -1.0f;
        count[g] = want_count[g] = SENTINEL;
    }
    for (unsigned g = 0; g < threads; g++) {
        unsigned t = g % block;
        if ((int)t >= active) continue;
        float p = pos[g], a = 0.0f;
        uint32_t c = 0;
        for (int t0 = 0; t0 < n; t0 += (int)block)
            for (int j = 0; j < active; j++) {
                float d = pos[t0 + j] - p;
                a = fmaf(d, d * 0.5f, a);
                c += d > 0.0f;
            }
        want_acc[g] = a;
        want_count[g] = c;
    }
    void *args[] = {&n, &active, &pos, &acc, &count};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, block * 4, NULL));
    size_t bad = harness_compare_f32("tile_loops acc", want_acc, acc, threads, 0, 0);
    bad += harness_compare_u32("tile_loops count", want_count, count, threads);
    if (bad) fprintf(stderr, "tile_loops: grid %u block %u n %d active %d\n", grid, block, n, active);
    free(pos); free(acc); free(want_acc); free(count); free(want_count);
    return bad != 0;
}

int main(void)
{
    int shapes = 0, failures = 0;
    /* (grid, block, n, stride multiple): n below, around and far above the thread count. */
    /* (The last two: enough blocks for runs of many blocks per call.) */
    static const int scale[][4] = {{1, 32, 50, 3}, {3, 96, 1000, 3}, {4, 128, 0, 4}, {2, 33, 5000, 3}, {5, 256, 100, 4}, {2, 1024, 70000, 3}, {200, 32, 30000, 1}, {97, 64, 6000, 2}};
    for (size_t s = 0; s < sizeof scale / sizeof scale[0]; s++, shapes++)
        failures += check_scale((unsigned)scale[s][0], (unsigned)scale[s][1], scale[s][2], scale[s][3]);
    static const unsigned long long until[][4] = {{2, 8, 4, 1000}, {3, 32, 2, 1}, {1, 16, 16, 5000}, {7, 5, 3, 333}, {2, 32, 32, 100000}, {3, 64, 1, 0}};
    for (size_t s = 0; s < sizeof until / sizeof until[0]; s++, shapes++)
        failures += check_until((unsigned)until[s][0], (unsigned)until[s][1], (unsigned)until[s][2], until[s][3]);
    static const int sums[][3] = {{1, 32, 1000}, {3, 64, 5000}, {4, 256, 100}, {2, 1024, 100000}, {5, 128, 0}, {6, 2, 37}};
    for (size_t s = 0; s < sizeof sums / sizeof sums[0]; s++, shapes++)
        failures += check_sums((unsigned)sums[s][0], (unsigned)sums[s][1], sums[s][2]);
    /* (grid x, grid y, block x, block y, row length): runs of up to dozens of blocks along x,
     * rows shorter than, equal to and longer than the grid's width, more than one row of blocks. */
    static const int rows[][5] = {{64, 1, 32, 1, 5000}, {100, 3, 16, 4, 3000}, {33, 2, 8, 8, 264}, {80, 2, 32, 2, 100}, {256, 1, 64, 1, 0}, {7, 5, 24, 3, 2000}};
    for (size_t s = 0; s < sizeof rows / sizeof rows[0]; s++, shapes++)
        failures += check_rows((unsigned)rows[s][0], (unsigned)rows[s][1], (unsigned)rows[s][2], (unsigned)rows[s][3], rows[s][4]);
    /* (grid, block, tiles' total n, active threads): every thread, some, one, none; passes
     * of 1 to 256 (the 4-way unrolled loop and its remainder). */
    static const int tiles[][4] = {{2, 64, 256, 64}, {3, 96, 192, 50}, {1, 256, 1024, 256}, {2, 32, 64, 1}, {4, 128, 128, 0}, {2, 96, 288, 95}, {1, 1024, 2048, 1024}};
    for (size_t s = 0; s < sizeof tiles / sizeof tiles[0]; s++, shapes++)
        failures += check_tiles((unsigned)tiles[s][0], (unsigned)tiles[s][1], tiles[s][2], tiles[s][3]);
    return harness_finish("interchange", shapes, failures);
}
