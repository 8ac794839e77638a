/* region_guards_host.c: runs tests/kernels/region_guards.ptx (NVRTC output of
 * region_guards.cu): regions after a barrier that start with a guard on the thread index,
 * whose block function runs only the threads that pass. Checks every output against a
 * host simulation.
 *
 *   diagonal  anti-diagonal dynamic programming, `tx <= m` per step (both halves)
 *   band      a band `i + 1 <= tx`, `(n - 2 - i) - tx >= 0` narrowing each step, two barriers
 *   corner    2D blocks, `ty > i` and `tx + shift < limit - i`; shifts near INT_MAX wrap (the
 *             threads that pass are no interval then)
 *   shifted   1D, `tx + shift < limit`, wrapping near INT_MAX
 *   cheapest_path  a band inside the valid columns after a loop's latch and header, with a
 *             per-thread flag reset before the guard and kept across the barriers
 *   tile_diagonals  16 x 16 anti-diagonals, fully unrolled (32 barriers: one loop per region)
 *   stepped_band  a per-thread offset loaded from memory, stepped at the loop's latch in
 *             front of a band guard with a long body (not narrowed: a value per thread)
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int max2(int a, int b) { return a > b ? a : b; }
static int min2(int a, int b) { return a < b ? a : b; }

static int check_diagonal(unsigned grid, int len)
{
    const ptxrtKernel *k = harness_find_kernel("diagonal");
    size_t cells = (size_t)(len + 1) * (len + 1);
    int *cost = harness_xmalloc((size_t)grid * len * len * 4 + 4);
    int *out = harness_xmalloc(grid * cells * 4), *want = harness_xmalloc(grid * cells * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 131 + (uint64_t)len);
    harness_fill_u32(&rng, (uint32_t *)cost, (size_t)grid * len * len, 7);
    for (unsigned b = 0; b < grid; b++) {
        const int *c = cost + (size_t)b * len * len;
        int *h = want + b * cells;
        for (int i = 0; i <= len; i++)
            for (int j = 0; j <= len; j++)
                h[i * (len + 1) + j] = i == 0 ? -j : j == 0 ? -i
                    : max2(h[(i - 1) * (len + 1) + j - 1] + c[(i - 1) * len + j - 1], max2(h[(i - 1) * (len + 1) + j], h[i * (len + 1) + j - 1]) - 1);
    }
    void *args[] = {&cost, &out, &len};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3((unsigned)len, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("diagonal", (uint32_t *)want, (uint32_t *)out, grid * cells);
    if (bad) fprintf(stderr, "diagonal: grid %u len %d\n", grid, len);
    free(cost); free(out); free(want);
    return bad != 0;
}

static int check_band(unsigned grid, unsigned block, int steps)
{
    const ptxrtKernel *k = harness_find_kernel("band");
    int cols = (int)(grid * block), n = (int)block;
    int *wall = harness_xmalloc((size_t)(steps + 1) * cols * 4), *out = harness_xmalloc((size_t)cols * 4), *want = harness_xmalloc((size_t)cols * 4);
    int *prev = harness_xmalloc(block * 4), *res = harness_xmalloc(block * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 31 + block * 7 + (uint64_t)steps);
    harness_fill_u32(&rng, (uint32_t *)wall, (size_t)(steps + 1) * cols, 10);
    for (unsigned b = 0; b < grid; b++) {
        for (int t = 0; t < n; t++) prev[t] = res[t] = wall[b * block + t];
        for (int i = 0; i < steps; i++) {
            for (int t = i + 1; t <= n - 2 - i; t++)
                res[t] = min2(prev[t - 1], min2(prev[t], prev[t + 1])) + wall[(size_t)(i + 1) * cols + b * block + t];
            for (int t = i + 1; t <= n - 2 - i; t++) prev[t] = res[t];
        }
        for (int t = 0; t < n; t++) want[b * block + t] = prev[t];
    }
    void *args[] = {&wall, &out, &cols, &steps};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("band", (uint32_t *)want, (uint32_t *)out, (size_t)cols);
    if (bad) fprintf(stderr, "band: grid %u block %u steps %d\n", grid, block, steps);
    free(wall); free(out); free(want); free(prev); free(res);
    return bad != 0;
}

static int check_corner(unsigned grid, unsigned bx, unsigned by, int steps, int shift, int limit)
{
    const ptxrtKernel *k = harness_find_kernel("corner");
    size_t n = (size_t)grid * bx * by;
    uint32_t *data = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 17 + bx * 5 + by + (uint64_t)steps);
    harness_fill_u32(&rng, data, n, 1000);
    for (size_t i = 0; i < n; i++) want[i] = data[i];
    for (unsigned b = 0; b < grid; b++) {
        uint32_t *s = want + (size_t)b * bx * by;
        for (int i = 0; i < steps; i++)
            for (int ty = i + 1; ty < (int)by; ty++) /* row i is not written in step i */
                for (unsigned tx = 0; tx < bx; tx++) {
                    int32_t shifted = (int32_t)((uint32_t)tx + (uint32_t)shift); /* wraps as add.s32 */
                    if (ty > i && shifted < limit - i) s[ty * bx + tx] += s[i * bx + tx] * 3u + (uint32_t)i;
                }
    }
    void *args[] = {&data, &steps, &shift, &limit};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(bx, by, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("corner", want, data, n);
    if (bad) fprintf(stderr, "corner: grid %u block %ux%u steps %d shift %d limit %d\n", grid, bx, by, steps, shift, limit);
    free(data); free(want);
    return bad != 0;
}

