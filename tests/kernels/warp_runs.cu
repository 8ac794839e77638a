// Chains of regions joined by warp collectives, which block functions run warp by warp
// (ptx2llvm/src/lower/exec/warp_runs.rs), compiled to PTX with NVRTC
// (tests/kernels/warp_runs.ptx); checked by tests/hosts/warp_runs_host.c on blocks made of
// whole warps along x (warp runs) and on others (the region-by-region form).

#define FULL 0xffffffffu

__device__ __forceinline__ int warp_inclusive_scan(int v, unsigned lane)
{
    for (int d = 1; d < 32; d *= 2) {
        int u = __shfl_up_sync(FULL, v, d);
        if (lane >= d) v += u;
    }
    return v;
}

// Inclusive scan of each block's elements (linear thread index, 1D or 2D blocks): the warps
// scan their lanes (a chain every warp runs to the barrier), warp 0 scans the warps' totals
// (a chain only warp 0 takes: the others go to the barrier), each thread adds the totals of
// the warps before its own. `v` lives from the first chain to the end.
extern "C" __global__ void block_scan(int n, const int *in, int *out)
{
    __shared__ int totals[32];
    unsigned t = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
    unsigned lane = t % 32, warp = t / 32;
    int i = blockIdx.x * threads + t;
    int v = i < n ? in[i] : 0;
    v = warp_inclusive_scan(v, lane);
    if (lane == 31 || t == threads - 1) totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int s = lane < (threads + 31) / 32 ? totals[lane] : 0;
        totals[lane] = warp_inclusive_scan(s, lane);
    }
    __syncthreads();
    if (warp > 0) v += totals[warp - 1];
    if (i < n) out[i] = v;
}

// Butterfly reductions of doubles (two 32-bit shuffles per step) and of 64-bit integers,
// a ballot, a vote and a `redux` in one chain; whole warps past the end of the data exit
// before it (a warp-uniform exit: those warps leave the chain). A predicate computed
// before the chain is used after it.
extern "C" __global__ void mixed_chain(int nwarps, const double *x, const long long *y, double *sum, long long *ysum, unsigned *bits)
{
    unsigned lane = threadIdx.x % 32;
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (w >= nwarps) return;
    double d = x[w * 32 + lane];
    long long q = y[w * 32 + lane];
    bool big = q > 0;
    for (int k = 16; k > 0; k /= 2) {
        d += __shfl_xor_sync(FULL, d, k);
        q ^= __shfl_xor_sync(FULL, q, k) * 3;
    }
    unsigned b = __ballot_sync(FULL, d > 0.0);
    int all = __all_sync(FULL, q != 7);
    unsigned r = __reduce_add_sync(FULL, (unsigned)(q & 0xff));
    if (big) bits[w * 32 + lane] = b ^ r ^ (unsigned)all;
    else bits[w * 32 + lane] = ~b;
    if (lane == 5) {
        sum[w] = d;
        ysum[w] = q;
    }
}

// Warps a bit mask selects scan their lanes, the others go straight to the barrier; then a
// half-warp shuffle chain under a 16-lane mask that only lanes below 16 reach (the warp
// cannot complete it as a whole: the scheduler does).
extern "C" __global__ void selected_chains(unsigned sel, const int *in, int *out)
{
    __shared__ int first[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    if ((sel >> warp) & 1) v = warp_inclusive_scan(v, lane);
    if (lane == 0) first[warp] = v;
    __syncthreads();
    int u = v + first[(warp + 1) % (blockDim.x / 32)];
    if (lane < 16) {
        u += __shfl_down_sync(0x0000ffffu, u, 8, 16);
        u += __shfl_down_sync(0x0000ffffu, u, 4, 16);
    }
    out[i] = u;
}

// One warp per row: a per-lane pass over the row (an interchanged loop), a butterfly of
// maxima, and a second per-lane pass that uses the maximum (interchanged too: the chain of
// shuffles ends before the region that holds it). Rows past the end exit first.
extern "C" __global__ void row_shift(int rows, int cols, const float *in, float *out)
{
    unsigned lane = threadIdx.x % 32;
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;
    const float *x = in + (size_t)row * cols;
    float m = __int_as_float(0xff800000);
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, x[j]);
    for (int d = 16; d > 0; d /= 2) m = fmaxf(m, __shfl_xor_sync(FULL, m, d));
    for (int j = lane; j < cols; j += 32) out[(size_t)row * cols + j] = x[j] - m;
}
