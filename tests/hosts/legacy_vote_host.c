/* legacy_vote_host.c: tests/kernels/legacy_vote.ptx (hand-written, PTX 5.0): legacy
 * vote.ballot/all/any and shfl.bfly without membermasks, over full warps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

int main(void)
{
    const ptxrtKernel *k = harness_find_kernel("legacy_vote");
    harness_rng rng;
    harness_rng_seed(&rng, 0x1E6Bu);
    int failures = 0;
    static const unsigned blocks[] = {32, 128, 1024};
    for (int s = 0; s < 3; s++) {
        unsigned block = blocks[s], grid = 3, n = grid * block;
        int *in = harness_xmalloc(n * 4);
        uint32_t *out = harness_xmalloc(4 * n * 4), *exp = harness_xmalloc(4 * n * 4);
        for (unsigned i = 0; i < n; i++) in[i] = (int)(harness_rng_u32(&rng) % 41u) - 20 + ((i / 32) % 4 == 1 ? -200 : 0);
        for (unsigned w = 0; w < n / 32; w++) {
            uint32_t ballot = 0, all = 1, any = 0, sum = 0;
            for (unsigned l = 0; l < 32; l++) {
                int v = in[32 * w + l];
                if (v > 0) ballot |= 1u << l;
                if (!(v > -100)) all = 0;
                if (v == 3) any = 1;
                sum += (uint32_t)v;
            }
            for (unsigned l = 0; l < 32; l++) {
                uint32_t *e = exp + 4 * (32 * w + l);
                e[0] = ballot; e[1] = all; e[2] = any; e[3] = sum;
            }
        }
        void *args[] = {&in, &out};
        PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
        failures += harness_compare_u32("legacy_vote (ballot, all, any, shfl.bfly sum)", exp, out, 4 * (size_t)n) != 0;
        free(in); free(out); free(exp);
    }
    return harness_finish("legacy_vote", 3, failures);
}
