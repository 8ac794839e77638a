/* ptxrt_abi.h: the contract between objects written by ptx2llvm and the ptxrt runtime.
 *
 * Users do not include this file; they use ptxrt.h. It is read by the small serial
 * launchers used in cross-target tests, and it documents what the compiler emits. The
 * contract itself is written once, in the Rust crate ptx2llvm-abi (abi/src/lib.rs), which
 * both the compiler and the runtime use; ptxrt's tests/abi_header.rs compiles static
 * assertions of every layout and value listed there against this file, and checks that
 * every PTXRT_ macro here is listed there.
 */
#ifndef PTXRT_ABI_H
#define PTXRT_ABI_H

#include <stddef.h>
#include <stdint.h>
#include "ptxrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on every incompatible change of the structures below. */
#define PTXRT_ABI_VERSION 6u

/* A cooperative launch's grid barrier memory, zeroed at the launch: %envreg1/%envreg2 are the
 * high/low halves of its address (CUDA's cooperative groups find it there). Every block but
 * the first adds 1 to barrier, the first 0x80000000 - (blocks - 1): bit 31 flips when the
 * last block arrives. */
typedef struct ptxrtGridWorkspace {
    uint32_t size;                /* sizeof(ptxrtGridWorkspace) */
    uint32_t barrier;
} ptxrtGridWorkspace;

/* One launch, shared by all blocks of the grid. Read-only for generated code. */
typedef struct ptxrtLaunchInfo {
    void **args;                  /* args[i] points at the value of kernel parameter i */
    ptxrtDim3 grid;               /* %nctaid */
    ptxrtDim3 block;              /* %ntid */
    uint32_t dynamic_shared_bytes;
    uint32_t num_workers;         /* %nsmid */
    uint64_t grid_id;             /* %gridid: unique per launch in the process, from 1 */
    ptxrtGridWorkspace *grid_workspace; /* cooperative launches only, else NULL */
} ptxrtLaunchInfo;

/* Bytes before and after the shared, context and local windows of a ptxrtBlockEnv that
 * belong to the worker running the block, as the windows do: generated code may read them
 * and write back what it read (a masked vector store done as load, blend and store). */
#define PTXRT_WINDOW_GUARD_BYTES 256u

/* One thread block being run by one worker. Generated block functions receive it. */
typedef struct ptxrtBlockEnv {
    const ptxrtLaunchInfo *launch;
    ptxrtDim3 ctaid;              /* %ctaid */
    uint32_t worker_index;        /* %smid */
    uint8_t *shared;              /* shared window: static then dynamic shared memory, 16-byte aligned,
                                     zero-filled is NOT guaranteed */
    uint8_t *context;             /* per-thread context: context_bytes_per_thread * threads, 64-byte aligned */
    uint8_t *local;               /* per-thread .local memory: local_bytes_per_thread * threads, 64-byte aligned */
    /* Error reporting: generated code sets these and returns a non-zero status. */
    int32_t error_code;           /* a ptxrtError_t */
    const char *error_message;    /* static string, e.g. "trap at kernel.ptx:12:5" */
    /* Blocks run by this call: ctaid.x .. ctaid.x + blocks_x - 1 (same y, z). Always 1
     * unless the kernel's flags have PTXRT_KERNEL_FUSE_X. */
    uint32_t blocks_x;
} ptxrtBlockEnv;

/* ptxrtKernel.flags: the block function runs env->blocks_x neighbouring blocks along x
 * (a barrier-free kernel that uses %ctaid.x and %tid.x only as ctaid.x * ntid.x + tid.x). */
#define PTXRT_KERNEL_FUSE_X 1u

/* Runs one whole thread block. Returns 0 on success, otherwise a ptxrtError_t
 * (with env->error_code/error_message describing it). */
typedef int32_t (*ptxrtBlockFn)(ptxrtBlockEnv *env);

/* One .entry. Exported by the object as a constant under the symbol
 * "__ptxrt_kernel_<entry name>". */
