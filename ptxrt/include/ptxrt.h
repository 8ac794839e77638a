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
