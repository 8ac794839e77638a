/* ptxrt_cuda_device.h (ptxrt): the device-side built-ins of CUDA C++ for clang's CUDA mode,
 * included by cuda_runtime.h in CUDA translation units (both the host and the device pass:
 * clang checks device code in both). Written for ptx2llvm; not NVIDIA's header.
 *
 * - threadIdx/blockIdx/blockDim/gridDim/warpSize: clang's __clang_cuda_builtin_vars.h;
 * - __syncthreads and friends, warp votes/shuffles (__shfl_sync, __ballot_sync, ...),
 *   __ldg, integer and float intrinsics (__popc, __fdividef, ...), math functions (expf,
 *   sqrt, ...): clang's own CUDA headers (__clang_cuda_device_functions.h,
 *   __clang_cuda_math.h, __clang_cuda_cmath.h, __clang_cuda_intrinsics.h), which call
 *   libdevice's __nv_* functions;
 * - the __nv_* functions: NVIDIA's libdevice when the build links it (ptx2llvm-cc does when
 *   it finds libdevice.10.bc, and then defines PTXRT_HAVE_LIBDEVICE), else the definitions
 *   in ptxrt_libdevice.h (the common subset, computed in double precision);
 * - atomics (atomicAdd, atomicCAS, ...), printf/malloc/free/assert: here. */
#ifndef PTXRT_CUDA_DEVICE_H
#define PTXRT_CUDA_DEVICE_H

#if defined(__CUDA__) && defined(__clang__) && defined(__cplusplus)

#include "vector_types.h"

#include <__clang_cuda_math_forward_declares.h>

/* Host headers clang's math wrappers extend. */
#include <assert.h> /* device code may use assert without including it, as with nvcc */
#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdlib.h>
#include <string.h>

/* clang's headers test the architecture (sm_30+ features) in both passes. */
#pragma push_macro("__CUDA_ARCH__")
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 9999
#define __PTXRT_HOST_PASS 1
#endif

#include <__clang_cuda_builtin_vars.h>

#if !defined(PTXRT_HAVE_LIBDEVICE)
#include "ptxrt_libdevice.h"
#endif
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>

#pragma push_macro("__DEVICE__")
#define __DEVICE__ static __device__ __forceinline__

/* ---- atomics (CUDA C++ programming guide, "Atomic Functions") ---- */
#define __PTXRT_ATOMIC2(NAME, T, IMPL)                                                   \
    __DEVICE__ T NAME(T *__p, T __v) { return IMPL(__p, __v); }                          \
    __DEVICE__ T NAME##_block(T *__p, T __v) { return IMPL##_block(__p, __v); }          \
    __DEVICE__ T NAME##_system(T *__p, T __v) { return IMPL##_system(__p, __v); }
