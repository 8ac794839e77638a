/* matrix_sparse_host.c: tests/kernels/matrix_sparse.ptx (hand-written): sparse `mma.sp` and
 * `mma.sp::ordered_metadata` (ISA 9.2 §9.7.14.6), one per warp.
 *
 * Each warp gets a dense A whose rows follow the type's structured sparsity (2:4; 1:2 for
 * .tf32; pairs in 4:8 for 4-bit types) with random positions of the stored elements (in
 * random order for `.sp`, increasing for `.sp::ordered_metadata`), random B and C. The host
 * builds the A fragment from the stored elements with the row/column formulas of the ISA's
 * sparse fragment sections, B and C/D with those of the dense tables, and the metadata with
 * our reading of the ISA's metadata figures (written down in ptxrt's matrix module):
 *   - 16- and 32-bit elements: selected lane j of quad g holds chunks 4j..4j+3 of row g in
 *     bits 0-15 and of row g + 8 in bits 16-31, chunk 4j + i at bit 4i;
 *   - 8- and 4-bit elements: selected lane 2j + h holds chunks 8j..8j+7 of row g + 8h;
 *   - the selector picks one lane of each quad (0-3), a pair (0: lanes 0, 1; 1: lanes 2, 3)
 *     or all four lanes (0); the other lanes' metadata is random and must be ignored.
 * A chunk's 4 bits are two 2-bit indices, the lower for the first stored element (.tf32:
 * 0b0100 or 0b1110; 4:8: indices of element pairs).
 *
 * Expected results: D = C + the sum over the stored elements (the pruned zeros are never
 * multiplied: one warp of the first kernel puts +inf in B where every row of A is pruned).
 * Integers exactly (wrapping, or clamped with .satfinite); floating point within the
 * accumulation-order bound (the values keep every partial sum exact in f32, so only a .f16
 * result's final rounding remains). Block-scaled forms scale each product by the factors of
 * the lanes and bytes the dense block-scaling test checks. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "matrix_elements.h"

enum { M = 16, N = 8, MAX_K = 128, WARPS = 2 };

typedef struct {
    const char *name;
    int k;
    elem_t a, b, c, d;
    int selector, ordered, satfinite;
    int scale_vec, ue4m3; /* block scaling: scale vector size (0: none) */
    int byte_a, thread_a, byte_b, thread_b;
} sparse_form;

static const sparse_form FORMS[] = {
    {"sp_f16_k16_f32_s0", 16, T_F16, T_F16, T_F32, T_F32, 0, 0, 0},
    {"sp_f16_k16_f32_s1", 16, T_F16, T_F16, T_F32, T_F32, 1, 1, 0},
    {"sp_f16_k16_f32_s2", 16, T_F16, T_F16, T_F32, T_F32, 2, 0, 0},
    {"sp_f16_k16_f32_s3", 16, T_F16, T_F16, T_F32, T_F32, 3, 1, 0},
    {"sp_f16_k16_f16_s1", 16, T_F16, T_F16, T_F16, T_F16, 1, 1, 0},
    {"sp_f16_k32_f32_s0", 32, T_F16, T_F16, T_F32, T_F32, 0, 0, 0},
    {"sp_f16_k32_f16_s1", 32, T_F16, T_F16, T_F16, T_F16, 1, 1, 0},
    {"sp_bf16_k16_s2", 16, T_BF16, T_BF16, T_F32, T_F32, 2, 1, 0},
    {"sp_bf16_k32_s1", 32, T_BF16, T_BF16, T_F32, T_F32, 1, 0, 0},
    {"sp_tf32_k8_s3", 8, T_TF32, T_TF32, T_F32, T_F32, 3, 0, 0},
    {"sp_tf32_k16_s0", 16, T_TF32, T_TF32, T_F32, T_F32, 0, 1, 0},
    {"sp_tf32_k16_s1", 16, T_TF32, T_TF32, T_F32, T_F32, 1, 0, 0},
    {"sp_s8_k32_s0", 32, T_S8, T_S8, T_S32, T_S32, 0, 0, 0},
    {"sp_u8s8_k32_s1_sat", 32, T_U8, T_S8, T_S32, T_S32, 1, 1, 1},
    {"sp_s8u8_k64_sat", 64, T_S8, T_U8, T_S32, T_S32, 0, 0, 1},
    {"sp_u8_k64", 64, T_U8, T_U8, T_S32, T_S32, 0, 1, 0},
    {"sp_s4_k64_s1", 64, T_S4, T_S4, T_S32, T_S32, 1, 0, 0},
    {"sp_u4s4_k64_s0_sat", 64, T_U4, T_S4, T_S32, T_S32, 0, 1, 1},
    {"sp_s4_k128_sat", 128, T_S4, T_S4, T_S32, T_S32, 0, 0, 1},
    {"sp_u4_k128", 128, T_U4, T_U4, T_S32, T_S32, 0, 1, 0},
    {"sp_e4m3_e5m2_k64", 64, T_E4M3, T_E5M2, T_F32, T_F32, 0, 0, 0},
    {"sp_f8f6f4_e3m2_e2m1", 64, T_E3M2, T_E2M1, T_F32, T_F32, 0, 1, 0},
    {"sp_f8f6f4_f16_e2m3_e4m3", 64, T_E2M3, T_E4M3, T_F16, T_F16, 0, 1, 0},
    {"sp_mxf8f6f4_e4m3_e2m1", 64, T_E4M3, T_E2M1, T_F32, T_F32, 0, 1, 0, 1, 0, 1, 0, 3, 2},
    {"sp_mxf4_e2m1", 128, T_E2M1_PACKED, T_E2M1_PACKED, T_F32, T_F32, 0, 1, 0, 2, 0, 2, 1, 0, 3},
    {"sp_mxf4nvf4_4x_ue4m3", 128, T_E2M1_PACKED, T_E2M1_PACKED, T_F32, T_F32, 0, 1, 0, 4, 1, 0, 1, 0, 2},
};

