/* matrix_sm120_host.c: tests/kernels/matrix_sm120.ptx (hand-written). Each kernel runs one
 * `mma` per warp; fragments are laid out and read back with the formulas of the ISA 9.2
 * fragment tables (§9.7.14.5.5, .7, .8, .10, .12, .13), written here independently.
 *
 * - b1: D = C + popc(row of A xor/and column of B), exact, with C values that wrap.
 * - f64 with .rn/.rz/.rm/.rp (mma, and wmma.mma m8n8k4): every fused multiply-add is
 *   rounded in the instruction's mode. Checked exactly on matrices whose A rows hold one non-zero element (so each D
 *   element is one rounded fma whatever the accumulation order, and the modes give
 *   different results), and on dense matrices within the accumulation-order bound.
 * - .kind::f8f6f4 (.e3m2, .e2m3, .e2m1 in 8-bit containers, .e4m3, .e5m2) with .f32 and
 *   .f16 accumulators: within the accumulation-order bound of a double-precision product
 *   (the ISA leaves the order and the intermediate rounding open).
 * - block scaling (.kind::mxf8f6f4 1X, .kind::mxf4 2X, .kind::mxf4nvf4 2X/4X with .ue8m0
 *   and .ue4m3) for every selector value of the ISA's Table 37: D = C + sum_k (A * SF_A) *
 *   (B * SF_B) with the scale factors taken from the lanes and bytes our reading of the
 *   ISA's figures gives (quad g: lane 4g + 2 thread-id-a for A's row g, + 1 for row g + 8;
 *   lane 4g + thread-id-b for B's column g; byte-id and the following bytes for the scale
 *   vector, lower byte first). Every byte of every lane's scale registers is random, so
 *   another mapping gives other factors; one run in four has a NaN scale factor. Exact where
 *   every partial sum is exact in f32, else within the accumulation-order bound. */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "matrix_elements.h"

/* Launches `kernel` on one block of `warps` warps; in/out as the PTX file describes. */
static void run(const char *kernel, void *in, void *out, int warps)
{
    const ptxrtKernel *k = harness_find_kernel(kernel);
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(32 * warps, 1, 1), args, 0, NULL));
}

/* Accumulator C/D element i of lane `lane` (every shape here). */
static void acc_position(int lane, int i, int *row, int *col)
{
    *row = (lane >> 2) + 8 * (i >= 2);
    *col = 2 * (lane % 4) + (i & 1);
}

/* ---- single-bit ---- */

static void b1_a_position(int m, int k, int lane, int i, int *row, int *col)
{
    int g = lane >> 2, t = lane % 4;
    if (m == 8) { /* m8n8k128 */
        *row = g;
        *col = t * 32 + i;
    } else if (k == 128) {
        *row = g + 8 * (i >= 32);
        *col = t * 32 + (i & 31);
    } else { /* m16n8k256 */
        *row = (i < 32 || (i >= 64 && i < 96)) ? g : g + 8;
        *col = t * 32 + (i & 31) + (i >= 64 ? 128 : 0);
    }
}

static void b1_b_position(int lane, int i, int *row, int *col)
{
    *row = (lane % 4) * 32 + (i & 31) + (i >= 32 ? 128 : 0);
    *col = lane >> 2;
}

