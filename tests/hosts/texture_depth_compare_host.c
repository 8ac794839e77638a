/* texture_depth_compare_host.c: runs tests/kernels/texture_depth_compare.ptx (hand-written PTX).
 *
 * The depth-compare operand f of tex and tld4 against a host reference of ptxrt.h's
 * "Depth compare" rules: each texel of the footprint becomes 1.0 where `f <compareFunc>
 * texel` holds (first channel, reference on the left), else 0.0, and is then filtered as
 * usual. Every compare function with point and linear filtering on 2D (f32 texels with
 * equal values, -0, NaN and infinities; border and wrap/mirror modes; an offset; a .u32
 * destination), 2D layered (normalized u16 reads) and cubemap textures, tld4 on each,
 * mipmap level blending with tex.level, the zeroed descriptor (LessEqual) and a bad
 * compareFunc.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "texture_host.h"
#include "texture_reference.h"

static int checks;

static const char *const compare_names[8] = {"LessEqual", "GreaterEqual", "Less", "Greater", "Equal", "NotEqual", "Always", "Never"};

static void expect4f(const char *what, const ptxrtTextureDesc *td, int i, const float *want, const float *got)
{
    for (int c = 0; c < 4; c++)
        if (!same_f32(want[c], got[c]))
            harness_fail("%s (%s, %s filtering) item %d channel %d: got %.9g, expected %.9g", what, compare_names[td->compareFunc & 7],
                         td->filterMode == ptxrtFilterModeLinear ? "linear" : "point", i, c, got[c], want[c]);
    checks++;
}

static void expect_invalid(ptxrtError_t err, const char *what, const char *needle)
{
    if (err != ptxrtErrorInvalidValue || !strstr(ptxrtGetLastErrorMessage(), needle))
        harness_fail("%s: got %s (%s), expected ptxrtErrorInvalidValue mentioning '%s'", what, ptxrtGetErrorName(err), ptxrtGetLastErrorMessage(), needle);
    ptxrtGetLastError();
    checks++;
}

/* tld4 of channel 0 (every channel of a compared texture is the same) in a layer. */
static void ref_gather_layer(const ref_texture *t, const float c[2], int layer, const int off[2], float out[4])
{
    if (t->layers > 0)
        layer = layer < 0 ? 0 : (layer >= t->layers ? t->layers - 1 : layer);
    long i0 = ref_floor_index(ref_scaled(t, 0, c[0]) - 0.5f) + off[0];
    long j0 = ref_floor_index(ref_scaled(t, 1, c[1]) - 0.5f) + off[1];
    long taps[4][3] = {{i0, j0 + 1, 0}, {i0 + 1, j0 + 1, 0}, {i0 + 1, j0, 0}, {i0, j0, 0}};
    for (int k = 0; k < 4; k++) {
        float texel[4];
        ref_fetch(t, taps[k], layer, texel);
        out[k] = texel[0];
    }
}

/* Depth values with exact ties, signed zeros, NaN and infinities. */
static const float depth_values[] = {0.0f, 0.125f, 0.25f, 0.5f, 0.75f, 1.0f, -0.0f, NAN, INFINITY, -INFINITY, 0.375f};
enum { DEPTH_VALUES = sizeof depth_values / sizeof depth_values[0] };

/* A compare value: mostly one of the texel values (ties), sometimes any value. */
static float random_reference(harness_rng *rng, int i)
{
    if (i < DEPTH_VALUES)
        return depth_values[i];
    if (harness_rng_u32(rng) % 3 == 0)
        return harness_rng_float(rng, -0.25f, 1.25f);
    return depth_values[harness_rng_u32(rng) % DEPTH_VALUES];
}

/* ---- 2D: every compare function x point/linear, and the zeroed descriptor -------------- */

