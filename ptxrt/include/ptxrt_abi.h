/* ptxrt_abi.h: the contract between objects written by ptx2llvm and the ptxrt runtime.
 *
 * Users do not include this file; they use ptxrt.h. It is read by the runtime, by the
 * small serial launchers used in cross-target tests, and it documents what the compiler
 * emits (ptx2llvm/src/lower/abi.rs is the compiler-side mirror and must stay in sync).
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
#define PTXRT_ABI_VERSION 1u

/* One launch, shared by all blocks of the grid. Read-only for generated code. */
typedef struct ptxrtLaunchInfo {
    void **args;                  /* args[i] points at the value of kernel parameter i */
    ptxrtDim3 grid;               /* %nctaid */
    ptxrtDim3 block;              /* %ntid */
    uint32_t dynamic_shared_bytes;
    uint32_t num_workers;         /* %nsmid */
} ptxrtLaunchInfo;

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
} ptxrtBlockEnv;

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
    uint32_t flags;                     /* reserved, 0 */
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

/* Called by each object's constructor (llvm.global_ctors) before main. Must be safe
 * to call before any other runtime function and from several objects. */
void __ptxrt_register_module(const ptxrtModule *module);

/* Optional: an object that can be unloaded (dlclose) calls this from its destructor
 * (llvm.global_dtors) so the runtime forgets its descriptors. */
void __ptxrt_unregister_module(const ptxrtModule *module);

#ifdef __cplusplus
}
#endif
#endif