__PTXRT_ATOMIC2(atomicAdd, int, __iAtomicAdd)
__PTXRT_ATOMIC2(atomicAdd, unsigned int, __uAtomicAdd)
__PTXRT_ATOMIC2(atomicAdd, unsigned long long, __ullAtomicAdd)
__PTXRT_ATOMIC2(atomicAdd, float, __fAtomicAdd)
__PTXRT_ATOMIC2(atomicAdd, double, __dAtomicAdd)
__PTXRT_ATOMIC2(atomicExch, int, __iAtomicExch)
__PTXRT_ATOMIC2(atomicExch, unsigned int, __uAtomicExch)
__PTXRT_ATOMIC2(atomicExch, unsigned long long, __ullAtomicExch)
__PTXRT_ATOMIC2(atomicExch, float, __fAtomicExch)
__PTXRT_ATOMIC2(atomicMin, int, __iAtomicMin)
__PTXRT_ATOMIC2(atomicMin, unsigned int, __uAtomicMin)
__PTXRT_ATOMIC2(atomicMin, long long, __illAtomicMin)
__PTXRT_ATOMIC2(atomicMin, unsigned long long, __ullAtomicMin)
__PTXRT_ATOMIC2(atomicMax, int, __iAtomicMax)
__PTXRT_ATOMIC2(atomicMax, unsigned int, __uAtomicMax)
__PTXRT_ATOMIC2(atomicMax, long long, __illAtomicMax)
__PTXRT_ATOMIC2(atomicMax, unsigned long long, __ullAtomicMax)
__PTXRT_ATOMIC2(atomicAnd, int, __iAtomicAnd)
__PTXRT_ATOMIC2(atomicAnd, unsigned int, __uAtomicAnd)
__PTXRT_ATOMIC2(atomicAnd, unsigned long long, __ullAtomicAnd)
__PTXRT_ATOMIC2(atomicOr, int, __iAtomicOr)
__PTXRT_ATOMIC2(atomicOr, unsigned int, __uAtomicOr)
__PTXRT_ATOMIC2(atomicOr, unsigned long long, __ullAtomicOr)
__PTXRT_ATOMIC2(atomicXor, int, __iAtomicXor)
__PTXRT_ATOMIC2(atomicXor, unsigned int, __uAtomicXor)
__PTXRT_ATOMIC2(atomicXor, unsigned long long, __ullAtomicXor)
__PTXRT_ATOMIC2(atomicInc, unsigned int, __uAtomicInc)
__PTXRT_ATOMIC2(atomicDec, unsigned int, __uAtomicDec)
#undef __PTXRT_ATOMIC2
__DEVICE__ int atomicSub(int *__p, int __v) { return __iAtomicAdd(__p, -__v); }
__DEVICE__ unsigned int atomicSub(unsigned int *__p, unsigned int __v) { return __uAtomicAdd(__p, (unsigned int)-__v); }
__DEVICE__ int atomicCAS(int *__p, int __c, int __v) { return __iAtomicCAS(__p, __c, __v); }
__DEVICE__ unsigned int atomicCAS(unsigned int *__p, unsigned int __c, unsigned int __v) { return __uAtomicCAS(__p, __c, __v); }
__DEVICE__ unsigned long long atomicCAS(unsigned long long *__p, unsigned long long __c, unsigned long long __v) {
    return __ullAtomicCAS(__p, __c, __v);
}
__DEVICE__ int atomicCAS_block(int *__p, int __c, int __v) { return __iAtomicCAS_block(__p, __c, __v); }
__DEVICE__ unsigned int atomicCAS_block(unsigned int *__p, unsigned int __c, unsigned int __v) { return __uAtomicCAS_block(__p, __c, __v); }
__DEVICE__ int atomicCAS_system(int *__p, int __c, int __v) { return __iAtomicCAS_system(__p, __c, __v); }
__DEVICE__ unsigned int atomicCAS_system(unsigned int *__p, unsigned int __c, unsigned int __v) { return __uAtomicCAS_system(__p, __c, __v); }

/* ---- device-side system calls (PTX writer's guide: vprintf, malloc, free, __assertfail) ---- */
extern "C" {
__device__ int vprintf(const char *, const char *);
__device__ void free(void *) __attribute((nothrow));
__device__ void *malloc(size_t) __attribute((nothrow)) __attribute__((malloc));
__device__ void __assertfail(const char *__message, const char *__file, unsigned __line,
                             const char *__function, size_t __charSize);
__device__ static inline void __assert_fail(const char *__message, const char *__file,
                                            unsigned __line, const char *__function) {
    __assertfail(__message, __file, __line, __function, sizeof(char));
}
/* clang turns device-side printf into vprintf. */
__device__ int printf(const char *, ...);
}
namespace std {
__device__ static inline void free(void *__ptr) { ::free(__ptr); }
__device__ static inline void *malloc(size_t __size) { return ::malloc(__size); }
}

/* The conversions __clang_cuda_builtin_vars.h declares. */
__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const { return {x, y, z}; }

#pragma pop_macro("__DEVICE__")

/* Address-space predicates and conversions (CUDA programming guide, "Address Space
 * Predicate Functions" and "Address Space Conversion Functions"). */
