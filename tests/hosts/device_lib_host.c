/* device_lib_host.c: tests/kernels/device_lib.ptx. Device printf writes CUDA-formatted
 * lines on stdout (checked by the test driver), device malloc/free work per thread, and a
 * failed assert ends the launch with ptxrtErrorLaunchFailure and CUDA's assertion message;
 * the next launch works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int launch(const ptxrtKernel *k, int *out, int n, int fail_at, ptxrtError_t *err)
{
    void *args[] = {&out, &n, &fail_at};
    *err = ptxrtLaunchKernel(k, harness_dim3((unsigned)(n + 63) / 64, 1, 1), harness_dim3(64, 1, 1), args, 0, NULL);
    return 0;
}

int main(void)
{
    const ptxrtKernel *k = harness_find_kernel("device_lib");
    const int n = 5000;
    int *out = harness_xmalloc(n * sizeof(int));
    int failures = 0;
    ptxrtError_t err;
    fflush(stdout);
    launch(k, out, n, -1, &err);
    if (err != ptxrtSuccess) {
        fprintf(stderr, "launch failed: %s %s\n", ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
        failures++;
    }
    for (int i = 0; i < n && !failures; i++) {
        if (out[i] != 3 * i) {
            fprintf(stderr, "malloc'd array: out[%d] = %d, expected %d\n", i, out[i], 3 * i);
            failures++;
        }
    }
    launch(k, out, n, 4321, &err);
    const char *msg = ptxrtGetLastErrorMessage();
    if (err != ptxrtErrorLaunchFailure || !msg || !strstr(msg, "Assertion `i != fail_at` failed") || !strstr(msg, "device_lib")) {
        fprintf(stderr, "assert: launch returned %s, message %s\n", ptxrtGetErrorName(err), msg ? msg : "(null)");
        failures++;
    }
    launch(k, out, n, -1, &err);
    if (err != ptxrtSuccess) {
        fprintf(stderr, "launch after the failed assertion: %s\n", ptxrtGetErrorName(err));
        failures++;
    }
    free(out);
    return harness_finish("device_lib", 3, failures);
}
