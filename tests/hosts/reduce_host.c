/* reduce_host.c: runs the two kernels of tests/kernels/reduce.ptx (NVRTC) over several
 * launch shapes.
 *
 *   reduce_sum(const float *in, float *out, int n)
 *   reduce_sum_u32(const unsigned *in, unsigned *out, int n)
 *
 * Each block writes one partial sum to out[blockIdx.x]: every thread accumulates a
 * grid-stride slice, then a shared-memory tree with a barrier per level. The host
 * reference mirrors that tree per block (so a block size that is not a power of two,
 * whose tree leaves some partial sums out, is checked too). The integer variant must
 * match exactly; the float variant is compared with the reference computed in double,
 * within the worst-case error of float summation along the longest chain of additions
 * that led to each partial sum (gamma_m * sum |x|, m additions), so any order of the
 * additions the kernel could legally use passes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define GUARD 16
#define MAX_BLOCK 1024

struct shape {
    int n;
    unsigned grid;
    unsigned block;
};

/* Per block: the reference sum, a bound on |float result - sum|, and the u32 sum. */
static void reference_block(const float *inf, const uint32_t *inu, int n, unsigned grid,
                            unsigned block, unsigned b, double *sum, double *bound, uint32_t *usum)
{
    static double sdata[MAX_BLOCK], sabs[MAX_BLOCK];
    static unsigned depth[MAX_BLOCK];
    static uint32_t udata[MAX_BLOCK];
    const long stride = (long)block * (long)grid;

    for (unsigned t = 0; t < block; t++) {
        double acc = 0.0, abs_acc = 0.0;
        uint32_t uacc = 0;
        unsigned adds = 0;
        for (long i = (long)b * block + t; i < n; i += stride) {
            acc += (double)inf[i];
            abs_acc += fabs((double)inf[i]);
            uacc += inu[i];
            adds++;
        }
        sdata[t] = acc;
        sabs[t] = abs_acc;
        depth[t] = adds;
        udata[t] = uacc;
    }
    for (unsigned s = block / 2; s > 0; s >>= 1) {
        for (unsigned t = 0; t < s; t++) {
            sdata[t] += sdata[t + s];
            sabs[t] += sabs[t + s];
            depth[t] = (depth[t] > depth[t + s] ? depth[t] : depth[t + s]) + 1;
            udata[t] += udata[t + s];
        }
    }
    const double u = ldexp(1.0, -24); /* unit roundoff of float */
    const double m = (double)depth[0];
    *sum = sdata[0];
    *bound = 1.01 * (m * u / (1.0 - m * u)) * sabs[0];
    *usum = udata[0];
}

/* Returns the number of failed kernels (0, 1 or 2) for this shape. */
static int run_shape(const ptxrtKernel *kf, const ptxrtKernel *ku, harness_rng *rng,
                     const struct shape *s, int *float_failed, int *u32_failed)
{
    size_t n = (size_t)s->n;
    size_t g = s->grid;
    float *inf = harness_xmalloc(n * sizeof(float));
    uint32_t *inu = harness_xmalloc(n * sizeof(uint32_t));
    float *outf = harness_xmalloc((g + GUARD) * sizeof(float));
    uint32_t *outu = harness_xmalloc((g + GUARD) * sizeof(uint32_t));
    double *expf = harness_xmalloc((g + GUARD) * sizeof(double));
    double *tol = harness_xmalloc((g + GUARD) * sizeof(double));
    uint32_t *expu = harness_xmalloc((g + GUARD) * sizeof(uint32_t));

    harness_fill_float(rng, inf, n, -1.0f, 1.0f);
    for (size_t i = 0; i < n; i++) {
        inu[i] = harness_rng_u32(rng); /* full range: the sums wrap modulo 2^32 */
    }
    for (size_t b = 0; b < g + GUARD; b++) {
        outf[b] = -7.0f;
        outu[b] = 0xDEADBEEFu;
        if (b < g) {
            reference_block(inf, inu, s->n, s->grid, s->block, (unsigned)b, &expf[b], &tol[b],
                            &expu[b]);
        } else {
            expf[b] = -7.0;
            tol[b] = 0.0;
            expu[b] = 0xDEADBEEFu;
        }
    }

    int n_arg = s->n;
    ptxrtDim3 grid = harness_dim3(s->grid, 1, 1), block = harness_dim3(s->block, 1, 1);
    void *argsf[] = {&inf, &outf, &n_arg};
    void *argsu[] = {&inu, &outu, &n_arg};
    PTXRT_CHECK(ptxrtLaunchKernel(kf, grid, block, argsf, 0, NULL));
    PTXRT_CHECK(ptxrtLaunchKernel(ku, grid, block, argsu, 0, NULL));

    size_t badf = harness_compare_f32_bound("reduce_sum out", expf, outf, tol, g + GUARD);
    if (badf) {
        fprintf(stderr, "reduce_sum: n=%d grid=%u block=%u: %zu mismatches\n", s->n, s->grid,
                s->block, badf);
    }
    size_t badu = harness_compare_u32("reduce_sum_u32 out", expu, outu, g + GUARD);
    if (badu) {
        fprintf(stderr, "reduce_sum_u32: n=%d grid=%u block=%u: %zu mismatches\n", s->n, s->grid,
                s->block, badu);
    }
    *float_failed += badf != 0;
    *u32_failed += badu != 0;

    free(inf);
    free(inu);
    free(outf);
    free(outu);
    free(expf);
    free(tol);
    free(expu);
    return (badf != 0) + (badu != 0);
}

int main(void)
{
    static const struct shape shapes[] = {
        {1000003, 200, 32},  /* one warp per block, ~156 elements per thread */
        {100000, 64, 96},    /* three warps; not a power of two */
        {1000003, 128, 256},
        {5000, 64, 1024},    /* most threads get no element */
        {1 << 20, 150, 1024},
    };
    const int count = (int)(sizeof shapes / sizeof shapes[0]);
    const ptxrtKernel *kf = harness_find_kernel("reduce_sum");
    const ptxrtKernel *ku = harness_find_kernel("reduce_sum_u32");
    harness_rng rng;
    harness_rng_seed(&rng, 0x5EED0002u);

    int float_failed = 0, u32_failed = 0;
    for (int i = 0; i < count; i++) {
        run_shape(kf, ku, &rng, &shapes[i], &float_failed, &u32_failed);
    }
    int rc = harness_finish("reduce_sum", count, float_failed);
    rc |= harness_finish("reduce_sum_u32", count, u32_failed);
    return rc;
}
