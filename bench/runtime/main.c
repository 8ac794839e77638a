/* bench/runtime: each kernel of kernels.cu as translated by ptx2llvm (run by ptxrt) and as
 * its native C/OpenMP twin (native.c), timed in one process on the same data at several
 * worker counts; prints the medians, their ratio, geometric means and the scaling.
 *
 * Usage: bench [--workers 1,2,8] [--budget SECONDS] [--min-runs N] [--max-runs N]
 *              [--scaling FROM,TO] [--scale N] [--list] [KERNEL...]
 *
 * One place per kernel: its state, setup (inputs for both sides), one run of each side,
 * the comparison of the two results and teardown, listed in the table `benches` below. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "native.h"
#include "ptxrt.h"

/* ---- options ------------------------------------------------------------------------ */

#define MAX_WORKER_COUNTS 16
#define MAX_RUNS_LIMIT 1000

static struct {
    int workers[MAX_WORKER_COUNTS], nworkers;
    double budget;     /* seconds of measuring per kernel and worker count */
    int min_runs, max_runs;
    int scale_from, scale_to; /* the scaling column: time at scale_to / time at scale_from workers */
    int scale;         /* multiplies each problem's main dimension */
} opt = {{1, 2, 8}, 3, 10.0, 5, 21, 2, 8, 1};

/* ---- helpers: allocation, data, launches, comparison ---------------------------------- */

static void *xalloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) { fprintf(stderr, "out of memory (%zu bytes)\n", bytes); exit(1); }
    return p;
}

static uint32_t rng_state = 12345;
static uint32_t rng(void) /* xorshift32: the same inputs in every run of the bench */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}
static float rng_unit(void) { return (float)(rng() >> 8) * (1.0f / 16777216.0f); } /* [0, 1) */

static const ptxrtKernel *kernel(const char *name)
{
    const ptxrtKernel *k = ptxrtFindKernel(name);
    if (!k) { fprintf(stderr, "kernel %s missing\n", name); exit(1); }
    return k;
}

static void launch(const char *name, ptxrtDim3 grid, ptxrtDim3 block, void **args, size_t shared)
{
    ptxrtError_t e = ptxrtLaunchKernel(kernel(name), grid, block, args, shared, NULL);
    if (e != ptxrtSuccess) {
        printf("\n");
        fflush(stdout);
        fprintf(stderr, "%s: launch failed: %s: %s\n", name, ptxrtGetErrorName(e), ptxrtGetLastErrorMessage());
        exit(1);
    }
}

static ptxrtDim3 dim(unsigned x, unsigned y) { return (ptxrtDim3){x, y, 1}; }

/* 0 if the n values are bit-identical, else reports the first difference. */
static int same_bytes(const char *what, const void *a, const void *b, size_t n, size_t elem)
{
    if (memcmp(a, b, n * elem) == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * elem, (const char *)b + i * elem, elem) != 0) {
            fprintf(stderr, "%s: results differ at element %zu\n", what, i);
            break;
        }
    return 1;
}

/* 0 if |a - b| <= abs_tol + rel_tol * |b| everywhere (b is the native result). */
static int close_f32(const char *what, const float *a, const float *b, size_t n, float rel_tol, float abs_tol)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(a[i] - b[i]) <= abs_tol + rel_tol * fabsf(b[i]))) {
            fprintf(stderr, "%s: results differ at element %zu: ptx2llvm %.9g, OpenMP %.9g\n", what, i, a[i], b[i]);
            return 1;
        }
    return 0;
}

static float max_abs(const float *v, size_t n)
{
    float m = 0.0f;
    for (size_t i = 0; i < n; i++) m = fmaxf(m, fabsf(v[i]));
    return m;
}

/* ---- the kernels: one section each ------------------------------------------------------ */

/* axpy and axpy_grid_stride: y = a * x + y on 16M floats (both update y in place; each side
 * has its own y and runs as often as the other, so they stay equal). */
static struct { int n; float a; float *x, *y, *y2; } ax;
static void axpy_setup(void)
{
    ax.n = (1 << 24) * opt.scale;
    ax.a = 1.5f;
    ax.x = xalloc((size_t)ax.n * 4); ax.y = xalloc((size_t)ax.n * 4); ax.y2 = xalloc((size_t)ax.n * 4);
    for (int i = 0; i < ax.n; i++) { ax.x[i] = (float)(i % 1000) * 0.001f; ax.y[i] = ax.y2[i] = 1.0f; }
}
static void axpy_ptx(void)
{
    void *args[] = {&ax.n, &ax.a, &ax.x, &ax.y};
    launch("axpy", dim((unsigned)(ax.n + 255) / 256, 1), dim(256, 1), args, 0);
}
static void axpy_gs_ptx(void) /* a fixed grid of 1024 blocks of 256 threads */
{
    void *args[] = {&ax.n, &ax.a, &ax.x, &ax.y};
    launch("axpy_grid_stride", dim(1024, 1), dim(256, 1), args, 0);
}
static void axpy_nat(void) { axpy_native(ax.n, ax.a, ax.x, ax.y2); }
static int axpy_verify(void) { return same_bytes("axpy", ax.y, ax.y2, (size_t)ax.n, 4); }
static void axpy_teardown(void) { free(ax.x); free(ax.y); free(ax.y2); }

