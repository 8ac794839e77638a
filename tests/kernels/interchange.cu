// Grid-stride loops (trip counts that differ between threads, including zero), which the
// block function runs iteration by iteration across the threads of a block.

// Barrier-free: each thread's count of iterations, its checksum, and the index it stopped at.
extern "C" __global__ void stride_scale(int n, int stride_mul, const int *in, int *out, int *trips, int *last)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x * stride_mul;
    int count = 0, i;
    for (i = g * 3 - 5; i < n; i += stride) {
        if (i >= 0) out[i] = in[i] * 2 + count;
        count++;
    }
    trips[g] = count;
    last[g] = i;
}

// 64-bit induction, 2D blocks, an early return inside the loop.
extern "C" __global__ void stride_until(unsigned long long n, const float *in, float *out, int *stopped)
{
    unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x * blockDim.y + t;
    unsigned long long step = (unsigned long long)gridDim.x * blockDim.x * blockDim.y;
    stopped[g] = 0;
    for (unsigned long long i = g; i < n; i += step) {
        if (in[i] < 0.0f) {
            stopped[g] = 1;
            return;
        }
        out[i] = in[i] * 0.5f + 1.0f;
    }
}

// Grid-stride sum before and after barriers (a shared-memory tree in between).
extern "C" __global__ void stride_sums(int n, const unsigned *in, unsigned *partial, unsigned *again)
{
    extern __shared__ unsigned s[];
    unsigned t = threadIdx.x;
    unsigned v = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += in[i] * (t + 1);
    s[t] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    unsigned total = s[0];
    if (t == 0) partial[blockIdx.x] = total;
    // After the barriers: the block's threads walk the array again, offset by the sum.
    unsigned w = 0;
    for (int i = blockIdx.x * blockDim.x + t + (int)(total % 7); i < n; i += gridDim.x * blockDim.x) w ^= in[i] + i;
    again[blockIdx.x * blockDim.x + t] = w;
}

// Barrier-free, 2D blocks, the x index used only as blockIdx.x * blockDim.x + threadIdx.x:
// blocks along x run fused (lower/exec/fusion.rs), so the context area holds a whole run
// of blocks' threads. Each thread folds every element of its grid-stride walk of row y
// into a running value (kept per thread across the iterations).
extern "C" __global__ void stride_rows(int n, const unsigned *in, unsigned *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned v = y * 2654435761u;
#pragma unroll 1
    for (int i = x; i < n; i += gridDim.x * blockDim.x) v = (v ^ in[y * n + i]) * 16777619u + (unsigned)i;
    out[y * (gridDim.x * blockDim.x) + x] = v;
}

// Uniform loops: every thread that stays runs the same passes (the tile loop of an n-body
// step, inside the loop over tiles, which crosses barriers). Threads from `active` on leave
// before the loops (the other threads' passes are then not dense). Per thread: an in-order
// fused multiply-add sum and a count kept by the loop.
extern "C" __global__ void tile_loops(int n, int active, const float *pos, float *acc, int *count)
{
    extern __shared__ float tile[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t >= active) return;
    float p = pos[i];
    float a = 0.0f;
    int c = 0;
    for (int t0 = 0; t0 < n; t0 += blockDim.x) {
        tile[t] = pos[t0 + t];
        __syncthreads();
        for (int j = 0; j < active; j++) {
            float d = tile[j] - p;
            a = fmaf(d, d * 0.5f, a);
            c += d > 0.0f;
        }
        __syncthreads();
    }
    acc[i] = a;
    count[i] = c;
}
