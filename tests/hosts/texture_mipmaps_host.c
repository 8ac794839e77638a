/* texture_mipmaps_host.c: runs tests/kernels/texture_mipmaps.ptx (hand-written PTX).
 *
 * Mipmapped textures (ptxrtMallocMipmappedArray, ptxrtGetMipmappedArrayLevel, texture
 * objects with mipmapFilterMode, mipmapLevelBias and the level clamps): tex.level (.f32 and
 * .s32 levels), tex.grad (2D with an offset, cubemaps), multi-sample textures
 * (ptxrtMallocMultisampleArray, tex.2dms, tex.a2dms) and the txq level/sample queries,
 * each against a host reference written from the rules in ptxrt.h; bad descriptors and a
 * bad handle are refused with errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "texture_host.h"
#include "texture_reference.h"

static int checks;

static void expect4f(const char *what, int i, const float *want, const float *got)
{
    for (int c = 0; c < 4; c++)
        if (!same_f32(want[c], got[c]))
            harness_fail("%s item %d channel %d: got %.9g, expected %.9g", what, i, c, got[c], want[c]);
    checks++;
}

static void expect4u(const char *what, int i, const uint32_t *want, const uint32_t *got)
{
    for (int c = 0; c < 4; c++)
        if (want[c] != got[c])
            harness_fail("%s item %d channel %d: got %u, expected %u", what, i, c, got[c], want[c]);
    checks++;
}

static void expect_u32(const char *what, uint32_t got, uint32_t want)
{
    if (got != want)
        harness_fail("%s: got %u, expected %u", what, got, want);
    checks++;
}

static void expect_invalid(ptxrtError_t err, const char *what, const char *needle)
{
    if (err != ptxrtErrorInvalidValue || !strstr(ptxrtGetLastErrorMessage(), needle))
        harness_fail("%s: got %s (%s), expected ptxrtErrorInvalidValue mentioning '%s'", what, ptxrtGetErrorName(err), ptxrtGetLastErrorMessage(), needle);
    ptxrtGetLastError();
    checks++;
}

static ptxrtResourceDesc mipmap_resource(ptxrtMipmappedArray_t m)
{
    ptxrtResourceDesc r;
    memset(&r, 0, sizeof(r));
    r.resType = ptxrtResourceTypeMipmappedArray;
    r.res.mipmap.mipmap = m;
    return r;
}

/* ---- The mipmap rules of ptxrt.h ---------------------------------------------------- */

typedef struct ref_mip {
    int levels;
    int linear;                  /* mipmapFilterMode linear */
    float bias, min_clamp, max_clamp;
} ref_mip;

/* The levels a fetch at lod reads and the weight of the second. */
static void ref_mip_select(const ref_mip *m, float lod, int blend, int *d0, int *d1, float *w)
{
    int last = m->levels - 1;
    float l = lod + m->bias;
    *d0 = *d1 = 0;
    *w = 0.0f;
    if (isnan(l))
        return;
    l = fmaxf(l, m->min_clamp);
    l = fminf(l, m->max_clamp);
    if (l < 0.0f)
        l = 0.0f;
    if (l > (float)last)
        l = (float)last;
    if (!(blend && m->linear)) {
        int nearest = l <= 0.5f ? 0 : (int)ceilf(l + 0.5f) - 1;
        *d0 = *d1 = nearest > last ? last : nearest;
        return;
    }
    int lower = (int)floorf(l);
    float weight = ref_weight(l);
    *d0 = *d1 = lower;
    if (weight != 0.0f) {
        *d1 = lower + 1 > last ? last : lower + 1;
        *w = weight;
    }
}

/* log2 of the longer gradient in texels, rounded to 8 fraction bits. */
static float ref_lod_of_lengths(double qx, double qy)
{
    double q = qx > qy ? qx : qy;
    if (isnan(qx) || isnan(qy))
        return NAN;
    if (q == 0.0)
        return -INFINITY;
    return (float)(round(128.0 * log2(q)) / 256.0);
}

static void blend(const float *a, const float *b, float w, float out[4])
{
    for (int c = 0; c < 4; c++) {
        float p0 = a[c] * (1.0f - w);
        float p1 = b[c] * w;
        out[c] = p0 + p1;
    }
}

