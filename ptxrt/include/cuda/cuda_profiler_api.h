/* cuda_profiler_api.h (ptxrt): profiler control, accepted and without effect. */
#ifndef PTXRT_CUDA_PROFILER_API_H
#define PTXRT_CUDA_PROFILER_API_H
#include "cuda_runtime_api.h"
#if defined(__cplusplus)
extern "C" {
#endif
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
#if defined(__cplusplus)
}
#endif
#endif
