// isspacep through CUDA's __isGlobal/__isShared/__isLocal/__isConstant on pointers into
// every space, passed through a non-inlined function so the compiler cannot fold them.
// Compiled to PTX with NVRTC (tests/kernels/spaces.ptx); checked by tests/hosts/spaces_host.c.
__constant__ int table[4] = {1, 2, 3, 4};

__device__ __noinline__ unsigned classify(const void *p)
{
    return (__isGlobal(p) ? 1u : 0u) | (__isShared(p) ? 2u : 0u) | (__isLocal(p) ? 4u : 0u) | (__isConstant(p) ? 8u : 0u);
}

extern "C" __global__ void spaces(int *data, unsigned *out)
{
    __shared__ int s[64];
    volatile int local[8];
    int t = threadIdx.x;
    s[t % 64] = t;
    local[t % 8] = t;
    unsigned *o = out + 4 * (blockIdx.x * blockDim.x + t);
    o[0] = classify(data + t);
    o[1] = classify(&s[t % 64]);
    o[2] = classify((const void *)&local[t % 8]);
    o[3] = classify(&table[t % 4]);
}