struct ptxrtKernel {
    uint32_t abi_version;               /* PTXRT_ABI_VERSION */
    uint32_t num_params;
    const char *name;                   /* the PTX .entry name */
    ptxrtBlockFn block_fn;
    const uint32_t *param_sizes;        /* num_params entries, bytes */
    const uint32_t *param_aligns;       /* num_params entries, bytes */
    uint32_t static_shared_bytes;       /* dynamic shared memory starts at align_up(this, 16) */
    uint32_t context_bytes_per_thread;
    uint32_t local_bytes_per_thread;
    uint32_t flags;                     /* PTXRT_KERNEL_FUSE_X or 0 */
    ptxrtDim3 reqntid;                  /* {0,0,0} unless the entry has .reqntid */
    ptxrtDim3 maxntid;                  /* {0,0,0} unless the entry has .maxntid */
};

/* A module-scope .global or .const variable, for ptxrtGetSymbol. */
typedef struct ptxrtSymbolInfo {
    const char *name;                   /* the PTX name */
    void *addr;
    uint64_t size;
} ptxrtSymbolInfo;

/* Everything one translated PTX module provides. */
typedef struct ptxrtModule {
    uint32_t abi_version;               /* PTXRT_ABI_VERSION */
    uint32_t num_kernels;
    const ptxrtKernel *const *kernels;
    uint32_t num_symbols;
    const ptxrtSymbolInfo *symbols;
} ptxrtModule;

/* ---- The block scheduler ----
 *
 * A block function with barriers or warp collectives runs the code between them as thread
 * loops ("regions"). Each thread records in a per-thread state word the region it waits to
 * enter (the one after the sync point it reached) or PTXRT_THREAD_EXITED; between regions
 * the block function calls __ptxrt_schedule with one ptxrtSyncPoint per region (index 0:
 * the entry), which completes a sync point, writes what it produces into the waiting
 * threads' context slots, marks the threads it releases with PTXRT_THREAD_RELEASED and
 * returns the region to run (| PTXRT_SCHEDULE_DENSE when every thread runs it), or
 * PTXRT_SCHEDULE_DONE, or PTXRT_SCHEDULE_FAILED with the error in the environment. */
#define PTXRT_SYNC_ENTRY 0u
#define PTXRT_SYNC_BAR_SYNC 1u                /* a: id, b: thread count (or none) */
#define PTXRT_SYNC_BAR_ARRIVE 2u
#define PTXRT_SYNC_BAR_RED 3u                 /* c: predicate, dst: result; op below */
#define PTXRT_SYNC_WARP 4u                    /* a warp collective; op below */

/* op of PTXRT_SYNC_BAR_RED */
#define PTXRT_BAR_RED_POPC 0u
#define PTXRT_BAR_RED_AND 1u
#define PTXRT_BAR_RED_OR 2u

/* op of PTXRT_SYNC_WARP */
#define PTXRT_WARP_SHFL 1u                    /* a value, b lane/offset, c clamp | segment mask << 8 */
#define PTXRT_WARP_VOTE 2u                    /* a predicate */
#define PTXRT_WARP_MATCH 3u                   /* a value; dst mask, pred all equal */
#define PTXRT_WARP_REDUX 4u                   /* a value */
#define PTXRT_WARP_ACTIVEMASK 5u
#define PTXRT_WARP_WARP_SYNC 6u               /* bar.warp.sync, lockstep points of legacy code */
#define PTXRT_WARP_MMA 7u                     /* matrix instructions: 7..13 (14..39 reserved) */
#define PTXRT_WARP_WMMA_MMA 8u
#define PTXRT_WARP_WMMA_LOAD 9u
#define PTXRT_WARP_WMMA_STORE 10u
#define PTXRT_WARP_LDMATRIX 11u
#define PTXRT_WARP_STMATRIX 12u
#define PTXRT_WARP_MOVMATRIX 13u
#define PTXRT_WARP_ELECT 40u

