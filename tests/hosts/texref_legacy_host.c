/* texref_legacy_host.c: runs tests/kernels/texref_legacy.ptx (ISA 1.4 `.tex` references).
 *
 * Binds texImage (a 2D float4 array, linear filtering, clamp, unnormalized coordinates, as
 * CUDA 2.x programs set texture<float4, 2>) and texTable (int4 linear memory) by name, checks
 * tex.2d against texture_reference.h and tex.1d integer fetches (outside: 0), and checks
 * that a launch through an unbound reference fails with an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "texture_reference.h"

int main(void)
{
    enum { W = 6, H = 5, N = 700, E = 12 };
    harness_rng rng;
    harness_rng_seed(&rng, 11);
    float *texels = harness_xmalloc(sizeof(float) * 4 * W * H);
    harness_fill_float(&rng, texels, 4 * W * H, -50.0f, 50.0f);
    ptxrtChannelFormatDesc f4 = ptxrtCreateChannelDesc(32, 32, 32, 32, ptxrtChannelFormatKindFloat);
    ptxrtArray_t a;
    PTXRT_CHECK(ptxrtMallocArray(&a, &f4, W, H, 0));
    PTXRT_CHECK(ptxrtMemcpy2DToArray(a, 0, 0, texels, W * 16, W * 16, H));
    ptxrtResourceDesc res;
    memset(&res, 0, sizeof(res));
    res.resType = ptxrtResourceTypeArray;
    res.res.array.array = a;
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof(td));
    td.addressMode[0] = td.addressMode[1] = ptxrtAddressModeClamp;
    td.filterMode = ptxrtFilterModeLinear;
    ptxrtTextureObject_t image;
    PTXRT_CHECK(ptxrtCreateTextureObject(&image, &res, &td, NULL));

    float *xy = harness_xmalloc(sizeof(float) * 2 * N);
    float *out = harness_xmalloc(sizeof(float) * 4 * N);
    for (int i = 0; i < N; i++) {
        xy[2 * i] = harness_rng_float(&rng, -2.0f, W + 2.0f);
        xy[2 * i + 1] = harness_rng_float(&rng, -2.0f, H + 2.0f);
    }
    int n = N;
    void *args[] = {&xy, &out, &n};
    const ptxrtKernel *sample = harness_find_kernel("sample_image");

    /* Unbound: the launch fails and says why. */
    ptxrtError_t err = ptxrtLaunchKernel(sample, harness_dim3((N + 127) / 128, 1, 1), harness_dim3(128, 1, 1), args, 0, NULL);
    if (err != ptxrtErrorLaunchFailure || !strstr(ptxrtGetLastErrorMessage(), "handle"))
        harness_fail("tex through an unbound .tex reference: got %s (%s)", ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
    ptxrtGetLastError();

    PTXRT_CHECK(ptxrtBindTextureRef("texImage", image));
    PTXRT_CHECK(ptxrtLaunchKernel(sample, harness_dim3((N + 127) / 128, 1, 1), harness_dim3(128, 1, 1), args, 0, NULL));
    ref_texture ref = {texels, 2, {W, H, 1}, 0, {ptxrtAddressModeClamp, ptxrtAddressModeClamp, ptxrtAddressModeClamp}, 1, 0, {0, 0, 0, 0}};
    for (int i = 0; i < N; i++) {
        float want[4];
        ref_sample(&ref, xy + 2 * i, 0, want);
        if (memcmp(want, out + 4 * i, sizeof want) != 0)
            harness_fail("tex.2d at (%.9g, %.9g): got (%g %g %g %g), expected (%g %g %g %g)", xy[2 * i], xy[2 * i + 1], out[4 * i], out[4 * i + 1],
                         out[4 * i + 2], out[4 * i + 3], want[0], want[1], want[2], want[3]);
    }

    int table[E * 4];
    for (int i = 0; i < E * 4; i++)
        table[i] = 3 * i - 20;
    ptxrtResourceDesc lin;
    memset(&lin, 0, sizeof(lin));
    lin.resType = ptxrtResourceTypeLinear;
    lin.res.linear.devPtr = table;
    lin.res.linear.desc = ptxrtCreateChannelDesc(32, 32, 32, 32, ptxrtChannelFormatKindSigned);
    lin.res.linear.sizeInBytes = sizeof table;
    ptxrtTextureDesc plain;
    memset(&plain, 0, sizeof(plain));
    ptxrtTextureObject_t tt;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tt, &lin, &plain, NULL));
    PTXRT_CHECK(ptxrtBindTextureRef("texTable", tt));
    int idx[40];
    int *res_out = harness_xmalloc(sizeof(int) * 4 * 40);
    for (int i = 0; i < 40; i++)
        idx[i] = i - 14;
    int m = 40;
    int *pidx = idx;
    void *targs[] = {&pidx, &res_out, &m};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("lookup_table"), harness_dim3(2, 1, 1), harness_dim3(32, 1, 1), targs, 0, NULL));
    for (int i = 0; i < 40; i++)
        for (int c = 0; c < 4; c++) {
            int want = (idx[i] >= 0 && idx[i] < E) ? table[4 * idx[i] + c] : 0;
            if (res_out[4 * i + c] != want)
                harness_fail("tex.1d.s32 index %d channel %d: got %d, expected %d", idx[i], c, res_out[4 * i + c], want);
        }

    PTXRT_CHECK(ptxrtDestroyTextureObject(image));
    PTXRT_CHECK(ptxrtDestroyTextureObject(tt));
    PTXRT_CHECK(ptxrtFreeArray(a));
    free(texels);
    free(xy);
    free(out);
    free(res_out);
    printf("texref_legacy: all checks OK\n");
    return 0;
}