static int check_shifted(unsigned grid, unsigned block, int steps, int shift, int limit)
{
    const ptxrtKernel *k = harness_find_kernel("shifted");
    size_t n = (size_t)grid * block;
    uint32_t *data = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 3 + block + (uint64_t)steps);
    harness_fill_u32(&rng, data, n, 100000);
    for (size_t t = 0; t < n; t++) {
        int32_t sum = (int32_t)((uint32_t)(t % block) + (uint32_t)shift); /* wraps as add.s32 */
        uint32_t s = data[t];
        for (int i = 0; i < steps; i++)
            if (sum < limit) s = s * 3u + data[t] + (uint32_t)i;
        want[t] = s;
    }
    void *args[] = {&data, &steps, &shift, &limit};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("shifted", want, data, n);
    if (bad) fprintf(stderr, "shifted: grid %u block %u steps %d shift %d limit %d\n", grid, block, steps, shift, limit);
    free(data); free(want);
    return bad != 0;
}

static int check_cheapest(unsigned grid, unsigned block, int steps, int valid_lo, int valid_hi)
{
    const ptxrtKernel *k = harness_find_kernel("cheapest_path");
    int cols = (int)(grid * block), n = (int)block;
    int *cost = harness_xmalloc((size_t)(steps + 1) * cols * 4), *out = harness_xmalloc((size_t)cols * 4), *want = harness_xmalloc((size_t)cols * 4);
    int *row = harness_xmalloc(block * 4), *next = harness_xmalloc(block * 4), *updated = harness_xmalloc(block * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 41 + block * 3 + (uint64_t)steps);
    harness_fill_u32(&rng, (uint32_t *)cost, (size_t)(steps + 1) * cols, 20);
    for (unsigned b = 0; b < grid; b++) {
        for (int t = 0; t < n; t++) {
            row[t] = cost[b * block + t];
            next[t] = 0;
            updated[t] = 0;
        }
        for (int i = 0; i < steps; i++) {
            for (int t = 0; t < n; t++) {
                updated[t] = t >= i + 1 && t <= n - i - 2 && t >= valid_lo && t <= valid_hi;
                if (updated[t]) {
                    int l = t - 1 > valid_lo ? t - 1 : valid_lo, r = t + 1 < valid_hi ? t + 1 : valid_hi;
                    next[t] = min2(row[l], min2(row[t], row[r])) + cost[(size_t)(i + 1) * cols + b * block + t];
                }
            }
            if (i == steps - 1) break;
            for (int t = 0; t < n; t++)
                if (updated[t]) row[t] = next[t];
        }
        for (int t = 0; t < n; t++) want[b * block + t] = updated[t] ? next[t] : -1;
    }
    void *args[] = {&cost, &out, &cols, &steps, &valid_lo, &valid_hi};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("cheapest_path", (uint32_t *)want, (uint32_t *)out, (size_t)cols);
    if (bad) fprintf(stderr, "cheapest_path: grid %u block %u steps %d valid %d..%d\n", grid, block, steps, valid_lo, valid_hi);
    free(cost); free(out); free(want); free(row); free(next); free(updated);
    return bad != 0;
}

