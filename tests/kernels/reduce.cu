// reduce.cu: shared-memory tree reductions, one partial sum per block.
// reduce.ptx next to this file was generated from it with NVRTC (default architecture).
//
// Each block accumulates a grid-stride slice of the input per thread, then halves
// the number of active threads with a barrier inside the loop, and thread 0 writes
// the block's sum to out[blockIdx.x]. blockDim.x <= 1024; with a block size that is
// not a power of two the tree leaves some partial sums out (the host reference
// mirrors the tree, so such shapes are tested too).

#define MAX_BLOCK 1024

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float sdata[MAX_BLOCK];
    unsigned int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        acc += in[i];
    }
    sdata[tid] = acc;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
    }
}

extern "C" __global__ void reduce_sum_u32(const unsigned int *in, unsigned int *out, int n)
{
    __shared__ unsigned int sdata[MAX_BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        acc += in[i];
    }
    sdata[tid] = acc;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
    }
}
