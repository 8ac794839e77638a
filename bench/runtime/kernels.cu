// Kernels of the runtime benchmark (bench/runtime), compiled to kernels.ptx with NVRTC.
// Each has a native C/OpenMP twin in native.c written the way one would write it for a CPU.

extern "C" __global__ void axpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// 5-point stencil on a w x h grid (interior points), 16 x 16 thread blocks.
extern "C" __global__ void stencil(int w, int h, const float *in, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
        int i = y * w + x;
        out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
    }
}

// Sum reduction: shared-memory tree per block, one partial sum per block.
extern "C" __global__ void block_sum(int n, const float *in, float *partial)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += in[i];
    s[t] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}
