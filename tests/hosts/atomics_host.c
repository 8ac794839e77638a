/* atomics_host.c: runs the kernels of tests/kernels/atomics.ptx (NVRTC) and checks them
 * against host references. Blocks run on several cores, so these results are only exact
 * if global atomics are real atomics; shared-memory atomics are checked inside a block.
 *
 *   histogram(in, bins, n, nbins)            shared atom.add + global atom.add, dynamic shared
 *   mixed(in, cells, ucells, wide, fsum, dsum, inc_old, fsub, n)
 *                                            min/max/and/or/xor/inc/dec/add on s32,u32,u64,f32,f64
 *   locked_sum(lock, total, in)              a spin lock from atom.cas/atom.exch + membar.gl
 *   shared_cas(out)                          shared atom.cas/atom.add/atom.exch
 *   reductions(in, usum, smax, fsum, wrap, n) red.global/red.shared forms
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_histogram(harness_rng *rng, int n, int nbins, unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("histogram");
    unsigned *in = harness_xmalloc((size_t)n * sizeof(unsigned));
    unsigned *bins = harness_xmalloc((size_t)nbins * sizeof(unsigned));
    unsigned *expect = harness_xmalloc((size_t)nbins * sizeof(unsigned));
    for (int i = 0; i < n; i++) in[i] = harness_rng_u32(rng);
    memset(bins, 0, (size_t)nbins * sizeof(unsigned));
    memset(expect, 0, (size_t)nbins * sizeof(unsigned));
    for (int i = 0; i < n; i++) expect[in[i] % (unsigned)nbins]++;
    void *args[] = {&in, &bins, &n, &nbins};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args,
                                  (size_t)nbins * sizeof(unsigned), NULL));
    size_t bad = harness_compare_u32("histogram bins", expect, bins, (size_t)nbins);
    if (bad) fprintf(stderr, "histogram n=%d nbins=%d grid=%u block=%u\n", n, nbins, grid, block);
    free(in);
    free(bins);
    free(expect);
    return bad != 0;
}

static int check_mixed(harness_rng *rng, int n, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("mixed");
    int *in = harness_xmalloc((size_t)n * sizeof(int));
    unsigned *inc_old = harness_xmalloc((size_t)n * sizeof(unsigned));
    for (int i = 0; i < n; i++) in[i] = (int)(harness_rng_u32(rng) % (1u << 21)) - (1 << 20);
    int cells[5] = {INT_MAX, INT_MIN, -1, 0, 0};
    unsigned ucells[4] = {UINT_MAX, 0, 0, 0};
    unsigned long long wide[2] = {0, 0};
    float fsum = 0.0f;
    double dsum = 0.0;
    float fsub[2] = {0.0f, 1.5e-38f};
    int *pcells = cells;
    unsigned *pucells = ucells;
    unsigned long long *pwide = wide;
    float *pfsum = &fsum, *pfsub = fsub;
    double *pdsum = &dsum;
    void *args[] = {&in, &pcells, &pucells, &pwide, &pfsum, &pdsum, &inc_old, &pfsub, &n};
    unsigned grid = (unsigned)((n + (int)block - 1) / (int)block);
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));

    int emin = INT_MAX, emax = INT_MIN, eand = -1, eor = 0, exor = 0;
    unsigned eumin = UINT_MAX, eumax = 0, dec = 0;
    unsigned long long esum = 0, ewmax = 0;
    double edsum = 0.0;
    for (int i = 0; i < n; i++) {
        int v = in[i];
        emin = v < emin ? v : emin;
        emax = v > emax ? v : emax;
        eand &= v | 0x10000;
        eor |= v & 0x7fff;
        exor ^= v;
        eumin = (unsigned)v < eumin ? (unsigned)v : eumin;
        eumax = (unsigned)v > eumax ? (unsigned)v : eumax;
        dec = (dec == 0 || dec > 77u) ? 77u : dec - 1;
        esum += (unsigned long long)(long long)v;
        unsigned long long w = (unsigned long long)(unsigned)v << 20;
        ewmax = w > ewmax ? w : ewmax;
        edsum += (double)v * 0.5;
    }
    int bad = 0;
#define EXPECT(cond, ...) do { if (!(cond)) { fprintf(stderr, "mixed n=%d block=%u: ", n, block); fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); bad = 1; } } while (0)
    EXPECT(cells[0] == emin, "atom.min.s32 %d, expected %d", cells[0], emin);
    EXPECT(cells[1] == emax, "atom.max.s32 %d, expected %d", cells[1], emax);
    EXPECT(cells[2] == eand, "atom.and.b32 %#x, expected %#x", cells[2], eand);
    EXPECT(cells[3] == eor, "atom.or.b32 %#x, expected %#x", cells[3], eor);
    EXPECT(cells[4] == exor, "atom.xor.b32 %#x, expected %#x", cells[4], exor);
    EXPECT(ucells[0] == eumin, "atom.min.u32 %u, expected %u", ucells[0], eumin);
    EXPECT(ucells[1] == eumax, "atom.max.u32 %u, expected %u", ucells[1], eumax);
    EXPECT(ucells[2] == (unsigned)n % 1001u, "atom.inc.u32 counter %u, expected %u", ucells[2], (unsigned)n % 1001u);
    EXPECT(ucells[3] == dec, "atom.dec.u32 counter %u, expected %u", ucells[3], dec);
    EXPECT(wide[0] == esum, "atom.add.u64 %llu, expected %llu", wide[0], esum);
    EXPECT(wide[1] == ewmax, "atom.max.u64 %llu, expected %llu", wide[1], ewmax);
    EXPECT(fsum == (float)n, "atom.add.f32 %.9g, expected %d", fsum, n);
    EXPECT(dsum == edsum, "atom.add.f64 %.17g, expected %.17g", dsum, edsum);
    uint32_t bits0, bits1, want1;
    float f15 = 1.5e-38f;
    memcpy(&bits0, &fsub[0], 4);
    memcpy(&bits1, &fsub[1], 4);
    memcpy(&want1, &f15, 4);
    EXPECT(bits0 == 0, "atom.add.f32 of subnormals on global memory gave %#x, expected +0 (flushed)", bits0);
    EXPECT(bits1 == want1, "atom.add.f32 of a subnormal input gave %#x, expected %#x (input flushed)", bits1, want1);
    /* The old values returned by the wrapping increment: each of 0..1000 appears
     * floor or ceil of n/1001 times, exactly as many as in a sequential run. */
    unsigned counts[1001] = {0};
    for (int i = 0; i < n; i++) {
        if (inc_old[i] > 1000u) { EXPECT(0, "atom.inc.u32 returned %u > 1000", inc_old[i]); break; }
        counts[inc_old[i]]++;
    }
    for (unsigned v = 0; v <= 1000u; v++) {
        unsigned want = (unsigned)n / 1001u + (v < (unsigned)n % 1001u ? 1u : 0u);
        if (counts[v] != want) { EXPECT(0, "atom.inc.u32 returned %u %u times, expected %u", v, counts[v], want); break; }
    }
