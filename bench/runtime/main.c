/* bench/runtime: the same algorithm as a translated CUDA kernel (ptx2llvm + ptxrt) and as
 * native C/OpenMP, timed in one process on the same data; prints medians and their ratio. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptxrt.h"

void axpy_native(int n, float a, const float *x, float *y);
void stencil_native(int w, int h, const float *in, float *out);
float sum_native(int n, const float *in);
void sgemm_native(int m, int n, int k, const float *a, const float *b, float *c);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const ptxrtKernel *kernel(const char *name)
{
    const ptxrtKernel *k = ptxrtFindKernel(name);
    if (!k) { fprintf(stderr, "kernel %s missing\n", name); exit(1); }
    return k;
}

static void check(ptxrtError_t e)
{
    if (e != ptxrtSuccess) { fprintf(stderr, "launch failed: %s\n", ptxrtGetLastErrorMessage()); exit(1); }
}

#define REPS 21

static void report(const char *name, double *t_ptx, double *t_native)
{
    double a = median(t_ptx, REPS), b = median(t_native, REPS);
    printf("%-10s %12.3f %12.3f %8.2fx\n", name, a * 1e3, b * 1e3, a / b);
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    double tp[REPS], tn[REPS];
    printf("%-10s %12s %12s %9s\n", "bench", "ptx2llvm ms", "OpenMP ms", "ratio");

    /* axpy: 16M floats */
    int n = (1 << 24) * scale;
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4), *y2 = malloc((size_t)n * 4);
    for (int i = 0; i < n; i++) { x[i] = (float)(i % 1000) * 0.001f; y[i] = y2[i] = 1.0f; }
    float a = 1.5f;
    const ptxrtKernel *k = kernel("axpy");
    for (int r = 0; r < REPS; r++) {
        void *args[] = {&n, &a, &x, &y};
        double t0 = now();
        check(ptxrtLaunchKernel(k, (ptxrtDim3){(unsigned)(n + 255) / 256, 1, 1}, (ptxrtDim3){256, 1, 1}, args, 0, NULL));
        double t1 = now();
        axpy_native(n, a, x, y2);
        double t2 = now();
        tp[r] = t1 - t0; tn[r] = t2 - t1;
    }
    if (memcmp(y, y2, (size_t)n * 4) != 0) { fprintf(stderr, "axpy results differ\n"); return 1; }
    report("axpy", tp, tn);

    /* axpy with a grid-stride loop: 1024 blocks of 256 threads, 64 elements per thread */
    k = kernel("axpy_grid_stride");
    for (int r = 0; r < REPS; r++) {
        void *args[] = {&n, &a, &x, &y};
        double t0 = now();
        check(ptxrtLaunchKernel(k, (ptxrtDim3){1024, 1, 1}, (ptxrtDim3){256, 1, 1}, args, 0, NULL));
        double t1 = now();
        axpy_native(n, a, x, y2);
        double t2 = now();
        tp[r] = t1 - t0; tn[r] = t2 - t1;
    }
    if (memcmp(y, y2, (size_t)n * 4) != 0) { fprintf(stderr, "axpy_grid_stride results differ\n"); return 1; }
    report("axpy_gs", tp, tn);

    /* stencil: 4096 x 4096 */
    int w = 4096, h = 4096 * scale;
    float *in = malloc((size_t)w * h * 4), *o1 = calloc((size_t)w * h, 4), *o2 = calloc((size_t)w * h, 4);
    for (int i = 0; i < w * h; i++) in[i] = (float)(i % 777) * 0.01f;
    k = kernel("stencil");
    for (int r = 0; r < REPS; r++) {
        void *args[] = {&w, &h, &in, &o1};
        double t0 = now();
        check(ptxrtLaunchKernel(k, (ptxrtDim3){(unsigned)(w + 15) / 16, (unsigned)(h + 15) / 16, 1}, (ptxrtDim3){16, 16, 1}, args, 0, NULL));
        double t1 = now();
        stencil_native(w, h, in, o2);
        double t2 = now();
        tp[r] = t1 - t0; tn[r] = t2 - t1;
    }
    if (memcmp(o1, o2, (size_t)w * h * 4) != 0) { fprintf(stderr, "stencil results differ\n"); return 1; }
    report("stencil", tp, tn);

    /* sum: 16M floats, 1024 blocks of 256 then a host sum of the partials */
    unsigned blocks = 1024;
    float *partial = malloc(blocks * 4);
    k = kernel("block_sum");
    float s1 = 0, s2 = 0;
    for (int r = 0; r < REPS; r++) {
        void *args[] = {&n, &x, &partial};
        double t0 = now();
        check(ptxrtLaunchKernel(k, (ptxrtDim3){blocks, 1, 1}, (ptxrtDim3){256, 1, 1}, args, 0, NULL));
        s1 = 0;
        for (unsigned b = 0; b < blocks; b++) s1 += partial[b];
        double t1 = now();
        s2 = sum_native(n, x);
        double t2 = now();
        tp[r] = t1 - t0; tn[r] = t2 - t1;
    }
    if (fabsf(s1 - s2) > 1e-3f * fabsf(s2)) { fprintf(stderr, "sum results differ: %g %g\n", s1, s2); return 1; }
    report("sum", tp, tn);

    /* sgemm: 512 x 512 x 512, 16 x 16 tiles */
    int mm = 512 * scale, nn = 512, kk = 512;
    float *ma = malloc((size_t)mm * kk * 4), *mb = malloc((size_t)kk * nn * 4);
    float *mc1 = malloc((size_t)mm * nn * 4), *mc2 = malloc((size_t)mm * nn * 4);
    for (size_t i = 0; i < (size_t)mm * kk; i++) ma[i] = (float)(i % 17) * 0.125f - 1.0f;
    for (size_t i = 0; i < (size_t)kk * nn; i++) mb[i] = (float)(i % 13) * 0.25f - 1.5f;
    k = kernel("sgemm");
    for (int r = 0; r < REPS; r++) {
        void *args[] = {&mm, &nn, &kk, &ma, &mb, &mc1};
        double t0 = now();
        check(ptxrtLaunchKernel(k, (ptxrtDim3){(unsigned)(nn + 15) / 16, (unsigned)(mm + 15) / 16, 1}, (ptxrtDim3){16, 16, 1}, args, 0, NULL));
        double t1 = now();
        sgemm_native(mm, nn, kk, ma, mb, mc2);
        double t2 = now();
        tp[r] = t1 - t0; tn[r] = t2 - t1;
    }
    for (size_t i = 0; i < (size_t)mm * nn; i++)
        if (fabsf(mc1[i] - mc2[i]) > 1e-3f * (1.0f + fabsf(mc2[i]))) { fprintf(stderr, "sgemm results differ at %zu: %g %g\n", i, mc1[i], mc2[i]); return 1; }
    report("sgemm", tp, tn);
    return 0;
}
