/* device_launch_parameters.h (ptxrt): threadIdx, blockIdx, blockDim, gridDim, warpSize come
 * with cuda_runtime.h in CUDA translation units. */
#include "cuda_runtime.h"
