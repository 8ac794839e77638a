/* gathers_host.c: runs tests/kernels/gathers.ptx (NVRTC output of gathers.cu), whose
 * vectorized thread loops gather and scatter through per-thread pointers read back from
 * the context area and through one address for a whole vector of threads. Checks every
 * output against a host simulation of each thread.
 *
 *   pointer_walk  pointers consecutive for consecutive threads (identity permutation),
 *                 reversed, random, consecutive but for a few swaps, shifted by one
 *                 (consecutive in runs that start mid-vector); n not a multiple of the block
 *   warp_slots    the last lane's store of a per-warp total, a per-block slot read by the
 *                 threads whose flag is set (none, all, random)
 *   last_writer   every fourth thread stores to its group of 64's element (`int t / 64`): the
 *                 last of them in thread order is what the element holds
 *   shared_wavefront  an alignment table in dynamic shared memory filled along anti-diagonals
 *                 (a row per thread: strided and reversed shared reads), blocks of 1 to 90
 *   shared_columns    a tile of doubles read along columns and permuted rows of shared memory
 *   shared_scatter    stores to permuted shared slots (odd steps, blocks of 32 to 1024)
 *   uniform_copy  a shared value read from one address and stored to one address by the
 *                 flagged threads (none, all, random)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { IDENTITY, REVERSED, RANDOM, SWAPS, SHIFTED };

static int check_walk(unsigned block, int n, int steps, int order, uint64_t seed)
{
    const ptxrtKernel *k = harness_find_kernel("pointer_walk");
    size_t cells = (size_t)n * (size_t)steps;
    int *perm = harness_xmalloc((size_t)n * sizeof(int));
    float *table = harness_xmalloc(cells * 4), *out = harness_xmalloc(cells * 4), *want_out = harness_xmalloc(cells * 4);
    float *sums = harness_xmalloc((size_t)n * 4), *want_sums = harness_xmalloc((size_t)n * 4);
    harness_rng rng;
    harness_rng_seed(&rng, seed);
    harness_fill_float(&rng, table, cells, -4.0f, 4.0f);
    for (int t = 0; t < n; t++) perm[t] = order == REVERSED ? n - 1 - t : order == SHIFTED ? (t + 1) % n : t;
    if (order == RANDOM)
        for (int t = n - 1; t > 0; t--) {
            int j = (int)(harness_rng_u32(&rng) % (uint32_t)(t + 1)), x = perm[t];
            perm[t] = perm[j];
            perm[j] = x;
        }
    if (order == SWAPS)
        for (int s = 0; s < 3 && n > 1; s++) {
            int a = (int)(harness_rng_u32(&rng) % (uint32_t)n), b = (int)(harness_rng_u32(&rng) % (uint32_t)n), x = perm[a];
            perm[a] = perm[b];
            perm[b] = x;
        }
    for (size_t c = 0; c < cells; c++) out[c] = want_out[c] = -1.0f;
    for (int t = 0; t < n; t++) {
        float s = 0.0f;
        for (int i = t & 3; i < steps; i++) {
            s += table[(size_t)perm[t] + (size_t)i * (size_t)n];
            want_out[(size_t)perm[t] + (size_t)i * (size_t)n] = s;
        }
        want_sums[t] = s;
    }
    unsigned grid = ((unsigned)n + block - 1) / block;
    void *args[] = {&n, &steps, &perm, &table, &sums, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_f32("pointer_walk sums", want_sums, sums, (size_t)n, 0, 0);
    bad += harness_compare_f32("pointer_walk out", want_out, out, cells, 0, 0);
    if (bad) fprintf(stderr, "pointer_walk: block %u n %d steps %d order %d\n", block, n, steps, order);
    free(perm); free(table); free(out); free(want_out); free(sums); free(want_sums);
    return bad != 0;
}

static int check_slots(unsigned grid, unsigned block, int flags, uint64_t seed)
{
    const ptxrtKernel *k = harness_find_kernel("warp_slots");
    size_t n = (size_t)grid * block;
    uint32_t *in = harness_xmalloc(n * 4), *flag = harness_xmalloc(n * 4), *out = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    harness_rng rng;
    harness_rng_seed(&rng, seed);
    harness_fill_u32(&rng, in, n, 1u << 30);
    for (size_t i = 0; i < n; i++) flag[i] = flags == 2 ? harness_rng_u32(&rng) & 1 : (uint32_t)flags;
    for (unsigned b = 0; b < grid; b++) {
        /* Warps whose last lane is outside a partial last warp keep no total: only
         * blocks of whole warps are launched. */
        uint32_t slot = in[(size_t)b * block] ^ 0x55;
        for (unsigned t = 0; t < block; t++) {
            size_t i = (size_t)b * block + t;
            unsigned warp = t / 32, last = warp * 32 + 31;
            uint32_t total = in[(size_t)b * block + last] * 3u + warp;
            uint32_t r = total - (t % 32);
            if (flag[i]) r += slot;
            want[i] = r;
        }
    }
    void *args[] = {&in, &flag, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("warp_slots out", want, out, n);
    if (bad) fprintf(stderr, "warp_slots: grid %u block %u flags %d\n", grid, block, flags);
    free(in); free(flag); free(out); free(want);
    return bad != 0;
}

