/* cuda_runtime.h (ptxrt): the CUDA runtime API on ptxrt, for CUDA programs compiled with
 * clang's CUDA mode (host side: clang++ -x cuda --cuda-host-only -nocudainc -nocudalib
 * -I <this directory>; ptx2llvm-cc drives both sides). Written for ptx2llvm from NVIDIA's
 * documentation; not NVIDIA's header.
 *
 * It declares the C API (cuda_runtime_api.h), the C++ conveniences CUDA's cuda_runtime.h
 * has (templates taking kernels and variables directly), and in CUDA translation units
 * the device-side built-ins (threadIdx, __syncthreads, atomics, warp functions, math,
 * printf): see ptxrt_cuda_device.h. */
#ifndef PTXRT_CUDA_RUNTIME_H
#define PTXRT_CUDA_RUNTIME_H

#if defined(__CUDA__) && defined(__clang__) && !defined(__CUDACC__)
#define __CUDACC__ 1
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#endif
#ifndef CUDA_VERSION
#define CUDA_VERSION 12000
#endif

#include "host_defines.h"
#include "vector_types.h"
#include "vector_functions.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"

#if defined(__CUDA__) && defined(__clang__)
#include "ptxrt_cuda_device.h"
#endif

#if defined(__cplusplus)

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM) && !defined(__CUDA_ARCH__)
/* Stream 0 means the calling thread's default stream in this program (nvcc's
 * --default-stream per-thread). */
extern "C" int ptxrtUsePerThreadDefaultStream(void);
static int __ptxrt_per_thread_default_stream __attribute__((used)) = ptxrtUsePerThreadDefaultStream();
#endif

template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) {
    return ::cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0) {
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
static __inline__ __host__ cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags) {
    return ::cudaHostAlloc(ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
    return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height) {
    return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}
template <class T>
static __inline__ __host__ cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags) {
    return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                                          size_t offset = 0,
                                                          enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                                               size_t offset = 0,
                                                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                               cudaStream_t stream = 0) {
    return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                                            size_t offset = 0,
                                                            enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                                                 size_t offset = 0,
                                                                 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                                 cudaStream_t stream = 0) {
    return ::cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) {
    return ::cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}
template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
    return ::cudaGetSymbolSize(size, (const void *)&symbol);
}

template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                                        size_t sharedMem = 0, cudaStream_t stream = 0) {
    return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                                                   size_t sharedMem = 0, cudaStream_t stream = 0) {
    return ::cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry) {
    return ::cudaFuncGetAttributes(attr, (const void *)entry);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value) {
    return ::cudaFuncSetAttribute((const void *)entry, attr, value);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig) {
    return ::cudaFuncSetCacheConfig((const void *)func, cacheConfig);
}
template <class T>
static __inline__ __host__ cudaError_t cudaFuncSetSharedMemConfig(T *func, enum cudaSharedMemConfig config) {
    return ::cudaFuncSetSharedMemConfig((const void *)func, config);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                                                                     int blockSize, size_t dynamicSMemSize) {
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void *)func, blockSize, dynamicSMemSize);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, (const void *)func, blockSize,
                                                                    dynamicSMemSize, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                                          size_t dynamicSMemSize = 0,
                                                                          int blockSizeLimit = 0) {
    return ::cudaOccupancyMaxPotentialBlockSize(minGridSize, blockSize, (const void *)func, dynamicSMemSize,
                                                blockSizeLimit);
}
static __inline__ __host__ cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
    return ::cudaEventCreateWithFlags(event, flags);
}

template <class T> struct __ptxrt_channel;
#define __PTXRT_CHANNEL(T, n, b, k)                                                                   \
    template <> struct __ptxrt_channel<T> {                                                           \
        static struct cudaChannelFormatDesc desc() {                                                  \
            return cudaCreateChannelDesc(b, n > 1 ? b : 0, n > 2 ? b : 0, n > 3 ? b : 0, k);          \
        }                                                                                             \
    };
__PTXRT_CHANNEL(float, 1, 32, cudaChannelFormatKindFloat)
__PTXRT_CHANNEL(float2, 2, 32, cudaChannelFormatKindFloat)
__PTXRT_CHANNEL(float4, 4, 32, cudaChannelFormatKindFloat)
__PTXRT_CHANNEL(int, 1, 32, cudaChannelFormatKindSigned)
__PTXRT_CHANNEL(int2, 2, 32, cudaChannelFormatKindSigned)
__PTXRT_CHANNEL(int4, 4, 32, cudaChannelFormatKindSigned)
__PTXRT_CHANNEL(unsigned int, 1, 32, cudaChannelFormatKindUnsigned)
__PTXRT_CHANNEL(uint2, 2, 32, cudaChannelFormatKindUnsigned)
__PTXRT_CHANNEL(uint4, 4, 32, cudaChannelFormatKindUnsigned)
__PTXRT_CHANNEL(unsigned char, 1, 8, cudaChannelFormatKindUnsigned)
__PTXRT_CHANNEL(uchar2, 2, 8, cudaChannelFormatKindUnsigned)
__PTXRT_CHANNEL(uchar4, 4, 8, cudaChannelFormatKindUnsigned)
__PTXRT_CHANNEL(signed char, 1, 8, cudaChannelFormatKindSigned)
__PTXRT_CHANNEL(char4, 4, 8, cudaChannelFormatKindSigned)
__PTXRT_CHANNEL(unsigned short, 1, 16, cudaChannelFormatKindUnsigned)
__PTXRT_CHANNEL(short, 1, 16, cudaChannelFormatKindSigned)
#undef __PTXRT_CHANNEL
template <class T>
static __inline__ __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(void) {
    return __ptxrt_channel<T>::desc();
}

#endif /* __cplusplus */
#endif
