/* cuda_barrier_host.c: runs tests/kernels/cuda_barrier.ptx (NVRTC output of
 * cuda_barrier.cu: libcu++'s cuda::barrier and cuda::memcpy_async, which compile to
 * mbarrier wait loops on sm_80) over several shapes, partial warps included. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "barrier_host.h"
#include "harness.h"

/* Launches `name`, compares `n` results and frees everything. */
static int run(const char *name, unsigned grid, unsigned block, void **args, uint32_t *in, uint32_t *out, uint32_t *exp, size_t n)
{
    int r = launch_and_check(name, grid, block, args, exp, out, n);
    free(in); free(out); free(exp);
    return r;
}

static int rounds(unsigned grid, unsigned block, uint32_t nrounds)
{
    size_t n = (size_t)grid * block;
    uint32_t *in = random_input(n, block), *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            uint32_t acc = 0;
            for (uint32_t r = 0; r < nrounds; r++) acc += in[(size_t)b * block + (t + 1) % block] * (r + 1);
            exp[(size_t)b * block + t] = acc;
        }
    void *args[] = {&in, &out, &nrounds};
    return run("rounds", grid, block, args, in, out, exp, n);
}

static int copy_async(unsigned grid, unsigned block)
{
    size_t n = (size_t)grid * block;
    uint32_t *in = random_input(n, 100 + block), *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) exp[(size_t)b * block + t] = in[(size_t)b * block + block - 1 - t];
    void *args[] = {&in, &out};
    return run("copy_async", grid, block, args, in, out, exp, n);
}

static int drop(unsigned grid, unsigned block)
{
    size_t n = (size_t)grid * block;
    uint32_t *in = random_input(n, 200 + block), *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (unsigned b = 0; b < grid; b++) {
        uint32_t s = 0;
        for (unsigned j = 0; j < block; j++)
            if (j % 4 != 3) s += in[(size_t)b * block + j];
        for (unsigned t = 0; t < block; t++) exp[(size_t)b * block + t] = t % 4 == 3 ? 0 : 2 * s;
    }
    void *args[] = {&in, &out};
    return run("drop", grid, block, args, in, out, exp, n);
}

static int pipeline(unsigned grid, unsigned block, uint32_t nrounds)
{
    unsigned producers = block - 32;
    uint32_t *in = random_input((size_t)grid * producers, 300 + block);
    uint32_t *out = harness_xmalloc((size_t)grid * 32 * 4), *exp = harness_xmalloc((size_t)grid * 32 * 4);
    pipeline_reference(in, grid, producers, nrounds, exp);
    void *args[] = {&in, &out, &nrounds};
    return run("pipeline", grid, block, args, in, out, exp, (size_t)grid * 32);
}

int main(void)
{
    static const unsigned shapes[][2] = {{3, 1}, {2, 7}, {4, 32}, {3, 45}, {5, 96}, {3, 256}, {2, 1024}};
    static const unsigned pc_shapes[][2] = {{3, 33}, {2, 45}, {4, 96}, {2, 256}, {2, 1024}};
    enum { NSHAPES = sizeof shapes / sizeof shapes[0], NPC = sizeof pc_shapes / sizeof pc_shapes[0] };
    int rc = 0, f;

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += rounds(shapes[s][0], shapes[s][1], 3);
    rc |= harness_finish("rounds", NSHAPES, f);

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += copy_async(shapes[s][0], shapes[s][1]);
    rc |= harness_finish("copy_async", NSHAPES, f);

    f = 0;
    for (int s = 0; s < NSHAPES; s++) f += drop(shapes[s][0], shapes[s][1]);
    rc |= harness_finish("drop", NSHAPES, f);

    f = 0;
    for (int s = 0; s < NPC; s++) f += pipeline(pc_shapes[s][0], pc_shapes[s][1], 4);
    rc |= harness_finish("pipeline", NPC, f);
    return rc;
}
