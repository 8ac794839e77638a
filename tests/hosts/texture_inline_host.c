/* texture_inline_host.c: point fetches that generated code does inline (texture_inline.ptx)
 * against the runtime's sampling code, __ptxrt_tex, called here with the same operation
 * word and coordinates: every result word must be bit-identical.
 *
 * Textures: every element format (8/16/32-bit integers, f16, f32; 1, 2 and 4 channels;
 * element-type and normalized-float reads) over linear memory (unaligned, with a partial
 * element at the end), pitched 2D memory (unaligned rows), 1D, 2D, layered 1D and 2D, 3D,
 * mipmapped and layered multisample arrays, each with clamp, wrap, mirror and border
 * addressing (a NaN in the border colour, -0.0 for integer textures), unnormalized and
 * normalized coordinates, point and linear filtering. Coordinates: .s32 indices and .f32
 * values inside, at the edges and far outside every image (NaN and infinities too), and
 * layers outside the arrays. Those the inline path does not cover (normalized or filtered
 * .f32 fetches) must agree as well, through the runtime.
 *
 * Also: handles in a kernel parameter and in a bound `.texref` (rebound between launches),
 * and stale, zero and surface handles, which must still fail the launch.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ptxrt_abi.h"
#include "texture_host.h"

enum { MAX_TEXTURES = 4096, MAX_COORDS = 128, WORDS = 16 };

typedef struct {
    int bits, kind, channels, normalized;
} Format;

typedef enum { R_LINEAR, R_PITCH, R_ARRAY1D, R_ARRAY2D, R_LAYERED1D, R_LAYERED2D, R_3D, R_MIPMAP, R_MULTISAMPLE, R_COUNT } Resource;

static const char *resource_names[R_COUNT] = {"linear", "pitch2d", "array1d", "array2d", "layered1d", "layered2d", "array3d", "mipmapped", "multisample"};

typedef struct {
    ptxrtTextureAddressMode x, y;
    int linear, normalized;
} Config;

static const Config configs[] = {
    {ptxrtAddressModeClamp, ptxrtAddressModeClamp, 0, 0},
    {ptxrtAddressModeWrap, ptxrtAddressModeWrap, 0, 0},
    {ptxrtAddressModeBorder, ptxrtAddressModeBorder, 0, 0},
    {ptxrtAddressModeMirror, ptxrtAddressModeMirror, 0, 1},
    {ptxrtAddressModeWrap, ptxrtAddressModeClamp, 0, 1},
    {ptxrtAddressModeBorder, ptxrtAddressModeClamp, 1, 0},
    {ptxrtAddressModeClamp, ptxrtAddressModeBorder, 0, 0},
};
enum { NCONFIGS = sizeof configs / sizeof configs[0] };

typedef struct {
    ptxrtTextureObject_t handle;
    Format format;
    Resource resource;
    int config, linear;
} Texture;

static Texture textures[MAX_TEXTURES];
static int ntextures;
static harness_rng rng;

static int float_result(Format f)
{
    return f.kind == ptxrtChannelFormatKindFloat || f.normalized;
}

static size_t element_bytes(Format f)
{
    return (size_t)(f.bits / 8 * f.channels);
}

/* Random texel bytes, with special values (NaN, infinities, subnormals, signed zeros,
 * extreme integers) in a quarter of the channels. */
static void fill(uint8_t *p, size_t elements, Format f)
{
    static const uint16_t half_special[] = {0x7C00, 0xFC00, 0x7C01, 0xFE00, 0x7DFF, 0x0001, 0x83FF, 0x8000, 0x3C00, 0x7BFF};
    static const uint32_t float_special[] = {0x7F800000, 0xFF800000, 0x7F800001, 0xFFC00000, 0x7FBFFFFF, 0x00000001, 0x80000000, 0x7F7FFFFF};
    static const uint32_t int_special[] = {0, 0x80, 0x7F, 0xFF, 0x8000, 0x7FFF, 0xFFFF, 0x80000000, 0xFFFFFFFF};
    size_t cb = (size_t)f.bits / 8;
    for (size_t i = 0; i < elements * f.channels; i++) {
        uint32_t v = harness_rng_u32(&rng);
        if (harness_rng_u32(&rng) % 4 == 0) {
            uint32_t r = harness_rng_u32(&rng);
            if (f.kind == ptxrtChannelFormatKindFloat)
                v = f.bits == 16 ? half_special[r % 10] : float_special[r % 8];
            else
                v = int_special[r % 9];
        }
        memcpy(p + i * cb, &v, cb);
    }
}

