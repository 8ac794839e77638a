/* Conformance runner: launches the kernels named in a job file through ptxrt and writes
 * their outputs.
 *
 * Job file (little-endian): u32 kernel count, then per kernel: u32 name length, the name,
 * u32 vector count n, u32 outputs per vector k, and n * 4 u64 inputs. Every kernel has
 * the signature (.u64 in, .u64 out, .u32 n); thread i reads in[4i..4i+4] and writes
 * out[k*i..k*i+k]. The output file holds the n * k u64 outputs of each kernel, in order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxrt.h"

static int read_exact(FILE *f, void *buf, size_t len) { return fread(buf, 1, len, f) == len; }

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s JOB OUT\n", argv[0]);
        return 2;
    }
    FILE *job = fopen(argv[1], "rb");
    FILE *out = fopen(argv[2], "wb");
    if (!job || !out) {
        perror("open");
        return 2;
    }
    uint32_t count;
    if (!read_exact(job, &count, 4)) return 2;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t len, n, outs;
        char name[256];
        if (!read_exact(job, &len, 4) || len >= sizeof name || !read_exact(job, name, len)) return 2;
        name[len] = 0;
        if (!read_exact(job, &n, 4) || !read_exact(job, &outs, 4)) return 2;
        uint64_t *in = malloc((size_t)n * 4 * 8);
        uint64_t *res = calloc((size_t)n * outs, 8);
        if (!in || !res || !read_exact(job, in, (size_t)n * 4 * 8)) return 2;
        const ptxrtKernel *kernel = ptxrtFindKernel(name);
        if (!kernel) {
            fprintf(stderr, "kernel %s not found\n", name);
            return 1;
        }
        void *args[] = {&in, &res, &n};
        ptxrtDim3 block = {256, 1, 1}, grid = {(n + 255) / 256, 1, 1};
        ptxrtError_t err = ptxrtLaunchKernel(kernel, grid, block, args, 0, NULL);
        if (err != ptxrtSuccess) {
            fprintf(stderr, "%s: %s: %s\n", name, ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
            return 1;
        }
        if (fwrite(res, 8, (size_t)n * outs, out) != (size_t)n * outs) return 2;
        free(in);
        free(res);
    }
    return fclose(out) == 0 ? 0 : 2;
}
