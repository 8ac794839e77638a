/* special_control_host.c: tests/kernels/special_control.ptx.
 * sregs: every special register, checked against the launch (worker count, dynamic shared
 * bytes, grid and block shape, lanes) and against the runtime's documented values for
 * clusters (one-block clusters) and counters without meaning on the CPU (0); clocks go
 * forward, %globaltimer advances by at least the time a nanosleep waits, %gridid differs
 * between launches. brx_dispatch: brx.idx jumps to the indexed label of its list, and an
 * index past the list ends the launch with an error naming brx.idx. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define WORDS 32

static int check_sregs(const ptxrtKernel *k, ptxrtDim3 grid, ptxrtDim3 block, uint32_t dyn, uint64_t *gridid)
{
    unsigned per_block = block.x * block.y * block.z, blocks = grid.x * grid.y * grid.z;
    size_t n = (size_t)per_block * blocks;
    uint32_t *out = harness_xmalloc(n * WORDS * 4);
    memset(out, 0xff, n * WORDS * 4);
    void *args[] = {&out};
    PTXRT_CHECK(ptxrtLaunchKernel(k, grid, block, args, dyn, NULL));
    unsigned workers = (unsigned)ptxrtGetNumThreads();
    uint32_t total_smem = 112 + dyn; /* static 100 bytes, aligned to 16, then dynamic */
    for (size_t i = 0; i < n; i++) {
        const uint32_t *w = out + i * WORDS;
        unsigned b = (unsigned)(i / per_block), t = (unsigned)(i % per_block), lane = t % 32;
        uint32_t eq = 1u << lane, lt = eq - 1;
        uint64_t extra, delta, gid;
        memcpy(&extra, w + 22, 8);
        memcpy(&delta, w + 26, 8);
        memcpy(&gid, w + 28, 8);
        const char *bad = NULL;
        if (w[30] != b || w[31] != t) bad = "thread numbering";
        else if (!(w[0] < w[1]) || w[1] != workers) bad = "%smid < %nsmid == worker count";
        else if (w[2] != dyn) bad = "%dynamic_smem_size";
        else if (w[3] != total_smem || w[4] != total_smem) bad = "%total_smem_size / %aggr_smem_size";
        else if (w[5] != lane || w[6] != t / 32 || w[7] != (per_block + 31) / 32) bad = "%laneid / %warpid / %nwarpid";
        else if (w[8] != eq || w[9] != (lt | eq) || w[10] != lt || w[11] != ~lt || w[12] != ~(lt | eq)) bad = "%lanemask_*";
        else if (w[13] != b % grid.x || w[14] != b / grid.x || w[15] != grid.x) bad = "%clusterid / %nclusterid";
        else if (w[16] != 0 || w[17] != 1 || w[18] != 0 || w[19] != 1 || w[20] != 0) bad = "%cluster_ctaid / %cluster_nctaid / %cluster_ctarank / %cluster_nctarank / %is_explicit_cluster";
        else if (w[21] != 0 || extra != 0) bad = "%envreg / %pm / %reserved_smem_offset / %current_graph_exec / %tid.w";
        else if (w[24] != 1) bad = "%clock64 monotonic, %clock_hi its upper half";
        else if (w[25] != 1) bad = "%globaltimer_hi the upper half of %globaltimer";
        else if (delta < 20000 || delta > 1000000000ull) bad = "%globaltimer advancing by the nanosleep";
        else if (gid == 0 || (i > 0 && gid != *gridid)) bad = "%gridid the same for the whole grid";
        if (bad) {
            fprintf(stderr, "FAIL: sregs grid (%u,%u) block (%u,%u) thread %zu: %s (words:", grid.x, grid.y, block.x, block.y, i, bad);
            for (int j = 0; j < WORDS; j++) fprintf(stderr, " %u", w[j]);
            fprintf(stderr, ")\n");
            free(out);
            return 1;
        }
        *gridid = gid;
    }
    free(out);
    return 0;
}

static int check_brx(const ptxrtKernel *k, unsigned threads)
{
    uint32_t *out = harness_xmalloc(threads * 4);
    uint32_t bias = 0;
    void *args[] = {&out, &bias};
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(threads, 1, 1), args, 0, NULL));
    for (uint32_t i = 0; i < threads; i++) {
        uint32_t want = (i % 4 == 0) ? i * 2 : (i % 4 == 1) ? i + 100 : (i % 4 == 2) ? ~i : i * i;
        if (out[i] != want) {
            fprintf(stderr, "FAIL: brx_dispatch thread %u: got %u, expected %u\n", i, out[i], want);
            free(out);
            return 1;
        }
    }
    bias = 4;
    ptxrtError_t err = ptxrtLaunchKernel(k, harness_dim3(1, 1, 1), harness_dim3(threads, 1, 1), args, 0, NULL);
    const char *msg = ptxrtGetLastErrorMessage();
    free(out);
    if (err != ptxrtErrorLaunchFailure || msg == NULL || strstr(msg, "brx.idx") == NULL) {
        fprintf(stderr, "FAIL: brx_dispatch out of range: error %d (%s)\n", (int)err, msg ? msg : "no message");
        return 1;
    }
    return 0;
}

int main(void)
{
    const ptxrtKernel *sregs = harness_find_kernel("sregs");
    uint64_t first = 0, second = 0;
    int failures = check_sregs(sregs, harness_dim3(3, 2, 1), harness_dim3(48, 2, 1), 200, &first);
    failures += check_sregs(sregs, harness_dim3(5, 1, 1), harness_dim3(33, 1, 1), 0, &second);
    if (failures == 0 && first == second) {
        fprintf(stderr, "FAIL: two launches have the same %%gridid %llu\n", (unsigned long long)first);
        failures++;
    }
    int status = harness_finish("sregs", 2, failures);
    const ptxrtKernel *brx = harness_find_kernel("brx_dispatch");
    failures = check_brx(brx, 64) + check_brx(brx, 5);
    return status | harness_finish("brx_dispatch", 2, failures);
}
