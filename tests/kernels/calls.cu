// Device functions that are really called (not inlined): parameters and results through
// .param space, structs by value, recursion, and indirect calls through function pointers.
// Compiled to PTX with NVRTC (tests/kernels/calls.ptx); checked by tests/hosts/calls_host.c.

struct Pair { float x; int k; double w; };

__device__ __noinline__ float weigh(float v, Pair p) { return v * p.x + (float)p.k + (float)p.w; }

__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// Recursion with a local array per call frame.
__device__ __noinline__ int digits_sum(int v, int depth)
{
    int buf[4];
    for (int i = 0; i < 4; i++) buf[i] = (v >> (8 * i)) & 0xff;
    int s = buf[0] + buf[1] + buf[2] + buf[3];
    return depth == 0 ? s : s + digits_sum(v / 3 + depth, depth - 1);
}

__device__ __noinline__ Pair make_pair(int i) { Pair p; p.x = 0.5f * (float)i; p.k = i * 3; p.w = -0.25 * i; return p; }

typedef int (*op_t)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b; }
__device__ op_t ops[3] = {op_add, op_mul, op_max};

extern "C" __global__ void calls(const float *in, float *out_f, unsigned *out_fib, int *out_ds, int *out_op, float *out_pair, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Pair p = make_pair(i % 7);
    out_f[i] = weigh(in[i], p);
    out_fib[i] = fib(i % 20);
    out_ds[i] = digits_sum(i * 2654435761u, i % 5);
    op_t f = ops[i % 3];
    out_op[i] = f(i, i % 11);
    out_pair[i] = p.x + (float)p.k + (float)p.w;
}

// A device function with barriers and warp shuffles, called (not inlined by NVRTC) from a
// kernel twice: ptx2llvm inlines such functions into the kernels that call them.
__device__ __noinline__ int block_reduce(int v, int *scratch)
{
    for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffff, v, off);
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    int total = 0;
    for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++) total += scratch[w];
    __syncthreads();
    return total;
}

extern "C" __global__ void sync_calls(const int *in, int *out)
{
    __shared__ int scratch[32];
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int s1 = block_reduce(v, scratch);
    int s2 = block_reduce(v * 2 + 1, scratch);
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = s1; out[2 * blockIdx.x + 1] = s2; }
}
