/* toolchain_forms_host.c: tests/kernels/toolchain_forms.ptx, PTX forms other toolchains
 * write (vector .reg parameters, register-plus-immediate sources, vector moves, immediate
 * predicates, a subc.cc.s32 borrow chain) and static shared memory charged per kernel. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int failures;

#define EXPECT(cond, ...)                  \
    do {                                   \
        if (!(cond)) {                     \
            fprintf(stderr, "FAIL: ");     \
            fprintf(stderr, __VA_ARGS__);  \
            fprintf(stderr, "\n");         \
            failures++;                    \
        }                                  \
    } while (0)

static void launch1(const char *name, unsigned threads, void **args, size_t dyn)
{
    ptxrtDim3 grid = harness_dim3(1, 1, 1), block = harness_dim3(threads, 1, 1);
    PTXRT_CHECK(ptxrtLaunchKernel(harness_find_kernel(name), grid, block, args, dyn, NULL));
}

static void vector_params(void)
{
    uint32_t v[512];
    for (unsigned i = 0; i < 512; i++) v[i] = i * 7 + 3;
    void *p = v;
    void *args[] = {&p};
    launch1("vector_params", 256, args, 0);
    for (unsigned i = 0; i < 256; i++) {
        uint32_t x = (2 * i) * 7 + 3, y = (2 * i + 1) * 7 + 3;
        EXPECT(v[2 * i] == y && v[2 * i + 1] == x + 1, "vector_params[%u]: %u %u, expected %u %u", i, v[2 * i], v[2 * i + 1], y, x + 1);
    }
}

static void register_immediate(void)
{
    uint64_t x[64];
    uint32_t y[64];
    for (unsigned i = 0; i < 64; i++) {
        x[i] = 0xffffffffull + i * 0x100000001ull;
        y[i] = 0xfffffff0u + i;
    }
    void *px = x, *py = y;
    void *args[] = {&px, &py};
    launch1("register_immediate", 64, args, 0);
    for (unsigned i = 0; i < 64; i++) {
        uint64_t ex = 0xffffffffull + i * 0x100000001ull + 1;
        uint32_t ey = (0xfffffff0u + i + 4) * 3;
        EXPECT(x[i] == ex, "register_immediate x[%u] = %#llx, expected %#llx", i, (unsigned long long)x[i], (unsigned long long)ex);
        EXPECT(y[i] == ey, "register_immediate y[%u] = %#x, expected %#x", i, y[i], ey);
    }
}

static void vector_moves(void)
{
    uint32_t w[12] = {0x3c00bc00, 0x11223344, 0x55667788, 0x99aabbcc};
    void *p = w;
    void *args[] = {&p};
    launch1("vector_moves", 1, args, 0);
    for (int i = 0; i < 4; i++) EXPECT(w[4 + i] == w[i], "vector_moves word %d = %#x, expected %#x", 4 + i, w[4 + i], w[i]);
    EXPECT(w[8] == 0x3c00bc00, "vector_moves unpack: %#x", w[8]);
    EXPECT(w[9] == 0x3c00bc00, "vector_moves pack: %#x", w[9]);
    EXPECT(w[10] == 0x11223344 && w[11] == 0x3c00bc00, "vector_moves mov.v2: %#x %#x", w[10], w[11]);
}

static void immediate_predicates(void)
{
    uint32_t out[32];
    void *p = out;
    void *args[] = {&p};
    launch1("immediate_predicates", 32, args, 0);
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t e = (i + 100) | i << 16 | 0x80000000u;
        EXPECT(out[i] == e, "immediate_predicates[%u] = %#x, expected %#x", i, out[i], e);
    }
}

static void borrow_chain(void)
{
    /* {2,3,4} - {5,6,7} as 96-bit little-endian words. */
    static const uint32_t a[3] = {0x00000001, 0x80000000, 0x00000005}, b[3] = {0x00000002, 0x7fffffff, 0x00000006};
    int32_t w[8] = {7, 7, (int32_t)a[0], (int32_t)a[1], (int32_t)a[2], (int32_t)b[0], (int32_t)b[1], (int32_t)b[2]};
    void *p = w;
    void *args[] = {&p};
    launch1("borrow_chain", 1, args, 0);
    EXPECT((uint32_t)w[0] == 0xffffffffu && w[1] == 1, "borrow_chain public test: %#x %#x, expected 0xffffffff 0x1", (uint32_t)w[0], (uint32_t)w[1]);
    /* a - b = 0x00000005_80000000_00000001 - 0x00000006_7fffffff_00000002 (negative). */
    unsigned __int128 x = (unsigned __int128)a[2] << 64 | (unsigned __int128)a[1] << 32 | a[0];
    unsigned __int128 y = (unsigned __int128)b[2] << 64 | (unsigned __int128)b[1] << 32 | b[0];
    unsigned __int128 d = x - y;
    uint32_t e[3] = {(uint32_t)d, (uint32_t)(d >> 32), (uint32_t)(d >> 64)};
    for (int i = 0; i < 3; i++) EXPECT((uint32_t)w[2 + i] == e[i], "borrow_chain word %d = %#x, expected %#x", i, (uint32_t)w[2 + i], e[i]);
    EXPECT(w[5] == -1, "borrow_chain final borrow %d, expected -1", w[5]);
}

static void shared_tiles(void)
{
    static const struct {
        const char *name;
        uint32_t salt;
    } kernels[] = {{"shared_a", 1000}, {"shared_b", 2000}, {"shared_c", 3000}, {"shared_func", 4000}};
    uint32_t *out = harness_xmalloc(4096 * 4);
    for (int k = 0; k < 4; k++) {
        memset(out, 0, 4096 * 4);
        void *p = out;
        void *args[] = {&p};
        launch1(kernels[k].name, 256, args, 0);
        for (uint32_t i = 0; i < 256; i++)
            for (uint32_t j = 0; j < 16; j++) {
                uint32_t e = 16 * (255 - i) + j + kernels[k].salt;
                EXPECT(out[16 * i + j] == e, "%s[%u] = %u, expected %u", kernels[k].name, 16 * i + j, out[16 * i + j], e);
            }
    }
    memset(out, 0, 256 * 4);
    void *p = out;
    void *args[] = {&p};
    launch1("shared_dynamic", 256, args, 1024);
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t e = (255 - i) + 5000 + (255 - i) + 6000;
        EXPECT(out[i] == e, "shared_dynamic[%u] = %u, expected %u", i, out[i], e);
    }
    free(out);
}

int main(void)
{
    vector_params();
    register_immediate();
    vector_moves();
    immediate_predicates();
    borrow_chain();
    shared_tiles();
    return harness_finish("toolchain_forms", 6, failures);
}
