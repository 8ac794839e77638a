// Per-thread pointers read back from the context area, and accesses of one address by a
// whole vector of threads: the masked gathers and scatters a vectorized thread loop makes
// of them are rewritten after LLVM's pipeline (lower/opt/gather_scatter.rs). The hosts run
// them with pointers that are consecutive for consecutive threads (the fast path), and
// with permuted, reversed and partly consecutive ones (the gathers and scatters).

// Each thread walks a column of `table` from row `t & 3` (a start that differs between
// threads, so the loop is interchanged and its pointer kept per thread between passes):
// `table + perm[t] + i * n`. It writes the running sums through another kept pointer.
extern "C" __global__ void pointer_walk(int n, int steps, const int *perm, const float *table, float *sums, float *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const float *p = table + perm[t];
    float *q = out + perm[t];
    float s = 0.0f;
    for (int i = t & 3; i < steps; i++) {
        s += p[(size_t)i * n];
        q[(size_t)i * n] = s;
    }
    sums[t] = s;
}

// Per-warp totals stored by the last lane of each warp and read back by every thread after
// a barrier (one address for a whole segment of a warp's threads), and a value read from a
// per-block slot by the threads whose `flag` is set.
extern "C" __global__ void warp_slots(const int *in, const int *flag, int *out)
{
    __shared__ int totals[32];
    __shared__ int slot;
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int i = blockIdx.x * blockDim.x + t;
    int v = in[i];
    if (lane == 31) totals[warp] = v * 3 + warp;
    if (t == 0) slot = v ^ 0x55;
    __syncthreads();
    int r = totals[warp] - lane;
    if (flag[i]) r += slot;
    out[i] = r;
}

// Several threads of a vector store to one address: `box[t / 64]` from every fourth
// thread. Threads run in order in a thread loop, so the last of them stores last (the
// GPU leaves unspecified which store lands; ptxrt's order is the threads' order).
extern "C" __global__ void last_writer(const int *in, int *box)
{
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    if (t % 4 == 0) box[blockIdx.x * (blockDim.x / 64) + t / 64] = v + t;
}
