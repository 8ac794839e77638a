/* The installed-prefix example: runs `scale` (scale.ptx, y[i] = 2 * x[i]) through the typed
 * launcher of scale.h and, by name, through ptxrtFindKernel + ptxrtLaunchKernelEx. */
#include <stdio.h>
#include <stdlib.h>

#include "ptxrt.h"
#include "scale.h"

static int check(const float *x, const float *y, int n, const char *how)
{
    for (int i = 0; i < n; i++) {
        if (y[i] != 2.0f * x[i]) {
            printf("installed example: FAILED (%s) at y[%d]\n", how, i);
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    const int n = 100000;
    float *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y);
    if (x == NULL || y == NULL) return 1;
    for (int i = 0; i < n; i++) x[i] = (float)(i % 1000) * 0.25f;
    ptxrtDim3 grid = {(n + 127) / 128, 1, 1}, block = {128, 1, 1};

    ptxrtError_t err = scale_launch(grid, block, 0, x, y, n);
    if (err != ptxrtSuccess || check(x, y, n, "typed launcher")) {
        fprintf(stderr, "%s: %s\n", ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
        return 1;
    }
    for (int i = 0; i < n; i++) y[i] = 0.0f;
    const ptxrtKernel *k = ptxrtFindKernel("scale");
    int n_arg = n;
    void *args[] = {&x, &y, &n_arg};
    const size_t sizes[] = {sizeof x, sizeof y, sizeof n_arg};
    const ptxrtLaunchConfig config = {grid, block, 0, NULL};
    err = ptxrtLaunchKernelEx(k, &config, args, sizes, 3);
    if (err != ptxrtSuccess || check(x, y, n, "by name")) {
        fprintf(stderr, "%s: %s\n", ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
        return 1;
    }
    printf("installed example: OK\n");
    free(x);
    free(y);
    return 0;
}
