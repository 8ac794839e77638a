/* warps_host.c: tests/kernels/warps.ptx (NVRTC). Host references follow the ISA text:
 * shfl's source-lane rule with the c operand's clamp and segment mask, vote/ballot,
 * match.any/all, redux, activemask in divergent branches, bar.red, producer/consumer
 * named barriers (bar.arrive + bar.sync with a count), and a non-aligned barrier.sync
 * reached from two instructions. All exact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "shfl_reference.h"

static int check_block_sum(harness_rng *rng, int n, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("block_sum");
    unsigned grid = (unsigned)((n + (int)block - 1) / (int)block);
    int *in = harness_xmalloc((size_t)n * sizeof(int));
    int *out = harness_xmalloc(grid * sizeof(int));
    uint32_t *exp = harness_xmalloc(grid * 4);
    for (int i = 0; i < n; i++) in[i] = (int)harness_rng_u32(rng);
    memset(exp, 0, grid * 4);
    for (int i = 0; i < n; i++) exp[i / (int)block] += (uint32_t)in[i];
    void *args[] = {&in, &out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("block_sum", exp, (uint32_t *)out, grid);
    if (bad) fprintf(stderr, "block_sum n=%d block=%u\n", n, block);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int check_shuffles(harness_rng *rng, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("shuffles");
    int total = (int)(grid * block), n = total - 5;
    int *in = harness_xmalloc((size_t)n * sizeof(int));
    int *out = harness_xmalloc((size_t)total * 6 * sizeof(int));
    uint32_t *exp = harness_xmalloc((size_t)total * 6 * 4);
    for (int i = 0; i < n; i++) in[i] = (int)harness_rng_u32(rng);
    for (int i = 0; i < total; i++) {
        unsigned lane = (unsigned)(i % (int)block) % 32, base = (unsigned)i - lane;
        unsigned tx = (unsigned)(i % (int)block);
#define V(l) ((uint32_t)in[(base + (l)) % (unsigned)n])
        exp[6 * i + 0] = V(shfl_src(3, lane, (tx * 7) % 32, 0x1f));
        exp[6 * i + 1] = V(shfl_src(0, lane, 3, 0));
        exp[6 * i + 2] = V(shfl_src(1, lane, 5, ((32 - 8) << 8) | 0x1f));
        exp[6 * i + 3] = V(shfl_src(2, lane, 6, ((32 - 16) << 8) | 0x1f));
        exp[6 * i + 4] = V(shfl_src(3, lane, 2, ((32 - 4) << 8) | 0x1f));
        exp[6 * i + 5] = V(shfl_src(0, lane, 1, (32 - 16) << 8));
#undef V
    }
    void *args[] = {&in, &out, &n};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("shuffles (6 per thread: idx, up, down w8, xor w16, idx w4, up w16)", exp, (uint32_t *)out, (size_t)total * 6);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int check_votes(harness_rng *rng, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("votes");
    int total = (int)(grid * block);
    int *in = harness_xmalloc((size_t)total * sizeof(int));
    uint32_t *out = harness_xmalloc((size_t)total * 8 * 4), *exp = harness_xmalloc((size_t)total * 8 * 4);
    for (int i = 0; i < total; i++) in[i] = (int)(harness_rng_u32(rng) % 21) - 10 + ((i / 32) % 5 == 0 ? 20 : 0);
    for (int w = 0; w < total / 32; w++) {
        const int *v = in + 32 * w;
        uint32_t ballot = 0, any7 = 0, all = 1, add = 0, max = 0, odd = 0, even_or = 0;
        for (int l = 0; l < 32; l++) {
            if (v[l] > 0) ballot |= 1u << l;
            if (v[l] == 7) any7 = 1;
            if (!(v[l] > -1000)) all = 0;
            add += (uint32_t)v[l];
            if ((uint32_t)v[l] > max) max = (uint32_t)v[l];
            if (v[l] & 1) odd |= 1u << l; else even_or |= (uint32_t)v[l];
        }
        int all_same_parity = odd == 0 || odd == 0xffffffffu;
        for (int l = 0; l < 32; l++) {
            uint32_t *e = exp + 8 * (32 * w + l);
            uint32_t same = 0;
            for (int m = 0; m < 32; m++) if ((v[m] & 3) == (v[l] & 3)) same |= 1u << m;
            e[0] = ballot; e[1] = all; e[2] = any7; e[3] = same;
            e[4] = all_same_parity ? 0xffffffffu : 0; e[5] = (uint32_t)all_same_parity;
            e[6] = add ^ max;
            e[7] = (v[l] & 1) ? odd : even_or;
        }
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("votes (8 per thread: ballot, all, any, match.any, match.all, pred, redux, activemask)", exp, out, (size_t)total * 8);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int check_named_barriers(harness_rng *rng, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("named_barriers");
    int total = (int)(grid * block);
    int *in = harness_xmalloc((size_t)total * sizeof(int));
    uint32_t *out = harness_xmalloc((size_t)total * 4), *exp = harness_xmalloc((size_t)total * 4);
    for (int i = 0; i < total; i++) in[i] = (int)(harness_rng_u32(rng) % 100) - 40;
    for (unsigned b = 0; b < grid; b++) {
        const int *v = in + b * block;
        int count = 0, all = 1, any = 0;
        for (unsigned t = 0; t < block; t++) { count += v[t] > 0; all &= v[t] > -50; any |= v[t] == 3; }
        int tail = count * 1000 + all * 100 + any * 10;
        for (unsigned t = 0; t < block; t++)
            exp[b * block + t] = (uint32_t)(t < block / 2 ? tail : v[t - block / 2] * 2 + tail);
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("named_barriers", exp, out, (size_t)total);
    free(in); free(out); free(exp);
    return bad != 0;
}

static int check_split_barrier(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("split_barrier");
    int total = (int)(grid * block);
    uint32_t *out = harness_xmalloc((size_t)total * 4), *exp = harness_xmalloc((size_t)total * 4);
    for (unsigned b = 0; b < grid; b++) {
        for (unsigned t = 0; t < block; t++) {
            unsigned j = (t + 1) % block;
            uint32_t s = j % 3 == 0 ? j : j * 10;
            exp[b * block + t] = s + (t % 3 == 0 ? 0 : 1);
        }
    }
    void *args[] = {&out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("split_barrier", exp, out, (size_t)total);
    free(out); free(exp);
    return bad != 0;
}

/* partial_warps: redux.add, ballot and redux.max over the lanes that exist (the last
 * warp of a block of `block` threads may be partial), three words per thread. */