/* stencil: 5-point stencil on a 4096 x 4096 grid, 16 x 16 blocks. */
static struct { int w, h; float *in, *o1, *o2; } st;
static void stencil_setup(void)
{
    st.w = 4096; st.h = 4096 * opt.scale;
    size_t n = (size_t)st.w * st.h;
    st.in = xalloc(n * 4); st.o1 = xalloc(n * 4); st.o2 = xalloc(n * 4);
    for (size_t i = 0; i < n; i++) st.in[i] = (float)(i % 777) * 0.01f;
    memset(st.o1, 0, n * 4); memset(st.o2, 0, n * 4);
}
static void stencil_ptx(void)
{
    void *args[] = {&st.w, &st.h, &st.in, &st.o1};
    launch("stencil", dim((unsigned)(st.w + 15) / 16, (unsigned)(st.h + 15) / 16), dim(16, 16), args, 0);
}
static void stencil_nat(void) { stencil_native(st.w, st.h, st.in, st.o2); }
static int stencil_verify(void) { return same_bytes("stencil", st.o1, st.o2, (size_t)st.w * st.h, 4); }
static void stencil_teardown(void) { free(st.in); free(st.o1); free(st.o2); }

/* Sums of 16M floats: block_sum (barrier tree, 1024 partial sums added on the host) and
 * reduce_shfl (warp shuffles, one atomicAdd per block), 1024 blocks of 256 threads. */
enum { SUM_BLOCKS = 1024 };
static struct { int n; float *in, *partial, *total, s_ptx, s_nat; } sm;
static void sum_setup(void)
{
    sm.n = (1 << 24) * opt.scale;
    sm.in = xalloc((size_t)sm.n * 4); sm.partial = xalloc(SUM_BLOCKS * 4); sm.total = xalloc(4);
    for (int i = 0; i < sm.n; i++) sm.in[i] = rng_unit();
}
static void block_sum_ptx(void)
{
    void *args[] = {&sm.n, &sm.in, &sm.partial};
    launch("block_sum", dim(SUM_BLOCKS, 1), dim(256, 1), args, 0);
    float s = 0.0f;
    for (int b = 0; b < SUM_BLOCKS; b++) s += sm.partial[b];
    sm.s_ptx = s;
}
static void reduce_shfl_ptx(void)
{
    *sm.total = 0.0f;
    void *args[] = {&sm.n, &sm.in, &sm.total};
    launch("reduce_shfl", dim(SUM_BLOCKS, 1), dim(256, 1), args, 0);
    sm.s_ptx = *sm.total;
}
static void sum_nat(void) { sm.s_nat = sum_native(sm.n, sm.in); }
static int sum_verify(void) { return close_f32("sum", &sm.s_ptx, &sm.s_nat, 1, 1e-4f, 0.0f); }
static void sum_teardown(void) { free(sm.in); free(sm.partial); free(sm.total); }

/* softmax_rows: 4096 rows of 1024 floats, 8 rows (warps) per block of 256 threads. */
static struct { int rows, cols; float *in, *o1, *o2; } sx;
static void softmax_setup(void)
{
    sx.rows = 4096 * opt.scale; sx.cols = 1024;
    size_t n = (size_t)sx.rows * sx.cols;
    sx.in = xalloc(n * 4); sx.o1 = xalloc(n * 4); sx.o2 = xalloc(n * 4);
    for (size_t i = 0; i < n; i++) sx.in[i] = rng_unit() * 20.0f - 10.0f;
}
static void softmax_ptx(void)
{
    void *args[] = {&sx.rows, &sx.cols, &sx.in, &sx.o1};
    launch("softmax_rows", dim((unsigned)(sx.rows + 7) / 8, 1), dim(256, 1), args, 0);
}
static void softmax_nat(void) { softmax_native(sx.rows, sx.cols, sx.in, sx.o2); }
static int softmax_verify(void) /* expf and the order of the sums differ */
{
    return close_f32("softmax_rows", sx.o1, sx.o2, (size_t)sx.rows * sx.cols, 1e-5f, 1e-12f);
}
static void softmax_teardown(void) { free(sx.in); free(sx.o1); free(sx.o2); }

/* scan_block: inclusive scans of the 512-integer chunks of 8M integers, 512 threads. */
enum { SCAN_BLOCK = 512 };
static struct { int n; int *in, *o1, *o2; } sc;
static void scan_setup(void)
{
    sc.n = (1 << 23) * opt.scale;
    sc.in = xalloc((size_t)sc.n * 4); sc.o1 = xalloc((size_t)sc.n * 4); sc.o2 = xalloc((size_t)sc.n * 4);
    for (int i = 0; i < sc.n; i++) sc.in[i] = (int)(rng() % 201) - 100;
}
static void scan_ptx(void)
{
    void *args[] = {&sc.n, &sc.in, &sc.o1};
    launch("scan_block", dim((unsigned)(sc.n + SCAN_BLOCK - 1) / SCAN_BLOCK, 1), dim(SCAN_BLOCK, 1), args, 0);
}
static void scan_nat(void) { scan_chunks_native(sc.n, SCAN_BLOCK, sc.in, sc.o2); }
static int scan_verify(void) { return same_bytes("scan_block", sc.o1, sc.o2, (size_t)sc.n, 4); }
static void scan_teardown(void) { free(sc.in); free(sc.o1); free(sc.o2); }

