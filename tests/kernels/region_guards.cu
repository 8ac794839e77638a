// Regions that start with a guard on the thread index (Rodinia's nw, pathfinder, lud
// shapes): after a barrier, `if (tx <= m)` or a band `i + 1 <= tx <= n - 2 - i`, the other
// threads going straight to the next barrier. The block function runs such a region over
// the interval of threads that pass (lower/exec/guards.rs, `analyze_region`).


#define B 64

// Anti-diagonal dynamic programming: in step m the threads tx <= m fill one cell each of
// the diagonal, a barrier after each step; then the second half of the matrix. The whole
// matrix goes out.
extern "C" __global__ void diagonal(const int *cost, int *out, int len)
{
    __shared__ int h[B + 1][B + 1];
    int tx = threadIdx.x;
    const int *c = cost + (size_t)blockIdx.x * len * len;
    for (int k = tx; k <= len; k += blockDim.x) {
        h[k][0] = -k;
        h[0][k] = -k;
    }
    __syncthreads();
    for (int m = 0; m < len; m++) {
        if (tx <= m) {
            int i = m - tx + 1, j = tx + 1;
            h[i][j] = max(h[i - 1][j - 1] + c[(i - 1) * len + j - 1], max(h[i - 1][j], h[i][j - 1]) - 1);
        }
        __syncthreads();
    }
    for (int m = len - 2; m >= 0; m--) {
        if (tx <= m) {
            int i = len - tx, j = tx + len - m;
            h[i][j] = max(h[i - 1][j - 1] + c[(i - 1) * len + j - 1], max(h[i - 1][j], h[i][j - 1]) - 1);
        }
        __syncthreads();
    }
    int *o = out + (size_t)blockIdx.x * (len + 1) * (len + 1);
    for (int k = tx; k < (len + 1) * (len + 1); k += blockDim.x) o[k] = h[k / (len + 1)][k % (len + 1)];
}

// A band that narrows each step (pathfinder): the threads with i + 1 <= tx and
// `n - 2 - i - tx >= 0` (computed in inline PTX so that the comparison is of `u - tid`)
// update, a barrier, the same threads copy back, a barrier.
extern "C" __global__ void band(const int *wall, int *out, int cols, int steps)
{
    __shared__ int prev[256], res[256];
    int tx = threadIdx.x, n = blockDim.x;
    int x = blockIdx.x * n + tx;
    prev[tx] = wall[x];
    __syncthreads();
    for (int i = 0; i < steps; i++) {
        int room;
        asm("sub.s32 %0, %1, %2;" : "=r"(room) : "r"(n - 2 - i), "r"(tx));
        if (tx >= i + 1 && room >= 0) {
            int l = prev[tx - 1], c = prev[tx], r = prev[tx + 1];
            res[tx] = min(l, min(c, r)) + wall[(size_t)(i + 1) * cols + x];
        }
        __syncthreads();
        asm("sub.s32 %0, %1, %2;" : "=r"(room) : "r"(n - 2 - i), "r"(tx));
        if (tx >= i + 1 && room >= 0) prev[tx] = res[tx];
        __syncthreads();
    }
    out[x] = prev[tx];
}