static int check_b1(harness_rng *rng, const char *kernel, int m, int k, int is_and, int warps)
{
    const int n = 8, na = m * k / 1024, nb = k * n / 1024, nc = m * n / 32, regs = na + nb + nc;
    uint32_t *in = harness_xmalloc((size_t)warps * regs * 32 * 4);
    uint32_t *out = harness_xmalloc((size_t)warps * nc * 32 * 4), *exp = harness_xmalloc((size_t)warps * nc * 32 * 4);
    uint8_t *a = harness_xmalloc((size_t)m * k), *b = harness_xmalloc((size_t)k * n);
    int32_t *c = harness_xmalloc((size_t)m * n * 4);
    for (int w = 0; w < warps; w++) {
        uint32_t *win = in + (size_t)w * regs * 32;
        /* Row densities differ so that the counts cover a wide range. */
        for (int r = 0; r < m; r++)
            for (int j = 0; j < k; j++) a[r * k + j] = harness_rng_u32(rng) % 9 <= (uint32_t)(r % 8);
        for (int j = 0; j < k * n; j++) b[j] = harness_rng_u32(rng) & 1;
        for (int j = 0; j < m * n; j++) c[j] = (int32_t)harness_rng_u32(rng) >> (j % 24);
        c[0] = INT32_MAX - 2; /* wraps to negative */
        for (int lane = 0; lane < 32; lane++) {
            for (int j = 0; j < na + nb; j++) win[j * 32 + lane] = 0;
            for (int i = 0; i < 32 * na; i++) {
                int r, col;
                b1_a_position(m, k, lane, i, &r, &col);
                win[(i / 32) * 32 + lane] |= (uint32_t)a[r * k + col] << (i % 32);
            }
            for (int i = 0; i < 32 * nb; i++) {
                int r, col;
                b1_b_position(lane, i, &r, &col);
                win[(na + i / 32) * 32 + lane] |= (uint32_t)b[r * n + col] << (i % 32);
            }
            for (int i = 0; i < nc; i++) {
                int r, col;
                acc_position(lane, i, &r, &col);
                win[(na + nb + i) * 32 + lane] = (uint32_t)c[r * n + col];
                uint32_t ones = 0;
                for (int j = 0; j < k; j++) ones += is_and ? (a[r * k + j] & b[j * n + col]) : (a[r * k + j] ^ b[j * n + col]);
                exp[((size_t)w * nc + i) * 32 + lane] = (uint32_t)c[r * n + col] + ones;
            }
        }
    }
    run(kernel, in, out, warps);
    size_t bad = harness_compare_u32(kernel, exp, out, (size_t)warps * nc * 32);
    free(in); free(out); free(exp); free(a); free(b); free(c);
    return bad != 0;
}

/* ---- f64 with a rounding mode ---- */

static void f64_a_position(int m, int k, int lane, int i, int *row, int *col)
{
    int g = lane >> 2, t = lane % 4;
    if (m == 8) { /* m8n8k4 */
        *row = g;
        *col = t;
    } else if (k == 4) {
        *row = g + 8 * i;
        *col = t;
    } else { /* m16n8k8, m16n8k16 */
        *row = g + 8 * (i % 2);
        *col = t + 4 * (i / 2);
    }
}

static void f64_b_position(int lane, int i, int *row, int *col)
{
    *row = lane % 4 + 4 * i;
    *col = lane >> 2;
}

/* A full-precision double in +-[1, 2) * 2^e, e in [-4, 4). */
static double random_f64(harness_rng *rng)
{
    double v = ldexp((double)((harness_rng_u64(rng) >> 11) | (1ull << 52)), -52);
    v = ldexp(v, (int)(harness_rng_u32(rng) % 8) - 4);
    return harness_rng_u32(rng) & 1 ? -v : v;
}

/* a * b + c rounded once in `mode`. The operands and the result pass through volatile
 * objects so that the compiler keeps the fma between the two mode changes. */
static double fma_in(int mode, double a, double b, double c)
{
    volatile double va = a, vb = b, vc = c, vr;
    fesetround(mode);
    vr = fma(va, vb, vc);
    fesetround(FE_TONEAREST);
    return vr;
}