static __device__ __forceinline__ unsigned int __isGlobal(const void *__p) { return __nvvm_isspacep_global(__p); }
static __device__ __forceinline__ unsigned int __isShared(const void *__p) { return __nvvm_isspacep_shared(__p); }
static __device__ __forceinline__ unsigned int __isConstant(const void *__p) { return __nvvm_isspacep_const(__p); }
static __device__ __forceinline__ unsigned int __isLocal(const void *__p) { return __nvvm_isspacep_local(__p); }
static __device__ __forceinline__ size_t __cvta_generic_to_global(const void *__p) { return (size_t)(__attribute__((address_space(1))) const void *)__p; }
static __device__ __forceinline__ size_t __cvta_generic_to_shared(const void *__p) { return (size_t)(__attribute__((address_space(3))) const void *)__p; }
static __device__ __forceinline__ size_t __cvta_generic_to_constant(const void *__p) { return (size_t)(__attribute__((address_space(4))) const void *)__p; }
static __device__ __forceinline__ size_t __cvta_generic_to_local(const void *__p) { return (size_t)(__attribute__((address_space(5))) const void *)__p; }
static __device__ __forceinline__ void *__cvta_global_to_generic(size_t __a) { return (void *)(__attribute__((address_space(1))) void *)__a; }
static __device__ __forceinline__ void *__cvta_shared_to_generic(size_t __a) { return (void *)(__attribute__((address_space(3))) void *)__a; }
static __device__ __forceinline__ void *__cvta_constant_to_generic(size_t __a) { return (void *)(__attribute__((address_space(4))) void *)__a; }
static __device__ __forceinline__ void *__cvta_local_to_generic(size_t __a) { return (void *)(__attribute__((address_space(5))) void *)__a; }

typedef unsigned int cuuint32_t;
typedef unsigned long long cuuint64_t;

#include <__clang_cuda_cmath.h>
/* clang 19's __reduce_*_sync pass the mask where the value goes (redux.sync d, value,
 * mask): its definitions are renamed out of the way and replaced below. */
#define __reduce_add_sync __ptxrt_clang19_reduce_add_sync
#define __reduce_min_sync __ptxrt_clang19_reduce_min_sync
#define __reduce_max_sync __ptxrt_clang19_reduce_max_sync
#define __reduce_and_sync __ptxrt_clang19_reduce_and_sync
#define __reduce_or_sync __ptxrt_clang19_reduce_or_sync
#define __reduce_xor_sync __ptxrt_clang19_reduce_xor_sync
#include <__clang_cuda_intrinsics.h>
#undef __reduce_add_sync
#undef __reduce_min_sync
#undef __reduce_max_sync
#undef __reduce_and_sync
#undef __reduce_or_sync
#undef __reduce_xor_sync
#define __PTXRT_REDUX(NAME, T, OP)                                                           \
    static __device__ __forceinline__ T NAME(unsigned __mask, T __value) {                   \
        T __r;                                                                               \
        asm volatile("redux.sync." OP " %0, %1, %2;" : "=r"(__r) : "r"(__value), "r"(__mask)); \
        return __r;                                                                          \
    }
__PTXRT_REDUX(__reduce_add_sync, unsigned, "add.u32")
__PTXRT_REDUX(__reduce_add_sync, int, "add.s32")
__PTXRT_REDUX(__reduce_min_sync, unsigned, "min.u32")
__PTXRT_REDUX(__reduce_min_sync, int, "min.s32")
__PTXRT_REDUX(__reduce_max_sync, unsigned, "max.u32")
__PTXRT_REDUX(__reduce_max_sync, int, "max.s32")
__PTXRT_REDUX(__reduce_and_sync, unsigned, "and.b32")
__PTXRT_REDUX(__reduce_or_sync, unsigned, "or.b32")
__PTXRT_REDUX(__reduce_xor_sync, unsigned, "xor.b32")
#undef __PTXRT_REDUX
#include <__clang_cuda_texture_intrinsics.h>
#include "texture_indirect_functions.h"
#include "surface_indirect_functions.h"

#pragma pop_macro("__CUDA_ARCH__")
#ifdef __PTXRT_HOST_PASS
#undef __PTXRT_HOST_PASS
#endif

#endif /* __CUDA__ && __clang__ && __cplusplus */
#endif
