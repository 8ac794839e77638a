/* texture_independent_host.c: runs tests/kernels/texture_independent.ptx (independent
 * texturing mode: separate `.texref` and `.samplerref`).
 *
 * The texture object bound to `img` says point filtering, clamp and normalized
 * coordinates; the samplers decide filtering and address modes: `smp` from its module
 * initializer (wrap x, border y, linear), `smp_host` from ptxrtBindSamplerRef (mirror,
 * clamp, point, unnormalized, i.e. force_unnormalized_coords). Results are compared with
 * texture_reference.h; txq of the samplers is checked too, and a `.param .texref` kernel
 * parameter receives a texture object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "texture_reference.h"

int main(void)
{
    enum { W = 5, H = 4, N = 400 };
    harness_rng rng;
    harness_rng_seed(&rng, 21);
    float *texels = harness_xmalloc(sizeof(float) * 4 * W * H);
    harness_fill_float(&rng, texels, 4 * W * H, -8.0f, 8.0f);
    ptxrtChannelFormatDesc f4 = ptxrtCreateChannelDesc(32, 32, 32, 32, ptxrtChannelFormatKindFloat);
    ptxrtArray_t a;
    PTXRT_CHECK(ptxrtMallocArray(&a, &f4, W, H, 0));
    PTXRT_CHECK(ptxrtMemcpyToArray(a, 0, 0, texels, sizeof(float) * 4 * W * H));
    ptxrtResourceDesc res;
    memset(&res, 0, sizeof(res));
    res.resType = ptxrtResourceTypeArray;
    res.res.array.array = a;
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof(td));
    td.addressMode[0] = td.addressMode[1] = ptxrtAddressModeClamp;
    td.filterMode = ptxrtFilterModePoint;
    td.normalizedCoords = 1;
    ptxrtTextureObject_t tex;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
    PTXRT_CHECK(ptxrtBindTextureRef("img", tex));
    ptxrtTextureDesc sd;
    memset(&sd, 0, sizeof(sd));
    sd.addressMode[0] = ptxrtAddressModeMirror;
    sd.addressMode[1] = ptxrtAddressModeClamp;
    sd.filterMode = ptxrtFilterModePoint;
    sd.normalizedCoords = 0;
    PTXRT_CHECK(ptxrtBindSamplerRef("smp_host", &sd));

    float *xy = harness_xmalloc(sizeof(float) * 2 * N);
    float *out = harness_xmalloc(sizeof(float) * 4 * (N + 1));
    const ptxrtKernel *k = harness_find_kernel("sample");
    for (int use_host = 0; use_host < 2; use_host++) {
        for (int i = 0; i < N; i++) {
            /* smp: normalized coordinates (the texture's); smp_host: texel units. */
            float sx = use_host ? (float)W : 1.0f, sy = use_host ? (float)H : 1.0f;
            xy[2 * i] = harness_rng_float(&rng, -1.5f, 2.5f) * sx;
            xy[2 * i + 1] = harness_rng_float(&rng, -1.5f, 2.5f) * sy;
        }
        int n = N, h = use_host;
        void *args[] = {&xy, &out, &n, &h};
        PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(N, 1, 1), args, 0, NULL));
        ref_texture ref = use_host ? (ref_texture){texels, 2, {W, H, 1}, 0, {ptxrtAddressModeMirror, ptxrtAddressModeClamp, ptxrtAddressModeClamp}, 0, 0, {0, 0, 0, 0}}
                                   : (ref_texture){texels, 2, {W, H, 1}, 0, {ptxrtAddressModeWrap, ptxrtAddressModeBorder, ptxrtAddressModeClamp}, 1, 1, {0, 0, 0, 0}};
        for (int i = 0; i < N; i++) {
            float want[4];
            ref_sample(&ref, xy + 2 * i, 0, want);
            if (memcmp(want, out + 4 * i, sizeof want) != 0)
                harness_fail("%s at (%.9g, %.9g): got (%g %g %g %g), expected (%g %g %g %g)", use_host ? "smp_host" : "smp", xy[2 * i], xy[2 * i + 1],
                             out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3], want[0], want[1], want[2], want[3]);
        }
        uint32_t q[4];
        memcpy(q, out + 4 * N, sizeof q);
        static const uint32_t want_q[4] = {1, 0, 4, 1};
        static const char *names[4] = {"txq.filter_mode smp", "txq.addr_mode_0 smp", "txq.addr_mode_1 smp", "txq.force_unnormalized_coords smp_host"};
        for (int j = 0; j < 4; j++)
            if (q[j] != want_q[j])
                harness_fail("%s: got %u, expected %u", names[j], q[j], want_q[j]);
    }
    /* The texture passed as a `.param .texref` kernel argument, with smp. */
    for (int i = 0; i < N; i++) {
        xy[2 * i] = harness_rng_float(&rng, -1.5f, 2.5f);
        xy[2 * i + 1] = harness_rng_float(&rng, -1.5f, 2.5f);
    }
    int n = N;
    void *pargs[] = {&tex, &xy, &out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("sample_param"), harness_dim3(1, 1, 1), harness_dim3(N, 1, 1), pargs, 0, NULL));
    ref_texture pref = {texels, 2, {W, H, 1}, 0, {ptxrtAddressModeWrap, ptxrtAddressModeBorder, ptxrtAddressModeClamp}, 1, 1, {0, 0, 0, 0}};
    for (int i = 0; i < N; i++) {
        float want[4];
        ref_sample(&pref, xy + 2 * i, 0, want);
        if (memcmp(want, out + 4 * i, sizeof want) != 0)
            harness_fail(".param .texref at (%.9g, %.9g): got %g, expected %g", xy[2 * i], xy[2 * i + 1], out[4 * i], want[0]);
    }
    PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    PTXRT_CHECK(ptxrtFreeArray(a));
    free(texels);
    free(xy);
    free(out);
    printf("texture_independent: all checks OK\n");
    return 0;
}
