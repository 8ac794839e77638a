// CUDA C++ kernels using libcu++'s cuda::barrier and cuda::memcpy_async (mbarrier wait
// loops). PTX generated with NVRTC 12.9, -std=c++17, with the CUDA 12.9 CCCL headers
// (libcu++) on the include path: cuda_barrier.ptx for compute_80 (test_wait loops),
// cuda_barrier_sm90.ptx for compute_90 (arrives with a count, try_wait loops); the host
// for both is tests/hosts/cuda_barrier_host.c.
#include <cuda/barrier>

// The __shared__ barriers are initialized by thread 0 with init(), as CUDA intends.
#pragma nv_diag_suppress static_var_with_dynamic_init

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// rounds of (store, arrive_and_wait, read the neighbour, arrive_and_wait):
// out[g] = sum over r of (in[block * n + (t + 1) % n] * (r + 1))
extern "C" __global__ void rounds(const unsigned *in, unsigned *out, unsigned nrounds)
{
    __shared__ block_barrier bar;
    __shared__ unsigned buf[1024];
    unsigned t = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + t;
    if (t == 0) init(&bar, n);
    __syncthreads();
    unsigned v = in[g], acc = 0;
    for (unsigned r = 0; r < nrounds; r++) {
        buf[t] = v * (r + 1);
        bar.arrive_and_wait();
        acc += buf[(t + 1) % n];
        bar.arrive_and_wait();
    }
    out[g] = acc;
}

// memcpy_async into shared memory completed through the barrier:
// out[g] = in[block * n + n - 1 - t]
extern "C" __global__ void copy_async(const unsigned *in, unsigned *out)
{
    __shared__ block_barrier bar;
    __shared__ unsigned buf[1024];
    unsigned t = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + t;
    if (t == 0) init(&bar, n);
    __syncthreads();
    cuda::memcpy_async(&buf[t], &in[g], sizeof(unsigned), bar);
    block_barrier::arrival_token token = bar.arrive();
    bar.wait(cuda::std::move(token));
    out[g] = buf[n - 1 - t];
}

// Threads t % 4 == 3 leave with arrive_and_drop; the others sum the stayers' values
// after each of two phases: out[g] = 2 * sum of in[block * n + j] over stayers j,
// or 0 for the threads that left.
extern "C" __global__ void drop(const unsigned *in, unsigned *out)
{
    __shared__ block_barrier bar;
    __shared__ unsigned buf[1024];
    unsigned t = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + t;
    if (t == 0) init(&bar, n);
    __syncthreads();
    if (t % 4 == 3) {
        out[g] = 0;
        (void)bar.arrive_and_drop();
        return;
    }
    buf[t] = in[g];
    unsigned acc = 0;
    for (int r = 0; r < 2; r++) {
        bar.arrive_and_wait();
        for (unsigned j = 0; j < n; j++)
            if (j % 4 != 3) acc += buf[j];
        bar.arrive_and_wait();
    }
    out[g] = acc;
}

// Warp 0 consumes what the other warps produce, through a pair of barriers (full/empty)
// and arrival tokens: out[block * 32 + c] = sum over rounds r and producers j = c, c + 32,
// ... of (in[block * (n - 32) + j] + r).
extern "C" __global__ void pipeline(const unsigned *in, unsigned *out, unsigned nrounds)
{
    __shared__ block_barrier full, empty;
    __shared__ unsigned slot[1024];
    unsigned t = threadIdx.x, n = blockDim.x, producers = n - 32;
    if (t == 0) {
        init(&full, n);
        init(&empty, n);
    }
    __syncthreads();
    if (t >= 32) {
        unsigned j = t - 32, v = in[blockIdx.x * producers + j];
        for (unsigned r = 0; r < nrounds; r++) {
            slot[j] = v + r;
            (void)full.arrive();
            empty.arrive_and_wait();
        }
    } else {
        unsigned acc = 0;
        for (unsigned r = 0; r < nrounds; r++) {
            full.arrive_and_wait();
            for (unsigned j = t; j < producers; j += 32) acc += slot[j];
            (void)empty.arrive();
        }
        out[blockIdx.x * 32 + t] = acc;
    }
}
