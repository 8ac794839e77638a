/* texture_independent_host.c: runs tests/kernels/texture_independent.ptx (independent
 * texturing mode: separate `.texref` and `.samplerref`).
 *
 * The texture object bound to `img` says point filtering, clamp and normalized
 * coordinates; the samplers decide filtering and address modes: `smp` from its module
 * initializer (wrap x, border y, linear), `smp_host` from ptxrtBindSamplerRef (mirror,
 * clamp, point, unnormalized, i.e. force_unnormalized_coords). Results are compared with
 * texture_reference.h; txq of the samplers is checked too, and a `.param .texref` kernel
 * parameter receives a texture object. Depth-compare fetches use the samplers' comparison
 * (LessEqual for `smp`, whose initializer has none; Greater bound for `smp_host`), not the
 * texture's (Never).
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
    td.compareFunc = ptxrtCompareNever;
    ptxrtTextureObject_t tex;
    PTXRT_CHECK(ptxrtCreateTextureObject(&tex, &res, &td, NULL));
    PTXRT_CHECK(ptxrtBindTextureRef("img", tex));
    ptxrtTextureDesc sd;
    memset(&sd, 0, sizeof(sd));
    sd.addressMode[0] = ptxrtAddressModeMirror;
    sd.addressMode[1] = ptxrtAddressModeClamp;
    sd.filterMode = ptxrtFilterModePoint;
    sd.normalizedCoords = 0;
    sd.compareFunc = ptxrtCompareGreater;
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
    /* The `d|p` residency predicate (always true: every texel is resident) and `.v2.f16x2`
     * results (channels rounded to f16, {r, g} and {b, a} with the first in the low half). */
    float *res_out = harness_xmalloc(sizeof(float) * 12 * N);
    for (int i = 0; i < N; i++) {
        xy[2 * i] = harness_rng_float(&rng, -1.5f, 2.5f);
        xy[2 * i + 1] = harness_rng_float(&rng, -1.5f, 2.5f);
    }
    void *rargs[] = {&xy, &res_out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("sample_resident"), harness_dim3(1, 1, 1), harness_dim3(N, 1, 1), rargs, 0, NULL));
    for (int i = 0; i < N; i++) {
        const float *o = res_out + 12 * i;
        float want[4], want_g[4];
        ref_sample(&pref, xy + 2 * i, 0, want);
        ref_gather(&pref, xy + 2 * i, 1, want_g);
        uint32_t words[4], want_h[2];
        memcpy(words, o + 4, sizeof words);
        for (int k = 0; k < 2; k++) {
            _Float16 lo = (_Float16)want[2 * k], hi = (_Float16)want[2 * k + 1];
            uint16_t lo_bits, hi_bits;
            memcpy(&lo_bits, &lo, 2);
            memcpy(&hi_bits, &hi, 2);
            want_h[k] = lo_bits | (uint32_t)hi_bits << 16;
        }
        if (memcmp(want, o, sizeof want) != 0)
            harness_fail("tex d|p at (%.9g, %.9g): got (%g %g %g %g), expected (%g %g %g %g)", xy[2 * i], xy[2 * i + 1], o[0], o[1], o[2], o[3], want[0], want[1], want[2], want[3]);
        if (words[0] != 1 || words[3] != 1)
            harness_fail("residency predicate at (%.9g, %.9g): tex %u, tld4 %u, expected 1", xy[2 * i], xy[2 * i + 1], words[0], words[3]);
        if (words[1] != want_h[0] || words[2] != want_h[1])
            harness_fail("tex.v2.f16x2 at (%.9g, %.9g): got %08x %08x, expected %08x %08x", xy[2 * i], xy[2 * i + 1], words[1], words[2], want_h[0], want_h[1]);
        if (memcmp(want_g, o + 8, sizeof want_g) != 0)
            harness_fail("tld4.g d|p at (%.9g, %.9g): got (%g %g %g %g), expected (%g %g %g %g)", xy[2 * i], xy[2 * i + 1], o[8], o[9], o[10], o[11], want_g[0], want_g[1], want_g[2], want_g[3]);
    }
    free(res_out);
    /* The texel offset operand (-8..7 in each dimension): it moves the texel indices. */
    int32_t *ij = harness_xmalloc(sizeof(int32_t) * 2 * N), *off = harness_xmalloc(sizeof(int32_t) * 2 * N);
    float *off_out = harness_xmalloc(sizeof(float) * 16 * N);
    for (int i = 0; i < N; i++) {
        xy[2 * i] = harness_rng_float(&rng, -1.5f, 2.5f);
        xy[2 * i + 1] = harness_rng_float(&rng, -1.5f, 2.5f);
        ij[2 * i] = (int32_t)(harness_rng_u32(&rng) % (W + 6)) - 3;
        ij[2 * i + 1] = (int32_t)(harness_rng_u32(&rng) % (H + 6)) - 3;
        off[2 * i] = (int32_t)(harness_rng_u32(&rng) % 16) - 8;
        off[2 * i + 1] = (int32_t)(harness_rng_u32(&rng) % 16) - 8;
    }
    void *oargs[] = {&xy, &ij, &off, &off_out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("sample_offset"), harness_dim3(1, 1, 1), harness_dim3(N, 1, 1), oargs, 0, NULL));
    ref_texture host_ref = {texels, 2, {W, H, 1}, 0, {ptxrtAddressModeMirror, ptxrtAddressModeClamp, ptxrtAddressModeClamp}, 0, 0, {0, 0, 0, 0}};
    ref_texture int_ref = pref;
    int_ref.linear = 0;
    int_ref.normalized = 0;
    for (int i = 0; i < N; i++) {
        const float *o = off_out + 16 * i;
        int o3[3] = {off[2 * i], off[2 * i + 1], 0};
        float want[4][4];
        ref_sample_offset(&pref, xy + 2 * i, 0, o3, want[0]);
        ref_gather_offset(&pref, xy + 2 * i, 2, o3, want[1]);
        ref_sample_offset(&host_ref, xy + 2 * i, 0, o3, want[2]);
        long idx[3] = {(long)ij[2 * i] + o3[0], (long)ij[2 * i + 1] + o3[1], 0};
        ref_fetch(&int_ref, idx, 0, want[3]);
        static const char *what[4] = {"tex linear", "tld4.b", "tex point (smp_host)", "tex .s32 coordinates"};
        for (int k = 0; k < 4; k++)
            if (memcmp(want[k], o + 4 * k, sizeof want[k]) != 0)
                harness_fail("%s at (%.9g, %.9g) / (%d, %d) offset (%d, %d): got (%g %g %g %g), expected (%g %g %g %g)", what[k], xy[2 * i], xy[2 * i + 1], ij[2 * i], ij[2 * i + 1],
                             o3[0], o3[1], o[4 * k], o[4 * k + 1], o[4 * k + 2], o[4 * k + 3], want[k][0], want[k][1], want[k][2], want[k][3]);
    }
    free(ij);
    free(off);
    free(off_out);

    /* Cubemaps: faces (and cubes) are layers; every lookup clamps to the face's edges and
     * uses normalized face coordinates, whatever the sampler says. */
    enum { C = 4, CUBES = 2 };
    float *cube_texels = harness_xmalloc(sizeof(float) * 4 * C * C * 6 * CUBES);
    harness_fill_float(&rng, cube_texels, 4 * C * C * 6 * CUBES, -8.0f, 8.0f);
    ptxrtArray_t cube_arrays[2];
    ptxrtTextureObject_t cube_tex[2];
    for (int k = 0; k < 2; k++) {
        size_t layers = k ? 6 * CUBES : 6;
        PTXRT_CHECK(ptxrtMalloc3DArray(&cube_arrays[k], &f4, (ptxrtExtent){C, C, layers}, k ? ptxrtArrayCubemap | ptxrtArrayLayered : ptxrtArrayCubemap));
        PTXRT_CHECK(ptxrtMemcpyToArray(cube_arrays[k], 0, 0, cube_texels, sizeof(float) * 4 * C * C * layers));
        res.res.array.array = cube_arrays[k];
        PTXRT_CHECK(ptxrtCreateTextureObject(&cube_tex[k], &res, &td, NULL));
    }
    ptxrtArray_t bad_cube;
    if (ptxrtMalloc3DArray(&bad_cube, &f4, (ptxrtExtent){C, C + 1, 6}, ptxrtArrayCubemap) != ptxrtErrorInvalidValue)
        harness_fail("a cubemap with non-square faces was accepted");
    float *xyz = harness_xmalloc(sizeof(float) * 4 * N);
    float *cube_out = harness_xmalloc(sizeof(float) * 12 * N);
    for (int i = 0; i < N; i++) {
        for (int d = 0; d < 3; d++)
            xyz[4 * i + d] = harness_rng_float(&rng, -2.0f, 2.0f);
        /* Ties between major axes, and the cube index (clamped past the last cube). */
        if (i % 10 == 1)
            xyz[4 * i + 2] = -xyz[4 * i];
        if (i % 10 == 2)
            xyz[4 * i + 1] = xyz[4 * i];
        uint32_t cube = harness_rng_u32(&rng) % (CUBES + 1);
        memcpy(&xyz[4 * i + 3], &cube, 4);
    }
    void *cargs[] = {&cube_tex[0], &cube_tex[1], &xyz, &cube_out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("sample_cube"), harness_dim3(1, 1, 1), harness_dim3(N, 1, 1), cargs, 0, NULL));
    for (int i = 0; i < N; i++) {
        const float *v = xyz + 4 * i, *o = cube_out + 12 * i;
        float st[2], want[3][4];
        int face = ref_cube_face(v[0], v[1], v[2], st);
        uint32_t cube;
        memcpy(&cube, &v[3], 4);
        if (cube >= CUBES)
            cube = CUBES - 1;
        ref_texture face_ref = {cube_texels + 4 * C * C * face, 2, {C, C, 1}, 0, {ptxrtAddressModeClamp, ptxrtAddressModeClamp, ptxrtAddressModeClamp}, 1, 1, {0, 0, 0, 0}};
        ref_sample(&face_ref, st, 0, want[0]);
        ref_gather(&face_ref, st, 3, want[2]);
        face_ref.texels = cube_texels + 4 * C * C * (6 * cube + face);
        face_ref.linear = 0;
        ref_sample(&face_ref, st, 0, want[1]);
        static const char *what[3] = {"tex.cube linear", "tex.acube point", "tld4.a.cube"};
        for (int k = 0; k < 3; k++)
            if (memcmp(want[k], o + 4 * k, sizeof want[k]) != 0)
                harness_fail("%s at (%.9g, %.9g, %.9g) cube %u (face %d): got (%g %g %g %g), expected (%g %g %g %g)", what[k], v[0], v[1], v[2], cube, face, o[4 * k], o[4 * k + 1],
                             o[4 * k + 2], o[4 * k + 3], want[k][0], want[k][1], want[k][2], want[k][3]);
    }
    for (int k = 0; k < 2; k++) {
        PTXRT_CHECK(ptxrtDestroyTextureObject(cube_tex[k]));
        PTXRT_CHECK(ptxrtFreeArray(cube_arrays[k]));
    }
    free(cube_texels);
    free(xyz);
    free(cube_out);

    /* Depth compare: the sampler's comparison of each texel's first channel, then filtered. */
    float *depth = harness_xmalloc(sizeof(float) * N), *depth_out = harness_xmalloc(sizeof(float) * 8 * N);
    float *compared = harness_xmalloc(sizeof(float) * 4 * W * H);
    for (int i = 0; i < N; i++) {
        xy[2 * i] = harness_rng_float(&rng, -1.5f, 2.5f);
        xy[2 * i + 1] = harness_rng_float(&rng, -1.5f, 2.5f);
        /* Ties with texel values half of the time. */
        depth[i] = i % 2 ? texels[4 * (harness_rng_u32(&rng) % (W * H))] : harness_rng_float(&rng, -8.0f, 8.0f);
    }
    void *dargs[] = {&xy, &depth, &depth_out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel("sample_depth"), harness_dim3(1, 1, 1), harness_dim3(N, 1, 1), dargs, 0, NULL));
    for (int i = 0; i < N; i++) {
        float want[2][4];
        ref_texture c = ref_compared(&pref, W * H, ptxrtCompareLessEqual, depth[i], compared);
        ref_sample(&c, xy + 2 * i, 0, want[0]);
        /* smp_host takes the same values as unnormalized coordinates (texel units). */
        c = ref_compared(&host_ref, W * H, ptxrtCompareGreater, depth[i], compared);
        ref_sample(&c, xy + 2 * i, 0, want[1]);
        for (int k = 0; k < 2; k++)
            if (memcmp(want[k], depth_out + 8 * i + 4 * k, sizeof want[k]) != 0)
                harness_fail("depth compare through %s at (%.9g, %.9g) f %.9g: got %g, expected %g", k ? "smp_host" : "smp", xy[2 * i], xy[2 * i + 1], depth[i],
                             depth_out[8 * i + 4 * k], want[k][0]);
    }
    free(depth);
    free(depth_out);
    free(compared);
    PTXRT_CHECK(ptxrtDestroyTextureObject(tex));
    PTXRT_CHECK(ptxrtFreeArray(a));
    free(texels);
    free(xy);
    free(out);
    printf("texture_independent: all checks OK\n");
    return 0;
}
