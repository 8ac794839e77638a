/* The native C/OpenMP versions of bench/runtime/kernels.cu: the same algorithms, written
 * for a CPU (clang-19 -O3 -march=native -fopenmp). Thread counts come from the caller's
 * omp_set_num_threads. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "native.h"

void axpy_native(int n, float a, const float *x, float *y)
{
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

void stencil_native(int w, int h, const float *in, float *out)
{
#pragma omp parallel for schedule(static)
    for (int y = 1; y < h - 1; y++) {
#pragma omp simd
        for (int x = 1; x < w - 1; x++) {
            int i = y * w + x;
            out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
        }
    }
}

float sum_native(int n, const float *in)
{
    float s = 0.0f;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (int i = 0; i < n; i++) s += in[i];
    return s;
}

/* The maximum of n floats in 16 running maxima (the vectorizer does not reorder a float
 * max reduction by itself, because of NaNs). */
static float row_max(const float *x, int n)
{
    enum { V = 16 };
    float mv[V];
    for (int l = 0; l < V; l++) mv[l] = -INFINITY;
    int j = 0;
    for (; j + V <= n; j += V)
        for (int l = 0; l < V; l++) mv[l] = x[j + l] > mv[l] ? x[j + l] : mv[l];
    for (; j < n; j++) mv[0] = x[j] > mv[0] ? x[j] : mv[0];
    float m = mv[0];
    for (int l = 1; l < V; l++) m = mv[l] > m ? mv[l] : m;
    return m;
}

/* One warp per row on the GPU; here one row per loop iteration, the three passes
 * (maximum, exponentials and their sum, scaling) vectorized along the row. */
void softmax_native(int rows, int cols, const float *in, float *out)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *x = in + (size_t)r * cols;
        float *y = out + (size_t)r * cols;
        float m = row_max(x, cols);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int j = 0; j < cols; j++) {
            float e = expf(x[j] - m);
            y[j] = e;
            s += e;
        }
        float inv = 1.0f / s;
#pragma omp simd
        for (int j = 0; j < cols; j++) y[j] *= inv;
    }
}

/* Inclusive scan of each chunk of `chunk` integers (the CUDA kernel's blocks). */
void scan_chunks_native(int n, int chunk, const int *in, int *out)
{
    int chunks = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
    for (int c = 0; c < chunks; c++) {
        int i0 = c * chunk, i1 = i0 + chunk < n ? i0 + chunk : n;
        int s = 0;
        for (int i = i0; i < i1; i++) {
            s += in[i];
            out[i] = s;
        }
    }
}

/* Each thread counts its part in a private histogram, then adds it to the result. */
void histogram256_native(int n, const unsigned char *data, unsigned int *bins)
{
    memset(bins, 0, 256 * sizeof *bins);
#pragma omp parallel
    {
        unsigned int local[256] = {0};
#pragma omp for schedule(static) nowait
        for (int i = 0; i < n; i++) local[data[i]]++;
        for (int b = 0; b < 256; b++)
            if (local[b] != 0) {
#pragma omp atomic
                bins[b] += local[b];
            }
    }
}

/* pos and acc are n x 4 floats (x, y, z, mass) as the kernel's float4 arrays; the
 * interactions of body i are summed in increasing j, vectorized across j. */
void nbody_native(int n, float eps2, const float *pos, float *acc)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        float px = pos[4 * i], py = pos[4 * i + 1], pz = pos[4 * i + 2];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma omp simd reduction(+ : ax, ay, az)
        for (int j = 0; j < n; j++) {
            float dx = pos[4 * j] - px, dy = pos[4 * j + 1] - py, dz = pos[4 * j + 2] - pz;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / sqrtf(r2);
            float s = pos[4 * j + 3] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        acc[4 * i] = ax;
        acc[4 * i + 1] = ay;
        acc[4 * i + 2] = az;
        acc[4 * i + 3] = 0.0f;
    }
}

/* C = A * B, row-major. Blocked for the caches: each task owns MB rows x NB columns of C,
 * and walks K in slices of KB so that the KB x NB slice of B (128 KB) is reused by all MB
 * rows; the innermost loop runs along a row of B and C (unit stride, vectorized). Each
 * element of C sums its products in increasing k, like the CUDA kernel. */
void sgemm_native(int m, int n, int k, const float *a, const float *b, float *c)
{
    enum { MB = 32, NB = 256, KB = 128 };
#pragma omp parallel for collapse(2) schedule(static)
    for (int i0 = 0; i0 < m; i0 += MB) {
        for (int j0 = 0; j0 < n; j0 += NB) {
            int i1 = i0 + MB < m ? i0 + MB : m, j1 = j0 + NB < n ? j0 + NB : n;
            for (int i = i0; i < i1; i++)
                for (int j = j0; j < j1; j++) c[(size_t)i * n + j] = 0.0f;
            for (int p0 = 0; p0 < k; p0 += KB) {
                int p1 = p0 + KB < k ? p0 + KB : k;
                for (int i = i0; i < i1; i++) {
                    float *ci = c + (size_t)i * n;
                    for (int p = p0; p < p1; p++) {
                        float aip = a[(size_t)i * k + p];
                        const float *bp = b + (size_t)p * n;
#pragma omp simd
                        for (int j = j0; j < j1; j++) ci[j] += aip * bp[j];
                    }
                }
            }
        }
    }
}

