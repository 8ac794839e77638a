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

// Shared-memory accesses at strides that depend on the thread, which vectorized thread
// loops make gathers and scatters (PTX computes shared addresses in 64 bits; they are
// rewritten to the window plus 32-bit offsets). An alignment table filled along its
// anti-diagonals, one row per thread (a stride of `L` elements, one sequence read
// reversed), placed in dynamic shared memory after the static arrays (offsets that are
// not constants); every thread returns its row's last cell (a column read).
extern "C" __global__ void shared_wavefront(const unsigned char *a, const unsigned char *b, int *last)
{
    extern __shared__ int h[]; // (L + 1) x (L + 1)
    __shared__ unsigned char sa[128], sb[128];
    int L = blockDim.x, t = threadIdx.x, w = L + 1;
    sa[t] = a[blockIdx.x * L + t];
    sb[t] = b[blockIdx.x * L + t];
    h[(t + 1) * w] = -(t + 1);
    h[t + 1] = -2 * (t + 1);
    if (t == 0) h[0] = 0;
    __syncthreads();
    int i = t + 1;
    for (int d = 0; d < 2 * L - 1; d++) {
        int j = d - t + 1;
        if (j >= 1 && j <= L) {
            int s = sa[i - 1] == sb[j - 1] ? 3 : -2;
            h[i * w + j] = max(h[(i - 1) * w + j - 1] + s, max(h[(i - 1) * w + j] - 2, h[i * w + j - 1] - 1));
        }
        __syncthreads();
    }
    last[blockIdx.x * L + t] = h[i * w + L];
}

// A 32 x 32 tile of doubles through shared memory (rows padded to 33), read along columns
// and at rows permuted per thread (gathers of 8-byte elements), by 32 x blockDim.y threads
// that each loop over a quarter of the rows.
extern "C" __global__ void shared_columns(const double *in, double *out)
{
    __shared__ double tile[32][33];
    int x = threadIdx.x, y = threadIdx.y;
    size_t base = (size_t)blockIdx.x * 1024;
    for (int k = y; k < 32; k += blockDim.y) tile[k][x] = in[base + k * 32 + x];
    __syncthreads();
    for (int k = y; k < 32; k += blockDim.y) out[base + k * 32 + x] = tile[x][k] * 2.0 + tile[(x * 5 + k) & 31][(k * 7) & 31];
}

// Each thread stores its value at a permuted slot of a shared array (a scatter: slot
// `t * step mod n`, step odd, n a power of two) and reads back another thread's after a
// barrier.
extern "C" __global__ void shared_scatter(int step, const int *in, int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x, n = blockDim.x;
    size_t i = (size_t)blockIdx.x * n + t;
    s[(t * step) & (n - 1)] = in[i] + t;
    __syncthreads();
    out[i] = s[t];
}

// A value read from one shared address by the threads whose flag is set and stored by them
// to one global address (`out[block] = s[1]`): the vectorized loop's gather and scatter
// through one address are both rewritten, the scatter storing what the rewritten gather
// loaded (its operand read after the gather's rewrite replaced it).
extern "C" __global__ void uniform_copy(const int *flag, const int *in, int *out)
{
    __shared__ int s[2];
    int t = threadIdx.x;
    if (t < 2) s[t] = in[blockIdx.x * 2 + t];
    __syncthreads();
    if (flag[blockIdx.x * blockDim.x + t]) out[blockIdx.x] = s[1];
}
