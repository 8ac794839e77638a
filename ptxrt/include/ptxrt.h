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
    ptxrtErrorInvalidPitchValue = 12,
    ptxrtErrorInvalidSymbol = 13,
    ptxrtErrorInvalidMemcpyDirection = 21,
    ptxrtErrorMissingConfiguration = 52,
    ptxrtErrorInvalidDeviceFunction = 98,
    ptxrtErrorInvalidDevice = 101,
    ptxrtErrorInvalidResourceHandle = 400,
    ptxrtErrorNotFound = 500,
    ptxrtErrorNotReady = 600,
    ptxrtErrorIllegalAddress = 700,
    ptxrtErrorAssert = 710,           /* the CUDA runtime API's code for a failed device assert */
    ptxrtErrorIllegalInstruction = 715,
    ptxrtErrorLaunchFailure = 719,
    ptxrtErrorCooperativeLaunchTooLarge = 720,
    ptxrtErrorNotSupported = 801,
    ptxrtErrorUnknown = 999           /* an internal error of the runtime (a bug) */
} ptxrtError_t;

/* One per .entry, exported by the translated object. */
typedef struct ptxrtKernel ptxrtKernel;

/* Finds a kernel by its PTX .entry name (C++ kernels: the mangled name); NULL if no
 * linked object defines it, with a message (ptxrtGetLastErrorMessage) that names the
 * closest registered kernels and the usual causes (a C++ name looked up unmangled; an
 * object in a static archive that nothing referred to, so the linker left it out). */
const ptxrtKernel *ptxrtFindKernel(const char *name);

/* Runs a grid and returns when it has finished (with the grids its blocks launched from
 * the device). args[i] points at the value of parameter i, as in cuLaunchKernel. stream
 * must be NULL. Launches from different host threads run at the same time, as kernels of
 * different CUDA streams may: each launching thread runs blocks of its own grid, and idle
 * worker threads help whichever grids have blocks left. */
ptxrtError_t ptxrtLaunchKernel(const ptxrtKernel *kernel, ptxrtDim3 grid, ptxrtDim3 block,
                               void **args, size_t dynamicSharedBytes, void *stream);

/* A launch's configuration, as CUDA's CUlaunchConfig. stream must be NULL. */
typedef struct {
    ptxrtDim3 gridDim;
    ptxrtDim3 blockDim;
    size_t sharedMemBytes;
    void *stream;
} ptxrtLaunchConfig;

/* As ptxrtLaunchKernel, with the arguments checked first: nargs must be the kernel's
 * number of parameters and, unless argSizes is NULL, argSizes[i] the size in bytes of
 * parameter i (sizeof the value args[i] points at), else ptxrtErrorInvalidValue and a
 * message naming the parameter. The typed launchers of ptx2llvm --header use it. */
ptxrtError_t ptxrtLaunchKernelEx(const ptxrtKernel *kernel, const ptxrtLaunchConfig *config,
                                 void **args, const size_t *argSizes, size_t nargs);

/* As ptxrtLaunchKernel, with every block of the grid resident at once (one thread per
 * block, all started before any block runs), as CUDA's cooperative launches guarantee:
 * blocks may wait for each other, e.g. a grid-wide barrier spun on global atomics. Grids
 * of more blocks than can be co-resident (cudaOccupancyMaxActiveBlocksPerMultiprocessor for
 * the block size and shared memory, times ptxrtGetNumThreads(), the multiprocessor count)
 * fail with ptxrtErrorCooperativeLaunchTooLarge. stream must be NULL. */