/* ---- 2D: tex.level and tex.grad --------------------------------------------------------- */

enum { W0 = 13, H0 = 7, LEVELS2D = 4 };

static float *level_texels[LEVELS2D];
static int level_w[LEVELS2D], level_h[LEVELS2D];

static void ref_level2d(const ptxrtTextureDesc *td, int level, const float c[2], const int off[3], float out[4])
{
    ref_texture t;
    memset(&t, 0, sizeof t);
    t.texels = level_texels[level];
    t.dims = 2;
    t.size[0] = level_w[level];
    t.size[1] = level_h[level];
    t.size[2] = 1;
    t.mode[0] = td->addressMode[0];
    t.mode[1] = td->addressMode[1];
    t.linear = td->filterMode == ptxrtFilterModeLinear;
    t.normalized = td->normalizedCoords;
    memcpy(t.border, td->borderColor, sizeof t.border);
    ref_sample_offset(&t, c, 0, off, out);
}

static void ref_fetch2d(const ptxrtTextureDesc *td, const ref_mip *m, float lod, const float c[2], const int off[3], float out[4])
{
    int d0, d1;
    float w;
    ref_mip_select(m, lod, 1, &d0, &d1, &w);
    float a[4], b[4];
    ref_level2d(td, d0, c, off, a);
    if (d1 == d0) {
        memcpy(out, a, sizeof a);
        return;
    }
    ref_level2d(td, d1, c, off, b);
    blend(a, b, w, out);
}

static float ref_grad_lod2d(const ptxrtTextureDesc *td, const float dx[2], const float dy[2])
{
    double qx = 0.0, qy = 0.0;
    for (int d = 0; d < 2; d++) {
        double scale = td->normalizedCoords ? (double)(d == 0 ? W0 : H0) : 1.0;
        double gx = (double)dx[d] * scale, gy = (double)dy[d] * scale;
        double sx = gx * gx, sy = gy * gy;
        qx = qx + sx;
        qy = qy + sy;
    }
    return ref_lod_of_lengths(qx, qy);
}

/* A gradient component of about 2^e texels in a random direction. */
static float random_gradient(harness_rng *rng, float size)
{
    float e = harness_rng_float(rng, -3.0f, 4.5f);
    float g = exp2f(e) / size;
    return harness_rng_u32(rng) & 1 ? -g : g;
}