/* histogram256: 32M random bytes, 256 blocks of 256 threads (grid-stride loop). */
static struct { int n; unsigned char *data; unsigned int *b1, *b2; } hg;
static void histogram_setup(void)
{
    hg.n = (1 << 25) * opt.scale;
    hg.data = xalloc((size_t)hg.n); hg.b1 = xalloc(256 * 4); hg.b2 = xalloc(256 * 4);
    for (int i = 0; i < hg.n; i++) hg.data[i] = (unsigned char)(rng() >> 24);
}
static void histogram_ptx(void)
{
    memset(hg.b1, 0, 256 * 4);
    void *args[] = {&hg.n, &hg.data, &hg.b1};
    launch("histogram256", dim(256, 1), dim(256, 1), args, 0);
}
static void histogram_nat(void) { histogram256_native(hg.n, hg.data, hg.b2); }
static int histogram_verify(void) { return same_bytes("histogram256", hg.b1, hg.b2, 256, 4); }
static void histogram_teardown(void) { free(hg.data); free(hg.b1); free(hg.b2); }

/* nbody: accelerations of 4096 bodies (float4 x, y, z, mass), blocks of 256 bodies, tiles of
 * 256 bodies in dynamic shared memory. */
enum { NBODY_BLOCK = 256 };
static struct { int n; float eps2; float *pos, *a1, *a2; } nb;
static void nbody_setup(void)
{
    nb.n = 4096 * opt.scale;
    nb.eps2 = 0.01f;
    size_t n4 = (size_t)nb.n * 4;
    nb.pos = xalloc(n4 * 4); nb.a1 = xalloc(n4 * 4); nb.a2 = xalloc(n4 * 4);
    for (int i = 0; i < nb.n; i++) {
        nb.pos[4 * i] = rng_unit(); nb.pos[4 * i + 1] = rng_unit(); nb.pos[4 * i + 2] = rng_unit();
        nb.pos[4 * i + 3] = 0.5f + 0.5f * rng_unit();
    }
}
static void nbody_ptx(void)
{
    void *args[] = {&nb.n, &nb.eps2, &nb.pos, &nb.a1};
    launch("nbody", dim((unsigned)nb.n / NBODY_BLOCK, 1), dim(NBODY_BLOCK, 1), args, NBODY_BLOCK * 16);
}
static void nbody_nat(void) { nbody_native(nb.n, nb.eps2, nb.pos, nb.a2); }
static int nbody_verify(void) /* rsqrtf vs 1/sqrtf, and sums with cancellation */
{
    size_t n4 = (size_t)nb.n * 4;
    return close_f32("nbody", nb.a1, nb.a2, n4, 1e-3f, 1e-4f * max_abs(nb.a2, n4));
}
static void nbody_teardown(void) { free(nb.pos); free(nb.a1); free(nb.a2); }

/* sgemm: 512 x 512 x 512, 16 x 16 tiles. */
static struct { int m, n, k; float *a, *b, *c1, *c2; } mm;
static void sgemm_setup(void)
{
    mm.m = 512 * opt.scale; mm.n = 512; mm.k = 512;
    mm.a = xalloc((size_t)mm.m * mm.k * 4); mm.b = xalloc((size_t)mm.k * mm.n * 4);
    mm.c1 = xalloc((size_t)mm.m * mm.n * 4); mm.c2 = xalloc((size_t)mm.m * mm.n * 4);
    for (size_t i = 0; i < (size_t)mm.m * mm.k; i++) mm.a[i] = (float)(i % 17) * 0.125f - 1.0f;
    for (size_t i = 0; i < (size_t)mm.k * mm.n; i++) mm.b[i] = (float)(i % 13) * 0.25f - 1.5f;
}
static void sgemm_ptx(void)
{
    void *args[] = {&mm.m, &mm.n, &mm.k, &mm.a, &mm.b, &mm.c1};
    launch("sgemm", dim((unsigned)(mm.n + 15) / 16, (unsigned)(mm.m + 15) / 16), dim(16, 16), args, 0);
}
static void sgemm_nat(void) { sgemm_native(mm.m, mm.n, mm.k, mm.a, mm.b, mm.c2); }
static int sgemm_verify(void) /* the same order of sums; fma contraction may differ */
{
    return close_f32("sgemm", mm.c1, mm.c2, (size_t)mm.m * mm.n, 1e-3f, 1e-3f);
}
static void sgemm_teardown(void) { free(mm.a); free(mm.b); free(mm.c1); free(mm.c2); }