/* Creates the textures of one format over one resource: 3 of the configurations, in turn,
 * so that every format and every resource meets every configuration. */
static void add_textures(Format f, Resource r, int turn)
{
    ptxrtChannelFormatDesc cd = ptxrtCreateChannelDesc(f.bits, f.channels > 1 ? f.bits : 0, f.channels > 2 ? f.bits : 0,
                                                       f.channels > 2 ? f.bits : 0, (ptxrtChannelFormatKind)f.kind);
    size_t eb = element_bytes(f);
    ptxrtResourceDesc res;
    memset(&res, 0, sizeof res);
    ptxrtArray_t a = NULL;
    switch (r) {
    case R_LINEAR: {
        /* 7 elements at an odd address, then part of an element that does not count. */
        uint8_t *mem = harness_xmalloc(8 * eb + 1);
        fill(mem, 8, f);
        res.resType = ptxrtResourceTypeLinear;
        res.res.linear.devPtr = mem + 1;
        res.res.linear.desc = cd;
        res.res.linear.sizeInBytes = 7 * eb + eb / 2;
        break;
    }
    case R_PITCH: {
        size_t pitch = 5 * eb + 3, elements = (3 * pitch + 1 + eb - 1) / eb;
        uint8_t *mem = harness_xmalloc(elements * eb);
        fill(mem, elements, f);
        res.resType = ptxrtResourceTypePitch2D;
        res.res.pitch2D.devPtr = mem + 1;
        res.res.pitch2D.desc = cd;
        res.res.pitch2D.width = 5;
        res.res.pitch2D.height = 3;
        res.res.pitch2D.pitchInBytes = pitch;
        break;
    }
    case R_MIPMAP: {
        ptxrtMipmappedArray_t m;
        PTXRT_CHECK(ptxrtMallocMipmappedArray(&m, &cd, (ptxrtExtent){6, 4, 0}, 3, 0));
        for (unsigned level = 0; level < 3; level++) {
            ptxrtArray_t l;
            PTXRT_CHECK(ptxrtGetMipmappedArrayLevel(&l, m, level));
            size_t w = 6 >> level, h = 4 >> level;
            uint8_t *tmp = harness_xmalloc(w * h * eb);
            fill(tmp, w * h, f);
            PTXRT_CHECK(ptxrtMemcpyToArray(l, 0, 0, tmp, w * h * eb));
            free(tmp);
        }
        res.resType = ptxrtResourceTypeMipmappedArray;
        res.res.mipmap.mipmap = m;
        break;
    }
    default: {
        static const struct { size_t w, h, d; unsigned flags, samples; } shapes[R_COUNT] = {
            [R_ARRAY1D] = {6, 0, 0, 0, 0},
            [R_ARRAY2D] = {5, 4, 0, 0, 0},
            [R_LAYERED1D] = {5, 0, 3, ptxrtArrayLayered, 0},
            [R_LAYERED2D] = {4, 3, 2, ptxrtArrayLayered, 0},
            [R_3D] = {4, 3, 2, 0, 0},
            [R_MULTISAMPLE] = {3, 2, 2, ptxrtArrayLayered, 2},
        };
        ptxrtExtent e = {shapes[r].w, shapes[r].h, shapes[r].d};
        if (shapes[r].samples)
            PTXRT_CHECK(ptxrtMallocMultisampleArray(&a, &cd, e, shapes[r].samples, shapes[r].flags));
        else
            PTXRT_CHECK(ptxrtMalloc3DArray(&a, &cd, e, shapes[r].flags));
        size_t rows = (e.height ? e.height : 1) * (e.depth ? e.depth : 1) * (shapes[r].samples ? shapes[r].samples : 1);
        size_t bytes = e.width * eb * rows;
        uint8_t *tmp = harness_xmalloc(bytes);
        fill(tmp, bytes / eb, f);
        PTXRT_CHECK(ptxrtMemcpyToArray(a, 0, 0, tmp, bytes));
        free(tmp);
        res = array_resource(a);
        break;
    }
    }
    for (int k = 0; k < 3; k++) {
        int c = (turn + r + k) % NCONFIGS;
        ptxrtTextureDesc td;
        memset(&td, 0, sizeof td);
        td.addressMode[0] = configs[c].x;
        td.addressMode[1] = configs[c].y;
        td.addressMode[2] = ptxrtAddressModeClamp;
        int linear = configs[c].linear && float_result(f);
        td.filterMode = linear ? ptxrtFilterModeLinear : ptxrtFilterModePoint;
        td.readMode = f.normalized ? ptxrtReadModeNormalizedFloat : ptxrtReadModeElementType;
        td.normalizedCoords = configs[c].normalized;
        if (float_result(f)) {
            /* A quiet NaN with a payload and a value that rounds to an f16 subnormal. */
            uint32_t nan = 0x7FA12345u;
            memcpy(&td.borderColor[2], &nan, 4);
            td.borderColor[0] = 0.25f;
            td.borderColor[1] = -2.0f;
            td.borderColor[3] = 3e-6f;
        } else {
            /* -0.0 compares equal to 0: allowed, and integer results read 0. */
            td.borderColor[0] = -0.0f;
            td.borderColor[3] = -0.0f;
        }
        if (ntextures == MAX_TEXTURES) harness_fail("too many textures");
        Texture *t = &textures[ntextures++];
        PTXRT_CHECK(ptxrtCreateTextureObject(&t->handle, &res, &td, NULL));
        t->format = f;
        t->resource = r;
        t->config = c;
        t->linear = linear;
    }
}

