/* ring_indices_host.c: runs tests/kernels/ring_indices.ptx (NVRTC output of
 * ring_indices.cu): regions that read a neighbour in a ring of threads at a wrapped index,
 * `(t + c) & m` or `(t + c) % n`, which the block function runs in segments where the index
 * is affine. Checks every output bit for bit against a host simulation.
 *
 *   ring_smooth  three rotated buffers, neighbours (t + 1) & (nt - 1) and (t + nt - 1) &
 *                (nt - 1), 1D and 2D blocks (a ring per row), nt not a power of two too
 *   ring_params  mask and moduli from parameters: low masks, other masks, 0 and 0xffffffff,
 *                small, zero and negative moduli, operands that are negative or wrap past
 *                2^32 within a row
 *   ring_rotate  (t + k + 1) % n from a loop counter kept across the barrier
 *   ring_urem, ring_srem, ring_shift, ring_div, ring_sshift  one instruction alone on t + shift
 *                (check_one_op): operands wrapping past 2^32 or crossing 2^31, negative
 *                operands, zero and negative moduli, INT_MIN % -1, shifts of 0 and 32
 *   ring_tiles   warp t >> 5 and lane t & 31 (t & -32 in NVRTC's code), tile row t / w and
 *                column t % w (w of 0 or negative takes the other branch), a 64-bit shift
 *   ring_global  no barrier: a periodic stencil over the whole array, (i + 1) % n of the
 *                global index behind the i < n guard (blocks run fused along x)
 *   ring_pitched no barrier: a copy into a pitched 2D array at row i / w, column i % w
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_smooth(unsigned grid, unsigned nt, unsigned ny, int steps)
{
    const ptxrtKernel *k = harness_find_kernel("ring_smooth");
    size_t rows = (size_t)grid * ny, n = rows * nt;
    float *in = harness_xmalloc(n * 3 * 4), *out = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    harness_rng rng;
    harness_rng_seed(&rng, grid * 7u + nt * 131u + ny * 17u + (unsigned)steps);
    harness_fill_float(&rng, in, n * 3, -4.0f, 4.0f);
    float *s = harness_xmalloc((size_t)3 * nt * 4);
    for (size_t r = 0; r < rows; r++) {
        memcpy(s, in + r * nt * 3, (size_t)nt * 3 * 4);
        int w = 0, r1 = 1, r2 = 2;
        for (int step = 0; step < steps; step++) {
            for (unsigned t = 0; t < nt; t++) {
                /* The kernel's reads of this step see the buffers before its writes (a
                 * barrier after them): r1 and r2 are not written in this step. */
                float a = s[r1 * nt + ((t + 1) & (nt - 1))], b = s[r2 * nt + ((t + nt - 1) & (nt - 1))], c = s[w * nt + t];
                s[w * nt + t] = fmaf(a, 0.5f, fmaf(b, 0.25f, c * 0.25f));
            }
            int u = w;
            w = r1;
            r1 = r2;
            r2 = u;
        }
        memcpy(want + r * nt, s + r2 * nt, (size_t)nt * 4);
    }
    void *args[] = {&in, &out, &steps};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(nt, ny, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("ring_smooth", (uint32_t *)want, (uint32_t *)out, n);
    if (bad) fprintf(stderr, "ring_smooth: grid %u block %u x %u steps %d\n", grid, nt, ny, steps);
    free(in); free(out); free(want); free(s);
    return bad != 0;
}