/* transpose: a 4000 x 4000 matrix (not a power of two: no cache-set aliasing between the
 * rows of a tile), 32 x 32 tiles, 32 x 8 threads per block. */
static struct { int rows, cols; float *in, *o1, *o2; } tr;
static void transpose_setup(void)
{
    tr.rows = 4000 * opt.scale; tr.cols = 4000;
    size_t n = (size_t)tr.rows * tr.cols;
    tr.in = xalloc(n * 4); tr.o1 = xalloc(n * 4); tr.o2 = xalloc(n * 4);
    for (size_t i = 0; i < n; i++) tr.in[i] = (float)i;
}
static void transpose_ptx(void)
{
    void *args[] = {&tr.rows, &tr.cols, &tr.in, &tr.o1};
    launch("transpose", dim((unsigned)(tr.cols + 31) / 32, (unsigned)(tr.rows + 31) / 32), dim(32, 8), args, 0);
}
static void transpose_nat(void) { transpose_native(tr.rows, tr.cols, tr.in, tr.o2); }
static int transpose_verify(void) { return same_bytes("transpose", tr.o1, tr.o2, (size_t)tr.rows * tr.cols, 4); }
static void transpose_teardown(void) { free(tr.in); free(tr.o1); free(tr.o2); }

/* nw_wavefront: alignment scores of 32768 pairs of 64-letter sequences (4 letters), one
 * block of 64 threads per pair: 127 barriers per block. */
enum { NW_LEN = 64 };
static struct { int pairs; unsigned char *a, *b; int *s1, *s2; } nw;
static void nw_setup(void)
{
    nw.pairs = 32768 * opt.scale;
    size_t n = (size_t)nw.pairs * NW_LEN;
    nw.a = xalloc(n); nw.b = xalloc(n);
    nw.s1 = xalloc((size_t)nw.pairs * 4); nw.s2 = xalloc((size_t)nw.pairs * 4);
    for (size_t i = 0; i < n; i++) { nw.a[i] = (unsigned char)(rng() >> 30); nw.b[i] = (unsigned char)(rng() >> 30); }
}
static void nw_ptx(void)
{
    void *args[] = {&nw.a, &nw.b, &nw.s1};
    launch("nw_wavefront", dim((unsigned)nw.pairs, 1), dim(NW_LEN, 1), args, 0);
}
static void nw_nat(void) { nw_native(nw.pairs, NW_LEN, nw.a, nw.b, nw.s2); }
static int nw_verify(void) { return same_bytes("nw_wavefront", nw.s1, nw.s2, (size_t)nw.pairs, 4); }
static void nw_teardown(void) { free(nw.a); free(nw.b); free(nw.s1); free(nw.s2); }

/* interp_tex: 8M lookups with linear interpolation in a table of 64K + 1 floats, read
 * through a texture object over linear memory (tex1Dfetch) on one side and the plain array
 * on the other; 256 threads per block. */
enum { TABLE_SIZE = 65537 };
static struct { int n; float *table, *pos, *o1, *o2; ptxrtTextureObject_t tex; } tx;
static void interp_setup(void)
{
    tx.n = (1 << 23) * opt.scale;
    tx.table = xalloc(TABLE_SIZE * 4); tx.pos = xalloc((size_t)tx.n * 4);
    tx.o1 = xalloc((size_t)tx.n * 4); tx.o2 = xalloc((size_t)tx.n * 4);
    for (int i = 0; i < TABLE_SIZE; i++) tx.table[i] = sinf((float)i * 0.001f);
    for (int i = 0; i < tx.n; i++) tx.pos[i] = rng_unit() * (float)(TABLE_SIZE - 1);
    ptxrtResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = ptxrtResourceTypeLinear;
    res.res.linear.devPtr = tx.table;
    res.res.linear.desc = ptxrtCreateChannelDesc(32, 0, 0, 0, ptxrtChannelFormatKindFloat);
    res.res.linear.sizeInBytes = TABLE_SIZE * 4;
    ptxrtTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = ptxrtAddressModeClamp;
    td.filterMode = ptxrtFilterModePoint;
    td.readMode = ptxrtReadModeElementType;
    ptxrtError_t e = ptxrtCreateTextureObject(&tx.tex, &res, &td, NULL);
    if (e != ptxrtSuccess) { fprintf(stderr, "interp_tex: texture object: %s\n", ptxrtGetLastErrorMessage()); exit(1); }
}
static void interp_ptx(void)
{
    void *args[] = {&tx.n, &tx.tex, &tx.pos, &tx.o1};
    launch("interp_tex", dim((unsigned)(tx.n + 255) / 256, 1), dim(256, 1), args, 0);
}
static void interp_nat(void) { interp_native(tx.n, tx.table, tx.pos, tx.o2); }
static int interp_verify(void) { return same_bytes("interp_tex", tx.o1, tx.o2, (size_t)tx.n, 4); }
static void interp_teardown(void)
{
    ptxrtDestroyTextureObject(tx.tex);
    free(tx.table); free(tx.pos); free(tx.o1); free(tx.o2);
}

