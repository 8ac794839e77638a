/* textures_host.c: runs tests/kernels/textures.ptx (NVRTC: texture and surface objects).
 *
 * - fetch1d/2d/3d: every address mode x point/linear filtering x normalized/unnormalized
 *   coordinates on float4 arrays (and pitched 2D memory), compared bit for bit with
 *   texture_reference.h; a border colour; an 8-bit normalized-float texture;
 * - fetch_linear_int: tex1Dfetch on linear memory (outside reads 0);
 * - fetch2d_layered, gather2d (tld4, every component);
 * - surf_copy (suld .zero/.clamp, sust .trap) and surf_trap (an out-of-range .trap store
 *   and an invalid handle end the launch with an error);
 * - descriptor validation errors of the C API.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "texture_host.h"
#include "texture_reference.h"

static int checks;

static void expect4(const char *what, int i, const float *coords, int ncoords, const float *want, const float *got)
{
    for (int c = 0; c < 4; c++) {
        if (!same_f32(want[c], got[c])) {
            fprintf(stderr, "%s: sample %d at (", what, i);
            for (int k = 0; k < ncoords; k++)
                fprintf(stderr, "%s%.9g", k ? ", " : "", coords[k]);
            fprintf(stderr, "): got (%.9g %.9g %.9g %.9g), expected (%.9g %.9g %.9g %.9g)\n", got[0], got[1], got[2], got[3], want[0], want[1],
                    want[2], want[3]);
            harness_fail("%s: texture results differ from the reference", what);
        }
    }
    checks++;
}

/* Sample coordinates: random ones over and beyond the texture, texel centres and edges. */
static void make_coords(harness_rng *rng, float *c, int n, int stride, int dims, const int *size, int normalized)
{
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < dims; d++) {
            float extent = (float)size[d];
            float v;
            switch (i % 4) {
            case 0: /* texel centre */
                v = (float)((int)(harness_rng_u32(rng) % (unsigned)(size[d] + 4)) - 2) + 0.5f;
                break;
            case 1: /* texel edge */
                v = (float)((int)(harness_rng_u32(rng) % (unsigned)(size[d] + 4)) - 2);
                break;
            default:
                v = harness_rng_float(rng, -2.5f, extent + 2.5f);
            }
            c[i * stride + d] = normalized ? v / extent : v;
        }
    }
}

static const char *mode_name(int m)
{
    static const char *names[] = {"wrap", "clamp", "mirror", "border"};
    return names[m];
}

/* Every address mode x filter x coordinate mode over one resource. */
static void test_modes(int dims, const ptxrtResourceDesc *res, const float *texels, const int *size, const float *border, const char *label)
{
    static const char *kernels[] = {"fetch1d", "fetch2d", "fetch3d"};
    static const int strides[] = {1, 2, 4};
    enum { N = 512 };
    harness_rng rng;
    harness_rng_seed(&rng, 7 + dims);
    float *coords = harness_xmalloc(sizeof(float) * 4 * N);
    float *out = harness_xmalloc(sizeof(float) * 4 * N);
    for (int mode = 0; mode < 4; mode++)
        for (int linear = 0; linear < 2; linear++)
            for (int normalized = 0; normalized < 2; normalized++) {
                ptxrtTextureDesc td;
                memset(&td, 0, sizeof(td));
                for (int d = 0; d < 3; d++)
                    td.addressMode[d] = (ptxrtTextureAddressMode)mode;
                td.filterMode = linear ? ptxrtFilterModeLinear : ptxrtFilterModePoint;
                td.readMode = ptxrtReadModeElementType;
                td.normalizedCoords = normalized;
                if (border)
                    memcpy(td.borderColor, border, sizeof(td.borderColor));
                ptxrtTextureObject_t tex;
                PTXRT_CHECK(ptxrtCreateTextureObject(&tex, res, &td, NULL));
                ref_texture ref = {texels, dims, {size[0], size[1], size[2]}, 0, {mode, mode, mode}, linear, normalized, {0, 0, 0, 0}};
                if (border)
                    memcpy(ref.border, border, sizeof(ref.border));
                make_coords(&rng, coords, N, strides[dims - 1], dims, size, normalized);
                int n = N;
                void *args[] = {&tex, &coords, &out, &n};
                launch(kernels[dims - 1], n, args);
                char what[160];
                snprintf(what, sizeof what, "%s %dD %s %s %s", label, dims, mode_name(mode), linear ? "linear" : "point",
                         normalized ? "normalized" : "unnormalized");
                for (int i = 0; i < N; i++) {
                    float want[4];
                    ref_sample(&ref, coords + i * strides[dims - 1], 0, want);
                    expect4(what, i, coords + i * strides[dims - 1], dims, want, out + 4 * i);
                }
                PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
            }
    free(coords);
    free(out);
}