static int check_f64(harness_rng *rng, const char *kernel, int m, int k, int mode, int sparse, int warps)
{
    const int n = 8, na = m * k / 32, nb = k * n / 32, nc = m * n / 32, regs = na + nb + nc;
    double *in = harness_xmalloc((size_t)warps * regs * 32 * 8), *out = harness_xmalloc((size_t)warps * nc * 32 * 8);
    double *a = harness_xmalloc((size_t)m * k * 8), *b = harness_xmalloc((size_t)k * n * 8), *c = harness_xmalloc((size_t)m * n * 8);
    double *exp = harness_xmalloc((size_t)warps * nc * 32 * 8), *tol = harness_xmalloc((size_t)warps * nc * 32 * 8);
    for (int w = 0; w < warps; w++) {
        double *win = in + (size_t)w * regs * 32;
        for (int r = 0; r < m; r++) {
            int only = (int)(harness_rng_u32(rng) % (uint32_t)k);
            for (int j = 0; j < k; j++) a[r * k + j] = (!sparse || j == only) ? random_f64(rng) : 0.0;
        }
        for (int j = 0; j < k * n; j++) b[j] = random_f64(rng);
        for (int j = 0; j < m * n; j++) c[j] = random_f64(rng);
        for (int lane = 0; lane < 32; lane++) {
            int r, col;
            for (int i = 0; i < na; i++) {
                f64_a_position(m, k, lane, i, &r, &col);
                win[i * 32 + lane] = a[r * k + col];
            }
            for (int i = 0; i < nb; i++) {
                f64_b_position(lane, i, &r, &col);
                win[(na + i) * 32 + lane] = b[r * n + col];
            }
            for (int i = 0; i < nc; i++) {
                acc_position(lane, i, &r, &col);
                win[(na + nb + i) * 32 + lane] = c[r * n + col];
                size_t at = ((size_t)w * nc + i) * 32 + lane;
                double e = c[r * n + col], mag = fabs(c[r * n + col]);
                for (int j = 0; j < k; j++) {
                    double p = a[r * k + j];
                    /* The one non-zero product: its rounding is the whole result. */
                    if (p != 0) e = sparse ? fma_in(mode, p, b[j * n + col], e) : fma(p, b[j * n + col], e);
                    mag += fabs(p * b[j * n + col]);
                }
                exp[at] = e;
                tol[at] = sparse ? 0 : (k + 2) * ldexp(mag, -52);
            }
        }
    }
    run(kernel, in, out, warps);
    size_t bad = 0, total = (size_t)warps * nc * 32;
    for (size_t i = 0; i < total; i++) {
        int same = tol[i] == 0 ? memcmp(&exp[i], &out[i], 8) == 0 : fabs(exp[i] - out[i]) <= tol[i];
        if (!same && bad++ < HARNESS_MAX_REPORTED)
            fprintf(stderr, "  %s (%s)[%zu]: expected %a, actual %a\n", kernel, sparse ? "one product per element" : "dense", i, exp[i], out[i]);
    }
    free(in); free(out); free(a); free(b); free(c); free(exp); free(tol);
    return bad != 0;
}

/* wmma.mma m8n8k4 .f64 with a rounding: the matrices go through memory (row-major), so
 * no fragment layout is involved. Checked like check_f64. */
static int check_wmma_f64(harness_rng *rng, const char *kernel, int mode, int sparse)
{
    double in[32 + 32 + 64], out[64], exp[64], tol[64];
    double *a = in, *b = in + 32, *c = in + 64;
    for (int r = 0; r < 8; r++) {
        int only = (int)(harness_rng_u32(rng) % 4);
        for (int j = 0; j < 4; j++) a[r * 4 + j] = (!sparse || j == only) ? random_f64(rng) : 0.0;
    }
    for (int j = 0; j < 32; j++) b[j] = random_f64(rng);
    for (int j = 0; j < 64; j++) c[j] = random_f64(rng);
    for (int r = 0; r < 8; r++)
        for (int col = 0; col < 8; col++) {
            double e = c[r * 8 + col], mag = fabs(e);
            for (int j = 0; j < 4; j++) {
                double p = a[r * 4 + j];
                if (p != 0) e = sparse ? fma_in(mode, p, b[j * 8 + col], e) : fma(p, b[j * 8 + col], e);
                mag += fabs(p * b[j * 8 + col]);
            }
            exp[r * 8 + col] = e;
            tol[r * 8 + col] = sparse ? 0 : 6 * ldexp(mag, -52);
        }
    run(kernel, in, out, 1);
    size_t bad = 0;
    for (int i = 0; i < 64; i++) {
        int same = tol[i] == 0 ? memcmp(&exp[i], &out[i], 8) == 0 : fabs(exp[i] - out[i]) <= tol[i];
        if (!same && bad++ < HARNESS_MAX_REPORTED)
            fprintf(stderr, "  %s (%s)[%d]: expected %a, actual %a\n", kernel, sparse ? "one product per element" : "dense", i, exp[i], out[i]);
    }
    return bad != 0;
}

