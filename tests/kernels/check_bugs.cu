// Kernels for checking mode (ptx2llvm --check, e2e checking_mode): each has the bug its
// name says when launched with the "bad" argument, and none with the "good" one. The host
// (tests/hosts/check_bugs_host.c) expects the report to name the line marked BUG.
extern "C" __global__ void shared_write(int *out, int offset)
{
    __shared__ int s[64];
    s[threadIdx.x + offset] = threadIdx.x;  // BUG line 7: offset 1 writes s[64]
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void local_array(int *out, int last)
{
    int a[8];
    for (int i = 0; i <= last; i++)
        a[i] = out[i] * 3;                  // BUG line 16: last 8 writes a[8]
    int sum = 0;
    for (int i = 0; i < 8; i++)
        sum += a[i & 7] * (i + 1);
    out[threadIdx.x] = sum;
}

extern "C" __global__ void global_scale(float *p, int limit)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < limit)
        p[i] = p[i] * 2.0f;                 // BUG line 27: limit n + 1 reads p[n]
}

extern "C" __global__ void shared_race(int *out, int sync)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x * 5;
    if (sync)
        __syncthreads();
    out[threadIdx.x] = threadIdx.x > 0 ? s[threadIdx.x - 1] : 0;  // BUG line 36: no barrier
}

extern "C" __global__ void shared_uninit(int *out, int filled)
{
    __shared__ int s[64];
    if (threadIdx.x < filled)
        s[threadIdx.x] = threadIdx.x + 7;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];      // BUG line 45: filled 63 leaves s[63]
}
