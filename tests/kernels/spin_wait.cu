// Spin-waits between the warps of a block on global memory: warp w waits until warp w + 1
// has published its value (the last warp starts the chain), then publishes its own. On a
// GPU the warps run concurrently; ptx2llvm must let the other warps run while one spins.

// flags: one word per warp per block, zero on entry. out: one value per thread.
extern "C" __global__ void spin_volatile(int *flags, int *vals, int *out)
{
    int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32;
    volatile int *flag = flags + blockIdx.x * warps;
    volatile int *val = vals + blockIdx.x * warps;
    int mine = (int)blockIdx.x * 1000 + w;
    if (w + 1 < warps) {
        while (flag[w + 1] == 0) { }
        mine += val[w + 1];
    }
    __syncwarp();
    if (lane == 0) {
        val[w] = mine;
        __threadfence();
        flag[w] = 1;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = mine;
}

__device__ int load_acquire(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ void store_release(int *p, int v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

// The same chain with acquire/release accesses (warp w + 1 publishes with a release store).
extern "C" __global__ void spin_acquire(int *flags, int *vals, int *out)
{
    int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32;
    int *flag = flags + blockIdx.x * warps;
    int *val = vals + blockIdx.x * warps;
    int mine = (int)blockIdx.x * 1000 + w;
    if (w + 1 < warps) {
        while (load_acquire(flag + w + 1) == 0) { }
        mine += val[w + 1];
    }
    __syncwarp();
    if (lane == 0) {
        val[w] = mine;
        store_release(flag + w, 1);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = mine;
}

// The same chain polling with an atomic that does not change the flag.
extern "C" __global__ void spin_atomic(int *flags, int *vals, int *out)
{
    int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32;
    int *flag = flags + blockIdx.x * warps;
    int *val = vals + blockIdx.x * warps;
    int mine = (int)blockIdx.x * 1000 + w;
    if (w + 1 < warps) {
        while (atomicOr(flag + w + 1, 0) == 0) { }
        __threadfence();
        mine += ((volatile int *)val)[w + 1];
    }
    __syncwarp();
    if (lane == 0) {
        ((volatile int *)val)[w] = mine;
        __threadfence();
        atomicExch(flag + w, 1);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = mine;
}

// The same chain with the wait in a function the compiler does not inline (the kernel
// runs as fibers: the poll inside the function is a sync point).
__device__ __noinline__ int wait_for(volatile int *flag, volatile int *val)
{
    while (*flag == 0) { }
    return *val;
}

extern "C" __global__ void spin_call(int *flags, int *vals, int *out)
{
    int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32;
    volatile int *flag = flags + blockIdx.x * warps;
    volatile int *val = vals + blockIdx.x * warps;
    int mine = (int)blockIdx.x * 1000 + w;
    if (w + 1 < warps) mine += wait_for(flag + w + 1, val + w + 1);
    __syncwarp();
    if (lane == 0) {
        val[w] = mine;
        __threadfence();
        flag[w] = 1;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = mine;
}
