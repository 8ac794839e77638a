/* barrier_exit_host.c: runs tests/kernels/barrier_exit.ptx.
 *
 * early_exit: for several block sizes and exit limits, threads at or past the limit exit
 * before the barrier and must not block it; the others must see their neighbour's value
 * written before the barrier. Exited threads' outputs stay untouched.
 * diverge: two groups of threads at different barriers: the launch fails with
 * ptxrtErrorLaunchFailure and a message, and a later launch still works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define UNTOUCHED 0xDEADBEEFu

static int run_early_exit(unsigned grid, unsigned block, unsigned limit) {
    const ptxrtKernel *k = ptxrtFindKernel("early_exit");
    if (!k) { printf("early_exit: kernel not found\n"); return 1; }
    size_t n = (size_t)grid * block;
    unsigned *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) out[i] = UNTOUCHED;
    void *p = out;
    void *args[] = { &p, &limit };
    ptxrtDim3 g = { grid, 1, 1 }, b = { block, 1, 1 };
    ptxrtError_t e = ptxrtLaunchKernel(k, g, b, args, 0, NULL);
    if (e != ptxrtSuccess) {
        printf("early_exit grid %u block %u limit %u: %s: %s\n", grid, block, limit, ptxrtGetErrorName(e), ptxrtGetLastErrorMessage());
        free(out);
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < n && bad < 5; i++) {
        unsigned tid = (unsigned)(i % block);
        unsigned want = tid >= limit ? UNTOUCHED : ((tid ^ 1u) < limit ? (tid ^ 1u) : tid);
        if (out[i] != want) {
            printf("early_exit grid %u block %u limit %u: out[%zu] = %u, expected %u\n", grid, block, limit, i, out[i], want);
            bad++;
        }
    }
    free(out);
    return bad != 0;
}

int main(void) {
    static const unsigned shapes[][3] = {
        { 64, 64, 40 }, { 70, 96, 1 }, { 65, 256, 255 }, { 64, 1024, 513 }, { 100, 33, 33 }, { 64, 32, 0 },
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        failed |= run_early_exit(shapes[i][0], shapes[i][1], shapes[i][2]);
    if (!failed) printf("early_exit: %zu shapes OK\n", sizeof shapes / sizeof shapes[0]);

    const ptxrtKernel *d = ptxrtFindKernel("diverge");
    ptxrtDim3 g = { 64, 1, 1 }, b = { 64, 1, 1 };
    ptxrtError_t e = ptxrtLaunchKernel(d, g, b, NULL, 0, NULL);
    const char *msg = ptxrtGetLastErrorMessage();
    if (e != ptxrtErrorLaunchFailure || !strstr(msg, "diverge") || !strstr(msg, "barrier")) {
        printf("diverge: expected a launch failure naming the kernel and the barrier, got %s: %s\n", ptxrtGetErrorName(e), msg);
        failed = 1;
    } else {
        (void)ptxrtGetLastError();
        if (run_early_exit(64, 64, 17) == 0) printf("diverge: launch failure reported, next launch OK\n");
        else failed = 1;
    }
    return failed;
}