/* ---- .kind::f8f6f4 ---- */

typedef enum { E4M3, E5M2, E3M2, E2M3, E2M1 } fp_t;

/* The value of an element's 8-bit container. */
static double fp_value(fp_t t, unsigned byte)
{
    static const elem_t as_elem[] = {T_E4M3, T_E5M2, T_E3M2, T_E2M3, T_E2M1};
    return decode(as_elem[t], byte);
}

/* A random finite container (padding bits zero); .e4m3/.e5m2 kept below 2^5 in magnitude
 * so that .f16 sums stay finite. */
static unsigned random_fp(harness_rng *rng, fp_t t)
{
    uint32_t r = harness_rng_u32(rng);
    switch (t) {
    case E4M3: return (r & 0x80) | ((r >> 8) % 12) << 3 | (r & 7);
    case E5M2: return (r & 0x80) | ((r >> 8) % 20) << 2 | (r & 3);
    case E2M1: return (r & 15) << 2;
    default: return r & 0x3f;
    }
}

static int check_fp(harness_rng *rng, const char *kernel, fp_t ta, fp_t tb, int d_f16, int warps)
{
    const int m = 16, n = 8, k = 32, na = 4, nb = 2, nc = d_f16 ? 2 : 4, regs = na + nb + nc;
    uint32_t *in = harness_xmalloc((size_t)warps * regs * 32 * 4), *out = harness_xmalloc((size_t)warps * nc * 32 * 4);
    double *exp = harness_xmalloc((size_t)warps * 4 * 32 * 8), *tol = harness_xmalloc((size_t)warps * 4 * 32 * 8);
    unsigned a[16 * 32], b[32 * 8];
    double c[16 * 8];
    for (int w = 0; w < warps; w++) {
        uint32_t *win = in + (size_t)w * regs * 32;
        for (int j = 0; j < m * k; j++) a[j] = random_fp(rng, ta);
        for (int j = 0; j < k * n; j++) b[j] = random_fp(rng, tb);
        for (int j = 0; j < m * n; j++) c[j] = ((int)(harness_rng_u32(rng) % 4096) - 2048) / 256.0; /* exact in .f16 */
        memset(win, 0, (size_t)regs * 32 * 4);
        for (int lane = 0; lane < 32; lane++) {
            int g = lane >> 2, t = lane % 4;
            for (int i = 0; i < 16; i++) /* a_i: register i / 4, byte i % 4 */
                win[(i / 4) * 32 + lane] |= a[(g + 8 * ((i / 4) % 2)) * k + t * 4 + i % 4 + 16 * (i / 8)] << (8 * (i % 4));
            for (int i = 0; i < 8; i++)
                win[(na + i / 4) * 32 + lane] |= b[(t * 4 + i % 4 + 16 * (i / 4)) * n + g] << (8 * (i % 4));
            for (int i = 0; i < 4; i++) {
                int r, col;
                acc_position(lane, i, &r, &col);
                double cv = c[r * n + col];
                if (d_f16) {
                    win[(na + nb + i / 2) * 32 + lane] |= (uint32_t)f16_bits(cv) << (16 * (i % 2));
                } else {
                    float f = (float)cv;
                    memcpy(&win[(na + nb + i) * 32 + lane], &f, 4);
                }
                double e = cv, mag = fabs(cv);
                for (int j = 0; j < k; j++) {
                    double p = fp_value(ta, a[r * k + j]) * fp_value(tb, b[j * n + col]);
                    e += p; /* exact: the products and their sum need far fewer than 53 bits */
                    mag += fabs(p);
                }
                size_t at = ((size_t)w * 4 + i) * 32 + lane;
                exp[at] = e;
                tol[at] = (k + 1) * ldexp(mag, -24) + (d_f16 ? ldexp(fabs(e), -11) + ldexp(1, -25) : 0);
            }
        }
    }
    run(kernel, in, out, warps);
    size_t bad = 0;
    for (int w = 0; w < warps; w++)
        for (int lane = 0; lane < 32; lane++)
            for (int i = 0; i < 4; i++) {
                size_t at = ((size_t)w * 4 + i) * 32 + lane;
                double got;
                if (d_f16) {
                    got = f16_value((uint16_t)(out[((size_t)w * nc + i / 2) * 32 + lane] >> (16 * (i % 2))));
                } else {
                    float f;
                    memcpy(&f, &out[((size_t)w * nc + i) * 32 + lane], 4);
                    got = f;
                }
                if (!(fabs(got - exp[at]) <= tol[at]) && bad++ < HARNESS_MAX_REPORTED)
                    fprintf(stderr, "  %s: warp %d lane %d d%d: expected %.9g (+-%.3g), actual %.9g\n", kernel, w, lane, i, exp[at], tol[at], got);
            }
    free(in); free(out); free(exp); free(tol);
    return bad != 0;
}