/* barrier_loop: 4096 blocks of 256 threads, 64 steps with a barrier each. */
static struct { int blocks; float *in, *o1, *o2; } bl;
static void barrier_loop_setup(void)
{
    bl.blocks = 4096 * opt.scale;
    size_t n = (size_t)bl.blocks * BARRIER_LOOP_THREADS;
    bl.in = xalloc(3 * n * 4); bl.o1 = xalloc(n * 4); bl.o2 = xalloc(n * 4);
    for (size_t i = 0; i < 3 * n; i++) bl.in[i] = rng_unit();
}
static void barrier_loop_ptx(void)
{
    void *args[] = {&bl.in, &bl.o1};
    launch("barrier_loop", dim((unsigned)bl.blocks, 1), dim(BARRIER_LOOP_THREADS, 1), args, 0);
}
static void barrier_loop_nat(void) { barrier_loop_native(bl.blocks, bl.in, bl.o2); }
static int barrier_loop_verify(void)
{
    return same_bytes("barrier_loop", bl.o1, bl.o2, (size_t)bl.blocks * BARRIER_LOOP_THREADS, 4);
}
static void barrier_loop_teardown(void) { free(bl.in); free(bl.o1); free(bl.o2); }

/* pathfinder: Rodinia's cheapest path down 1M columns of 101 rows, 20 rows per launch
 * (pyramids of 256-column blocks; a barrier per row, a band guard, clamped neighbours). */
enum { PF_THREADS = 256, PF_ROWS = 101, PF_PYRAMID = 20 };
static struct { int cols; int *wall, *p1[2], *p2[2]; int *r1, *r2; } pf;
static void pathfinder_setup(void)
{
    pf.cols = (1 << 20) * opt.scale;
    size_t cells = (size_t)pf.cols * PF_ROWS;
    pf.wall = xalloc(cells * 4);
    for (size_t i = 0; i < cells; i++) pf.wall[i] = (int)(rng() % 10);
    for (int k = 0; k < 2; k++) { pf.p1[k] = xalloc((size_t)pf.cols * 4); pf.p2[k] = xalloc((size_t)pf.cols * 4); }
}
static void pathfinder_ptx(void)
{
    int border = PF_PYRAMID, small = PF_THREADS - PF_PYRAMID * 2;
    unsigned blocks = (unsigned)((pf.cols + small - 1) / small);
    const int *wall = pf.wall + pf.cols;
    memcpy(pf.p1[0], pf.wall, (size_t)pf.cols * 4);
    int from = 0;
    for (int t = 0; t < PF_ROWS - 1; t += PF_PYRAMID) {
        int iteration = PF_PYRAMID < PF_ROWS - 1 - t ? PF_PYRAMID : PF_ROWS - 1 - t;
        void *args[] = {&iteration, &wall, &pf.p1[from], &pf.p1[1 - from], &pf.cols, &t, &border};
        launch("pathfinder", dim(blocks, 1), dim(PF_THREADS, 1), args, 0);
        from = 1 - from;
    }
    pf.r1 = pf.p1[from];
}
static void pathfinder_nat(void)
{
    memcpy(pf.p2[0], pf.wall, (size_t)pf.cols * 4);
    pathfinder_native(pf.cols, PF_ROWS, pf.wall, pf.p2[0], pf.p2[1]);
    pf.r2 = pf.p2[(PF_ROWS - 1) % 2];
}
static int pathfinder_verify(void) { return same_bytes("pathfinder", pf.r1, pf.r2, (size_t)pf.cols, 4); }
static void pathfinder_teardown(void)
{
    free(pf.wall);
    for (int k = 0; k < 2; k++) { free(pf.p1[k]); free(pf.p2[k]); }
}

/* hotspot: Rodinia's thermal simulation of a 1024 x 1024 chip, 20 steps in launches of 2
 * (pyramids of 16 x 16 blocks; two barriers per step, a window guard, clamped neighbours,
 * double arithmetic). */
