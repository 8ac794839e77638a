// Texture and surface objects as CUDA programs use them; the host (textures_host.c)
// builds the objects with every address mode, filter and coordinate mode and checks the
// results against a reference written from the sampling rules.

extern "C" __global__ void fetch1d(cudaTextureObject_t t, const float *x, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1D<float4>(t, x[i]);
}

extern "C" __global__ void fetch2d(cudaTextureObject_t t, const float2 *xy, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}

extern "C" __global__ void fetch3d(cudaTextureObject_t t, const float4 *xyz, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex3D<float4>(t, xyz[i].x, xyz[i].y, xyz[i].z);
}

// Integer texel fetches from linear memory (tex1Dfetch: integer coordinates).
extern "C" __global__ void fetch_linear_int(cudaTextureObject_t t, const int *idx, int4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch<int4>(t, idx[i]);
}

extern "C" __global__ void fetch2d_layered(cudaTextureObject_t t, const float4 *xyl, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2DLayered<float4>(t, xyl[i].x, xyl[i].y, (int)xyl[i].z);
}

extern "C" __global__ void gather2d(cudaTextureObject_t t, const float2 *xy, float4 *out, int n, int comp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        switch (comp) {
        case 0: out[i] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 0); break;
        case 1: out[i] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 1); break;
        case 2: out[i] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 2); break;
        default: out[i] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 3); break;
        }
    }
}

// Surface round trip: every thread reads texel (x, y) of src with the given boundary
// mode at a shifted position and writes it to dst.
extern "C" __global__ void surf_copy(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h, int dx, int dy, int mode)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    unsigned int v;
    if (mode == 0)
        v = surf2Dread<unsigned int>(src, (x + dx) * 4, y + dy, cudaBoundaryModeZero);
    else
        v = surf2Dread<unsigned int>(src, (x + dx) * 4, y + dy, cudaBoundaryModeClamp);
    surf2Dwrite<unsigned int>(v + 1, dst, x * 4, y, cudaBoundaryModeTrap);
}

// An out-of-range write with cudaBoundaryModeTrap ends the launch with an error.
extern "C" __global__ void surf_trap(cudaSurfaceObject_t s, int x)
{
    surf1Dwrite<float>(1.0f, s, x * 4, cudaBoundaryModeTrap);
}
