/* matrix_host.c: tests/kernels/matrix.ptx (NVRTC). Fragments are laid out and read back with
 * the formulas of the ISA 9.2 fragment tables (§9.7.14.5), written here independently for
 * each documented shape and type; results are compared with a host matrix product: exactly
 * for integers (with wrap-around or .satfinite clamping), within the accumulation-order
 * bound K * eps * (|c| + sum |a||b|) for floating point. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "matrix_elements.h"

typedef struct {
    const char *name;
    int m, n, k;
    elem_t a, b, c, d;
    int na, nb, nc, nd; /* registers per lane */
    int a_col, b_col, satfinite;
} mma_form;

enum { ROLE_A, ROLE_B, ROLE_C };

/* The ISA's fragment tables: matrix element (q = which of the four m8n8k4 products, row,
 * col) held in element i of lane `lane`'s fragment. */
static void position(const mma_form *f, int role, elem_t ty, int lane, int i, int *q, int *row, int *col)
{
    int g = lane >> 2, t = lane % 4;
    *q = 0;
    if (f->m == 8 && f->n == 8 && f->k == 4 && f->a == T_F16) { /* §9.7.14.5.1 */
        int hi = lane >= 16;
        *q = (lane % 16) / 4;
        if (role == ROLE_A) {
            if (!f->a_col) { *row = lane % 4 + 4 * hi; *col = i; }
            else { *row = i % 4 + 4 * hi; *col = lane % 4; }
        } else if (role == ROLE_B) {
            if (!f->b_col) { *row = lane % 4; *col = i + 4 * hi; }
            else { *row = i; *col = lane % 4 + 4 * hi; }
        } else if (ty == T_F16) {
            *row = lane % 4 + 4 * hi; *col = i;
        } else {
            *row = (lane & 1) + (i & 2) + 4 * hi;
            *col = (i & 4) + (lane & 2) + (i & 1);
        }
        return;
    }
    if (f->m == 8 && f->a == T_F64) { /* §9.7.14.5.2 */
        if (role == ROLE_A) { *row = g; *col = t; }
        else if (role == ROLE_B) { *row = t; *col = g; }
        else { *row = g; *col = t * 2 + (i & 1); }
        return;
    }
    if (role == ROLE_C) { /* every m16n8 shape */
        *row = i < 2 ? g : g + 8;
        *col = t * 2 + (i & 1);
        return;
    }
    int k = f->k;
    if (f->a == T_F64 && k == 16) { /* §9.7.14.5.8 */
        if (role == ROLE_A) { *row = i % 2 == 0 ? g : g + 8; *col = i % 2 == 0 ? i * 2 + t : i * 2 - 2 + t; }
        else { *row = t + i * 4; *col = g; }
        return;
    }
    if (f->a == T_TF32 || f->a == T_F64) { /* .f64 m16n8k4/k8 share the .tf32 tables */
        if (k == 4) { /* §9.7.14.5.6 */
            if (role == ROLE_A) { *row = i == 0 ? g : g + 8; *col = t; }
            else { *row = t; *col = g; }
        } else { /* m16n8k8 .tf32, §9.7.14.5.7 */
            if (role == ROLE_A) { *row = (i == 0 || i == 2) ? g : g + 8; *col = i < 2 ? t : t + 4; }
            else { *row = i == 0 ? t : t + 4; *col = g; }
        }
        return;
    }
    if (f->a == T_F16 || f->a == T_BF16) {
        if (k == 8) { /* §9.7.14.5.7 */
            if (role == ROLE_A) { *row = i < 2 ? g : g + 8; *col = t * 2 + (i & 1); }
            else { *row = t * 2 + i; *col = g; }
        } else { /* m16n8k16, §9.7.14.5.8 */
            if (role == ROLE_A) {
                *row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
                *col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
            } else {
                *row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);
                *col = g;
            }
        }
        return;
    }
    if (f->m == 8) { /* m8n8k16 .s8/.u8 (§9.7.14.5.3), m8n8k32 .s4/.u4 (§9.7.14.5.4) */
        int per = f->k == 16 ? 4 : 8;
        if (role == ROLE_A) { *row = g; *col = t * per + i; }
        else { *row = t * per + i; *col = g; }
        return;
    }
    if (f->a == T_S4 || f->a == T_U4) {
        if (k == 32) { /* §9.7.14.5.10 */
            if (role == ROLE_A) { *row = i < 8 ? g : g + 8; *col = t * 8 + (i & 7); }
            else { *row = t * 8 + (i & 7); *col = g; }
        } else { /* m16n8k64, §9.7.14.5.11 */
            if (role == ROLE_A) {
                *row = (i < 8 || (i >= 16 && i < 24)) ? g : g + 8;
                *col = t * 8 + (i & 7) + (i >= 16 ? 32 : 0);
            } else {
                *row = t * 8 + (i & 7) + (i >= 8 ? 32 : 0);
                *col = g;
            }
        }
        return;
    }
    /* .s8/.u8 and the 8-bit floats */
    if (k == 16) { /* §9.7.14.5.9 */
        if (role == ROLE_A) { *row = i < 4 ? g : g + 8; *col = t * 4 + (i & 3); }
        else { *row = t * 4 + i; *col = g; }
    } else { /* m16n8k32, §9.7.14.5.10 */
        if (role == ROLE_A) {
            *row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
            *col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
        } else {
            *row = t * 4 + (i & 3) + (i >= 4 ? 16 : 0);
            *col = g;
        }
    }
}