static void test_2d(void)
{
    enum { W = 7, H = 5, N = 256, DESCS = 17 };
    ptxrtChannelFormatDesc f1 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    ptxrtArray_t arr;
    PTXRT_CHECK(ptxrtMallocArray(&arr, &f1, W, H, 0));
    harness_rng rng;
    harness_rng_seed(&rng, 21);
    float texels[W * H], ref4[W * H * 4], scratch[W * H * 4];
    for (int i = 0; i < W * H; i++) {
        texels[i] = depth_values[harness_rng_u32(&rng) % DEPTH_VALUES];
        ref4[4 * i] = texels[i];
        ref4[4 * i + 1] = ref4[4 * i + 2] = 0.0f;
        ref4[4 * i + 3] = 1.0f;
    }
    PTXRT_CHECK(ptxrtMemcpy2DToArray(arr, 0, 0, texels, W * 4, W * 4, H));
    ptxrtResourceDesc res = array_resource(arr);

    static _Alignas(16) float in[N * 4];
    static _Alignas(16) float out[N * 16];
    for (int k = 0; k < DESCS; k++) {
        /* k < 16: compare function k / 2, point or linear; k = 16: the zeroed descriptor. */
        ptxrtTextureDesc td;
        memset(&td, 0, sizeof td);
        if (k < 16) {
            td.compareFunc = k / 2;
            td.filterMode = k % 2 ? ptxrtFilterModeLinear : ptxrtFilterModePoint;
            if ((k / 2) % 2) {
                td.normalizedCoords = 1;
                td.addressMode[0] = ptxrtAddressModeWrap;
                td.addressMode[1] = ptxrtAddressModeMirror;
            } else {
                /* Border texels compare their first border channel. */
                td.addressMode[0] = ptxrtAddressModeBorder;
                td.addressMode[1] = ptxrtAddressModeClamp;
                td.borderColor[0] = (k / 2) % 4 ? 0.5f : NAN;
                td.borderColor[3] = 1.0f;
            }
        }
        ptxrtTextureObject_t tex;
        PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
        ref_texture t;
        memset(&t, 0, sizeof t);
        t.texels = ref4;
        t.dims = 2;
        t.size[0] = W;
        t.size[1] = H;
        t.size[2] = 1;
        t.mode[0] = td.addressMode[0];
        t.mode[1] = td.addressMode[1];
        t.linear = td.filterMode == ptxrtFilterModeLinear;
        t.normalized = td.normalizedCoords;
        memcpy(t.border, td.borderColor, sizeof t.border);

        for (int i = 0; i < N; i++) {
            float *v = &in[4 * i];
            if (i % 4 == 0) {
                /* Texel centres (linear weights 0) and corners (weights 1/2). */
                v[0] = (float)((int)(harness_rng_u32(&rng) % (W + 2)) - 1) + (i % 8 ? 0.5f : 0.0f);
                v[1] = (float)((int)(harness_rng_u32(&rng) % (H + 2)) - 1) + (i % 8 ? 0.5f : 0.0f);
            } else {
                v[0] = harness_rng_float(&rng, -1.5f, W + 1.5f);
                v[1] = harness_rng_float(&rng, -1.5f, H + 1.5f);
            }
            if (td.normalizedCoords) {
                v[0] /= (float)W;
                v[1] /= (float)H;
            }
            v[2] = random_reference(&rng, i);
            v[3] = 0.0f;
        }
        float *pin = in, *pout = out;
        int n = N;
        void *args[] = {&tex, &pin, &pout, &n};
        launch("depth2d", N, args);
        static const int no_offset[3] = {0, 0, 0}, offset[3] = {1, -1, 0};
        for (int i = 0; i < N; i++) {
            const float *v = &in[4 * i];
            ref_texture c = ref_compared(&t, W * H, td.compareFunc, v[2], scratch);
            float want[4];
            ref_sample_offset(&c, v, 0, no_offset, want);
            expect4f("tex.2d", &td, i, want, &out[16 * i]);
            /* The result r in all four components. */
            if (!same_f32(want[0], want[3]))
                harness_fail("reference of item %d does not splat", i);
            ref_gather_layer(&c, v, 0, no_offset, want);
            expect4f("tld4.r.2d", &td, i, want, &out[16 * i + 4]);
            ref_sample_offset(&c, v, 0, offset, want);
            expect4f("tex.2d with an offset", &td, i, want, &out[16 * i + 8]);
            ref_sample_offset(&c, v, 0, no_offset, want);
            expect4f("tex.2d.v4.u32 (float bits)", &td, i, want, &out[16 * i + 12]);
        }
        PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    }

    ptxrtTextureDesc td;
    memset(&td, 0, sizeof td);
    td.compareFunc = 8;
    ptxrtTextureObject_t bad;
    expect_invalid(ptxrtCreateTextureObject(&bad, &res, &td, NULL), "compareFunc 8", "compare function");
    td.compareFunc = -1;
    expect_invalid(ptxrtCreateTextureObject(&bad, &res, &td, NULL), "compareFunc -1", "compare function");
    PTXRT_CHECK(ptxrtFreeArray(arr));
}

/* ---- 2D layered, normalized u16 reads: the compared value is the normalized first channel */

