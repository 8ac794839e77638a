/* sm_60_atomic_functions.h (ptxrt): what CUDA declares here comes with cuda_runtime.h in ptxrt's headers;
 * this file exists so that programs that include it directly compile. */
#ifndef PTXRT_CUDA_SM_60_ATOMIC_FUNCTIONS_H
#define PTXRT_CUDA_SM_60_ATOMIC_FUNCTIONS_H
#include "cuda_runtime.h"
#endif
