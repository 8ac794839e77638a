/* ex2.c: ex2.approx.f32 and ex2.approx.ftz.f32 as ptx2llvm translates them (ex2.ptx), for
 * every f32 input (or every STEP-th), against 2^x in double precision: the worst error in
 * units in the last place of the f32 result (the ISA allows 2 ulp; under ftz, subnormal
 * inputs count as 0 and subnormal results may be flushed to +0). Exit status 1 above 2 ulp.
 *   bench/accuracy/run.sh [STEP]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptxrt.h"

static float asf(uint32_t u){float f; memcpy(&f,&u,4); return f;}
/* ulp distance from the exact value y (double) of the f32 result r */
static double ulps(float r, double y) {
    if (isnan(y)) return isnan(r) ? 0 : 1e9;
    if (isinf(y)) return (isinf(r) && (r > 0) == (y > 0)) ? 0 : 1e9;
    double ay = fabs(y);
    /* ulp of f32 at |y| (subnormal spacing below 2^-126) */
    int e; frexp(ay, &e); /* ay = m*2^e, m in [0.5,1) */
    double ulp = ldexp(1.0, e - 24);
    if (ulp < ldexp(1.0, -149)) ulp = ldexp(1.0, -149);
    if (isinf(r)) return (ay > 3.4028234663852886e38) ? 0 : 1e9;
    return fabs((double)r - y) / ulp;
}
int main(int argc, char **argv) {
    uint32_t step = argc > 1 ? (uint32_t)atoi(argv[1]) : 8;
    const uint32_t N = 1u << 22; /* threads per launch */
    float *out = malloc(N * 4), *outf = malloc(N * 4);
    double worst = 0, worstf = 0; uint32_t wx = 0, wxf = 0; uint64_t n = 0;
    for (uint64_t base = 0; base < (1ull << 32); base += (uint64_t)N * step) {
        uint32_t b = (uint32_t)base;
        void *args[] = {&b, &step, &out, &outf};
        ptxrtLaunchKernel(ptxrtFindKernel("ex2all"), (ptxrtDim3){N / 256, 1, 1}, (ptxrtDim3){256, 1, 1}, args, 0, NULL);

        for (uint32_t i = 0; i < N; i++) {
            uint32_t xb = b + i * step; float x = asf(xb);
            double y = exp2((double)x);
            double e = ulps(out[i], y);
            if (e > worst) { worst = e; wx = xb; }
            /* ftz: subnormal input counts as +-0 (2^0 = 1), subnormal results flush to +0 */
            float xf = (fabsf(x) < 1.17549435e-38f) ? 0.0f : x;
            double yf = exp2((double)xf);
            double ef;
            if (yf < 1.1754943508222875e-38 && !isnan(yf)) ef = (outf[i] == 0.0f || ulps(outf[i], yf) <= 2) ? 0 : 1e9;
            else ef = ulps(outf[i], yf);
            if (ef > worstf) { worstf = ef; wxf = xb; }
            n++;
        }
    }
    printf("checked %llu inputs: worst %.3f ulp at x = %08x (%g); ftz: worst %.3f ulp at x = %08x (%g)\n", (unsigned long long)n, worst, wx,
           asf(wx), worstf, wxf, asf(wxf));
    return worst <= 2.0 && worstf <= 2.0 ? 0 : 1;
}