static uint64_t reg_get(const uint32_t *w, int wide, elem_t t, int i)
{
    int per = per_reg(t), r = i / per, bits = elem_bits(t);
    if (wide) return (uint64_t)w[2 * r] | (uint64_t)w[2 * r + 1] << 32;
    uint32_t v = w[r];
    return per == 1 ? v : (v >> ((i % per) * bits)) & ((1u << bits) - 1);
}

static void reg_put(uint32_t *w, int wide, elem_t t, int i, uint64_t v)
{
    int per = per_reg(t), r = i / per, bits = elem_bits(t);
    if (wide) { w[2 * r] = (uint32_t)v; w[2 * r + 1] = (uint32_t)(v >> 32); return; }
    if (per == 1) { w[r] = (uint32_t)v; return; }
    w[r] |= ((uint32_t)v & ((1u << bits) - 1)) << ((i % per) * bits);
}

/* A random value exactly representable in t (and whose products are exact in f32). */
static double random_value(harness_rng *rng, elem_t t, int satfinite_test)
{
    switch (t) {
    case T_F16: case T_BF16: return ((int)(harness_rng_u32(rng) % 65) - 32) / 8.0;
    case T_TF32: return ((int)(harness_rng_u32(rng) % 2049) - 1024) / 256.0;
    case T_F32: return harness_rng_float(rng, -4.0f, 4.0f);
    case T_F64: return (double)harness_rng_float(rng, -4.0f, 4.0f) + ldexp((double)harness_rng_float(rng, -1.0f, 1.0f), -30);
    case T_S8: return (int)(harness_rng_u32(rng) % 256) - 128;
    case T_U8: return harness_rng_u32(rng) % 256;
    case T_E4M3: return ((int)(harness_rng_u32(rng) % 31) - 15) / 8.0;
    case T_E5M2: return ((int)(harness_rng_u32(rng) % 15) - 7) / 4.0;
    case T_S4: return (int)(harness_rng_u32(rng) % 16) - 8;
    case T_U4: return harness_rng_u32(rng) % 16;
    default:
        if (satfinite_test) {
            /* Close to the s32 limits so that the sums overflow. */
            uint32_t r = harness_rng_u32(rng);
            return (r & 1) ? 2147483647.0 - (r >> 12) : -2147483648.0 + (r >> 12);
        }
        return (int)(harness_rng_u32(rng) % 2001) - 1000;
    }
}

/* |expected - actual| <= tol element-wise, in double (the f64 forms need it). */
static size_t compare_bound(const char *what, const double *expected, const double *actual, const double *tol, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (fabs(expected[i] - actual[i]) <= tol[i]) continue;
        if (bad++ < HARNESS_MAX_REPORTED)
            fprintf(stderr, "  %s[%zu]: expected %.17g (bound %.3g), actual %.17g\n", what, i, expected[i], tol[i], actual[i]);
    }
    if (bad) fprintf(stderr, "%s: %zu mismatches\n", what, bad);
    return bad;
}