/* mode of the warp collectives */
#define PTXRT_SHFL_UP 0u
#define PTXRT_SHFL_DOWN 1u
#define PTXRT_SHFL_BFLY 2u
#define PTXRT_SHFL_IDX 3u
#define PTXRT_VOTE_ALL 0u
#define PTXRT_VOTE_ANY 1u
#define PTXRT_VOTE_UNI 2u
#define PTXRT_VOTE_BALLOT 3u
#define PTXRT_MATCH_ANY 0u
#define PTXRT_MATCH_ALL 1u
#define PTXRT_REDUX_ADD 0u
#define PTXRT_REDUX_MIN 1u
#define PTXRT_REDUX_MAX 2u
#define PTXRT_REDUX_AND 3u
#define PTXRT_REDUX_OR 4u
#define PTXRT_REDUX_XOR 5u

/* flags of barriers and warp collectives */
#define PTXRT_SYNC_ALIGNED 1u                 /* .aligned */
#define PTXRT_SYNC_SIGNED 2u                  /* redux.sync on .s32 */
#define PTXRT_SYNC_NEGATE 4u                  /* the predicate input is negated */

/* Where an operand comes from, per thread: nothing, the immediate `value`, or the context
 * slot array with per-thread prefix `value` and element size `size` (1, 2, 4 or 8): thread
 * t's element is at context + nthreads * value + t * size. */
#define PTXRT_OPERAND_NONE 0u
#define PTXRT_OPERAND_IMM 1u
#define PTXRT_OPERAND_SLOT 2u

typedef struct ptxrtSyncOperand {
    uint32_t kind;                      /* PTXRT_OPERAND_* */
    uint32_t size;
    uint64_t value;
} ptxrtSyncOperand;

typedef struct ptxrtSyncPoint {
    uint32_t kind;                      /* PTXRT_SYNC_* */
    uint32_t op;                        /* PTXRT_BAR_RED_* or PTXRT_WARP_* */
    uint32_t mode;                      /* PTXRT_SHFL_* ...; matrix: m | n << 8 | k << 16 */
    uint32_t flags;                     /* PTXRT_SYNC_*; matrix: PTXRT_MATRIX_* */
    ptxrtSyncOperand a, b, c;
    ptxrtSyncOperand mask;              /* membermask (none: the lanes that arrived together) */
    ptxrtSyncOperand dst, pred;
    const char *what;                   /* the instruction as written, for messages */
    const ptxrtSyncOperand *operands;   /* matrix instructions: fragment registers, else NULL */
    uint32_t num_operands;
} ptxrtSyncPoint;

/* Thread states, and results of __ptxrt_schedule (region | PTXRT_SCHEDULE_DENSE, or one
 * of the negative values). */
#define PTXRT_THREAD_EXITED 0xFFFFFFFFu
#define PTXRT_THREAD_RELEASED 0x80000000u
#define PTXRT_SCHEDULE_REGION_MASK 0xFFFF
#define PTXRT_SCHEDULE_DENSE 0x40000000
#define PTXRT_SCHEDULE_DONE (-1)
#define PTXRT_SCHEDULE_FAILED (-2)

/* The scheduler's per-block scratch: PTXRT_SCHEDULE_SCRATCH_WORDS 32-bit words the block
 * function zeroes at its start: bar.arrive counts per barrier id (PTXRT_BARRIER_IDS words
 * from PTXRT_SCRATCH_ARRIVALS), the warp point served last, whether the last decision
 * served a warp point. */
#define PTXRT_BARRIER_IDS 16
#define PTXRT_SCHEDULE_SCRATCH_WORDS 32
#define PTXRT_SCRATCH_ARRIVALS 0
#define PTXRT_SCRATCH_LAST_WARP_POINT 16
#define PTXRT_SCRATCH_SERVED_WARP_POINT 17

int32_t __ptxrt_schedule(ptxrtBlockEnv *env, uint32_t nthreads, uint32_t *state, uint8_t *context,
                         const ptxrtSyncPoint *points, uint32_t npoints, uint32_t *scratch);

/* Kernels whose threads run as fibers: the block function calls __ptxrt_run_fibers with its
 * per-thread function; a thread calls __ptxrt_fiber_sync at each sync point. */