/* The sparsity of A: chunks of `width` elements of which `stored` are held. */
static int chunk_width(elem_t a) { return elem_bits(a) == 32 ? 2 : elem_bits(a) == 4 ? 8 : 4; }
static int chunk_stored(elem_t a) { return chunk_width(a) / 2; }

static int acc_regs(elem_t t) { return elem_bits(t) == 16 ? 2 : 4; }

/* §9.7.14.6.2: row and column (among the K/2 stored ones) of element i of lane `lane`'s A. */
static void a_position(const sparse_form *f, int lane, int i, int *row, int *col)
{
    int g = lane >> 2, t = lane % 4, bits = elem_bits(f->a);
    if (bits == 16 && f->k == 16) {
        *row = g + 8 * (i >= 2);
        *col = 2 * t + i % 2;
    } else if (bits == 16) { /* k32 */
        *row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
        *col = 2 * t + i % 2 + 8 * (i >= 4);
    } else if (bits == 32 && f->k == 8) {
        *row = g + 8 * i;
        *col = t;
    } else if (bits == 32) { /* k16 */
        *row = g + 8 * (i % 2);
        *col = t + 4 * (i >= 2);
    } else if (bits == 8 && f->k == 32) {
        *row = g + 8 * (i >= 4);
        *col = 4 * t + i % 4;
    } else if (bits == 8) { /* k64 */
        *row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
        *col = 4 * t + i % 4 + 16 * (i >= 8);
    } else if (f->k == 64) { /* 4-bit */
        *row = g + 8 * (i >= 8);
        *col = 8 * t + i % 8;
    } else { /* 4-bit k128 */
        *row = (i < 8 || (i >= 16 && i < 24)) ? g : g + 8;
        *col = 8 * t + i % 8 + 32 * (i >= 16);
    }
}

/* B element i of lane `lane`: the dense tables' rule (consecutive K in a register, then
 * steps of 4 registers' worth of K), extended to the sparse shapes' larger K. */
static void b_position(elem_t b, int lane, int i, int *row, int *col)
{
    int p = per_reg(b);
    *row = (lane % 4) * p + i % p + (i / p) * 4 * p;
    *col = lane >> 2;
}

static void acc_position(int lane, int i, int *row, int *col)
{
    *row = (lane >> 2) + 8 * (i >= 2);
    *col = 2 * (lane % 4) + (i & 1);
}

/* The bits of a random element of `t` and their value: integers over their whole range,
 * floats small enough that sums stay exact in f32 (and in .f16 for integer-valued ones). */
