// Warp collectives and block barriers beyond plain __syncthreads, compiled to PTX with
// NVRTC (tests/kernels/warps.ptx); checked by tests/hosts/warps_host.c.

// Block sum: shuffle-down tree inside each warp, then warp 0 reduces the warp sums (a
// collective executed by one warp only, after a barrier).
extern "C" __global__ void block_sum(const int *in, int *out, int n)
{
    __shared__ int warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nw = (blockDim.x + 31) / 32;
        int s = lane < nw ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffff, s, off);
        if (lane == 0) out[blockIdx.x] = s;
    }
}

// Every shuffle mode, with sub-warp widths (the c operand's segment mask and clamp).
extern "C" __global__ void shuffles(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i % n];
    int *o = out + 6 * i;
    o[0] = __shfl_sync(0xffffffff, v, (threadIdx.x * 7) % 32);
    o[1] = __shfl_up_sync(0xffffffff, v, 3);
    o[2] = __shfl_down_sync(0xffffffff, v, 5, 8);
    o[3] = __shfl_xor_sync(0xffffffff, v, 6, 16);
    o[4] = __shfl_sync(0xffffffff, v, 2, 4);
    o[5] = __shfl_up_sync(0xffffffff, v, 1, 16);
}

// Votes, ballot, match, redux and activemask, including in divergent branches.
extern "C" __global__ void votes(const int *in, unsigned *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned *o = out + 8 * i;
    o[0] = __ballot_sync(0xffffffff, v > 0);
    o[1] = __all_sync(0xffffffff, v > -1000);
    o[2] = __any_sync(0xffffffff, v == 7);
    o[3] = __match_any_sync(0xffffffff, v & 3);
    int pred;
    o[4] = __match_all_sync(0xffffffff, v & 1, &pred);
    o[5] = (unsigned)pred;
    o[6] = __reduce_add_sync(0xffffffff, (unsigned)v) ^ __reduce_max_sync(0xffffffff, (unsigned)v);
    if (v & 1) o[7] = __activemask();
    else o[7] = __reduce_or_sync(__activemask(), (unsigned)v);
}

// __syncthreads_count/_and/_or (bar.red) and a producer/consumer pair of named barriers
// (bar.arrive + bar.sync with a thread count): the first half of the block produces, the
// second half consumes.
extern "C" __global__ void named_barriers(const int *in, int *out)
{
    __shared__ int buf[512];
    int t = threadIdx.x;
    int half = blockDim.x / 2;
    int v = in[blockIdx.x * blockDim.x + t];
    int count = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > -50);
    int any = __syncthreads_or(v == 3);
    if (t < half) {
        buf[t] = v * 2;
        asm volatile("bar.arrive 1, %0;" :: "r"(blockDim.x));
    } else {
        asm volatile("bar.sync 1, %0;" :: "r"(blockDim.x));
        out[blockIdx.x * blockDim.x + t] = buf[t - half] + count * 1000 + all * 100 + any * 10;
    }
    if (t < half) out[blockIdx.x * blockDim.x + t] = count * 1000 + all * 100 + any * 10;
}

// Non-aligned barrier.sync reached from two different instructions by different threads.
extern "C" __global__ void split_barrier(int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    s[t] = t;
    if (t % 3 == 0) {
        asm volatile("barrier.sync 2;");
        out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x];
    } else {
        s[t] = t * 10;
        asm volatile("barrier.sync 2;");
        out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x] + 1;
    }
}

// Warp collectives right after code that every thread runs, in blocks whose last warp is
// partial (the membermask names the lanes that exist): the block function leaves such
// blocks to the scheduler, which reads the thread states the dense run would otherwise not
// need to write.
extern "C" __global__ void partial_warps(const int *in, unsigned *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned warp = threadIdx.x / 32, left = blockDim.x - warp * 32;
    unsigned mask = left >= 32 ? 0xffffffffu : (1u << left) - 1;
    int v = in[i] * 3 + 1;
    unsigned s = __reduce_add_sync(mask, (unsigned)v);
    unsigned b = __ballot_sync(mask, v & 1);
    unsigned m = __reduce_max_sync(mask, (unsigned)v ^ s);
    out[3 * i] = s;
    out[3 * i + 1] = b;
    out[3 * i + 2] = m;
}

// After a barrier only the warps selected by `sel` (bit w: warp w) sum their lanes with a
// chain of shuffles while the others wait at the next barrier: each completion releases
// the selected warps alone (the loop over the released threads runs the x range from the
// first of them to the last, and skips the others there by their states).
extern "C" __global__ void selected_warps(const int *in, int *out, unsigned sel)
{
    __shared__ int sums[32];
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int v = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if ((sel >> warp) & 1) {
        for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
        if (lane == 0) sums[warp] = v;
    } else if (lane == 0) {
        sums[warp] = -1;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = sums[warp] + lane;
}