/* out = in^T in 32 x 32 tiles (a tile's rows and columns both stay in L1). */
void transpose_native(int rows, int cols, const float *in, float *out)
{
    enum { T = 32 };
#pragma omp parallel for collapse(2) schedule(static)
    for (int i0 = 0; i0 < rows; i0 += T) {
        for (int j0 = 0; j0 < cols; j0 += T) {
            int i1 = i0 + T < rows ? i0 + T : rows, j1 = j0 + T < cols ? j0 + T : cols;
            for (int j = j0; j < j1; j++)
                for (int i = i0; i < i1; i++) out[(size_t)j * rows + i] = in[(size_t)i * cols + j];
        }
    }
}

/* The global alignment score of each pair (the kernel's recurrence), filled row by row
 * with one row of the table kept, for 8 pairs at once: lane l of every vector belongs to
 * pair p0 + l (the cells of one pair depend on each other along the row, the pairs do not).
 * len is at most NW_MAX_LEN. */
void nw_native(int pairs, int len, const unsigned char *a, const unsigned char *b, int *score)
{
    enum { G = 8 };
    const int gap = 1;
    int groups = (pairs + G - 1) / G;
#pragma omp parallel for schedule(static)
    for (int g = 0; g < groups; g++) {
        int p0 = g * G;
        unsigned char sa[NW_MAX_LEN][G], sb[NW_MAX_LEN][G]; /* the group's letters, lane-minor */
        int h[NW_MAX_LEN + 1][G], diag[G], left[G];
        for (int k = 0; k < len; k++)
            for (int l = 0; l < G; l++) {
                int p = p0 + l < pairs ? p0 + l : pairs - 1;
                sa[k][l] = a[(size_t)p * len + k];
                sb[k][l] = b[(size_t)p * len + k];
            }
        for (int j = 0; j <= len; j++)
            for (int l = 0; l < G; l++) h[j][l] = -gap * j;
        for (int i = 1; i <= len; i++) {
            for (int l = 0; l < G; l++) {
                diag[l] = h[0][l];
                left[l] = h[0][l] = -gap * i;
            }
            for (int j = 1; j <= len; j++) {
#pragma omp simd
                for (int l = 0; l < G; l++) {
                    int s = sa[i - 1][l] == sb[j - 1][l] ? 2 : -1;
                    int up = h[j][l];
                    int best = up > left[l] ? up : left[l];
                    int v = diag[l] + s > best - gap ? diag[l] + s : best - gap;
                    h[j][l] = v;
                    diag[l] = up;
                    left[l] = v;
                }
            }
        }
        for (int l = 0; l < G && p0 + l < pairs; l++) score[p0 + l] = h[len][l];
    }
}

/* The texture kernel's interpolation from a plain array. */
void interp_native(int n, const float *table, const float *pos, float *out)
{
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; i++) {
        float x = pos[i];
        int k = (int)x;
        float f = x - (float)k;
        float lo = table[k], hi = table[k + 1];
        out[i] = fmaf(f, hi - lo, lo);
    }
}

/* The barrier loop, one block's three buffers of 256 values at a time (they stay in L1);
 * each step is a vector loop over the block's values, the neighbours' indices wrapping
 * around at both ends. */
void barrier_loop_native(int blocks, const float *in, float *out)
{
    enum { NT = BARRIER_LOOP_THREADS };
#pragma omp parallel for schedule(static)
    for (int blk = 0; blk < blocks; blk++) {
        float s[3][NT];
        memcpy(s, in + (size_t)blk * 3 * NT, sizeof s);
        int w = 0, r1 = 1, r2 = 2;
        for (int k = 0; k < 64; k++) {
            float *sw = s[w];
            const float *s1 = s[r1], *s2 = s[r2];
            sw[0] = fmaf(s1[1], 0.5f, fmaf(s2[NT - 1], 0.25f, sw[0] * 0.25f));
#pragma omp simd
            for (int t = 1; t < NT - 1; t++) sw[t] = fmaf(s1[t + 1], 0.5f, fmaf(s2[t - 1], 0.25f, sw[t] * 0.25f));
            sw[NT - 1] = fmaf(s1[0], 0.5f, fmaf(s2[NT - 2], 0.25f, sw[NT - 1] * 0.25f));
            int u = w; w = r1; r1 = r2; r2 = u;
        }
        memcpy(out + (size_t)blk * NT, s[r2], sizeof s[r2]);
    }
}

