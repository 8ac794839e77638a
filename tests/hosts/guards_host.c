/* guards_host.c: runs tests/kernels/guards.ptx (hand-written PTX) whose entry guards
 * ptx2llvm turns into thread-loop bounds, and checks exactly which threads ran, for launch
 * shapes and offsets where the guarded index wraps inside a block (the compiler must then
 * fall back to testing each thread) and where it does not.
 *
 *   signed_range(out, off, lo, hi)    stay if lo <= i < hi, i = g + off (s32, wrapping)
 *   unsigned_range(out, off, lo, hi)  stay if lo < i <= hi (u32, wrapping)
 *   box(out, nx, ny, nz, flag)        3D guard + uniform flag + a non-affine condition
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SENTINEL 0xdeadbeefu

static int compare(const char *what, const uint32_t *expect, const uint32_t *got, size_t n, long long a, long long b, long long c)
{
    size_t bad = harness_compare_u32(what, expect, got, n);
    if (bad) fprintf(stderr, "%s: parameters %lld %lld %lld\n", what, a, b, c);
    return bad != 0;
}

static int check_range(int is_signed, unsigned grid, unsigned block, uint32_t off, uint32_t lo, uint32_t hi)
{
    const ptxrtKernel *k = harness_find_kernel(is_signed ? "signed_range" : "unsigned_range");
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 4), *expect = harness_xmalloc(n * 4);
    for (size_t g = 0; g < n; g++) {
        uint32_t i = (uint32_t)g + off;
        int stay = is_signed ? ((int32_t)lo <= (int32_t)i && (int32_t)i < (int32_t)hi) : (lo < i && i <= hi);
        out[g] = SENTINEL;
        expect[g] = stay ? i : SENTINEL;
    }
    void *args[] = {&out, &off, &lo, &hi};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    int bad = compare(is_signed ? "signed_range" : "unsigned_range", expect, out, n, (int32_t)off, (int32_t)lo, (int32_t)hi);
    free(out);
    free(expect);
    return bad;
}

static int check_box(ptxrtDim3 grid, ptxrtDim3 block, unsigned nx, unsigned ny, unsigned nz, unsigned flag)
{
    const ptxrtKernel *k = harness_find_kernel("box");
    size_t ex = (size_t)grid.x * block.x, ey = (size_t)grid.y * block.y, ez = (size_t)grid.z * block.z;
    size_t n = ex * ey * ez;
    uint32_t *out = harness_xmalloc(n * 4), *expect = harness_xmalloc(n * 4);
    for (size_t z = 0; z < ez; z++)
        for (size_t y = 0; y < ey; y++)
            for (size_t x = 0; x < ex; x++) {
                size_t at = (z * ey + y) * ex + x;
                int stay = x < nx && y > 0 && (int)y < (int)ny && z < nz && !flag && x * x != 49;
                out[at] = SENTINEL;
                expect[at] = stay ? (uint32_t)(1 + x + 1000 * y + 1000000 * z) : SENTINEL;
            }
    void *args[] = {&out, &nx, &ny, &nz, &flag};
    PTXRT_CHECK(ptxrtLaunchKernel(k, grid, block, args, 0, NULL));
    int bad = compare("box", expect, out, n, nx, ny, nz * 10 + flag);
    free(out);
    free(expect);
    return bad;
}

int main(void)
{
    int bad = 0, cases = 0;
    static const unsigned shapes[][2] = {{1, 32}, {3, 96}, {9, 128}, {5, 33}, {2, 1024}};
    /* Offsets: none, negative, and near the signed/unsigned wrap points (some blocks cross them). */
    static const int64_t offs[] = {0, -300, INT_MAX - 200, (int64_t)UINT32_MAX - 200, INT_MIN + 5};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
            uint32_t off = (uint32_t)offs[o];
            unsigned n = shapes[s][0] * shapes[s][1];
            /* Bounds inside, around and outside the offset range. */
            uint32_t bounds[][2] = {
                {off + 7, off + n - 5},
                {off + n / 2, off + n / 2 + 1},
                {off, off + n},
                {off + n, off},
                {(uint32_t)INT_MIN, (uint32_t)INT_MAX},
                {0, UINT32_MAX},
            };
            for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
                bad |= check_range(1, shapes[s][0], shapes[s][1], off, bounds[b][0], bounds[b][1]);
                bad |= check_range(0, shapes[s][0], shapes[s][1], off, bounds[b][0], bounds[b][1]);
                cases += 2;
            }
        }
    }
    bad |= check_box(harness_dim3(3, 2, 2), harness_dim3(8, 4, 2), 20, 7, 3, 0);
    bad |= check_box(harness_dim3(3, 2, 2), harness_dim3(8, 4, 2), 20, 7, 3, 1);
    bad |= check_box(harness_dim3(2, 3, 1), harness_dim3(32, 4, 1), 64, 12, 1, 0);
    bad |= check_box(harness_dim3(4, 1, 3), harness_dim3(5, 7, 3), 17, 5, 8, 0);
    bad |= check_box(harness_dim3(1, 1, 1), harness_dim3(16, 16, 1), 0, 16, 1, 0);
    cases += 5;
    if (bad) return 1;
    printf("guards: %d cases OK\n", cases);
    return 0;
}