static ptxrtChannelFormatDesc float4_desc(void)
{
    return ptxrtCreateChannelDesc(32, 32, 32, 32, ptxrtChannelFormatKindFloat);
}

static ptxrtArray_t float4_array(const float *texels, int w, int h, int d, unsigned flags)
{
    ptxrtChannelFormatDesc desc = float4_desc();
    ptxrtArray_t a;
    ptxrtExtent e = {(size_t)w, (size_t)h, (size_t)d};
    PTXRT_CHECK(ptxrtMalloc3DArray(&a, &desc, e, flags));
    size_t count = (size_t)w * (h ? h : 1) * (d ? d : 1) * 16;
    PTXRT_CHECK(ptxrtMemcpyToArray(a, 0, 0, texels, count));
    return a;
}

static float *random_texels(harness_rng *rng, size_t count)
{
    float *t = harness_xmalloc(sizeof(float) * 4 * count);
    harness_fill_float(rng, t, 4 * count, -10.0f, 10.0f);
    return t;
}

static void test_float_textures(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 1);
    static const int sizes[3][3] = {{7, 1, 1}, {5, 4, 1}, {3, 4, 5}};
    for (int dims = 1; dims <= 3; dims++) {
        const int *s = sizes[dims - 1];
        float *texels = random_texels(&rng, (size_t)s[0] * s[1] * s[2]);
        ptxrtArray_t a = float4_array(texels, s[0], dims > 1 ? s[1] : 0, dims > 2 ? s[2] : 0, 0);
        ptxrtResourceDesc res = array_resource(a);
        test_modes(dims, &res, texels, s, NULL, "array");
        if (dims == 2) {
            /* Pitched memory with padding between rows, and a border colour. */
            size_t pitch = 5 * 16 + 48;
            unsigned char *mem = harness_xmalloc(pitch * 4);
            for (int y = 0; y < 4; y++)
                memcpy(mem + y * pitch, texels + 4 * 5 * y, 5 * 16);
            ptxrtResourceDesc pr;
            memset(&pr, 0, sizeof(pr));
            pr.resType = ptxrtResourceTypePitch2D;
            pr.res.pitch2D.devPtr = mem;
            pr.res.pitch2D.desc = float4_desc();
            pr.res.pitch2D.width = 5;
            pr.res.pitch2D.height = 4;
            pr.res.pitch2D.pitchInBytes = pitch;
            static const float border[4] = {1.5f, -2.0f, 0.25f, 8.0f};
            test_modes(2, &pr, texels, s, border, "pitch2D");
            free(mem);
        }
        PTXRT_CHECK(ptxrtFreeArray(a));
        free(texels);
    }
}

/* 8-bit unsigned, one channel, read as normalized floats: (v / 255, 0, 0, 1). */
static void test_unorm8(void)
{
    enum { W = 6, H = 3, N = 256 };
    unsigned char data[W * H];
    float texels[W * H * 4];
    harness_rng rng;
    harness_rng_seed(&rng, 99);
    for (int i = 0; i < W * H; i++) {
        data[i] = (unsigned char)harness_rng_u32(&rng);
        texels[4 * i] = (float)data[i] / 255.0f;
        texels[4 * i + 1] = 0.0f;
        texels[4 * i + 2] = 0.0f;
        texels[4 * i + 3] = 1.0f;
    }
    ptxrtChannelFormatDesc desc = ptxrtCreateChannelDesc(8, 0, 0, 0, ptxrtChannelFormatKindUnsigned);
    ptxrtArray_t a;
    PTXRT_CHECK(ptxrtMallocArray(&a, &desc, W, H, 0));
    PTXRT_CHECK(ptxrtMemcpy2DToArray(a, 0, 0, data, W, W, H));
    ptxrtResourceDesc res = array_resource(a);
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof(td));
    td.addressMode[0] = ptxrtAddressModeWrap;
    td.addressMode[1] = ptxrtAddressModeMirror;
    td.filterMode = ptxrtFilterModeLinear;
    td.readMode = ptxrtReadModeNormalizedFloat;
    td.normalizedCoords = 1;
    ptxrtTextureObject_t tex;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
    _Alignas(16) float coords[2 * N];
    _Alignas(16) float out[4 * N];
    int size[3] = {W, H, 1};
    make_coords(&rng, coords, N, 2, 2, size, 1);
    int n = N;
    float *pc = coords, *po = out;
    void *args[] = {&tex, &pc, &po, &n};
    launch("fetch2d", n, args);
    ref_texture ref = {texels, 2, {W, H, 1}, 0, {ptxrtAddressModeWrap, ptxrtAddressModeMirror, ptxrtAddressModeWrap}, 1, 1, {0, 0, 0, 0}};
    for (int i = 0; i < N; i++) {
        float want[4];
        ref_sample(&ref, coords + 2 * i, 0, want);
        expect4("unorm8 2D wrap/mirror linear", i, coords + 2 * i, 2, want, out + 4 * i);
    }
    PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    PTXRT_CHECK(ptxrtFreeArray(a));
}