enum { HS_N = 1024, HS_STEPS = 20, HS_PYRAMID = 2 };
static struct { int n; float *power, *t1[2], *t2[2], *r1, *r2, cap, rx, ry, rz, step; } hs;
static void hotspot_setup(void)
{
    hs.n = HS_N * opt.scale;
    size_t cells = (size_t)hs.n * hs.n;
    hs.power = xalloc(cells * 4);
    for (int k = 0; k < 2; k++) { hs.t1[k] = xalloc(cells * 4); hs.t2[k] = xalloc(cells * 4); }
    for (size_t i = 0; i < cells; i++) hs.power[i] = rng_unit() * 0.01f;
    /* Rodinia's chip parameters. */
    float t_chip = 0.0005f, chip = 0.016f, gh = chip / (float)hs.n, gw = chip / (float)hs.n;
    hs.cap = 0.5f * 1.75e6f * t_chip * gw * gh;
    hs.rx = gw / (2.0f * 100.0f * t_chip * gh);
    hs.ry = gh / (2.0f * 100.0f * t_chip * gw);
    hs.rz = t_chip / (100.0f * gh * gw);
    hs.step = 0.001f / (3.0e6f / (0.5f * t_chip * 1.75e6f));
}
static void hotspot_initial(float *t)
{
    for (size_t i = 0; i < (size_t)hs.n * hs.n; i++) t[i] = 320.0f + (float)(i % 17);
}
static void hotspot_ptx(void)
{
    int small = 16 - HS_PYRAMID * 2, border = HS_PYRAMID;
    unsigned blocks = (unsigned)((hs.n + small - 1) / small);
    hotspot_initial(hs.t1[0]);
    int from = 0;
    for (int t = 0; t < HS_STEPS; t += HS_PYRAMID) {
        int iteration = HS_PYRAMID < HS_STEPS - t ? HS_PYRAMID : HS_STEPS - t;
        void *args[] = {&iteration, &hs.power, &hs.t1[from], &hs.t1[1 - from], &hs.n, &hs.n, &border, &border, &hs.cap, &hs.rx, &hs.ry, &hs.rz, &hs.step};
        launch("hotspot", dim(blocks, blocks), dim(16, 16), args, 0);
        from = 1 - from;
    }
    hs.r1 = hs.t1[from];
}
static void hotspot_nat(void)
{
    hotspot_initial(hs.t2[0]);
    hotspot_native(hs.n, hs.n, HS_STEPS, hs.power, hs.t2[0], hs.t2[1], hs.cap, hs.rx, hs.ry, hs.rz, hs.step);
    hs.r2 = hs.t2[HS_STEPS % 2];
}
static int hotspot_verify(void) /* fused multiply-adds differ */
{
    return close_f32("hotspot", hs.r1, hs.r2, (size_t)hs.n * hs.n, 1e-5f, 1e-3f);
}
static void hotspot_teardown(void)
{
    free(hs.power);
    for (int k = 0; k < 2; k++) { free(hs.t1[k]); free(hs.t2[k]); }
}

/* mma_gemm: C = A * B for 1024 x 1024 x 512 binary16 inputs with f32 sums, one warp per
 * 16 x 8 tile of C issuing mma.sync.m16n8k16 along K. Inputs are small integers times 2^-4
 * so that every product and partial sum is exact: both sides give the same bits. */
static struct { int m, n, k; unsigned short *a, *bt; float *c1, *c2; } mg;
static void mma_gemm_setup(void)
{
    mg.m = 1024 * opt.scale; mg.n = 1024; mg.k = 512;
    mg.a = xalloc((size_t)mg.m * mg.k * 2); mg.bt = xalloc((size_t)mg.n * mg.k * 2);
    mg.c1 = xalloc((size_t)mg.m * mg.n * 4); mg.c2 = xalloc((size_t)mg.m * mg.n * 4);
    /* binary16 of (v - 8) / 16 for v in 0..16: exponent and mantissa by hand */
    for (size_t i = 0; i < (size_t)mg.m * mg.k; i++) mg.a[i] = (unsigned short)(rng() >> 28);
    for (size_t i = 0; i < (size_t)mg.n * mg.k; i++) mg.bt[i] = (unsigned short)(rng() >> 28);
    unsigned short table[16];
    for (int v = 0; v < 16; v++) {
        int x = v - 8; /* x / 16 */
        unsigned short sign = x < 0 ? 0x8000 : 0;
        int ax = x < 0 ? -x : x, e = 0;
        if (ax == 0) { table[v] = 0; continue; }
        while ((ax << e) < 8) e++; /* normalize to 8..15 = 1.xxx * 8 */
        int mant = ((ax << e) - 8) << 7;                 /* 3 fraction bits into 10 */
        table[v] = sign | (unsigned short)((15 + 3 - 4 - e) << 10) | (unsigned short)mant;
    }
    for (size_t i = 0; i < (size_t)mg.m * mg.k; i++) mg.a[i] = table[mg.a[i]];
    for (size_t i = 0; i < (size_t)mg.n * mg.k; i++) mg.bt[i] = table[mg.bt[i]];
}
static void mma_gemm_ptx(void)
{
    void *args[] = {&mg.n, &mg.k, &mg.a, &mg.bt, &mg.c1};
    unsigned warps = (unsigned)(mg.m / 16) * (unsigned)(mg.n / 8);
    launch("mma_gemm", dim(warps / 4, 1), dim(128, 1), args, 0);
}
static void mma_gemm_nat(void) { mma_gemm_native(mg.m, mg.n, mg.k, mg.a, mg.bt, mg.c2); }
static int mma_gemm_verify(void) { return same_bytes("mma_gemm", mg.c1, mg.c2, (size_t)mg.m * mg.n, 4); }
static void mma_gemm_teardown(void) { free(mg.a); free(mg.bt); free(mg.c1); free(mg.c2); }

typedef struct {
    const char *name, *what;
    void (*setup)(void), (*run_ptx)(void), (*run_native)(void);
    int (*verify)(void); /* 0 when the two sides' last results agree */
    void (*teardown)(void);
} Bench;

