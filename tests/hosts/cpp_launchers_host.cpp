/* cpp_launchers_host.cpp: launches the C++ kernels of tests/kernels/cpp_launchers.ptx
 * through the readable C++ launchers of the header ptx2llvm --header wrote
 * (cpp_launchers.h: overloads, a namespace, a template instance, a struct passed by
 * value, a pointer the kernel never reads), checks the results, then makes the launch
 * mistakes ptxrtLaunchKernelEx and ptxrtFindKernel must catch. */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cpp_launchers.h"

struct Params {
    float scale;
    float offset;
    int count;
    float lo;
    float hi;
};

static int failures = 0;

static void expect(bool ok, const char *what)
{
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        failures++;
    }
}

static void expect_error(ptxrtError_t err, ptxrtError_t want, const char *needle, const char *what)
{
    const char *msg = ptxrtGetLastErrorMessage();
    if (err != want || std::strstr(msg, needle) == nullptr) {
        std::printf("FAILED: %s: got %s: %s (wanted %s with \"%s\")\n", what, ptxrtGetErrorName(err), msg,
                    ptxrtGetErrorName(want), needle);
        failures++;
    } else {
        std::printf("%s: %s\n", what, msg);
    }
}

int main()
{
    const int n = 1000;
    const ptxrtDim3 grid = {(n + 127) / 128, 1, 1}, block = {128, 1, 1};

    std::vector<float> xf(n), yf(n);
    std::vector<double> xd(n), yd(n);
    for (int i = 0; i < n; i++) {
        xf[i] = (float)i;
        xd[i] = (double)i;
    }
    const float *cxf = xf.data();
    expect(scale_launch(grid, block, 0, cxf, yf.data(), n) == ptxrtSuccess, "scale(float)");
    expect(scale_launch(grid, block, 0, xd.data(), yd.data(), n) == ptxrtSuccess, "scale(double)");
    for (int i = 0; i < n; i++) {
        expect(yf[i] == 2.0f * (float)i, "scale(float) result");
        expect(yd[i] == 3.0 * (double)i, "scale(double) result");
        if (failures) break;
    }

    std::vector<int> out(n);
    expect(ns::fill_launch(grid, block, 0, out.data(), 5, n) == ptxrtSuccess, "ns::fill");
    for (int i = 0; i < n && !failures; i++) expect(out[i] == 5 + i, "ns::fill result");

    std::vector<float> o(n);
    expect(unused_pointer_launch(grid, block, 0, xf.data(), o.data(), n) == ptxrtSuccess, "unused_pointer");
    for (int i = 0; i < n && !failures; i++) expect(o[i] == 7.0f, "unused_pointer result");

    Params p = {0.5f, -10.0f, n, -5.0f, 100.0f};
    expect(with_struct_launch(grid, block, 0, p, o.data()) == ptxrtSuccess, "with_struct");
    for (int i = 0; i < n && !failures; i++)
        expect(o[i] == std::fmin(std::fmax(0.5f * (float)i - 10.0f, -5.0f), 100.0f), "with_struct result");

    std::vector<float> vf(n, 1.5f);
    std::vector<int> vi(n, 41);
    expect(add_one_launch(grid, block, 0, vf.data(), n) == ptxrtSuccess, "add_one<float>");
    expect(add_one_launch(grid, block, 0, vi.data(), n) == ptxrtSuccess, "add_one<int>");
    for (int i = 0; i < n && !failures; i++) expect(vf[i] == 2.5f && vi[i] == 42, "add_one results");

    /* Launch mistakes: an int where the 20-byte struct goes, too few arguments. */
    const ptxrtKernel *k = ptxrtFindKernel("_Z11with_struct6ParamsPf");
    expect(k != nullptr, "ptxrtFindKernel(mangled name)");
    const ptxrtLaunchConfig config = {grid, block, 0, nullptr};
    int wrong = 3;
    float *out_ptr = o.data();
    void *args[] = {&wrong, &out_ptr};
    const size_t sizes[] = {sizeof wrong, sizeof out_ptr};
    expect_error(ptxrtLaunchKernelEx(k, &config, args, sizes, 2), ptxrtErrorInvalidValue,
                 "parameter 0 of kernel '_Z11with_struct6ParamsPf' is 20 bytes, but argument 0 is 4 bytes",
                 "an int for a struct");
    expect_error(ptxrtLaunchKernelEx(k, &config, args, sizes, 1), ptxrtErrorInvalidValue,
                 "takes 2 parameter(s) (of 20, 8 bytes), the launch passes 1", "too few arguments");
    /* A C++ kernel looked up by its source name. */
    expect(ptxrtFindKernel("with_struct") == nullptr, "ptxrtFindKernel(unmangled) fails");
    expect_error(ptxrtErrorNotFound, ptxrtErrorNotFound, "'_Z11with_struct6ParamsPf' (the C++ kernel with_struct)",
                 "unmangled name");

    if (failures == 0) std::printf("cpp_launchers: OK\n");
    return failures ? 1 : 0;
}
