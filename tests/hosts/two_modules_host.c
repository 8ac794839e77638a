/* two_modules_host.c: a program linked from two translated PTX modules
 * (tests/kernels/two_modules_a.ptx calls `scale`, which two_modules_b.ptx defines) and a
 * function with ISA 1.x `.reg` parameters, and a `.weak` function `xor_key` (K) both modules
 * define. res[i] = K(K(in[i] + i + 1000) * 3). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

int main(void)
{
    const ptxrtKernel *k = harness_find_kernel("combine");
    harness_rng rng;
    harness_rng_seed(&rng, 0x2A0Du);
    int failures = 0;
    static const unsigned sizes[] = {1, 1000, 65537};
    for (int s = 0; s < 3; s++) {
        unsigned n = sizes[s];
        uint32_t *in = harness_xmalloc(n * 4), *res = harness_xmalloc(n * 4), *exp = harness_xmalloc(n * 4);
        for (unsigned i = 0; i < n; i++) {
            in[i] = harness_rng_u32(&rng);
            exp[i] = (((in[i] + i + 1000u) ^ 0x5A5A5A5Au) * 3u) ^ 0x5A5A5A5Au;
        }
        void *args[] = {&in, &res, &n};
        PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3((n + 127) / 128, 1, 1), harness_dim3(128, 1, 1), args, 0, NULL));
        failures += harness_compare_u32("combine", exp, res, n) != 0;
        free(in); free(res); free(exp);
    }
    return harness_finish("two_modules", 3, failures);
}