typedef int32_t (*ptxrtThreadFn)(ptxrtBlockEnv *env, uint8_t *local, uint32_t tid_x, uint32_t tid_y, uint32_t tid_z);
int32_t __ptxrt_run_fibers(ptxrtBlockEnv *env, ptxrtThreadFn thread_fn);
int32_t __ptxrt_fiber_sync(ptxrtBlockEnv *env, const ptxrtSyncPoint *point);

/* Warp-level matrix instructions (PTXRT_WARP_MMA .. PTXRT_WARP_MOVMATRIX): element types in
 * PTXRT_MATRIX_ELEM_BITS-bit fields of flags (A, B, C, D from bit 0), then the flag bits;
 * the c operand holds the register counts d | a << 8 | b << 16 | c << 24 and, from bit
 * PTXRT_MATRIX_SCALE_SHIFT, an mma's block scaling (ptxrt/src/matrix.rs documents the
 * fragment layouts). */
#define PTXRT_MATRIX_ELEM_F16 1u
#define PTXRT_MATRIX_ELEM_BF16 2u
#define PTXRT_MATRIX_ELEM_TF32 3u
#define PTXRT_MATRIX_ELEM_F32 4u
#define PTXRT_MATRIX_ELEM_F64 5u
#define PTXRT_MATRIX_ELEM_S8 6u
#define PTXRT_MATRIX_ELEM_U8 7u
#define PTXRT_MATRIX_ELEM_S32 8u
#define PTXRT_MATRIX_ELEM_S4 9u
#define PTXRT_MATRIX_ELEM_U4 10u
#define PTXRT_MATRIX_ELEM_E4M3 11u
#define PTXRT_MATRIX_ELEM_E5M2 12u
#define PTXRT_MATRIX_ELEM_B1 13u
#define PTXRT_MATRIX_ELEM_E3M2 14u
#define PTXRT_MATRIX_ELEM_E2M3 15u
#define PTXRT_MATRIX_ELEM_E2M1 16u            /* in an 8-bit container */
#define PTXRT_MATRIX_ELEM_E2M1_PACKED 17u     /* eight to a register (.kind::mxf4*) */
#define PTXRT_MATRIX_ELEM_BITS 5
#define PTXRT_MATRIX_A_COL (1u << 20)
#define PTXRT_MATRIX_B_COL (1u << 21)
#define PTXRT_MATRIX_SATFINITE (1u << 22)
#define PTXRT_MATRIX_TRANS (1u << 23)
#define PTXRT_MATRIX_SHARED (1u << 24)        /* the address is a shared-window offset */
#define PTXRT_MATRIX_ROLE_SHIFT 25            /* wmma.load: 0 A, 1 B, 2 C */
#define PTXRT_MATRIX_ROUND_SHIFT 27           /* .f64: 0 .rn, 1 .rz, 2 .rm, 3 .rp */
#define PTXRT_MATRIX_POPC_AND (1u << 29)
#define PTXRT_MATRIX_SPARSE (1u << 30)
#define PTXRT_MATRIX_SCALE_SHIFT 32

/* Texture, surface and sampler references (`.texref`, ISA 1.x `.tex`, `.surfref`,
 * `.samplerref`) are 8-byte module globals holding a handle, listed in `symbols` as
 * ".texref:NAME", ".surfref:NAME" and ".samplerref:NAME" (ptxrtBind*Ref store into them).
 * A handle is 0 (unbound), a texture/surface object (ptxrtTextureObject_t/
 * ptxrtSurfaceObject_t), or a sampler word: PTXRT_SAMPLER_TAG | address mode of dimension
 * d at bits 3d..3d+2 (0 wrap, 1 mirror, 2 clamp_ogl, 3 clamp_to_edge, 4 clamp_to_border)
 * | PTXRT_SAMPLER_LINEAR | PTXRT_SAMPLER_FORCE_UNNORMALIZED | the ptxrtTextureCompareFunc
 * of depth-compare fetches << PTXRT_SAMPLER_COMPARE_SHIFT (3 bits). The compiler writes a
 * `.samplerref`'s initializer as such a word (compare bits 0: LessEqual). */
