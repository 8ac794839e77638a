// vecadd.cu: the demo kernel. vecadd.ptx next to this file was generated from it with
// NVRTC; ptx2llvm turns that PTX into a native object that main.c launches through ptxrt.
//
// A grid-stride loop: any grid size covers any n.
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, unsigned int n)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x) {
        c[i] = a[i] + b[i];
    }
}
