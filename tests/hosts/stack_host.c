/* stack_host.c: runs tests/kernels/stack.ptx (alloca, stacksave, stackrestore).
 *
 *   stack_kernel(out): out[4 gid ..] = {sum of a stack array kept across a barrier,
 *                      its address mod 16, sum of a 32-bit-addressed stack array,
 *                      stack_sum(gid, gid % 5 + 1) (alloca in a recursive function)}
 *   stack_loop(out):   out[gid] = 2000 * gid after 2000 allocate/restore iterations
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static uint32_t stack_sum(uint32_t v, uint32_t k)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < k; i++) s += i * (v + 1) + v;
    return s + ((v & 1) ? 0 : stack_sum(v + 1, k));
}

static int run_kernel(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("stack_kernel");
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 16), *exp = harness_xmalloc(n * 16);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            uint32_t gid = b * block + t, kk = t % 13 + 1, s = 0, s32 = 0;
            for (uint32_t i = 0; i < kk; i++) s += i * 1000 + gid;
            for (uint32_t i = 0; i < kk + 3; i++) s32 += i + gid;
            exp[4 * gid] = s;
            exp[4 * gid + 1] = 0;
            exp[4 * gid + 2] = s32;
            exp[4 * gid + 3] = stack_sum(gid, gid % 5 + 1);
        }
    void *args[] = {&out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("stack_kernel", exp, out, 4 * n);
    free(out); free(exp);
    return bad != 0;
}

static int run_loop(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("stack_loop");
    size_t n = (size_t)grid * block;
    uint32_t *out = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) exp[i] = 2000u * (uint32_t)i;
    void *args[] = {&out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("stack_loop", exp, out, n);
    free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    static const unsigned shapes[][2] = {{3, 32}, {2, 96}, {4, 256}, {1, 1024}, {5, 50}};
    int f1 = 0, f2 = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        f1 += run_kernel(shapes[s][0], shapes[s][1]);
        f2 += run_loop(shapes[s][0], shapes[s][1]);
    }
    int rc = harness_finish("stack_kernel", 5, f1);
    rc |= harness_finish("stack_loop", 5, f2);
    return rc;
}