static int check_mma(harness_rng *rng, const mma_form *f, int warps, int warps_per_block)
{
    const ptxrtKernel *kern = harness_find_kernel(f->name);
    int wide = f->a == T_F64;
    int w = wide ? 2 : 1;
    int products = (f->m == 8 && f->n == 8 && f->k == 4 && f->a == T_F16) ? 4 : 1;
    int M = f->m, N = f->n, K = f->k;
    int in_words = (f->na + f->nb + f->nc) * w, out_words = f->nd * w;
    uint32_t *in = harness_xmalloc((size_t)warps * 32 * in_words * 4);
    uint32_t *out = harness_xmalloc((size_t)warps * 32 * out_words * 4);
    memset(in, 0, (size_t)warps * 32 * in_words * 4);
    memset(out, 0xff, (size_t)warps * 32 * out_words * 4);
    size_t per_warp = (size_t)products * (M * K + K * N + M * N);
    double *vals = harness_xmalloc((size_t)warps * per_warp * sizeof(double));
    int stress = f->satfinite || (f->a == T_S8 && f->b == T_S8);
    for (int wp = 0; wp < warps; wp++) {
        double *A = vals + wp * per_warp, *B = A + products * M * K, *C = B + products * K * N;
        for (int i = 0; i < products * M * K; i++) A[i] = random_value(rng, f->a, 0);
        for (int i = 0; i < products * K * N; i++) B[i] = random_value(rng, f->b, 0);
        for (int i = 0; i < products * M * N; i++) C[i] = random_value(rng, f->c, stress && (i % 3 != 0));
        for (int lane = 0; lane < 32; lane++) {
            uint32_t *words = in + ((size_t)wp * 32 + lane) * in_words;
            elem_t types[3] = {f->a, f->b, f->c};
            int counts[3] = {f->na, f->nb, f->nc}, first = 0;
            double *mats[3] = {A, B, C};
            int cols[3] = {K, N, N}, rows[3] = {M, K, M};
            for (int role = 0; role < 3; role++) {
                for (int i = 0; i < counts[role] * per_reg(types[role]); i++) {
                    int q, r, c;
                    position(f, role, types[role], lane, i, &q, &r, &c);
                    reg_put(words + first * w, wide, types[role], i, encode(types[role], mats[role][(q * rows[role] + r) * cols[role] + c]));
                }
                first += counts[role];
            }
        }
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(kern, harness_dim3((unsigned)(warps / warps_per_block), 1, 1), harness_dim3(32u * warps_per_block, 1, 1), args, 0, NULL));
    size_t n = (size_t)warps * 32 * f->nd * per_reg(f->d);
    double *exp = harness_xmalloc(n * sizeof(double)), *tol = harness_xmalloc(n * sizeof(double));
    double *act = harness_xmalloc(n * sizeof(double));
    uint32_t *exp_i = harness_xmalloc(n * 4), *act_i = harness_xmalloc(n * 4);
    size_t e = 0;
    for (int wp = 0; wp < warps; wp++) {
        double *A = vals + wp * per_warp, *B = A + products * M * K, *C = B + products * K * N;
        for (int lane = 0; lane < 32; lane++) {
            const uint32_t *words = out + ((size_t)wp * 32 + lane) * out_words;
            for (int i = 0; i < f->nd * per_reg(f->d); i++, e++) {
                int q, r, c;
                position(f, ROLE_C, f->d, lane, i, &q, &r, &c);
                double sum = C[(q * M + r) * N + c], mag = fabs(sum);
                for (int kk = 0; kk < K; kk++) {
                    double p = A[(q * M + r) * K + kk] * B[(q * K + kk) * N + c];
                    sum += p;
                    mag += fabs(p);
                }
                uint64_t bits = reg_get(words, wide, f->d, i);
                if (is_int(f->d)) {
                    double s = sum;
                    if (f->satfinite) s = s > 2147483647.0 ? 2147483647.0 : s < -2147483648.0 ? -2147483648.0 : s;
                    exp_i[e] = (uint32_t)(int64_t)s; /* wraps modulo 2^32 without .satfinite */
                    act_i[e] = (uint32_t)bits;
                } else {
                    double eps = f->d == T_F64 ? ldexp(1, -52) : ldexp(1, -23);
                    exp[e] = sum;
                    tol[e] = (K + 1) * eps * mag + (f->d == T_F16 ? ldexp(fabs(sum), -11) : 0);
                    act[e] = decode(f->d, bits);
                }
            }
        }
    }
    size_t bad = is_int(f->d) ? harness_compare_u32(f->name, exp_i, act_i, n) : compare_bound(f->name, exp, act, tol, n);
    free(in); free(out); free(vals); free(exp); free(tol); free(act); free(exp_i); free(act_i);
    return bad != 0;
}

