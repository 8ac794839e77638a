/* The CMake example's host: runs the `scale` kernel (scale.ptx, y[i] = 2 * x[i]) on the
 * CPU through ptxrt and checks every element. It launches the kernel once through the
 * generic API (ptxrtFindKernel + ptxrtLaunchKernel) and once through the typed launch
 * function ptx2llvm_add_library generated in scale.h. */
#include <stdio.h>
#include <stdlib.h>

#include "ptxrt.h"
#include "scale.h"

int main(void)
{
    const int n = 100000;
    const unsigned block = 128;
    float *x = malloc(n * sizeof *x);
    float *y = malloc(n * sizeof *y);
    if (x == NULL || y == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.25f - 100.0f;
        y[i] = 0.0f;
    }

    const ptxrtKernel *scale = ptxrtFindKernel("scale");
    if (scale == NULL) {
        fprintf(stderr, "kernel `scale` not found: %s\n", ptxrtGetLastErrorMessage());
        return 1;
    }
    ptxrtDim3 grid = {(n + block - 1) / block, 1, 1};
    ptxrtDim3 threads = {block, 1, 1};
    int n_arg = n;
    void *args[] = {&x, &y, &n_arg};
    ptxrtError_t err = ptxrtLaunchKernel(scale, grid, threads, args, 0, NULL);
    if (err != ptxrtSuccess) {
        fprintf(stderr, "launch failed: %s: %s\n", ptxrtGetErrorName(err),
                ptxrtGetLastErrorMessage());
        return 1;
    }

    for (int i = 0; i < n; i++) {
        if (y[i] != 2.0f * x[i]) {
            printf("cmake example: FAILED at y[%d]: expected %g, got %g\n", i,
                   (double)(2.0f * x[i]), (double)y[i]);
            return 1;
        }
    }
    /* Again through the typed launch function of scale.h. */
    for (int i = 0; i < n; i++) y[i] = 0.0f;
    err = scale_launch(grid, threads, 0, x, y, (uint32_t)n);
    if (err != ptxrtSuccess) {
        fprintf(stderr, "typed launch failed: %s\n", ptxrtGetErrorName(err));
        return 1;
    }
    for (int i = 0; i < n; i++) {
        if (y[i] != 2.0f * x[i]) {
            printf("cmake example: FAILED (typed launch) at y[%d]\n", i);
            return 1;
        }
    }
    printf("scaled %d elements in %u blocks of %u threads\n", n, grid.x, block);
    printf("cmake example: OK\n");
    free(x);
    free(y);
    return 0;
}
