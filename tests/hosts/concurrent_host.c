/* concurrent_host.c: tests/kernels/vecadd.ptx launched from several host threads at once
 * (each with its own data and shape); every launch must complete with exact results. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define THREADS 4
#define ROUNDS 25

static const ptxrtKernel *kernel;

static void *worker(void *arg)
{
    long id = (long)arg;
    int n = 50000 + 7919 * (int)id;
    float *a = harness_xmalloc(n * sizeof(float)), *b = harness_xmalloc(n * sizeof(float)), *c = harness_xmalloc(n * sizeof(float));
    long bad = 0;
    for (int r = 0; r < ROUNDS && !bad; r++) {
        for (int i = 0; i < n; i++) { a[i] = (float)(i + r); b[i] = (float)(id * 1000 + r); c[i] = -1.0f; }
        unsigned block = 64u << (id % 4);
        void *args[] = {&a, &b, &c, &n};
        ptxrtError_t e = ptxrtLaunchKernel(kernel, harness_dim3((n + block - 1) / block, 1, 1), harness_dim3(block, 1, 1), args, 0, NULL);
        if (e != ptxrtSuccess) { fprintf(stderr, "thread %ld: launch failed: %s\n", id, ptxrtGetErrorName(e)); bad = 1; break; }
        for (int i = 0; i < n; i++) if (c[i] != a[i] + b[i]) { fprintf(stderr, "thread %ld round %d: c[%d] wrong\n", id, r, i); bad = 1; break; }
    }
    free(a); free(b); free(c);
    return (void *)bad;
}

int main(void)
{
    kernel = harness_find_kernel("vecadd");
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    int failures = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        failures += r != NULL;
    }
    return harness_finish("concurrent_launches", THREADS, failures);
}