#define PTXRT_SAMPLER_TAG 0x5A4D000000000000ull
#define PTXRT_SAMPLER_LINEAR (1ull << 9)
#define PTXRT_SAMPLER_FORCE_UNNORMALIZED (1ull << 10)
#define PTXRT_SAMPLER_COMPARE_SHIFT 11

/* Texture and surface instructions call these. They return 0, PTXRT_TEX_BAD_HANDLE (not a
 * live object of the right kind) or PTXRT_TEX_OUT_OF_BOUNDS (a surface access outside the
 * surface with .trap); generated code ends the launch with an error for non-zero values.
 * Coordinates are 4 32-bit words as the instruction lists them (array layer first). */
#define PTXRT_TEX_BAD_HANDLE 1
#define PTXRT_TEX_OUT_OF_BOUNDS 2

/* op of __ptxrt_tex: geometry | coordinate type | result type | sampler | gather. */
#define PTXRT_GEOM_1D 1u
#define PTXRT_GEOM_2D 2u
#define PTXRT_GEOM_3D 3u
#define PTXRT_GEOM_A1D 4u
#define PTXRT_GEOM_A2D 5u
#define PTXRT_GEOM_CUBE 6u                    /* coords: x y z (f32) */
#define PTXRT_GEOM_ACUBE 7u                   /* coords: cube index (u32), x y z (f32) */
#define PTXRT_TEX_FLOAT_COORDS (1u << 4)      /* .f32 coordinates (else .s32) */
#define PTXRT_TEX_DTYPE_SHIFT 5               /* 0 .u32, 1 .s32, 2 .f32, 3 .f16 */
#define PTXRT_TEX_HAS_SAMPLER (1u << 7)       /* `sampler` is the explicit sampler operand */
#define PTXRT_TEX_GATHER_SHIFT 8              /* tld4: 1 + component (.r .g .b .a); 0: tex */
#define PTXRT_TEX_HAS_OFFSET (1u << 11)       /* coords[4..7]: the .s32 texel offset operand */
#define PTXRT_GEOM_2DMS 8u                    /* coords: sample (u32), x y (s32) */
#define PTXRT_GEOM_A2DMS 9u                   /* coords: layer (u32), sample (u32), x y (s32) */
#define PTXRT_TEX_LOD_SHIFT 12                /* 0 base level, 1 .level, 2 .grad */
#define PTXRT_TEX_DEPTH_COMPARE (1u << 14)    /* the depth-compare operand f: coords[16] */

/* tex / tld4: out = the 4 result words (f32 bits, integers, or f16 in the low half).
 * coords holds 4 words, or 8 with PTXRT_TEX_HAS_OFFSET (offset elements past the
 * geometry's dimensions are ignored), or 16 with a level-of-detail mode: coordinates 0..3,
 * offset 4..7 (read with PTXRT_TEX_HAS_OFFSET), then the lod (word 8, typed like the
 * coordinates) or the gradients dPdx (8..10) and dPdy (12..14) as f32; or 17 with
 * PTXRT_TEX_DEPTH_COMPARE: the 16 words as above, then the compare value f (word 16, f32;
 * ptxrt.h's "Depth compare"). */
int32_t __ptxrt_tex(uint64_t texture, uint64_t sampler, uint32_t op, const uint32_t *coords, uint32_t *out);

/* Inline fetches: generated code fetches texels of texture objects itself where the
 * descriptor of the handle's slot (handle & 0xFFFFFFFF, for handles with
 * handle >> 32 == 1) says it can, and calls __ptxrt_tex otherwise (kind 0, or a fetch
 * form or texture mode the inline path does not cover; the ptx2llvm-abi crate's
 * `texture::TexInline` has the rules). The runtime fills a slot's descriptor before
 * returning its handle and sets kind to 0 when the object is destroyed; generated code
 * only reads. */
