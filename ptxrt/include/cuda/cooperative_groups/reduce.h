/* cooperative_groups/reduce.h (ptxrt): cg::reduce over a thread_block_tile, with the
 * function objects cg::plus, cg::less (minimum), cg::greater (maximum), cg::bit_and,
 * cg::bit_or, cg::bit_xor; written for ptx2llvm from the CUDA programming guide. Every
 * thread of the tile gets the result. */
#ifndef PTXRT_CUDA_COOPERATIVE_GROUPS_REDUCE_H
#define PTXRT_CUDA_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

#if defined(__cplusplus) && defined(__CUDA__)
namespace cooperative_groups {

template <class T> struct plus {
    __device__ T operator()(T a, T b) const { return a + b; }
};
template <class T> struct less {
    __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T> struct greater {
    __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    __device__ T operator()(T a, T b) const { return a & b; }
};
template <class T> struct bit_or {
    __device__ T operator()(T a, T b) const { return a | b; }
};
template <class T> struct bit_xor {
    __device__ T operator()(T a, T b) const { return a ^ b; }
};

template <unsigned int Size, class T, class Op>
static __device__ T reduce(const thread_block_tile<Size> &g, T value, Op op) {
    for (unsigned int off = Size / 2; off > 0; off /= 2) value = op(value, g.shfl_xor(value, (int)off));
    return value;
}

} // namespace cooperative_groups
#endif
#endif
