/* warp_runs_host.c: tests/kernels/warp_runs.ptx (NVRTC). Chains of regions joined by
 * warp collectives, run warp by warp where the block is whole warps along x and region by
 * region elsewhere (16 x 4 and 48 x 2 blocks). References follow the ISA text: shfl's
 * source-lane rule, ballot, vote.all and redux.add over the 32 lanes. All exact (the
 * doubles are added in the butterfly's own order). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "shfl_reference.h"

static int check_block_scan(harness_rng *rng, int n, unsigned bx, unsigned by)
{
    const ptxrtKernel *k = harness_find_kernel("block_scan");
    unsigned threads = bx * by, grid = (unsigned)((n + (int)threads - 1) / (int)threads);
    int *in = harness_xmalloc((size_t)n * sizeof(int)), *out = harness_xmalloc((size_t)n * sizeof(int));
    uint32_t *exp = harness_xmalloc((size_t)n * 4);
    for (int i = 0; i < n; i++) in[i] = (int)(harness_rng_u32(rng) % 1000);
    for (int i = 0; i < n; i++) exp[i] = (uint32_t)in[i] + (i % (int)threads ? exp[i - 1] : 0);
    memset(out, 0xab, (size_t)n * sizeof(int));
    void *args[] = {&n, &in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(bx, by, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("block_scan", exp, (uint32_t *)out, (size_t)n);
    if (bad) fprintf(stderr, "block_scan n=%d block=%ux%u\n", n, bx, by);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int check_mixed_chain(harness_rng *rng, unsigned grid, unsigned block, int nwarps)
{
    const ptxrtKernel *k = harness_find_kernel("mixed_chain");
    size_t lanes = (size_t)nwarps * 32;
    double *x = harness_xmalloc(lanes * sizeof(double)), *sum = harness_xmalloc((size_t)nwarps * sizeof(double));
    long long *y = harness_xmalloc(lanes * sizeof(long long)), *ysum = harness_xmalloc((size_t)nwarps * sizeof(long long));
    uint32_t *bits = harness_xmalloc(lanes * 4), *exp_bits = harness_xmalloc(lanes * 4);
    double *exp_sum = harness_xmalloc((size_t)nwarps * sizeof(double));
    uint64_t *exp_ysum = harness_xmalloc((size_t)nwarps * 8);
    for (size_t i = 0; i < lanes; i++) {
        x[i] = (double)harness_rng_float(rng, -4.0f, 3.0f) * (1.0 + (double)(i % 7) * 1e-9);
        y[i] = (long long)harness_rng_u64(rng) >> (i % 3 ? 1 : 40);
        if (i % 11 == 0) y[i] = -y[i];
    }
    for (int w = 0; w < nwarps; w++) {
        double d[32], dn[32];
        uint64_t q[32], qn[32];
        int big[32];
        for (int l = 0; l < 32; l++) {
            d[l] = x[w * 32 + l];
            q[l] = (uint64_t)y[w * 32 + l];
            big[l] = y[w * 32 + l] > 0;
        }
        for (int kk = 16; kk > 0; kk /= 2) {
            for (int l = 0; l < 32; l++) {
                dn[l] = d[l] + d[l ^ kk];
                qn[l] = q[l] ^ (q[l ^ kk] * 3u);
            }
            memcpy(d, dn, sizeof d);
            memcpy(q, qn, sizeof q);
        }
        uint32_t ballot = 0, redux = 0;
        int all = 1;
        for (int l = 0; l < 32; l++) {
            ballot |= (uint32_t)(d[l] > 0.0) << l;
            all &= q[l] != 7;
            redux += (uint32_t)(q[l] & 0xff);
        }
        for (int l = 0; l < 32; l++) exp_bits[w * 32 + l] = big[l] ? ballot ^ redux ^ (uint32_t)all : ~ballot;
        exp_sum[w] = d[5];
        exp_ysum[w] = q[5];
    }
    void *args[] = {&nwarps, &x, &y, &sum, &ysum, &bits};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("mixed_chain bits", exp_bits, bits, lanes);
    bad += harness_compare_u32("mixed_chain double sums", (const uint32_t *)exp_sum, (const uint32_t *)sum, (size_t)nwarps * 2);
    bad += harness_compare_u32("mixed_chain 64-bit xors", (const uint32_t *)exp_ysum, (const uint32_t *)ysum, (size_t)nwarps * 2);
    if (bad) fprintf(stderr, "mixed_chain grid=%u block=%u nwarps=%d\n", grid, block, nwarps);
    free(x); free(sum); free(y); free(ysum); free(bits); free(exp_bits); free(exp_sum); free(exp_ysum);
    return bad != 0;
}

static int check_selected_chains(harness_rng *rng, unsigned grid, unsigned block, unsigned sel)
{
    const ptxrtKernel *k = harness_find_kernel("selected_chains");
    size_t total = (size_t)grid * block;
    int *in = harness_xmalloc(total * sizeof(int)), *out = harness_xmalloc(total * sizeof(int));
    uint32_t *exp = harness_xmalloc(total * 4), *v = harness_xmalloc(total * 4), *u = harness_xmalloc(total * 4);
    unsigned nw = block / 32, c = ((32u - 16u) << 8) | 0x1f;
    for (size_t i = 0; i < total; i++) in[i] = (int)(harness_rng_u32(rng) % 100000);
    for (size_t i = 0; i < total; i++) {
        unsigned t = (unsigned)(i % block), lane = t % 32, warp = t / 32;
        v[i] = (uint32_t)in[i] + (lane && (sel >> warp) & 1 ? v[i - 1] : 0);
    }
    for (size_t i = 0; i < total; i++) {
        unsigned t = (unsigned)(i % block), warp = t / 32;
        size_t base = i - t;
        u[i] = v[i] + v[base + ((warp + 1) % nw) * 32];
    }
    memcpy(exp, u, total * 4);
    for (size_t w0 = 0; w0 < total; w0 += 32) {
        uint32_t a[16];
        for (unsigned l = 0; l < 16; l++) a[l] = exp[w0 + l] + exp[w0 + shfl_src(SHFL_DOWN, l, 8, c)];
        for (unsigned l = 0; l < 16; l++) exp[w0 + l] = a[l] + a[shfl_src(SHFL_DOWN, l, 4, c)];
    }
    void *args[] = {&sel, &in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("selected_chains", exp, (uint32_t *)out, total);
    if (bad) fprintf(stderr, "selected_chains grid=%u block=%u sel=%#x\n", grid, block, sel);
    free(in); free(out); free(exp); free(v); free(u);
    return bad != 0;
}

static int check_row_shift(harness_rng *rng, int rows, int cols, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("row_shift");
    unsigned per_block = block / 32, grid = (unsigned)(rows + (int)per_block - 1) / per_block;
    size_t n = (size_t)rows * (size_t)cols;
    float *in = harness_xmalloc(n * sizeof(float)), *out = harness_xmalloc(n * sizeof(float)), *exp = harness_xmalloc(n * sizeof(float));
    harness_fill_float(rng, in, n, -50.0f, 50.0f);
    for (int r = 0; r < rows; r++) {
        float m = -1.0f / 0.0f;
        for (int j = 0; j < cols; j++) m = in[(size_t)r * cols + j] > m ? in[(size_t)r * cols + j] : m;
        for (int j = 0; j < cols; j++) exp[(size_t)r * cols + j] = in[(size_t)r * cols + j] - m;
    }
    void *args[] = {&rows, &cols, &in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("row_shift", (const uint32_t *)exp, (const uint32_t *)out, n);
    if (bad) fprintf(stderr, "row_shift rows=%d cols=%d block=%u\n", rows, cols, block);
    free(in); free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x5C4Bu);
    int rc = 0, f = 0;
    /* Whole warps along x (1D and 2D), then 16 x 4 and 48 x 2 (region by region). */
    f += check_block_scan(&rng, 100000, 256, 1) + check_block_scan(&rng, 5000, 32, 1) + check_block_scan(&rng, 77777, 1024, 1);
    f += check_block_scan(&rng, 4096, 64, 2) + check_block_scan(&rng, 3001, 96, 1) + check_block_scan(&rng, 10000, 16, 4);
    f += check_block_scan(&rng, 999, 48, 2);
    rc |= harness_finish("block_scan", 7, f);
    /* The last warps exit before the chain (15 of 16, 11 of 16), or none do. */
    f = check_mixed_chain(&rng, 4, 128, 15) + check_mixed_chain(&rng, 3, 64, 6) + check_mixed_chain(&rng, 2, 256, 11);
    rc |= harness_finish("mixed_chain", 3, f);
    f = check_selected_chains(&rng, 3, 256, 0x5) + check_selected_chains(&rng, 2, 64, 0x1) + check_selected_chains(&rng, 2, 1024, 0xffffffffu) +
        check_selected_chains(&rng, 4, 128, 0) + check_selected_chains(&rng, 2, 96, 0x6);
    rc |= harness_finish("selected_chains", 5, f);
    /* Rows shorter and longer than a warp; the last block's last warps without a row. */
    f = check_row_shift(&rng, 37, 300, 256) + check_row_shift(&rng, 64, 17, 128) + check_row_shift(&rng, 9, 1000, 96);
    rc |= harness_finish("row_shift", 3, f);
    return rc;
}