static void test_a2d(void)
{
    enum { W = 6, H = 4, L = 3, N = 200, TEXELS = W * H * L };
    ptxrtChannelFormatDesc u16x2 = ptxrtCreateChannelDesc(16, 16, 0, 0, ptxrtChannelFormatKindUnsigned);
    ptxrtArray_t arr;
    ptxrtExtent e = {W, H, L};
    PTXRT_CHECK(ptxrtMalloc3DArray(&arr, &u16x2, e, ptxrtArrayLayered));
    harness_rng rng;
    harness_rng_seed(&rng, 22);
    static const uint16_t levels[] = {0, 1, 16384, 32768, 49151, 65534, 65535};
    uint16_t texels[TEXELS * 2];
    float ref4[TEXELS * 4], scratch[TEXELS * 4];
    for (int i = 0; i < TEXELS; i++) {
        texels[2 * i] = harness_rng_u32(&rng) % 2 ? levels[harness_rng_u32(&rng) % 7] : (uint16_t)harness_rng_u32(&rng);
        /* The second channel takes no part in the comparison. */
        texels[2 * i + 1] = (uint16_t)harness_rng_u32(&rng);
        ref4[4 * i] = (float)texels[2 * i] / 65535.0f;
        ref4[4 * i + 1] = (float)texels[2 * i + 1] / 65535.0f;
        ref4[4 * i + 2] = 0.0f;
        ref4[4 * i + 3] = 1.0f;
    }
    /* Layers are slices of H rows. */
    PTXRT_CHECK(ptxrtMemcpy2DToArray(arr, 0, 0, texels, W * 4, W * 4, H * L));
    ptxrtResourceDesc res = array_resource(arr);
    static _Alignas(16) uint32_t in[N * 4];
    static _Alignas(16) float out[N * 8];
    for (int k = 0; k < 16; k++) {
        ptxrtTextureDesc td;
        memset(&td, 0, sizeof td);
        td.compareFunc = k / 2;
        td.filterMode = k % 2 ? ptxrtFilterModeLinear : ptxrtFilterModePoint;
        td.readMode = ptxrtReadModeNormalizedFloat;
        td.normalizedCoords = 1;
        td.addressMode[0] = td.addressMode[1] = ptxrtAddressModeClamp;
        ptxrtTextureObject_t tex;
        PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
        ref_texture t;
        memset(&t, 0, sizeof t);
        t.texels = ref4;
        t.dims = 2;
        t.size[0] = W;
        t.size[1] = H;
        t.size[2] = 1;
        t.layers = L;
        t.mode[0] = t.mode[1] = ptxrtAddressModeClamp;
        t.linear = k % 2;
        t.normalized = 1;
        for (int i = 0; i < N; i++) {
            float x = harness_rng_float(&rng, -0.25f, 1.25f), y = harness_rng_float(&rng, -0.25f, 1.25f);
            float f = harness_rng_u32(&rng) % 2 ? (float)levels[harness_rng_u32(&rng) % 7] / 65535.0f : random_reference(&rng, i);
            in[4 * i] = harness_rng_u32(&rng) % (L + 2); /* clamped to the layers */
            memcpy(&in[4 * i + 1], &x, 4);
            memcpy(&in[4 * i + 2], &y, 4);
            memcpy(&in[4 * i + 3], &f, 4);
        }
        uint32_t *pin = in;
        float *pout = out;
        int n = N;
        void *args[] = {&tex, &pin, &pout, &n};
        launch("depth_a2d", N, args);
        static const int no_offset[3] = {0, 0, 0};
        for (int i = 0; i < N; i++) {
            float c[2], f, want[4];
            memcpy(c, &in[4 * i + 1], 8);
            memcpy(&f, &in[4 * i + 3], 4);
            int layer = (int)in[4 * i];
            ref_texture ct = ref_compared(&t, TEXELS, td.compareFunc, f, scratch);
            ref_sample_offset(&ct, c, layer, no_offset, want);
            expect4f("tex.a2d", &td, i, want, &out[8 * i]);
            ref_gather_layer(&ct, c, layer, no_offset, want);
            expect4f("tld4.g.a2d", &td, i, want, &out[8 * i + 4]);
        }
        PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    }
    PTXRT_CHECK(ptxrtFreeArray(arr));
}

/* ---- Cubemaps ----------------------------------------------------------------------------- */

