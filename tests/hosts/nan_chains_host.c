/* nan_chains_host.c: runs tests/kernels/nan_chains.ptx (hand-written): chains of `.f64`
 * arithmetic on NaNs of every kind, infinities, zeros and ordinary values, against a model
 * of the silicon's NaN rule (ops::float): a NaN result is the winning operand's payload,
 * quieted (`b`, then `a` for add/sub/mul; `a`, then `b` for div; `b`, then `c`, then `a`
 * for fma), and 0xfff8000000000000 for an invalid operation. Every link of a chain is
 * modelled, so a rule that only held at the chain's end would fail. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

enum { N = 4096, STEPS = 3 };

static const uint64_t CANON = 0xfff8000000000000ull;

static int is_nan(uint64_t x) { return (x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
static uint64_t quiet(uint64_t x) { return x | 0x0008000000000000ull; }
static double d_of(uint64_t x) { double d; memcpy(&d, &x, 8); return d; }
static uint64_t bits_of(double d) { uint64_t x; memcpy(&x, &d, 8); return x; }

/* The result `r` of an operation, or where it is NaN the first NaN of `first`, `second`,
 * `third` quieted (the canonical NaN where none is). */
static uint64_t rule(double r, uint64_t first, uint64_t second, uint64_t third)
{
    if (!isnan(r)) return bits_of(r);
    if (is_nan(first)) return quiet(first);
    if (is_nan(second)) return quiet(second);
    if (is_nan(third)) return quiet(third);
    return CANON;
}

static uint64_t add(uint64_t a, uint64_t b) { volatile double r = d_of(a) + d_of(b); return rule(r, b, a, 0); }
static uint64_t sub(uint64_t a, uint64_t b) { volatile double r = d_of(a) - d_of(b); return rule(r, b, a, 0); }
static uint64_t mul(uint64_t a, uint64_t b) { volatile double r = d_of(a) * d_of(b); return rule(r, b, a, 0); }
static uint64_t dvd(uint64_t a, uint64_t b) { volatile double r = d_of(a) / d_of(b); return rule(r, a, b, 0); }
static uint64_t fmad(uint64_t a, uint64_t b, uint64_t c) { volatile double r = fma(d_of(a), d_of(b), d_of(c)); return rule(r, b, c, a); }
static uint64_t sqrtd(uint64_t a) { volatile double r = sqrt(d_of(a)); return rule(r, a, 0, 0); }

static uint64_t widen(uint32_t x)
{
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint64_t)(x >> 31) << 63 | 0x7ff8000000000000ull | (uint64_t)(x & 0x7fffffu) << 29;
    float f;
    memcpy(&f, &x, 4);
    return bits_of((double)f);
}

static uint32_t narrow(uint64_t x)
{
    if (is_nan(x)) return (uint32_t)(x >> 63) << 31 | 0x7fc00000u | (uint32_t)((x >> 29) & 0x7fffffu);
    volatile float f = (float)d_of(x);
    uint32_t b;
    memcpy(&b, (const void *)&f, 4);
    return b;
}

/* One operand: mostly ordinary values, else a NaN (random sign and payload, signalling or
 * quiet), an infinity or a zero. */
static uint64_t operand(harness_rng *rng)
{
    uint64_t r = harness_rng_u64(rng);
    switch (harness_rng_u64(rng) % 8) {
    case 0: return 0x7ff0000000000001ull | (r & 0x800fffffffffffffull);
    case 1: return (r & 0x8000000000000000ull) | 0x7ff0000000000000ull;
    case 2: return r & 0x8000000000000000ull;
    default: return bits_of(d_of(0x3ff0000000000000ull | (r & 0x000fffffffffffffull)) * (r >> 63 ? -1.0 : 1.0) * (double)(r % 5));
    }
}

int main(void)
{
    static uint64_t a[N], b[N], c[N], out[6 * N], want[6 * N];
    static uint32_t x[N], out32[N], want32[N];
    harness_rng rng;
    harness_rng_seed(&rng, 77);
    for (int i = 0; i < N; i++) {
        a[i] = operand(&rng);
        b[i] = operand(&rng);
        c[i] = operand(&rng);
        uint64_t r = harness_rng_u64(&rng);
        x[i] = r % 5 == 0 ? 0x7f800001u | ((uint32_t)r & 0x807ffffeu) : (uint32_t)(r >> 32) % 4 == 0 ? (uint32_t)r : 0x3f800000u | ((uint32_t)r & 0x807fffffu);
        uint64_t t1 = add(a[i], b[i]), t2 = mul(t1, c[i]), t3 = fmad(t2, b[i], a[i]), t4 = sub(t3, t1), t5 = dvd(t4, c[i]);
        uint64_t acc = a[i];
        for (int k = 0; k < STEPS; k++) acc = fmad(acc, b[i], c[i]);
        want[6 * i] = t1;
        want[6 * i + 1] = t5;
        want[6 * i + 2] = sqrtd(t2);
        want[6 * i + 3] = add(acc, t1);
        want[6 * i + 4] = d_of(sub(t5, a[i])) < 0.0;
        want[6 * i + 5] = add(widen(x[i]), a[i]);
        want32[i] = narrow(t5);
    }
    uint32_t n = N, steps = STEPS;
    void *pa = a, *pb = b, *pc = c, *px = x, *po = out, *po32 = out32;
    void *args[] = {&pa, &pb, &pc, &px, &po, &po32, &n, &steps};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("chains"), harness_dim3(N / 128, 1, 1), harness_dim3(128, 1, 1), args, 0, NULL));
    size_t bad = 0;
    for (int i = 0; i < 6 * N; i++)
        if (out[i] != want[i] && bad++ < 8)
            fprintf(stderr, "nan_chains: thread %d word %d (a %#llx b %#llx c %#llx): got %#018llx want %#018llx\n", i / 6, i % 6, (unsigned long long)a[i / 6],
                    (unsigned long long)b[i / 6], (unsigned long long)c[i / 6], (unsigned long long)out[i], (unsigned long long)want[i]);
    bad += harness_compare_u32("nan_chains narrowed", want32, out32, N);
    return harness_finish("nan_chains", 1, bad != 0);
}
