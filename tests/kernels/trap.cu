// `trap` deep inside nested calls ends the launch with an error; the runtime stays usable.
__device__ __noinline__ int inner(int v, int bad) { if (v == bad) __trap(); return v * 2; }
__device__ __noinline__ int outer(int v, int bad) { return inner(v + 1, bad) + 1; }

extern "C" __global__ void maybe_trap(int *out, int bad, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = outer(i, bad);
}
