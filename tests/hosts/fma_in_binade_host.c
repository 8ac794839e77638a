/* fma_in_binade_host.c: runs tests/kernels/fma_in_binade.ptx (hand-written). Directed-
 * rounding `fma.f32` whose constants keep every result in one binade is lowered as an
 * integer rounding (`binade_constants`); the same operations with the constants passed as
 * parameters take the general directed rounding (`binade_parameters`). Both must give the
 * same bits for every input: a sweep of [0, 1], random values of every kind (NaNs,
 * infinities, negatives and values above 1 saturate), subnormals and the ends. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

enum { N = 1 << 16 };

int main(void)
{
    static float in[N];
    static uint32_t got[4 * N], want[4 * N];
    static const uint32_t special[] = {0, 0x80000000u, 0x3f800000u, 0x3f7fffffu, 0x00000001u, 0x00800000u, 0x007fffffu, 0x3f000000u,
                                       0x7f800000u, 0xff800000u, 0x7fc00000u, 0xbf800000u, 0x40000000u, 0x3effffffu, 0x3c800000u, 0x3b800001u};
    harness_rng rng;
    harness_rng_seed(&rng, 2026);
    for (int i = 0; i < N; i++) {
        uint32_t bits;
        if (i < 16)
            bits = special[i];
        else if (i % 2 == 0) {
            float f = (float)(i / 2) / (float)(N / 2); /* the sweep of [0, 1] */
            memcpy(&bits, &f, 4);
        } else
            bits = (uint32_t)harness_rng_u64(&rng);
        memcpy(&in[i], &bits, 4);
    }
    static const uint32_t constants[8] = {0x437c0000u, 0x4b400001u, 0xbf000000u, 0x3fc00000u, 0xc37c0000u, 0xcb400001u, 0x0da24260u, 0x10181e3au};
    struct {
        uint32_t k[8];
    } k;
    memcpy(k.k, constants, sizeof constants);
    uint32_t n = N;
    void *p = in, *q = got, *r = want;
    void *args[] = {&p, &q, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("binade_constants"), harness_dim3(N / 256, 1, 1), harness_dim3(256, 1, 1), args, 0, NULL));
    void *args2[] = {&p, &r, &n, &k};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("binade_parameters"), harness_dim3(N / 256, 1, 1), harness_dim3(256, 1, 1), args2, 0, NULL));
    size_t bad = harness_compare_u32("fma_in_binade", want, got, 4 * N);
    /* A known value: expf's step for t = 0.5 (252 * 0.5 + 12582913 = 12583039, exact). */
    float at_half;
    memcpy(&at_half, &got[4 * (N / 2)], 4);
    if (in[N / 2] != 0.5f || at_half != 12583039.0f) {
        fprintf(stderr, "fma_in_binade: fma.rm(sat(%g), 252, 12582913) = %.1f, want 12583039\n", in[N / 2], at_half);
        bad++;
    }
    return harness_finish("fma_in_binade", 1, bad != 0);
}