#undef EXPECT
    free(in);
    free(inc_old);
    return bad;
}

static int check_locked_sum(harness_rng *rng, unsigned grid)
{
    const ptxrtKernel *k = harness_find_kernel("locked_sum");
    int *in = harness_xmalloc(grid * sizeof(int));
    long long expect = 0, total = 0;
    int lock = 0;
    for (unsigned b = 0; b < grid; b++) {
        in[b] = (int)(harness_rng_u32(rng) % 2001u) - 1000;
        expect += in[b];
    }
    int *plock = &lock;
    long long *ptotal = &total;
    void *args[] = {&plock, &ptotal, &in};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(32, 1, 1), args, 0, NULL));
    int bad = total != expect || lock != 0;
    if (bad) fprintf(stderr, "locked_sum grid=%u: total %lld (expected %lld), lock %d\n", grid, total, expect, lock);
    free(in);
    return bad;
}

static int check_shared_cas(unsigned grid, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("shared_cas");
    size_t total = (size_t)grid * block + grid;
    int *out = harness_xmalloc(total * sizeof(int));
    void *args[] = {&out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    int bad = 0;
    char *seen = harness_xmalloc(block);
    for (unsigned b = 0; b < grid && !bad; b++) {
        int winners = 0, winner = -1;
        memset(seen, 0, block);
        for (unsigned t = 0; t < block; t++) {
            int v = out[b * block + t];
            if (v & 1) { winners++; winner = (int)t; }
            unsigned ticket = (unsigned)v >> 1;
            if (ticket >= block || seen[ticket]) { bad = 1; fprintf(stderr, "shared_cas block %u: ticket %u repeated or out of range\n", b, ticket); break; }
            seen[ticket] = 1;
        }
        if (winners != 1) { bad = 1; fprintf(stderr, "shared_cas block %u: %d threads won the slot\n", b, winners); }
        if (out[(size_t)grid * block + b] != winner) { bad = 1; fprintf(stderr, "shared_cas block %u: exch returned %d, winner %d\n", b, out[(size_t)grid * block + b], winner); }
    }
    free(seen);
    free(out);
    return bad;
}

static int check_reductions(harness_rng *rng, int n, unsigned block)
{
    const ptxrtKernel *k = harness_find_kernel("reductions");
    int *in = harness_xmalloc((size_t)n * sizeof(int));
    unsigned usum = 0, wrap = 0, eusum = 0;
    int smax = INT_MIN, emax = INT_MIN;
    float fsum = 0.0f;
    for (int i = 0; i < n; i++) {
        in[i] = (int)harness_rng_u32(rng);
        eusum += (unsigned)in[i];
        emax = in[i] > emax ? in[i] : emax;
    }
    unsigned *pusum = &usum, *pwrap = &wrap;
    int *psmax = &smax;
    float *pfsum = &fsum;
    void *args[] = {&in, &pusum, &psmax, &pfsum, &pwrap, &n};
    unsigned grid = (unsigned)((n + (int)block - 1) / (int)block);
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL));
    int bad = usum != eusum || smax != emax || fsum != 0.25f * (float)n || wrap != (unsigned)n % 1000u;
    if (bad) {
        fprintf(stderr, "reductions n=%d block=%u: usum %u/%u smax %d/%d fsum %g/%g wrap %u/%u\n", n, block,
                usum, eusum, smax, emax, fsum, 0.25 * n, wrap, (unsigned)n % 1000u);
    }
    free(in);
    return bad;
}

