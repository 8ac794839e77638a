/* atomics_wide_host.c: runs tests/kernels/atomics_wide.ptx (hand-written PTX) and checks
 * atomics on 16-bit, 128-bit, packed half and vector types. Blocks run on several cores,
 * so the counts are only exact if each element update is a real atomic.
 *
 *   half_adds(cells)             f16/bf16/f16x2/bf16x2 add.noftz, v4/v2.f32 add
 *   half_minmax(cells)           v8.f16 max, v8.bf16 min, v2.f16x2 max
 *   cas16(counts)                atom.cas.b16 on the two halves of a word, global and shared
 *   cas128(cell, seen)           atom.cas.b128 (no torn updates), atom.exch.b128
 *   half_add_pairs(pairs, out, n) one add per thread: rounding, overflow, subnormals, NaN
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_u16(const char *what, uint16_t expected, uint16_t actual)
{
    if (expected == actual) return 0;
    fprintf(stderr, "%s: expected %#06x, got %#06x\n", what, expected, actual);
    return 1;
}

static int check_u64(const char *what, uint64_t expected, uint64_t actual)
{
    if (expected == actual) return 0;
    fprintf(stderr, "%s: expected %llu, got %llu\n", what, (unsigned long long)expected, (unsigned long long)actual);
    return 1;
}

static int is_f16_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }
static int is_bf16_nan(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0; }

static int check_half_adds(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("half_adds");
    unsigned n = grid * block;
    unsigned char *cells = harness_xmalloc(64);
    memset(cells, 0, 64);
    void *args[] = {&cells};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    uint16_t h[6];
    memcpy(h, cells, 12);
    float f[6];
    memcpy(f, cells + 16, 24);
    int bad = 0;
    /* f16 holds every integer up to 2048 and even ones up to 4096 exactly; bf16 up to 256
     * and 512. Past that, adding 1.0 (2.0) is a tie that rounds back to the even
     * neighbour, so the sums stop there whatever the order of the additions. */
    unsigned f16_1 = n < 2048 ? n : 2048, f16_2 = 2 * n < 4096 ? 2 * n : 4096;
    unsigned bf_1 = n < 256 ? n : 256, bf_2 = 2 * n < 512 ? 2 * n : 512;
    /* These integers as f16/bf16 bits (exact). */
    uint16_t e16_1 = 0, e16_2 = 0, eb_1 = 0, eb_2 = 0;
    {
        float vals[4] = {(float)f16_1, (float)f16_2, (float)bf_1, (float)bf_2};
        uint16_t *outs[4] = {&e16_1, &e16_2, &eb_1, &eb_2};
        for (int i = 0; i < 4; i++) {
            uint32_t b;
            memcpy(&b, &vals[i], 4);
            int e = (int)((b >> 23) & 0xff) - 127;
            uint32_t frac = b & 0x7fffff;
            if (i < 2) *outs[i] = vals[i] == 0 ? 0 : (uint16_t)(((e + 15) << 10) | (frac >> 13));
            else *outs[i] = (uint16_t)(b >> 16);
        }
    }
    bad |= check_u16("f16 add", e16_1, h[0]);
    bad |= check_u16("bf16 add", eb_1, h[1]);
    bad |= check_u16("f16x2 add low", e16_1, h[2]);
    bad |= check_u16("f16x2 add high", e16_2, h[3]);
    bad |= check_u16("bf16x2 add low", eb_1, h[4]);
    bad |= check_u16("bf16x2 add high", eb_2, h[5]);
    for (int i = 0; i < 4; i++) {
        if (f[i] != (float)(n * (i + 1))) {
            fprintf(stderr, "v4.f32 add lane %d: expected %u, got %g\n", i, n * (i + 1), f[i]);
            bad = 1;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (f[4 + i] != (float)(n * (i + 1))) {
            fprintf(stderr, "v2.f32 red lane %d: expected %u, got %g\n", i, n * (i + 1), f[4 + i]);
            bad = 1;
        }
    }
    if (bad) fprintf(stderr, "half_adds grid=%u block=%u\n", grid, block);
    free(cells);
    return bad;
}

