/* concurrent_warps_host.c: tests/kernels/warps.ptx (NVRTC) launched from 8 host threads at
 * once. Each thread runs its own shapes and data through block_sum (shuffle trees, a
 * barrier, then a shuffle run by warp 0 alone while the other warps have exited: the block
 * scheduler's partial path) and shuffles (every mode and sub-warp width), and checks every
 * result exactly; launches from different threads run at the same time. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "shfl_reference.h"

#define THREADS 8
#define ROUNDS 6

static const ptxrtKernel *k_block_sum, *k_shuffles;

/* A launch that fails is reported with this thread's own last error message. */
static int launched(long id, const char *what, ptxrtError_t e)
{
    if (e == ptxrtSuccess) return 1;
    fprintf(stderr, "thread %ld: %s: %s: %s\n", id, what, ptxrtGetErrorName(e), ptxrtGetLastErrorMessage());
    return 0;
}

static int check_block_sum(long id, harness_rng *rng, int n, unsigned block)
{
    unsigned grid = (unsigned)((n + (int)block - 1) / (int)block);
    int *in = harness_xmalloc((size_t)n * sizeof(int));
    uint32_t *out = harness_xmalloc(grid * 4), *exp = harness_xmalloc(grid * 4);
    for (int i = 0; i < n; i++) in[i] = (int)harness_rng_u32(rng);
    memset(exp, 0, grid * 4);
    for (int i = 0; i < n; i++) exp[i / (int)block] += (uint32_t)in[i];
    void *args[] = {&in, &out, &n};
    int bad = !launched(id, "block_sum", ptxrtLaunchKernel(k_block_sum, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    if (!bad && harness_compare_u32("block_sum", exp, out, grid)) {
        fprintf(stderr, "thread %ld: block_sum n=%d block=%u\n", id, n, block);
        bad = 1;
    }
    free(in); free(out); free(exp);
    return bad;
}

static int check_shuffles(long id, harness_rng *rng, unsigned grid, unsigned block)
{
    int total = (int)(grid * block), n = total - 5;
    int *in = harness_xmalloc((size_t)n * sizeof(int));
    uint32_t *out = harness_xmalloc((size_t)total * 6 * 4), *exp = harness_xmalloc((size_t)total * 6 * 4);
    for (int i = 0; i < n; i++) in[i] = (int)harness_rng_u32(rng);
    for (int i = 0; i < total; i++) {
        unsigned lane = (unsigned)(i % (int)block) % 32, base = (unsigned)i - lane;
        unsigned tx = (unsigned)(i % (int)block);
#define V(l) ((uint32_t)in[(base + (l)) % (unsigned)n])
        exp[6 * i + 0] = V(shfl_src(3, lane, (tx * 7) % 32, 0x1f));
        exp[6 * i + 1] = V(shfl_src(0, lane, 3, 0));
        exp[6 * i + 2] = V(shfl_src(1, lane, 5, ((32 - 8) << 8) | 0x1f));
        exp[6 * i + 3] = V(shfl_src(2, lane, 6, ((32 - 16) << 8) | 0x1f));
        exp[6 * i + 4] = V(shfl_src(3, lane, 2, ((32 - 4) << 8) | 0x1f));
        exp[6 * i + 5] = V(shfl_src(0, lane, 1, (32 - 16) << 8));
#undef V
    }
    void *args[] = {&in, &out, &n};
    int bad = !launched(id, "shuffles", ptxrtLaunchKernel(k_shuffles, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    if (!bad && harness_compare_u32("shuffles", exp, out, (size_t)total * 6)) {
        fprintf(stderr, "thread %ld: shuffles grid=%u block=%u\n", id, grid, block);
        bad = 1;
    }
    free(in); free(out); free(exp);
    return bad;
}

static void *worker(void *arg)
{
    long id = (long)arg;
    harness_rng rng;
    harness_rng_seed(&rng, 0x5eed0000u + (uint64_t)id);
    long bad = 0;
    for (int r = 0; r < ROUNDS && !bad; r++) {
        /* Block sizes of 1 to 32 warps, a different grid for every thread and round. */
        unsigned block = 32u << ((id + r) % 6);
        bad |= check_block_sum(id, &rng, 3000 + 3331 * (int)id + 977 * r, block);
        bad |= check_shuffles(id, &rng, 2 + (unsigned)id + (unsigned)r, 64u * (1 + (unsigned)(id % 4)));
    }
    if (!bad && ptxrtGetLastError() != ptxrtSuccess) {
        fprintf(stderr, "thread %ld: an error was left behind\n", id);
        bad = 1;
    }
    return (void *)bad;
}

int main(void)
{
    k_block_sum = harness_find_kernel("block_sum");
    k_shuffles = harness_find_kernel("shuffles");
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) harness_fail("pthread_create");
    int failures = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        failures += r != NULL;
    }
    return harness_finish("concurrent_warps", THREADS, failures);
}
