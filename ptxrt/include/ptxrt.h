/* ptxrt.h: run CUDA kernels translated by ptx2llvm on the CPU. */
#ifndef PTXRT_H
#define PTXRT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { unsigned int x, y, z; } ptxrtDim3;

typedef enum {
    ptxrtSuccess = 0,
    ptxrtErrorInvalidValue = 1,
    ptxrtErrorMemoryAllocation = 2,
    ptxrtErrorInvalidConfiguration = 9,
    ptxrtErrorNotFound = 500,
    ptxrtErrorLaunchFailure = 719,
    ptxrtErrorUnknown = 999           /* an internal error of the runtime (a bug) */
} ptxrtError_t;

/* One per .entry, exported by the translated object. */
typedef struct ptxrtKernel ptxrtKernel;

/* Finds a kernel by its PTX .entry name; NULL if no linked object defines it. */
const ptxrtKernel *ptxrtFindKernel(const char *name);

/* Runs a grid and returns when it has finished. args[i] points at the value of
 * parameter i, as in cuLaunchKernel. stream must be NULL. */
ptxrtError_t ptxrtLaunchKernel(const ptxrtKernel *kernel, ptxrtDim3 grid, ptxrtDim3 block,
                               void **args, size_t dynamicSharedBytes, void *stream);

/* Address and size of a module-scope .global/.const variable, by PTX name. */
ptxrtError_t ptxrtGetSymbol(const char *name, void **addr, size_t *size);

/* Raises the per-block shared memory limit of a kernel (static + dynamic) above the
 * default 48 KiB, as cudaFuncSetAttribute(MaxDynamicSharedMemorySize) does: bytes
 * becomes the largest dynamicSharedBytes later launches of the kernel may use, and
 * static + bytes may be at most 227 KiB (232448), else ptxrtErrorInvalidValue. */
ptxrtError_t ptxrtFuncSetMaxDynamicSharedMemory(const ptxrtKernel *kernel, size_t bytes);

/* Worker threads used by launches: one per core by default, PTXRT_NUM_THREADS overrides
 * (read once; values other than 1..1024 are ignored). ptxrtSetNumThreads accepts 1..1024
 * and applies to later launches. The launching host thread is one of the workers. */
ptxrtError_t ptxrtSetNumThreads(int n);
int ptxrtGetNumThreads(void);

/* ---- Arrays, textures and surfaces --------------------------------------------------
 * The shapes of CUDA's runtime API with ptxrt names (cudaX -> ptxrtX), so porting host code
 * is mechanical. All memory is host memory: copies take no cudaMemcpyKind argument.
 *
 * Texture and surface objects are 64-bit handles (what a kernel's `.u64` texture/surface
 * parameter receives, as cudaTextureObject_t). Module references (`.global .texref t;`,
 * ISA 1.x `.tex .u32 t;`, `.surfref`, `.samplerref`) are bound by PTX name.
 *
 * Sampling follows CUDA's texture-fetching rules: coordinates are scaled by the size when
 * normalized; point filtering reads texel floor(u); linear filtering reads floor(u - 0.5)
 * and the next texel, weighted by frac(u - 0.5) rounded to 9-bit fixed point with 8
 * fraction bits (round(a * 256) / 256), taps summed in f32 in index order (x fastest);
 * address modes map each tap's index (wrap: i mod N, mirror: period 2N reflected, clamp:
 * to [0, N-1], border: outside reads borderColor, 0 for integer textures). Wrap and mirror
 * need normalizedCoords (as in CUDA); with unnormalized coordinates they clamp. Integer
 * (`.s32`) coordinates in `tex` fetch texel indices without filtering (on linear memory,
 * as tex1Dfetch, indices outside read 0). Array layers are clamped to the layer count.
 * tld4 (tex2Dgather) returns one channel of the linear-filtering footprint (i0, j1),
 * (i1, j1), (i1, j0), (i0, j0). Channels a format lacks read as 0 (alpha as 1). NormalizedFloat reads of 8/16-bit integers give x/(2^n-1)
 * (unsigned) or max(x/(2^(n-1)-1), -1) (signed). */