static int check_half_minmax(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("half_minmax");
    unsigned n = grid * block;
    uint16_t cells[20];
    for (int i = 0; i < 8; i++) cells[i] = 0xfc00;      /* -inf: max identity */
    for (int i = 8; i < 16; i++) cells[i] = 0x7f80;     /* +inf (bf16): min identity */
    for (int i = 16; i < 20; i++) cells[i] = 0xfc00;
    uint16_t *dev = harness_xmalloc(sizeof cells);
    memcpy(dev, cells, sizeof cells);
    void *args[] = {&dev};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    /* Thread t offers t and -t (t = id mod 256); t = 0 gives +0 and -0. */
    unsigned top = n < 256 ? n - 1 : 255;
    float topf = (float)top;
    uint32_t b;
    memcpy(&b, &topf, 4);
    uint16_t f16_top = top == 0 ? 0 : (uint16_t)((((int)((b >> 23) & 0xff) - 127 + 15) << 10) | ((b & 0x7fffff) >> 13));
    uint16_t bf16_neg_top = (uint16_t)((b >> 16) | 0x8000);
    if (top == 0) bf16_neg_top = 0x8000;
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        char what[48];
        snprintf(what, sizeof what, "v8.f16 max lane %d", i);
        /* max(-t) over t is -0: -0 only ties with itself, it is above every -t < 0. */
        bad |= check_u16(what, i % 2 == 0 ? f16_top : 0x8000, dev[i]);
        snprintf(what, sizeof what, "v8.bf16 min lane %d", i);
        /* min(t) over t is +0 (from t = 0). */
        bad |= check_u16(what, i % 2 == 0 ? 0x0000 : bf16_neg_top, dev[8 + i]);
    }
    for (int i = 0; i < 4; i++) {
        char what[48];
        snprintf(what, sizeof what, "v2.f16x2 max half %d", i);
        bad |= check_u16(what, i % 2 == 0 ? f16_top : 0x8000, dev[16 + i]);
    }
    if (bad) fprintf(stderr, "half_minmax grid=%u block=%u\n", grid, block);
    free(dev);
    return bad;
}

static int check_cas16(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("cas16");
    uint32_t *counts = harness_xmalloc(16);
    memset(counts, 0, 16);
    void *args[] = {&counts};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    unsigned even = grid * ((block + 1) / 2), odd = grid * (block / 2);
    int bad = 0;
    bad |= check_u16("global b16 count (even threads)", (uint16_t)even, (uint16_t)(counts[0] & 0xffff));
    bad |= check_u16("global b16 count (odd threads)", (uint16_t)odd, (uint16_t)(counts[0] >> 16));
    bad |= check_u64("shared b16 counts (even threads)", even, counts[1]);
    bad |= check_u64("shared b16 counts (odd threads)", odd, counts[2]);
    if (bad) fprintf(stderr, "cas16 grid=%u block=%u\n", grid, block);
    free(counts);
    return bad;
}

static int check_cas128(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("cas128");
    uint64_t *cell = harness_xmalloc(32);
    uint64_t *seen = harness_xmalloc((size_t)grid * 16);
    cell[0] = cell[1] = 0;
    cell[2] = 0;
    cell[3] = ~(uint64_t)0;
    void *args[] = {&cell, &seen};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    uint64_t n = (uint64_t)grid * block;
    int bad = 0;
    bad |= check_u64("cas.b128 low word", n, cell[0]);
    bad |= check_u64("cas.b128 high word", 3 * n, cell[1]);
    /* The exchanges form one chain: what the blocks saw plus the final value are the
     * initial value and every block's tag (b + 1, ~(b + 1)), each exactly once. */
    unsigned char *hit = calloc(grid + 1, 1);
    for (unsigned i = 0; i <= grid; i++) {
        uint64_t lo = i < grid ? seen[2 * i] : cell[2], hi = i < grid ? seen[2 * i + 1] : cell[3];
        if (hi != ~lo || lo > grid || hit[lo]) {
            fprintf(stderr, "exch.b128: unexpected or repeated value (%llu, %#llx)\n", (unsigned long long)lo, (unsigned long long)hi);
            bad = 1;
            break;
        }
        hit[lo] = 1;
    }
    if (bad) fprintf(stderr, "cas128 grid=%u block=%u\n", grid, block);
    free(hit);
    free(cell);
    free(seen);
    return bad;
}

