/* host_defines.h (ptxrt): CUDA's function and variable qualifiers for clang's CUDA mode.
 * Written for ptx2llvm from the CUDA programming guide; not NVIDIA's header. */
#ifndef PTXRT_CUDA_HOST_DEFINES_H
#define PTXRT_CUDA_HOST_DEFINES_H

#if defined(__CUDA__) && defined(__clang__)
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
/* clang's CUDA mode ignores `managed` (HIP only): the host would use a copy of its own.
 * A clear error instead of wrong results; cudaMallocManaged works. */
#define __managed__ _Pragma("GCC error \"__managed__ variables are not supported by ptxrt (clang compiles them as host copies); allocate with cudaMallocManaged instead\"")
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __grid_constant__ __attribute__((grid_constant))
#else
/* Plain C/C++ (a host-only translation unit that includes cuda_runtime.h). */
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __grid_constant__
#endif

#ifndef __forceinline__
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif
#ifndef __noinline__
#define __noinline__ __attribute__((noinline))
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#ifndef __thread__
#define __thread__ __thread
#endif
#define __builtin_align__(a) __align__(a)
#define __device_builtin__
#define __cudart_builtin__
#define CUDARTAPI
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))

#if defined(__cplusplus)
#define __PTXRT_DV(v) = v
#else
#define __PTXRT_DV(v)
#endif

#endif