static void test_mip2d(void)
{
    ptxrtChannelFormatDesc f4 = ptxrtCreateChannelDesc(32, 32, 32, 32, ptxrtChannelFormatKindFloat);
    ptxrtMipmappedArray_t mip;
    ptxrtExtent e = {W0, H0, 0};
    /* 9 levels asked: clamped to the complete pyramid 13x7, 6x3, 3x1, 1x1. */
    PTXRT_CHECK(ptxrtMallocMipmappedArray(&mip, &f4, e, 9, 0));
    harness_rng rng;
    harness_rng_seed(&rng, 11);
    for (int l = 0; l < LEVELS2D; l++) {
        level_w[l] = W0 >> l ? W0 >> l : 1;
        level_h[l] = H0 >> l ? H0 >> l : 1;
        int n = level_w[l] * level_h[l] * 4;
        level_texels[l] = harness_xmalloc(sizeof(float) * (size_t)n);
        harness_fill_float(&rng, level_texels[l], (size_t)n, -8.0f, 8.0f);
        ptxrtArray_t a;
        PTXRT_CHECK(ptxrtGetMipmappedArrayLevel(&a, mip, (unsigned)l));
        PTXRT_CHECK(ptxrtMemcpy2DToArray(a, 0, 0, level_texels[l], (size_t)level_w[l] * 16, (size_t)level_w[l] * 16, (size_t)level_h[l]));
    }
    ptxrtArray_t none;
    expect_invalid(ptxrtGetMipmappedArrayLevel(&none, mip, LEVELS2D), "level past the last", "level 4");
    ptxrtArray_t level1;
    PTXRT_CHECK(ptxrtGetMipmappedArrayLevel(&level1, mip, 1));
    expect_invalid(ptxrtFreeArray(level1), "freeing a level", "mipmapped");

    /* Two views of the same mipmap: trilinear with a bias, and point/point with clamps. */
    ptxrtTextureDesc tds[2];
    ref_mip mips[2];
    memset(tds, 0, sizeof tds);
    tds[0].addressMode[0] = ptxrtAddressModeWrap;
    tds[0].addressMode[1] = ptxrtAddressModeMirror;
    tds[0].filterMode = ptxrtFilterModeLinear;
    tds[0].normalizedCoords = 1;
    tds[0].mipmapFilterMode = ptxrtFilterModeLinear;
    tds[0].mipmapLevelBias = 0.25f;
    tds[0].maxMipmapLevelClamp = 3.0f;
    tds[1].addressMode[0] = ptxrtAddressModeClamp;
    tds[1].addressMode[1] = ptxrtAddressModeBorder;
    tds[1].borderColor[0] = 0.5f;
    tds[1].borderColor[3] = -2.0f;
    tds[1].normalizedCoords = 1;
    tds[1].mipmapFilterMode = ptxrtFilterModePoint;
    tds[1].mipmapLevelBias = -0.5f;
    tds[1].minMipmapLevelClamp = 0.75f;
    tds[1].maxMipmapLevelClamp = 2.25f;
    for (int k = 0; k < 2; k++) {
        mips[k].levels = LEVELS2D;
        mips[k].linear = tds[k].mipmapFilterMode == ptxrtFilterModeLinear;
        mips[k].bias = tds[k].mipmapLevelBias;
        mips[k].min_clamp = tds[k].minMipmapLevelClamp;
        mips[k].max_clamp = tds[k].maxMipmapLevelClamp;
    }
    ptxrtResourceDesc res = mipmap_resource(mip);

    enum { N = 300 };
    _Alignas(16) float in[N * 8];
    _Alignas(16) float out[N * 8];
    for (int k = 0; k < 2; k++) {
        ptxrtTextureObject_t tex;
        PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &tds[k], NULL));
        /* tex.level: levels over and past the pyramid, halves, NaN. */
        for (int i = 0; i < N; i++) {
            in[4 * i] = harness_rng_float(&rng, -0.5f, 1.5f);
            in[4 * i + 1] = harness_rng_float(&rng, -0.5f, 1.5f);
            in[4 * i + 2] = i < 12 ? (float)(i - 2) * 0.5f : harness_rng_float(&rng, -1.0f, 4.5f);
            in[4 * i + 3] = 0.0f;
        }
        in[4 * 13 + 2] = NAN;
        in[4 * 14 + 2] = INFINITY;
        in[4 * 15 + 2] = -INFINITY;
        float *pin = in, *pout = out;
        int n = N;
        void *args[] = {&tex, &pin, &pout, &n};
        launch("level2d", N, args);
        static const int no_offset[3] = {0, 0, 0};
        for (int i = 0; i < N; i++) {
            float want[4];
            ref_fetch2d(&tds[k], &mips[k], in[4 * i + 2], &in[4 * i], no_offset, want);
            expect4f(k ? "level2d (point mipmaps)" : "level2d (linear mipmaps)", i, want, &out[4 * i]);
        }
        /* tex.grad, without and with the offset {-1, 2}. */
        for (int i = 0; i < N; i++) {
            float *v = &in[8 * i];
            v[0] = harness_rng_float(&rng, -0.5f, 1.5f);
            v[1] = harness_rng_float(&rng, -0.5f, 1.5f);
            v[2] = random_gradient(&rng, W0);
            v[3] = random_gradient(&rng, H0);
            v[4] = random_gradient(&rng, W0);
            v[5] = random_gradient(&rng, H0);
            v[6] = v[7] = 0.0f;
            if (i < 4) {
                /* Zero gradients (-infinity) and exact powers of two. */
                v[2] = v[3] = v[4] = v[5] = 0.0f;
                if (i > 0)
                    v[2 + i] = ldexpf(1.0f, i) / W0;
            }
            if (i == 4)
                v[2] = NAN; /* NaN LOD: level 0 */
        }
        launch("grad2d", N, args);
        static const int offset[3] = {-1, 2, 0};
        for (int i = 0; i < N; i++) {
            const float *v = &in[8 * i];
            float lod = ref_grad_lod2d(&tds[k], &v[2], &v[4]);
            float want[4];
            ref_fetch2d(&tds[k], &mips[k], lod, v, no_offset, want);
            expect4f("grad2d", i, want, &out[8 * i]);
            ref_fetch2d(&tds[k], &mips[k], lod, v, offset, want);
            expect4f("grad2d with an offset", i, want, &out[8 * i + 4]);
        }
        PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    }

    /* Descriptor checks of mipmapped textures. */
    ptxrtChannelFormatDesc s32 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindSigned);
    ptxrtMipmappedArray_t imip;
    PTXRT_CHECK(ptxrtMallocMipmappedArray(&imip, &s32, e, 2, 0));
    ptxrtResourceDesc ires = mipmap_resource(imip);
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof td);
    td.mipmapFilterMode = ptxrtFilterModeLinear;
    ptxrtTextureObject_t bad;
    expect_invalid(ptxrtCreateTextureObject(&bad, &ires, &td, NULL), "linear mipmaps of integers", "linear mipmap");
    td.mipmapFilterMode = ptxrtFilterModePoint;
    td.minMipmapLevelClamp = 2.0f;
    td.maxMipmapLevelClamp = 1.0f;
    expect_invalid(ptxrtCreateTextureObject(&bad, &ires, &td, NULL), "min clamp above max clamp", "min <= max");
    ptxrtSurfaceObject_t surf;
    expect_invalid(ptxrtCreateSurfaceObject(&surf, &ires), "surface over a mipmapped array", "array");
    PTXRT_CHECK(ptxrtFreeMipmappedArray(imip));
    PTXRT_CHECK(ptxrtFreeMipmappedArray(mip));
    for (int l = 0; l < LEVELS2D; l++)
        free(level_texels[l]);
}

