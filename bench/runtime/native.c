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
