// Kernels whose barriers and warp collectives are reached through recursion or function
// pointers: ptx2llvm runs them with the fiber scheduler (a stack per thread).

// Tree reduction of s[0..2k) into s[0], one level per recursive call, a barrier per level
// on the way down and another on the way back up (so the recursion is not a loop).
__device__ __noinline__ int tree_sum(int *s, int t, int k)
{
    if (k == 0) return s[0];
    if (t < k) s[t] += s[t + k];
    __syncthreads();
    int total = tree_sum(s, t, k / 2);
    __syncthreads();
    return total;
}

// Sum of each block's values (block size a power of two, at most 1024).
extern "C" __global__ void recursive_tree(const int *in, int *out, int active)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (t >= active) return;  // exited threads do not block the barriers below
    int total = tree_sum(s, t, blockDim.x / 2);
    if (t == 0) out[blockIdx.x] = total;
}

// Each warp recurses to its own depth (warp w: w % 4 + 1 levels); at every level the lanes
// exchange values with a butterfly shuffle and a ballot on the way down, and a shuffle on
// the way back up. Different warps are at different depths.
__device__ __noinline__ unsigned warp_levels(unsigned v, int depth)
{
    if (depth == 0) return v;
    v += __shfl_xor_sync(0xffffffffu, v, depth & 31);
    unsigned ballot = __ballot_sync(0xffffffffu, v & 1u);
    unsigned r = warp_levels(v ^ ballot, depth - 1);
    return r * 3u + __shfl_xor_sync(0xffffffffu, r, 1);
}

extern "C" __global__ void recursive_warps(const unsigned *in, unsigned *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = warp_levels(in[i], (threadIdx.x / 32) % 4 + 1);
}

// Block operations called through a function-pointer table: each synchronizes.
typedef int (*block_op)(int *s, int v);

__device__ __noinline__ int op_block_max(int *s, int v)
{
    s[threadIdx.x] = v;
    __syncthreads();
    int m = s[0];
    for (int j = 1; j < blockDim.x; j++) m = max(m, s[j]);
    __syncthreads();
    return m;
}

__device__ __noinline__ int op_warp_sum(int *s, int v)
{
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    return __shfl_sync(0xffffffffu, v, 0);
}

__device__ __noinline__ int op_prefix(int *s, int v)
{
    // Inclusive scan over the block (Hillis-Steele), barriers in a loop.
    int t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (int d = 1; d < blockDim.x; d *= 2) {
        int x = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += x;
        __syncthreads();
    }
    return s[t];
}

__device__ block_op ops[3] = {op_block_max, op_warp_sum, op_prefix};

extern "C" __global__ void dispatch(const int *in, int *out, int which)
{
    __shared__ int s[1024];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    block_op op = ops[(which + blockIdx.x) % 3];
    out[i] = op(s, in[i]);
}
