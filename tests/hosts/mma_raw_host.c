/* mma_raw_host.c: tests/kernels/mma_raw.ptx (NVRTC). One mma.sync per warp on raw bits
 * (random patterns with many zeros, infinities, NaNs, subnormals and values that overflow
 * an f16 D) for each dense floating-point form, against the rule ptx2llvm gives them (the
 * ISA fixes neither the order of the additions nor the rounding of partial sums): every
 * product of two multiplicands exact (rounded once to f32 where it underflows or overflows),
 * the sum from C adding the products in K order, each addition rounded to nearest f32; an
 * f16 D rounded to nearest even. Bit for bit, but a NaN matches any NaN (the payload of a
 * sum of two NaNs is the CPU's). Blocks of whole warps complete the instruction in the
 * block function, a block of 48 threads through the runtime's scheduler (its second warp
 * is partial, so its results are not compared): both give these results. Fragment
 * positions are the ISA's tables (§9.7.14.5.8-11), written here for the m16n8 shapes. */
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef enum { F16, BF16, TF32, F32 } elem;

typedef struct {
    const char *name;
    int k;
    elem ab, c, d;
    int na, nb, nc, nd; /* registers per lane */
} form;

static const form FORMS[] = {
    {"mma_k16_f32_f16", 16, F16, F32, F32, 4, 2, 4, 4},
    {"mma_k16_f16_f16", 16, F16, F16, F16, 4, 2, 2, 2},
    {"mma_k8_f32_f16", 8, F16, F32, F32, 2, 1, 4, 4},
    {"mma_k8_f16_f16", 8, F16, F16, F16, 2, 1, 2, 2},
    {"mma_k16_f32_bf16", 16, BF16, F32, F32, 4, 2, 4, 4},
    {"mma_k8_f32_bf16", 8, BF16, F32, F32, 2, 1, 4, 4},
    {"mma_k8_f32_tf32", 8, TF32, F32, F32, 4, 2, 4, 4},
    {"mma_k4_f32_tf32", 4, TF32, F32, F32, 2, 1, 4, 4},
};

static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t to_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static float f16_value(uint32_t h)
{
    uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 31, man = h & 0x3ff;
    if (exp == 0) return from_bits(sign | to_bits((float)man * 0x1p-24f));
    if (exp == 31) return from_bits(sign | 0x7f800000u | man << 13);
    return from_bits(sign | (exp + 112) << 23 | man << 13);
}

/* Round to nearest even; a NaN stays a NaN (its payload is not compared). */
static uint32_t f16_bits(float x)
{
    if (isnan(x)) return 0x7e00;
    uint32_t sign = (to_bits(x) >> 16) & 0x8000;
    double a = fabs((double)x);
    if (a >= 65520.0) return sign | 0x7c00; /* halfway above the largest finite: infinity */
    if (a < 0x1p-14) return sign | (uint32_t)nearbyint(a * 0x1p24); /* subnormal quanta */
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    uint32_t mant = (uint32_t)nearbyint(m * 2048.0); /* 11 bits, may round up to 2048 */
    if (mant == 2048) { mant = 1024; e++; }
    return sign | (uint32_t)(e - 1 + 15) << 10 | (mant - 1024);
}

/* Element i of a lane's fragment registers of type t. */
static float element(elem t, const uint32_t *regs, int i)
{
    switch (t) {
    case F16: return f16_value((regs[i / 2] >> (16 * (i % 2))) & 0xffff);
    case BF16: return from_bits(((regs[i / 2] >> (16 * (i % 2))) & 0xffff) << 16);
    case TF32: return from_bits(regs[i] & 0xffffe000u);
    default: return from_bits(regs[i]);
    }
}

/* (row, col) of element i of lane `lane`'s fragment: A (role 0, 16 x k), B (1, k x 8),
 * C/D (2, 16 x 8). */
static void position(int role, elem t, int k, int lane, int i, int *row, int *col)
{
    int g = lane >> 2, tig = lane % 4;
    if (role == 2) { *row = g + 8 * (i / 2); *col = 2 * tig + i % 2; return; }
    if (t == TF32) {
        if (role == 0) { *row = g + 8 * (i % 2); *col = tig + 4 * (i / 2); }
        else { *row = tig + 4 * i; *col = g; }
        (void)k;
        return;
    }
    if (role == 0) { *row = g + 8 * ((i / 2) % 2); *col = 2 * tig + i % 2 + 8 * (i / 4); }
    else { *row = 2 * tig + i % 2 + 8 * (i / 2); *col = g; }
}

static int per_reg(elem t) { return t == F16 || t == BF16 ? 2 : 1; }

/* Raw 16-bit patterns: a quarter random, the rest corners and moderate values. */
static uint32_t half_bits(harness_rng *rng, elem t)
{
    uint32_t r = harness_rng_u32(rng), pick = r % 16, low = (r >> 8) & 0x3ff, sign = (r >> 20 & 1) << 15;
    if (t == BF16) {
        switch (pick) {
        case 0: return sign;                               /* zero */
        case 1: return sign | 0x7f80;                      /* infinity */
        case 2: return sign | 0x7f80 | (low & 0x7f) | 1;   /* NaN */
        case 3: return sign | (low & 0x7f);                /* subnormal */
        case 4: return sign | 0x7f00 | (low & 0x7f);       /* huge */
        case 5: case 6: case 7: return (r >> 12) & 0xffff; /* anything */
        default: return sign | (0x3c00 + (low & 0x1ff));   /* around 1 */
        }
    }
    switch (pick) {
    case 0: return sign;
    case 1: return sign | 0x7c00;
    case 2: return sign | 0x7c00 | low | 1;
    case 3: return sign | low;                              /* subnormal */
    case 4: return sign | 0x7800 | low;                     /* 2^15 and up: sums overflow f16 */
    case 5: case 6: case 7: return (r >> 12) & 0xffff;
    default: return sign | (0x3800 + (low & 0x3ff));       /* 0.5 to 2 */
    }
}

