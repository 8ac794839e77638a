/* matrix_sm90_host.c: tests/kernels/matrix_sm90.ptx (hand-written). stmatrix stores 8x8
 * matrices of 16-bit elements whose rows lanes 8q..8q+7 address; lane l's register j holds
 * row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of matrix j (ISA 9.2 §9.7.14.5.16), or of
 * its transpose with .trans. movmatrix.trans hands each lane its fragment of the transpose
 * (§9.7.14.5.17). Single-bit wmma m8n8k128: D = C + popc(A row xor/and B column), wrapping
 * to 32 bits, with A row-major and B column-major in memory (element k of a row/column is bit
 * k % 32 of word k / 32), strides larger than the tile and C/D in both layouts. All exact. */
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

struct wmma_b1_case {
    const char *kernel;
    int and_op, c_col, d_col;
    uint32_t lda, ldb, ldc;
};

static int bit_at(const uint32_t *words, uint32_t k) { return (words[k / 32] >> (k % 32)) & 1; }

/* Index of element (r, c) of an 8x8 .s32 matrix with stride ld in either layout. */
static uint32_t at8(int col_major, uint32_t ld, int r, int c) { return col_major ? c * ld + r : r * ld + c; }

static int check_wmma_b1(harness_rng *rng, const struct wmma_b1_case *t)
{
    const ptxrtKernel *k = harness_find_kernel(t->kernel);
    uint32_t na = t->lda / 4, nb = t->ldb / 4, nc = 8 * t->ldc;
    uint32_t *a = harness_xmalloc(na * 4), *b = harness_xmalloc(nb * 4), *c = harness_xmalloc(nc * 4);
    uint32_t *d = harness_xmalloc(nc * 4), *exp = harness_xmalloc(nc * 4);
    for (uint32_t i = 0; i < na; i++) a[i] = harness_rng_u32(rng);
    /* Sparse and dense words so that popc spans its range. */
    for (uint32_t i = 0; i < nb; i++) b[i] = i % 3 == 0 ? harness_rng_u32(rng) & harness_rng_u32(rng) : harness_rng_u32(rng) | harness_rng_u32(rng);
    /* Every other element of C is just below INT32_MAX or -1 so that the sum wraps. */
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t r = harness_rng_u32(rng);
        c[i] = i % 4 == 0 ? 0x7fffffffu - r % 64 : i % 4 == 2 ? 0xffffffffu - r % 64 : r;
    }
    memcpy(d, c, nc * 4);
    memcpy(exp, c, nc * 4);
    for (int r = 0; r < 8; r++)
        for (int n = 0; n < 8; n++) {
            uint32_t ones = 0;
            for (uint32_t kk = 0; kk < 128; kk++) {
                int x = bit_at(a, r * t->lda + kk), y = bit_at(b, n * t->ldb + kk);
                ones += t->and_op ? (x & y) : (x ^ y);
            }
            exp[at8(t->d_col, t->ldc, r, n)] = c[at8(t->c_col, t->ldc, r, n)] + ones;
        }
    uint32_t lda = t->lda, ldb = t->ldb, ldc = t->ldc;
    void *args[] = {&a, &b, &c, &d, &lda, &ldb, &ldc};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(32, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32(t->kernel, exp, d, nc);
    free(a); free(b); free(c); free(d); free(exp);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x5137u);
    int rc = 0;
    rc |= harness_finish("stmatrix", 1, check_stmatrix(&rng));
    rc |= harness_finish("movmatrix", 2, check_movmatrix(&rng, 1) + check_movmatrix(&rng, 4));
    /* kernel, .and, C and D column-major, strides (elements: bits of A and B, words of C) */
    const struct wmma_b1_case cases[] = {
        {"wmma_b1_xor_global", 0, 0, 0, 192, 160, 12},
        {"wmma_b1_and_global", 1, 1, 1, 256, 128, 9},
        {"wmma_b1_and_shared", 1, 0, 1, 160, 224, 16},
        {"wmma_b1_xor_shared", 0, 1, 0, 224, 192, 11},
    };
    int b1_failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) b1_failures += check_wmma_b1(&rng, &cases[i]);
    rc |= harness_finish("wmma_b1", (int)(sizeof cases / sizeof cases[0]), b1_failures);
    return rc;
}