static const mma_form FORMS[] = {
    {"mma_m16n8k16_f32_f16", 16, 8, 16, T_F16, T_F16, T_F32, T_F32, 4, 2, 4, 4, 0, 0, 0},
    {"mma_m16n8k16_f16_f16", 16, 8, 16, T_F16, T_F16, T_F16, T_F16, 4, 2, 2, 2, 0, 0, 0},
    {"mma_m16n8k8_f32_f16", 16, 8, 8, T_F16, T_F16, T_F32, T_F32, 2, 1, 4, 4, 0, 0, 0},
    {"mma_m16n8k8_f16_f16", 16, 8, 8, T_F16, T_F16, T_F16, T_F16, 2, 1, 2, 2, 0, 0, 0},
    {"mma_m16n8k16_f32_bf16", 16, 8, 16, T_BF16, T_BF16, T_F32, T_F32, 4, 2, 4, 4, 0, 0, 0},
    {"mma_m16n8k8_f32_bf16", 16, 8, 8, T_BF16, T_BF16, T_F32, T_F32, 2, 1, 4, 4, 0, 0, 0},
    {"mma_m16n8k8_f32_tf32", 16, 8, 8, T_TF32, T_TF32, T_F32, T_F32, 4, 2, 4, 4, 0, 0, 0},
    {"mma_m16n8k4_f32_tf32", 16, 8, 4, T_TF32, T_TF32, T_F32, T_F32, 2, 1, 4, 4, 0, 0, 0},
    {"mma_m16n8k32_s8_s8", 16, 8, 32, T_S8, T_S8, T_S32, T_S32, 4, 2, 4, 4, 0, 0, 0},
    {"mma_m16n8k32_u8_s8_satfinite", 16, 8, 32, T_U8, T_S8, T_S32, T_S32, 4, 2, 4, 4, 0, 0, 1},
    {"mma_m16n8k16_s8_u8_satfinite", 16, 8, 16, T_S8, T_U8, T_S32, T_S32, 2, 1, 4, 4, 0, 0, 1},
    {"mma_m16n8k16_u8_u8", 16, 8, 16, T_U8, T_U8, T_S32, T_S32, 2, 1, 4, 4, 0, 0, 0},
    {"mma_m8n8k16_s8_u8", 8, 8, 16, T_S8, T_U8, T_S32, T_S32, 1, 1, 2, 2, 0, 0, 0},
    {"mma_m8n8k32_s4_s4", 8, 8, 32, T_S4, T_S4, T_S32, T_S32, 1, 1, 2, 2, 0, 0, 0},
    {"mma_m16n8k32_s4_u4", 16, 8, 32, T_S4, T_U4, T_S32, T_S32, 2, 1, 4, 4, 0, 0, 0},
    {"mma_m16n8k64_u4_s4_satfinite", 16, 8, 64, T_U4, T_S4, T_S32, T_S32, 4, 2, 4, 4, 0, 0, 1},
    {"mma_m16n8k32_f32_e4m3_e5m2", 16, 8, 32, T_E4M3, T_E5M2, T_F32, T_F32, 4, 2, 4, 4, 0, 0, 0},
    {"mma_m16n8k16_f16_e5m2_e4m3", 16, 8, 16, T_E5M2, T_E4M3, T_F16, T_F16, 2, 1, 2, 2, 0, 0, 0},
    {"mma_m16n8k8_f64", 16, 8, 8, T_F64, T_F64, T_F64, T_F64, 4, 2, 4, 4, 0, 0, 0},
    {"mma_m16n8k16_f64", 16, 8, 16, T_F64, T_F64, T_F64, T_F64, 8, 4, 4, 4, 0, 0, 0},
    {"mma_m8n8k4_f64", 8, 8, 4, T_F64, T_F64, T_F64, T_F64, 1, 1, 2, 2, 0, 0, 0},
    {"mma_m8n8k4_f32_f16_rowcol", 8, 8, 4, T_F16, T_F16, T_F32, T_F32, 2, 2, 8, 8, 0, 1, 0},
    {"mma_m8n8k4_f16_f16_colrow", 8, 8, 4, T_F16, T_F16, T_F16, T_F16, 2, 2, 4, 4, 1, 0, 0},
    {"mma_m8n8k4_f32_f16acc_colcol", 8, 8, 4, T_F16, T_F16, T_F16, T_F32, 2, 2, 4, 8, 1, 1, 0},
};