static uint32_t random_elem(harness_rng *rng, elem_t t, int d_f16, double *value)
{
    uint32_t r = harness_rng_u32(rng), bits;
    switch (t) {
    case T_F16: case T_BF16: case T_TF32: {
        double v = (int)(r % 13) - 6;
        if (!d_f16) v = ldexp(v, (int)((r >> 8) % 3) - 1);
        bits = (uint32_t)encode(t, v);
        if (t == T_TF32) bits |= (r >> 12) & 0x1fff; /* ignored low mantissa bits */
        break;
    }
    case T_S8: case T_U8: bits = r & 0xff; break;
    case T_S4: case T_U4: case T_E2M1_PACKED: bits = r & 15; break;
    case T_E4M3: bits = (r & 0x80) | ((r >> 8) % 6 + 5) << 3 | (r & 7); break;     /* 2^-2 .. 2^3 */
    case T_E5M2: bits = (r & 0x80) | ((r >> 8) % 6 + 13) << 2 | (r & 3); break;    /* 2^-2 .. 2^3 */
    case T_E2M1: bits = (r & 15) << 2; break;
    default: bits = r & 0x3f; break; /* .e3m2, .e2m3 */
    }
    *value = decode(t, bits);
    return bits;
}

/* A block-scaling factor's byte and value: .ue8m0 2^-3..2^3, .ue4m3 exponents -2..2. */
static uint32_t random_scale(harness_rng *rng, int ue4m3)
{
    uint32_t r = harness_rng_u32(rng);
    return ue4m3 ? ((r % 5 + 5) << 3 | (r >> 8) % 8) : 124 + r % 7;
}

static double scale_value(uint32_t byte, int ue4m3)
{
    return ue4m3 ? decode(T_E4M3, byte & 0x7f) : ldexp(1, (int)byte - 127);
}

static void put_bits(uint32_t *reg, elem_t t, int i, uint32_t bits)
{
    int p = per_reg(t), w = elem_bits(t);
    if (p == 1) {
        reg[i * 32] = bits;
        return;
    }
    reg[(i / p) * 32] |= (bits & ((1u << w) - 1)) << (w * (i % p));
}

