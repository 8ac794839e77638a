// Barrier-free kernels that ptx2llvm runs as runs of neighbouring blocks fused along x
// (lower/fusion.rs): a 2D 5-point stencil with an interior guard, and a 2D copy whose
// index also uses blockIdx.y/threadIdx.y and writes one plane per blockIdx.z. Host checks in tests/hosts/stencil_host.c.

extern "C" __global__ void stencil(int w, int h, const float *in, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
        int i = y * w + x;
        out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
    }
}

extern "C" __global__ void tag(int w, int h, unsigned *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[((size_t)blockIdx.z * h + y) * w + x] = (unsigned)(x * 131 + y * 7 + blockIdx.z);
}