static void test_cube(void)
{
    enum { FACE = 4, TEXELS = FACE * FACE * 6, N = 200 };
    ptxrtChannelFormatDesc f1 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    ptxrtArray_t arr;
    ptxrtExtent e = {FACE, FACE, 6};
    PTXRT_CHECK(ptxrtMalloc3DArray(&arr, &f1, e, ptxrtArrayCubemap));
    harness_rng rng;
    harness_rng_seed(&rng, 23);
    float texels[TEXELS], ref4[TEXELS * 4], scratch[TEXELS * 4];
    for (int i = 0; i < TEXELS; i++) {
        texels[i] = depth_values[harness_rng_u32(&rng) % DEPTH_VALUES];
        ref4[4 * i] = texels[i];
        ref4[4 * i + 1] = ref4[4 * i + 2] = 0.0f;
        ref4[4 * i + 3] = 1.0f;
    }
    PTXRT_CHECK(ptxrtMemcpy2DToArray(arr, 0, 0, texels, FACE * 4, FACE * 4, FACE * 6));
    ptxrtResourceDesc res = array_resource(arr);
    static _Alignas(16) float in[N * 4];
    static _Alignas(16) float out[N * 8];
    for (int k = 0; k < 16; k++) {
        ptxrtTextureDesc td;
        memset(&td, 0, sizeof td);
        td.compareFunc = k / 2;
        td.filterMode = k % 2 ? ptxrtFilterModeLinear : ptxrtFilterModePoint;
        td.normalizedCoords = 1;
        ptxrtTextureObject_t tex;
        PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
        /* Faces are looked up normalized and clamped to their edges. */
        ref_texture t;
        memset(&t, 0, sizeof t);
        t.texels = ref4;
        t.dims = 2;
        t.size[0] = t.size[1] = FACE;
        t.size[2] = 1;
        t.layers = 6;
        t.mode[0] = t.mode[1] = ptxrtAddressModeClamp;
        t.linear = k % 2;
        t.normalized = 1;
        for (int i = 0; i < N; i++) {
            for (int c = 0; c < 3; c++)
                in[4 * i + c] = harness_rng_float(&rng, -1.0f, 1.0f);
            in[4 * i + 3] = random_reference(&rng, i);
        }
        float *pin = in, *pout = out;
        int n = N;
        void *args[] = {&tex, &pin, &pout, &n};
        launch("depth_cube", N, args);
        static const int no_offset[3] = {0, 0, 0};
        for (int i = 0; i < N; i++) {
            const float *v = &in[4 * i];
            float st[2], want[4];
            int face = ref_cube_face(v[0], v[1], v[2], st);
            ref_texture ct = ref_compared(&t, TEXELS, td.compareFunc, v[3], scratch);
            ref_sample_offset(&ct, st, face, no_offset, want);
            expect4f("tex.cube", &td, i, want, &out[8 * i]);
            ref_gather_layer(&ct, st, face, no_offset, want);
            expect4f("tld4.b.cube", &td, i, want, &out[8 * i + 4]);
        }
        PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    }
    PTXRT_CHECK(ptxrtFreeArray(arr));
}

/* ---- Mipmaps: the comparison results of each level are blended ----------------------- */

