/* surface_indirect_functions.h (ptxrt): the surface-object functions of CUDA C++
 * (surf1Dread<T>, surf1Dwrite, surf2Dread<T>, surf2Dwrite, surf3Dread<T>, surf3Dwrite,
 * surf1DLayeredread<T>, surf1DLayeredwrite, surf2DLayeredread<T>, surf2DLayeredwrite),
 * written for ptx2llvm from the CUDA programming guide ("Surface Object API") as PTX
 * suld.b / sust.b instructions. x is in bytes, as in CUDA; T may be 1, 2, 4, 8 or 16 bytes
 * (16: four 32-bit words). The boundary mode selects .zero, .clamp or .trap. */
#ifndef PTXRT_CUDA_SURFACE_INDIRECT_FUNCTIONS_H
#define PTXRT_CUDA_SURFACE_INDIRECT_FUNCTIONS_H

enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };

/* One instruction per geometry, element size and boundary mode. GEOM is the PTX geometry,
 * COORDS the coordinate vector (with the operand numbers of the coordinates). */
#define __PTXRT_SU_MODES(MACRO, ...)                                                          \
    switch (__mode) {                                                                         \
    case cudaBoundaryModeZero: MACRO(zero, __VA_ARGS__); break;                               \
    case cudaBoundaryModeClamp: MACRO(clamp, __VA_ARGS__); break;                             \
    default: MACRO(trap, __VA_ARGS__); break;                                                 \
    }

#define __PTXRT_SULD1(M, G, C, ...) asm volatile("suld.b." G ".b8." #M " {%0}, [%1, " C "];" : "=h"(__r16) : "l"(__s), __VA_ARGS__)
#define __PTXRT_SULD2(M, G, C, ...) asm volatile("suld.b." G ".b16." #M " {%0}, [%1, " C "];" : "=h"(__r16) : "l"(__s), __VA_ARGS__)
#define __PTXRT_SULD4(M, G, C, ...) asm volatile("suld.b." G ".b32." #M " {%0}, [%1, " C "];" : "=r"(__r[0]) : "l"(__s), __VA_ARGS__)
#define __PTXRT_SULD8(M, G, C, ...) asm volatile("suld.b." G ".b64." #M " {%0}, [%1, " C "];" : "=l"(__r64) : "l"(__s), __VA_ARGS__)
#define __PTXRT_SULD16(M, G, C, ...)                                                          \
    asm volatile("suld.b." G ".v4.b32." #M " {%0, %1, %2, %3}, [%4, " C "];"                  \
                 : "=r"(__r[0]), "=r"(__r[1]), "=r"(__r[2]), "=r"(__r[3]) : "l"(__s), __VA_ARGS__)
#define __PTXRT_SUST1(M, G, C, ...) asm volatile("sust.b." G ".b8." #M " [%0, " C "], {%1};" ::"l"(__s), "h"(__w16), __VA_ARGS__ : "memory")
#define __PTXRT_SUST2(M, G, C, ...) asm volatile("sust.b." G ".b16." #M " [%0, " C "], {%1};" ::"l"(__s), "h"(__w16), __VA_ARGS__ : "memory")
#define __PTXRT_SUST4(M, G, C, ...) asm volatile("sust.b." G ".b32." #M " [%0, " C "], {%1};" ::"l"(__s), "r"(__w[0]), __VA_ARGS__ : "memory")
#define __PTXRT_SUST8(M, G, C, ...) asm volatile("sust.b." G ".b64." #M " [%0, " C "], {%1};" ::"l"(__s), "l"(__w64), __VA_ARGS__ : "memory")
#define __PTXRT_SUST16(M, G, C, ...)                                                          \
    asm volatile("sust.b." G ".v4.b32." #M " [%0, " C "], {%1, %2, %3, %4};" ::"l"(__s), "r"(__w[0]), "r"(__w[1]), \
                 "r"(__w[2]), "r"(__w[3]), __VA_ARGS__ : "memory")

/* Reads sizeof(T) bytes; G, C and the coordinate operands as for the macros above (the
 * coordinates are operands 2.. for reads of up to 8 bytes, 5.. for 16). */
#define __PTXRT_SURF_READ(NAME, G, C1, C16, PARAMS, ...)                                      \
    template <class T> static __device__ T NAME(cudaSurfaceObject_t __s, PARAMS,              \
                                                cudaSurfaceBoundaryMode __mode = cudaBoundaryModeTrap) { \
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, \
                      "surface elements are 1, 2, 4, 8 or 16 bytes");                         \
        unsigned int __r[4] = {0, 0, 0, 0};                                                   \
        unsigned short __r16 = 0;                                                             \
        unsigned long long __r64 = 0;                                                         \
        T __ret;                                                                              \
        if (sizeof(T) == 1) {                                                                 \
            __PTXRT_SU_MODES(__PTXRT_SULD1, G, C1, __VA_ARGS__)                               \
            __builtin_memcpy(&__ret, &__r16, 1);                                              \
        } else if (sizeof(T) == 2) {                                                          \
            __PTXRT_SU_MODES(__PTXRT_SULD2, G, C1, __VA_ARGS__)                               \
            __builtin_memcpy(&__ret, &__r16, 2);                                              \
        } else if (sizeof(T) == 4) {                                                          \
            __PTXRT_SU_MODES(__PTXRT_SULD4, G, C1, __VA_ARGS__)                               \
            __builtin_memcpy(&__ret, __r, 4);                                                 \
        } else if (sizeof(T) == 8) {                                                          \
            __PTXRT_SU_MODES(__PTXRT_SULD8, G, C1, __VA_ARGS__)                               \
            __builtin_memcpy(&__ret, &__r64, 8);                                              \
        } else {                                                                              \
            __PTXRT_SU_MODES(__PTXRT_SULD16, G, C16, __VA_ARGS__)                             \
            __builtin_memcpy(&__ret, __r, sizeof(T));                                         \
        }                                                                                     \
        return __ret;                                                                         \
    }

