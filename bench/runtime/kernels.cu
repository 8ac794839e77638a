// Kernels of the runtime benchmark (bench/runtime), compiled to kernels.ptx with NVRTC:
//   cuda2ptx kernels.cu -o kernels.ptx        (compute_80, NVRTC's default options)
// Each is written the way CUDA programmers write it and has a native C/OpenMP twin in
// native.c: the same algorithm, written the way one would write it for a CPU.

#define FULL_MASK 0xffffffffu

extern "C" __global__ void axpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// The same with a fixed grid: each thread walks the array in steps of the grid's size.
extern "C" __global__ void axpy_grid_stride(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
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

// Sum reduction with warp shuffles: a grid-stride loop accumulates, each warp reduces its
// lanes with __shfl_down_sync, warp 0 reduces the warps' partials (shared memory) the same
// way, and one atomicAdd per block adds the block's sum to *sum.
__device__ __forceinline__ float warp_sum(float v)
{
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(FULL_MASK, v, d);
    return v;
}

extern "C" __global__ void reduce_shfl(int n, const float *in, float *sum)
{
    __shared__ float partial[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(sum, v);
    }
}

// Softmax of each row of a rows x cols matrix, one warp per row: the lanes walk the row in
// steps of 32; the row's maximum and the sum of the exponentials are combined across the
// warp with __shfl_xor_sync (every lane gets the result).
extern "C" __global__ void softmax_rows(int rows, int cols, const float *in, float *out)
{
    int lane = threadIdx.x % 32;
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;
    const float *x = in + (size_t)row * cols;
    float *y = out + (size_t)row * cols;
    float m = __int_as_float(0xff800000); // -infinity
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, x[j]);
    for (int d = 16; d > 0; d /= 2) m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, d));
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32) {
        float e = expf(x[j] - m);
        y[j] = e;
        s += e;
    }
    for (int d = 16; d > 0; d /= 2) s += __shfl_xor_sync(FULL_MASK, s, d);
    float inv = 1.0f / s;
    for (int j = lane; j < cols; j += 32) y[j] *= inv;
}

// Inclusive scan of each block's chunk of blockDim.x integers (one per thread): every warp
// scans its lanes with __shfl_up_sync, the warps' totals go through shared memory, warp 0
// scans them the same way, and each thread adds the total of the warps before its own.
__device__ __forceinline__ int warp_inclusive_scan(int v, int lane)
{
    for (int d = 1; d < 32; d *= 2) {
        int u = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d) v += u;
    }
    return v;
}

extern "C" __global__ void scan_block(int n, const int *in, int *out)
{
    __shared__ int totals[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    v = warp_inclusive_scan(v, lane);
    if (lane == 31) totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int t = lane < blockDim.x / 32 ? totals[lane] : 0;
        totals[lane] = warp_inclusive_scan(t, lane);
    }
    __syncthreads();
    if (warp > 0) v += totals[warp - 1];
    if (i < n) out[i] = v;
}

// 256-bin histogram of bytes: each block counts its part (grid-stride loop) in shared
// memory with shared atomics, then adds its non-zero bins to the global bins.
extern "C" __global__ void histogram256(int n, const unsigned char *data, unsigned int *bins)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