/* ---- block scaling ---- */

typedef struct {
    const char *kernel;
    int k; /* 32: 8-bit containers (.kind::mxf8f6f4); 64: .e2m1 packed eight to a register */
    fp_t a, b;
    int vec, ue4m3;
    int imm;          /* the kernel's selectors are immediates: only `imm_sel` runs */
    uint16_t imm_sel[4]; /* byte-id-a, thread-id-a, byte-id-b, thread-id-b */
} scaled_t;

static void run_scaled(const char *kernel, void *in, void *out, const uint16_t sel[4], int warps)
{
    const ptxrtKernel *k = harness_find_kernel(kernel);
    uint16_t s0 = sel[0], s1 = sel[1], s2 = sel[2], s3 = sel[3];
    void *args[] = {&in, &out, &s0, &s1, &s2, &s3};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(32 * warps, 1, 1), args, 0, NULL));
}

/* .ue8m0: 2^(e - 127), 0xff NaN; .ue4m3: unsigned E4M3 (bias 7), 0x7f NaN. */
static double scale_value(unsigned byte, int ue4m3)
{
    if (!ue4m3) return byte == 0xff ? NAN : ldexp(1, (int)byte - 127);
    if (byte == 0x7f) return NAN;
    int exp = byte >> 3, man = byte & 7;
    return exp == 0 ? ldexp(man, -9) : ldexp(8 + man, exp - 10);
}

/* A random scale factor: .ue8m0 2^[-w, w] (w 3, or 20 when `wide`), .ue4m3 with
 * exponents 4..10 (about 2^-3 to 2^4). */
static unsigned random_scale(harness_rng *rng, int ue4m3, int wide)
{
    uint32_t r = harness_rng_u32(rng);
    if (ue4m3) return (4 + (r >> 8) % 7) << 3 | (r & 7);
    int w = wide ? 20 : 3;
    return (unsigned)(127 - w + (int)((r >> 8) % (uint32_t)(2 * w + 1)));
}

/* The exponent of the lowest set bit of a non-zero finite double. */
static int low_bit(double v)
{
    int e;
    double f = frexp(fabs(v), &e);
    return e - 53 + __builtin_ctzll((uint64_t)ldexp(f, 53));
}

/* One launch; `nan_row` >= 0 puts a NaN in the last warp's SF_A of that row. Counts the
 * elements checked exactly in *exact. */