static uint32_t fbits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

/* The coordinate words of one fetch: (layer, x, y) as the geometry lists them. */
static void pack(uint32_t *w, int geom_dims, int arrayed, uint32_t layer, uint32_t x, uint32_t y)
{
    uint32_t v[4] = {0, 0, 0, 0};
    int k = 0;
    if (arrayed) v[k++] = layer;
    v[k++] = x;
    if (geom_dims == 2) v[k++] = y;
    memcpy(w, v, sizeof v);
}

static const char *dtype_names[3] = {"u32", "s32", "f32"};

/* Runs kernel `name` over every texture and coordinate and compares with __ptxrt_tex. */
static int check_geometry(const char *name, uint32_t geom, int dims, int arrayed, int float_coords, ptxrtTextureObject_t *handles)
{
    static const int32_t xs[] = {INT32_MIN, -100, -8, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 100, INT32_MAX};
    static const int32_t ys[] = {-3, -1, 0, 1, 2, 3, 4, 9};
    static const uint32_t layers[] = {0, 1, 2, 3, 7, 0xFFFFFFFFu, 0x80000000u};
    static const float fxs[] = {-INFINITY, -1e30f, -2.5f, -1.0f, -0.5f, -0.0f, 0.0f, 0.25f, 0.5f, 0.999f, 1.0f, 1.5f, 2.0f, 3.75f, 4.5f,
                                5.0f, 6.99f, 7.0f, 7.5f, 9.0f, 1e30f, INFINITY, NAN, 2147483648.0f, 1e12f, 0.1f, 0.33f, 0.6f, 0.95f, -0.3f};
    static const float fys[] = {-1.5f, -0.25f, 0.0f, 0.4f, 1.0f, 2.5f, 2.99f, 3.0f, 5.5f, NAN};
    uint32_t coords[MAX_COORDS * 4];
    int ncoords = 0;
    int nx = float_coords ? (int)(sizeof fxs / sizeof fxs[0]) : (int)(sizeof xs / sizeof xs[0]);
    int ny = float_coords ? (int)(sizeof fys / sizeof fys[0]) : (int)(sizeof ys / sizeof ys[0]);
    int nl = (int)(sizeof layers / sizeof layers[0]);
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < (float_coords ? 2 : 3); j++) {
            uint32_t x = float_coords ? fbits(fxs[i]) : (uint32_t)xs[i];
            uint32_t y = float_coords ? fbits(fys[(3 * i + j) % ny]) : (uint32_t)ys[(3 * i + j) % ny];
            pack(&coords[4 * ncoords++], dims, arrayed, layers[(i + 2 * j) % nl], x, y);
        }
    int n = ntextures * ncoords;
    uint32_t *out = harness_xmalloc((size_t)n * WORDS * 4);
    memset(out, 0xAB, (size_t)n * WORDS * 4);
    void *args[] = {&handles, &(uint32_t *){coords}, &out, &ncoords, &n};
    launch(name, n, args);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const Texture *t = &textures[i / ncoords];
        const uint32_t *c = &coords[4 * (i % ncoords)];
        const uint32_t *got = &out[(size_t)i * WORDS];
        /* The runtime returns the same words for .u32, .s32 and .f32 results (integers,
         * or floats' bits); .f16 results are rounded. */
        uint32_t ref[2][4];
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t op = geom | (float_coords ? PTXRT_TEX_FLOAT_COORDS : 0) | (2 + k) << PTXRT_TEX_DTYPE_SHIFT;
            int32_t status = __ptxrt_tex(t->handle, 0, op, c, ref[k]);
            if (status != 0) harness_fail("__ptxrt_tex returned %d", (int)status);
        }
        uint32_t want[WORDS];
        for (int w = 0; w < 12; w++) want[w] = ref[0][w % 4];
        want[12] = ref[1][0] | ref[1][1] << 16;
        want[13] = ref[1][2] | ref[1][3] << 16;
        want[14] = want[12];
        want[15] = want[13];
        for (int w = 0; w < WORDS; w++) {
            if (got[w] == want[w]) continue;
            if (bad++ < HARNESS_MAX_REPORTED) {
                const char *what = w < 12 ? dtype_names[w / 4] : w < 14 ? "f16" : "f16x2";
                printf("  %s: %s %s x%d%s, %s, config %d (linear %d): coords {%08x %08x %08x %08x} %s word %d: expected %08x, got %08x\n",
                       name, t->format.kind == 2 ? "float" : t->format.kind == 1 ? "unsigned" : "signed", t->format.bits == 8 ? "8" : t->format.bits == 16 ? "16" : "32",
                       t->format.channels, t->format.normalized ? " normalized" : "", resource_names[t->resource], t->config, t->linear, c[0], c[1], c[2], c[3],
                       what, w, want[w], got[w]);
            }
            break;
        }
    }
    free(out);
    if (bad) printf("%s: %d of %d fetches differ\n", name, bad, n);
    return bad;
}

