// Atomics on global and shared memory, compiled to PTX with NVRTC (tests/kernels/atomics.ptx).
// Each kernel has a host reference in tests/hosts/atomics_host.c.

// Histogram: per-block counts in shared memory (atom.shared.add), merged into the global
// histogram (red.global.add); many blocks on several cores hit the same global bins.
extern "C" __global__ void histogram(const unsigned *in, unsigned *bins, int n, int nbins)
{
    extern __shared__ unsigned local_bins[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) local_bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local_bins[in[i] % nbins], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&bins[b], local_bins[b]);
}

// Every operation once per thread on a handful of shared global cells; the results are
// order-independent (commutative operations), except the returned old values of the
// wrapping counters, which are checked as a set by the host.
extern "C" __global__ void mixed(const int *in, int *cells, unsigned *ucells, unsigned long long *wide,
                                 float *fsum, double *dsum, unsigned *inc_old, float *fsub, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    atomicMin(&cells[0], v);
    atomicMax(&cells[1], v);
    atomicAnd(&cells[2], v | 0x10000);
    atomicOr(&cells[3], v & 0x7fff);
    atomicXor(&cells[4], v);
    atomicMin(&ucells[0], (unsigned)v);
    atomicMax(&ucells[1], (unsigned)v);
    inc_old[i] = atomicInc(&ucells[2], 1000u);
    atomicDec(&ucells[3], 77u);
    atomicAdd(&wide[0], (unsigned long long)(long long)v);
    atomicMax(&wide[1], (unsigned long long)(unsigned)v << 20);
    atomicAdd(fsum, 1.0f);
    atomicAdd(dsum, (double)v * 0.5);
    // On global memory f32 atomic adds flush subnormal inputs and results (ISA 9.2 atom).
    atomicAdd(&fsub[0], 1e-40f);
    atomicAdd(&fsub[1], -1e-39f);
}

// A spin lock built from atomicCAS/atomicExch guarding a non-atomic read-modify-write:
// exact only if the atomics are real across cores. One thread per block takes the lock.
extern "C" __global__ void locked_sum(int *lock, long long *total, const int *in)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        __threadfence();
        long long t = *(volatile long long *)total;
        *(volatile long long *)total = t + in[blockIdx.x];
        __threadfence();
        atomicExch(lock, 0);
    }
}

// Shared-memory compare-and-swap and exchange inside one block.
extern "C" __global__ void shared_cas(int *out)
{
    __shared__ int slot;
    __shared__ unsigned ticket;
    if (threadIdx.x == 0) { slot = -1; ticket = 0; }
    __syncthreads();
    // Exactly one thread wins the slot.
    int prev = atomicCAS(&slot, -1, (int)threadIdx.x);
    unsigned my = atomicAdd(&ticket, 1u);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = (prev == -1 ? 1 : 0) + 2 * (int)my;
    if (threadIdx.x == 0) out[gridDim.x * blockDim.x + blockIdx.x] = atomicExch(&slot, 7);
}

// `red` (reductions without a result) as CUDA libraries write them with inline PTX.
extern "C" __global__ void reductions(const int *in, unsigned *usum, int *smax_out, float *fsum, unsigned *wrap, int n)
{
    __shared__ int smax;
    if (threadIdx.x == 0) smax = -2147483647 - 1;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = in[i];
        asm volatile("red.global.add.u32 [%0], %1;" :: "l"(usum), "r"((unsigned)v));
        asm volatile("red.shared.max.s32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&smax)), "r"(v));
        asm volatile("red.relaxed.gpu.global.add.f32 [%0], %1;" :: "l"(fsum), "f"(0.25f));
        asm volatile("red.global.inc.u32 [%0], %1;" :: "l"(wrap), "r"(999u));
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(smax_out, smax);
}
