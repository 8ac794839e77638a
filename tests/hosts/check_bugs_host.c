/* check_bugs_host.c: tests/kernels/check_bugs.ptx translated with --check. Each kernel runs
 * once with its "good" argument (the launch succeeds and computes) and once with its "bad"
 * one: the launch fails with the expected error, and the report names the kernel, the
 * block and thread, the CUDA source line of the bug and what happened. The process goes on
 * after each report, and global memory comes from cudaMalloc (an allocation ptxrt knows). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "cuda/cuda_runtime.h"

static int failures;

static ptxrtError_t launch(const char *name, unsigned grid, unsigned block, void *p, int arg)
{
    void *args[] = {&p, &arg};
    return ptxrtLaunchKernel(harness_find_kernel(name), harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL);
}

static void good(const char *name, unsigned grid, unsigned block, void *p, int arg)
{
    ptxrtError_t err = launch(name, grid, block, p, arg);
    if (err != ptxrtSuccess) {
        fprintf(stderr, "%s(%d): a correct launch failed: %s: %s\n", name, arg, ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
        failures++;
    }
}

/* The bad launch must fail with `code`, and the message hold every one of `parts`. */
static void bad(const char *name, unsigned grid, unsigned block, void *p, int arg, ptxrtError_t code, const char *const *parts)
{
    ptxrtError_t err = launch(name, grid, block, p, arg);
    const char *msg = ptxrtGetLastErrorMessage();
    if (err != code) {
        fprintf(stderr, "%s(%d): launch returned %s, expected %s (%s)\n", name, arg, ptxrtGetErrorName(err), ptxrtGetErrorName(code), msg ? msg : "");
        failures++;
        return;
    }
    for (const char *const *part = parts; *part; part++) {
        if (!msg || !strstr(msg, *part)) {
            fprintf(stderr, "%s(%d): the report does not say \"%s\": %s\n", name, arg, *part, msg ? msg : "(null)");
            failures++;
        }
    }
}

int main(void)
{
    enum { N = 100 };
    int *ints = NULL;
    float *floats = NULL;
    if (cudaMalloc((void **)&ints, 256 * sizeof(int)) != cudaSuccess || cudaMalloc((void **)&floats, N * sizeof(float)) != cudaSuccess)
        harness_fail("cudaMalloc failed\n");
    memset(ints, 0, 256 * sizeof(int));
    for (int i = 0; i < N; i++)
        floats[i] = (float)i;

    good("shared_write", 1, 64, ints, 0);
    for (int i = 0; i < 64; i++)
        if (ints[i] != i)
            harness_fail("shared_write: out[%d] = %d\n", i, ints[i]);
    static const char *const shared_write[] = {"out-of-bounds shared write", "shared_write", "block (0,0,0)", "thread (63,0,0)", "check_bugs.cu:7", NULL};
    bad("shared_write", 1, 64, ints, 1, ptxrtErrorIllegalAddress, shared_write);

    good("local_array", 1, 32, ints, 7);
    static const char *const local_array[] = {"out-of-bounds local write", "local_array", "thread (0,0,0)", "check_bugs.cu:16", NULL};
    bad("local_array", 1, 32, ints, 8, ptxrtErrorIllegalAddress, local_array);

    good("global_scale", 2, 64, floats, N);
    for (int i = 0; i < N; i++)
        if (floats[i] != 2.0f * (float)i)
            harness_fail("global_scale: p[%d] = %g\n", i, floats[i]);
    static const char *const global_scale[] = {"out-of-bounds global read", "past the end of the 400-byte allocation", "global_scale", "block (1,0,0)", "thread (36,0,0)", "check_bugs.cu:27", NULL};
    bad("global_scale", 2, 64, floats, N + 1, ptxrtErrorIllegalAddress, global_scale);

    good("shared_race", 1, 64, ints, 1);
    for (int i = 1; i < 64; i++)
        if (ints[i] != (i - 1) * 5)
            harness_fail("shared_race: out[%d] = %d\n", i, ints[i]);
    static const char *const shared_race[] = {"shared memory data race", "read of shared offset 0", "shared_race", "thread (1,0,0)", "check_bugs.cu:36", NULL};
    bad("shared_race", 1, 64, ints, 0, ptxrtErrorLaunchFailure, shared_race);

    good("shared_uninit", 1, 64, ints, 64);
    static const char *const shared_uninit[] = {"uninitialized shared read", "shared offset 252", "shared_uninit", "thread (63,0,0)", "check_bugs.cu:45", NULL};
    bad("shared_uninit", 1, 64, ints, 63, ptxrtErrorLaunchFailure, shared_uninit);

    /* The process and the runtime go on after the reports. */
    good("shared_write", 1, 64, ints, 0);
    cudaFree(ints);
    cudaFree(floats);
    if (failures)
        return 1;
    printf("check_bugs: 5 bugs reported, 6 correct launches\n");
    return 0;
}
