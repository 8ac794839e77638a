/* spaces_host.c: tests/kernels/spaces.ptx. Pointers into global, shared, local and constant
 * memory are classified by isspacep exactly: 1 = global, 2 = shared, 4 = local, 8 = const. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

int main(void)
{
    const ptxrtKernel *k = harness_find_kernel("spaces");
    unsigned grid = 3, block = 96, n = grid * block;
    int *data = harness_xmalloc(n * sizeof(int));
    uint32_t *out = harness_xmalloc(4 * n * 4), *exp = harness_xmalloc(4 * n * 4);
    for (unsigned i = 0; i < n; i++) { exp[4 * i] = 1; exp[4 * i + 1] = 2; exp[4 * i + 2] = 4; exp[4 * i + 3] = 8; }
    void *args[] = {&data, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("isspacep (global, shared, local, const)", exp, out, 4 * (size_t)n);
    free(data); free(out); free(exp);
    return harness_finish("spaces", 1, bad != 0);
}
