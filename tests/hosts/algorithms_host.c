/* algorithms_host.c: tests/kernels/algorithms.ptx (NVRTC): block scan (dynamic shared
 * memory, barriers in a loop), tiled matrix multiply on a 2D grid, bitonic sort in shared
 * memory (barriers in nested loops), and a 3D grid of 3D blocks; host references. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "harness.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int check_scan(harness_rng *rng, int n, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("block_scan");
    unsigned grid = (unsigned)((n + (int)block - 1) / (int)block);
    int *in = harness_xmalloc((size_t)n * 4);
    uint32_t *out = harness_xmalloc((size_t)n * 4), *exp = harness_xmalloc((size_t)n * 4);
    for (int i = 0; i < n; i++) in[i] = (int)(harness_rng_u32(rng) % 201u) - 100;
    for (int i = 0; i < n; i++) exp[i] = (uint32_t)in[i] + ((i % (int)block) ? exp[i - 1] : 0u);
    void *args[] = {&in, &out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 2 * block * sizeof(int), NULL));
    size_t bad = harness_compare_u32("block_scan", exp, out, (size_t)n);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int check_matmul(harness_rng *rng, int n)
{
    const ptxrtKernel *k = harness_find_kernel("matmul");
    float *a = harness_xmalloc((size_t)n * n * 4), *b = harness_xmalloc((size_t)n * n * 4), *c = harness_xmalloc((size_t)n * n * 4);
    double *exp = harness_xmalloc((size_t)n * n * 8), *tol = harness_xmalloc((size_t)n * n * 8);
    harness_fill_float(rng, a, (size_t)n * n, -1.0f, 1.0f);
    harness_fill_float(rng, b, (size_t)n * n, -1.0f, 1.0f);
    for (int r = 0; r < n; r++)
        for (int col = 0; col < n; col++) {
            double s = 0, sa = 0;
            for (int kk = 0; kk < n; kk++) { s += (double)a[r * n + kk] * b[kk * n + col]; sa += fabs((double)a[r * n + kk] * b[kk * n + col]); }
            exp[r * n + col] = s;
            tol[r * n + col] = 1.01 * n * 0x1p-24 * sa + 1e-30;
        }
    void *args[] = {&a, &b, &c, &n};
    unsigned g = (unsigned)(n + 15) / 16;
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(g, g, 1), harness_dim3(16, 16, 1), args, 0, NULL));
    size_t bad = harness_compare_f32_bound("matmul", exp, c, tol, (size_t)n * n);
    free(a); free(b); free(c); free(exp); free(tol);
    return bad != 0;
}

static int check_bitonic(harness_rng *rng, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("bitonic");
    size_t n = (size_t)grid * 2 * block;
    uint32_t *keys = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) keys[i] = exp[i] = harness_rng_u32(rng) % 1000u;
    for (unsigned b = 0; b < grid; b++) qsort(exp + (size_t)b * 2 * block, 2 * block, 4, cmp_u32);
    void *args[] = {&keys};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 2 * block * 4, NULL));
    size_t bad = harness_compare_u32("bitonic", exp, keys, n);
    free(keys); free(exp);
    return bad != 0;
}

static int check_grid3d(ptxrtDim3 grid, ptxrtDim3 block)
{
    const ptxrtKernel *k = harness_find_kernel("grid3d");
    unsigned w = grid.x * block.x, h = grid.y * block.y, d = grid.z * block.z;
    size_t n = (size_t)w * h * d;
    uint32_t *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (unsigned z = 0; z < d; z++)
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++) exp[((size_t)z * h + y) * w + x] = x * 1000000u + y * 1000u + z;
    void *args[] = {&out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, grid, block, args, 0, NULL));
    size_t bad = harness_compare_u32("grid3d", exp, out, n);
    free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0xA160u);
    int rc = 0;
    int f = check_scan(&rng, 1000, 32) + check_scan(&rng, 5000, 96) + check_scan(&rng, 100000, 256) + check_scan(&rng, 4097, 1024);
    rc |= harness_finish("block_scan", 4, f);
    f = check_matmul(&rng, 16) + check_matmul(&rng, 70) + check_matmul(&rng, 128);
    rc |= harness_finish("matmul", 3, f);
    f = check_bitonic(&rng, 1, 32) + check_bitonic(&rng, 20, 256) + check_bitonic(&rng, 3, 512);
    rc |= harness_finish("bitonic", 3, f);
    f = check_grid3d(harness_dim3(3, 2, 4), harness_dim3(8, 4, 2)) + check_grid3d(harness_dim3(1, 5, 2), harness_dim3(32, 3, 3));
    rc |= harness_finish("grid3d", 2, f);
    return rc;
}
