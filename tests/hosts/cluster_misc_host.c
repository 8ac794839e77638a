/* cluster_misc_host.c: tests/kernels/cluster_misc.ptx (hand-written, PTX 8.6).
 * elect_leader: elect.sync picks the lowest lane of the membermask among the lanes that
 * did not exit, per warp and per half warp. cluster_map: mapa/getctarank on one-block
 * clusters (rank 0 is the identity; another rank fails the launch naming mapa).
 * multimem_ops: multimem.red/ld_reduce/st on a single replica. multimem_fp8: ld_reduce
 * and st of e5m2/e4m3 vectors on a single replica move their bytes unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_elect(const ptxrtKernel *k, harness_rng *rng, unsigned grid, unsigned block)
{
    unsigned n = grid * block;
    uint32_t *skip = harness_xmalloc(n * 4), *out = harness_xmalloc(3 * n * 4), *exp = harness_xmalloc(3 * n * 4);
    for (unsigned i = 0; i < n; i++) skip[i] = harness_rng_u32(rng) % 4u == 0;
    for (unsigned i = 0; i < 3 * n; i++) out[i] = exp[i] = 0xdeadbeefu;
    for (unsigned i = 0; i < n; i++) {
        if (skip[i]) continue;
        unsigned tid = i % block, lane = tid % 32, warp0 = i - lane;
        unsigned half0 = lane < 16 ? 0 : 16, full = 32, half = 32;
        /* Lanes past the end of the block do not exist; skipped ones exited. */
        for (unsigned l = 0; l < 32 && tid - lane + l < block; l++)
            if (!skip[warp0 + l]) { if (full == 32) full = l; if (l >= half0 && l < half0 + 16 && half == 32) half = l; }
        exp[3 * i] = lane == full;
        exp[3 * i + 1] = half;
        exp[3 * i + 2] = lane == half;
    }
    void *args[] = {&skip, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    int bad = harness_compare_u32("elect_leader (warp leader, half-warp leader lane, half-warp leader)", exp, out, 3 * (size_t)n) != 0;
    free(skip); free(out); free(exp);
    return bad;
}

static int check_cluster_map(const ptxrtKernel *k, unsigned grid, unsigned block)
{
    unsigned n = grid * block, rank = 0;
    uint32_t *out = harness_xmalloc(4 * n * 4), *exp = harness_xmalloc(4 * n * 4);
    for (unsigned i = 0; i < n; i++) {
        exp[4 * i] = i;     /* stored through the mapped address, read back directly */
        exp[4 * i + 1] = 1; /* mapa.shared::cluster to rank 0 is the identity */
        exp[4 * i + 2] = 0; /* getctarank: the only CTA of the cluster */
        exp[4 * i + 3] = 0;
    }
    void *args[] = {&out, &rank};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    int bad = harness_compare_u32("cluster_map (value, identity, rank, generic rank)", exp, out, 4 * (size_t)n) != 0;
    rank = 1;
    ptxrtError_t err = ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL);
    const char *msg = ptxrtGetLastErrorMessage();
    if (err != ptxrtErrorLaunchFailure || msg == NULL || strstr(msg, "mapa") == NULL) {
        fprintf(stderr, "FAIL: cluster_map to rank 1: error %d (%s)\n", (int)err, msg ? msg : "no message");
        bad = 1;
    }
    free(out); free(exp);
    return bad;
}

/* The f16 bits of a positive integer that f16 represents exactly (below 2048). */
static uint16_t f16_of_int(unsigned v)
{
    unsigned e = 0;
    while ((v >> (e + 1)) != 0) e++;
    return (uint16_t)(((e + 15) << 10) | ((v << (10 - e)) & 0x3ffu));
}