static int check(harness_rng *rng, const sparse_form *f)
{
    const int k = f->k, half = k / 2, width = chunk_width(f->a), stored = chunk_stored(f->a), chunks = k / width;
    const int na = (k / 4) * elem_bits(f->a) / 32, nb = (k / 4) * elem_bits(f->b) / 32, nc = acc_regs(f->c), nd = acc_regs(f->d);
    const int regs = na + nb + nc + 1 + (f->scale_vec ? 2 : 0);
    const int d_f16 = f->d == T_F16, lanes_per_quad = chunks / 4;
    const int first_lane = lanes_per_quad == 1 ? f->selector : lanes_per_quad == 2 ? 2 * f->selector : 0;
    uint32_t *in = harness_xmalloc((size_t)WARPS * regs * 32 * 4), *out = harness_xmalloc((size_t)WARPS * nd * 32 * 4);
    double *exp = harness_xmalloc((size_t)WARPS * 4 * 32 * 8), *tol = harness_xmalloc((size_t)WARPS * 4 * 32 * 8);
    static uint32_t a_bits[M][MAX_K / 2], b_bits[MAX_K][N];
    static double a_val[M][MAX_K / 2], b_val[MAX_K][N], c_val[M][N];
    static int a_col[M][MAX_K / 2];     /* dense column of each stored element */
    static unsigned nibble[M][MAX_K / 2]; /* metadata of each chunk */
    static double sf_a[M][4], sf_b[4][N];
    memset(in, 0, (size_t)WARPS * regs * 32 * 4);
    for (int w = 0; w < WARPS; w++) {
        uint32_t *win = in + (size_t)w * regs * 32;
        /* One warp where position 3 of chunk 0 is pruned in every row, with +inf in B there. */
        int pruned_inf = w == 1 && f == &FORMS[0];
        for (int r = 0; r < M; r++)
            for (int ch = 0; ch < chunks; ch++) {
                int pos[4], groups = stored == 4 ? 2 : stored; /* 4:8: two pairs */
                int choices = stored == 1 ? 2 : 4;
                do {
                    pos[0] = (int)(harness_rng_u32(rng) % choices);
                    pos[1] = (int)(harness_rng_u32(rng) % choices);
                } while (groups == 2 && (pos[0] == pos[1] || (pruned_inf && ch == 0 && (pos[0] == 3 || pos[1] == 3))));
                if (groups == 2 && f->ordered && pos[0] > pos[1]) {
                    int t = pos[0];
                    pos[0] = pos[1];
                    pos[1] = t;
                }
                nibble[r][ch] = stored == 1 ? (pos[0] ? 0xe : 0x4) : (unsigned)(pos[0] | pos[1] << 2);
                for (int j = 0; j < stored; j++) {
                    int c = ch * stored + j;
                    a_bits[r][c] = random_elem(rng, f->a, d_f16, &a_val[r][c]);
                    a_col[r][c] = ch * width + (stored == 4 ? 2 * pos[j / 2] + j % 2 : pos[j]);
                }
            }
        for (int j = 0; j < k; j++)
            for (int col = 0; col < N; col++) b_bits[j][col] = random_elem(rng, f->b, d_f16, &b_val[j][col]);
        if (pruned_inf) /* .f16 +inf */
            for (int col = 0; col < N; col++) b_val[3][col] = decode(f->b, b_bits[3][col] = 0x7c00);
        for (int r = 0; r < M; r++)
            for (int col = 0; col < N; col++)
                c_val[r][col] = is_int(f->c) ? (double)(int32_t)harness_rng_u32(rng) : ((int)(harness_rng_u32(rng) % 512) - 256) / (d_f16 ? 1.0 : 4.0);
        c_val[0][0] = is_int(f->c) ? INT32_MAX - 5 : c_val[0][0]; /* wraps or saturates */
        c_val[9][1] = is_int(f->c) ? INT32_MIN + 5 : c_val[9][1];
        for (int lane = 0; lane < 32; lane++) {
            int r, c;
            for (int i = 0; i < na * per_reg(f->a); i++) {
                a_position(f, lane, i, &r, &c);
                put_bits(&win[lane], f->a, i, a_bits[r][c]);
            }
            for (int i = 0; i < nb * per_reg(f->b); i++) {
                b_position(f->b, lane, i, &r, &c);
                put_bits(&win[na * 32 + lane], f->b, i, b_bits[r][c]);
            }
            for (int i = 0; i < 4; i++) {
                acc_position(lane, i, &r, &c);
                uint32_t bits;
                if (f->c == T_F16) put_bits(&win[(na + nb) * 32 + lane], T_F16, i, f16_bits(c_val[r][c]));
                else if (f->c == T_F32) {
                    float v = (float)c_val[r][c];
                    memcpy(&bits, &v, 4);
                    win[(na + nb + i) * 32 + lane] = bits;
                } else win[(na + nb + i) * 32 + lane] = (uint32_t)(int32_t)c_val[r][c];
            }
            /* Metadata: the selected lanes of each quad hold it, the others hold noise. */
            int g = lane >> 2, j = lane % 4 - first_lane;
            uint32_t meta = 0;
            if (j < 0 || j >= lanes_per_quad) meta = harness_rng_u32(rng);
            else if (elem_bits(f->a) >= 16)
                for (int i = 0; i < 4; i++) meta |= nibble[g][4 * j + i] << (4 * i) | nibble[g + 8][4 * j + i] << (16 + 4 * i);
            else
                for (int i = 0; i < 8; i++) meta |= nibble[g + 8 * (j % 2)][8 * (j / 2) + i] << (4 * i);
            win[(na + nb + nc) * 32 + lane] = meta;
            if (f->scale_vec) {
                win[(na + nb + nc + 1) * 32 + lane] = harness_rng_u32(rng);
                win[(na + nb + nc + 2) * 32 + lane] = harness_rng_u32(rng);
                for (int b = 0; b < 4; b++) { /* every byte a valid factor */
                    win[(na + nb + nc + 1) * 32 + lane] = (win[(na + nb + nc + 1) * 32 + lane] & ~(0xffu << 8 * b)) | random_scale(rng, f->ue4m3) << 8 * b;
                    win[(na + nb + nc + 2) * 32 + lane] = (win[(na + nb + nc + 2) * 32 + lane] & ~(0xffu << 8 * b)) | random_scale(rng, f->ue4m3) << 8 * b;
                }
            }
        }
        /* Scale factors: A's row r from lane 4(r % 8) + 2 thread-id-a + r / 8, B's column c
         * from lane 4c + thread-id-b, bytes byte-id + v. */
        for (int r = 0; r < M; r++)
            for (int v = 0; v < (f->scale_vec ? f->scale_vec : 1); v++) {
                uint32_t data = win[(na + nb + nc + 1) * 32 + 4 * (r % 8) + 2 * f->thread_a + r / 8];
                sf_a[r][v] = f->scale_vec ? scale_value((data >> 8 * (f->byte_a + v)) & 0xff, f->ue4m3) : 1;
            }
        for (int col = 0; col < N; col++)
            for (int v = 0; v < (f->scale_vec ? f->scale_vec : 1); v++) {
                uint32_t data = win[(na + nb + nc + 2) * 32 + 4 * col + f->thread_b];
                sf_b[v][col] = f->scale_vec ? scale_value((data >> 8 * (f->byte_b + v)) & 0xff, f->ue4m3) : 1;
            }
        for (int lane = 0; lane < 32; lane++)
            for (int i = 0; i < 4; i++) {
                int r, col;
                acc_position(lane, i, &r, &col);
                double e = c_val[r][col], mag = fabs(e);
                for (int c = 0; c < half; c++) {
                    int kk = a_col[r][c], block = f->scale_vec ? kk * f->scale_vec / k : 0;
                    double p = a_val[r][c] * sf_a[r][block] * b_val[kk][col] * sf_b[block][col];
                    e += p; /* exact in double */
                    mag += fabs(p);
                }
                size_t at = ((size_t)w * 4 + i) * 32 + lane;
                if (is_int(f->d)) {
                    if (f->satfinite) e = e > INT32_MAX ? INT32_MAX : e < INT32_MIN ? INT32_MIN : e;
                    exp[at] = (double)(int32_t)(uint32_t)(int64_t)e;
                    tol[at] = 0;
                } else {
                    exp[at] = e;
                    tol[at] = (half + 2) * ldexp(mag, -24) + (d_f16 ? ldexp(fabs(e), -11) : 0);
                }
            }
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel(f->name), harness_dim3(1, 1, 1), harness_dim3(32 * WARPS, 1, 1), args, 0, NULL));
    size_t bad = 0;
    for (int w = 0; w < WARPS; w++)
        for (int lane = 0; lane < 32; lane++)
            for (int i = 0; i < 4; i++) {
                size_t at = ((size_t)w * 4 + i) * 32 + lane;
                double actual;
                if (d_f16) actual = f16_value((uint16_t)(out[((size_t)w * nd + i / 2) * 32 + lane] >> (16 * (i % 2))));
                else actual = decode(f->d, out[((size_t)w * nd + i) * 32 + lane]);
                int same = tol[at] == 0 ? actual == exp[at] : fabs(actual - exp[at]) <= tol[at];
                if (!same && bad++ < HARNESS_MAX_REPORTED)
                    fprintf(stderr, "  %s: warp %d lane %d element %d: expected %.17g, actual %.17g\n", f->name, w, lane, i, exp[at], actual);
            }
    free(in); free(out); free(exp); free(tol);
    return bad != 0;
}