/* tex.1d.v4.f32.s32 through a kernel parameter or the bound reference `ref`. */
static int check_uniform(const char *name, ptxrtTextureObject_t h)
{
    static const int32_t xs[] = {INT32_MIN, -9, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 64, INT32_MAX};
    int n = (int)(sizeof xs / sizeof xs[0]);
    uint32_t out[4 * 16];
    const int32_t *c = xs;
    void *param_args[] = {&h, &c, &(uint32_t *){out}, &n};
    void *ref_args[] = {&c, &(uint32_t *){out}, &n};
    launch(name, n, strcmp(name, "fetch_param") == 0 ? param_args : ref_args);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        uint32_t want[4], coords[4] = {(uint32_t)xs[i], 0, 0, 0};
        if (__ptxrt_tex(h, 0, PTXRT_GEOM_1D | 2 << PTXRT_TEX_DTYPE_SHIFT, coords, want) != 0) harness_fail("__ptxrt_tex failed");
        for (int w = 0; w < 4; w++)
            if (out[4 * i + w] != want[w] && bad++ < HARNESS_MAX_REPORTED)
                printf("  %s x=%d word %d: expected %08x, got %08x\n", name, xs[i], w, want[w], out[4 * i + w]);
    }
    return bad;
}

/* A fetch through `h` must fail the launch (bad handle). */
static int check_rejected(const char *what, ptxrtTextureObject_t h)
{
    int32_t x = 0;
    uint32_t out[16];
    int n = 1;
    void *args[] = {&h, &(int32_t *){&x}, &(uint32_t *){out}, &n};
    ptxrtError_t e = ptxrtLaunchKernel(harness_find_kernel("fetch_param"), harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), args, 0, NULL);
    if (e == ptxrtSuccess) {
        printf("  fetch through %s did not fail the launch\n", what);
        return 1;
    }
    (void)ptxrtGetLastError();
    return 0;
}