/* ---- a1d with integer coordinates and levels ------------------------------------------- */

static void test_a1d_int(void)
{
    enum { W = 9, LAYERS = 3, LEVELS = 4, N = 200 };
    ptxrtChannelFormatDesc s32 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindSigned);
    ptxrtMipmappedArray_t mip;
    ptxrtExtent e = {W, 0, LAYERS};
    PTXRT_CHECK(ptxrtMallocMipmappedArray(&mip, &s32, e, 0xFFFFFFFFu, ptxrtArrayLayered));
    int32_t texels[LEVELS][W * LAYERS];
    int widths[LEVELS];
    for (int l = 0; l < LEVELS; l++) {
        widths[l] = W >> l ? W >> l : 1;
        for (int i = 0; i < widths[l] * LAYERS; i++)
            texels[l][i] = 1000 * l + i * 7 - 40;
        ptxrtArray_t a;
        PTXRT_CHECK(ptxrtGetMipmappedArrayLevel(&a, mip, (unsigned)l));
        /* Layers are rows of a layered 1D array. */
        PTXRT_CHECK(ptxrtMemcpy2DToArray(a, 0, 0, texels[l], (size_t)widths[l] * 4, (size_t)widths[l] * 4, LAYERS));
    }
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = ptxrtAddressModeClamp;
    td.mipmapFilterMode = ptxrtFilterModeLinear; /* integer coordinates still read one level */
    td.mipmapLevelBias = 0.75f;
    td.maxMipmapLevelClamp = 10.0f;
    ptxrtResourceDesc res = mipmap_resource(mip);
    ptxrtTextureObject_t tex;
    expect_invalid(ptxrtCreateTextureObject(&tex, &res, &td, NULL), "linear mipmaps of integers", "linear mipmap");
    td.mipmapFilterMode = ptxrtFilterModePoint;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
    ref_mip m = {LEVELS, 0, td.mipmapLevelBias, td.minMipmapLevelClamp, td.maxMipmapLevelClamp};
    _Alignas(16) int32_t in[N * 4];
    _Alignas(16) int32_t out[N * 4];
    harness_rng rng;
    harness_rng_seed(&rng, 12);
    for (int i = 0; i < N; i++) {
        in[4 * i] = (int32_t)(harness_rng_u32(&rng) % (LAYERS + 2));
        in[4 * i + 1] = (int32_t)(harness_rng_u32(&rng) % (W + 6)) - 3;
        in[4 * i + 2] = (int32_t)(harness_rng_u32(&rng) % 8) - 2;
        in[4 * i + 3] = 0;
    }
    int32_t *pin = in, *pout = out;
    int n = N;
    void *args[] = {&tex, &pin, &pout, &n};
    launch("level_a1d_int", N, args);
    for (int i = 0; i < N; i++) {
        int d0, d1;
        float w;
        ref_mip_select(&m, (float)in[4 * i + 2], 0, &d0, &d1, &w);
        int layer = in[4 * i] >= LAYERS ? LAYERS - 1 : in[4 * i];
        long x = ref_address(in[4 * i + 1], widths[d0], ptxrtAddressModeClamp, 0);
        uint32_t want[4] = {(uint32_t)texels[d0][layer * widths[d0] + x], 0, 0, 1};
        expect4u("level_a1d_int", i, want, (const uint32_t *)&out[4 * i]);
    }
    PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    PTXRT_CHECK(ptxrtFreeMipmappedArray(mip));
}