int main(void)
{
    harness_rng rng;
    harness_rng_seed(&rng, 0xA70u);
    int failures = 0, shapes = 0;

    static const struct { int n, nbins; unsigned grid, block; } hist[] = {
        {100000, 256, 64, 256}, {1 << 20, 1000, 300, 128}, {777, 3, 7, 33}, {50000, 4096, 40, 1024},
    };
    for (size_t i = 0; i < sizeof hist / sizeof hist[0]; i++, shapes++)
        failures += check_histogram(&rng, hist[i].n, hist[i].nbins, hist[i].grid, hist[i].block);
    int hist_failures = failures;
    int rc = harness_finish("histogram", shapes, hist_failures);

    static const struct { int n; unsigned block; } mix[] = {{1, 32}, {5000, 64}, {200003, 256}, {65536, 1024}};
    int mf = 0;
    for (size_t i = 0; i < sizeof mix / sizeof mix[0]; i++) mf += check_mixed(&rng, mix[i].n, mix[i].block);
    rc |= harness_finish("mixed", (int)(sizeof mix / sizeof mix[0]), mf);

    static const unsigned lock_grids[] = {1, 100, 5000};
    int lf = 0;
    for (size_t i = 0; i < 3; i++) lf += check_locked_sum(&rng, lock_grids[i]);
    rc |= harness_finish("locked_sum", 3, lf);

    static const struct { unsigned grid, block; } cas[] = {{1, 1}, {50, 96}, {8, 1024}, {300, 33}};
    int cf = 0;
    for (size_t i = 0; i < 4; i++) cf += check_shared_cas(cas[i].grid, cas[i].block);
    rc |= harness_finish("shared_cas", 4, cf);

    static const struct { int n; unsigned block; } red[] = {{1000, 128}, {300001, 256}, {4097, 1024}};
    int rf = 0;
    for (size_t i = 0; i < 3; i++) rf += check_reductions(&rng, red[i].n, red[i].block);
    rc |= harness_finish("reductions", 3, rf);
    return rc;
}
