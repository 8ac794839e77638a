/* vecadd_host.c: runs tests/kernels/vecadd.ptx (NVRTC) over several launch shapes.
 *
 *   vecadd(const float *a, const float *b, float *c, int n): c[i] = a[i] + b[i], i < n
 *
 * float addition is exactly rounded, so the result must be bit-exact. Guard elements
 * after c[n-1] must stay untouched (the kernel's bounds check).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define GUARD 64
#define SENTINEL (-12345.0f)

struct shape {
    int n;
    unsigned block;
    unsigned extra_blocks; /* blocks launched beyond ceil(n / block): all threads out of range */
};

static int run_shape(const ptxrtKernel *k, harness_rng *rng, const struct shape *s)
{
    size_t n = (size_t)s->n;
    float *a = harness_xmalloc(n * sizeof(float));
    float *b = harness_xmalloc(n * sizeof(float));
    float *c = harness_xmalloc((n + GUARD) * sizeof(float));
    float *expected = harness_xmalloc((n + GUARD) * sizeof(float));

    harness_fill_float(rng, a, n, -100.0f, 100.0f);
    harness_fill_float(rng, b, n, -100.0f, 100.0f);
    for (size_t i = 0; i < n + GUARD; i++) {
        c[i] = SENTINEL;
        expected[i] = i < n ? a[i] + b[i] : SENTINEL;
    }

    unsigned grid = (unsigned)((n + s->block - 1) / s->block) + s->extra_blocks;
    int n_arg = s->n;
    void *args[] = {&a, &b, &c, &n_arg};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(s->block, 1, 1), args,
                                  0, NULL));

    size_t bad = harness_compare_f32("c", expected, c, n + GUARD, 0.0, 0.0);
    if (bad) {
        fprintf(stderr, "vecadd: n=%d grid=%u block=%u: %zu mismatches\n", s->n, grid, s->block,
                bad);
    }
    free(a);
    free(b);
    free(c);
    free(expected);
    return bad != 0;
}

int main(void)
{
    static const struct shape shapes[] = {
        {1000003, 256, 0}, /* 3907 blocks, last one partial */
        {1, 32, 0},        /* one thread in range */
        {4096, 1024, 0},   /* exact multiple of the block */
        {70001, 96, 3},    /* non-power-of-two block, 733 blocks + 3 idle ones */
    };
    const int count = (int)(sizeof shapes / sizeof shapes[0]);
    const ptxrtKernel *k = harness_find_kernel("vecadd");
    harness_rng rng;
    harness_rng_seed(&rng, 0x5EED0001u);

    int failures = 0;
    for (int i = 0; i < count; i++) {
        failures += run_shape(k, &rng, &shapes[i]);
    }
    return harness_finish("vecadd", count, failures);
}
