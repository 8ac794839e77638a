/* calls_host.c: runs tests/kernels/calls.ptx (NVRTC output with real calls: .param
 * arguments and results, a struct returned and passed by value, recursion, and indirect
 * calls through a table of function pointers in a .global initializer).
 *
 *   calls(in, out_f, out_fib, out_ds, out_op, out_pair, n)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int digits_sum(int v, int depth)
{
    int s = 0;
    for (int i = 0; i < 4; i++) s += (v >> (8 * i)) & 0xff;
    return depth == 0 ? s : s + digits_sum(v / 3 + depth, depth - 1);
}

static int run(harness_rng *rng, int n, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("calls");
    float *in = harness_xmalloc((size_t)n * sizeof(float));
    float *out_f = harness_xmalloc((size_t)n * sizeof(float)), *exp_f = harness_xmalloc((size_t)n * sizeof(float));
    float *out_pair = harness_xmalloc((size_t)n * sizeof(float)), *exp_pair = harness_xmalloc((size_t)n * sizeof(float));
    uint32_t *out_fib = harness_xmalloc((size_t)n * 4), *exp_fib = harness_xmalloc((size_t)n * 4);
    uint32_t *out_ds = harness_xmalloc((size_t)n * 4), *exp_ds = harness_xmalloc((size_t)n * 4);
    uint32_t *out_op = harness_xmalloc((size_t)n * 4), *exp_op = harness_xmalloc((size_t)n * 4);
    harness_fill_float(rng, in, (size_t)n, -100.0f, 100.0f);
    for (int i = 0; i < n; i++) {
        int m = i % 7;
        float x = 0.5f * (float)m;
        int kk = m * 3;
        double w = -0.25 * m;
        exp_f[i] = fmaf(in[i], x, (float)kk) + (float)w;
        exp_pair[i] = x + (float)kk + (float)w;
        exp_fib[i] = fib((unsigned)(i % 20));
        exp_ds[i] = (uint32_t)digits_sum((int)((unsigned)i * 2654435761u), i % 5);
        int a = i, b = i % 11;
        exp_op[i] = (uint32_t)(i % 3 == 0 ? a + b : i % 3 == 1 ? a * b : (a > b ? a : b));
    }
    void *args[] = {&in, &out_f, &out_fib, &out_ds, &out_op, &out_pair, &n};
    unsigned grid = (unsigned)((n + (int)block - 1) / (int)block);
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_f32("weigh (struct by value)", exp_f, out_f, (size_t)n, 0, 0);
    bad += harness_compare_f32("make_pair (struct result)", exp_pair, out_pair, (size_t)n, 0, 0);
    bad += harness_compare_u32("fib (recursion)", exp_fib, out_fib, (size_t)n);
    bad += harness_compare_u32("digits_sum (recursion)", exp_ds, out_ds, (size_t)n);
    bad += harness_compare_u32("ops[i % 3] (indirect calls)", exp_op, out_op, (size_t)n);
    if (bad) fprintf(stderr, "calls n=%d block=%u: %zu mismatches\n", n, block, bad);
    free(in); free(out_f); free(exp_f); free(out_pair); free(exp_pair);
    free(out_fib); free(exp_fib); free(out_ds); free(exp_ds); free(out_op); free(exp_op);
    return bad != 0;
}

/* sync_calls: a __noinline__ block reduction with shuffles and barriers, called twice. */
static int run_sync_calls(harness_rng *rng, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("sync_calls");
    size_t n = (size_t)grid * block;
    int *in = harness_xmalloc(n * sizeof(int));
    uint32_t *out = harness_xmalloc(2 * grid * 4), *exp = harness_xmalloc(2 * grid * 4);
    for (size_t i = 0; i < n; i++) in[i] = (int)(harness_rng_u32(rng) % 2001u) - 1000;
    for (unsigned b = 0; b < grid; b++) {
        uint32_t s1 = 0, s2 = 0;
        for (unsigned t = 0; t < block; t++) {
            s1 += (uint32_t)in[b * block + t];
            s2 += (uint32_t)(in[b * block + t] * 2 + 1);
        }
        exp[2 * b] = s1;
        exp[2 * b + 1] = s2;
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("sync_calls (block_reduce called twice)", exp, out, 2 * (size_t)grid);
    free(in); free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0xCA11u);
    static const struct { int n; unsigned block; } shapes[] = {{1, 1}, {1000, 128}, {20000, 256}, {4099, 1024}};
    int failures = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) failures += run(&rng, shapes[i].n, shapes[i].block);
    int rc = harness_finish("calls", (int)(sizeof shapes / sizeof shapes[0]), failures);
    int sf = run_sync_calls(&rng, 3, 64) + run_sync_calls(&rng, 100, 256) + run_sync_calls(&rng, 4, 1024);
    rc |= harness_finish("sync_calls", 3, sf);
    return rc;
}