#define PTXRT_TEX_INLINE_SLOTS 65536u
#define PTXRT_TEX_INLINE_OK 1u                      /* 0: every fetch calls the runtime */
#define PTXRT_TEX_INLINE_CHANNEL_SHIFT 1            /* 3 bits: u8 s8 u16 s16 u32 s32 f16 f32 */
#define PTXRT_TEX_INLINE_CHANNELS_SHIFT 4           /* 2 bits: log2(channels) */
#define PTXRT_TEX_INLINE_READ_NORMALIZED (1u << 6)  /* ptxrtReadModeNormalizedFloat */
#define PTXRT_TEX_INLINE_FORMAT_MASK 0x7Eu          /* the three fields above */
#define PTXRT_TEX_INLINE_FLOAT_RESULT (1u << 7)     /* results are floats (alpha 1.0) */
#define PTXRT_TEX_INLINE_BORDER_X (1u << 8)         /* x outside: the border words (else clamp) */
#define PTXRT_TEX_INLINE_BORDER_Y (1u << 9)
#define PTXRT_TEX_INLINE_ZERO_OUTSIDE (1u << 10)    /* linear memory: .s32 x outside reads 0 */
#define PTXRT_TEX_INLINE_NORMALIZED (1u << 11)      /* normalized coordinates */
#define PTXRT_TEX_INLINE_LINEAR (1u << 12)          /* linear filtering */
#define PTXRT_TEX_INLINE_RAW32 (1u << 13)           /* 32-bit channels: results are their bits */
typedef struct ptxrtTexInline {
    uint32_t kind;
    uint32_t layer_max;           /* last layer of a layered image, else 0 */
    uint8_t *data;                /* texel (0, 0) of layer 0 */
    uint64_t width, height;       /* texels in x and y (1 for 1D images) */
    uint64_t pitch;               /* bytes between rows */
    uint64_t layer_stride;        /* bytes between layers */
    uint32_t border[4];           /* result words of border texels */
} ptxrtTexInline;                 /* 64 bytes */
extern ptxrtTexInline __ptxrt_tex_inline[PTXRT_TEX_INLINE_SLOTS];

/* txq / suq: query 0 width, 1 height, 2 depth, 3 channel_data_type, 4 channel_order (OpenCL
 * values, PTX ISA Tables 12-13), 5 normalized_coords, 6 filter_mode, 7-9 addr_mode_0..2,
 * 10 array_size, 11 num_mipmap_levels, 12 num_samples, 13 force_unnormalized_coords,
 * 14 memory_layout. */
int32_t __ptxrt_query(uint64_t handle, uint32_t query, uint32_t *out);

/* txq.level: query 0 width, 1 height, 2 depth of level `level` of a texture. */
int32_t __ptxrt_query_level(uint64_t handle, uint32_t query, int32_t level, uint32_t *out);

/* istypep: kind 0 .texref, 1 .samplerref, 2 .surfref; returns 1 or 0. */
uint32_t __ptxrt_istypep(uint64_t handle, uint32_t kind);

/* op of the surface functions: geometry | log2(access bytes) << 4 | clamp << 8 (0 .trap,
 * 1 .clamp, 2 .zero) | PTXRT_SURF_FORMATTED (.p) | reduction << 12 (1 add, 2 min, 3 max,
 * 4 and, 5 or) | PTXRT_SURF_SIGNED (sured.b on .s32/.s64). */
#define PTXRT_SURF_FORMATTED (1u << 10)
#define PTXRT_SURF_SIGNED (1u << 16)
int32_t __ptxrt_suld(uint64_t surface, uint32_t op, const int32_t *coords, void *data);
int32_t __ptxrt_sust(uint64_t surface, uint32_t op, const int32_t *coords, const void *data);
int32_t __ptxrt_sured(uint64_t surface, uint32_t op, const int32_t *coords, uint64_t value);

/* Called by each object's constructor (an entry of its .init_array section, which GNU ld,
 * gold and LLD all run) before main. Must be safe
 * to call before any other runtime function and from several objects. */
void __ptxrt_register_module(const ptxrtModule *module);

/* Optional: an object that can be unloaded (dlclose) calls this from its destructor
 * (llvm.global_dtors) so the runtime forgets its descriptors. */
void __ptxrt_unregister_module(const ptxrtModule *module);

#ifdef __cplusplus
}
#endif
#endif
