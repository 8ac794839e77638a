/* stencil_host.c: runs tests/kernels/stencil.ptx (NVRTC), barrier-free 2D kernels that
 * ptx2llvm runs as runs of neighbouring blocks fused along x, over grids whose rows the
 * runtime splits between workers at arbitrary points, and checks them bit for bit.
 *
 *   stencil(w, h, in, out)   5-point stencil with an interior guard
 *   tag(w, h, out)           out[z][y][x] = x * 131 + y * 7 + z (a 3D grid)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_stencil(harness_rng *rng, int w, int h, unsigned bx, unsigned by)
{
    const ptxrtKernel *k = harness_find_kernel("stencil");
    size_t n = (size_t)w * h;
    float *in = harness_xmalloc(n * 4), *out = harness_xmalloc(n * 4), *expect = harness_xmalloc(n * 4);
    harness_fill_float(rng, in, n, -10.0f, 10.0f);
    for (size_t i = 0; i < n; i++) out[i] = expect[i] = -1.0f;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            int i = y * w + x;
            /* The same operations in the same order as the kernel (no contraction). */
            volatile float s = in[i] + in[i - 1];
            s = s + in[i + 1];
            s = s + in[i - w];
            s = s + in[i + w];
            expect[i] = 0.2f * s;
        }
    void *args[] = {&w, &h, &in, &out};
    ptxrtDim3 grid = harness_dim3(((unsigned)w + bx - 1) / bx, ((unsigned)h + by - 1) / by, 1);
    PTXRT_CHECK(ptxrtLaunchKernel(k, grid, harness_dim3(bx, by, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("stencil", (const uint32_t *)expect, (const uint32_t *)out, n);
    if (bad) fprintf(stderr, "stencil w=%d h=%d block=%ux%u\n", w, h, bx, by);
    free(in);
    free(out);
    free(expect);
    return bad != 0;
}

static int check_tag(int w, int h, unsigned bx, unsigned by, unsigned gz)
{
    const ptxrtKernel *k = harness_find_kernel("tag");
    size_t n = (size_t)w * h * gz;
    uint32_t *out = harness_xmalloc(n * 4), *expect = harness_xmalloc(n * 4);
    for (unsigned z = 0; z < gz; z++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) expect[((size_t)z * h + y) * w + x] = (uint32_t)(x * 131 + y * 7) + z;
    memset(out, 0xff, n * 4);
    void *args[] = {&w, &h, &out};
    ptxrtDim3 grid = harness_dim3(((unsigned)w + bx - 1) / bx, ((unsigned)h + by - 1) / by, gz);
    PTXRT_CHECK(ptxrtLaunchKernel(k, grid, harness_dim3(bx, by, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("tag", expect, out, n);
    if (bad) fprintf(stderr, "tag w=%d h=%d block=%ux%u z=%u\n", w, h, bx, by, gz);
    free(out);
    free(expect);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x57e9);
    int bad = 0, n = 0;
    static const int sizes[][2] = {{64, 64}, {1000, 77}, {333, 129}, {2048, 40}, {17, 300}};
    static const unsigned blocks[][2] = {{16, 16}, {32, 8}, {7, 5}, {256, 1}, {1, 64}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            bad |= check_stencil(&rng, sizes[s][0], sizes[s][1], blocks[b][0], blocks[b][1]);
            bad |= check_tag(sizes[s][0], sizes[s][1], blocks[b][0], blocks[b][1], 1 + (unsigned)(s % 3));
            n++;
        }
    }
    if (bad) return 1;
    printf("stencil: %d shapes OK\n", n);
    return 0;
}
