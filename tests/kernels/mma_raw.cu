// mma_raw.cu: one mma.sync per warp on raw fragment bits, for every dense floating-point form
// a block function computes itself (f16/bf16/tf32 multiplicands, f32 or f16 accumulators,
// m16n8k4/k8/k16). Each thread loads its A, B and C registers from its own slots of the
// inputs and stores its D registers. Translated with cuda2ptx (compute_80).
#define MMA_KERNEL(NAME, SHAPE_TYPES, NA, NB, NC, ND, DLIST, ALIST, BLIST, CLIST)             \
    extern "C" __global__ void NAME(const unsigned *a, const unsigned *b, const unsigned *c, \
                                    unsigned *d)                                             \
    {                                                                                        \
        unsigned t = blockIdx.x * blockDim.x + threadIdx.x;                                  \
        unsigned A[4] = {0, 0, 0, 0}, B[2] = {0, 0}, C[4] = {0, 0, 0, 0}, D[4];             \
        for (int j = 0; j < NA; j++) A[j] = a[t * NA + j];                                   \
        for (int j = 0; j < NB; j++) B[j] = b[t * NB + j];                                   \
        for (int j = 0; j < NC; j++) C[j] = c[t * NC + j];                                   \
        asm volatile("mma.sync.aligned." SHAPE_TYPES " " DLIST ", " ALIST ", " BLIST ", " CLIST ";" \
                     : "=r"(D[0]), "=r"(D[1]), "=r"(D[2]), "=r"(D[3])                       \
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]),     \
                       "r"(C[0]), "r"(C[1]), "r"(C[2]), "r"(C[3]));                          \
        for (int j = 0; j < ND; j++) d[t * ND + j] = D[j];                                   \
    }

#define D4 "{%0,%1,%2,%3}"
#define D2 "{%0,%1}"
#define A4 "{%4,%5,%6,%7}"
#define A2 "{%4,%5}"
#define B2 "{%8,%9}"
#define B1 "{%8}"
#define C4 "{%10,%11,%12,%13}"
#define C2 "{%10,%11}"

MMA_KERNEL(mma_k16_f32_f16, "m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 4, 4, D4, A4, B2, C4)
MMA_KERNEL(mma_k16_f16_f16, "m16n8k16.row.col.f16.f16.f16.f16", 4, 2, 2, 2, D2, A4, B2, C2)
MMA_KERNEL(mma_k8_f32_f16, "m16n8k8.row.col.f32.f16.f16.f32", 2, 1, 4, 4, D4, A2, B1, C4)
MMA_KERNEL(mma_k8_f16_f16, "m16n8k8.row.col.f16.f16.f16.f16", 2, 1, 2, 2, D2, A2, B1, C2)
MMA_KERNEL(mma_k16_f32_bf16, "m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2, 4, 4, D4, A4, B2, C4)
MMA_KERNEL(mma_k8_f32_bf16, "m16n8k8.row.col.f32.bf16.bf16.f32", 2, 1, 4, 4, D4, A2, B1, C4)
MMA_KERNEL(mma_k8_f32_tf32, "m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, 4, 4, D4, A4, B2, C4)
MMA_KERNEL(mma_k4_f32_tf32, "m16n8k4.row.col.f32.tf32.tf32.f32", 2, 1, 4, 4, D4, A2, B1, C4)
