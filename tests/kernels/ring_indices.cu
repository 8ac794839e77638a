// Threads of a block as a ring: after a barrier each thread reads a neighbour's element at a
// wrapped index, `(t + c) & m` or `(t + c) % n`. The block function runs such a region's
// rows of threads in segments where the wrapped index is affine (lower/exec/segments.rs);
// these kernels check its values at every thread, including where the checks fail at run
// time (a mask that is not 2^k - 1, a zero or negative modulus, a negative operand of a
// signed remainder, an operand that wraps past 2^32).

// A smoothing ring like the runtime benchmark's barrier_loop: three buffers rotated over
// `steps` steps, neighbours at (t + 1) & (nt - 1) and (t + nt - 1) & (nt - 1) of the
// block's x threads (each row of a 2D block is its own ring).
extern "C" __global__ void ring_smooth(const float *in, float *out, int steps)
{
    __shared__ float s[3][512];
    int t = threadIdx.x, nt = blockDim.x, row = threadIdx.y * nt;
    size_t base = ((size_t)blockIdx.x * blockDim.y + threadIdx.y) * nt * 3;
    s[0][row + t] = in[base + t];
    s[1][row + t] = in[base + nt + t];
    s[2][row + t] = in[base + 2 * nt + t];
    __syncthreads();
    int w = 0, r1 = 1, r2 = 2;
    for (int k = 0; k < steps; k++) {
        float a = s[r1][row + ((t + 1) & (nt - 1))], b = s[r2][row + ((t + nt - 1) & (nt - 1))], c = s[w][row + t];
        s[w][row + t] = fmaf(a, 0.5f, fmaf(b, 0.25f, c * 0.25f));
        __syncthreads();
        int u = w;
        w = r1;
        r1 = r2;
        r2 = u;
    }
    out[((size_t)blockIdx.x * blockDim.y + threadIdx.y) * nt + t] = s[r2][row + t];
}

// Wrapped indices with a mask and moduli given at launch: each thread writes the values
// (whatever the parameters: masks that are not 2^k - 1, zero and negative moduli, shifts
// that make `t + shift` negative or wrap past 2^32) and an element of the shared array read
// through each.
extern "C" __global__ void ring_params(const int *in, int *out, int shift, unsigned mask, int smod, unsigned umod)
{
    __shared__ int s[1024];
    int t = threadIdx.x + threadIdx.y * blockDim.x;
    int nt = blockDim.x * blockDim.y;
    s[t] = in[blockIdx.x * nt + t];
    __syncthreads();
    unsigned m = (threadIdx.x + shift + threadIdx.y) & mask;
    int r = smod != 0 ? (int)(threadIdx.x + shift) % smod : 0;
    unsigned q = umod != 0 ? (threadIdx.x + (unsigned)shift) % umod : 0u;
    int *o = out + 6 * (blockIdx.x * nt + t);
    o[0] = (int)m;
    o[1] = r;
    o[2] = (int)q;
    o[3] = s[m & (nt - 1)];
    o[4] = s[(unsigned)r & (nt - 1)];
    o[5] = s[q & (nt - 1)];
}

// A wrapped index computed after the barrier from a loop counter (one value for the block,
// kept across the barrier): the region's first block computes `(t + k) % n`.
extern "C" __global__ void ring_rotate(const int *in, int *out, int rounds)
{
    __shared__ int s[2][1024];
    int t = threadIdx.x, n = blockDim.x;
    s[0][t] = in[blockIdx.x * n + t];
    __syncthreads();
    for (int k = 0; k < rounds; k++) {
        s[(k + 1) & 1][t] = s[k & 1][(t + k + 1) % n] + t;
        __syncthreads();
    }
    out[blockIdx.x * n + t] = s[rounds & 1][t];
}

// Warp-per-row and tile indexing after a barrier: a warp index t >> 5 and a lane t & 31
// (constant and affine in segments of 32 threads, which count because they address
// memory), row t / w and column t % w of a w-wide tile (w from a parameter; 0 and negative
// take the other branch), and a 64-bit shift of t.
extern "C" __global__ void ring_tiles(const int *in, int *out, int w)
{
    __shared__ int s[2048];
    int t = threadIdx.x, nt = blockDim.x;
    s[t] = in[blockIdx.x * nt + t];
    s[t + nt] = in[blockIdx.x * nt + t] ^ 0x5555;
    __syncthreads();
    unsigned lane = t & 31, warp = t >> 5;
    int r = 0, c = 0;
    if (w > 0) {
        r = t / w;
        c = t % w;
    }
    int *o = out + 4 * (blockIdx.x * nt + t);
    o[0] = s[warp * 32 + (31 - lane)];
    o[1] = s[r + c];
    o[2] = (int)((unsigned)t / 33u);
    o[3] = s[nt + ((size_t)threadIdx.x >> 6) % 8];
}

// One wrapped index alone (the segments another one would cut do not hide this one's):
// one instruction on tid.x + shift, for every thread, with an amount given at launch, and
// an element read through the result. rem.u32 with operands that wrap past 2^32 and a zero
// divisor (all ones, as on the silicon); rem.s32 with operands that cross 2^31 or are
// negative, INT_MIN % -1, zero and negative moduli; shr.u32 by 0, 32 and more; div.u32 by
// zero and with operands that wrap past 2^32. (The read clamps the index rather than
// wrapping it: a wrap of the result would be segmented too and hide this one's checks.)
#define RING_ONE_OP(name, instr)                                                               \
    extern "C" __global__ void name(const int *in, int *out, unsigned shift, unsigned amount) \
    {                                                                                          \
        __shared__ int s[1024];                                                                \
        int t = threadIdx.x, nt = blockDim.x;                                                  \
        s[t] = in[blockIdx.x * nt + t];                                                        \
        __syncthreads();                                                                       \
        unsigned r;                                                                            \
        asm(instr " %0, %1, %2;" : "=r"(r) : "r"(threadIdx.x + shift), "r"(amount));          \
        out[2 * (blockIdx.x * nt + t)] = (int)r;                                               \
        out[2 * (blockIdx.x * nt + t) + 1] = s[r < nt - 1u ? r : nt - 1u];                     \
    }
RING_ONE_OP(ring_urem, "rem.u32")
RING_ONE_OP(ring_srem, "rem.s32")
RING_ONE_OP(ring_shift, "shr.u32")
RING_ONE_OP(ring_div, "div.u32")
RING_ONE_OP(ring_sshift, "shr.s32")

// Without a barrier: a periodic 1D stencil over the whole array, the neighbours of element
// i at (i + 1) % n and (i + n - 1) % n (the global index, behind the usual i < n guard).
extern "C" __global__ void ring_global(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 0.25f * in[(i + n - 1) % n] + 0.5f * in[i] + 0.25f * in[(i + 1) % n];
}

// Without a barrier: a copy into a pitched 2D array, row i / w and column i % w of the
// global index (segments of w threads where both are affine or constant).
extern "C" __global__ void ring_pitched(const float *in, float *out, int n, int w, int pitch)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[(i / w) * pitch + i % w] = 2.0f * in[i] + (float)(i % w);
}