int main(void)
{
    harness_rng_seed(&rng, 0x7e47e4);
    static const struct { int bits, kind; } types[] = {
        {8, ptxrtChannelFormatKindUnsigned}, {8, ptxrtChannelFormatKindSigned}, {16, ptxrtChannelFormatKindUnsigned},
        {16, ptxrtChannelFormatKindSigned},  {32, ptxrtChannelFormatKindUnsigned}, {32, ptxrtChannelFormatKindSigned},
        {16, ptxrtChannelFormatKindFloat},   {32, ptxrtChannelFormatKindFloat},
    };
    static const int channel_counts[] = {1, 2, 4};
    int turn = 0;
    for (int ty = 0; ty < 8; ty++)
        for (int ci = 0; ci < 3; ci++)
            for (int normalized = 0; normalized < 2; normalized++) {
                Format f = {types[ty].bits, types[ty].kind, channel_counts[ci], normalized};
                if (normalized && (f.bits == 32 || f.kind == ptxrtChannelFormatKindFloat)) continue;
                for (int r = 0; r < R_COUNT; r++) add_textures(f, (Resource)r, turn);
                turn += 3;
            }
    ptxrtTextureObject_t *handles = harness_xmalloc((size_t)ntextures * sizeof *handles);
    for (int i = 0; i < ntextures; i++) handles[i] = textures[i].handle;

    static const struct { const char *name; uint32_t geom; int dims, arrayed; } geoms[] = {
        {"1d", PTXRT_GEOM_1D, 1, 0}, {"2d", PTXRT_GEOM_2D, 2, 0}, {"a1d", PTXRT_GEOM_A1D, 1, 1}, {"a2d", PTXRT_GEOM_A2D, 2, 1},
    };
    int bad = 0;
    for (int g = 0; g < 4; g++)
        for (int fc = 0; fc < 2; fc++) {
            char name[32];
            snprintf(name, sizeof name, "fetch_%s_%s", geoms[g].name, fc ? "f32" : "s32");
            bad += check_geometry(name, geoms[g].geom, geoms[g].dims, geoms[g].arrayed, fc, handles);
        }

    /* Uniform handles: the first f32 texture over linear memory, then (rebinding `ref`)
     * the first 8-bit normalized one over a 2D array. */
    ptxrtTextureObject_t lin = 0, norm = 0;
    for (int i = 0; i < ntextures; i++) {
        const Texture *t = &textures[i];
        if (!lin && t->format.kind == ptxrtChannelFormatKindFloat && t->format.bits == 32 && t->resource == R_LINEAR) lin = t->handle;
        if (!norm && t->format.normalized && t->format.bits == 8 && t->resource == R_ARRAY2D) norm = t->handle;
    }
    bad += check_uniform("fetch_param", lin);
    bad += check_uniform("fetch_param", norm);
    PTXRT_CHECK(ptxrtBindTextureRef("ref", lin));
    bad += check_uniform("fetch_ref", lin);
    PTXRT_CHECK(ptxrtBindTextureRef("ref", norm));
    bad += check_uniform("fetch_ref", norm);

    /* Handles the inline path must leave to the runtime, which rejects them. */
    ptxrtArray_t sa;
    ptxrtChannelFormatDesc cd = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    PTXRT_CHECK(ptxrtMallocArray(&sa, &cd, 4, 0, ptxrtArraySurfaceLoadStore));
    ptxrtResourceDesc sres = array_resource(sa);
    ptxrtSurfaceObject_t surf;
    PTXRT_CHECK(ptxrtCreateSurfaceObject(&surf, &sres));
    bad += check_rejected("a surface handle", surf);
    bad += check_rejected("handle 0", 0);
    PTXRT_CHECK(ptxrtDestroyTextureObject(lin));
    bad += check_rejected("a destroyed texture", lin);

    if (bad) {
        printf("texture_inline: %d mismatches\n", bad);
        return 1;
    }
    printf("texture_inline: %d textures, all checks OK\n", ntextures);
    return 0;
}
