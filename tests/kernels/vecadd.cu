// vecadd.cu: element-wise vector addition, c[i] = a[i] + b[i].
// vecadd.ptx next to this file was generated from it with NVRTC (default architecture).
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
