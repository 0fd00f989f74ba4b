// Error check used by saxpy.cu: any CUDA error ends the program with status 3.
#pragma once
#include <cstdio>
#include <cstdlib>
#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(err_));                                        \
            exit(3);                                                                  \
        }                                                                             \
    } while (0)
