/* memory_host.c: tests/kernels/memory.ptx. A struct parameter passed by value, a
 * __constant__ table and __device__ variables written and read through ptxrtGetSymbol before
 * and between launches, and a .local array with computed indices whose address a called
 * function reads. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* `signed char`: plain char is unsigned on AArch64, but CUDA (x86-64 host ABI) compiled it signed. */
struct Params { int scale; float bias; double weights[3]; signed char tag; };

static void *symbol(const char *name, size_t want)
{
    void *addr = NULL;
    size_t size = 0;
    PTXRT_CHECK(ptxrtGetSymbol(name, &addr, &size));
    if (size != want) harness_fail("symbol %s has %zu bytes, expected %zu", name, size, want);
    return addr;
}

static float expected(const float coeff[8], const struct Params *p, int v)
{
    float buf[16];
    for (int k = 0; k < 16; k++) buf[(k * 5 + v) & 15] = coeff[k & 7] * (float)k;
    float s = 0.0f;
    for (int i = 0; i < 1 + (v & 15); i++) s += buf[i];
    return fmaf(s, (float)p->scale, p->bias) + (float)p->weights[v % 3] + (float)p->tag;
}

int main(void)
{
    const ptxrtKernel *k = harness_find_kernel("memory");
    float *coeff = symbol("coeff", 8 * sizeof(float));
    unsigned long long *launches = symbol("launches", sizeof(unsigned long long));
    int *histogram = symbol("histogram", 16 * sizeof(int));
    *launches = 40;
    memset(histogram, 0, 16 * sizeof(int));

    harness_rng rng;
    harness_rng_seed(&rng, 0x5EEDu);
    int n = 20000, failures = 0;
    int *in = harness_xmalloc(n * sizeof(int));
    float *out = harness_xmalloc(n * sizeof(float)), *exp = harness_xmalloc(n * sizeof(float));
    int counts[16] = {0};
    for (int i = 0; i < n; i++) { in[i] = (int)(harness_rng_u32(&rng) % 1000u); counts[in[i] & 15]++; }
    struct Params p = {3, -0.5f, {0.25, 1.5, -2.0}, -7};
    for (int round = 0; round < 2; round++) {
        float host_coeff[8];
        for (int c = 0; c < 8; c++) host_coeff[c] = 0.125f * (float)(c + 1) * (float)(round + 1);
        memcpy(coeff, host_coeff, sizeof host_coeff); /* like cudaMemcpyToSymbol */
        void *args[] = {&p, &in, &out, &n};
        PTXRT_CHECK(ptxrtLaunchKernel(k, harness_dim3((unsigned)(n + 127) / 128, 1, 1), harness_dim3(128, 1, 1), args, 0, NULL));
        for (int i = 0; i < n; i++) exp[i] = expected(host_coeff, &p, in[i]);
        failures += harness_compare_f32("memory out", exp, out, (size_t)n, 0, 0) != 0;
        p.scale = -2;
        p.tag = 5;
    }
    if (*launches != 42) { fprintf(stderr, "launches = %llu, expected 42\n", *launches); failures++; }
    for (int b = 0; b < 16; b++)
        if (histogram[b] != 2 * counts[b]) { fprintf(stderr, "histogram[%d] = %d, expected %d\n", b, histogram[b], 2 * counts[b]); failures++; break; }
    free(in); free(out); free(exp);
    return harness_finish("memory", 2, failures);
}