static uint32_t bits_of_f32(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* A random 16-bit float pattern that is not infinite or NaN (exponent field `mask`). */
static uint32_t finite16(harness_rng *rng, uint32_t mask)
{
    uint32_t h;
    do h = harness_rng_u32(rng) & 0xffffu; while ((h & mask) == mask);
    return h;
}

static int check_multimem(const ptxrtKernel *k, harness_rng *rng, unsigned grid, unsigned block)
{
    unsigned n = grid * block;
    uint8_t data[128];
    memset(data, 0, sizeof data);
    int64_t max0 = -5000;
    memcpy(data + 8, &max0, 8);
    uint32_t *in = harness_xmalloc(4 * n * 4), *out = harness_xmalloc(4 * n * 4);
    uint32_t *st = harness_xmalloc(4 * n * 4), *st_exp = harness_xmalloc(4 * n * 4);
    for (unsigned i = 0; i < n; i++) {
        in[4 * i] = harness_rng_u32(rng);
        in[4 * i + 1] = finite16(rng, 0x7c00u) | finite16(rng, 0x7c00u) << 16;
        in[4 * i + 2] = finite16(rng, 0x7c00u) | finite16(rng, 0x7c00u) << 16;
        in[4 * i + 3] = finite16(rng, 0x7f80u) | finite16(rng, 0x7f80u) << 16;
        for (unsigned j = 0; j < 4; j++) st_exp[4 * i + j] = bits_of_f32((float)(i * (j + 1)));
    }
    void *dp = data;
    void *args[] = {&dp, &in, &out, &st};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    int bad = 0;
    uint32_t counter, bits, xor_all = 0;
    int64_t max;
    float s0, s1;
    uint16_t p0, p1;
    for (unsigned i = 0; i < n; i++) xor_all ^= i;
    memcpy(&counter, data, 4);
    memcpy(&bits, data + 4, 4);
    memcpy(&max, data + 8, 8);
    memcpy(&s0, data + 16, 4);
    memcpy(&s1, data + 20, 4);
    memcpy(&p0, data + 64, 2);
    memcpy(&p1, data + 66, 2);
    if (counter != n || bits != xor_all || max != (int64_t)n - 1 - 1000 || s0 != (float)n || s1 != 0.5f * (float)n ||
        p0 != f16_of_int(n) || p1 != f16_of_int(2 * n)) {
        fprintf(stderr, "FAIL: multimem.red: counter %u (%u), xor %#x (%#x), max %lld (%lld), sums %g %g (%g %g), f16x2 %#x %#x (%#x %#x)\n",
                counter, n, bits, xor_all, (long long)max, (long long)n - 1 - 1000, s0, s1, (double)n, 0.5 * n,
                p0, p1, f16_of_int(n), f16_of_int(2 * n));
        bad = 1;
    }
    /* One replica: each reduction is over the one value. */
    bad |= harness_compare_u32("multimem.ld_reduce (add.u32, min.v2.f16x2, add.acc::f32.bf16x2)", in, out, 4 * (size_t)n) != 0;
    bad |= harness_compare_u32("multimem.st.v4.f32", st_exp, st, 4 * (size_t)n) != 0;
    free(in); free(out); free(st); free(st_exp);
    return bad;
}

/* A random 8-bit float pattern that is not infinite or NaN: e5m2 (exponent field 0x7c all
 * ones) or e4m3 (only S.1111.111 is NaN; it has no infinities). */
static uint8_t finite_e5m2(harness_rng *rng)
{
    uint8_t b;
    do b = (uint8_t)harness_rng_u32(rng); while ((b & 0x7cu) == 0x7cu);
    return b;
}

static uint8_t finite_e4m3(harness_rng *rng)
{
    uint8_t b;
    do b = (uint8_t)harness_rng_u32(rng); while ((b & 0x7fu) == 0x7fu);
    return b;
}

static int check_multimem_fp8(const ptxrtKernel *k, harness_rng *rng, unsigned grid, unsigned block)
{
    unsigned n = grid * block;
    uint8_t *in = harness_xmalloc(48 * (size_t)n), *out = harness_xmalloc(48 * (size_t)n);
    for (unsigned i = 0; i < 48 * n; i++) {
        /* The kernel's layout: e5m2 at bytes 0-3, 8-11 and 32-47 of each thread's 48. */
        unsigned at = i % 48;
        int e5m2 = at < 4 || (at >= 8 && at < 12) || at >= 32;
        in[i] = e5m2 ? finite_e5m2(rng) : finite_e4m3(rng);
    }
    memset(out, 0xa5, 48 * (size_t)n);
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    /* One replica: each reduction is over the one value, whatever its accumulation precision. */
    uint32_t *expw = harness_xmalloc(48 * (size_t)n), *outw = harness_xmalloc(48 * (size_t)n);
    memcpy(expw, in, 48 * (size_t)n);
    memcpy(outw, out, 48 * (size_t)n);
    int bad = harness_compare_u32("multimem.ld_reduce/st on e5m2/e4m3 vectors (bytes, 4 per word)", expw, outw, 12 * (size_t)n) != 0;
    free(in); free(out); free(expw); free(outw);
    return bad;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0xE1EC7u);
    static const unsigned blocks[] = {32, 96, 50};
    int failures = 0;
    const ptxrtKernel *elect = harness_find_kernel("elect_leader");
    for (int s = 0; s < 3; s++) failures += check_elect(elect, &rng, 2, blocks[s]);
    int status = harness_finish("elect_leader", 3, failures);
    const ptxrtKernel *map = harness_find_kernel("cluster_map");
    failures = check_cluster_map(map, 2, 64) + check_cluster_map(map, 3, 256);
    status |= harness_finish("cluster_map", 2, failures);
    const ptxrtKernel *mm = harness_find_kernel("multimem_ops");
    failures = check_multimem(mm, &rng, 2, 32) + check_multimem(mm, &rng, 2, 128);
    status |= harness_finish("multimem_ops", 2, failures);
    const ptxrtKernel *fp8 = harness_find_kernel("multimem_fp8");
    failures = check_multimem_fp8(fp8, &rng, 2, 32) + check_multimem_fp8(fp8, &rng, 3, 96);
    status |= harness_finish("multimem_fp8", 2, failures);
    return status;
}
