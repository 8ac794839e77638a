// Code written for lockstep warps (before Volta), compiled to PTX with NVRTC
// (tests/kernels/legacy_warp.ptx); checked by tests/hosts/legacy_warp_host.c.

// The classic shared-memory reduction: the last warp is unrolled through volatile shared
// memory with no barrier, relying on its lanes executing each line together.
extern "C" __global__ void legacy_reduce(const int *in, int *out, int n)
{
    __shared__ int sdata[1024];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    int sum = i < n ? in[i] : 0;
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile int *smem = sdata;
        if (blockDim.x >= 64) smem[tid] = sum = sum + smem[tid + 32];
        smem[tid] = sum = sum + smem[tid + 16];
        smem[tid] = sum = sum + smem[tid + 8];
        smem[tid] = sum = sum + smem[tid + 4];
        smem[tid] = sum = sum + smem[tid + 2];
        smem[tid] = sum = sum + smem[tid + 1];
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// One warp spins on a volatile shared flag that another warp sets.
extern "C" __global__ void spin_flag(int *out)
{
    __shared__ volatile int flag;
    __shared__ volatile int data;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    if (threadIdx.x == 32) {
        data = 42 + (int)blockIdx.x;
        __threadfence_block();
        flag = 1;
    }
    if (threadIdx.x == 0) {
        while (flag == 0) { }
        out[blockIdx.x] = data;
    }
}
