/* harness.c: see harness.h. */
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void harness_report_ptxrt_error(const char *file, int line, const char *call, ptxrtError_t err)
{
    const char *name = ptxrtGetErrorName(err);
    const char *msg = ptxrtGetLastErrorMessage();
    fprintf(stderr, "FAIL: %s:%d: %s returned %d (%s): %s\n", file, line, call, (int)err,
            name ? name : "?", (msg && msg[0]) ? msg : "(no message)");
    fflush(stderr);
    exit(1);
}

void harness_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("FAIL: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    exit(1);
}

const ptxrtKernel *harness_find_kernel(const char *name)
{
    const ptxrtKernel *k = ptxrtFindKernel(name);
    if (k == NULL) {
        const char *msg = ptxrtGetLastErrorMessage();
        harness_fail("ptxrtFindKernel(\"%s\") returned NULL: %s", name,
                     (msg && msg[0]) ? msg : "is the kernel object linked?");
    }
    return k;
}

void *harness_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        harness_fail("out of memory allocating %zu bytes", bytes);
    }
    return p;
}

void harness_rng_seed(harness_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t harness_rng_u64(harness_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t harness_rng_u32(harness_rng *rng)
{
    return (uint32_t)(harness_rng_u64(rng) >> 32);
}

float harness_rng_float(harness_rng *rng, float lo, float hi)
{
    /* 24 random bits: exact in float. */
    float unit = (float)(harness_rng_u32(rng) >> 8) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * unit;
}

void harness_fill_float(harness_rng *rng, float *dst, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) {
        dst[i] = harness_rng_float(rng, lo, hi);
    }
}

void harness_fill_u32(harness_rng *rng, uint32_t *dst, size_t n, uint32_t bound)
{
    for (size_t i = 0; i < n; i++) {
        dst[i] = (uint32_t)(harness_rng_u64(rng) % bound);
    }
}

static int f32_matches(double expected, float actual, double tol)
{
    if (isnan(expected) || isnan(actual)) {
        return isnan(expected) && isnan(actual);
    }
    if (tol == 0.0) {
        return expected == (double)actual;
    }
    return fabs(expected - (double)actual) <= tol;
}

size_t harness_compare_f32(const char *what, const float *expected, const float *actual, size_t n,
                           double abs_tol, double rel_tol)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double tol = abs_tol + rel_tol * fabs((double)expected[i]);
        if (!f32_matches((double)expected[i], actual[i], tol)) {
            if (bad < HARNESS_MAX_REPORTED) {
                fprintf(stderr, "  %s[%zu]: expected %.9g, actual %.9g\n", what, i,
                        (double)expected[i], (double)actual[i]);
            }
            bad++;
        }
    }
    if (bad > HARNESS_MAX_REPORTED) {
        fprintf(stderr, "  %s: ... %zu mismatches in all (of %zu)\n", what, bad, n);
    }
    return bad;
}

size_t harness_compare_f32_bound(const char *what, const double *expected, const float *actual,
                                 const double *tol, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        /* A zero bound still allows the exact value. */
        if (!f32_matches(expected[i], actual[i], tol[i] > 0.0 ? tol[i] : 1e-300)) {
            if (bad < HARNESS_MAX_REPORTED) {
                fprintf(stderr, "  %s[%zu]: expected %.9g (+- %.3g), actual %.9g\n", what, i,
                        expected[i], tol[i], (double)actual[i]);
            }
            bad++;
        }
    }
    if (bad > HARNESS_MAX_REPORTED) {
        fprintf(stderr, "  %s: ... %zu mismatches in all (of %zu)\n", what, bad, n);
    }
    return bad;
}

size_t harness_compare_u32(const char *what, const uint32_t *expected, const uint32_t *actual,
                           size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (expected[i] != actual[i]) {
            if (bad < HARNESS_MAX_REPORTED) {
                fprintf(stderr, "  %s[%zu]: expected %u, actual %u\n", what, i,
                        (unsigned)expected[i], (unsigned)actual[i]);
            }
            bad++;
        }
    }
    if (bad > HARNESS_MAX_REPORTED) {
        fprintf(stderr, "  %s: ... %zu mismatches in all (of %zu)\n", what, bad, n);
    }
    return bad;
}

int harness_finish(const char *name, int shapes, int failures)
{
    fflush(stderr);
    if (failures == 0) {
        printf("%s: %d shapes OK\n", name, shapes);
        fflush(stdout);
        return 0;
    }
    printf("%s: %d of %d shapes FAILED\n", name, failures, shapes);
    fflush(stdout);
    return 1;
}