static int check_params(unsigned grid, unsigned bx, unsigned by, int shift, unsigned mask, int smod, unsigned umod)
{
    const ptxrtKernel *k = harness_find_kernel("ring_params");
    unsigned nt = bx * by;
    size_t n = (size_t)grid * nt;
    int32_t *in = harness_xmalloc(n * 4), *out = harness_xmalloc(n * 6 * 4), *want = harness_xmalloc(n * 6 * 4);
    harness_rng rng;
    harness_rng_seed(&rng, grid * 5u + nt + (uint32_t)shift + mask);
    for (size_t i = 0; i < n; i++) in[i] = (int32_t)harness_rng_u32(&rng);
    for (unsigned b = 0; b < grid; b++) {
        const int32_t *s = in + (size_t)b * nt;
        for (unsigned y = 0; y < by; y++)
            for (unsigned x = 0; x < bx; x++) {
                uint32_t a = x + (uint32_t)shift;
                uint32_t m = (a + y) & mask;
                /* rem.s32 truncates like C's %; computed in 64 bits (no INT_MIN % -1 here). */
                int32_t r = smod != 0 ? (int32_t)((int64_t)(int32_t)a % smod) : 0;
                uint32_t q = umod != 0 ? a % umod : 0u;
                int32_t *e = want + 6 * ((size_t)b * nt + y * bx + x);
                e[0] = (int32_t)m;
                e[1] = r;
                e[2] = (int32_t)q;
                e[3] = s[m & (nt - 1)];
                e[4] = s[(uint32_t)r & (nt - 1)];
                e[5] = s[q & (nt - 1)];
            }
    }
    void *args[] = {&in, &out, &shift, &mask, &smod, &umod};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(bx, by, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("ring_params (and, rem.s32, rem.u32, three reads)", (uint32_t *)want, (uint32_t *)out, n * 6);
    if (bad) fprintf(stderr, "ring_params: grid %u block %u x %u shift %d mask %#x smod %d umod %u\n", grid, bx, by, shift, mask, smod, umod);
    free(in); free(out); free(want);
    return bad != 0;
}

static int check_rotate(unsigned grid, unsigned n, int rounds)
{
    const ptxrtKernel *k = harness_find_kernel("ring_rotate");
    size_t total = (size_t)grid * n;
    int32_t *in = harness_xmalloc(total * 4), *out = harness_xmalloc(total * 4), *want = harness_xmalloc(total * 4);
    harness_rng rng;
    harness_rng_seed(&rng, grid * 3u + n * 11u + (unsigned)rounds);
    harness_fill_u32(&rng, (uint32_t *)in, total, 1000);
    int32_t *s = harness_xmalloc((size_t)2 * n * 4);
    for (unsigned b = 0; b < grid; b++) {
        memcpy(s, in + (size_t)b * n, (size_t)n * 4);
        for (int r = 0; r < rounds; r++)
            for (unsigned t = 0; t < n; t++)
                s[((r + 1) & 1) * n + t] = s[(r & 1) * n + (t + (unsigned)r + 1) % n] + (int32_t)t;
        memcpy(want + (size_t)b * n, s + (rounds & 1) * n, (size_t)n * 4);
    }
    void *args[] = {&in, &out, &rounds};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(n, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("ring_rotate", (uint32_t *)want, (uint32_t *)out, total);
    if (bad) fprintf(stderr, "ring_rotate: grid %u n %u rounds %d\n", grid, n, rounds);
    free(in); free(out); free(want); free(s);
    return bad != 0;
}

/* ring_tiles: warp and lane, row and column of a w-wide tile, t / 33, and a 64-bit shift. */
static int check_tiles(unsigned grid, unsigned nt, int w)
{
    const ptxrtKernel *k = harness_find_kernel("ring_tiles");
    size_t total = (size_t)grid * nt;
    int32_t *in = harness_xmalloc(total * 4), *out = harness_xmalloc(total * 4 * 4), *want = harness_xmalloc(total * 4 * 4);
    int32_t *s = harness_xmalloc((size_t)2 * nt * 4);
    harness_rng rng;
    harness_rng_seed(&rng, grid * 17u + nt + (uint32_t)w);
    for (size_t i = 0; i < total; i++) in[i] = (int32_t)harness_rng_u32(&rng);
    for (unsigned b = 0; b < grid; b++) {
        for (unsigned t = 0; t < nt; t++) {
            s[t] = in[(size_t)b * nt + t];
            s[t + nt] = in[(size_t)b * nt + t] ^ 0x5555;
        }
        for (unsigned t = 0; t < nt; t++) {
            unsigned lane = t & 31, warp = t >> 5;
            int r = w > 0 ? (int)t / w : 0, c = w > 0 ? (int)t % w : 0;
            int32_t *e = want + 4 * ((size_t)b * nt + t);
            e[0] = s[warp * 32 + (31 - lane)];
            e[1] = s[r + c];
            e[2] = (int32_t)(t / 33u);
            e[3] = s[nt + (t >> 6) % 8];
        }
    }
    void *args[] = {&in, &out, &w};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(nt, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("ring_tiles", (uint32_t *)want, (uint32_t *)out, total * 4);
    if (bad) fprintf(stderr, "ring_tiles: grid %u block %u w %d\n", grid, nt, w);
    free(in); free(out); free(want); free(s);
    return bad != 0;
}

/* The single-instruction kernels: r = op(t + shift, amount) and the element at
 * min(r, nt - 1). A zero divisor gives all ones, INT_MIN % -1 gives 0, a shift of 32 or
 * more gives 0. */
enum ring_op { RING_UREM, RING_SREM, RING_SHIFT, RING_DIV, RING_SSHIFT };

static uint32_t ring_op_value(enum ring_op op, uint32_t a, uint32_t amount)
{
    switch (op) {
    case RING_UREM: return amount == 0 ? 0xffffffffu : a % amount;
    case RING_SREM: return amount == 0 ? 0xffffffffu : (uint32_t)(int32_t)((int64_t)(int32_t)a % (int64_t)(int32_t)amount);
    case RING_SHIFT: return amount >= 32 ? 0 : a >> amount;
    case RING_DIV: return amount == 0 ? 0xffffffffu : a / amount;
    /* Amounts above 31 fill with the sign bit (the ISA clamps them to 32). */
    case RING_SSHIFT: return (uint32_t)((int32_t)a >> (amount > 31 ? 31 : amount));
    }
    return 0;
}

static int check_one_op(enum ring_op op, unsigned grid, unsigned nt, uint32_t shift, uint32_t amount)
{
    static const char *names[] = {"ring_urem", "ring_srem", "ring_shift", "ring_div", "ring_sshift"};
    const char *name = names[op];
    const ptxrtKernel *k = harness_find_kernel(name);
    size_t total = (size_t)grid * nt;
    int32_t *in = harness_xmalloc(total * 4), *out = harness_xmalloc(total * 2 * 4), *want = harness_xmalloc(total * 2 * 4);
    harness_rng rng;
    harness_rng_seed(&rng, grid * 13u + nt + shift + amount + (unsigned)op);
    for (size_t i = 0; i < total; i++) in[i] = (int32_t)harness_rng_u32(&rng);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < nt; t++) {
            uint32_t r = ring_op_value(op, t + shift, amount);
            want[2 * ((size_t)b * nt + t)] = (int32_t)r;
            want[2 * ((size_t)b * nt + t) + 1] = in[(size_t)b * nt + (r < nt - 1 ? r : nt - 1)];
        }
    void *args[] = {&in, &out, &shift, &amount};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(nt, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32(name, (uint32_t *)want, (uint32_t *)out, total * 2);
    if (bad) fprintf(stderr, "%s: grid %u block %u shift %#x amount %#x\n", name, grid, nt, shift, amount);
    free(in); free(out); free(want);
    return bad != 0;
}

/* ring_global: out[i] = 0.25 in[(i + n - 1) % n] + 0.5 in[i] + 0.25 in[(i + 1) % n] for
 * i < n (no barrier; the grid may cover more than n threads). */
static int check_global(int n, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("ring_global");
    unsigned grid = (unsigned)(n + (int)block - 1) / block + 1;
    float *in = harness_xmalloc((size_t)n * 4), *out = harness_xmalloc((size_t)n * 4), *want = harness_xmalloc((size_t)n * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)n * 7 + block);
    harness_fill_float(&rng, in, (size_t)n, -8.0f, 8.0f);
    for (int i = 0; i < n; i++)
        want[i] = fmaf(in[(i + 1) % n], 0.25f, fmaf(in[(i + n - 1) % n], 0.25f, 0.5f * in[i]));
    void *args[] = {&in, &out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("ring_global", (uint32_t *)want, (uint32_t *)out, (size_t)n);
    if (bad) fprintf(stderr, "ring_global: n %d block %u\n", n, block);
    free(in); free(out); free(want);
    return bad != 0;
}

/* ring_pitched: out[(i / w) * pitch + i % w] = 2 in[i] + i % w for i < n; the padding
 * between rows keeps its fill. */
static int check_pitched(int w, int h, int pitch, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("ring_pitched");
    int n = w * h;
    unsigned grid = (unsigned)(n + (int)block - 1) / block;
    size_t cells = (size_t)h * pitch;
    float *in = harness_xmalloc((size_t)n * 4), *out = harness_xmalloc(cells * 4), *want = harness_xmalloc(cells * 4);
    harness_rng rng;
    harness_rng_seed(&rng, (uint64_t)w * 31 + (uint64_t)h + (uint64_t)pitch);
    harness_fill_float(&rng, in, (size_t)n, -8.0f, 8.0f);
    for (size_t c = 0; c < cells; c++) out[c] = want[c] = -1.0f;
    for (int i = 0; i < n; i++) want[(size_t)(i / w) * pitch + i % w] = 2.0f * in[i] + (float)(i % w);
    void *args[] = {&in, &out, &n, &w, &pitch};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("ring_pitched", (uint32_t *)want, (uint32_t *)out, cells);
    if (bad) fprintf(stderr, "ring_pitched: w %d h %d pitch %d block %u\n", w, h, pitch, block);
    free(in); free(out); free(want);
    return bad != 0;
}

int main(void)
{
    int rc = 0, f = 0;
    f += check_smooth(7, 256, 1, 64);
    f += check_smooth(5, 64, 4, 13);
    f += check_smooth(3, 96, 2, 10);
    f += check_smooth(2, 512, 1, 3);
    f += check_smooth(4, 1, 8, 5);
    rc |= harness_finish("ring_smooth", 5, f);
    f = 0;
    f += check_params(3, 256, 1, 1, 255u, 256, 256u);
    f += check_params(2, 128, 1, -5, 0x50u, 7, 1000u);
    f += check_params(2, 200, 1, 0x7ffffff0, 0xffffffffu, -3, 0u);
    f += check_params(3, 96, 1, -10, 0u, 100, 96u);
    f += check_params(2, 32, 8, 3, 63u, 40, 33u);
    f += check_params(2, 1024, 1, -700, 511u, -1000, 300u);
    f += check_params(2, 200, 1, 0x7fffff80, 0xffffffffu, 100, 77u);
    rc |= harness_finish("ring_params", 7, f);
    f = 0;
    f += check_rotate(5, 256, 50);
    f += check_rotate(3, 100, 7);
    f += check_rotate(2, 1024, 3);
    f += check_rotate(3, 1, 4);
    rc |= harness_finish("ring_rotate", 4, f);
    f = 0;
    f += check_one_op(RING_UREM, 2, 128, 0xfffffff6u, 96);
    f += check_one_op(RING_UREM, 2, 64, 5, 0);
    f += check_one_op(RING_UREM, 3, 256, 3, 7);
    f += check_one_op(RING_UREM, 2, 1024, 0, 1000);
    rc |= harness_finish("ring_urem", 4, f);
    f = 0;
    f += check_one_op(RING_SREM, 2, 64, 0x7ffffff0u, 100);
    f += check_one_op(RING_SREM, 2, 128, (uint32_t)-20, 7);
    f += check_one_op(RING_SREM, 2, 32, 0x80000000u, (uint32_t)-1);
    f += check_one_op(RING_SREM, 2, 64, 0, 0);
    f += check_one_op(RING_SREM, 2, 256, 1, 64);
    f += check_one_op(RING_SREM, 2, 64, 0, (uint32_t)-7);
    rc |= harness_finish("ring_srem", 6, f);
    f = 0;
    f += check_tiles(3, 256, 16);
    f += check_tiles(2, 96, 7);
    f += check_tiles(2, 64, 0);
    f += check_tiles(2, 1024, 1000);
    f += check_tiles(3, 40, -3);
    f += check_tiles(2, 512, 1);
    rc |= harness_finish("ring_tiles", 6, f);
    f = 0;
    f += check_one_op(RING_SHIFT, 2, 256, 3, 6);
    f += check_one_op(RING_SHIFT, 2, 128, 3, 0);
    f += check_one_op(RING_SHIFT, 2, 64, 3, 32);
    f += check_one_op(RING_SHIFT, 2, 512, 3, 3);
    f += check_one_op(RING_DIV, 2, 256, 0xfffffff0u, 24);
    f += check_one_op(RING_DIV, 2, 64, 0xfffffff0u, 0);
    f += check_one_op(RING_DIV, 2, 128, 0xfffffff0u, 1);
    f += check_one_op(RING_DIV, 2, 1024, 0xfffffff0u, 100);
    rc |= harness_finish("ring_shift_div", 8, f);
    /* shr.s32: NVRTC's int t / 2^k; operands crossing 2^31, negative, amounts 0, 31, 32. */
    f = 0;
    f += check_one_op(RING_SSHIFT, 2, 256, 0x7fffff80u, 6);
    f += check_one_op(RING_SSHIFT, 2, 128, 0xffffffc0u, 3);
    f += check_one_op(RING_SSHIFT, 2, 64, 5, 0);
    f += check_one_op(RING_SSHIFT, 2, 512, 0x7ffffff0u, 31);
    f += check_one_op(RING_SSHIFT, 2, 64, 0xfffffff0u, 32);
    f += check_one_op(RING_SSHIFT, 3, 1024, 0, 5);
    f += check_one_op(RING_SSHIFT, 2, 64, 0x7ffffff0u, 32);
    f += check_one_op(RING_SSHIFT, 2, 128, 0xffffffe0u, 40);
    rc |= harness_finish("ring_sshift", 8, f);
    f = 0;
    f += check_global(1000, 256);
    f += check_global(1, 32);
    f += check_global(777, 128);
    f += check_global(100000, 256);
    f += check_global(4096, 1024);
    rc |= harness_finish("ring_global", 5, f);
    f = 0;
    f += check_pitched(1000, 50, 1024, 256);
    f += check_pitched(7, 300, 9, 128);
    f += check_pitched(1, 500, 1, 64);
    f += check_pitched(300, 40, 300, 1024);
    rc |= harness_finish("ring_pitched", 4, f);
    return rc;
}
