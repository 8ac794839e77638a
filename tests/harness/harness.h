/* harness.h: helpers shared by the C host programs of the end-to-end tests.
 *
 * Each host program (tests/hosts/NAME_host.c) is linked with a translated kernel object,
 * this harness (built by the workspace's build.rs into a static library) and
 * libptxrt.a. A host prints one "NAME: N shapes OK" line and exits 0, or prints
 * its first mismatches and exits 1.
 */
#ifndef PTX2LLVM_HARNESS_H
#define PTX2LLVM_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "ptxrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Evaluates a ptxrt call; on failure prints where, the error name and
 * ptxrtGetLastErrorMessage(), and exits 1. */
#define PTXRT_CHECK(call)                                                          \
    do {                                                                           \
        ptxrtError_t harness_err_ = (call);                                        \
        if (harness_err_ != ptxrtSuccess) {                                        \
            harness_report_ptxrt_error(__FILE__, __LINE__, #call, harness_err_);   \
        }                                                                          \
    } while (0)

/* Prints a failed ptxrt call and exits 1. */
void harness_report_ptxrt_error(const char *file, int line, const char *call, ptxrtError_t err);

/* Prints a printf-style message prefixed with "FAIL: " to stderr and exits 1. */
void harness_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* ptxrtFindKernel, exiting 1 with a message naming the kernel when it is missing. */
const ptxrtKernel *harness_find_kernel(const char *name);

/* malloc that exits 1 on failure. */
void *harness_xmalloc(size_t bytes);

static inline ptxrtDim3 harness_dim3(unsigned int x, unsigned int y, unsigned int z)
{
    ptxrtDim3 d;
    d.x = x;
    d.y = y;
    d.z = z;
    return d;
}

/* Deterministic pseudo-random numbers (splitmix64): the same seed gives the same
 * sequence on every platform. */
typedef struct harness_rng {
    uint64_t state;
} harness_rng;

void harness_rng_seed(harness_rng *rng, uint64_t seed);
uint64_t harness_rng_u64(harness_rng *rng);
uint32_t harness_rng_u32(harness_rng *rng);
/* Uniform in [lo, hi), on a 2^-24 grid so that every value is exact in float. */
float harness_rng_float(harness_rng *rng, float lo, float hi);
void harness_fill_float(harness_rng *rng, float *dst, size_t n, float lo, float hi);
/* Uniform in [0, bound) (bound > 0). */
void harness_fill_u32(harness_rng *rng, uint32_t *dst, size_t n, uint32_t bound);

/* How many mismatches are printed before the rest are only counted. */
#define HARNESS_MAX_REPORTED 10

/* Compares actual against expected element-wise. An element matches when
 * |expected - actual| <= abs_tol + rel_tol * |expected| (both 0: bit-exact, except
 * that +0 == -0), and NaN matches only NaN. Prints the first mismatches as
 * "  what[index]: expected E, actual A" and returns the number of mismatches. */
size_t harness_compare_f32(const char *what, const float *expected, const float *actual, size_t n,
                           double abs_tol, double rel_tol);

/* Like harness_compare_f32, with a tolerance per element: tol[i] is an absolute bound. */
size_t harness_compare_f32_bound(const char *what, const double *expected, const float *actual,
                                 const double *tol, size_t n);

/* Exact comparison of unsigned 32-bit integers; prints the first mismatches. */
size_t harness_compare_u32(const char *what, const uint32_t *expected, const uint32_t *actual,
                           size_t n);

/* Prints "NAME: N shapes OK" on stdout when failures == 0 and returns 0; otherwise
 * prints "NAME: F of N shapes FAILED" and returns 1. Meant for main's return. */
int harness_finish(const char *name, int shapes, int failures);

#ifdef __cplusplus
}
#endif
#endif