/* ---- Cubemaps: tex.grad.cube and tex.level.cube ----------------------------------------- */

enum { FACE = 8, CUBE_LEVELS = 4 };
static float cube_texels[CUBE_LEVELS][FACE * FACE * 6 * 4];

static void ref_cube_level(int level, const float dir[3], float out[4])
{
    float st[2];
    int face = ref_cube_face(dir[0], dir[1], dir[2], st);
    ref_texture t;
    memset(&t, 0, sizeof t);
    t.texels = cube_texels[level];
    t.dims = 2;
    t.size[0] = t.size[1] = FACE >> level;
    t.size[2] = 1;
    t.layers = 6;
    t.mode[0] = t.mode[1] = ptxrtAddressModeClamp;
    t.linear = 1;
    t.normalized = 1;
    ref_sample(&t, st, face, out);
}

/* (sc, tc, ma) of v on a face (the cubemap table). */
static void cube_select(int face, const double v[3], double out[3])
{
    double x = v[0], y = v[1], z = v[2];
    switch (face) {
    case 0: out[0] = -z; out[1] = -y; out[2] = x; break;
    case 1: out[0] = z; out[1] = -y; out[2] = x; break;
    case 2: out[0] = x; out[1] = z; out[2] = y; break;
    case 3: out[0] = x; out[1] = -z; out[2] = y; break;
    case 4: out[0] = x; out[1] = -y; out[2] = z; break;
    default: out[0] = -x; out[1] = -y; out[2] = z; break;
    }
}

static double cube_length2(int face, const double p[3], const float g[3])
{
    double gd[3] = {g[0], g[1], g[2]}, s[3], d[3];
    cube_select(face, p, s);
    cube_select(face, gd, d);
    double dabs = signbit(s[2]) ? -d[2] : d[2];
    double k = 2.0 * s[2] * s[2];
    double a = (d[0] * fabs(s[2]) - s[0] * dabs) / k * (double)FACE;
    double b = (d[1] * fabs(s[2]) - s[1] * dabs) / k * (double)FACE;
    double aa = a * a, bb = b * b;
    return aa + bb;
}

