/* The native C/OpenMP versions of bench/runtime/kernels.cu. */
#include <stddef.h>

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
