/* texture_reference.h: a host reference of texture sampling, written from the rules the
 * runtime documents in ptxrt.h (CUDA's texture fetching: point = texel floor(u); linear =
 * texels floor(u - 0.5) and the next one, weight frac(u - 0.5) rounded to 1/256; address
 * modes per tap index; wrap/mirror clamp with unnormalized coordinates; border reads the
 * border colour; depth compare filters the texels' comparison results). Used by the
 * texture hosts; every function is static.
 */
#ifndef TEXTURE_REFERENCE_H
#define TEXTURE_REFERENCE_H

#include <math.h>
#include <string.h>

#include "ptxrt.h"

/* A texture as the reference sees it: texel values already converted to floats, 4 per
 * texel (missing channels 0, alpha 1), x fastest. */
typedef struct ref_texture {
    const float *texels;
    int dims;
    int size[3];
    int layers;                  /* 0: not layered */
    ptxrtTextureAddressMode mode[3];
    int linear;
    int normalized;
    float border[4];
} ref_texture;

static inline long ref_floor_index(float x)
{
    float f = floorf(x);
    if (isnan(f))
        return 0;
    if (f < -1099511627776.0f)
        f = -1099511627776.0f;
    if (f > 1099511627776.0f)
        f = 1099511627776.0f;
    return (long)f;
}

/* frac(x) rounded to 8 fraction bits. */
static inline float ref_weight(float x)
{
    float a = x - floorf(x);
    if (isnan(a))
        return 0.0f;
    float scaled = a * 256.0f;
    return roundf(scaled) / 256.0f;
}

/* The texel index a tap reads, or -1 for the border. */
static inline long ref_address(long i, int n, ptxrtTextureAddressMode mode, int normalized)
{
    if (!normalized && (mode == ptxrtAddressModeWrap || mode == ptxrtAddressModeMirror))
        mode = ptxrtAddressModeClamp;
    switch (mode) {
    case ptxrtAddressModeWrap: {
        long m = i % n;
        return m < 0 ? m + n : m;
    }
    case ptxrtAddressModeMirror: {
        long m = i % (2L * n);
        if (m < 0)
            m += 2L * n;
        return m >= n ? 2L * n - 1 - m : m;
    }
    case ptxrtAddressModeClamp:
        return i < 0 ? 0 : (i >= n ? n - 1 : i);
    default:
        return (i < 0 || i >= n) ? -1 : i;
    }
}

static inline void ref_fetch(const ref_texture *t, const long idx[3], int layer, float out[4])
{
    long at[3] = {0, 0, 0};
    for (int d = 0; d < t->dims; d++) {
        at[d] = ref_address(idx[d], t->size[d], t->mode[d], t->normalized);
        if (at[d] < 0) {
            memcpy(out, t->border, sizeof(float) * 4);
            return;
        }
    }
    long sy = t->dims > 1 ? t->size[1] : 1, sz = t->dims > 2 ? t->size[2] : 1;
    long texel = ((layer * sz + at[2]) * sy + at[1]) * t->size[0] + at[0];
    memcpy(out, t->texels + 4 * texel, sizeof(float) * 4);
}

/* Unnormalized coordinate of dimension d. */
static inline float ref_scaled(const ref_texture *t, int d, float c)
{
    if (!t->normalized)
        return c;
    float n = (float)t->size[d];
    float u = c * n;
    return u;
}

/* tex with float coordinates c[0..dims-1] (layer for layered textures, clamped) and the
 * texel offset operand off[0..dims-1]: the offset moves the integer texel indices (the
 * nearest texel or every tap of the linear footprint), not the filter weights. */
static inline void ref_sample_offset(const ref_texture *t, const float *c, int layer, const int off[3], float out[4])
{
    if (t->layers > 0) {
        if (layer < 0)
            layer = 0;
        if (layer >= t->layers)
            layer = t->layers - 1;
    } else {
        layer = 0;
    }
    float u[3] = {0, 0, 0};
    for (int d = 0; d < t->dims; d++)
        u[d] = ref_scaled(t, d, c[d]);
    if (!t->linear) {
        long idx[3] = {0, 0, 0};
        for (int d = 0; d < t->dims; d++)
            idx[d] = ref_floor_index(u[d]) + off[d];
        ref_fetch(t, idx, layer, out);
        return;
    }
    long base[3] = {0, 0, 0};
    float w[3] = {0, 0, 0};
    for (int d = 0; d < t->dims; d++) {
        float x = u[d] - 0.5f;
        base[d] = ref_floor_index(x);
        w[d] = ref_weight(x);
    }
    float acc[4] = {0, 0, 0, 0};
    for (int k = 0; k < (1 << t->dims); k++) {
        float weight = 1.0f;
        long idx[3] = {0, 0, 0};
        for (int d = 0; d < t->dims; d++) {
            int upper = (k >> d) & 1;
            idx[d] = base[d] + off[d] + upper;
            float f = upper ? w[d] : 1.0f - w[d];
            weight = weight * f;
        }
        float texel[4];
        ref_fetch(t, idx, layer, texel);
        for (int ch = 0; ch < 4; ch++) {
            float p = weight * texel[ch];
            acc[ch] = acc[ch] + p;
        }
    }
    memcpy(out, acc, sizeof(acc));
}