static void test_cube(void)
{
    ptxrtChannelFormatDesc f4 = ptxrtCreateChannelDesc(32, 32, 32, 32, ptxrtChannelFormatKindFloat);
    ptxrtMipmappedArray_t mip;
    ptxrtExtent e = {FACE, FACE, 6};
    PTXRT_CHECK(ptxrtMallocMipmappedArray(&mip, &f4, e, CUBE_LEVELS, ptxrtArrayCubemap));
    harness_rng rng;
    harness_rng_seed(&rng, 13);
    for (int l = 0; l < CUBE_LEVELS; l++) {
        int n = FACE >> l;
        harness_fill_float(&rng, cube_texels[l], (size_t)(n * n * 6 * 4), -1.0f, 1.0f);
        ptxrtArray_t a;
        PTXRT_CHECK(ptxrtGetMipmappedArrayLevel(&a, mip, (unsigned)l));
        PTXRT_CHECK(ptxrtMemcpy2DToArray(a, 0, 0, cube_texels[l], (size_t)n * 16, (size_t)n * 16, (size_t)n * 6));
    }
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof td);
    td.filterMode = ptxrtFilterModeLinear;
    td.normalizedCoords = 1;
    td.mipmapFilterMode = ptxrtFilterModeLinear;
    td.maxMipmapLevelClamp = 3.0f;
    ptxrtResourceDesc res = mipmap_resource(mip);
    ptxrtTextureObject_t tex;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
    ref_mip m = {CUBE_LEVELS, 1, 0.0f, 0.0f, 3.0f};
    enum { N = 200 };
    static _Alignas(16) float in[N * 12];
    static _Alignas(16) float out[N * 8];
    for (int i = 0; i < N; i++) {
        float *v = &in[12 * i];
        for (int c = 0; c < 3; c++)
            v[c] = harness_rng_float(&rng, -1.0f, 1.0f);
        v[3] = harness_rng_float(&rng, -0.5f, 3.5f);
        for (int c = 0; c < 3; c++) {
            v[4 + c] = random_gradient(&rng, FACE);
            v[8 + c] = random_gradient(&rng, FACE);
        }
        v[7] = v[11] = 0.0f;
    }
    float *pin = in, *pout = out;
    int n = N;
    void *args[] = {&tex, &pin, &pout, &n};
    launch("cube_lod", N, args);
    for (int i = 0; i < N; i++) {
        const float *v = &in[12 * i];
        float st[2];
        int face = ref_cube_face(v[0], v[1], v[2], st);
        double p[3] = {v[0], v[1], v[2]};
        float lod = ref_lod_of_lengths(cube_length2(face, p, &v[4]), cube_length2(face, p, &v[8]));
        for (int k = 0; k < 2; k++) {
            int d0, d1;
            float w, a[4], b[4], want[4];
            ref_mip_select(&m, k ? v[3] : lod, 1, &d0, &d1, &w);
            ref_cube_level(d0, v, a);
            if (d1 == d0) {
                memcpy(want, a, sizeof a);
            } else {
                ref_cube_level(d1, v, b);
                blend(a, b, w, want);
            }
            expect4f(k ? "tex.level.cube" : "tex.grad.cube", i, want, &out[8 * i + 4 * k]);
        }
    }
    PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    PTXRT_CHECK(ptxrtFreeMipmappedArray(mip));
}

/* ---- Multi-sample textures and the queries ---------------------------------------------- */