// N-body accelerations: one body per thread; the bodies (x, y, z, mass) are read in tiles of
// blockDim.x through shared memory, with a barrier after loading a tile and after using it.
// n must be a multiple of blockDim.x.
extern "C" __global__ void nbody(int n, float eps2, const float4 *pos, float4 *acc)
{
    extern __shared__ float4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int t0 = 0; t0 < n; t0 += blockDim.x) {
        tile[threadIdx.x] = pos[t0 + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < blockDim.x; j++) {
            float4 q = tile[j];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = rsqrtf(r2);
            float s = q.w * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

// C = A * B (row-major; A is m x k, B is k x n) with 16 x 16 shared-memory tiles, 16 x 16
// thread blocks, one element of C per thread.
#define TILE 16
extern "C" __global__ void sgemm(int m, int n, int k, const float *a, const float *b, float *c)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += TILE) {
        as[ty][tx] = row < m && p0 + tx < k ? a[(size_t)row * k + p0 + tx] : 0.0f;
        bs[ty][tx] = p0 + ty < k && col < n ? b[(size_t)(p0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TILE; kk++) acc += as[ty][kk] * bs[kk][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[(size_t)row * n + col] = acc;
}

// out = in^T for a rows x cols matrix, through a 32 x 33 shared tile (the padding column
// keeps the column reads free of bank conflicts); 32 x 8 thread blocks, each thread moves
// four elements of the tile.
#define TDIM 32
#define TROWS 8
extern "C" __global__ void transpose(int rows, int cols, const float *in, float *out)
{
    __shared__ float tile[TDIM][TDIM + 1];
    int x = blockIdx.x * TDIM + threadIdx.x;
    int y = blockIdx.y * TDIM + threadIdx.y;
    for (int j = 0; j < TDIM; j += TROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TDIM + threadIdx.x;
    y = blockIdx.x * TDIM + threadIdx.y;
    for (int j = 0; j < TDIM; j += TROWS)
        if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Needleman-Wunsch-style global alignment score of many pairs of sequences of length L
// (L = blockDim.x), one pair per block: the (L+1) x (L+1) score table lives in shared
// memory and is filled along its anti-diagonals, thread t computing row t + 1; a barrier
// after each of the 2L - 1 diagonals. Match +2, mismatch -1, gap -1.
#define NW_MAXL 64
extern "C" __global__ void nw_wavefront(const unsigned char *a, const unsigned char *b, int *score)
{
    __shared__ int h[NW_MAXL + 1][NW_MAXL + 1];
    __shared__ unsigned char sa[NW_MAXL], sb[NW_MAXL];
    int L = blockDim.x, t = threadIdx.x;
    const int gap = 1;
    sa[t] = a[(size_t)blockIdx.x * L + t];
    sb[t] = b[(size_t)blockIdx.x * L + t];
    h[t + 1][0] = -gap * (t + 1);
    h[0][t + 1] = -gap * (t + 1);
    if (t == 0) h[0][0] = 0;
    __syncthreads();
    int i = t + 1;
    for (int d = 0; d < 2 * L - 1; d++) {
        int j = d - t + 1;
        if (j >= 1 && j <= L) {
            int s = sa[i - 1] == sb[j - 1] ? 2 : -1;
            int v = max(h[i - 1][j - 1] + s, max(h[i - 1][j], h[i][j - 1]) - gap);
            h[i][j] = v;
        }
        __syncthreads();
    }
    if (t == 0) score[blockIdx.x] = h[L][L];
}

// Linear interpolation in a table read through a 1D texture object over linear memory:
// out[i] = table(x) for x = pos[i] in [0, size - 1), between the texels floor(x) and the next.
extern "C" __global__ void interp_tex(int n, cudaTextureObject_t table, const float *pos, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = pos[i];
        int k = (int)x;
        float f = x - (float)k;
        float lo = tex1Dfetch<float>(table, k), hi = tex1Dfetch<float>(table, k + 1);
        out[i] = fmaf(f, hi - lo, lo);
    }
}

// Barrier-dense loop: 64 steps over three shared buffers of blockDim.x values; step k
// writes buffer k % 3 from the neighbours' values of the other two and a barrier follows,
// so each step is one tiny region (the loop is kept rolled: one barrier per iteration in
// the PTX too). blockDim.x is at most 256 and a power of two.
extern "C" __global__ void barrier_loop(const float *in, float *out)
{
    __shared__ float s[3][256];
    int t = threadIdx.x, nt = blockDim.x;
    size_t base = (size_t)blockIdx.x * nt * 3;
    s[0][t] = in[base + t];
    s[1][t] = in[base + nt + t];
    s[2][t] = in[base + 2 * nt + t];
    __syncthreads();
    int w = 0, r1 = 1, r2 = 2;
#pragma unroll 1
    for (int k = 0; k < 64; k++) {
        float a = s[r1][(t + 1) & (nt - 1)], b = s[r2][(t + nt - 1) & (nt - 1)], c = s[w][t];
        s[w][t] = fmaf(a, 0.5f, fmaf(b, 0.25f, c * 0.25f));
        __syncthreads();
        int u = w; w = r1; r1 = r2; r2 = u;
    }
    out[(size_t)blockIdx.x * nt + t] = s[r2][t]; // the buffer the last step wrote
}

// Rodinia's pathfinder (dynproc_kernel): the cheapest path down a grid of `rows` x `cols`
// costs, `iteration` rows per launch in a pyramid of blocks of 256 columns that overlap
// by `iteration` columns on each side. Each step a band of threads that narrows by one
// on each side (and inside the grid's columns) takes the cheapest of its three
// neighbours plus its cost and raises a per-thread flag; after the barrier the flagged
// threads copy the result back, but in the last step, which leaves the loop.
#define PF_BLOCK 256
extern "C" __global__ void pathfinder(int iteration, const int *wall, const int *src, int *results, int cols, int start_step, int border)
{
    __shared__ int prev[PF_BLOCK];
    __shared__ int result[PF_BLOCK];
    int bx = blockIdx.x, tx = threadIdx.x;
    int small_block_cols = PF_BLOCK - iteration * 2;
    int blk_x = small_block_cols * bx - border;
    int blk_x_max = blk_x + PF_BLOCK - 1;
    int xidx = blk_x + tx;
    int valid_min = blk_x < 0 ? -blk_x : 0;
    int valid_max = blk_x_max > cols - 1 ? PF_BLOCK - 1 - (blk_x_max - cols + 1) : PF_BLOCK - 1;
    int w = max(tx - 1, valid_min), e = min(tx + 1, valid_max);
    bool is_valid = tx >= valid_min && tx <= valid_max;
    if (xidx >= 0 && xidx <= cols - 1) prev[tx] = src[xidx];
    __syncthreads();
    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (tx >= i + 1 && tx <= PF_BLOCK - i - 2 && is_valid) {
            computed = true;
            int shortest = min(min(prev[w], prev[tx]), prev[e]);
            result[tx] = shortest + wall[cols * (start_step + i) + xidx];
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed) results[xidx] = result[tx];
}

// Rodinia's hotspot (calculate_temp): `iteration` steps of a thermal simulation on a grid of
// cells per launch, in pyramids of 16 x 16 blocks that overlap by `iteration` cells on each
// side. Each step the threads inside a window that narrows by one on each side (and
// inside the grid) update their cell from its four neighbours (indices clamped to the
// grid) and raise a per-thread flag; after the barrier the flagged threads copy the new
// value back, but in the last step. The arithmetic is in double, as in Rodinia (`2.0`).
#define HS_BLOCK 16
#define HS_IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
extern "C" __global__ void hotspot(int iteration, const float *power, const float *temp_src, float *temp_dst, int grid_cols, int grid_rows,
                                   int border_cols, int border_rows, float cap, float rx, float ry, float rz, float step)
{
    __shared__ float temp_on_cuda[HS_BLOCK][HS_BLOCK];
    __shared__ float power_on_cuda[HS_BLOCK][HS_BLOCK];
    __shared__ float temp_t[HS_BLOCK][HS_BLOCK];
    float amb_temp = 80.0;
    float step_div_cap, rx_1, ry_1, rz_1;
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    step_div_cap = step / cap;
    rx_1 = 1 / rx;
    ry_1 = 1 / ry;
    rz_1 = 1 / rz;
    int small_block_rows = HS_BLOCK - iteration * 2, small_block_cols = HS_BLOCK - iteration * 2;
    int blk_y = small_block_rows * by - border_rows, blk_x = small_block_cols * bx - border_cols;
    int blk_y_max = blk_y + HS_BLOCK - 1, blk_x_max = blk_x + HS_BLOCK - 1;
    int yidx = blk_y + ty, xidx = blk_x + tx;
    int index = grid_cols * yidx + xidx;
    if (HS_IN_RANGE(yidx, 0, grid_rows - 1) && HS_IN_RANGE(xidx, 0, grid_cols - 1)) {
        temp_on_cuda[ty][tx] = temp_src[index];
        power_on_cuda[ty][tx] = power[index];
    }
    __syncthreads();
    int valid_y_min = (blk_y < 0) ? -blk_y : 0;
    int valid_y_max = (blk_y_max > grid_rows - 1) ? HS_BLOCK - 1 - (blk_y_max - grid_rows + 1) : HS_BLOCK - 1;
    int valid_x_min = (blk_x < 0) ? -blk_x : 0;
    int valid_x_max = (blk_x_max > grid_cols - 1) ? HS_BLOCK - 1 - (blk_x_max - grid_cols + 1) : HS_BLOCK - 1;
    int n = ty - 1, s = ty + 1, w = tx - 1, e = tx + 1;
    n = (n < valid_y_min) ? valid_y_min : n;
    s = (s > valid_y_max) ? valid_y_max : s;
    w = (w < valid_x_min) ? valid_x_min : w;
    e = (e > valid_x_max) ? valid_x_max : e;
    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (HS_IN_RANGE(tx, i + 1, HS_BLOCK - i - 2) && HS_IN_RANGE(ty, i + 1, HS_BLOCK - i - 2) && HS_IN_RANGE(tx, valid_x_min, valid_x_max) &&
            HS_IN_RANGE(ty, valid_y_min, valid_y_max)) {
            computed = true;
            temp_t[ty][tx] = temp_on_cuda[ty][tx] + step_div_cap * (power_on_cuda[ty][tx] +
                                                                    (temp_on_cuda[s][tx] + temp_on_cuda[n][tx] - 2.0 * temp_on_cuda[ty][tx]) * ry_1 +
                                                                    (temp_on_cuda[ty][e] + temp_on_cuda[ty][w] - 2.0 * temp_on_cuda[ty][tx]) * rx_1 +
                                                                    (amb_temp - temp_on_cuda[ty][tx]) * rz_1);
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }
    if (computed) temp_dst[index] = temp_t[ty][tx];
}

// Tensor-core GEMM: C (M x N, f32) = A (M x K, f16, row-major) times B (K x N, f16, stored
// column by column: Bt is N x K row-major), one warp per 16 x 8 tile of C, one
// mma.sync.m16n8k16 per 16 columns of K, its fragments read from global memory as the ISA's
// tables lay them out (inline PTX, as CUTLASS-style code writes it). The grid is exactly
// (M / 16) * (N / 8) warps.
extern "C" __global__ void mma_gemm(int N, int K, const unsigned short *A, const unsigned short *Bt, float *C)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    int tiles_n = N / 8, tm = warp / tiles_n, tn = warp % tiles_n;
    int g = lane >> 2, t = lane & 3;
    const unsigned *a0_row = (const unsigned *)(A + (size_t)(tm * 16 + g) * K);
    const unsigned *a8_row = (const unsigned *)(A + (size_t)(tm * 16 + g + 8) * K);
    const unsigned *b_col = (const unsigned *)(Bt + (size_t)(tn * 8 + g) * K);
    float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        int w = (k0 >> 1) + t; // the 32-bit word of columns k0 + 2t and k0 + 2t + 1
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                     : "r"(a0_row[w]), "r"(a8_row[w]), "r"(a0_row[w + 4]), "r"(a8_row[w + 4]), "r"(b_col[w]), "r"(b_col[w + 4]));
    }
    float *row0 = C + (size_t)(tm * 16 + g) * N + tn * 8 + 2 * t, *row8 = row0 + (size_t)8 * N;
    row0[0] = c0;
    row0[1] = c1;
    row8[0] = c2;
    row8[1] = c3;
}
