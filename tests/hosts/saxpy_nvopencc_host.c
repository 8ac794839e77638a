/* saxpy_nvopencc_host.c: runs tests/kernels/vecadd_nvopencc.ptx (hand-written PTX 1.4
 * in the style of the old nvopencc compiler) over several launch shapes.
 *
 *   saxpy_nvopencc(int n, float a, const float *x, float *y): y[i] = a * x[i] + y[i], i < n
 *
 * The kernel uses mad.f32, which may be computed fused or as a rounded multiply
 * followed by an add, so the result is compared with a bound of a few ulps of the
 * terms. sm_1x limits apply: at most 512 threads per block, grids below 65536 blocks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define GUARD 64
#define SENTINEL (-54321.0f)

struct shape {
    int n;
    float a;
    unsigned block;
};

static int run_shape(const ptxrtKernel *k, harness_rng *rng, const struct shape *s)
{
    size_t n = (size_t)s->n;
    float *x = harness_xmalloc(n * sizeof(float));
    float *y = harness_xmalloc((n + GUARD) * sizeof(float));
    double *expected = harness_xmalloc((n + GUARD) * sizeof(double));
    double *tol = harness_xmalloc((n + GUARD) * sizeof(double));

    harness_fill_float(rng, x, n, -10.0f, 10.0f);
    harness_fill_float(rng, y, n, -10.0f, 10.0f);
    for (size_t i = 0; i < n + GUARD; i++) {
        if (i < n) {
            double prod = (double)s->a * (double)x[i];
            expected[i] = prod + (double)y[i];
            /* one rounding of the product (unfused) and one of the sum, float precision */
            tol[i] = 4.0 * ldexp(fabs(prod) + fabs(expected[i]), -24);
        } else {
            y[i] = SENTINEL;
            expected[i] = SENTINEL;
            tol[i] = 0.0;
        }
    }

    unsigned grid = (unsigned)((n + s->block - 1) / s->block);
    int n_arg = s->n;
    float a_arg = s->a;
    void *args[] = {&n_arg, &a_arg, &x, &y};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(s->block, 1, 1), args,
                                  0, NULL));

    size_t bad = harness_compare_f32_bound("y", expected, y, tol, n + GUARD);
    if (bad) {
        fprintf(stderr, "saxpy_nvopencc: n=%d a=%g grid=%u block=%u: %zu mismatches\n", s->n,
                (double)s->a, grid, s->block, bad);
    }
    free(x);
    free(y);
    free(expected);
    free(tol);
    return bad != 0;
}

int main(void)
{
    static const struct shape shapes[] = {
        {1000003, 2.5f, 256}, /* 3907 blocks */
        {777, -0.75f, 64},    /* 13 blocks, last partial */
        {70000, 3.0f, 512},   /* 137 blocks, the sm_1x maximum block */
        {5, 1.0f, 128},       /* one partial block */
    };
    const int count = (int)(sizeof shapes / sizeof shapes[0]);
    const ptxrtKernel *k = harness_find_kernel("saxpy_nvopencc");
    harness_rng rng;
    harness_rng_seed(&rng, 0x5EED0003u);

    int failures = 0;
    for (int i = 0; i < count; i++) {
        failures += run_shape(k, &rng, &shapes[i]);
    }
    return harness_finish("saxpy_nvopencc", count, failures);
}
