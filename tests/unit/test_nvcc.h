/* The nvcc (and g++) the unit tests run by path: the suite's compile cache (tests/tools/nvcc_cache.c)
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

/* g++ for the tests' host programs (the block emulators of emu_block.h and
 * test_engine_rewrite_mem): the cache's stand-in test-tools/cxx/g++ when the run set up the
 * cache, else g++ from PATH. The stand-in is never on PATH: nvcc's own host compiles do not
 * go through it. */
static inline const char *test_cxx(void)
{
    static const char cached[] = HK_BINARY_DIR "/test-tools/cxx/g++";
    const char *cache = getenv("HK_NVCC_CACHE");
    if (cache && *cache == '/' && access(cached, X_OK) == 0)
        return cached;
    return "g++";
}

#define TEST_CXX test_cxx()

#endif
