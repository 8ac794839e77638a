/* texture_host.h: what the texture test hosts share besides the sampling reference
 * (texture_reference.h): launching a 1D grid of 64-thread blocks over n items, bitwise
 * float comparison, and a resource descriptor for a CUDA-style array. Every function is
 * static.
 */
#ifndef TEXTURE_HOST_H
#define TEXTURE_HOST_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

static inline unsigned blocks_for(int n)
{
    return (unsigned)((n + 63) / 64);
}

static inline void launch(const char *name, int n, void **args)
{
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel(name), harness_dim3(blocks_for(n), 1, 1), harness_dim3(64, 1, 1), args, 0, NULL));
}

/* Same bits, or both NaN. */
static inline int same_f32(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y || (isnan(a) && isnan(b));
}

static inline ptxrtResourceDesc array_resource(ptxrtArray_t a)
{
    ptxrtResourceDesc r;
    memset(&r, 0, sizeof(r));
    r.resType = ptxrtResourceTypeArray;
    r.res.array.array = a;
    return r;
}

#endif