#define __PTXRT_SURF_WRITE(NAME, G, C1, C16, PARAMS, ...)                                     \
    template <class T> static __device__ void NAME(T __data, cudaSurfaceObject_t __s, PARAMS, \
                                                   cudaSurfaceBoundaryMode __mode = cudaBoundaryModeTrap) { \
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, \
                      "surface elements are 1, 2, 4, 8 or 16 bytes");                         \
        unsigned int __w[4] = {0, 0, 0, 0};                                                   \
        unsigned short __w16 = 0;                                                             \
        unsigned long long __w64 = 0;                                                         \
        if (sizeof(T) <= 2) {                                                                 \
            __builtin_memcpy(&__w16, &__data, sizeof(T));                                     \
            if (sizeof(T) == 1) {                                                             \
                __PTXRT_SU_MODES(__PTXRT_SUST1, G, C1, __VA_ARGS__)                           \
            } else {                                                                          \
                __PTXRT_SU_MODES(__PTXRT_SUST2, G, C1, __VA_ARGS__)                           \
            }                                                                                 \
        } else if (sizeof(T) == 4) {                                                          \
            __builtin_memcpy(__w, &__data, 4);                                                \
            __PTXRT_SU_MODES(__PTXRT_SUST4, G, C1, __VA_ARGS__)                               \
        } else if (sizeof(T) == 8) {                                                          \
            __builtin_memcpy(&__w64, &__data, 8);                                             \
            __PTXRT_SU_MODES(__PTXRT_SUST8, G, C1, __VA_ARGS__)                               \
        } else {                                                                              \
            __builtin_memcpy(__w, &__data, sizeof(T));                                        \
            __PTXRT_SU_MODES(__PTXRT_SUST16, G, C16, __VA_ARGS__)                             \
        }                                                                                     \
    }

#define __PTXRT_COMMA ,

__PTXRT_SURF_READ(surf1Dread, "1d", "{%2}", "{%5}", int __x, "r"(__x))
__PTXRT_SURF_WRITE(surf1Dwrite, "1d", "{%2}", "{%5}", int __x, "r"(__x))
__PTXRT_SURF_READ(surf2Dread, "2d", "{%2, %3}", "{%5, %6}", int __x __PTXRT_COMMA int __y, "r"(__x), "r"(__y))
__PTXRT_SURF_WRITE(surf2Dwrite, "2d", "{%2, %3}", "{%5, %6}", int __x __PTXRT_COMMA int __y, "r"(__x), "r"(__y))
__PTXRT_SURF_READ(surf3Dread, "3d", "{%2, %3, %4, %4}", "{%5, %6, %7, %7}", int __x __PTXRT_COMMA int __y __PTXRT_COMMA int __z,
                  "r"(__x), "r"(__y), "r"(__z))
__PTXRT_SURF_WRITE(surf3Dwrite, "3d", "{%2, %3, %4, %4}", "{%5, %6, %7, %7}", int __x __PTXRT_COMMA int __y __PTXRT_COMMA int __z,
                   "r"(__x), "r"(__y), "r"(__z))
__PTXRT_SURF_READ(surf1DLayeredread, "a1d", "{%3, %2}", "{%6, %5}", int __x __PTXRT_COMMA int __layer, "r"(__x), "r"(__layer))
__PTXRT_SURF_WRITE(surf1DLayeredwrite, "a1d", "{%3, %2}", "{%6, %5}", int __x __PTXRT_COMMA int __layer, "r"(__x), "r"(__layer))
__PTXRT_SURF_READ(surf2DLayeredread, "a2d", "{%4, %2, %3, %3}", "{%7, %5, %6, %6}",
                  int __x __PTXRT_COMMA int __y __PTXRT_COMMA int __layer, "r"(__x), "r"(__y), "r"(__layer))
__PTXRT_SURF_WRITE(surf2DLayeredwrite, "a2d", "{%4, %2, %3, %3}", "{%7, %5, %6, %6}",
                   int __x __PTXRT_COMMA int __y __PTXRT_COMMA int __layer, "r"(__x), "r"(__y), "r"(__layer))

#undef __PTXRT_SURF_READ
#undef __PTXRT_SURF_WRITE
#undef __PTXRT_COMMA

#endif
