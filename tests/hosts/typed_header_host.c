/* typed_header_host.c: launches tests/kernels/vecadd.ptx and calls.ptx through the typed
 * launch functions `ptx2llvm --header` wrote (vecadd.h, calls.h in the build directory). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "vecadd.h"
#include "calls.h"

int main(void)
{
    const int n = 10000;
    float *a = harness_xmalloc(n * sizeof(float)), *b = harness_xmalloc(n * sizeof(float)), *c = harness_xmalloc(n * sizeof(float));
    for (int i = 0; i < n; i++) { a[i] = (float)i; b[i] = 0.5f * (float)i; }
    PTXRT_CHECK(vecadd_launch(harness_dim3((n + 255) / 256, 1, 1), harness_dim3(256, 1, 1), 0, a, b, c, n));
    int failures = 0;
    for (int i = 0; i < n; i++) if (c[i] != 1.5f * (float)i) { failures++; break; }

    float *out_f = harness_xmalloc(n * sizeof(float)), *out_pair = harness_xmalloc(n * sizeof(float));
    unsigned *out_fib = harness_xmalloc(n * 4);
    int *out_ds = harness_xmalloc(n * 4), *out_op = harness_xmalloc(n * 4);
    PTXRT_CHECK(calls_launch(harness_dim3((n + 127) / 128, 1, 1), harness_dim3(128, 1, 1), 0, a, out_f, out_fib, out_ds, out_op, out_pair, (uint32_t)n));
    for (int i = 0; i < n; i++) {
        unsigned f = 0, g = 1, m = (unsigned)(i % 20);
        for (unsigned k = 0; k < m; k++) { unsigned t = f + g; f = g; g = t; }
        if (out_fib[i] != f) { failures++; break; }
    }
    free(a); free(b); free(c); free(out_f); free(out_pair); free(out_fib); free(out_ds); free(out_op);
    return harness_finish("typed_header", 2, failures);
}