ptxrtError_t ptxrtLaunchCooperativeKernel(const ptxrtKernel *kernel, ptxrtDim3 grid, ptxrtDim3 block,
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
 * and applies to later launches. The launching host thread is one of the workers (%smid 0
 * of its grid); %smid of every block is below %nsmid, the number set here. */
ptxrtError_t ptxrtSetNumThreads(int n);
int ptxrtGetNumThreads(void);

/* Stacks: every worker runs blocks on a stack of PTXRT_STACK_BYTES (default 8 MiB), each
 * thread of a kernel that runs as fibers on one of PTXRT_FIBER_STACK_BYTES (default
 * 256 KiB); both are read once and are reserved address space, committed as used. A kernel
 * that overflows one (deep recursion) fails its launch with ptxrtErrorLaunchFailure and a
 * message naming the kernel, the block (and the thread, for fibers); the process goes on.
 * Faults: kernel code that reads or writes unmapped memory (a null or wild pointer) fails
 * its launch with ptxrtErrorIllegalAddress, an illegal instruction with
 * ptxrtErrorIllegalInstruction, an arithmetic trap with ptxrtErrorLaunchFailure; the
 * message names the kernel, the block and the address, and later launches work. For this
 * ptxrt installs SIGSEGV/SIGBUS/SIGFPE/SIGILL handlers at the first launch: a fault while
 * a worker runs kernel code on its block or fiber stack ends that launch; every other
 * fault (host code, or another program's handler installed later) goes to the handler
 * installed before ptxrt's, or ends the process as before. Limits: an access that lands
 * in mapped memory it should not touch is not a fault (the checking mode is what would
 * catch it); a fault inside a C library function a kernel called (printf with a bad
 * string pointer) ends the launch too, but may leave that function's lock held. Threads
 * that run blocks get an alternate signal stack if they have none. */

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

/* Mipmaps (tex.level, tex.grad; PTX ISA 9.2 section 9.7.10.2): level i of a mipmapped array
 * has max(1, floor(n / 2^i)) texels in each of width, height and (3D) depth; layers and
 * cubemap faces are not reduced. The level of detail (LOD) of a fetch is:
 *   tex.level: the lod operand (.f32, or .s32 with integer coordinates);
 *   tex.grad:  log2(max(|dPdx|, |dPdy|)), the gradient vectors in texels of level 0 (scaled
 *              by the size when the coordinates are normalized .f32; for cubemaps the
 *              derivatives of the face coordinates, ds = (dsc |ma| - sc d|ma|) / (2 ma^2),
 *              times the face size), rounded to 8 fraction bits (round(256 * lod) / 256,
 *              computed exactly; zero gradients give -infinity, NaN ones NaN);
 *   tex (base): level 0, whatever the texture.
 * The LOD plus mipmapLevelBias is clamped to [minMipmapLevelClamp, maxMipmapLevelClamp] (as in
 * CUDA, a zeroed descriptor clamps every fetch to level 0), then to [0, levels - 1]; NaN reads
 * level 0. mipmapFilterMode point reads the nearest level, ceil(lod + 0.5) - 1 (a half goes
 * to the finer level); linear reads levels floor(lod) and the next (the last level alone at
 * the end) and blends them as (1 - w) * T0 + w * T1 in f32, w = frac(lod) rounded to 8
 * fraction bits like the texel weights. Integer (.s32) coordinates read the nearest level.
 * Textures over an ordinary array have the one level 0 (txq.num_mipmap_levels gives 0 for
 * them, the level count for mipmapped ones). txq.level.{width,height,depth} answers for
 * level lod of the texture, 0 for a level it does not have. */
typedef struct ptxrtMipmappedArray *ptxrtMipmappedArray_t;
typedef const struct ptxrtMipmappedArray *ptxrtMipmappedArray_const_t;

/* Multisample textures (tex.2dms, tex.a2dms): 2D arrays with several samples per texel.
 * The coordinates are {sample, x, y} (.2dms) and {layer, sample, x, y} (.a2dms; the ISA 9.2
 * text gives this order in its introduction and example, while one sentence of it names the
 * sample first), x and y texel indices (.s32) mapped by the address modes like integer
 * coordinates; sample and layer are clamped to the array. Other geometries read sample 0.
 * txq.num_samples gives the sample count (0 for other textures). The samples are stored as
 * slices: sample s of layer l is slice l * numSamples + s, so ptxrtMemcpy2DToArray's hOffset
 * for row y of it is (l * numSamples + s) * height + y. */

/* cudaMallocArray (height 0: 1D) and cudaMalloc3DArray. Zero width, a depth without a
 * height (not layered), unknown flags or a bad format: ptxrtErrorInvalidValue. */
ptxrtError_t ptxrtMallocArray(ptxrtArray_t *array, const ptxrtChannelFormatDesc *desc,
                              size_t width, size_t height, unsigned int flags);
ptxrtError_t ptxrtMalloc3DArray(ptxrtArray_t *array, const ptxrtChannelFormatDesc *desc,
                                ptxrtExtent extent, unsigned int flags);
/* A multisample array of numSamples (1..32) samples per texel: extent {width, height, 0}, or
 * {width, height, layers} with ptxrtArrayLayered (the only flag). It backs textures (not
 * surfaces). */
ptxrtError_t ptxrtMallocMultisampleArray(ptxrtArray_t *array, const ptxrtChannelFormatDesc *desc,
                                         ptxrtExtent extent, unsigned int numSamples, unsigned int flags);
/* cudaMallocMipmappedArray: extent and flags as ptxrtMalloc3DArray's (cubemaps and layered
 * arrays too); numLevels is clamped to [1, 1 + floor(log2(max(width, height, depth)))]
 * (depth of 3D arrays only), as CUDA does. */
ptxrtError_t ptxrtMallocMipmappedArray(ptxrtMipmappedArray_t *mipmappedArray, const ptxrtChannelFormatDesc *desc,
                                       ptxrtExtent extent, unsigned int numLevels, unsigned int flags);
/* cudaGetMipmappedArrayLevel: the array of one level, to copy texels into or to back a
 * surface. It belongs to the mipmapped array (ptxrtFreeArray refuses it). */
ptxrtError_t ptxrtGetMipmappedArrayLevel(ptxrtArray_t *levelArray, ptxrtMipmappedArray_const_t mipmappedArray,
                                         unsigned int level);
/* Must not be used by a live texture or surface object. NULL is allowed. */
ptxrtError_t ptxrtFreeMipmappedArray(ptxrtMipmappedArray_t mipmappedArray);
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
    ptxrtResourceTypeMipmappedArray = 1,   /* textures only */
    ptxrtResourceTypeLinear = 2,
    ptxrtResourceTypePitch2D = 3
} ptxrtResourceType;