static int check_tiles(unsigned grid, int gap)
{
    enum { T = 16 };
    const ptxrtKernel *k = harness_find_kernel("tile_diagonals");
    int *cost = harness_xmalloc((size_t)grid * T * T * 4), *out = harness_xmalloc((size_t)grid * T * T * 4), *want = harness_xmalloc((size_t)grid * T * T * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 5 + (uint64_t)gap);
    harness_fill_u32(&rng, (uint32_t *)cost, (size_t)grid * T * T, 9);
    for (unsigned b = 0; b < grid; b++) {
        int h[T + 1][T + 1];
        const int *c = cost + (size_t)b * T * T;
        for (int i = 0; i <= T; i++)
            for (int j = 0; j <= T; j++)
                h[i][j] = i == 0 ? -j * gap : j == 0 ? -i * gap : max2(max2(h[i - 1][j - 1] + c[(i - 1) * T + j - 1], h[i][j - 1] - gap), h[i - 1][j] - gap);
        for (int r = 0; r < T; r++)
            for (int x = 0; x < T; x++) want[(size_t)b * T * T + r * T + x] = h[r + 1][x + 1];
    }
    void *args[] = {&cost, &out, &gap};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(T, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("tile_diagonals", (uint32_t *)want, (uint32_t *)out, (size_t)grid * T * T);
    if (bad) fprintf(stderr, "tile_diagonals: grid %u gap %d\n", grid, gap);
    free(cost); free(out); free(want);
    return bad != 0;
}

static int check_stepped(unsigned grid, unsigned block, int steps)
{
    const ptxrtKernel *k = harness_find_kernel("stepped_band");
    int n = (int)block, cols = (int)(grid * block);
    size_t threads = (size_t)grid * block, len = (size_t)(steps + 1) * cols;
    int *start = harness_xmalloc(threads * 4);
    float *in = harness_xmalloc(len * 4), *out = harness_xmalloc(threads * 4), *want = harness_xmalloc(threads * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)grid * 13 + block + (uint64_t)steps);
    harness_fill_u32(&rng, (uint32_t *)start, threads, (uint32_t)cols);
    for (size_t i = 0; i < len; i++) in[i] = (float)(i % 97) * 0.125f - 3.0f;
    for (size_t g = 0; g < threads; g++) {
        int tx = (int)(g % block), at = start[g];
        float acc = 0.0f;
        for (int i = 0; i < steps; i++) {
            if (tx >= i && tx < n - i) {
                float v = in[at], s = v;
                for (int j = 1; j <= 24; j++) s = fmaf(s, 0.5f, v * (float)j);
                acc += s;
            }
            at += cols;
        }
        want[g] = acc + (float)at;
    }
    void *args[] = {&start, &in, &out, &cols, &steps};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("stepped_band", (uint32_t *)want, (uint32_t *)out, threads);
    if (bad) fprintf(stderr, "stepped_band: grid %u block %u steps %d\n", grid, block, steps);
    free(start); free(in); free(out); free(want);
    return bad != 0;
}