static void test_level(void)
{
    enum { W0 = 8, LEVELS = 4, N = 256 };
    ptxrtChannelFormatDesc f1 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    ptxrtMipmappedArray_t mip;
    ptxrtExtent e = {W0, W0, 0};
    PTXRT_CHECK(ptxrtMallocMipmappedArray(&mip, &f1, e, LEVELS, 0));
    harness_rng rng;
    harness_rng_seed(&rng, 24);
    float texels[LEVELS][W0 * W0], ref4[LEVELS][W0 * W0 * 4], scratch[W0 * W0 * 4];
    for (int l = 0; l < LEVELS; l++) {
        int n = W0 >> l;
        for (int i = 0; i < n * n; i++) {
            texels[l][i] = harness_rng_float(&rng, 0.0f, 1.0f);
            ref4[l][4 * i] = texels[l][i];
            ref4[l][4 * i + 1] = ref4[l][4 * i + 2] = 0.0f;
            ref4[l][4 * i + 3] = 1.0f;
        }
        ptxrtArray_t a;
        PTXRT_CHECK(ptxrtGetMipmappedArrayLevel(&a, mip, (unsigned)l));
        PTXRT_CHECK(ptxrtMemcpy2DToArray(a, 0, 0, texels[l], (size_t)n * 4, (size_t)n * 4, (size_t)n));
    }
    ptxrtResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = ptxrtResourceTypeMipmappedArray;
    res.res.mipmap.mipmap = mip;
    static _Alignas(16) float in[N * 4];
    static _Alignas(16) float out[N * 8];
    for (int k = 0; k < 2; k++) {
        /* Trilinear with Less; point mipmaps and point texels with GreaterEqual. */
        ptxrtTextureDesc td;
        memset(&td, 0, sizeof td);
        td.compareFunc = k ? ptxrtCompareGreaterEqual : ptxrtCompareLess;
        td.filterMode = k ? ptxrtFilterModePoint : ptxrtFilterModeLinear;
        td.mipmapFilterMode = td.filterMode;
        td.normalizedCoords = 1;
        td.addressMode[0] = td.addressMode[1] = ptxrtAddressModeClamp;
        td.maxMipmapLevelClamp = (float)(LEVELS - 1);
        ptxrtTextureObject_t tex;
        PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
        for (int i = 0; i < N; i++) {
            in[4 * i] = harness_rng_float(&rng, -0.25f, 1.25f);
            in[4 * i + 1] = harness_rng_float(&rng, -0.25f, 1.25f);
            in[4 * i + 2] = i < 16 ? (float)i * 0.25f - 0.5f : harness_rng_float(&rng, -0.5f, 3.5f);
            in[4 * i + 3] = i % 5 ? harness_rng_float(&rng, 0.0f, 1.0f) : texels[0][harness_rng_u32(&rng) % (W0 * W0)];
        }
        float *pin = in, *pout = out;
        int n = N;
        void *args[] = {&tex, &pin, &pout, &n};
        launch("depth_level2d", N, args);
        static const int no_offset[3] = {0, 0, 0};
        for (int i = 0; i < N; i++) {
            const float *v = &in[4 * i];
            /* The level(s) of ptxrt.h's Mipmaps rule (no bias; clamps [0, LEVELS - 1]). */
            float l = v[2];
            l = l < 0.0f ? 0.0f : (l > (float)(LEVELS - 1) ? (float)(LEVELS - 1) : l);
            int d0, d1;
            float w = 0.0f;
            if (td.mipmapFilterMode == ptxrtFilterModePoint) {
                d0 = d1 = l <= 0.5f ? 0 : (int)ceilf(l + 0.5f) - 1;
            } else {
                d0 = d1 = (int)floorf(l);
                w = ref_weight(l);
                if (w != 0.0f && d0 + 1 < LEVELS)
                    d1 = d0 + 1;
            }
            float r[2][4];
            for (int j = 0; j < 2; j++) {
                int d = j ? d1 : d0;
                ref_texture t;
                memset(&t, 0, sizeof t);
                t.texels = ref4[d];
                t.dims = 2;
                t.size[0] = t.size[1] = W0 >> d;
                t.size[2] = 1;
                t.mode[0] = t.mode[1] = ptxrtAddressModeClamp;
                t.linear = td.filterMode == ptxrtFilterModeLinear;
                t.normalized = 1;
                ref_texture ct = ref_compared(&t, (W0 >> d) * (W0 >> d), td.compareFunc, v[3], scratch);
                ref_sample_offset(&ct, v, 0, no_offset, r[j]);
            }
            float want[4];
            if (d1 == d0) {
                memcpy(want, r[0], sizeof want);
            } else {
                for (int c = 0; c < 4; c++) {
                    float p0 = r[0][c] * (1.0f - w);
                    float p1 = r[1][c] * w;
                    want[c] = p0 + p1;
                }
            }
            expect4f("tex.level.2d", &td, i, want, &out[8 * i]);
            /* tex without a level reads level 0; f = 0.5 as an immediate. */
            ref_texture t0;
            memset(&t0, 0, sizeof t0);
            t0.texels = ref4[0];
            t0.dims = 2;
            t0.size[0] = t0.size[1] = W0;
            t0.size[2] = 1;
            t0.mode[0] = t0.mode[1] = ptxrtAddressModeClamp;
            t0.linear = td.filterMode == ptxrtFilterModeLinear;
            t0.normalized = 1;
            ref_texture ct0 = ref_compared(&t0, W0 * W0, td.compareFunc, 0.5f, scratch);
            ref_sample_offset(&ct0, v, 0, no_offset, want);
            expect4f("tex.2d with f = 0.5", &td, i, want, &out[8 * i + 4]);
        }
        PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    }
    PTXRT_CHECK(ptxrtFreeMipmappedArray(mip));
}

int main(void)
{
    test_2d();
    test_a2d();
    test_cube();
    test_level();
    printf("texture_depth_compare: all checks OK\n");
    fprintf(stderr, "%d checks\n", checks);
    return 0;
}