typedef struct ptxrtResourceDesc {
    ptxrtResourceType resType;
    union {
        struct { ptxrtArray_t array; } array;
        struct { ptxrtMipmappedArray_t mipmap; } mipmap;
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

/* Depth compare (the operand f of tex and tld4; PTX ISA 9.2 sections 9.7.10.3, 9.7.10.4).
 * The ISA leaves the comparison to the texture, as graphics APIs do: it is compareFunc of
 * the descriptor, tested as `f <op> texel` in OpenGL's order (the reference f on the left:
 * LessEqual passes when f <= texel) against the texel's first channel as float (normalized
 * reads give the normalized value; integer element reads their value, signed for signed
 * formats; border texels their first border channel). NaN on either side fails every
 * comparison but NotEqual and Always. A zeroed descriptor compares with LessEqual.
 *   tex with f: each texel of the footprint (one for point filtering, the 2 (1D) or 2x2
 *     taps of linear filtering with the weights above, in each level of a mipmap blend)
 *     is replaced by 1.0 where the comparison passes, else 0.0, then filtered as usual; the
 *     result r is returned in all four components, as a float whatever the texture's format
 *     (f32 bits in .u32/.s32/.f32 destinations, f16 in .f16 ones).
 *   tld4 with f: each of the four gathered components is the comparison result of its texel.
 * The comparison is sampling state like the filter mode: with an explicit sampler operand
 * (independent texturing mode) the sampler's compareFunc applies: ptxrtBindSamplerRef takes
 * it from its descriptor, and `.samplerref` initializers in PTX (which have no compare
 * field) compare with LessEqual. Texture references (`.texref`, ISA 1.x `.tex`) are bound to
 * texture objects and use the object's compareFunc. f is not allowed with .3d, .2dms,
 * .a2dms or .s32 coordinates (the translator rejects those forms). */
typedef enum {
    ptxrtCompareLessEqual = 0,
    ptxrtCompareGreaterEqual = 1,
    ptxrtCompareLess = 2,
    ptxrtCompareGreater = 3,
    ptxrtCompareEqual = 4,
    ptxrtCompareNotEqual = 5,
    ptxrtCompareAlways = 6,
    ptxrtCompareNever = 7
} ptxrtTextureCompareFunc;

/* As cudaTextureDesc. Linear filtering needs float results (float channels or
 * NormalizedFloat); NormalizedFloat needs 8/16-bit integer channels; sRGB must be 0; a
 * non-zero borderColor needs float results. The mipmap fields apply to textures over
 * mipmapped arrays (see Mipmaps above: linear mipmapFilterMode needs float results; bias
 * and clamps finite, min <= max). maxAnisotropy, disableTrilinearOptimization and
 * seamlessCubemap are accepted and have no effect. compareFunc (a ptxrtTextureCompareFunc,
 * after CUDA's fields) is the comparison of depth-compare fetches (see Depth compare). */
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
    int compareFunc;
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
 * texturing mode) from a descriptor's address modes, filter mode, normalizedCoords and
 * compareFunc. */
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