/* Selector 2 where a lane pair holds the metadata (ptxas accepts it for `.f16` m16n8k32 with
 * `.f32` accumulators; the ISA leaves it undefined): a launch failure that says so. */
static int check_undefined_selector(void)
{
    enum { REGS = 4 + 4 + 4 + 1 };
    uint32_t in[REGS * 32] = {0}, out[4 * 32];
    void *inp = in, *outp = out, *args[] = {&inp, &outp};
    ptxrtError_t err = ptxrtLaunchKernel(harness_find_kernel("sp_f16_k32_f32_selector2"), harness_dim3(1, 1, 1), harness_dim3(32, 1, 1), args, 0, NULL);
    const char *msg = ptxrtGetLastErrorMessage();
    if (err == ptxrtErrorLaunchFailure && msg && strstr(msg, "sparsity selector 2")) return 0;
    fprintf(stderr, "  sp_f16_k32_f32_selector2: expected a launch failure naming the selector, got %d (%s)\n", (int)err, msg ? msg : "no message");
    return 1;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x5ca77e5);
    int failed = 0, count = (int)(sizeof FORMS / sizeof FORMS[0]);
    for (int i = 0; i < count; i++) failed |= check(&rng, &FORMS[i]);
    failed |= check_undefined_selector();
    if (failed) return 1;
    printf("mma_sparse: %d shapes OK\n", count);
    return 0;
}