static void test_multisample_and_queries(void)
{
    /* ms2d: 5x4 RGBA u8, 4 samples, clamp; msarr: 6x3 u16x2, 3 layers of 2 samples, border. */
    enum { MW = 5, MH = 4, MS = 4, AW = 6, AH = 3, AL = 3, AS = 2, N = 300 };
    ptxrtChannelFormatDesc rgba8 = ptxrtCreateChannelDesc(8, 8, 8, 8, ptxrtChannelFormatKindUnsigned);
    ptxrtChannelFormatDesc u16x2 = ptxrtCreateChannelDesc(16, 16, 0, 0, ptxrtChannelFormatKindUnsigned);
    ptxrtArray_t ms2d, msarr;
    ptxrtExtent e2 = {MW, MH, 0}, ea = {AW, AH, AL};
    PTXRT_CHECK(ptxrtMallocMultisampleArray(&ms2d, &rgba8, e2, MS, 0));
    PTXRT_CHECK(ptxrtMallocMultisampleArray(&msarr, &u16x2, ea, AS, ptxrtArrayLayered));
    ptxrtArray_t bad_array;
    expect_invalid(ptxrtMallocMultisampleArray(&bad_array, &rgba8, e2, 0, 0), "zero samples", "samples");
    ptxrtExtent e1 = {MW, 0, 0};
    expect_invalid(ptxrtMallocMultisampleArray(&bad_array, &rgba8, e1, 2, 0), "1D multisample array", "2D");
    uint8_t t2[MS * MH * MW * 4];
    uint16_t ta[AL * AS * AH * AW * 2];
    harness_rng rng;
    harness_rng_seed(&rng, 14);
    for (size_t i = 0; i < sizeof t2; i++)
        t2[i] = (uint8_t)harness_rng_u32(&rng);
    for (size_t i = 0; i < sizeof ta / 2; i++)
        ta[i] = (uint16_t)harness_rng_u32(&rng);
    /* Slice s (sample s of layer l: l * samples + s) holds height rows. */
    PTXRT_CHECK(ptxrtMemcpy2DToArray(ms2d, 0, 0, t2, MW * 4, MW * 4, MS * MH));
    PTXRT_CHECK(ptxrtMemcpy2DToArray(msarr, 0, 0, ta, AW * 4, AW * 4, AL * AS * AH));
    ptxrtResourceDesc r2 = array_resource(ms2d), ra = array_resource(msarr);
    ptxrtTextureDesc td2, tda;
    memset(&td2, 0, sizeof td2);
    memset(&tda, 0, sizeof tda);
    td2.addressMode[0] = td2.addressMode[1] = ptxrtAddressModeClamp;
    tda.addressMode[0] = tda.addressMode[1] = ptxrtAddressModeBorder;
    ptxrtTextureObject_t tex2, texa;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tex2, &r2, &td2, NULL));
    PTXRT_CHECK(ptxrtCreateTextureObject(&texa, &ra, &tda, NULL));
    ptxrtSurfaceObject_t surf;
    expect_invalid(ptxrtCreateSurfaceObject(&surf, &r2), "surface over a multisample array", "multisample");

    _Alignas(16) int32_t in[N * 4];
    _Alignas(16) uint32_t out[N * 8];
    for (int i = 0; i < N; i++) {
        in[4 * i] = (int32_t)(harness_rng_u32(&rng) % (MS + 1));
        in[4 * i + 1] = (int32_t)(harness_rng_u32(&rng) % (AL + 1));
        in[4 * i + 2] = (int32_t)(harness_rng_u32(&rng) % (AW + 4)) - 2;
        in[4 * i + 3] = (int32_t)(harness_rng_u32(&rng) % (AH + 4)) - 2;
    }
    int32_t *pin = in;
    uint32_t *pout = out;
    int n = N;
    void *args[] = {&tex2, &texa, &pin, &pout, &n};
    launch("ms_fetch", N, args);
    for (int i = 0; i < N; i++) {
        int sample = in[4 * i], layer = in[4 * i + 1], x = in[4 * i + 2], y = in[4 * i + 3];
        /* tex.2dms: sample clamped, indices clamped. */
        int s2 = sample >= MS ? MS - 1 : sample;
        long cx = ref_address(x, MW, ptxrtAddressModeClamp, 0), cy = ref_address(y, MH, ptxrtAddressModeClamp, 0);
        const uint8_t *p = &t2[(((size_t)s2 * MH + (size_t)cy) * MW + (size_t)cx) * 4];
        uint32_t want[4] = {p[0], p[1], p[2], p[3]};
        expect4u("tex.2dms", i, want, &out[8 * i]);
        /* tex.a2dms with offset {1, -1}: layer and sample clamped, border outside. */
        int sa = sample >= AS ? AS - 1 : sample, la = layer >= AL ? AL - 1 : layer;
        long bx = ref_address(x + 1, AW, ptxrtAddressModeBorder, 0), by = ref_address(y - 1, AH, ptxrtAddressModeBorder, 0);
        uint32_t wanta[4] = {0, 0, 0, 1};
        if (bx >= 0 && by >= 0) {
            const uint16_t *q = &ta[((((size_t)la * AS + (size_t)sa) * AH + (size_t)by) * AW + (size_t)bx) * 2];
            wanta[0] = q[0];
            wanta[1] = q[1];
        } else {
            wanta[3] = 0;
        }
        expect4u("tex.a2dms", i, wanta, &out[8 * i + 4]);
    }

    /* Queries: a 2D and a 3D mipmap beside the multisample textures. */
    ptxrtChannelFormatDesc f1 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    ptxrtMipmappedArray_t mip2, mip3;
    ptxrtExtent em2 = {W0, H0, 0}, em3 = {4, 2, 8};
    PTXRT_CHECK(ptxrtMallocMipmappedArray(&mip2, &f1, em2, 0, 0));
    PTXRT_CHECK(ptxrtMallocMipmappedArray(&mip3, &f1, em3, 4, 0));
    ptxrtResourceDesc rm2 = mipmap_resource(mip2), rm3 = mipmap_resource(mip3);
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof td);
    ptxrtTextureObject_t tm2, tm3;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tm2, &rm2, &td, NULL));
    PTXRT_CHECK(ptxrtCreateTextureObject(&tm3, &rm3, &td, NULL));
    _Alignas(16) uint32_t q[32];
    memset(q, 0xee, sizeof q);
    uint32_t *pq = q;
    void *qargs[] = {&tm2, &tm3, &tex2, &texa, &pq};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("queries"), harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), qargs, 0, NULL));
    /* numLevels 0 is clamped to 1 level. */
    expect_u32("mip2d num_mipmap_levels", q[0], 1);
    expect_u32("mip2d level 0 width", q[1], W0);
    expect_u32("mip2d level 1 width", q[2], 0);
    expect_u32("mip2d level 4 width", q[5], 0);
    expect_u32("mip2d level 0 height", q[6], H0);
    expect_u32("mip2d level 1 height", q[7], 0);
    expect_u32("mip3d num_mipmap_levels", q[11], 4);
    static const uint32_t depths[4] = {8, 4, 2, 1};
    for (int l = 0; l < 4; l++)
        expect_u32("mip3d level depth", q[12 + l], depths[l]);
    expect_u32("ms2d num_samples", q[16], MS);
    expect_u32("ms2d num_mipmap_levels", q[17], 0);
    expect_u32("ms2d width", q[18], MW);
    expect_u32("ms2d array_size", q[19], 0);
    expect_u32("ms2d level 0 width", q[20], MW);
    expect_u32("ms2d level 1 width", q[21], 0);
    expect_u32("msarr num_samples", q[22], AS);
    expect_u32("msarr array_size", q[23], AL);
    PTXRT_CHECK(ptxrtDestroyTextureObject(tm2));
    PTXRT_CHECK(ptxrtDestroyTextureObject(tm3));
    PTXRT_CHECK(ptxrtFreeMipmappedArray(mip2));

    /* The full pyramid of the 13x7 array: widths 13 6 3 1 (then 0), heights 7 3 1 1 (then 0). */
    PTXRT_CHECK(ptxrtMallocMipmappedArray(&mip2, &f1, em2, 100, 0));
    rm2 = mipmap_resource(mip2);
    PTXRT_CHECK(ptxrtCreateTextureObject(&tm2, &rm2, &td, NULL));
    PTXRT_CHECK(ptxrtCreateTextureObject(&tm3, &rm3, &td, NULL));
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("queries"), harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), qargs, 0, NULL));
    static const uint32_t widths[5] = {13, 6, 3, 1, 0}, heights[5] = {7, 3, 1, 1, 0};
    expect_u32("mip2d num_mipmap_levels", q[0], 4);
    for (int l = 0; l < 5; l++) {
        expect_u32("mip2d level width", q[1 + l], widths[l]);
        expect_u32("mip2d level height", q[6 + l], heights[l]);
    }

    /* A bad handle in tex.level fails the launch instead of crashing. */
    ptxrtTextureObject_t bogus = 0x123456789ull;
    _Alignas(16) float fin[4] = {0.5f, 0.5f, 1.0f, 0.0f}, fout[4];
    float *pfin = fin, *pfout = fout;
    int one = 1;
    void *bargs[] = {&bogus, &pfin, &pfout, &one};
    ptxrtError_t err = ptxrtLaunchKernel(harness_find_kernel("level2d"), harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), bargs, 0, NULL);
    if (err != ptxrtErrorLaunchFailure || !strstr(ptxrtGetLastErrorMessage(), "handle"))
        harness_fail("bogus handle in tex.level: got %s (%s)", ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
    ptxrtGetLastError();
    checks++;

    PTXRT_CHECK(ptxrtDestroyTextureObject(tm2));
    PTXRT_CHECK(ptxrtDestroyTextureObject(tm3));
    PTXRT_CHECK(ptxrtFreeMipmappedArray(mip2));
    PTXRT_CHECK(ptxrtFreeMipmappedArray(mip3));
    PTXRT_CHECK(ptxrtDestroyTextureObject(tex2));
    PTXRT_CHECK(ptxrtDestroyTextureObject(texa));
    PTXRT_CHECK(ptxrtFreeArray(ms2d));
    PTXRT_CHECK(ptxrtFreeArray(msarr));
}

int main(void)
{
    test_mip2d();
    test_a1d_int();
    test_cube();
    test_multisample_and_queries();
    printf("texture_mipmaps: all checks OK\n");
    fprintf(stderr, "%d checks\n", checks);
    return 0;
}