/* tex1Dfetch<int4> on linear memory: indices outside read 0. */
static void test_linear_int(void)
{
    enum { E = 10, N = 40 };
    int data[E * 4];
    for (int i = 0; i < E * 4; i++)
        data[i] = i * 1000 - 7;
    ptxrtResourceDesc res;
    memset(&res, 0, sizeof(res));
    res.resType = ptxrtResourceTypeLinear;
    res.res.linear.devPtr = data;
    res.res.linear.desc = ptxrtCreateChannelDesc(32, 32, 32, 32, ptxrtChannelFormatKindSigned);
    res.res.linear.sizeInBytes = sizeof(data);
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof(td));
    ptxrtTextureObject_t tex;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
    int idx[N];
    _Alignas(16) int out[4 * N];
    for (int i = 0; i < N; i++)
        idx[i] = i - 15;
    int n = N;
    int *pi = idx, *po = out;
    void *args[] = {&tex, &pi, &po, &n};
    launch("fetch_linear_int", n, args);
    for (int i = 0; i < N; i++)
        for (int c = 0; c < 4; c++) {
            int want = (idx[i] >= 0 && idx[i] < E) ? data[4 * idx[i] + c] : 0;
            if (out[4 * i + c] != want)
                harness_fail("tex1Dfetch: index %d channel %d: got %d, expected %d", idx[i], c, out[4 * i + c], want);
            checks++;
        }
    PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
}

static void test_layered_and_gather(void)
{
    enum { W = 5, H = 4, L = 3, N = 300 };
    harness_rng rng;
    harness_rng_seed(&rng, 5);
    float *texels = random_texels(&rng, W * H * L);
    ptxrtArray_t a = float4_array(texels, W, H, L, ptxrtArrayLayered);
    ptxrtResourceDesc res = array_resource(a);
    int size[3] = {W, H, 1};
    _Alignas(16) float coords[4 * N];
    _Alignas(16) float out[4 * N];
    for (int mode = 0; mode < 4; mode++) {
        ptxrtTextureDesc td;
        memset(&td, 0, sizeof(td));
        td.addressMode[0] = td.addressMode[1] = (ptxrtTextureAddressMode)mode;
        td.filterMode = ptxrtFilterModeLinear;
        td.normalizedCoords = 1;
        ptxrtTextureObject_t tex;
        PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
        make_coords(&rng, coords, N, 4, 2, size, 1);
        for (int i = 0; i < N; i++)
            coords[4 * i + 2] = (float)(i % L);
        int n = N;
        float *pc = coords, *po = out;
        void *args[] = {&tex, &pc, &po, &n};
        launch("fetch2d_layered", n, args);
        ref_texture ref = {texels, 2, {W, H, 1}, L, {mode, mode, mode}, 1, 1, {0, 0, 0, 0}};
        char what[64];
        snprintf(what, sizeof what, "layered 2D %s linear", mode_name(mode));
        for (int i = 0; i < N; i++) {
            float want[4];
            ref_sample(&ref, coords + 4 * i, i % L, want);
            expect4(what, i, coords + 4 * i, 3, want, out + 4 * i);
        }
        PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    }
    PTXRT_CHECK(ptxrtFreeArray(a));

    /* tld4 on the first layer's data as a plain 2D array. */
    ptxrtArray_t g = float4_array(texels, W, H, 0, 0);
    ptxrtResourceDesc gres = array_resource(g);
    for (int mode = 0; mode < 4; mode++)
        for (int comp = 0; comp < 4; comp++) {
            ptxrtTextureDesc td;
            memset(&td, 0, sizeof(td));
            td.addressMode[0] = td.addressMode[1] = (ptxrtTextureAddressMode)mode;
            td.normalizedCoords = 1;
            ptxrtTextureObject_t tex;
            PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &gres, &td, NULL));
            make_coords(&rng, coords, N, 2, 2, size, 1);
            int n = N, c = comp;
            float *pc = coords, *po = out;
            void *args[] = {&tex, &pc, &po, &n, &c};
            launch("gather2d", n, args);
            ref_texture ref = {texels, 2, {W, H, 1}, 0, {mode, mode, mode}, 0, 1, {0, 0, 0, 0}};
            char what[64];
            snprintf(what, sizeof what, "tld4 %s component %d", mode_name(mode), comp);
            for (int i = 0; i < N; i++) {
                float want[4];
                ref_gather(&ref, coords + 2 * i, comp, want);
                expect4(what, i, coords + 2 * i, 2, want, out + 4 * i);
            }
            PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
        }
    PTXRT_CHECK(ptxrtFreeArray(g));
    free(texels);
}