/* ldmatrix: tile row (5 l + 3) mod 32 from lane l; result registers per lane: x1, x2, x4,
 * then the same with .trans. */
static int check_ldmatrix(harness_rng *rng)
{
    const ptxrtKernel *k = harness_find_kernel("ldmatrix_forms");
    uint16_t tile[32 * 8];
    uint32_t out[32 * 14], exp[32 * 14];
    for (int i = 0; i < 32 * 8; i++) tile[i] = (uint16_t)harness_rng_u32(rng);
    for (int l = 0; l < 32; l++) {
        int slot = 0;
        for (int trans = 0; trans < 2; trans++) {
            int nums[3] = {1, 2, 4};
            for (int x = 0; x < 3; x++) {
                for (int q = 0; q < nums[x]; q++) {
                    uint16_t v[2];
                    for (int j = 0; j < 2; j++) {
                        int r = trans ? 2 * (l % 4) + j : l / 4, c = trans ? l / 4 : 2 * (l % 4) + j;
                        int tile_row = (5 * (8 * q + r) + 3) % 32;
                        v[j] = tile[tile_row * 8 + c];
                    }
                    exp[l * 14 + slot++] = v[0] | (uint32_t)v[1] << 16;
                }
            }
        }
    }
    uint16_t *src = tile;
    uint32_t *dst = out;
    void *args[] = {&src, &dst};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(32, 1, 1), args, 0, NULL));
    return harness_compare_u32("ldmatrix (x1, x2, x4, x1.trans, x2.trans, x4.trans)", exp, out, 32 * 14) != 0;
}

typedef struct {
    const char *name;
    int m, n, k;
    elem_t t, acc;
    int a_col, b_col;
} wmma_form;

static const wmma_form WMMA[] = {
    {"wmma_m16n16k16_f16_f32_rr", 16, 16, 16, T_F16, T_F32, 0, 0},
    {"wmma_m16n16k16_f16_f32_cc", 16, 16, 16, T_F16, T_F32, 1, 1},
    {"wmma_m16n16k16_f16_f16_rc", 16, 16, 16, T_F16, T_F16, 0, 1},
    {"wmma_m32n8k16_f16_f32_rc", 32, 8, 16, T_F16, T_F32, 0, 1},
    {"wmma_m32n8k16_f16_f32_cr", 32, 8, 16, T_F16, T_F32, 1, 0},
    {"wmma_m8n32k16_f16_f32_rr", 8, 32, 16, T_F16, T_F32, 0, 0},
    {"wmma_m8n32k16_f16_f16_cc", 8, 32, 16, T_F16, T_F16, 1, 1},
    {"wmma_m16n16k16_bf16_f32_rc", 16, 16, 16, T_BF16, T_F32, 0, 1},
    {"wmma_m16n16k8_tf32_f32_rr", 16, 16, 8, T_TF32, T_F32, 0, 0},
    {"wmma_m16n16k16_s8_s32_rc", 16, 16, 16, T_S8, T_S32, 0, 1},
    {"wmma_m32n8k16_u8_s32_cr", 32, 8, 16, T_U8, T_S32, 1, 0},
};

