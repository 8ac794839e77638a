/* cooperative_groups.h (ptxrt): the commonly used part of CUDA's cooperative groups, written
 * for ptx2llvm from the CUDA programming guide ("Cooperative Groups"); not NVIDIA's header.
 *
 *   namespace cg = cooperative_groups;
 *   cg::thread_block b = cg::this_thread_block();   b.sync(), thread_rank(), size(), ...
 *   cg::grid_group g = cg::this_grid();             g.sync() (cooperative launches only)
 *   auto t = cg::tiled_partition<32>(b);            t.shfl_down(v, 1), t.any(p), t.sync(), ...
 *   cg::sync(group), cg::thread_rank(group), cg::group_size(group)
 *
 * grid_group::sync() is a barrier on the launch's grid workspace, as in CUDA: it needs every
 * block resident, i.e. cudaLaunchCooperativeKernel (elsewhere it traps, and
 * grid_group::is_valid() is false); cooperative grids may run at the same time. Not provided: coalesced_threads, labeled
 * partitions, cg::scan (cg::reduce: cooperative_groups/reduce.h), memcpy_async, cluster groups, multi-grid groups. */
#ifndef PTXRT_CUDA_COOPERATIVE_GROUPS_H
#define PTXRT_CUDA_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

#if defined(__cplusplus) && defined(__CUDA__)

namespace cooperative_groups {

namespace __ptxrt {
/* A cooperative launch's grid barrier memory (ptxrtGridWorkspace: size, barrier word), whose
 * address the runtime passes in %envreg1 (high half) and %envreg2 (low half) as CUDA's driver
 * does; 0 outside cooperative launches. */
static __device__ __forceinline__ unsigned int *__grid_workspace() {
    unsigned int hi, lo;
    asm("mov.u32 %0, %%envreg1;" : "=r"(hi));
    asm("mov.u32 %0, %%envreg2;" : "=r"(lo));
    return (unsigned int *)(((unsigned long long)hi << 32) | lo);
}

static __device__ __forceinline__ unsigned int __block_count() { return gridDim.x * gridDim.y * gridDim.z; }
static __device__ __forceinline__ unsigned int __block_rank() {
    return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
}
static __device__ __forceinline__ unsigned int __block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
static __device__ __forceinline__ unsigned int __thread_rank() {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
} // namespace __ptxrt

class thread_block {
  public:
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned int thread_rank() const { return __ptxrt::__thread_rank(); }
    __device__ unsigned int size() const { return __ptxrt::__block_threads(); }
    __device__ unsigned int num_threads() const { return __ptxrt::__block_threads(); }
    __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    __device__ dim3 dim_threads() const { return group_dim(); }
};

class grid_group {
  public:
    /* True in a cooperative launch (the grid has a barrier workspace). */
    __device__ bool is_valid() const { return __ptxrt::__grid_workspace() != 0; }
    __device__ void sync() const {
        unsigned int *ws = __ptxrt::__grid_workspace();
        if (!ws) __trap(); /* grid.sync() outside a cooperative launch, as CUDA */
        __syncthreads();
        if (__ptxrt::__thread_rank() == 0) {
            /* Bit 31 of the barrier word flips when the last block arrives. */
            unsigned int add = __ptxrt::__block_rank() == 0 ? 0x80000000u - (__ptxrt::__block_count() - 1) : 1u;
            __threadfence();
            unsigned int before = atomicAdd(ws + 1, add);
            while (((*(volatile unsigned int *)(ws + 1) ^ before) & 0x80000000u) == 0) {
            }
            __threadfence();
        }
        __syncthreads();
    }
    __device__ unsigned long long thread_rank() const {
        return (unsigned long long)__ptxrt::__block_rank() * __ptxrt::__block_threads() + __ptxrt::__thread_rank();
    }
    __device__ unsigned long long size() const {
        return (unsigned long long)__ptxrt::__block_count() * __ptxrt::__block_threads();
    }
    __device__ unsigned long long num_threads() const { return size(); }
    __device__ unsigned long long block_rank() const { return __ptxrt::__block_rank(); }
    __device__ unsigned long long num_blocks() const { return __ptxrt::__block_count(); }
    __device__ dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    __device__ dim3 dim_blocks() const { return group_dim(); }
    __device__ dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};

/* A tile of Size (a power of two, at most 32) consecutive threads of a block. */
template <unsigned int Size> class thread_block_tile {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0, "tile sizes are powers of two up to 32");

    __device__ static unsigned int __mask() {
        unsigned int lane = __ptxrt::__thread_rank() % 32;
        unsigned int base = lane / Size * Size;
        return (Size == 32 ? 0xffffffffu : ((1u << Size) - 1u)) << base;
    }

  public:
    static constexpr unsigned int num_threads() { return Size; }
    static constexpr unsigned int size() { return Size; }
    __device__ void sync() const { __syncwarp(__mask()); }
    __device__ unsigned int thread_rank() const { return __ptxrt::__thread_rank() % Size; }
    __device__ unsigned int meta_group_rank() const { return __ptxrt::__thread_rank() / Size; }
    __device__ unsigned int meta_group_size() const { return (__ptxrt::__block_threads() + Size - 1) / Size; }
    template <class T> __device__ T shfl(T v, int src) const { return __shfl_sync(__mask(), v, src, Size); }
    template <class T> __device__ T shfl_down(T v, unsigned int d) const { return __shfl_down_sync(__mask(), v, d, Size); }
    template <class T> __device__ T shfl_up(T v, unsigned int d) const { return __shfl_up_sync(__mask(), v, d, Size); }
    template <class T> __device__ T shfl_xor(T v, int m) const { return __shfl_xor_sync(__mask(), v, m, Size); }
    __device__ int any(int p) const { return __ballot_sync(__mask(), p) != 0; }
    __device__ int all(int p) const { return __ballot_sync(__mask(), p) == __mask(); }
    __device__ unsigned int ballot(int p) const {
        return (__ballot_sync(__mask(), p) >> (__ptxrt::__thread_rank() % 32 / Size * Size)) &
               (Size == 32 ? 0xffffffffu : ((1u << Size) - 1u));
    }
};

static __device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }
static __device__ __forceinline__ grid_group this_grid() { return grid_group(); }

template <unsigned int Size>
static __device__ __forceinline__ thread_block_tile<Size> tiled_partition(const thread_block &) {
    return thread_block_tile<Size>();
}

template <class Group> static __device__ __forceinline__ void sync(const Group &g) { g.sync(); }
template <class Group> static __device__ __forceinline__ auto thread_rank(const Group &g) { return g.thread_rank(); }
template <class Group> static __device__ __forceinline__ auto group_size(const Group &g) { return g.size(); }

} // namespace cooperative_groups

#endif
#endif