static int check_last(unsigned grid, unsigned block, uint64_t seed)
{
    const ptxrtKernel *k = harness_find_kernel("last_writer");
    size_t n = (size_t)grid * block, boxes = (size_t)grid * (block / 64);
    uint32_t *in = harness_xmalloc(n * 4), *box = harness_xmalloc(boxes * 4), *want = harness_xmalloc(boxes * 4);
    harness_rng rng;
    harness_rng_seed(&rng, seed);
    harness_fill_u32(&rng, in, n, 1u << 30);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t += 4) want[(size_t)b * (block / 64) + t / 64] = in[(size_t)b * block + t] + t;
    void *args[] = {&in, &box};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("last_writer box", want, box, boxes);
    if (bad) fprintf(stderr, "last_writer: grid %u block %u\n", grid, block);
    free(in); free(box); free(want);
    return bad != 0;
}

static int max3(int a, int b, int c) { int m = a > b ? a : b; return m > c ? m : c; }

static int check_wavefront(unsigned grid, unsigned L, uint64_t seed)
{
    const ptxrtKernel *k = harness_find_kernel("shared_wavefront");
    size_t n = (size_t)grid * L;
    unsigned char *a = harness_xmalloc(n), *b = harness_xmalloc(n);
    int *last = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4), *h = harness_xmalloc((size_t)(L + 1) * (L + 1) * 4);
    harness_rng rng;
    harness_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        a[i] = (unsigned char)(harness_rng_u32(&rng) % 4);
        b[i] = (unsigned char)(harness_rng_u32(&rng) % 4);
    }
    unsigned w = L + 1;
    for (unsigned blk = 0; blk < grid; blk++) {
        const unsigned char *sa = a + (size_t)blk * L, *sb = b + (size_t)blk * L;
        h[0] = 0;
        for (unsigned t = 1; t <= L; t++) {
            h[t * w] = -(int)t;
            h[t] = -2 * (int)t;
        }
        for (unsigned i = 1; i <= L; i++)
            for (unsigned j = 1; j <= L; j++) {
                int s = sa[i - 1] == sb[j - 1] ? 3 : -2;
                h[i * w + j] = max3(h[(i - 1) * w + j - 1] + s, h[(i - 1) * w + j] - 2, h[i * w + j - 1] - 1);
            }
        for (unsigned t = 0; t < L; t++) want[(size_t)blk * L + t] = h[(t + 1) * w + L];
    }
    void *args[] = {&a, &b, &last};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(L, 1, 1), args, (size_t)w * w * 4, NULL));
    size_t bad = harness_compare_u32("shared_wavefront last", (uint32_t *)want, (uint32_t *)last, n);
    if (bad) fprintf(stderr, "shared_wavefront: grid %u L %u\n", grid, L);
    free(a); free(b); free(last); free(want); free(h);
    return bad != 0;
}

