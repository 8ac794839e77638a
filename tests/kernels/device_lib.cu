// Device-side printf, malloc/free and assert, compiled to PTX with NVRTC
// (tests/kernels/device_lib.ptx); checked by tests/hosts/device_lib_host.c.
// assert() comes from NVRTC's builtin header (it calls __assertfail).

extern "C" __global__ void device_lib(int *out, int n, int fail_at)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i < 3)
        printf("thread %d: %5.2f|%-3s|%x|%lld|%c|%s\n", i, i * 1.5f, "ab", 255 + i, -1234567890123LL * (i + 1), 'A' + i, (const char *)0);
    int *p = (int *)malloc(4 * sizeof(int));
    if (p) {
        for (int k = 0; k < 4; k++) p[k] = i * k;
        out[i] = p[3];
        free(p);
    } else {
        out[i] = -1;
    }
    assert(i != fail_at);
}
