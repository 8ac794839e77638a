/* matrix_sm90_host.c: tests/kernels/matrix_sm90.ptx (hand-written). stmatrix stores 8x8
 * matrices of 16-bit elements whose rows lanes 8q..8q+7 address; lane l's register j holds
 * row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of matrix j (ISA 9.2 §9.7.14.5.16), or of
 * its transpose with .trans. movmatrix.trans hands each lane its fragment of the transpose
 * (§9.7.14.5.17). All exact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Element (r, c) of matrix j as held in the registers v[j][lane] (ldmatrix layout). */
static uint16_t held(const uint32_t *regs, int r, int c)
{
    int lane = 4 * r + c / 2;
    return (uint16_t)(regs[lane] >> (16 * (c % 2)));
}

static int check_stmatrix(harness_rng *rng)
{
    const ptxrtKernel *k = harness_find_kernel("stmatrix_forms");
    uint32_t in[14 * 32];
    uint16_t out[7 * 256], exp[7 * 256];
    for (int i = 0; i < 14 * 32; i++) in[i] = harness_rng_u32(rng);
    memset(exp, 0, sizeof exp);
    /* tile t: (first register, matrices, transposed) */
    const int first[7] = {0, 1, 3, 7, 8, 10, 3}, num[7] = {1, 2, 4, 1, 2, 4, 4}, trans[7] = {0, 0, 0, 1, 1, 1, 0};
    for (int t = 0; t < 7; t++)
        for (int q = 0; q < num[t]; q++)
            for (int r = 0; r < 8; r++) {
                int tile_row = (5 * (8 * q + r) + 3) % 32;
                for (int c = 0; c < 8; c++) {
                    const uint32_t *regs = in + 32 * (first[t] + q);
                    exp[t * 256 + tile_row * 8 + c] = trans[t] ? held(regs, c, r) : held(regs, r, c);
                }
            }
    uint32_t *src = in;
    uint16_t *dst = out;
    void *args[] = {&src, &dst};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(32, 1, 1), args, 0, NULL));
    uint32_t e32[7 * 256], a32[7 * 256];
    for (int i = 0; i < 7 * 256; i++) e32[i] = exp[i], a32[i] = out[i];
    return harness_compare_u32("stmatrix (x1, x2, x4, x1.trans, x2.trans, x4.trans, x4 generic)", e32, a32, 7 * 256) != 0;
}

static int check_movmatrix(harness_rng *rng, unsigned warps)
{
    const ptxrtKernel *k = harness_find_kernel("movmatrix_trans");
    unsigned n = 32 * warps;
    uint32_t *in = harness_xmalloc(n * 4), *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (unsigned i = 0; i < n; i++) in[i] = harness_rng_u32(rng);
    for (unsigned w = 0; w < warps; w++)
        for (int l = 0; l < 32; l++) {
            int r = l / 4, c = 2 * (l % 4);
            /* this lane's fragment of the transpose: T[r][c] = M[c][r] */
            exp[32 * w + l] = held(in + 32 * w, c, r) | (uint32_t)held(in + 32 * w, c + 1, r) << 16;
        }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(n, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("movmatrix", exp, out, n);
    free(in); free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x5137u);
    int rc = 0;
    rc |= harness_finish("stmatrix", 1, check_stmatrix(&rng));
    rc |= harness_finish("movmatrix", 2, check_movmatrix(&rng, 1) + check_movmatrix(&rng, 4));
    return rc;
}