static int check_columns(unsigned grid, unsigned rows_per_pass, uint64_t seed)
{
    const ptxrtKernel *k = harness_find_kernel("shared_columns");
    size_t n = (size_t)grid * 1024;
    double *in = harness_xmalloc(n * 8), *out = harness_xmalloc(n * 8), *want = harness_xmalloc(n * 8);
    harness_rng rng;
    harness_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) in[i] = (double)(int32_t)harness_rng_u32(&rng) / 3.0;
    for (unsigned blk = 0; blk < grid; blk++) {
        const double *tile = in + (size_t)blk * 1024; /* tile[k][x] = in[k * 32 + x] */
        for (unsigned kk = 0; kk < 32; kk++)
            for (unsigned x = 0; x < 32; x++)
                want[(size_t)blk * 1024 + kk * 32 + x] = tile[x * 32 + kk] * 2.0 + tile[((x * 5 + kk) & 31) * 32 + ((kk * 7) & 31)];
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(32, rows_per_pass, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("shared_columns out", (uint32_t *)want, (uint32_t *)out, n * 2);
    if (bad) fprintf(stderr, "shared_columns: grid %u rows %u\n", grid, rows_per_pass);
    free(in); free(out); free(want);
    return bad != 0;
}

static int check_scatter(unsigned grid, unsigned block, int step, uint64_t seed)
{
    const ptxrtKernel *k = harness_find_kernel("shared_scatter");
    size_t n = (size_t)grid * block;
    uint32_t *in = harness_xmalloc(n * 4), *out = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    harness_rng rng;
    harness_rng_seed(&rng, seed);
    harness_fill_u32(&rng, in, n, 1u << 30);
    for (unsigned blk = 0; blk < grid; blk++)
        for (unsigned t = 0; t < block; t++) want[(size_t)blk * block + ((t * (unsigned)step) & (block - 1))] = in[(size_t)blk * block + t] + t;
    void *args[] = {&step, &in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("shared_scatter out", want, out, n);
    if (bad) fprintf(stderr, "shared_scatter: grid %u block %u step %d\n", grid, block, step);
    free(in); free(out); free(want);
    return bad != 0;
}

static int check_uniform_copy(unsigned grid, unsigned block, int flags, uint64_t seed)
{
    const ptxrtKernel *k = harness_find_kernel("uniform_copy");
    size_t n = (size_t)grid * block;
    uint32_t *flag = harness_xmalloc(n * 4), *in = harness_xmalloc((size_t)grid * 8), *out = harness_xmalloc((size_t)grid * 4), *want = harness_xmalloc((size_t)grid * 4);
    harness_rng rng;
    harness_rng_seed(&rng, seed);
    harness_fill_u32(&rng, in, (size_t)grid * 2, 1u << 30);
    for (size_t i = 0; i < n; i++) flag[i] = flags == 2 ? (harness_rng_u32(&rng) % 7 == 0) : (uint32_t)flags;
    for (unsigned b = 0; b < grid; b++) {
        out[b] = want[b] = 0xdeadbeefu;
        for (unsigned t = 0; t < block; t++)
            if (flag[(size_t)b * block + t]) want[b] = in[(size_t)b * 2 + 1];
    }
    void *args[] = {&flag, &in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("uniform_copy out", want, out, grid);
    if (bad) fprintf(stderr, "uniform_copy: grid %u block %u flags %d\n", grid, block, flags);
    free(flag); free(in); free(out); free(want);
    return bad != 0;
}

int main(void)
{
    int shapes = 0, failures = 0;
    /* (block, n, steps, order) */
    static const int walk[][4] = {{64, 1000, 9, IDENTITY}, {128, 777, 5, REVERSED}, {32, 500, 7, RANDOM}, {256, 2048, 6, SWAPS},
                                  {96, 1001, 8, SHIFTED}, {64, 3, 4, IDENTITY}, {1024, 5000, 3, RANDOM}, {48, 130, 12, SHIFTED}};
    for (size_t s = 0; s < sizeof walk / sizeof walk[0]; s++, shapes++)
        failures += check_walk((unsigned)walk[s][0], walk[s][1], walk[s][2], walk[s][3], 1000 + s);
    /* (grid, block, flags: 0 none, 1 all, 2 random) */
    static const int slots[][3] = {{3, 64, 1}, {2, 256, 2}, {5, 32, 0}, {1, 1024, 2}, {4, 96, 2}};
    for (size_t s = 0; s < sizeof slots / sizeof slots[0]; s++, shapes++)
        failures += check_slots((unsigned)slots[s][0], (unsigned)slots[s][1], slots[s][2], 2000 + s);
    /* (grid, block): blocks of whole groups of 64 */
    static const int last[][2] = {{3, 64}, {2, 256}, {5, 128}, {1, 1024}, {7, 192}};
    for (size_t s = 0; s < sizeof last / sizeof last[0]; s++, shapes++)
        failures += check_last((unsigned)last[s][0], (unsigned)last[s][1], 3000 + s);
    /* (grid, L) */
    static const int wave[][2] = {{3, 17}, {2, 64}, {2, 90}, {4, 33}, {1, 1}};
    for (size_t s = 0; s < sizeof wave / sizeof wave[0]; s++, shapes++)
        failures += check_wavefront((unsigned)wave[s][0], (unsigned)wave[s][1], 4000 + s);
    /* (grid, rows per pass) */
    static const int cols[][2] = {{3, 8}, {2, 32}, {2, 5}};
    for (size_t s = 0; s < sizeof cols / sizeof cols[0]; s++, shapes++)
        failures += check_columns((unsigned)cols[s][0], (unsigned)cols[s][1], 5000 + s);
    /* (grid, block, step) */
    static const int scat[][3] = {{3, 64, 5}, {2, 1024, 33}, {4, 32, 1}, {2, 256, 255}};
    for (size_t s = 0; s < sizeof scat / sizeof scat[0]; s++, shapes++)
        failures += check_scatter((unsigned)scat[s][0], (unsigned)scat[s][1], scat[s][2], 6000 + s);
    /* (grid, block, flags: 0 none, 1 all, 2 random) */
    static const int copies[][3] = {{4, 64, 2}, {3, 256, 1}, {2, 128, 0}, {5, 33, 2}};
    for (size_t s = 0; s < sizeof copies / sizeof copies[0]; s++, shapes++)
        failures += check_uniform_copy((unsigned)copies[s][0], (unsigned)copies[s][1], copies[s][2], 7000 + s);
    return harness_finish("gathers", shapes, failures);
}
