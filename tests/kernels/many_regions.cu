// Kernels with more than 12 sync points, which ptx2llvm runs as one thread loop for all
// regions entered through a switch (lower/kernel.rs, "compact" kernels). Host checks in
// tests/hosts/many_regions_host.c.

// Inclusive block scan (Hillis-Steele), unrolled: 21 barriers. Threads past n leave
// before the first barrier (exited threads do not block the others).
extern "C" __global__ void scan_unrolled(const int *in, int *out, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    int live = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
    if (t >= live) return;
    s[t] = in[g];
    __syncthreads();
#pragma unroll
    for (int d = 1; d < 1024; d *= 2) {
        int v = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    out[g] = s[t];
}

// Warp-level work between barriers: 16 rounds of (shuffle-xor sum within the warp, barrier,
// rotate a value through shared memory, barrier), with a data-dependent branch around a
// shuffle in each round.
extern "C" __global__ void rounds(const unsigned *in, unsigned *out)
{
    __shared__ unsigned s[1024];
    unsigned t = threadIdx.x;
    unsigned v = in[blockIdx.x * blockDim.x + t];
#pragma unroll
    for (int r = 0; r < 8; r++) {
        unsigned w = v;
        for (int o = 16; o > 0; o /= 2) w += __shfl_xor_sync(0xffffffffu, w, o);
        if (w & 1) v ^= w; else v += w >> 3;
        s[t] = v;
        __syncthreads();
        v = s[(t + r + 1) % blockDim.x] + (v >> 1);
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = v;
}
