/* crt/sm_70_rt.hpp (ptxrt): clang's __clang_cuda_intrinsics.h includes this for the sm_70
 * warp match functions; written for ptx2llvm from the CUDA programming guide ("Warp Match
 * Functions"), not NVIDIA's header. */
#ifndef PTXRT_CUDA_SM_70_RT_HPP
#define PTXRT_CUDA_SM_70_RT_HPP

#define __PTXRT_MATCH32(T)                                                                     \
    static inline __device__ unsigned int __match_any_sync(unsigned int __m, T __v) {         \
        return __match32_any_sync(__m, (unsigned int)__v);                                     \
    }                                                                                          \
    static inline __device__ unsigned int __match_all_sync(unsigned int __m, T __v, int *__p) { \
        return __match32_all_sync(__m, (unsigned int)__v, __p);                                \
    }
#define __PTXRT_MATCH64(T)                                                                     \
    static inline __device__ unsigned int __match_any_sync(unsigned int __m, T __v) {         \
        return __match64_any_sync(__m, (unsigned long long)__v);                               \
    }                                                                                          \
    static inline __device__ unsigned int __match_all_sync(unsigned int __m, T __v, int *__p) { \
        return __match64_all_sync(__m, (unsigned long long)__v, __p);                          \
    }
__PTXRT_MATCH32(int)
__PTXRT_MATCH32(unsigned int)
__PTXRT_MATCH64(long)
__PTXRT_MATCH64(unsigned long)
__PTXRT_MATCH64(long long)
__PTXRT_MATCH64(unsigned long long)
static inline __device__ unsigned int __match_any_sync(unsigned int __m, float __v) {
    return __match32_any_sync(__m, __builtin_bit_cast(unsigned int, __v));
}
static inline __device__ unsigned int __match_all_sync(unsigned int __m, float __v, int *__p) {
    return __match32_all_sync(__m, __builtin_bit_cast(unsigned int, __v), __p);
}
static inline __device__ unsigned int __match_any_sync(unsigned int __m, double __v) {
    return __match64_any_sync(__m, __builtin_bit_cast(unsigned long long, __v));
}
static inline __device__ unsigned int __match_all_sync(unsigned int __m, double __v, int *__p) {
    return __match64_all_sync(__m, __builtin_bit_cast(unsigned long long, __v), __p);
}
#undef __PTXRT_MATCH32
#undef __PTXRT_MATCH64
#endif