typedef enum {
    ptxrtChannelFormatKindSigned = 0,
    ptxrtChannelFormatKindUnsigned = 1,
    ptxrtChannelFormatKindFloat = 2     /* 16 bits: half precision */
} ptxrtChannelFormatKind;

/* Bits per channel: 1, 2 or 4 channels (x, x y, x y z w) of equal size: 8/16/32-bit
 * integers or 16/32-bit floats. */
typedef struct { int x, y, z, w; ptxrtChannelFormatKind f; } ptxrtChannelFormatDesc;
ptxrtChannelFormatDesc ptxrtCreateChannelDesc(int x, int y, int z, int w, ptxrtChannelFormatKind f);

/* width in elements; height 0 for 1D; depth 0 for 1D/2D, or the layer count of layered arrays. */
typedef struct { size_t width, height, depth; } ptxrtExtent;

typedef struct ptxrtArray *ptxrtArray_t;
#define ptxrtArrayDefault 0u
#define ptxrtArrayLayered 1u          /* extent.depth counts layers of a 1D (height 0) or 2D array */
#define ptxrtArraySurfaceLoadStore 2u /* accepted; every array may back a surface */
#define ptxrtArrayCubemap 4u          /* 6 square faces (extent.depth 6; with ptxrtArrayLayered a
                                         multiple of 6): layer face + 6 * cube, faces +x -x +y -y +z -z */
/* tex/tld4 .cube/.acube {x, y, z}: the face is the major axis (largest |component|; ties go
 * to z, then y) with its sign; face coordinates s = (sc/|ma| + 1)/2, t = (tc/|ma| + 1)/2,
 * (sc, tc) = (-z,-y) (z,-y) (x,z) (x,-z) (x,-y) (-x,-y) for faces 0..5 (CUDA's cubemap
 * table), looked up with normalized coordinates, clamped to the face's edges (no filtering
 * across faces), whatever the texture's or sampler's address modes. */

/* cudaMallocArray (height 0: 1D) and cudaMalloc3DArray. Zero width, a depth without a
 * height (not layered), unknown flags or a bad format: ptxrtErrorInvalidValue. */
ptxrtError_t ptxrtMallocArray(ptxrtArray_t *array, const ptxrtChannelFormatDesc *desc,
                              size_t width, size_t height, unsigned int flags);
ptxrtError_t ptxrtMalloc3DArray(ptxrtArray_t *array, const ptxrtChannelFormatDesc *desc,
                                ptxrtExtent extent, unsigned int flags);
/* Must not be used by a live texture or surface object. NULL is allowed. */
ptxrtError_t ptxrtFreeArray(ptxrtArray_t array);
/* Array rows are width * element bytes long; the rows of all slices (3D) or layers follow
 * each other, so hOffset counts rows across slices. Offsets and widths are in bytes. */
ptxrtError_t ptxrtMemcpy2DToArray(ptxrtArray_t dst, size_t wOffset, size_t hOffset,
                                  const void *src, size_t spitch, size_t width, size_t height);
ptxrtError_t ptxrtMemcpy2DFromArray(void *dst, size_t dpitch, ptxrtArray_t src,
                                    size_t wOffset, size_t hOffset, size_t width, size_t height);
ptxrtError_t ptxrtMemcpyToArray(ptxrtArray_t dst, size_t wOffset, size_t hOffset,
                                const void *src, size_t count);
ptxrtError_t ptxrtMemcpyFromArray(void *dst, ptxrtArray_t src, size_t wOffset, size_t hOffset,
                                  size_t count);

typedef enum {
    ptxrtResourceTypeArray = 0,
    ptxrtResourceTypeMipmappedArray = 1,   /* not supported */
    ptxrtResourceTypeLinear = 2,
    ptxrtResourceTypePitch2D = 3
} ptxrtResourceType;

