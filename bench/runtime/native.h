/* The native C/OpenMP twins of the kernels in kernels.cu (native.c). */
#ifndef BENCH_NATIVE_H
#define BENCH_NATIVE_H

#define BARRIER_LOOP_THREADS 256 /* the barrier loop's block size (both sides) */
#define NW_MAX_LEN 64            /* the longest sequences of nw_wavefront (NW_MAXL in kernels.cu) */

void axpy_native(int n, float a, const float *x, float *y);
void stencil_native(int w, int h, const float *in, float *out);
float sum_native(int n, const float *in);
void softmax_native(int rows, int cols, const float *in, float *out);
void scan_chunks_native(int n, int chunk, const int *in, int *out);
void histogram256_native(int n, const unsigned char *data, unsigned int *bins);
void nbody_native(int n, float eps2, const float *pos, float *acc);
void sgemm_native(int m, int n, int k, const float *a, const float *b, float *c);
void transpose_native(int rows, int cols, const float *in, float *out);
void nw_native(int pairs, int len, const unsigned char *a, const unsigned char *b, int *score);
void interp_native(int n, const float *table, const float *pos, float *out);
void barrier_loop_native(int blocks, const float *in, float *out);
/* After rows - 1 steps the last row's costs are in src if rows - 1 is even, else in dst. */
void pathfinder_native(int cols, int rows, const int *wall, int *src, int *dst);
/* C = A * B with A (m x k) row-major and B given as Bt (n x k) row-major, both binary16. */
void mma_gemm_native(int m, int n, int k, const unsigned short *a, const unsigned short *bt, float *c);
void hotspot_native(int cols, int rows, int steps, const float *power, float *in, float *out, float cap, float rx, float ry, float rz, float step);

#endif
