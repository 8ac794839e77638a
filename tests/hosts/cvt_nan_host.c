/* cvt_nan_host.c: runs tests/kernels/cvt_nan.ptx (hand-written): `.f32` <-> `.f64`
 * conversions, a round trip and a round trip around an `.f64` addition, on NaNs of every
 * kind and payload, infinities, zeros, subnormals and random values. Expected NaNs follow
 * the silicon's rule (sign kept, the payload's high bits at the top of the new fraction,
 * quieted); other values the IEEE conversions (round to nearest, gradual underflow; the
 * `.ftz` narrowing flushes a subnormal result to a zero of its sign). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

enum { N = 4096 };

static uint64_t widen_bits(uint32_t x)
{
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint64_t)(x >> 31) << 63 | 0x7ff8000000000000ull | (uint64_t)(x & 0x7fffffu) << 29;
    float f;
    memcpy(&f, &x, 4);
    double d = f;
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static uint32_t narrow_bits(uint64_t x, int ftz)
{
    if ((x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return (uint32_t)(x >> 63) << 31 | 0x7fc00000u | (uint32_t)((x >> 29) & 0x7fffffu);
    double d;
    memcpy(&d, &x, 8);
    volatile float f = (float)d;
    uint32_t b;
    memcpy(&b, (const void *)&f, 4);
    if (ftz && (b & 0x7f800000u) == 0) b &= 0x80000000u;
    return b;
}

static uint32_t plus_one_bits(uint32_t x)
{
    uint64_t w = widen_bits(x);
    if ((w & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return narrow_bits(w, 0);
    double d;
    memcpy(&d, &w, 8);
    volatile double s = d + 1.0;
    uint64_t b;
    memcpy(&b, (const void *)&s, 8);
    return narrow_bits(b, 0);
}

int main(void)
{
    static uint32_t in32[N], got_narrow[N];
    static uint64_t in64[N], got_widen[N * 3], want_widen[N * 3];
    static uint32_t want_narrow[N];
    static const uint32_t special32[] = {0x7f800001u, 0xff800001u, 0x7fc00000u, 0xffc00000u, 0x7fbfffffu, 0x7fffffffu, 0xffffffffu, 0x7fa00000u,
                                         0x00000001u, 0x80000001u, 0x007fffffu, 0x7f800000u, 0xff800000u, 0, 0x80000000u, 0x7f7fffffu};
    static const uint64_t special64[] = {0x7ff0000000000001ull, 0xfff0000000000001ull, 0x7ff8000000000000ull, 0x7ff4000000000000ull,
                                         0x7ff00000e0000000ull, 0x7ff000001fffffffull, 0xfff7ffffffffffffull, 0x7fffffffffffffffull,
                                         0x47efffffe0000000ull, 0x47efffffefffffffull, 0x47effffff0000000ull, 0x36a0000000000000ull,
                                         0x3690000000000001ull, 0x380fffffffffffffull, 0x0000000000000001ull, 0x8000000000000001ull};
    harness_rng rng;
    harness_rng_seed(&rng, 2026);
    for (int i = 0; i < N; i++) {
        uint64_t r = harness_rng_u64(&rng);
        /* every third value a NaN (or infinity) with a random sign and payload */
        in32[i] = i < 16 ? special32[i] : i % 3 == 0 ? 0x7f800000u | ((uint32_t)r & 0x807fffffu) : (uint32_t)r;
        in64[i] = i < 16 ? special64[i] : i % 3 == 0 ? 0x7ff0000000000000ull | (r & 0x800fffffffffffffull) : r;
        want_widen[3 * i] = widen_bits(in32[i]);
        want_widen[3 * i + 1] = narrow_bits(widen_bits(in32[i]), 0) | (uint64_t)plus_one_bits(in32[i]) << 32;
        want_widen[3 * i + 2] = narrow_bits(widen_bits(in32[i]), 1);
        want_narrow[i] = narrow_bits(in64[i], 0);
    }
    uint32_t n = N;
    void *p = in32, *q = got_widen;
    void *args[] = {&p, &q, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("widen"), harness_dim3(N / 128, 1, 1), harness_dim3(128, 1, 1), args, 0, NULL));
    void *p2 = in64, *q2 = got_narrow;
    void *args2[] = {&p2, &q2, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("narrow"), harness_dim3(N / 128, 1, 1), harness_dim3(128, 1, 1), args2, 0, NULL));
    size_t bad = 0;
    for (int i = 0; i < N * 3; i++)
        if (got_widen[i] != want_widen[i] && bad++ < 8)
            fprintf(stderr, "cvt_nan widen: input %#010x word %d: got %#018llx want %#018llx\n", in32[i / 3], i % 3, (unsigned long long)got_widen[i],
                    (unsigned long long)want_widen[i]);
    bad += harness_compare_u32("cvt_nan narrow", want_narrow, got_narrow, N);
    return harness_finish("cvt_nan", 2, bad != 0);
}