static int check_partial_warps(harness_rng *rng, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("partial_warps");
    int total = (int)(grid * block);
    int *in = harness_xmalloc((size_t)total * sizeof(int));
    uint32_t *out = harness_xmalloc((size_t)total * 3 * 4), *exp = harness_xmalloc((size_t)total * 3 * 4);
    for (int i = 0; i < total; i++) in[i] = (int)harness_rng_u32(rng);
    for (unsigned b = 0; b < grid; b++) {
        for (unsigned w0 = 0; w0 < block; w0 += 32) {
            unsigned lanes = block - w0 < 32 ? block - w0 : 32;
            const int *v = in + b * block + w0;
            uint32_t sum = 0, ballot = 0;
            for (unsigned l = 0; l < lanes; l++) {
                uint32_t x = (uint32_t)v[l] * 3u + 1u;
                sum += x;
                if (x & 1) ballot |= 1u << l;
            }
            uint32_t max = 0;
            for (unsigned l = 0; l < lanes; l++) {
                uint32_t x = ((uint32_t)v[l] * 3u + 1u) ^ sum;
                if (x > max) max = x;
            }
            for (unsigned l = 0; l < lanes; l++) {
                uint32_t *e = exp + 3 * ((size_t)b * block + w0 + l);
                e[0] = sum; e[1] = ballot; e[2] = max;
            }
        }
    }
    void *args[] = {&in, &out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("partial_warps (redux.add, ballot, redux.max)", exp, out, (size_t)total * 3);
    if (bad) fprintf(stderr, "partial_warps grid=%u block=%u\n", grid, block);
    free(in); free(out); free(exp);
    return bad != 0;
}

/* selected_warps: the warps whose bit is set in `sel` sum their lanes with shuffles after a
 * barrier, the others wait at the next one; every thread reads its warp's sum (-1 for the
 * others) plus its lane. */
static int check_selected_warps(harness_rng *rng, unsigned grid, unsigned block, uint32_t sel)
{
    const ptxrtKernel *k = harness_find_kernel("selected_warps");
    size_t total = (size_t)grid * block;
    uint32_t *in = harness_xmalloc(total * 4), *out = harness_xmalloc(total * 4), *exp = harness_xmalloc(total * 4);
    for (size_t i = 0; i < total; i++) in[i] = harness_rng_u32(rng);
    for (unsigned b = 0; b < grid; b++)
        for (unsigned w = 0; w < block / 32; w++) {
            uint32_t sum = 0;
            for (unsigned l = 0; l < 32; l++) sum += in[(size_t)b * block + w * 32 + l];
            uint32_t v = (sel >> w) & 1 ? sum : 0xffffffffu;
            for (unsigned l = 0; l < 32; l++) exp[(size_t)b * block + w * 32 + l] = v + l;
        }
    void *args[] = {&in, &out, &sel};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    size_t bad = harness_compare_u32("selected_warps", exp, out, total);
    if (bad) fprintf(stderr, "selected_warps grid=%u block=%u sel=%#x\n", grid, block, sel);
    free(in); free(out); free(exp);
    return bad != 0;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0x3A2Bu);
    int rc = 0, f = 0;
    f += check_block_sum(&rng, 100000, 256);
    f += check_block_sum(&rng, 5000, 96);
    f += check_block_sum(&rng, 77777, 1024);
    f += check_block_sum(&rng, 31, 32);
    rc |= harness_finish("block_sum", 4, f);
    f = check_shuffles(&rng, 3, 64) + check_shuffles(&rng, 40, 256);
    rc |= harness_finish("shuffles", 2, f);
    f = check_partial_warps(&rng, 7, 48) + check_partial_warps(&rng, 5, 100) + check_partial_warps(&rng, 3, 33) + check_partial_warps(&rng, 4, 64);
    rc |= harness_finish("partial_warps", 4, f);
    /* Warp 0 alone, warps with gaps between them, the last warp alone, all, none. */
    f = check_selected_warps(&rng, 5, 256, 0x1) + check_selected_warps(&rng, 3, 256, 0x5) + check_selected_warps(&rng, 4, 128, 0xa) +
        check_selected_warps(&rng, 2, 1024, 0x80000001u) + check_selected_warps(&rng, 3, 1024, 0x80000000u) +
        check_selected_warps(&rng, 2, 192, 0xffffffffu) + check_selected_warps(&rng, 2, 64, 0);
    rc |= harness_finish("selected_warps", 7, f);
    f = check_votes(&rng, 5, 128) + check_votes(&rng, 2, 1024);
    rc |= harness_finish("votes", 2, f);
    f = check_named_barriers(&rng, 3, 64) + check_named_barriers(&rng, 50, 256) + check_named_barriers(&rng, 4, 1024);
    rc |= harness_finish("named_barriers", 3, f);
    f = check_split_barrier(2, 96) + check_split_barrier(30, 1000);
    rc |= harness_finish("split_barrier", 2, f);
    return rc;
}
