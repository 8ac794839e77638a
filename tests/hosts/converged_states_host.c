/* converged_states_host.c: runs tests/kernels/converged_states.ptx, loops of regions that
 * every thread ends at the same sync point, at points the scheduler completes (a barrier
 * reduction, a barrier with a thread count) between plain barriers. Checks every thread's
 * result against the host's simulation.
 *
 *   popc_steps     bar.red.popc each step, a neighbour's value through shared memory
 *   counted_steps  bar.sync 1, ntid.x around the same exchange
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int check_popc(unsigned grid, unsigned block, unsigned steps)
{
    const ptxrtKernel *k = harness_find_kernel("popc_steps");
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    for (unsigned t = 0; t < block; t++) {
        uint32_t sum = 0;
        for (unsigned s = 0; s < steps; s++) {
            uint32_t popc = 0;
            for (unsigned u = 0; u < block; u++) popc += (u + s) % 3 == 0;
            sum += popc * (s + 1) + ((t + 1) % block) * 7 + s;
        }
        for (unsigned b = 0; b < grid; b++) want[(size_t)b * block + t] = sum;
    }
    void *args[] = {&steps, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("popc_steps out", want, out, n);
    if (bad) fprintf(stderr, "popc_steps: grid %u block %u steps %u\n", grid, block, steps);
    free(out); free(want);
    return bad != 0;
}

static int check_counted(unsigned grid, unsigned block, unsigned steps)
{
    const ptxrtKernel *k = harness_find_kernel("counted_steps");
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 4), *want = harness_xmalloc(n * 4);
    for (unsigned t = 0; t < block; t++) {
        uint32_t sum = 0;
        for (unsigned s = 0; s < steps; s++) sum += ((t + 3) % block) * 5 + s;
        for (unsigned b = 0; b < grid; b++) want[(size_t)b * block + t] = sum;
    }
    unsigned count = block;
    void *args[] = {&steps, &count, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("counted_steps out", want, out, n);
    if (bad) fprintf(stderr, "counted_steps: grid %u block %u steps %u\n", grid, block, steps);
    free(out); free(want);
    return bad != 0;
}

int main(void)
{
    int shapes = 0, failures = 0;
    /* (grid, block, steps) */
    static const unsigned popc[][3] = {{3, 64, 5}, {2, 256, 9}, {4, 33, 4}, {1, 1024, 3}, {5, 96, 0}, {2, 7, 6}};
    for (size_t s = 0; s < sizeof popc / sizeof popc[0]; s++, shapes++) failures += check_popc(popc[s][0], popc[s][1], popc[s][2]);
    static const unsigned counted[][3] = {{3, 64, 5}, {2, 256, 8}, {1, 1024, 2}, {4, 32, 11}, {2, 96, 0}};
    for (size_t s = 0; s < sizeof counted / sizeof counted[0]; s++, shapes++) failures += check_counted(counted[s][0], counted[s][1], counted[s][2]);
    return harness_finish("converged_states", shapes, failures);
}
