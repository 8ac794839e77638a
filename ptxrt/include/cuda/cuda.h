/* cuda.h (ptxrt): only the version macro and the basic types of CUDA's driver API, for
 * programs that include cuda.h alongside the runtime API. ptxrt does not implement the
 * driver API (cu* functions): use the runtime API (cuda_runtime.h). */
#ifndef PTXRT_CUDA_H
#define PTXRT_CUDA_H

#ifndef CUDA_VERSION
#define CUDA_VERSION 12000
#endif

typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#endif
