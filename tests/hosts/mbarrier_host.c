/* mbarrier_host.c: runs tests/kernels/mbarrier.ptx (the kernels' results are described
 * there) over several grid and block shapes, partial warps included, against host
 * references. Thread loops alone would spin forever in every wait loop. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barrier_host.h"
#include "harness.h"

static int block_wait(unsigned grid, unsigned block)
{
    size_t n = (size_t)grid * block;
    uint32_t *in = random_input(n, 1 + block), *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) exp[(size_t)b * block + t] = in[(size_t)b * block + (t + 1) % block];
    void *args[] = {&in, &out};
    int r = launch_and_check("block_wait", grid, block, args, exp, out, n);
    free(in); free(out); free(exp);
    return r;
}

static int producer_consumer(unsigned grid, unsigned block, uint32_t rounds)
{
    unsigned producers = block - 32;
    uint32_t *in = random_input((size_t)grid * producers, 7 + block);
    uint32_t *out = harness_xmalloc((size_t)grid * 32 * 4), *exp = harness_xmalloc((size_t)grid * 32 * 4);
    pipeline_reference(in, grid, producers, rounds, exp);
    void *args[] = {&in, &out, &rounds};
    int r = launch_and_check("producer_consumer", grid, block, args, exp, out, (size_t)grid * 32);
    free(in); free(out); free(exp);
    return r;
}

static int named_producers(unsigned grid, unsigned block, uint32_t rounds)
{
    unsigned producers = block - 32;
    uint32_t *out = harness_xmalloc((size_t)grid * 32 * 4), *exp = harness_xmalloc((size_t)grid * 32 * 4);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned c = 0; c < 32; c++) {
            uint32_t s = 0;
            for (uint32_t r = 0; r < rounds; r++)
                for (unsigned j = c; j < producers; j += 32) s += r * j + b;
            exp[b * 32 + c] = s;
        }
    void *args[] = {&out, &rounds};
    int r = launch_and_check("named_producers", grid, block, args, exp, out, (size_t)grid * 32);
    free(out); free(exp);
    return r;
}

static int multi_phase(unsigned grid, unsigned block, uint32_t iters)
{
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            uint32_t acc = 0;
            for (uint32_t i = 0; i < iters; i++) acc = acc * 3 + i * ((t + 1) % block) + b;
            exp[(size_t)b * block + t] = acc;
        }
    void *args[] = {&out, &iters};
    int r = launch_and_check("multi_phase", grid, block, args, exp, out, n);
    free(out); free(exp);
    return r;
}

static int drop_early(unsigned grid, unsigned block)
{
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            uint32_t s = 0;
            for (uint32_t r = 0; r < 2; r++)
                for (unsigned j = 0; j < block; j++)
                    if (j % 3 != 2) s += 10 * j + r + b;
            exp[(size_t)b * block + t] = t % 3 == 2 ? 0xdead : s;
        }
    void *args[] = {&out};
    int r = launch_and_check("drop_early", grid, block, args, exp, out, n);
    free(out); free(exp);
    return r;
}

static int counts(unsigned grid, unsigned block)
{
    /* Pending counts before each .noComplete arrive, and tests of states and parities. */
    static const uint32_t per_block[9] = {10, 7, 1, 0, 1, 8, 0, 1, 7};
    size_t n = (size_t)grid * 9;
    uint32_t *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) exp[i] = per_block[i % 9];
    memset(out, 0xff, n * 4);
    void *args[] = {&out};
    int r = launch_and_check("counts", grid, block, args, exp, out, n);
    free(out); free(exp);
    return r;
}

static int tx_count(unsigned grid, unsigned block)
{
    size_t n = (size_t)grid * block;
    uint32_t *in = random_input(n, 3 + block), *out = harness_xmalloc(2 * n * 4), *exp = harness_xmalloc(2 * n * 4);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            size_t g = (size_t)b * block + t;
            exp[2 * g] = in[(size_t)b * block + (t + 1) % block];
            exp[2 * g + 1] = 2 * in[(size_t)b * block + (t + 2) % block];
        }
    void *args[] = {&in, &out};
    int r = launch_and_check("tx_count", grid, block, args, exp, out, 2 * n);
    free(in); free(out); free(exp);
    return r;
}

static int async_copy(unsigned grid, unsigned block)
{
    size_t n = (size_t)grid * block;
    uint32_t *in = random_input(n, 5 + block), *out = harness_xmalloc(2 * n * 4), *exp = harness_xmalloc(2 * n * 4);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            size_t g = (size_t)b * block + t;
            exp[2 * g] = in[(size_t)b * block + block - 1 - t];
            exp[2 * g + 1] = in[(size_t)b * block + (t + 1) % block] & 0xffff;
        }
    void *args[] = {&in, &out};
    int r = launch_and_check("async_copy", grid, block, args, exp, out, 2 * n);
    free(in); free(out); free(exp);
    return r;
}

int main(void)
{
    static const unsigned shapes[][2] = {{3, 1}, {2, 7}, {4, 32}, {3, 45}, {5, 96}, {3, 256}, {2, 1024}};
    static const unsigned pc_shapes[][2] = {{3, 33}, {2, 45}, {4, 96}, {2, 256}, {2, 1024}};
    enum { NSHAPES = sizeof shapes / sizeof shapes[0], NPC = sizeof pc_shapes / sizeof pc_shapes[0] };
    int rc = 0, f;

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += block_wait(shapes[s][0], shapes[s][1]);
    rc |= harness_finish("block_wait", NSHAPES, f);

    f = 0;
    for (int s = 0; s < NPC; s++) f += producer_consumer(pc_shapes[s][0], pc_shapes[s][1], 5);
    rc |= harness_finish("producer_consumer", NPC, f);

    static const unsigned named_shapes[][2] = {{3, 64}, {2, 96}, {2, 256}, {2, 1024}};
    f = 0;
    for (int s = 0; s < 4; s++) f += named_producers(named_shapes[s][0], named_shapes[s][1], 5);
    rc |= harness_finish("named_producers", 4, f);

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += multi_phase(shapes[s][0], shapes[s][1], 4);
    rc |= harness_finish("multi_phase", NSHAPES, f);

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += drop_early(shapes[s][0], shapes[s][1]);
    rc |= harness_finish("drop_early", NSHAPES, f);

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += counts(shapes[s][0], shapes[s][1]);
    rc |= harness_finish("counts", NSHAPES, f);

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += tx_count(shapes[s][0], shapes[s][1]);
    rc |= harness_finish("tx_count", NSHAPES, f);

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += async_copy(shapes[s][0], shapes[s][1]);
    rc |= harness_finish("async_copy", NSHAPES, f);
    return rc;
}
