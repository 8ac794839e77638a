// Memory spaces from the host's side: a struct passed by value, a __constant__ table and a
// __device__ counter set and read through ptxrtGetSymbol between launches, and a .local
// array with computed indices whose address is taken. NVRTC output in memory.ptx;
// checked by tests/hosts/memory_host.c.
struct Params { int scale; float bias; double weights[3]; char tag; };

__constant__ float coeff[8];
__device__ unsigned long long launches;
__device__ int histogram[16];

__device__ __noinline__ float sum_local(const float *v, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += v[i];
    return s;
}

extern "C" __global__ void memory(Params p, const int *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) launches += 1;
    if (i >= n) return;
    float buf[16];
    int v = in[i];
    for (int k = 0; k < 16; k++) buf[(k * 5 + v) & 15] = coeff[k & 7] * (float)k;
    atomicAdd(&histogram[v & 15], 1);
    out[i] = sum_local(buf, 1 + (v & 15)) * (float)p.scale + p.bias + (float)(p.weights[v % 3]) + (float)p.tag;
}