static int elem_bytes(elem_t t) { return t == T_TF32 ? 4 : elem_bits(t) / 8; }

static void store_elem(void *base, elem_t t, size_t index, double v)
{
    uint64_t b = encode(t, v);
    memcpy((char *)base + index * elem_bytes(t), &b, (size_t)elem_bytes(t)); /* little-endian */
}

static double load_elem(const void *base, elem_t t, size_t index)
{
    uint64_t b = 0;
    memcpy(&b, (const char *)base + index * elem_bytes(t), (size_t)elem_bytes(t));
    return decode(t, b);
}

/* tiles: one warp per tile; pad: extra elements per leading dimension; c_col/d_col:
 * layouts of the accumulator in memory. */
static int check_wmma(harness_rng *rng, const wmma_form *f, int tiles, int pad, int c_col, int d_col)
{
    const ptxrtKernel *k = harness_find_kernel(f->name);
    int M = f->m, N = f->n, K = f->k;
    size_t sa = (size_t)(M * K + 64 * K + 64 * M), sb = (size_t)(K * N + 64 * K + 64 * N), sc = (size_t)(M * N + 64 * M + 64 * N);
    int lda = (f->a_col ? M : K) + pad, ldb = (f->b_col ? K : N) + pad, ldc = (c_col || d_col ? M : N) + pad;
    if (c_col != d_col) ldc = (M > N ? M : N) + pad;
    elem_t acc_mem = f->acc == T_S32 ? T_S32 : f->acc;
    char *a = harness_xmalloc(sa * tiles * elem_bytes(f->t)), *b = harness_xmalloc(sb * tiles * elem_bytes(f->t));
    char *c = harness_xmalloc(sc * tiles * 4), *d = harness_xmalloc(sc * tiles * 4);
    memset(d, 0, sc * tiles * 4);
    size_t n = (size_t)tiles * M * N;
    double *exp = harness_xmalloc(n * sizeof(double)), *tol = harness_xmalloc(n * sizeof(double));
    float *act = harness_xmalloc(n * sizeof(float));
    uint32_t *exp_i = harness_xmalloc(n * 4), *act_i = harness_xmalloc(n * 4);
    double *A = harness_xmalloc((size_t)M * K * sizeof(double)), *B = harness_xmalloc((size_t)K * N * sizeof(double));
    double *C = harness_xmalloc((size_t)M * N * sizeof(double));
    elem_t in_t = f->t == T_TF32 ? T_F32 : f->t; /* tf32 operands are stored as float */
    for (int tile = 0; tile < tiles; tile++) {
        for (int r = 0; r < M; r++)
            for (int q = 0; q < K; q++) {
                A[r * K + q] = random_value(rng, f->t, 0);
                store_elem(a, in_t, sa * tile + (f->a_col ? (size_t)q * lda + r : (size_t)r * lda + q), A[r * K + q]);
            }
        for (int r = 0; r < K; r++)
            for (int q = 0; q < N; q++) {
                B[r * N + q] = random_value(rng, f->t, 0);
                store_elem(b, in_t, sb * tile + (f->b_col ? (size_t)q * ldb + r : (size_t)r * ldb + q), B[r * N + q]);
            }
        for (int r = 0; r < M; r++)
            for (int q = 0; q < N; q++) {
                C[r * N + q] = f->acc == T_F16 ? ((int)(harness_rng_u32(rng) % 257) - 128) / 16.0 : random_value(rng, acc_mem, 0);
                store_elem(c, acc_mem, sc * tile + (c_col ? (size_t)q * ldc + r : (size_t)r * ldc + q), C[r * N + q]);
            }
        for (int r = 0; r < M; r++)
            for (int q = 0; q < N; q++) {
                double sum = C[r * N + q], mag = fabs(sum);
                for (int kk = 0; kk < K; kk++) {
                    sum += A[r * K + kk] * B[kk * N + q];
                    mag += fabs(A[r * K + kk] * B[kk * N + q]);
                }
                size_t e = (size_t)tile * M * N + (size_t)r * N + q;
                exp[e] = sum;
                exp_i[e] = (uint32_t)(int64_t)sum;
                tol[e] = (K + 1) * ldexp(mag, f->acc == T_F16 ? -10 : -23);
            }
    }
    int cc = c_col, dc = d_col;
    void *args[] = {&a, &b, &c, &d, &lda, &ldb, &ldc, &cc, &dc};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3((unsigned)tiles, 1, 1), harness_dim3(32, 1, 1), args, 0, NULL));
    for (int tile = 0; tile < tiles; tile++)
        for (int r = 0; r < M; r++)
            for (int q = 0; q < N; q++) {
                size_t e = (size_t)tile * M * N + (size_t)r * N + q;
                double v = load_elem(d, acc_mem, sc * tile + (d_col ? (size_t)q * ldc + r : (size_t)r * ldc + q));
                act[e] = (float)v;
                act_i[e] = (uint32_t)(int64_t)v;
            }
    size_t bad = f->acc == T_S32 ? harness_compare_u32(f->name, exp_i, act_i, n) : harness_compare_f32_bound(f->name, exp, act, tol, n);
    free(a); free(b); free(c); free(d); free(exp); free(tol); free(act); free(exp_i); free(act_i); free(A); free(B); free(C);
    return bad != 0;
}

