/* faults_host.c: tests/kernels/faults.ptx. A kernel that stores through a null pointer,
 * one that loads from a wild address, and one that faults after a barrier each end their
 * launch with ptxrtErrorIllegalAddress and a message naming the kernel, the block and the
 * address; the process survives, and a correct kernel launched after each of them (and
 * before) gives its results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int check_good(unsigned *out, int n)
{
    const ptxrtKernel *k = harness_find_kernel("good");
    void *args[] = {&out};
    memset(out, 0, (size_t)n * sizeof *out);
    PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3((unsigned)n / 64, 1, 1), harness_dim3(64, 1, 1), args, 0, NULL));
    for (int i = 0; i < n; i++) {
        if (out[i] != 3u * (unsigned)i) {
            fprintf(stderr, "good: out[%d] = %u, expected %u\n", i, out[i], 3u * (unsigned)i);
            return 1;
        }
    }
    return 0;
}

/* Launches `name` and expects an illegal address error whose message names the kernel,
 * `block` and `address`. */
static int check_fault(const char *name, unsigned grid, unsigned block_size, unsigned *out, const char *block, const char *address)
{
    const ptxrtKernel *k = harness_find_kernel(name);
    void *args[] = {&out};
    ptxrtError_t err = ptxrtLaunchKernel(k, harness_dim3(grid, 1, 1), harness_dim3(block_size, 1, 1), args, 0, NULL);
    const char *msg = ptxrtGetLastErrorMessage();
    if (err != ptxrtErrorIllegalAddress) {
        fprintf(stderr, "%s: launch returned %s, expected ptxrtErrorIllegalAddress (%s)\n", name, ptxrtGetErrorName(err), msg ? msg : "");
        return 1;
    }
    if (!msg || !strstr(msg, name) || !strstr(msg, block) || !strstr(msg, address) || !strstr(msg, "invalid memory access")) {
        fprintf(stderr, "%s: the message does not name the kernel, %s and %s: %s\n", name, block, address, msg ? msg : "(null)");
        return 1;
    }
    printf("%s: %s\n", name, msg);
    return 0;
}

int main(void)
{
    const int n = 64 * 64;
    unsigned *out = harness_xmalloc((size_t)n * sizeof *out);
    int failures = check_good(out, n);
    for (int round = 0; round < 2; round++) {
        /* Thread 37 = block 1, thread 5 of blocks of 32. */
        failures += check_fault("null_store", 4, 32, out, "block (1,0,0)", "address 0x0");
        failures += check_good(out, n);
        failures += check_fault("wild_load", 3, 64, out, "block (", "address 0x10");
        failures += check_good(out, n);
        failures += check_fault("fault_after_barrier", 2, 128, out, "block (", "address 0x40");
        failures += check_good(out, n);
    }
    free(out);
    return harness_finish("faults", 14, failures);
}