/* (f16 cell, f16 addend, expected f16 sum) and the same for bf16; 0xffff = any NaN. */
static const uint16_t f16_cases[][3] = {
    {0x0001, 0x0001, 0x0002}, /* subnormals are kept (.noftz) */
    {0x6800, 0x3c00, 0x6800}, /* 2048 + 1: a tie, to even */
    {0x6801, 0x3c00, 0x6802}, /* 2050 + 1: a tie, to even (up) */
    {0x7bff, 0x5000, 0x7c00}, /* 65504 + 32 overflows */
    {0x7bff, 0x4c00, 0x7c00}, /* 65504 + 16 = 65520: a tie, to even = infinity */
    {0x7bff, 0x4b80, 0x7bff}, /* 65504 + 15 stays finite */
    {0x3c00, 0xbc00, 0x0000}, /* x + -x = +0 */
    {0x8000, 0x8000, 0x8000}, /* -0 + -0 = -0 */
    {0x0400, 0x8001, 0x03ff}, /* smallest normal - smallest subnormal */
    {0x3c00, 0x1000, 0x3c00}, /* 1 + 2^-11: a tie, to even */
    {0x3c00, 0x1001, 0x3c01}, /* just above the tie */
    {0x7c00, 0xfc00, 0xffff}, /* inf - inf = NaN */
    {0x7e00, 0x3c00, 0xffff}, /* NaN + 1 = NaN */
};
static const uint16_t bf16_cases[][3] = {
    {0x0001, 0x0001, 0x0002}, {0x4380, 0x3f80, 0x4380}, {0x4381, 0x3f80, 0x4382},
    {0x7f7f, 0x7b00, 0x7f80}, {0x7f7f, 0x7a80, 0x7f7f}, {0x3f80, 0xbf80, 0x0000},
    {0x8000, 0x8000, 0x8000}, {0x0080, 0x8001, 0x007f}, {0x7f80, 0xff80, 0xffff},
    {0x7fc0, 0x3f80, 0xffff},
};

static int check_half_add_pairs(void)
{
    const ptxrtKernel *k = harness_find_kernel("half_add_pairs");
    const unsigned nf = sizeof f16_cases / sizeof f16_cases[0], nb = sizeof bf16_cases / sizeof bf16_cases[0];
    unsigned n = nf > nb ? nf : nb;
    uint16_t *pairs = harness_xmalloc((size_t)n * 8), *out = harness_xmalloc((size_t)n * 8);
    memset(pairs, 0, (size_t)n * 8);
    for (unsigned i = 0; i < n; i++) {
        if (i < nf) pairs[4 * i] = f16_cases[i][0], pairs[4 * i + 1] = f16_cases[i][1];
        if (i < nb) pairs[4 * i + 2] = bf16_cases[i][0], pairs[4 * i + 3] = bf16_cases[i][1];
    }
    void *args[] = {&pairs, &out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(32, 1, 1), args, 0, NULL));
    int bad = 0;
    for (unsigned i = 0; i < n; i++) {
        char what[64];
        if (i < nf) {
            uint16_t want = f16_cases[i][2], got = pairs[4 * i];
            snprintf(what, sizeof what, "f16 %#06x + %#06x", f16_cases[i][0], f16_cases[i][1]);
            if (want == 0xffff ? !is_f16_nan(got) : want != got) bad |= check_u16(what, want, got);
            bad |= check_u16("f16 atom old value", f16_cases[i][0], out[4 * i]);
        }
        if (i < nb) {
            uint16_t want = bf16_cases[i][2], got = pairs[4 * i + 2];
            snprintf(what, sizeof what, "bf16 %#06x + %#06x", bf16_cases[i][0], bf16_cases[i][1]);
            if (want == 0xffff ? !is_bf16_nan(got) : want != got) bad |= check_u16(what, want, got);
            bad |= check_u16("bf16 atom old value", bf16_cases[i][0], out[4 * i + 2]);
        }
    }
    free(pairs);
    free(out);
    return bad;
}

int main(void)
{
    static const unsigned shapes[][2] = {{1, 32}, {1, 256}, {4, 256}, {7, 33}, {64, 96}};
    int bad = 0, n = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        unsigned grid = shapes[s][0], block = shapes[s][1];
        bad |= check_half_adds(grid, block);
        bad |= check_half_minmax(grid, block);
        bad |= check_cas16(grid, block);
        bad |= check_cas128(grid, block);
        n++;
    }
    bad |= check_half_add_pairs();
    if (bad) return 1;
    printf("atomics_wide: %d shapes OK\n", n);
    return 0;
}