static void test_surfaces(void)
{
    enum { W = 9, H = 7 };
    uint32_t src[W * H], dst[W * H];
    for (int i = 0; i < W * H; i++)
        src[i] = 0x1000u + (uint32_t)i * 3u;
    ptxrtChannelFormatDesc desc = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindUnsigned);
    ptxrtArray_t as, ad;
    PTXRT_CHECK(ptxrtMallocArray(&as, &desc, W, H, ptxrtArraySurfaceLoadStore));
    PTXRT_CHECK(ptxrtMallocArray(&ad, &desc, W, H, ptxrtArraySurfaceLoadStore));
    PTXRT_CHECK(ptxrtMemcpy2DToArray(as, 0, 0, src, W * 4, W * 4, H));
    ptxrtResourceDesc rs = array_resource(as), rd = array_resource(ad);
    ptxrtSurfaceObject_t ss, sd;
    PTXRT_CHECK(ptxrtCreateSurfaceObject(&ss, &rs));
    PTXRT_CHECK(ptxrtCreateSurfaceObject(&sd, &rd));
    static const int shifts[][2] = {{0, 0}, {-2, 1}, {3, -1}, {-10, 9}};
    for (int mode = 0; mode < 2; mode++)
        for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
            int w = W, h = H, dx = shifts[s][0], dy = shifts[s][1], m = mode;
            void *args[] = {&ss, &sd, &w, &h, &dx, &dy, &m};
            PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("surf_copy"), harness_dim3(2, 2, 1), harness_dim3(8, 4, 1), args, 0, NULL));
            PTXRT_CHECK(ptxrtMemcpy2DFromArray(dst, W * 4, ad, 0, 0, W * 4, H));
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    int sx = x + dx, sy = y + dy;
                    uint32_t v;
                    if (sx >= 0 && sx < W && sy >= 0 && sy < H)
                        v = src[sy * W + sx];
                    else if (mode == 0)
                        v = 0;
                    else
                        v = src[(sy < 0 ? 0 : sy >= H ? H - 1 : sy) * W + (sx < 0 ? 0 : sx >= W ? W - 1 : sx)];
                    if (dst[y * W + x] != v + 1)
                        harness_fail("surf_copy mode %d shift (%d, %d) at (%d, %d): got %#x, expected %#x", mode, dx, dy, x, y, dst[y * W + x], v + 1);
                    checks++;
                }
        }
    /* sust.trap: in range works, out of range fails the launch. */
    ptxrtChannelFormatDesc fdesc = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    ptxrtArray_t a1;
    PTXRT_CHECK(ptxrtMallocArray(&a1, &fdesc, 5, 0, 0));
    ptxrtResourceDesc r1 = array_resource(a1);
    ptxrtSurfaceObject_t s1;
    PTXRT_CHECK(ptxrtCreateSurfaceObject(&s1, &r1));
    int x = 4;
    void *targs[] = {&s1, &x};
    const ptxrtKernel *trap = harness_find_kernel("surf_trap");
    PTXRT_CHECK(ptxrtLaunchKernel(trap, harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), targs, 0, NULL));
    float back[5];
    PTXRT_CHECK(ptxrtMemcpyFromArray(back, a1, 0, 0, sizeof back));
    if (back[4] != 1.0f)
        harness_fail("surf1Dwrite at x=4: got %g", back[4]);
    x = 5;
    ptxrtError_t err = ptxrtLaunchKernel(trap, harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), targs, 0, NULL);
    if (err != ptxrtErrorLaunchFailure || !strstr(ptxrtGetLastErrorMessage(), "out of bounds"))
        harness_fail("out-of-range sust.trap: got %s (%s)", ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
    ptxrtGetLastError();
    /* A handle that is no (longer a) surface object also fails the launch. */
    PTXRT_CHECK(ptxrtDestroySurfaceObject(s1));
    x = 0;
    err = ptxrtLaunchKernel(trap, harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), targs, 0, NULL);
    if (err != ptxrtErrorLaunchFailure || !strstr(ptxrtGetLastErrorMessage(), "handle"))
        harness_fail("destroyed surface: got %s (%s)", ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
    ptxrtGetLastError();
    checks += 3;
    PTXRT_CHECK(ptxrtDestroySurfaceObject(ss));
    PTXRT_CHECK(ptxrtDestroySurfaceObject(sd));
    PTXRT_CHECK(ptxrtFreeArray(as));
    PTXRT_CHECK(ptxrtFreeArray(ad));
    PTXRT_CHECK(ptxrtFreeArray(a1));
}