/* tex with float coordinates and no offset operand. */
static inline void ref_sample(const ref_texture *t, const float *c, int layer, float out[4])
{
    static const int no_offset[3] = {0, 0, 0};
    ref_sample_offset(t, c, layer, no_offset, out);
}

/* tld4 (tex2Dgather): component comp of the 2x2 footprint, counter-clockwise from the
 * lower left: (i0, j1), (i1, j1), (i1, j0), (i0, j0). */
static inline void ref_gather_offset(const ref_texture *t, const float *c, int comp, const int off[2], float out[4])
{
    long i0 = ref_floor_index(ref_scaled(t, 0, c[0]) - 0.5f) + off[0];
    long j0 = ref_floor_index(ref_scaled(t, 1, c[1]) - 0.5f) + off[1];
    long taps[4][3] = {{i0, j0 + 1, 0}, {i0 + 1, j0 + 1, 0}, {i0 + 1, j0, 0}, {i0, j0, 0}};
    for (int k = 0; k < 4; k++) {
        float texel[4];
        ref_fetch(t, taps[k], 0, texel);
        out[k] = texel[comp];
    }
}

static inline void ref_gather(const ref_texture *t, const float *c, int comp, float out[4])
{
    static const int no_offset[2] = {0, 0};
    ref_gather_offset(t, c, comp, no_offset, out);
}

/* Depth compare (ptxrt.h): whether `f <func> value` holds, reference on the left (C's
 * comparisons are IEEE's: NaN fails all but !=). */
static inline int ref_passes(int func, float f, float value)
{
    switch (func) {
    case ptxrtCompareLessEqual: return f <= value;
    case ptxrtCompareGreaterEqual: return f >= value;
    case ptxrtCompareLess: return f < value;
    case ptxrtCompareGreater: return f > value;
    case ptxrtCompareEqual: return f == value;
    case ptxrtCompareNotEqual: return f != value;
    case ptxrtCompareAlways: return 1;
    default: return 0;
    }
}

/* The texture whose texels (and border) are the comparison results of `t`'s: what a
 * depth-compare fetch filters. `scratch` holds 4 floats per texel of `t`. */
static inline ref_texture ref_compared(const ref_texture *t, int texel_count, int func, float f, float *scratch)
{
    ref_texture c = *t;
    for (int i = 0; i < texel_count; i++) {
        float r = ref_passes(func, f, t->texels[4 * i]) ? 1.0f : 0.0f;
        for (int ch = 0; ch < 4; ch++)
            scratch[4 * i + ch] = r;
    }
    float b = ref_passes(func, f, t->border[0]) ? 1.0f : 0.0f;
    for (int ch = 0; ch < 4; ch++)
        c.border[ch] = b;
    c.texels = scratch;
    return c;
}

/* Cubemap face selection (CUDA's cubemap table, OpenGL's): the major axis is the
 * component of largest magnitude, ties going to z, then y; faces 0..5 = +x -x +y -y +z -z
 * with (sc, tc) = (-z, -y) (z, -y) (x, z) (x, -z) (x, -y) (-x, -y); the face coordinates
 * are st[0] = (sc / |ma| + 1) / 2 and st[1] = (tc / |ma| + 1) / 2, normalized. */
static inline int ref_cube_face(float x, float y, float z, float st[2])
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), sc, tc, ma;
    int face;
    if (az >= ax && az >= ay) {
        face = signbit(z) ? 5 : 4;
        sc = signbit(z) ? -x : x;
        tc = -y;
        ma = az;
    } else if (ay >= ax) {
        face = signbit(y) ? 3 : 2;
        sc = x;
        tc = signbit(y) ? -z : z;
        ma = ay;
    } else {
        face = signbit(x) ? 1 : 0;
        sc = signbit(x) ? z : -z;
        tc = -y;
        ma = ax;
    }
    st[0] = (sc / ma + 1.0f) * 0.5f;
    st[1] = (tc / ma + 1.0f) * 0.5f;
    return face;
}

#endif