static const Bench benches[] = {
    {"axpy", "y = a*x + y, 16M floats", axpy_setup, axpy_ptx, axpy_nat, axpy_verify, axpy_teardown},
    {"axpy_gs", "axpy with a grid-stride loop, 1024 blocks", axpy_setup, axpy_gs_ptx, axpy_nat, axpy_verify, axpy_teardown},
    {"stencil", "5-point stencil, 4096 x 4096", stencil_setup, stencil_ptx, stencil_nat, stencil_verify, stencil_teardown},
    {"block_sum", "sum of 16M floats: barrier tree per block", sum_setup, block_sum_ptx, sum_nat, sum_verify, sum_teardown},
    {"reduce_shfl", "sum of 16M floats: warp shuffles, one atomic per block", sum_setup, reduce_shfl_ptx, sum_nat, sum_verify, sum_teardown},
    {"softmax", "softmax of 4096 rows of 1024, one warp per row (shfl.bfly)", softmax_setup, softmax_ptx, softmax_nat, softmax_verify, softmax_teardown},
    {"scan", "inclusive scan of 512-int blocks (shfl.up), 8M ints", scan_setup, scan_ptx, scan_nat, scan_verify, scan_teardown},
    {"histogram", "256-bin histogram of 32M bytes, shared atomics", histogram_setup, histogram_ptx, histogram_nat, histogram_verify, histogram_teardown},
    {"nbody", "n-body accelerations, 4096 bodies, shared tiles", nbody_setup, nbody_ptx, nbody_nat, nbody_verify, nbody_teardown},
    {"sgemm", "512^3 sgemm, 16 x 16 shared tiles", sgemm_setup, sgemm_ptx, sgemm_nat, sgemm_verify, sgemm_teardown},
    {"transpose", "4000 x 4000 transpose, 32 x 33 shared tile", transpose_setup, transpose_ptx, transpose_nat, transpose_verify, transpose_teardown},
    {"nw_wavefront", "32768 alignments of 64 x 64, a barrier per anti-diagonal", nw_setup, nw_ptx, nw_nat, nw_verify, nw_teardown},
    {"interp_tex", "8M interpolations in a 1D texture (tex1Dfetch)", interp_setup, interp_ptx, interp_nat, interp_verify, interp_teardown},
    {"barrier_loop", "64 x (3-operand step on shared memory + barrier), 4096 blocks", barrier_loop_setup, barrier_loop_ptx, barrier_loop_nat, barrier_loop_verify, barrier_loop_teardown},
    {"pathfinder", "Rodinia pathfinder, 1M columns x 101 rows, 20 rows per launch", pathfinder_setup, pathfinder_ptx, pathfinder_nat, pathfinder_verify, pathfinder_teardown},
    {"hotspot", "Rodinia hotspot, 1024 x 1024 chip, 20 steps, 2 per launch (double arithmetic)", hotspot_setup, hotspot_ptx, hotspot_nat, hotspot_verify, hotspot_teardown},
    {"mma_gemm", "1024 x 1024 x 512 f16 GEMM, mma.sync.m16n8k16 per warp tile", mma_gemm_setup, mma_gemm_ptx, mma_gemm_nat, mma_gemm_verify, mma_gemm_teardown},
};
enum { NBENCH = sizeof benches / sizeof benches[0] };

/* ---- measuring and reporting ------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct { double ptx, native; int runs; } Timing; /* medians in seconds */

/* Runs both sides alternately with `workers` threads each (after one untimed run of each):
 * at least min_runs and at most max_runs times, stopping once `budget` seconds are spent;
 * then compares their results. */
static Timing measure(const Bench *b, int workers)
{
    if (ptxrtSetNumThreads(workers) != ptxrtSuccess) { fprintf(stderr, "ptxrtSetNumThreads(%d) failed\n", workers); exit(1); }
    omp_set_num_threads(workers);
    b->run_ptx();
    b->run_native();
    static double tp[MAX_RUNS_LIMIT], tn[MAX_RUNS_LIMIT];
    double start = now();
    int r = 0;
    while (r < opt.max_runs && (r < opt.min_runs || now() - start < opt.budget)) {
        double t0 = now();
        b->run_ptx();
        double t1 = now();
        b->run_native();
        double t2 = now();
        tp[r] = t1 - t0;
        tn[r] = t2 - t1;
        r++;
    }
    if (b->verify() != 0) {
        printf("\n");
        fflush(stdout);
        fprintf(stderr, "%s: ptx2llvm and OpenMP results differ with %d workers\n", b->name, workers);
        exit(1);
    }
    return (Timing){median(tp, r), median(tn, r), r};
}

static int worker_index(int w)
{
    for (int i = 0; i < opt.nworkers; i++)
        if (opt.workers[i] == w) return i;
    return -1;
}