static int check_gemm(harness_rng *rng, int M, int N, int K)
{
    const ptxrtKernel *k = harness_find_kernel("gemm_cp_async");
    uint16_t *A = harness_xmalloc((size_t)M * K * 2), *B = harness_xmalloc((size_t)K * N * 2);
    float *C = harness_xmalloc((size_t)M * N * 4);
    double *exp = harness_xmalloc((size_t)M * N * sizeof(double)), *tol = harness_xmalloc((size_t)M * N * sizeof(double));
    for (int i = 0; i < M * K; i++) A[i] = f16_bits(random_value(rng, T_F16, 0) + harness_rng_u32(rng) % 8 / 64.0);
    for (int i = 0; i < K * N; i++) B[i] = f16_bits(random_value(rng, T_F16, 0) + harness_rng_u32(rng) % 8 / 64.0);
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            double s = 0, mag = 0;
            for (int q = 0; q < K; q++) {
                double p = f16_value(A[r * K + q]) * f16_value(B[q * N + c]);
                s += p;
                mag += fabs(p);
            }
            exp[r * N + c] = s;
            tol[r * N + c] = (K + 1) * ldexp(mag, -23);
        }
    void *args[] = {&A, &B, &C, &M, &N, &K};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3((unsigned)(N + 15) / 16, (unsigned)(M + 31) / 32, 1), harness_dim3(128, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_f32_bound("gemm_cp_async", exp, C, tol, (size_t)M * N);
    if (bad) fprintf(stderr, "gemm_cp_async M=%d N=%d K=%d\n", M, N, K);
    free(A); free(B); free(C); free(exp); free(tol);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x6d6d61u);
    int rc = 0, f = 0, forms = (int)(sizeof FORMS / sizeof FORMS[0]);
    for (int i = 0; i < forms; i++) f += check_mma(&rng, &FORMS[i], 6, 2);
    rc |= harness_finish("mma", forms, f);
    rc |= harness_finish("ldmatrix", 1, check_ldmatrix(&rng));
    int wforms = (int)(sizeof WMMA / sizeof WMMA[0]);
    f = 0;
    for (int i = 0; i < wforms; i++) f += check_wmma(&rng, &WMMA[i], 3, i % 3 == 0 ? 0 : 8, i % 2, (i / 2) % 2);
    rc |= harness_finish("wmma", wforms, f);
    f = check_gemm(&rng, 64, 48, 64) + check_gemm(&rng, 40, 24, 40) + check_gemm(&rng, 96, 80, 128);
    rc |= harness_finish("gemm_cp_async", 3, f);
    return rc;
}
