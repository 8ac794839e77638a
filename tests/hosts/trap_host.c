/* trap_host.c: tests/kernels/trap.ptx. A thread that executes `trap` two calls deep ends
 * the launch with ptxrtErrorLaunchFailure and a message naming the kernel, the block and
 * the function; launches without a trap before and after it complete normally. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_ok(const ptxrtKernel *k, int *out, int n)
{
    int bad = -1; /* no thread traps */
    void *args[] = {&out, &bad, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3((unsigned)(n + 127) / 128, 1, 1), harness_dim3(128, 1, 1), args, 0, NULL));
    for (int i = 0; i < n; i++) {
        if (out[i] != 2 * (i + 1) + 1) {
            fprintf(stderr, "out[%d] = %d, expected %d\n", i, out[i], 2 * (i + 1) + 1);
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    const ptxrtKernel *k = harness_find_kernel("maybe_trap");
    const int n = 100000;
    int *out = harness_xmalloc(n * sizeof(int));
    int failures = check_ok(k, out, n);

    /* Thread 77 of block 300 traps: inner() sees v == i + 1 == bad. */
    int bad = 300 * 128 + 77 + 1;
    int nn = n;
    void *args[] = {&out, &bad, &nn};
    ptxrtError_t err = ptxrtLaunchKernel(k, harness_dim3((unsigned)(n + 127) / 128, 1, 1), harness_dim3(128, 1, 1), args, 0, NULL);
    const char *msg = ptxrtGetLastErrorMessage();
    if (err != ptxrtErrorLaunchFailure) {
        fprintf(stderr, "trap: launch returned %s, expected ptxrtErrorLaunchFailure\n", ptxrtGetErrorName(err));
        failures++;
    } else if (!msg || !strstr(msg, "trap") || !strstr(msg, "maybe_trap") || !strstr(msg, "300")) {
        fprintf(stderr, "trap: message does not name the trap, kernel and block: %s\n", msg ? msg : "(null)");
        failures++;
    } else {
        printf("trap message: %s\n", msg);
    }
    failures += check_ok(k, out, n);
    free(out);
    return harness_finish("trap", 3, failures);
}