typedef struct ptxrtResourceDesc {
    ptxrtResourceType resType;
    union {
        struct { ptxrtArray_t array; } array;
        struct { void *mipmap; } mipmap;
        struct { void *devPtr; ptxrtChannelFormatDesc desc; size_t sizeInBytes; } linear;
        struct { void *devPtr; ptxrtChannelFormatDesc desc; size_t width, height, pitchInBytes; } pitch2D;
        unsigned long long reserved[8];
    } res;
} ptxrtResourceDesc;

typedef enum {
    ptxrtAddressModeWrap = 0,
    ptxrtAddressModeClamp = 1,
    ptxrtAddressModeMirror = 2,
    ptxrtAddressModeBorder = 3
} ptxrtTextureAddressMode;
typedef enum { ptxrtFilterModePoint = 0, ptxrtFilterModeLinear = 1 } ptxrtTextureFilterMode;
typedef enum { ptxrtReadModeElementType = 0, ptxrtReadModeNormalizedFloat = 1 } ptxrtTextureReadMode;

/* As cudaTextureDesc. Linear filtering needs float results (float channels or
 * NormalizedFloat); NormalizedFloat needs 8/16-bit integer channels; sRGB must be 0; a
 * non-zero borderColor needs float results. The anisotropy, mipmap and cubemap fields are
 * accepted and have no effect (there are no mipmapped arrays). */
typedef struct ptxrtTextureDesc {
    ptxrtTextureAddressMode addressMode[3];
    ptxrtTextureFilterMode filterMode;
    ptxrtTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    ptxrtTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
} ptxrtTextureDesc;

typedef unsigned long long ptxrtTextureObject_t;
typedef unsigned long long ptxrtSurfaceObject_t;

/* cudaCreateTextureObject over an array, linear memory (1D) or pitched 2D memory; the
 * memory must outlive the object. pResViewDesc must be NULL. Objects are valid in every
 * launch until destroyed (destroying one while a launch uses it is a program error). */
ptxrtError_t ptxrtCreateTextureObject(ptxrtTextureObject_t *pTexObject, const ptxrtResourceDesc *pResDesc,
                                      const ptxrtTextureDesc *pTexDesc, const void *pResViewDesc);
ptxrtError_t ptxrtDestroyTextureObject(ptxrtTextureObject_t texObject);
/* cudaCreateSurfaceObject: array resources only. suld/sust/sured out of range follow the
 * instruction's .trap (the launch fails with ptxrtErrorLaunchFailure), .clamp or .zero. */
ptxrtError_t ptxrtCreateSurfaceObject(ptxrtSurfaceObject_t *pSurfObject, const ptxrtResourceDesc *pResDesc);
ptxrtError_t ptxrtDestroySurfaceObject(ptxrtSurfaceObject_t surfObject);

/* Binds an object to every module reference of that PTX name (in all linked modules);
 * 0 unbinds (fetches from an unbound reference fail the launch). ptxrtErrorNotFound if
 * no module declares one. ptxrtBindSamplerRef sets a `.samplerref` (independent
 * texturing mode) from a descriptor's address modes, filter mode and normalizedCoords. */
ptxrtError_t ptxrtBindTextureRef(const char *name, ptxrtTextureObject_t texObject);
ptxrtError_t ptxrtBindSurfaceRef(const char *name, ptxrtSurfaceObject_t surfObject);
ptxrtError_t ptxrtBindSamplerRef(const char *name, const ptxrtTextureDesc *desc);

const char *ptxrtGetErrorName(ptxrtError_t error);
const char *ptxrtGetErrorString(ptxrtError_t error);
/* Returns and clears the calling host thread's last error. */
ptxrtError_t ptxrtGetLastError(void);
/* Returns the calling host thread's last error without clearing it. */
ptxrtError_t ptxrtPeekAtLastError(void);
/* Details of the calling host thread's most recent failure ("" if none). Not cleared by
 * ptxrtGetLastError; the string stays valid until the thread's next failing call. */
const char *ptxrtGetLastErrorMessage(void);

#ifdef __cplusplus
}
#endif
#endif