// Two dimensions (lud's shape): in step i the threads with ty > i and `tx + shift < limit - i`
// add row i's cell to theirs,
// (near INT_MAX the sum wraps: the threads that pass are then no interval, and the
// ordinary loop must run).
extern "C" __global__ void corner(int *data, int steps, int shift, int limit)
{
    __shared__ int s[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int *d = data + (size_t)blockIdx.x * blockDim.x * blockDim.y;
    s[ty][tx] = d[ty * blockDim.x + tx];
    __syncthreads();
    for (int i = 0; i < steps; i++) {
        int shifted;
        asm("add.s32 %0, %1, %2;" : "=r"(shifted) : "r"(tx), "r"(shift));
        if (ty > i && shifted < limit - i) s[ty][tx] += s[i][tx] * 3 + i;
        __syncthreads();
    }
    d[ty * blockDim.x + tx] = s[ty][tx];
}

// One guard per step, `tx + shift < limit` (inline PTX: the comparison is of `tid + u`).
// With a shift near INT_MAX the sum wraps for some threads: the threads that pass are
// then no interval, and the ordinary loop must run.
extern "C" __global__ void shifted(unsigned *data, int steps, int shift, int limit)
{
    __shared__ unsigned s[256];
    int tx = threadIdx.x;
    unsigned *d = data + (size_t)blockIdx.x * blockDim.x;
    s[tx] = d[tx];
    __syncthreads();
    for (int i = 0; i < steps; i++) {
        int sum;
        asm("add.s32 %0, %1, %2;" : "=r"(sum) : "r"(tx), "r"(shift));
        if (sum < limit) s[tx] = s[tx] * 3u + d[tx] + i;
        __syncthreads();
    }
    d[tx] = s[tx];
}

// A band of rows (pathfinder's shape): per step the threads inside the band, and inside
// the valid columns, take the cheapest of three neighbours plus their cost and raise a
// per-thread flag; after the barrier the flagged threads copy the result back, except in
// the last step, which leaves the loop. The flag, reset before the guard each step, lives
// across the barriers: the threads that skip must have it reset too.
extern "C" __global__ void cheapest_path(const int *cost, int *out, int cols, int steps, int valid_lo, int valid_hi)
{
    __shared__ int row[256], next[256];
    int tx = threadIdx.x, n = blockDim.x;
    int col = blockIdx.x * n + tx;
    int left = max(tx - 1, valid_lo), right = min(tx + 1, valid_hi);
    bool valid = tx >= valid_lo && tx <= valid_hi;
    row[tx] = cost[col];
    __syncthreads();
    bool updated = false;
    for (int i = 0; i < steps; i++) {
        updated = false;
        if (tx >= i + 1 && tx <= n - i - 2 && valid) {
            updated = true;
            next[tx] = min(row[left], min(row[tx], row[right])) + cost[(size_t)(i + 1) * cols + col];
        }
        __syncthreads();
        if (i == steps - 1) break;
        if (updated) row[tx] = next[tx];
        __syncthreads();
    }
    out[col] = updated ? next[tx] : -1;
}

// Anti-diagonals of a 16 x 16 tile with constant trip counts (Rodinia nw's shape): fully
// unrolled, 32 barriers, so the block function runs each region in one loop for dense and
// released runs (ONE_LOOP_ABOVE_REGIONS), the guarded dense runs apart.
#define T 16
extern "C" __global__ void tile_diagonals(const int *cost, int *out, int gap)
{
    __shared__ int h[T + 1][T + 1];
    __shared__ int c[T][T];
    int tx = threadIdx.x;
    const int *src = cost + (size_t)blockIdx.x * T * T;
    for (int r = 0; r < T; r++) c[r][tx] = src[r * T + tx];
    h[tx + 1][0] = -(tx + 1) * gap;
    h[0][tx + 1] = -(tx + 1) * gap;
    if (tx == 0) h[0][0] = 0;
    __syncthreads();
    for (int m = 0; m < T; m++) {
        if (tx <= m) {
            int x = tx + 1, y = m - tx + 1;
            h[y][x] = max(max(h[y - 1][x - 1] + c[y - 1][x - 1], h[y][x - 1] - gap), h[y - 1][x] - gap);
        }
        __syncthreads();
    }
    for (int m = T - 2; m >= 0; m--) {
        if (tx <= m) {
            int x = tx + T - m, y = T - tx;
            h[y][x] = max(max(h[y - 1][x - 1] + c[y - 1][x - 1], h[y][x - 1] - gap), h[y - 1][x] - gap);
        }
        __syncthreads();
    }
    int *dst = out + (size_t)blockIdx.x * T * T;
    for (int r = 0; r < T; r++) dst[r * T + tx] = h[r + 1][tx + 1];
}

// A per-thread offset read from memory (not recomputable) stepped by a row at each loop
// latch, in front of a band guard with a long body: the threads that skip would have to
// run the latch for their offset (measured slower than the masked loop: not narrowed).
extern "C" __global__ void stepped_band(const int *start, const float *in, float *out, int cols, int steps)
{
    __shared__ float acc[256];
    int tx = threadIdx.x, n = blockDim.x;
    int at = start[blockIdx.x * n + tx];
    acc[tx] = 0.0f;
    __syncthreads();
#pragma unroll 1
    for (int i = 0; i < steps; i++) {
        if (tx >= i && tx < n - i) {
            float v = in[at];
            float s = v;
#pragma unroll
            for (int j = 1; j <= 24; j++) s = fmaf(s, 0.5f, v * (float)j);
            acc[tx] += s;
        }
        __syncthreads();
        at += cols;
    }
    out[blockIdx.x * n + tx] = acc[tx] + (float)at;
}

// Two dimensions with a per-thread flag (hotspot's shape): in step i the threads of a
// window of columns and rows that shrinks each step compute, and raise a flag, reset before
// the guard, where the result is not a multiple of 3 (data-dependent: not recomputable);
// after the barrier the flagged threads copy their result back and count it.
// The flag lives across the barrier, so the threads that skip must have it reset: whole
// rows above and below the window, and the columns left and right of it in its rows.
extern "C" __global__ void window_flags(int *data, int steps)
{
    __shared__ int s[16][16], t[16][16];
    int tx = threadIdx.x, ty = threadIdx.y, nx = blockDim.x, ny = blockDim.y;
    int *d = data + (size_t)blockIdx.x * nx * ny;
    s[ty][tx] = d[ty * nx + tx];
    __syncthreads();
    int hits = 0;
    bool flag = false;
    for (int i = 0; i < steps; i++) {
        flag = false;
        if (tx >= i && tx < nx - i && ty > i && ty < ny - i) {
            t[ty][tx] = s[ty][tx] * 2 + i;
            flag = t[ty][tx] % 3 != 0;
        }
        __syncthreads();
        if (flag) {
            s[ty][tx] = t[ty][tx];
            hits++;
        }
        __syncthreads();
    }
    d[ty * nx + tx] = s[ty][tx] + 1000 * hits;
}
