// Shared by the CUDA test programs: the usual CUDA_CHECK macro and a result check.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(err_), cudaGetErrorName(err_));               \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);      \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

#define EXPECT_ERR(call, code)                                                            \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != (code)) {                                                             \
            std::fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, \
                         #call, cudaGetErrorName(err_), #code);                           \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)
