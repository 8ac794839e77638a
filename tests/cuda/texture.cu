// Texture objects in CUDA style: a 2D float array with linear filtering and normalized
// coordinates (wrap), and a 1D fetch from linear memory; checked against CUDA's filtering
// rule computed on the host.
#ifndef __CUDACC_RTC__ // NVRTC (device code only) has no host headers
#include <cuda_runtime.h>
#include <cmath>
#include <vector>
#include "cuda_check.h"
#endif

__global__ void sample2d(cudaTextureObject_t tex, float *out, int w, int h, float shift) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(tex, (x + shift) / w, (y + 0.5f) / h);
}

__global__ void fetch1d(cudaTextureObject_t tex, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(tex, i) * 3;
}

#ifndef __CUDACC_RTC__ // host code: NVRTC compiles the device code only
// CUDA's linear filtering along x (y at texel centres): weight in 1.8 fixed point, wrap.
static float reference(const std::vector<float> &img, int w, int x, int y, float shift) {
    float u = (x + shift) / w * w - 0.5f;
    float fl = std::floor(u);
    float a = std::round((u - fl) * 256.0f) / 256.0f;
    int i0 = (((int)fl % w) + w) % w, i1 = (i0 + 1) % w;
    return (1.0f - a) * img[y * w + i0] + a * img[y * w + i1];
}

int main() {
    const int w = 32, h = 8;
    std::vector<float> img(w * h);
    for (int i = 0; i < w * h; ++i) img[i] = std::sin(0.3f * i) * 10.0f;
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CUDA_CHECK(cudaMallocArray(&array, &desc, w, h));
    CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td = {};
    td.addressMode[0] = cudaAddressModeWrap;
    td.addressMode[1] = cudaAddressModeWrap;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t tex;
    CUDA_CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
    float *d_out;
    CUDA_CHECK(cudaMalloc(&d_out, w * h * sizeof(float)));
    const float shift = 0.25f;
    sample2d<<<dim3(2, 1), dim3(16, 8)>>>(tex, d_out, w, h, shift);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> out(w * h);
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, w * h * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float want = reference(img, w, x, y, shift);
            if (std::fabs(out[y * w + x] - want) > 1e-4f) {
                std::fprintf(stderr, "texel (%d,%d) = %f, want %f\n", x, y, out[y * w + x], want);
                return 1;
            }
        }
    std::printf("2D linear filtering: OK\n");

    const int n = 100;
    std::vector<int> v(n);
    for (int i = 0; i < n; ++i) v[i] = i * i;
    int *d_v, *d_r;
    CUDA_CHECK(cudaMalloc(&d_v, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_r, n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_v, v.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    cudaResourceDesc lres = {};
    lres.resType = cudaResourceTypeLinear;
    lres.res.linear.devPtr = d_v;
    lres.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
    lres.res.linear.sizeInBytes = n * sizeof(int);
    cudaTextureDesc ltd = {};
    cudaTextureObject_t ltex;
    CUDA_CHECK(cudaCreateTextureObject(&ltex, &lres, &ltd, nullptr));
    fetch1d<<<1, 128>>>(ltex, d_r, n);
    std::vector<int> r(n);
    CUDA_CHECK(cudaMemcpy(r.data(), d_r, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(r[i] == 3 * i * i);
    std::printf("1D fetch: OK\n");

    CUDA_CHECK(cudaDestroyTextureObject(tex));
    CUDA_CHECK(cudaDestroyTextureObject(ltex));
    CUDA_CHECK(cudaFreeArray(array));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_v));
    CUDA_CHECK(cudaFree(d_r));
    std::printf("texture: OK\n");
    return 0;
}
#endif // __CUDACC_RTC__
