/* ex2.c: ex2.approx.f32 and ex2.approx.ftz.f32 as ptx2llvm translates them (ex2.ptx), for
 * every STEP-th f32 input (default 1: all of them), against 2^x in double precision: the
 * worst error in units in the last place of the f32 result (the ISA allows 2 ulp; under
 * ftz, subnormal inputs count as 0 and subnormal results may be flushed to +0). Exit
 * status 1 above 2 ulp or when a launch fails.
 *   bench/accuracy/run.sh [STEP]
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxrt.h"

/* An error no rounding explains (a wrong infinity, NaN or sign). */
#define WRONG 1e9

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The distance of the f32 result r from the exact value y, in f32 ulp at |y| (the
 * subnormal spacing 2^-149 below 2^-126). */
static double ulps(float r, double y)
{
    if (isnan(y)) return isnan(r) ? 0 : WRONG;
    if (isinf(y)) return isinf(r) && (r > 0) == (y > 0) ? 0 : WRONG;
    double ay = fabs(y);
    if (isinf(r)) return ay > FLT_MAX ? 0 : WRONG;
    int e;
    frexp(ay, &e); /* ay = m * 2^e, m in [0.5, 1) */
    double ulp = fmax(ldexp(1.0, e - 24), ldexp(1.0, -149));
    return fabs((double)r - y) / ulp;
}

int main(int argc, char **argv)
{
    uint32_t step = argc > 1 ? (uint32_t)atoi(argv[1]) : 1;
    if (step == 0) step = 1;
    const uint32_t n = 1u << 22; /* inputs per launch */
    float *out = malloc(n * sizeof *out), *out_ftz = malloc(n * sizeof *out_ftz);
    const ptxrtKernel *k = ptxrtFindKernel("ex2all");
    if (!out || !out_ftz || !k) {
        fprintf(stderr, "ex2: no memory or no kernel ex2all\n");
        return 1;
    }
    double worst = 0, worst_ftz = 0;
    uint32_t at = 0, at_ftz = 0;
    uint64_t checked = 0;
    for (uint64_t base = 0; base < (1ull << 32); base += (uint64_t)n * step) {
        uint32_t b = (uint32_t)base;
        void *args[] = {&b, &step, &out, &out_ftz};
        if (ptxrtLaunchKernel(k, (ptxrtDim3){n / 256, 1, 1}, (ptxrtDim3){256, 1, 1}, args, 0, NULL) != ptxrtSuccess) {
            fprintf(stderr, "ex2: launch failed\n");
            return 1;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t bits = b + i * step;
            float x = from_bits(bits);
            double e = ulps(out[i], exp2((double)x));
            if (e > worst) worst = e, at = bits;
            /* ftz: a subnormal input is +-0 (2^0 = 1); a subnormal result may be +0. */
            double y = exp2(fabsf(x) < FLT_MIN ? 0.0 : (double)x);
            double e_ftz = y < FLT_MIN && out_ftz[i] == 0.0f ? 0 : ulps(out_ftz[i], y);
            if (e_ftz > worst_ftz) worst_ftz = e_ftz, at_ftz = bits;
            checked++;
        }
    }
    printf("checked %llu inputs: worst %.3f ulp at x = %08x (%g); ftz: worst %.3f ulp at x = %08x (%g)\n", (unsigned long long)checked, worst, at,
           from_bits(at), worst_ftz, at_ftz, from_bits(at_ftz));
    free(out);
    free(out_ftz);
    return worst <= 2.0 && worst_ftz <= 2.0 ? 0 : 1;
}