static int check_window(unsigned grid, unsigned nx, unsigned ny, int steps)
{
    const ptxrtKernel *k = harness_find_kernel("window_flags");
    size_t cells = (size_t)nx * ny, n = grid * cells;
    int *data = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    for (size_t c = 0; c < n; c++) data[c] = (int)(c * 37 % 101) - 50;
    for (unsigned b = 0; b < grid; b++) {
        const int *d = data + b * cells;
        int s[16][16], hits[16][16] = {{0}};
        for (unsigned y = 0; y < ny; y++)
            for (unsigned x = 0; x < nx; x++) s[y][x] = d[y * nx + x];
        for (int i = 0; i < steps; i++)
            for (unsigned y = 0; y < ny; y++)
                for (unsigned x = 0; x < nx; x++)
                    if ((int)x >= i && (int)x < (int)nx - i && (int)y > i && (int)y < (int)ny - i) {
                        int v = s[y][x] * 2 + i;
                        if (v % 3 != 0) {
                            s[y][x] = v;
                            hits[y][x]++;
                        }
                    }
        for (unsigned y = 0; y < ny; y++)
            for (unsigned x = 0; x < nx; x++) want[b * cells + y * nx + x] = s[y][x] + 1000 * hits[y][x];
    }
    void *args[] = {&data, &steps};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(nx, ny, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("window_flags data", (uint32_t *)want, (uint32_t *)data, n);
    if (bad) fprintf(stderr, "window_flags: grid %u block %ux%u steps %d\n", grid, nx, ny, steps);
    free(data); free(want);
    return bad != 0;
}

int main(void)
{
    int shapes = 0, failures = 0;
    static const int diag[][2] = {{3, 64}, {2, 1}, {4, 2}, {5, 17}, {2, 33}};
    for (size_t s = 0; s < sizeof diag / sizeof diag[0]; s++, shapes++)
        failures += check_diagonal((unsigned)diag[s][0], diag[s][1]);
    /* steps: none, some, past the point where the band is empty */
    static const int band[][3] = {{2, 64, 10}, {3, 256, 100}, {1, 32, 0}, {4, 16, 20}, {2, 1, 3}};
    for (size_t s = 0; s < sizeof band / sizeof band[0]; s++, shapes++)
        failures += check_band((unsigned)band[s][0], (unsigned)band[s][1], band[s][2]);
    /* shifts: none, negative, near INT_MAX (tx + shift wraps for some threads) */
    static const int corner[][6] = {{2, 16, 16, 15, 0, 16}, {3, 8, 4, 5, -3, 6}, {2, 16, 8, 8, INT_MAX - 5, INT_MIN + 100},
                                    {2, 16, 8, 8, INT_MAX - 5, INT_MAX}, {1, 5, 3, 4, 100, 50}, {2, 12, 12, 20, 0, 12}};
    for (size_t s = 0; s < sizeof corner / sizeof corner[0]; s++, shapes++)
        failures += check_corner((unsigned)corner[s][0], (unsigned)corner[s][1], (unsigned)corner[s][2], corner[s][3], corner[s][4], corner[s][5]);
    /* (grid, block, steps, shift, limit): an interval, none, all; sums that wrap */
    static const int shifts[][5] = {{2, 64, 9, 0, 40}, {3, 32, 6, -10, 5}, {2, 128, 5, 7, 0}, {2, 64, 8, 3, 1000},
                                    {2, 64, 9, INT_MAX - 20, INT_MAX - 5}, {3, 100, 7, INT_MAX - 50, INT_MIN + 30}};
    for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++, shapes++)
        failures += check_shifted((unsigned)shifts[s][0], (unsigned)shifts[s][1], shifts[s][2], shifts[s][3], shifts[s][4]);
    /* (grid, block, steps, valid columns): the band empty early, narrow valid ranges, one step */
    static const int cheap[][5] = {{3, 64, 10, 0, 63}, {2, 256, 40, 5, 200}, {2, 32, 20, 0, 31}, {4, 16, 1, 3, 12}, {2, 128, 3, 100, 20}};
    for (size_t s = 0; s < sizeof cheap / sizeof cheap[0]; s++, shapes++)
        failures += check_cheapest((unsigned)cheap[s][0], (unsigned)cheap[s][1], cheap[s][2], cheap[s][3], cheap[s][4]);
    static const int tiles[][2] = {{5, 1}, {3, 3}};
    for (size_t s = 0; s < sizeof tiles / sizeof tiles[0]; s++, shapes++)
        failures += check_tiles((unsigned)tiles[s][0], tiles[s][1]);
    /* (grid, block, steps): bands that empty before the last step, a single step */
    static const int stepped[][3] = {{3, 64, 40}, {2, 256, 7}, {4, 32, 1}, {2, 16, 12}};
    for (size_t s = 0; s < sizeof stepped / sizeof stepped[0]; s++, shapes++)
        failures += check_stepped((unsigned)stepped[s][0], (unsigned)stepped[s][1], stepped[s][2]);
    /* (grid, nx, ny, steps): windows that empty (by columns or by rows) before the end */
    static const int window[][4] = {{3, 16, 16, 5}, {2, 16, 4, 9}, {2, 5, 16, 4}, {4, 8, 8, 0}, {2, 16, 16, 12}};
    for (size_t s = 0; s < sizeof window / sizeof window[0]; s++, shapes++)
        failures += check_window((unsigned)window[s][0], (unsigned)window[s][1], (unsigned)window[s][2], window[s][3]);
    return harness_finish("region_guards", shapes, failures);
}
