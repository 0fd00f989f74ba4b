/* The nvcc the unit tests run by path: the suite's compile cache (tests/tools/nvcc_cache.c)
 * when the run set one up (HK_NVCC_CACHE, as ./hk test does) and the toolkit is there, else
 * the toolkit's own. The cache answers a compile it has seen with the compiler's own
 * output, so the tests see nvcc either way. */
#ifndef HK_TEST_NVCC_H
#define HK_TEST_NVCC_H

#include <stdlib.h>
#include <unistd.h>

static inline const char *test_nvcc(void)
{
    static const char toolkit[] = "/usr/local/cuda/bin/nvcc";
    const char *cache = getenv("HK_NVCC_CACHE");
    if (cache && *cache && access(toolkit, X_OK) == 0)
        return HK_BINARY_DIR "/test-tools/nvcc";
    return toolkit;
}

#define NVCC test_nvcc()

#endif