static void print_header(int scaling)
{
    printf("%-13s", "");
    for (int i = 0; i < opt.nworkers; i++) {
        char label[32];
        snprintf(label, sizeof label, "%d worker%s", opt.workers[i], opt.workers[i] == 1 ? "" : "s");
        printf(" | %-30s", label);
    }
    if (scaling) {
        char label[32];
        snprintf(label, sizeof label, "time %dw / %dw", opt.scale_to, opt.scale_from);
        printf(" | %s", label);
    }
    printf("\n%-13s", "kernel");
    for (int i = 0; i < opt.nworkers; i++) printf(" | %9s %9s %6s %3s", "ptx ms", "omp ms", "ratio", "n");
    if (scaling) printf(" | %6s %6s", "ptx", "omp");
    printf("\n");
    fflush(stdout);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench [options] [KERNEL...]\n"
            "  --workers LIST     worker counts to measure, e.g. 1,2,4,8,16 (default 1,2,8)\n"
            "  --budget SECONDS   measuring time per kernel and worker count (default 10)\n"
            "  --min-runs N       runs of each side at least (default 5)\n"
            "  --max-runs N       runs of each side at most (default 21)\n"
            "  --scaling FROM,TO  the scaling column: time at TO workers / time at FROM (default 2,8)\n"
            "  --scale N          multiply each problem's main dimension by N (default 1)\n"
            "  --list             list the kernels\n");
}

static int parse_list(const char *s, int *out, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1024 || n == max) return -1;
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return n;
}

int main(int argc, char **argv)
{
    int selected[NBENCH] = {0}, any_selected = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int pair[2];
        if (!strcmp(a, "--workers") && v) {
            if ((opt.nworkers = parse_list(v, opt.workers, MAX_WORKER_COUNTS)) <= 0) { usage(stderr); return 2; }
            i++;
        } else if (!strcmp(a, "--budget") && v) {
            opt.budget = atof(v); i++;
        } else if (!strcmp(a, "--min-runs") && v) {
            opt.min_runs = atoi(v); i++;
        } else if (!strcmp(a, "--max-runs") && v) {
            opt.max_runs = atoi(v); i++;
        } else if (!strcmp(a, "--scaling") && v) {
            if (parse_list(v, pair, 2) != 2) { usage(stderr); return 2; }
            opt.scale_from = pair[0]; opt.scale_to = pair[1]; i++;
        } else if (!strcmp(a, "--scale") && v) {
            opt.scale = atoi(v); i++;
        } else if (!strcmp(a, "--list")) {
            for (int k = 0; k < NBENCH; k++) printf("%-13s %s\n", benches[k].name, benches[k].what);
            return 0;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else {
            int k = 0;
            while (k < NBENCH && strcmp(benches[k].name, a)) k++;
            if (k == NBENCH) { fprintf(stderr, "unknown option or kernel: %s\n", a); usage(stderr); return 2; }
            selected[k] = any_selected = 1;
        }
    }
    if (opt.min_runs < 1) opt.min_runs = 1;
    if (opt.max_runs > MAX_RUNS_LIMIT) opt.max_runs = MAX_RUNS_LIMIT;
    if (opt.max_runs < opt.min_runs) opt.max_runs = opt.min_runs;
    if (opt.scale < 1) opt.scale = 1;

    int from = worker_index(opt.scale_from), to = worker_index(opt.scale_to);
    int scaling = from >= 0 && to >= 0 && from != to;
    printf("medians of %d-%d runs per side (alternating), at most ~%g s per kernel and worker count; "
           "ratio = ptx2llvm / OpenMP (below 1: ptx2llvm is faster)\n",
           opt.min_runs, opt.max_runs, opt.budget);
    print_header(scaling);

    double log_sum[MAX_WORKER_COUNTS] = {0}, log_scaling[2] = {0}; /* geometric means */
    int count = 0;
    for (int k = 0; k < NBENCH; k++) {
        const Bench *b = &benches[k];
        if (any_selected && !selected[k]) continue;
        rng_state = 12345;
        b->setup();
        Timing t[MAX_WORKER_COUNTS];
        printf("%-13s", b->name);
        fflush(stdout);
        for (int i = 0; i < opt.nworkers; i++) {
            t[i] = measure(b, opt.workers[i]);
            double ratio = t[i].ptx / t[i].native;
            log_sum[i] += log(ratio);
            printf(" | %9.3f %9.3f %6.2f %3d", t[i].ptx * 1e3, t[i].native * 1e3, ratio, t[i].runs);
            fflush(stdout);
        }
        if (scaling) {
            double sp = t[to].ptx / t[from].ptx, sn = t[to].native / t[from].native;
            log_scaling[0] += log(sp);
            log_scaling[1] += log(sn);
            printf(" | %6.2f %6.2f", sp, sn);
        }
        printf("\n");
        b->teardown();
        count++;
    }
    if (count > 0) {
        printf("%-13s", "geomean");
        for (int i = 0; i < opt.nworkers; i++) printf(" | %9s %9s %6.2f %3s", "", "", exp(log_sum[i] / count), "");
        if (scaling) printf(" | %6.2f %6.2f", exp(log_scaling[0] / count), exp(log_scaling[1] / count));
        printf("\n");
    }
    return 0;
}
