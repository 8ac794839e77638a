/* stack_overflow_host.c: tests/kernels/stack_overflow.ptx. A recursive function whose depth
 * comes from a parameter: shallow launches give chain(n) = 3 chain(n - 1) + n; a launch in
 * which one thread recurses a hundred million calls deep overflows that thread's stack and
 * must end with ptxrtErrorLaunchFailure and a message naming the kernel, the block (and,
 * for fibers, the thread) and the setting to raise; the process survives and the next
 * launch works. deep_region runs on the worker's block stack, deep_fiber on fibers;
 * deep_malloc calls malloc/free at every level, and the overflow is caught by the check
 * that a library call has stack room left (the message names the thread and the call). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static uint32_t chain_ref(uint32_t n)
{
    uint32_t c = 1;
    for (uint32_t i = 1; i <= n; i++)
        c = c * 3u + i;
    return c;
}

static ptxrtError_t launch(const ptxrtKernel *k, uint32_t *out, unsigned blocks, unsigned threads, uint32_t depth, uint32_t deep_block, uint32_t deep_thread, uint32_t deep_depth)
{
    void *args[] = {&out, &depth, &deep_block, &deep_thread, &deep_depth};
    return ptxrtLaunchKernel(k, harness_dim3(blocks, 1, 1), harness_dim3(threads, 1, 1), args, 0, NULL);
}

static int check_shallow(const char *name, const ptxrtKernel *k, uint32_t *out, unsigned blocks, unsigned threads, uint32_t depth)
{
    PTXRT_CHECK(launch(k, out, blocks, threads, depth, UINT32_MAX, UINT32_MAX, 0));
    for (unsigned i = 0; i < blocks * threads; i++) {
        uint32_t want = chain_ref(depth + (i % threads) % 5);
        if (out[i] != want) {
            fprintf(stderr, "%s: out[%u] = %u, expected %u (depth %u)\n", name, i, out[i], want, depth);
            return 1;
        }
    }
    return 0;
}

/* How the overflow is caught, which decides what the message can say. */
enum how { ON_BLOCK_STACK, ON_FIBER_STACK, BEFORE_LIBRARY_CALL };

/* One thread of block 4 goes far deeper than any stack allows. */
static int check_deep(const char *name, const ptxrtKernel *k, uint32_t *out, enum how how)
{
    ptxrtError_t err = launch(k, out, 6, 64, 10, 4, 37, 100000000u);
    const char *msg = ptxrtGetLastErrorMessage();
    if (err != ptxrtErrorLaunchFailure) {
        fprintf(stderr, "%s: the deep launch returned %s, expected ptxrtErrorLaunchFailure\n", name, ptxrtGetErrorName(err));
        return 1;
    }
    int named = msg && strstr(msg, "stack overflow") && strstr(msg, name) && strstr(msg, "block (4,0,0)") && strstr(msg, "STACK_BYTES");
    /* Fibers and library calls know which thread overflowed (region code, unless forced
     * onto fibers, does not). */
    if (named && how == ON_FIBER_STACK)
        named = strstr(msg, "thread (37,0,0)") && strstr(msg, "PTXRT_FIBER_STACK_BYTES");
    if (named && how == BEFORE_LIBRARY_CALL)
        named = strstr(msg, "thread (37,0,0)") && strstr(msg, "`malloc`");
    if (!named) {
        fprintf(stderr, "%s: the message does not name the stack overflow, kernel, block and setting: %s\n", name, msg ? msg : "(null)");
        return 1;
    }
    printf("%s message: %s\n", name, msg);
    return 0;
}

static int run(const char *name, enum how how)
{
    const ptxrtKernel *k = harness_find_kernel(name);
    uint32_t *out = harness_xmalloc(8 * 96 * sizeof(uint32_t));
    int failures = check_shallow(name, k, out, 6, 64, 200);
    failures += check_deep(name, k, out, how);
    failures += check_shallow(name, k, out, 8, 96, 300);
    free(out);
    return harness_finish(name, 3, failures);
}

int main(void)
{
    int status = run("deep_region", ON_BLOCK_STACK);
    status |= run("deep_fiber", ON_FIBER_STACK);
    return run("deep_malloc", BEFORE_LIBRARY_CALL) | status;
}
