// Classic CUDA algorithms with barriers in loops, compiled to PTX with NVRTC
// (tests/kernels/algorithms.ptx); checked by tests/hosts/algorithms_host.c.

// Inclusive scan of each block's elements (Hillis-Steele in shared memory, double buffer).
extern "C" __global__ void block_scan(const int *in, int *out, int n)
{
    extern __shared__ int buf[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    int *src = buf, *dst = buf + blockDim.x;
    src[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        dst[t] = src[t] + (t >= off ? src[t - off] : 0);
        __syncthreads();
        int *tmp = src; src = dst; dst = tmp;
    }
    if (i < n) out[i] = src[t];
}

// C = A * B for n x n matrices, 16 x 16 tiles in shared memory, 2D grid.
extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[16][16], tb[16][16];
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += 16) {
        ta[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0.0f;
        tb[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[(k0 + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < 16; k++) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n) c[row * n + col] = acc;
}

// Bitonic sort of each block's 2 * blockDim.x keys in shared memory (barriers in nested
// loops); blockDim.x must be a power of two.
extern "C" __global__ void bitonic(unsigned *keys)
{
    extern __shared__ unsigned s[];
    unsigned t = threadIdx.x, n = 2 * blockDim.x;
    unsigned *base = keys + blockIdx.x * n;
    s[t] = base[t];
    s[t + blockDim.x] = base[t + blockDim.x];
    __syncthreads();
    for (unsigned size = 2; size <= n; size *= 2) {
        for (unsigned stride = size / 2; stride > 0; stride /= 2) {
            unsigned pos = 2 * t - (t & (stride - 1));
            bool up = ((pos & size) == 0);
            unsigned x = s[pos], y = s[pos + stride];
            if ((x > y) == up) { s[pos] = y; s[pos + stride] = x; }
            __syncthreads();
        }
    }
    base[t] = s[t];
    base[t + blockDim.x] = s[t + blockDim.x];
}

// A 3D grid of 3D blocks writing each thread's global linear index.
extern "C" __global__ void grid3d(unsigned *out)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
    unsigned w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
    out[(z * h + y) * w + x] = x * 1000000u + y * 1000u + z;
}
