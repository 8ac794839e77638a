/* debug_lines_host.c: tests/kernels/debug_lines.ptx, compiled with -g. The debug_info test
 * runs it under gdb with a breakpoint on a line of debug_lines.cu; run alone it checks the
 * kernel's results: pos[i] + vel[i] * dt for i < n, positions past n untouched. */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

int main(void)
{
    enum { N = 300, BLOCK = 64 };
    float *pos = harness_xmalloc(sizeof(float) * (N + 20));
    float *vel = harness_xmalloc(sizeof(float) * (N + 20));
    for (int i = 0; i < N + 20; i++) {
        pos[i] = (float)i;
        vel[i] = 0.5f * (float)(i % 7);
    }
    float dt = 0.25f;
    int n = N;
    void *args[] = {&pos, &vel, &dt, &n};
    const ptxrtKernel *k = harness_find_kernel("scale_particles");
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3((N + 20 + BLOCK - 1) / BLOCK, 1, 1), harness_dim3(BLOCK, 1, 1), args, 0, NULL));
    for (int i = 0; i < N + 20; i++) {
        float expected = i < N ? (float)i + 0.5f * (float)(i % 7) * 0.25f : (float)i;
        if (pos[i] != expected)
            harness_fail("scale_particles: pos[%d] = %g, expected %g\n", i, pos[i], expected);
    }
    printf("debug_lines: OK\n");
    free(pos);
    free(vel);
    return 0;
}
