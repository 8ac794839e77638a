/* texture_queries_host.c: runs tests/kernels/texture_queries.ptx (hand-written PTX).
 *
 * Binds the module's `.texref tref` and `.surfref sref` by name, then checks `txq`/`suq`
 * answers (references and handles in registers), `istypep`, `tld4` through the
 * reference, `sured` reductions, `sust.p` formatted stores and `suld.b.v2` with `.zero`
 * and `.clamp`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "texture_host.h"
#include "texture_reference.h"

static int checks;

static void expect_u32(const char *what, uint32_t got, uint32_t want)
{
    if (got != want)
        harness_fail("%s: got %u (%#x), expected %u (%#x)", what, got, got, want, want);
    checks++;
}

int main(void)
{
    /* tref: 6x4 floats, linear filtering, wrap (acts as clamp: unnormalized) / clamp. */
    enum { TW = 6, TH = 4 };
    float img[TW * TH], texels[TW * TH * 4];
    harness_rng rng;
    harness_rng_seed(&rng, 3);
    for (int i = 0; i < TW * TH; i++) {
        img[i] = harness_rng_float(&rng, -4.0f, 4.0f);
        texels[4 * i] = img[i];
        texels[4 * i + 1] = 0.0f;
        texels[4 * i + 2] = 0.0f;
        texels[4 * i + 3] = 1.0f;
    }
    ptxrtChannelFormatDesc f1 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    ptxrtArray_t timg;
    PTXRT_CHECK(ptxrtMallocArray(&timg, &f1, TW, TH, 0));
    PTXRT_CHECK(ptxrtMemcpy2DToArray(timg, 0, 0, img, TW * 4, TW * 4, TH));
    ptxrtResourceDesc rimg = array_resource(timg);
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof(td));
    td.addressMode[0] = ptxrtAddressModeWrap;
    td.addressMode[1] = ptxrtAddressModeClamp;
    td.filterMode = ptxrtFilterModeLinear;
    ptxrtTextureObject_t tref_obj;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tref_obj, &rimg, &td, NULL));
    PTXRT_CHECK(ptxrtBindTextureRef("tref", tref_obj));

    /* t: 7x5 layered (2 layers), 2 x u16, normalized float reads, normalized coordinates. */
    ptxrtChannelFormatDesc u16x2 = ptxrtCreateChannelDesc(16, 16, 0, 0, ptxrtChannelFormatKindUnsigned);
    ptxrtArray_t tl;
    ptxrtExtent el = {7, 5, 2};
    PTXRT_CHECK(ptxrtMalloc3DArray(&tl, &u16x2, el, ptxrtArrayLayered));
    ptxrtResourceDesc rl = array_resource(tl);
    ptxrtTextureDesc tdl;
    memset(&tdl, 0, sizeof(tdl));
    tdl.readMode = ptxrtReadModeNormalizedFloat;
    tdl.normalizedCoords = 1;
    ptxrtTextureObject_t t;
    PTXRT_CHECK(ptxrtCreateTextureObject(&t, &rl, &tdl, NULL));

    /* sref: 10 x u32 (1D); s: 16 x RGBA u8. */
    ptxrtChannelFormatDesc u32 = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindSigned);
    ptxrtArray_t asr;
    PTXRT_CHECK(ptxrtMallocArray(&asr, &u32, 10, 0, 0));
    ptxrtResourceDesc rsr = array_resource(asr);
    ptxrtSurfaceObject_t sref_obj;
    PTXRT_CHECK(ptxrtCreateSurfaceObject(&sref_obj, &rsr));
    PTXRT_CHECK(ptxrtBindSurfaceRef("sref", sref_obj));
    ptxrtChannelFormatDesc rgba8 = ptxrtCreateChannelDesc(8, 8, 8, 8, ptxrtChannelFormatKindUnsigned);
    ptxrtArray_t as;
    PTXRT_CHECK(ptxrtMallocArray(&as, &rgba8, 16, 0, ptxrtArraySurfaceLoadStore));
    ptxrtResourceDesc rs = array_resource(as);
    ptxrtSurfaceObject_t s;
    PTXRT_CHECK(ptxrtCreateSurfaceObject(&s, &rs));

    _Alignas(16) uint32_t q[32];
    memset(q, 0xee, sizeof q);
    uint32_t *pq = q;
    void *qargs[] = {&pq, &t, &s};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("queries"), harness_dim3(1, 1, 1), harness_dim3(1, 1, 1), qargs, 0, NULL));
    /* tref: width height depth data_type order normalized filter addr0 (wrap) addr1
     * (clamp_to_edge) array_size; t; sref and s; istypep. */
    static const uint32_t want[26] = {6, 4, 1, 0x10DE, 0x10B0, 0, 1, 0, 3, 0,
                                      7, 5, 1, 2, 0x10D3, 1,
                                      10, 1, 1, 0x10B0, 16, 0,
                                      1, 0, 1, 1};
    static const char *names[26] = {"txq.width tref", "txq.height tref", "txq.depth tref", "txq.channel_data_type tref", "txq.channel_order tref",
                                    "txq.normalized_coords tref", "txq.filter_mode tref", "txq.addr_mode_0 tref", "txq.addr_mode_1 tref",
                                    "txq.array_size tref", "txq.width t", "txq.height t", "txq.depth t", "txq.array_size t",
                                    "txq.channel_data_type t", "txq.normalized_coords t", "suq.width sref", "suq.height sref",
                                    "suq.depth sref", "suq.channel_order sref", "suq.width s", "suq.memory_layout s",
                                    "istypep.texref t", "istypep.surfref t", "istypep.surfref s", "istypep.texref (mov.u64 tref)"};
    /* Where each answer lands in q (the kernel keeps vector stores aligned). */
    static const int slot[26] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 28, 29, 30, 31};
    for (int i = 0; i < 26; i++)
        expect_u32(names[i], q[slot[i]], want[i]);

    /* tld4.r through the reference. */
    enum { N = 200 };
    _Alignas(16) float xy[2 * N];
    _Alignas(16) float out[4 * N];
    for (int i = 0; i < N; i++) {
        xy[2 * i] = harness_rng_float(&rng, -2.0f, TW + 2.0f);
        xy[2 * i + 1] = harness_rng_float(&rng, -2.0f, TH + 2.0f);
    }
    int n = N;
    float *pxy = xy, *pout = out;
    void *gargs[] = {&pxy, &pout, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("gather_ref"), harness_dim3(1, 1, 1), harness_dim3(N, 1, 1), gargs, 0, NULL));
    ref_texture ref = {texels, 2, {TW, TH, 1}, 0, {ptxrtAddressModeWrap, ptxrtAddressModeClamp, ptxrtAddressModeClamp}, 1, 0, {0, 0, 0, 0}};
    for (int i = 0; i < N; i++) {
        float w[4];
        ref_gather(&ref, xy + 2 * i, 0, w);
        for (int c = 0; c < 4; c++)
            if (memcmp(&w[c], &out[4 * i + c], 4) != 0)
                harness_fail("tld4.r at (%g, %g) element %d: got %g, expected %g", xy[2 * i], xy[2 * i + 1], c, out[4 * i + c], w[c]);
        checks++;
    }

    /* sured: 3 blocks of 64 threads. */
    int32_t bins[10] = {0, 0, 0, 0, 0, 0, 0, 0, 1000, -1000};
    PTXRT_CHECK(ptxrtMemcpyToArray(asr, 0, 0, bins, sizeof bins));
    uint32_t bias = 10;
    void *hargs[] = {&bias};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("histogram"), harness_dim3(3, 1, 1), harness_dim3(64, 1, 1), hargs, 0, NULL));
    PTXRT_CHECK(ptxrtMemcpyFromArray(bins, asr, 0, 0, sizeof bins));
    for (int i = 0; i < 8; i++)
        expect_u32("sured.b.add bin", (uint32_t)bins[i], 24);
    expect_u32("sured.b.min.s32", (uint32_t)bins[8], (uint32_t)-10);
    expect_u32("sured.b.max.s32", (uint32_t)bins[9], 53);

    /* sust.p then suld.b.v2 .zero/.clamp. */
    _Alignas(16) uint32_t loads[16 * 4];
    uint32_t *pl = loads;
    void *fargs[] = {&s, &pl};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("formatted"), harness_dim3(1, 1, 1), harness_dim3(16, 1, 1), fargs, 0, NULL));
    uint32_t surf[16];
    PTXRT_CHECK(ptxrtMemcpyFromArray(surf, as, 0, 0, sizeof surf));
    for (uint32_t i = 0; i < 16; i++) {
        uint32_t r = 100 * i, g = 100 * i + 1, b = 300 - 100 * i;
        uint32_t sat[3] = {r > 255 ? 255 : r, g > 255 ? 255 : g, b > 255 ? 255 : b};
        expect_u32("sust.p RGBA8", surf[i], sat[0] | sat[1] << 8 | sat[2] << 16 | 7u << 24);
    }
    for (int i = 0; i < 16; i++) {
        int z = 2 * i - 2; /* first word of the .zero load */
        uint32_t w0 = (z >= 0 && z + 1 < 16) ? surf[z] : 0, w1 = (z >= 0 && z + 1 < 16) ? surf[z + 1] : 0;
        int c = 2 * i + 2;
        if (c > 14)
            c = 14;
        expect_u32("suld.b.v2.zero word 0", loads[4 * i], w0);
        expect_u32("suld.b.v2.zero word 1", loads[4 * i + 1], w1);
        expect_u32("suld.b.v2.clamp word 0", loads[4 * i + 2], surf[c]);
        expect_u32("suld.b.v2.clamp word 1", loads[4 * i + 3], surf[c + 1]);
    }

    /* Unbinding the reference makes fetches through it fail the launch. */
    PTXRT_CHECK(ptxrtBindTextureRef("tref", 0));
    ptxrtError_t err = ptxrtLaunchKernel(harness_find_kernel("gather_ref"), harness_dim3(1, 1, 1), harness_dim3(N, 1, 1), gargs, 0, NULL);
    if (err != ptxrtErrorLaunchFailure)
        harness_fail("tld4 through an unbound reference: got %s", ptxrtGetErrorName(err));
    ptxrtGetLastError();
    checks++;

    PTXRT_CHECK(ptxrtDestroyTextureObject(tref_obj));
    PTXRT_CHECK(ptxrtDestroyTextureObject(t));
    PTXRT_CHECK(ptxrtDestroySurfaceObject(sref_obj));
    PTXRT_CHECK(ptxrtDestroySurfaceObject(s));
    PTXRT_CHECK(ptxrtFreeArray(timg));
    PTXRT_CHECK(ptxrtFreeArray(tl));
    PTXRT_CHECK(ptxrtFreeArray(asr));
    PTXRT_CHECK(ptxrtFreeArray(as));
    printf("texture_queries: all checks OK\n");
    fprintf(stderr, "%d checks\n", checks);
    return 0;
}