static void expect_invalid(ptxrtError_t err, const char *what, const char *needle)
{
    if (err != ptxrtErrorInvalidValue || !strstr(ptxrtGetLastErrorMessage(), needle))
        harness_fail("%s: got %s (%s), expected ptxrtErrorInvalidValue mentioning '%s'", what, ptxrtGetErrorName(err), ptxrtGetLastErrorMessage(), needle);
    ptxrtGetLastError();
    checks++;
}

static void test_validation(void)
{
    ptxrtArray_t a;
    ptxrtChannelFormatDesc f32 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    ptxrtChannelFormatDesc bad = ptxrtCreateChannelDesc(8, 0, 0, 0, ptxrtChannelFormatKindFloat);
    expect_invalid(ptxrtMallocArray(&a, &f32, 0, 4, 0), "zero width", "width");
    expect_invalid(ptxrtMallocArray(&a, &bad, 4, 4, 0), "8-bit float", "float channels");
    expect_invalid(ptxrtMallocArray(NULL, &f32, 4, 4, 0), "NULL array", "NULL");
    ptxrtChannelFormatDesc u8 = ptxrtCreateChannelDesc(8, 0, 0, 0, ptxrtChannelFormatKindUnsigned);
    PTXRT_CHECK(ptxrtMallocArray(&a, &u8, 4, 4, 0));
    ptxrtResourceDesc res = array_resource(a);
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof(td));
    td.filterMode = ptxrtFilterModeLinear;
    ptxrtTextureObject_t tex;
    expect_invalid(ptxrtCreateTextureObject(&tex, &res, &td, NULL), "linear filter on u8 element reads", "linear filtering");
    expect_invalid(ptxrtMemcpyToArray(a, 0, 3, "0123456789", 10), "copy past the end", "exceed");
    ptxrtError_t missing = ptxrtBindTextureRef("no_such_texref", 0);
    if (missing != ptxrtErrorNotFound)
        harness_fail("binding a texref no module declares: got %s", ptxrtGetErrorName(missing));
    ptxrtGetLastError();
    PTXRT_CHECK(ptxrtFreeArray(a));
    /* An invalid texture handle fails the launch instead of crashing. */
    float x = 0.5f;
    _Alignas(16) float out[4];
    float *px = &x, *po = out;
    int n = 1;
    ptxrtTextureObject_t bogus = 0x123456789ull;
    void *args[] = {&bogus, &px, &po, &n};
    ptxrtError_t err = ptxrtLaunchKernel(harness_find_kernel("fetch1d"), harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), args, 0, NULL);
    if (err != ptxrtErrorLaunchFailure)
        harness_fail("bogus texture handle: got %s", ptxrtGetErrorName(err));
    ptxrtGetLastError();
    checks++;
}

int main(void)
{
    test_float_textures();
    test_unorm8();
    test_linear_int();
    test_layered_and_gather();
    test_surfaces();
    test_validation();
    printf("textures: all checks OK\n");
    fprintf(stderr, "%d checks\n", checks);
    return 0;
}
