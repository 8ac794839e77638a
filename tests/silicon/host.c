/* Silicon runner: launches the kernels of a job file through ptxrt exactly as the GPU
 * recordings were made (README of the silicon data): `(in, out, n)`, blocks of 256
 * threads, ceil(n / 256) blocks, every output byte preset to 0xA5.
 *
 * Usage: host JOB OUT [FIRST]  (FIRST: index of the first kernel to run; the test restarts
 * the runner after the kernel that crashed it).
 *
 * Job file (little-endian): u32 kernel count, then per kernel: u32 name length, the name,
 * u32 n, u32 K, u32 M, then n * K u64 inputs.
 * Output file, per kernel run (flushed after each): u32 index, u32 status (0: ran, 1: no
 * such kernel, 2: the launch failed), u32 message length, the message, then for status 0
 * the n * M u64 outputs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxrt.h"

static int read_exact(FILE *f, void *buf, size_t len) { return fread(buf, 1, len, f) == len; }

static int write_record(FILE *out, uint32_t index, uint32_t status, const char *msg, const uint64_t *res,
                        size_t words) {
    uint32_t len = (uint32_t)strlen(msg);
    if (fwrite(&index, 4, 1, out) != 1 || fwrite(&status, 4, 1, out) != 1 || fwrite(&len, 4, 1, out) != 1 ||
        fwrite(msg, 1, len, out) != len)
        return 0;
    if (res && fwrite(res, 8, words, out) != words) return 0;
    return fflush(out) == 0;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s JOB OUT [FIRST]\n", argv[0]);
        return 2;
    }
    uint32_t first = argc == 4 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0;
    FILE *job = fopen(argv[1], "rb");
    FILE *out = fopen(argv[2], first ? "ab" : "wb");
    if (!job || !out) {
        perror("open");
        return 2;
    }
    uint32_t count;
    if (!read_exact(job, &count, 4)) return 2;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t len, n, slots_in, slots_out;
        char name[1024];
        if (!read_exact(job, &len, 4) || len >= sizeof name || !read_exact(job, name, len)) return 2;
        name[len] = 0;
        if (!read_exact(job, &n, 4) || !read_exact(job, &slots_in, 4) || !read_exact(job, &slots_out, 4)) return 2;
        size_t in_words = (size_t)n * slots_in, out_words = (size_t)n * slots_out;
        /* K may be 0: pass a valid address anyway. */
        uint64_t *in = malloc(in_words * 8 + 8);
        uint64_t *res = malloc(out_words * 8 + 8);
        if (!in || !res || !read_exact(job, in, in_words * 8)) return 2;
        if (k >= first) {
            memset(res, 0xA5, out_words * 8);
            const ptxrtKernel *kernel = ptxrtFindKernel(name);
            if (!kernel) {
                if (!write_record(out, k, 1, "no such kernel", NULL, 0)) return 2;
            } else {
                void *args[] = {&in, &res, &n};
                ptxrtDim3 block = {256, 1, 1}, grid = {(n + 255) / 256, 1, 1};
                ptxrtError_t err = ptxrtLaunchKernel(kernel, grid, block, args, 0, NULL);
                if (err != ptxrtSuccess) {
                    char msg[2048];
                    snprintf(msg, sizeof msg, "%s: %s", ptxrtGetErrorName(err), ptxrtGetLastErrorMessage());
                    if (!write_record(out, k, 2, msg, NULL, 0)) return 2;
                } else if (!write_record(out, k, 0, "", res, out_words)) {
                    return 2;
                }
            }
        }
        free(in);
        free(res);
    }
    return fclose(out) == 0 ? 0 : 2;
}
