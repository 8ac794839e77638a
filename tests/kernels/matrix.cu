/* matrix.cu: warp-level matrix instructions for the end-to-end tests (PTX generated with
 * NVRTC for compute_90 (the 8-bit float and f64 m16n8 forms need sm_89/sm_90), with the CUDA toolkit's include directory on the path for
 * <mma.h>; the host is tests/hosts/matrix_host.c).
 * - one kernel per mma.sync form (inline PTX): each lane loads its A, B, C fragment registers
 *   from `in` (laid out by the host from the ISA's fragment tables) and stores its D registers;
 * - ldmatrix x1/x2/x4 with and without .trans from a padded shared tile with permuted rows;
 * - nvcuda::wmma load/mma/store for every shape, layout and element type;
 * - a tiled f16 GEMM the way real code does it: cp.async (with src-size zero fill) double
 *   buffering with commit/wait groups, ldmatrix (.trans for B) and mma.m16n8k16. */
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

#define LANE_WORDS(n) (in + (blockIdx.x * blockDim.x + threadIdx.x) * (n))

extern "C" __global__ void mma_m16n8k16_f32_f16(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(10);
    unsigned a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 4; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k16_f16_f16(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(8);
    unsigned a[4], b[2], c[2], d[2];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 2; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
    for (int i = 0; i < 2; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 2 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k8_f32_f16(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(7);
    unsigned a[2], b[1], c[4], d[4];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[2 + i];
    for (int i = 0; i < 4; i++) c[i] = p[3 + i];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k8_f16_f16(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(5);
    unsigned a[2], b[1], c[2], d[2];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[2 + i];
    for (int i = 0; i < 2; i++) c[i] = p[3 + i];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%5, %6};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
    for (int i = 0; i < 2; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 2 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k16_f32_bf16(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(10);
    unsigned a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 4; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k8_f32_bf16(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(7);
    unsigned a[2], b[1], c[4], d[4];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[2 + i];
    for (int i = 0; i < 4; i++) c[i] = p[3 + i];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k8_f32_tf32(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(10);
    unsigned a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 4; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k4_f32_tf32(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(7);
    unsigned a[2], b[1], c[4], d[4];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[2 + i];
    for (int i = 0; i < 4; i++) c[i] = p[3 + i];
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k32_s8_s8(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(10);
    unsigned a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 4; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k32_u8_s8_satfinite(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(10);
    unsigned a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 4; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k16_s8_u8_satfinite(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(7);
    unsigned a[2], b[1], c[4], d[4];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[2 + i];
    for (int i = 0; i < 4; i++) c[i] = p[3 + i];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k16_u8_u8(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(7);
    unsigned a[2], b[1], c[4], d[4];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[2 + i];
    for (int i = 0; i < 4; i++) c[i] = p[3 + i];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m8n8k4_f64(const unsigned long long *in, unsigned long long *out)
{
    const unsigned long long *p = LANE_WORDS(4);
    unsigned long long a[1], b[1], c[2], d[2];
    for (int i = 0; i < 1; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[1 + i];
    for (int i = 0; i < 2; i++) c[i] = p[2 + i];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=l"(d[0]), "=l"(d[1])
                 : "l"(a[0]), "l"(b[0]), "l"(c[0]), "l"(c[1]));
    for (int i = 0; i < 2; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 2 + i] = d[i];
}

extern "C" __global__ void mma_m8n8k4_f32_f16_rowcol(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(12);
    unsigned a[2], b[2], c[8], d[8];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[2 + i];
    for (int i = 0; i < 8; i++) c[i] = p[4 + i];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9}, {%10, %11}, {%12, %13, %14, %15, %16, %17, %18, %19};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(c[5]), "r"(c[6]), "r"(c[7]));
    for (int i = 0; i < 8; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 8 + i] = d[i];
}

extern "C" __global__ void mma_m8n8k4_f16_f16_colrow(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(8);
    unsigned a[2], b[2], c[4], d[4];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[2 + i];
    for (int i = 0; i < 4; i++) c[i] = p[4 + i];
    asm volatile("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, {%8, %9, %10, %11};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m8n8k4_f32_f16acc_colcol(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(8);
    unsigned a[2], b[2], c[4], d[8];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[2 + i];
    for (int i = 0; i < 4; i++) c[i] = p[4 + i];
    asm volatile("mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9}, {%10, %11}, {%12, %13, %14, %15};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 8; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 8 + i] = d[i];
}

extern "C" __global__ void mma_m8n8k16_s8_u8(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(4);
    unsigned a[1], b[1], c[2], d[2];
    for (int i = 0; i < 1; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[1 + i];
    for (int i = 0; i < 2; i++) c[i] = p[2 + i];
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
    for (int i = 0; i < 2; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 2 + i] = d[i];
}

extern "C" __global__ void mma_m8n8k32_s4_s4(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(4);
    unsigned a[1], b[1], c[2], d[2];
    for (int i = 0; i < 1; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[1 + i];
    for (int i = 0; i < 2; i++) c[i] = p[2 + i];
    asm volatile("mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
    for (int i = 0; i < 2; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 2 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k32_s4_u4(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(7);
    unsigned a[2], b[1], c[4], d[4];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[2 + i];
    for (int i = 0; i < 4; i++) c[i] = p[3 + i];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s4.u4.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k64_u4_s4_satfinite(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(10);
    unsigned a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 4; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.s4.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k32_f32_e4m3_e5m2(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(10);
    unsigned a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 4; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k16_f16_e5m2_e4m3(const unsigned *in, unsigned *out)
{
    const unsigned *p = LANE_WORDS(5);
    unsigned a[2], b[1], c[2], d[2];
    for (int i = 0; i < 2; i++) a[i] = p[i];
    for (int i = 0; i < 1; i++) b[i] = p[2 + i];
    for (int i = 0; i < 2; i++) c[i] = p[3 + i];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e4m3.f16 {%0, %1}, {%2, %3}, {%4}, {%5, %6};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
    for (int i = 0; i < 2; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 2 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k8_f64(const unsigned long long *in, unsigned long long *out)
{
    const unsigned long long *p = LANE_WORDS(10);
    unsigned long long a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = p[i];
    for (int i = 0; i < 2; i++) b[i] = p[4 + i];
    for (int i = 0; i < 4; i++) c[i] = p[6 + i];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=l"(d[0]), "=l"(d[1]), "=l"(d[2]), "=l"(d[3])
                 : "l"(a[0]), "l"(a[1]), "l"(a[2]), "l"(a[3]), "l"(b[0]), "l"(b[1]), "l"(c[0]), "l"(c[1]), "l"(c[2]), "l"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

extern "C" __global__ void mma_m16n8k16_f64(const unsigned long long *in, unsigned long long *out)
{
    const unsigned long long *p = LANE_WORDS(16);
    unsigned long long a[8], b[4], c[4], d[4];
    for (int i = 0; i < 8; i++) a[i] = p[i];
    for (int i = 0; i < 4; i++) b[i] = p[8 + i];
    for (int i = 0; i < 4; i++) c[i] = p[12 + i];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%16, %17, %18, %19};"
                 : "=l"(d[0]), "=l"(d[1]), "=l"(d[2]), "=l"(d[3])
                 : "l"(a[0]), "l"(a[1]), "l"(a[2]), "l"(a[3]), "l"(a[4]), "l"(a[5]), "l"(a[6]), "l"(a[7]), "l"(b[0]), "l"(b[1]), "l"(b[2]), "l"(b[3]), "l"(c[0]), "l"(c[1]), "l"(c[2]), "l"(c[3]));
    for (int i = 0; i < 4; i++) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = d[i];
}

/* ldmatrix: a 32x8 tile of 16-bit elements in shared memory, rows 24 elements apart; lane
 * l gives the address of tile row (5 l + 3) mod 32. Each lane stores its 14 result
 * registers: x1, x2, x4, x1.trans, x2.trans, x4.trans. */
#define LDM_STRIDE 24
extern "C" __global__ void ldmatrix_forms(const unsigned short *src, unsigned *out)
{
    __shared__ __align__(16) unsigned short tile[32 * LDM_STRIDE];
    unsigned lane = threadIdx.x;
    for (int i = lane; i < 32 * 8; i += 32) tile[(i / 8) * LDM_STRIDE + i % 8] = src[i];
    __syncwarp();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[((5 * lane + 3) % 32) * LDM_STRIDE]);
    unsigned r[14];
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[1]), "=r"(r[2]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[7]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[8]), "=r"(r[9]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]) : "r"(addr));
    for (int i = 0; i < 14; i++) out[lane * 14 + i] = r[i];
}

/* wmma: one warp per block computes D = A*B + C for the tile of its block index. Leading
 * dimensions are padded (ld = natural + pad) so the stride operand matters. */
template <int M, int N, int K, typename Frag, typename T, typename Acc, typename LA, typename LB>
__device__ void wmma_tile(const T *a, const T *b, const Acc *c, Acc *d, int lda, int ldb, int ldc, bool c_col, bool d_col)
{
    size_t tile = blockIdx.x;
    a += tile * (size_t)(M * K + 64 * K + 64 * M);
    b += tile * (size_t)(K * N + 64 * K + 64 * N);
    c += tile * (size_t)(M * N + 64 * M + 64 * N);
    d += tile * (size_t)(M * N + 64 * M + 64 * N);
    wmma::fragment<wmma::matrix_a, M, N, K, Frag, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, Frag, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, c_col ? wmma::mem_col_major : wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldc, d_col ? wmma::mem_col_major : wmma::mem_row_major);
}

#define WMMA_KERNEL(name, M, N, K, Frag, T, Acc, LA, LB)                                                        \
    extern "C" __global__ void name(const T *a, const T *b, const Acc *c, Acc *d, int lda, int ldb, int ldc, \
                                    int c_col, int d_col)                                                     \
    {                                                                                                           \
        wmma_tile<M, N, K, Frag, T, Acc, wmma::LA, wmma::LB>(a, b, c, d, lda, ldb, ldc, c_col, d_col);        \
    }

WMMA_KERNEL(wmma_m16n16k16_f16_f32_rr, 16, 16, 16, half, half, float, row_major, row_major)
WMMA_KERNEL(wmma_m16n16k16_f16_f32_cc, 16, 16, 16, half, half, float, col_major, col_major)
WMMA_KERNEL(wmma_m16n16k16_f16_f16_rc, 16, 16, 16, half, half, half, row_major, col_major)
WMMA_KERNEL(wmma_m32n8k16_f16_f32_rc, 32, 8, 16, half, half, float, row_major, col_major)
WMMA_KERNEL(wmma_m32n8k16_f16_f32_cr, 32, 8, 16, half, half, float, col_major, row_major)
WMMA_KERNEL(wmma_m8n32k16_f16_f32_rr, 8, 32, 16, half, half, float, row_major, row_major)
WMMA_KERNEL(wmma_m8n32k16_f16_f16_cc, 8, 32, 16, half, half, half, col_major, col_major)
WMMA_KERNEL(wmma_m16n16k16_bf16_f32_rc, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, row_major, col_major)
WMMA_KERNEL(wmma_m16n16k8_tf32_f32_rr, 16, 16, 8, wmma::precision::tf32, float, float, row_major, row_major)
WMMA_KERNEL(wmma_m16n16k16_s8_s32_rc, 16, 16, 16, signed char, signed char, int, row_major, col_major)
WMMA_KERNEL(wmma_m32n8k16_u8_s32_cr, 32, 8, 16, unsigned char, unsigned char, int, col_major, row_major)

/* A tiled GEMM C = A * B (A MxK and B KxN row-major f16, C f32) the way tensor-core code
 * is written: 4 warps per block compute a 32x16 tile, each warp a 16x8 piece with
 * mma.m16n8k16. Shared tiles of A (32x16) and B (16x16) are double buffered with cp.async
 * (16-byte chunks; rows past M or K are zero-filled with src-size 0), commit_group and
 * wait_group 1; fragments come from ldmatrix.x4 (A) and ldmatrix.x2.trans (B). */
extern "C" __global__ void gemm_cp_async(const half *A, const half *B, float *C, int M, int N, int K)
{
    __shared__ __align__(16) half sa[2][32][16 + 8];
    __shared__ __align__(16) half sb[2][16][16 + 8];
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int row0 = blockIdx.y * 32, col0 = blockIdx.x * 16;
    int wr = (warp / 2) * 16, wc = (warp % 2) * 8;
    float acc[4] = {0, 0, 0, 0};
    int steps = (K + 15) / 16;
    auto load = [&](int step, int buf) {
        int k0 = step * 16;
        if (tid < 64) { /* A: 32 rows x 2 chunks of 8 halves */
            int r = tid / 2, ch = tid % 2;
            int gr = row0 + r, gk = k0 + ch * 8;
            bool ok = gr < M && gk < K;
            const half *g = ok ? A + (size_t)gr * K + gk : A;
            unsigned s = (unsigned)__cvta_generic_to_shared(&sa[buf][r][ch * 8]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(g), "r"(ok ? 16 : 0));
        } else if (tid < 96) { /* B: 16 rows x 2 chunks */
            int i = tid - 64, r = i / 2, ch = i % 2;
            int gk = k0 + r, gc = col0 + ch * 8;
            bool ok = gk < K && gc < N;
            const half *g = ok ? B + (size_t)gk * N + gc : B;
            unsigned s = (unsigned)__cvta_generic_to_shared(&sb[buf][r][ch * 8]);
            asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(g), "r"(ok ? 16 : 0));
        }
        asm volatile("cp.async.commit_group;");
    };
    load(0, 0);
    for (int step = 0; step < steps; step++) {
        int buf = step & 1;
        if (step + 1 < steps) {
            load(step + 1, buf ^ 1);
            asm volatile("cp.async.wait_group 1;");
        } else {
            asm volatile("cp.async.wait_all;");
        }
        __syncthreads();
        unsigned a[4], b[2];
        unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[buf][wr + lane % 16][(lane / 16) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
        unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[buf][lane % 16][wc]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncthreads();
    }
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; i++) {
        int r = row0 + wr + g + 8 * (i / 2), c = col0 + wc + 2 * t + (i & 1);
        if (r < M && c < N) C[(size_t)r * N + c] = acc[i];
    }
}
