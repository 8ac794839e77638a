/* texture_indirect_functions.h (ptxrt): the texture-object fetch functions of CUDA C++
 * (tex1Dfetch<T>, tex1D<T>, tex2D<T>, ...), written for ptx2llvm from the CUDA programming
 * guide ("Texture Object API"), on clang's __nv_tex_surf_handler
 * (__clang_cuda_texture_intrinsics.h), which emits the PTX tex instructions. */
#ifndef PTXRT_CUDA_TEXTURE_INDIRECT_FUNCTIONS_H
#define PTXRT_CUDA_TEXTURE_INDIRECT_FUNCTIONS_H

#define __PTXRT_TEX(NAME, OP, PARAMS, ARGS)                                              \
    template <class T> static __device__ T NAME(cudaTextureObject_t __obj PARAMS) {     \
        T __ret;                                                                         \
        __nv_tex_surf_handler(OP, &__ret, __obj ARGS);                                   \
        return __ret;                                                                    \
    }                                                                                    \
    template <class T> static __device__ void NAME(T *__ret, cudaTextureObject_t __obj PARAMS) { \
        __nv_tex_surf_handler(OP, __ret, __obj ARGS);                                    \
    }
#define __PTXRT_COMMA ,
__PTXRT_TEX(tex1Dfetch, "__tex1Dfetch_v2", __PTXRT_COMMA int __x, __PTXRT_COMMA __x)
__PTXRT_TEX(tex1D, "__tex1D_v2", __PTXRT_COMMA float __x, __PTXRT_COMMA __x)
__PTXRT_TEX(tex2D, "__tex2D_v2", __PTXRT_COMMA float __x __PTXRT_COMMA float __y, __PTXRT_COMMA __x __PTXRT_COMMA __y)
__PTXRT_TEX(tex3D, "__tex3D_v2", __PTXRT_COMMA float __x __PTXRT_COMMA float __y __PTXRT_COMMA float __z,
            __PTXRT_COMMA __x __PTXRT_COMMA __y __PTXRT_COMMA __z)
__PTXRT_TEX(tex1DLayered, "__tex1DLayered_v2", __PTXRT_COMMA float __x __PTXRT_COMMA int __l, __PTXRT_COMMA __x __PTXRT_COMMA __l)
__PTXRT_TEX(tex2DLayered, "__tex2DLayered_v2", __PTXRT_COMMA float __x __PTXRT_COMMA float __y __PTXRT_COMMA int __l,
            __PTXRT_COMMA __x __PTXRT_COMMA __y __PTXRT_COMMA __l)
__PTXRT_TEX(tex1DLod, "__tex1DLod_v2", __PTXRT_COMMA float __x __PTXRT_COMMA float __lv, __PTXRT_COMMA __x __PTXRT_COMMA __lv)
__PTXRT_TEX(tex2DLod, "__tex2DLod_v2", __PTXRT_COMMA float __x __PTXRT_COMMA float __y __PTXRT_COMMA float __lv,
            __PTXRT_COMMA __x __PTXRT_COMMA __y __PTXRT_COMMA __lv)
__PTXRT_TEX(tex3DLod, "__tex3DLod_v2", __PTXRT_COMMA float __x __PTXRT_COMMA float __y __PTXRT_COMMA float __z __PTXRT_COMMA float __lv,
            __PTXRT_COMMA __x __PTXRT_COMMA __y __PTXRT_COMMA __z __PTXRT_COMMA __lv)
__PTXRT_TEX(texCubemap, "__texCubemap_v2", __PTXRT_COMMA float __x __PTXRT_COMMA float __y __PTXRT_COMMA float __z,
            __PTXRT_COMMA __x __PTXRT_COMMA __y __PTXRT_COMMA __z)
#undef __PTXRT_TEX
#undef __PTXRT_COMMA

/* tex2Dgather: component comp (0..3) of the four texels of the bilinear footprint. */
template <class T> static __device__ T tex2Dgather(cudaTextureObject_t __obj, float __x, float __y, int __comp = 0) {
    T __ret;
    __nv_tex_surf_handler("__tex2Dgather_v2", &__ret, __obj, __x, __y, __comp);
    return __ret;
}
template <class T>
static __device__ void tex2Dgather(T *__ret, cudaTextureObject_t __obj, float __x, float __y, int __comp = 0) {
    __nv_tex_surf_handler("__tex2Dgather_v2", __ret, __obj, __x, __y, __comp);
}

#endif
