/* barrier_host.h: what the hosts of the mbarrier fixtures (hand-written PTX, and NVRTC's
 * output of libcu++'s cuda::barrier) share: random inputs, a launch checked against
 * expected words, and the reference of their producer/consumer pipelines. */
#ifndef PTX2LLVM_BARRIER_HOST_H
#define PTX2LLVM_BARRIER_HOST_H

#include <stdint.h>
#include <stdio.h>

#include "harness.h"

/* `n` random words from `seed`. */
static inline uint32_t *random_input(size_t n, uint64_t seed)
{
    harness_rng rng;
    harness_rng_seed(&rng, seed);
    uint32_t *in = harness_xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) in[i] = harness_rng_u32(&rng);
    return in;
}

/* Launches `name` on `grid` x `block` threads and compares `n` words of `out` with `exp`;
 * 1 on a mismatch. */
static inline int launch_and_check(const char *name, unsigned grid, unsigned block, void **args, const uint32_t *exp, const uint32_t *out, size_t n)
{
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel(name), harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32(name, exp, out, n);
    if (bad) fprintf(stderr, "%s grid=%u block=%u: %zu mismatches\n", name, grid, block, bad);
    return bad != 0;
}

/* The pipelines' result: in each block, warp 0 consumes what the `producers` other threads
 * produce over `rounds` rounds (producer j's item in round r is in[j] + r); consumer lane c
 * sums the items of producers c, c + 32, ... into exp[block * 32 + c]. */
static inline void pipeline_reference(const uint32_t *in, unsigned grid, unsigned producers, uint32_t rounds, uint32_t *exp)
{
    for (unsigned b = 0; b < grid; b++)
        for (unsigned c = 0; c < 32; c++) {
            uint32_t s = 0;
            for (uint32_t r = 0; r < rounds; r++)
                for (unsigned j = c; j < producers; j += 32) s += in[(size_t)b * producers + j] + r;
            exp[b * 32 + c] = s;
        }
}

#endif