static int check_scaled(harness_rng *rng, const scaled_t *f, const uint16_t sel[4], int nan_row, int wide, int warps, int *exact)
{
    const int m = 16, n = 8, k = f->k, regs = 12, per_reg = k == 64 ? 8 : 4, bits = 32 / per_reg, vec = f->vec;
    uint32_t *in = harness_xmalloc((size_t)warps * regs * 32 * 4), *out = harness_xmalloc((size_t)warps * 4 * 32 * 4);
    double *exp = harness_xmalloc((size_t)warps * 4 * 32 * 8), *tol = harness_xmalloc((size_t)warps * 4 * 32 * 8);
    unsigned a[16 * 64], b[64 * 8];
    double c[16 * 8], sfa[16 * 4], sfb[4 * 8];
    for (int w = 0; w < warps; w++) {
        uint32_t *win = in + (size_t)w * regs * 32;
        memset(win, 0, (size_t)regs * 32 * 4);
        for (int j = 0; j < m * k; j++) a[j] = k == 64 ? harness_rng_u32(rng) & 15 : random_fp(rng, f->a);
        for (int j = 0; j < k * n; j++) b[j] = k == 64 ? harness_rng_u32(rng) & 15 : random_fp(rng, f->b);
        for (int j = 0; j < m * n; j++) c[j] = ((int)(harness_rng_u32(rng) % 4096) - 2048) / 256.0;
        for (int lane = 0; lane < 32; lane++)
            for (int byte = 0; byte < 4; byte++) {
                win[10 * 32 + lane] |= random_scale(rng, f->ue4m3, wide) << (8 * byte);
                win[11 * 32 + lane] |= random_scale(rng, f->ue4m3, wide) << (8 * byte);
            }
        if (nan_row >= 0 && w == warps - 1) {
            int lane = 4 * (nan_row % 8) + 2 * sel[1] + nan_row / 8;
            win[10 * 32 + lane] |= (f->ue4m3 ? 0x7fu : 0xffu) << (8 * sel[0]);
        }
        for (int row = 0; row < m; row++)
            for (int v = 0; v < vec; v++)
                sfa[row * vec + v] = scale_value((win[10 * 32 + 4 * (row % 8) + 2 * sel[1] + row / 8] >> (8 * (sel[0] + v))) & 0xff, f->ue4m3);
        for (int col = 0; col < n; col++)
            for (int v = 0; v < vec; v++)
                sfb[v * n + col] = scale_value((win[11 * 32 + 4 * col + sel[3]] >> (8 * (sel[2] + v))) & 0xff, f->ue4m3);
        for (int lane = 0; lane < 32; lane++) {
            int g = lane >> 2, t = lane % 4;
            for (int i = 0; i < 4 * per_reg; i++) {
                int row = g + 8 * ((i / per_reg) % 2), col = t * per_reg + i % per_reg + 4 * per_reg * (i / (2 * per_reg));
                win[(i / per_reg) * 32 + lane] |= a[row * k + col] << (bits * (i % per_reg));
            }
            for (int i = 0; i < 2 * per_reg; i++) {
                int row = t * per_reg + i % per_reg + 4 * per_reg * (i / per_reg);
                win[(4 + i / per_reg) * 32 + lane] |= b[row * n + g] << (bits * (i % per_reg));
            }
            for (int i = 0; i < 4; i++) {
                int r, col;
                acc_position(lane, i, &r, &col);
                float cf = (float)c[r * n + col];
                memcpy(&win[(6 + i) * 32 + lane], &cf, 4);
                double e = c[r * n + col], mag = fabs(e);
                int lo = e != 0 ? low_bit(e) : 1 << 20;
                for (int j = 0; j < k; j++) {
                    int blk = j * vec / k;
                    double av = k == 64 ? fp_value(E2M1, a[r * k + j] << 2) : fp_value(f->a, a[r * k + j]);
                    double bv = k == 64 ? fp_value(E2M1, b[j * n + col] << 2) : fp_value(f->b, b[j * n + col]);
                    double p = (av * sfa[r * vec + blk]) * (bv * sfb[blk * n + col]); /* exact */
                    e += p;
                    mag += fabs(p);
                    if (p != 0 && isfinite(p) && low_bit(p) < lo) lo = low_bit(p);
                }
                size_t at = ((size_t)w * 4 + i) * 32 + lane;
                exp[at] = e;
                /* Multiples of 2^lo below 2^(lo + 24): every partial sum is exact in f32. */
                int is_exact = isnan(e) || mag < ldexp(1, lo + 24);
                tol[at] = is_exact ? 0 : (k + 1) * ldexp(mag, -24);
                *exact += is_exact;
            }
        }
    }
    run_scaled(f->kernel, in, out, sel, warps);
    size_t bad = 0;
    for (size_t at = 0; at < (size_t)warps * 4 * 32; at++) {
        float got;
        memcpy(&got, &out[at], 4);
        int ok = isnan(exp[at]) ? isnan(got) : tol[at] == 0 ? got == exp[at] : fabs(got - exp[at]) <= tol[at];
        if (!ok && bad++ < HARNESS_MAX_REPORTED)
            fprintf(stderr, "  %s {%u,%u} {%u,%u} [%zu]: expected %.9g (+-%.3g), actual %.9g\n", f->kernel, sel[0], sel[1], sel[2], sel[3], at, exp[at], tol[at], got);
    }
    free(in); free(out); free(exp); free(tol);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x120au);
    int rc = 0;

    static const struct { const char *kernel; int m, k, is_and; } b1[] = {
        {"b1_xor_m8n8k128", 8, 128, 0}, {"b1_xor_m16n8k128", 16, 128, 0}, {"b1_xor_m16n8k256", 16, 256, 0},
        {"b1_and_m8n8k128", 8, 128, 1}, {"b1_and_m16n8k128", 16, 128, 1}, {"b1_and_m16n8k256", 16, 256, 1},
    };
    int fails = 0, shapes = 0;
    for (size_t i = 0; i < sizeof b1 / sizeof b1[0]; i++)
        for (int warps = 1; warps <= 3; warps += 2, shapes++) fails += check_b1(&rng, b1[i].kernel, b1[i].m, b1[i].k, b1[i].is_and, warps);
    rc |= harness_finish("mma_b1", shapes, fails);

    static const struct { const char *kernel; int m, k, mode; } f64[] = {
        {"f64_rn_m8n8k4", 8, 4, FE_TONEAREST}, {"f64_rz_m8n8k4", 8, 4, FE_TOWARDZERO}, {"f64_rm_m8n8k4", 8, 4, FE_DOWNWARD},
        {"f64_rp_m8n8k4", 8, 4, FE_UPWARD}, {"f64_rm_m16n8k4", 16, 4, FE_DOWNWARD}, {"f64_rp_m16n8k8", 16, 8, FE_UPWARD},
        {"f64_rz_m16n8k16", 16, 16, FE_TOWARDZERO}, {"f64_rm_m16n8k16", 16, 16, FE_DOWNWARD}, {"f64_rp_m16n8k16", 16, 16, FE_UPWARD},
    };
    fails = shapes = 0;
    for (size_t i = 0; i < sizeof f64 / sizeof f64[0]; i++)
        for (int sparse = 0; sparse <= 1; sparse++, shapes++) fails += check_f64(&rng, f64[i].kernel, f64[i].m, f64[i].k, f64[i].mode, sparse, sparse ? 3 : 2);
    static const struct { const char *kernel; int mode; } wmma_f64[] = {
        {"wmma_f64_rn", FE_TONEAREST}, {"wmma_f64_rz", FE_TOWARDZERO}, {"wmma_f64_rm", FE_DOWNWARD}, {"wmma_f64_rp", FE_UPWARD},
    };
    for (size_t i = 0; i < sizeof wmma_f64 / sizeof wmma_f64[0]; i++)
        for (int sparse = 0; sparse <= 1; sparse++, shapes++) fails += check_wmma_f64(&rng, wmma_f64[i].kernel, wmma_f64[i].mode, sparse);
    rc |= harness_finish("mma_f64_rounding", shapes, fails);

    static const struct { const char *kernel; fp_t a, b; int d_f16; } fp[] = {
        {"f8f6f4_f32_e3m2_e2m3", E3M2, E2M3, 0}, {"f8f6f4_f32_e2m1_e2m1", E2M1, E2M1, 0}, {"f8f6f4_f16_e2m3_e3m2", E2M3, E3M2, 1},
        {"f8f6f4_f32_e2m1_e4m3", E2M1, E4M3, 0}, {"f8f6f4_f16_e5m2_e2m1", E5M2, E2M1, 1}, {"f8f6f4_f32_e4m3_e5m2", E4M3, E5M2, 0},
    };
    fails = shapes = 0;
    for (size_t i = 0; i < sizeof fp / sizeof fp[0]; i++)
        for (int warps = 1; warps <= 3; warps += 2, shapes++) fails += check_fp(&rng, fp[i].kernel, fp[i].a, fp[i].b, fp[i].d_f16, warps);
    rc |= harness_finish("mma_f8f6f4", shapes, fails);

    static const scaled_t scaled[] = {
        {"mxf8f6f4_e4m3_e2m1", 32, E4M3, E2M1, 1, 0, 0, {0}},
        {"mxf8f6f4_1x_e3m2_e2m3", 32, E3M2, E2M3, 1, 0, 0, {0}},
        {"mxf8f6f4_1x_e5m2_e4m3", 32, E5M2, E4M3, 1, 0, 0, {0}},
        {"mxf8f6f4_imm_e2m1_e3m2", 32, E2M1, E3M2, 1, 0, 1, {3, 1, 2, 3}},
        {"mxf4_e2m1", 64, E2M1, E2M1, 2, 0, 0, {0}},
        {"mxf4_2x_imm", 64, E2M1, E2M1, 2, 0, 1, {2, 1, 0, 2}},
        {"mxf4nvf4_2x_ue8m0", 64, E2M1, E2M1, 2, 0, 0, {0}},
        {"mxf4nvf4_4x_ue8m0", 64, E2M1, E2M1, 4, 0, 0, {0}},
        {"mxf4nvf4_4x_ue4m3", 64, E2M1, E2M1, 4, 1, 0, {0}},
        {"mxf4nvf4_4x_ue4m3_imm", 64, E2M1, E2M1, 4, 1, 1, {0, 1, 0, 3}},
    };
    int exact = 0;
    fails = shapes = 0;
    for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++) {
        const scaled_t *f = &scaled[i];
        if (f->imm) {
            for (int warps = 1; warps <= 3; warps += 2, shapes++) fails += check_scaled(&rng, f, f->imm_sel, warps == 3 ? 11 : -1, warps == 3, warps, &exact);
            continue;
        }
        /* Every selector combination of Table 37 for the kernel's scale vector size. */
        int run_no = 0;
        for (uint16_t byte_a = 0; byte_a < 4; byte_a++)
            for (uint16_t thread_a = 0; thread_a < 2; thread_a++)
                for (uint16_t byte_b = 0; byte_b < 4; byte_b++)
                    for (uint16_t thread_b = 0; thread_b < 4; thread_b++) {
                        if (byte_a % f->vec || byte_b % f->vec || byte_a + f->vec > 4 || byte_b + f->vec > 4) continue;
                        const uint16_t sel[4] = {byte_a, thread_a, byte_b, thread_b};
                        int nan_row = run_no % 4 == 3 ? run_no % 16 : -1;
                        fails += check_scaled(&rng, f, sel, nan_row, run_no % 2, 1 + run_no % 3, &exact);
                        run_no++, shapes++;
                    }
    }
    if (exact == 0) {
        fprintf(stderr, "  mma_block_scale: no element was checked exactly\n");
        fails++;
    }
    rc |= harness_finish("mma_block_scale", shapes, fails);
    return rc;
}