static uint32_t word_bits(harness_rng *rng, elem t)
{
    if (t == F16 || t == BF16) return half_bits(rng, t) | half_bits(rng, t) << 16;
    uint32_t r = harness_rng_u32(rng), sign = r & 0x80000000u;
    switch (r % 12) {
    case 0: return sign;
    case 1: return sign | 0x7f800000u;
    case 2: return sign | 0x7f800000u | (r >> 9) | 1;
    case 3: return sign | (r & 0x7fffff);                       /* subnormal */
    case 4: return sign | 0x7e000000u | (r & 0xffffff);         /* huge */
    case 5: return sign | 0x00800000u | (r & 0x7fffff);         /* smallest normals */
    case 6: case 7: return harness_rng_u32(rng);
    default: return sign | (0x3f000000u + (r & 0xffffff));     /* 0.5 to 2 */
    }
}

static int same(elem t, uint32_t got, uint32_t want)
{
    if (t == F32) return got == want || (isnan(from_bits(got)) && isnan(from_bits(want)));
    for (int h = 0; h < 2; h++) {
        uint32_t g = got >> (16 * h) & 0xffff, w = want >> (16 * h) & 0xffff;
        int gn = (g & 0x7c00) == 0x7c00 && (g & 0x3ff), wn = (w & 0x7c00) == 0x7c00 && (w & 0x3ff);
        if (g != w && !(gn && wn)) return 0;
    }
    return 1;
}

static int check(harness_rng *rng, const form *f, unsigned grid, unsigned block)
{
    const ptxrtKernel *kern = harness_find_kernel(f->name);
    size_t n = (size_t)grid * block;
    uint32_t *a = harness_xmalloc(n * f->na * 4), *b = harness_xmalloc(n * f->nb * 4);
    uint32_t *c = harness_xmalloc(n * f->nc * 4), *d = harness_xmalloc(n * f->nd * 4);
    for (size_t i = 0; i < n * f->na; i++) a[i] = word_bits(rng, f->ab);
    for (size_t i = 0; i < n * f->nb; i++) b[i] = word_bits(rng, f->ab);
    for (size_t i = 0; i < n * f->nc; i++) c[i] = word_bits(rng, f->c);
    memset(d, 0xa5, n * f->nd * 4);
    void *args[] = {&a, &b, &c, &d};
    PTXRT_CHECK(ptxrtLaunchKernel(kern, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    int bad = 0;
    float A[16][16], B[16][8], C[16][8];
    for (unsigned blk = 0; blk < grid; blk++) {
        for (unsigned w = 0; (w + 1) * 32 <= block; w++) { /* whole warps only */
            size_t first = (size_t)blk * block + w * 32;
            int row, col;
            for (int lane = 0; lane < 32; lane++) {
                for (int i = 0; i < f->na * per_reg(f->ab); i++) {
                    position(0, f->ab, f->k, lane, i, &row, &col);
                    A[row][col] = element(f->ab, &a[(first + lane) * f->na], i);
                }
                for (int i = 0; i < f->nb * per_reg(f->ab); i++) {
                    position(1, f->ab, f->k, lane, i, &row, &col);
                    B[row][col] = element(f->ab, &b[(first + lane) * f->nb], i);
                }
                for (int i = 0; i < f->nc * per_reg(f->c); i++) {
                    position(2, f->c, f->k, lane, i, &row, &col);
                    C[row][col] = element(f->c, &c[(first + lane) * f->nc], i);
                }
            }
            for (int lane = 0; lane < 32; lane++) {
                uint32_t want[4] = {0, 0, 0, 0};
                for (int i = 0; i < f->nd * per_reg(f->d); i++) {
                    position(2, f->d, f->k, lane, i, &row, &col);
                    float s = C[row][col];
                    for (int kk = 0; kk < f->k; kk++) {
                        float p = A[row][kk] * B[kk][col];
                        s = s + p;
                    }
                    if (f->d == F32) want[i] = to_bits(s);
                    else want[i / 2] |= f16_bits(s) << (16 * (i % 2));
                }
                for (int j = 0; j < f->nd; j++) {
                    uint32_t got = d[(first + lane) * f->nd + j];
                    if (!same(f->d, got, want[j]) && bad++ < 5)
                        fprintf(stderr, "%s grid %u block %u: block %u warp %u lane %d D[%d] = %08x, want %08x\n", f->name, grid, block, blk, w, lane, j, got, want[j]);
                }
            }
        }
    }
    free(a); free(b); free(c); free(d);
    return bad;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x6d6d61);
    static const unsigned shapes[][2] = {{5, 64}, {3, 128}, {4, 48}, {2, 256}};
    int failures = 0, shapes_run = 0;
    for (size_t fi = 0; fi < sizeof FORMS / sizeof FORMS[0]; fi++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            failures += check(&rng, &FORMS[fi], shapes[s][0], shapes[s][1]) != 0;
            shapes_run++;
        }
    }
    return harness_finish("mma_raw", shapes_run, failures);
}