/* One row of pathfinder for columns [lo, hi), none at the grid's edges. */
static void pathfinder_row(int lo, int hi, const int *restrict cost, const int *restrict s, int *restrict d)
{
    for (int n = lo; n < hi; n++) {
        int m = s[n - 1] < s[n] ? s[n - 1] : s[n];
        d[n] = cost[n] + (s[n + 1] < m ? s[n + 1] : m);
    }
}

/* Rodinia's OpenMP pathfinder, row by row (each column takes the cheapest of its three
 * neighbours in the row before plus its cost), each worker a contiguous part of the row
 * (a loop that vectorizes: OpenMP's own worksharing loop did not), the grid's first and
 * last columns (two neighbours) apart. */
void pathfinder_native(int cols, int rows, const int *wall, int *src, int *dst)
{
    for (int t = 0; t < rows - 1; t++) {
        const int *cost = wall + (size_t)(t + 1) * cols;
        const int *s = src;
        int *d = dst;
#pragma omp parallel
        {
            int workers = omp_get_num_threads(), me = omp_get_thread_num();
            int per = (cols - 2 + workers - 1) / workers;
            int lo = 1 + me * per, hi = lo + per < cols - 1 ? lo + per : cols - 1;
            if (lo < hi) pathfinder_row(lo, hi, cost, s, d);
        }
        if (cols == 1) {
            d[0] = cost[0] + s[0];
        } else {
            d[0] = cost[0] + (s[1] < s[0] ? s[1] : s[0]);
            d[cols - 1] = cost[cols - 1] + (s[cols - 2] < s[cols - 1] ? s[cols - 2] : s[cols - 1]);
        }
        int *x = src;
        src = dst;
        dst = x;
    }
}

/* Rodinia's hotspot, step by step over the whole grid (each cell from its four neighbours,
 * clamped to the grid), in double as the CUDA kernel computes it; each worker a band of
 * rows. After `steps` steps the result is in `in` if steps is even, else in `out`. */
void hotspot_native(int cols, int rows, int steps, const float *power, float *in, float *out, float cap, float rx, float ry, float rz, float step)
{
    const float amb = 80.0f, step_div_cap = step / cap, rx_1 = 1 / rx, ry_1 = 1 / ry, rz_1 = 1 / rz;
    for (int t = 0; t < steps; t++) {
        const float *restrict a = in;
        float *restrict b = out;
#pragma omp parallel for schedule(static)
        for (int y = 0; y < rows; y++) {
            const float *up = a + (size_t)(y > 0 ? y - 1 : y) * cols, *row = a + (size_t)y * cols;
            const float *down = a + (size_t)(y < rows - 1 ? y + 1 : y) * cols, *p = power + (size_t)y * cols;
            float *o = b + (size_t)y * cols;
            for (int x = 0; x < cols; x++) {
                int w = x > 0 ? x - 1 : x, e = x < cols - 1 ? x + 1 : x;
                float c = row[x];
                o[x] = (float)(c + step_div_cap * (p[x] + (down[x] + up[x] - 2.0 * c) * ry_1 + (row[e] + row[w] - 2.0 * c) * rx_1 + (amb - c) * rz_1));
            }
        }
        float *x = in;
        in = out;
        out = x;
    }
}

/* binary16 bits to float (exact). */
static float half_value(unsigned short h)
{
    unsigned sign = (h & 0x8000u) << 16, exp = (h >> 10) & 31, man = h & 0x3ffu, bits;
    if (exp == 0) {
        float v = (float)man * 0x1p-24f;
        return (h & 0x8000u) ? -v : v;
    }
    bits = sign | (exp == 31 ? 0x7f800000u | man << 13 : (exp + 112) << 23 | man << 13);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* The tensor-core GEMM's twin: both matrices converted to float once, then a dot product
 * per element of C along the contiguous rows of A and Bt (vectorized along k). */
void mma_gemm_native(int m, int n, int k, const unsigned short *a, const unsigned short *bt, float *c)
{
    float *af = malloc((size_t)m * k * sizeof(float)), *bf = malloc((size_t)n * k * sizeof(float));
#pragma omp parallel for schedule(static)
    for (int i = 0; i < m; i++)
        for (int kk = 0; kk < k; kk++) af[(size_t)i * k + kk] = half_value(a[(size_t)i * k + kk]);
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; j++)
        for (int kk = 0; kk < k; kk++) bf[(size_t)j * k + kk] = half_value(bt[(size_t)j * k + kk]);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < m; i++) {
        const float *ar = af + (size_t)i * k;
        for (int j = 0; j < n; j++) {
            const float *br = bf + (size_t)j * k;
            float s = 0.0f;
#pragma omp simd reduction(+ : s)
            for (int kk = 0; kk < k; kk++) s += ar[kk] * br[kk];
            c[(size_t)i * n + j] = s;
        }
    }
    free(af);
    free(bf);
}
