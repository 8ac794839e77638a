/* device_launch_host.c: tests/kernels/device_launch.ptx. A parent grid launches child grids
 * from the device (cudaGetParameterBuffer + cudaLaunchDevice, and the V2 pair), which
 * launch grandchildren; when the host's launch returns, every grid of the tree has run.
 * An invalid child configuration is refused with cudaErrorInvalidConfiguration (9). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int main(void)
{
    const ptxrtKernel *parent = harness_find_kernel("parent");
    enum { N = 512, ROUNDS = 3 };
    uint32_t *out = harness_xmalloc(N * 4), *exp = harness_xmalloc(N * 4);
    uint32_t status[4];
    int failures = 0;
    for (int r = 0; r < ROUNDS; r++) {
        memset(out, 0, N * 4);
        memset(status, 0xff, sizeof status);
        uint32_t *status_ptr = status;
        void *args[] = {&out, &status_ptr};
        PTXRT_CHECK(ptxrtLaunchKernel(parent, harness_dim3(2, 1, 1), harness_dim3(32, 1, 1), args, 0, NULL));
        /* block b's child covers [256b, 256b + 64), its grandchild the next 64 words. */
        for (uint32_t i = 0; i < N; i++) exp[i] = (i % 256 < 128) ? i + 1 : 0;
        failures += harness_compare_u32("device-launched grids", exp, out, N) != 0;
        if (status[0] != 0 || status[1] != 0 || status[2] != 9 || status[3] != 9) {
            fprintf(stderr, "FAIL: launch results %u %u, invalid configuration %u %u\n", status[0], status[1], status[2], status[3]);
            failures++;
        }
    }
    free(out); free(exp);
    return harness_finish("device_launch", ROUNDS, failures);
}
