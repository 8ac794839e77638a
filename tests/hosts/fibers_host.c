/* fibers_host.c: runs tests/kernels/fibers.ptx, whose barriers and warp collectives are
 * reached through recursion and function pointers (the fiber scheduler).
 *
 *   recursive_tree(in, out, active)  barrier per recursion level, threads >= active exit first
 *   recursive_warps(in, out)         shuffles and ballots at warp-dependent recursion depths
 *   dispatch(in, out, which)         block operations called through a function-pointer table
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int run_tree(harness_rng *rng, unsigned grid, unsigned block, int active)
{
    const ptxrtKernel *k = harness_find_kernel("recursive_tree");
    size_t n = (size_t)grid * block;
    int *in = harness_xmalloc(n * sizeof(int));
    uint32_t *out = harness_xmalloc(grid * 4), *exp = harness_xmalloc(grid * 4);
    for (size_t i = 0; i < n; i++) in[i] = (int)(harness_rng_u32(rng) % 20001u) - 10000;
    for (unsigned b = 0; b < grid; b++) {
        uint32_t s = 0;
        for (unsigned t = 0; t < block; t++) s += (uint32_t)in[b * block + t];
        exp[b] = s;
    }
    void *args[] = {&in, &out, &active};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("recursive_tree", exp, out, grid);
    if (bad) fprintf(stderr, "recursive_tree grid=%u block=%u active=%d: %zu mismatches\n", grid, block, active, bad);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int run_warps(harness_rng *rng, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("recursive_warps");
    size_t n = (size_t)grid * block;
    uint32_t *in = harness_xmalloc(n * 4), *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) in[i] = harness_rng_u32(rng);
    for (size_t w0 = 0; w0 < n; w0 += 32) {
        uint32_t v[32], x[32];
        for (int l = 0; l < 32; l++) v[l] = in[w0 + l];
        int levels = (int)((w0 % block) / 32) % 4 + 1;
        for (int depth = levels; depth > 0; depth--) {
            uint32_t ballot = 0;
            for (int l = 0; l < 32; l++) x[l] = v[l] + v[l ^ (depth & 31)];
            for (int l = 0; l < 32; l++) ballot |= (x[l] & 1u) << l;
            for (int l = 0; l < 32; l++) v[l] = x[l] ^ ballot;
        }
        for (int depth = 1; depth <= levels; depth++) {
            for (int l = 0; l < 32; l++) x[l] = v[l] * 3u + v[l ^ 1];
            for (int l = 0; l < 32; l++) v[l] = x[l];
        }
        for (int l = 0; l < 32; l++) exp[w0 + l] = v[l];
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("recursive_warps", exp, out, n);
    if (bad) fprintf(stderr, "recursive_warps grid=%u block=%u: %zu mismatches\n", grid, block, bad);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int run_dispatch(harness_rng *rng, unsigned grid, unsigned block, int which)
{
    const ptxrtKernel *k = harness_find_kernel("dispatch");
    size_t n = (size_t)grid * block;
    int *in = harness_xmalloc(n * sizeof(int));
    uint32_t *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) in[i] = (int)(harness_rng_u32(rng) % 2000001u) - 1000000;
    for (unsigned b = 0; b < grid; b++) {
        const int *x = in + (size_t)b * block;
        uint32_t *e = exp + (size_t)b * block;
        switch ((which + (int)b) % 3) {
        case 0: {
            int m = x[0];
            for (unsigned t = 1; t < block; t++) m = x[t] > m ? x[t] : m;
            for (unsigned t = 0; t < block; t++) e[t] = (uint32_t)m;
            break;
        }
        case 1:
            for (unsigned w = 0; w < block; w += 32) {
                uint32_t s = 0;
                for (unsigned l = 0; l < 32; l++) s += (uint32_t)x[w + l];
                for (unsigned l = 0; l < 32; l++) e[w + l] = s;
            }
            break;
        default: {
            uint32_t s = 0;
            for (unsigned t = 0; t < block; t++) e[t] = s += (uint32_t)x[t];
        }
        }
    }
    void *args[] = {&in, &out, &which};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("dispatch", exp, out, n);
    if (bad) fprintf(stderr, "dispatch grid=%u block=%u which=%d: %zu mismatches\n", grid, block, which, bad);
    free(in); free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0xf1be5);
    int fails = 0, shapes = 0;
    const unsigned tree_shapes[][3] = {{7, 32, 32}, {5, 256, 256}, {3, 256, 129}, {2, 1024, 1024}, {4, 64, 40}};
    for (size_t i = 0; i < sizeof tree_shapes / sizeof tree_shapes[0]; i++, shapes++)
        fails += run_tree(&rng, tree_shapes[i][0], tree_shapes[i][1], (int)tree_shapes[i][2]);
    fails += harness_finish("recursive_tree", shapes, fails);

    int wfails = 0, wshapes = 0;
    const unsigned warp_shapes[][2] = {{3, 32}, {5, 96}, {2, 256}, {1, 1024}};
    for (size_t i = 0; i < sizeof warp_shapes / sizeof warp_shapes[0]; i++, wshapes++)
        wfails += run_warps(&rng, warp_shapes[i][0], warp_shapes[i][1]);
    wfails += harness_finish("recursive_warps", wshapes, wfails);

    int dfails = 0, dshapes = 0;
    const unsigned dispatch_shapes[][2] = {{6, 32}, {6, 96}, {3, 256}, {3, 1024}};
    for (size_t i = 0; i < sizeof dispatch_shapes / sizeof dispatch_shapes[0]; i++, dshapes++)
        dfails += run_dispatch(&rng, dispatch_shapes[i][0], dispatch_shapes[i][1], (int)i);
    dfails += harness_finish("dispatch", dshapes, dfails);
    return fails || wfails || dfails;
}
