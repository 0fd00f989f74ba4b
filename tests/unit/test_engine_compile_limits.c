/* The limits on a compile of candidate text (measure_build_runner_spec, measure_build_finish):
 * real nvcc on real bombs, each stopped by the limit it runs into and refused as a compile
 * error that names that limit, and an honest kernel compiled under the default limits. The
 * limits are set low here (measure_opts.compile_*) so that every bomb stops within seconds
 * of CPU; what they cost at their defaults is in measure.h (MEASURE_COMPILE_*). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/harness.h"
#include "measure/measure.h"
#include "spec/spec.h"

/* The toolkit's own nvcc, never the suite's compile cache: a bomb must really run. */
#define REAL_NVCC "/usr/local/cuda/bin/nvcc"

typedef struct {
    char dir[64];
    spec *sp;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/hk-compile-limits-XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    spec_diags d = {0};
    if (spec_load(HK_TEST_DATA "/episode/tiny.bench.json", &f->sp, &d) != HK_OK)
        return -1;
    spec_diags_free(&d);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    spec_free(f->sp);
    measure_rmtree(f->dir);
    free(f);
    return 0;
}

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec / 1e6;
}

/* Compiles text (as NAME.cu in its own directory) into a cubin the way the referee builds
 * an image (harness_cubin_argv), through measure_build_compile under o's limits. */
static void compile(fixture *f, const measure_opts *o, const char *name, const char *text,
                    measure_compile *out, double *wall_s)
{
    measure_build b;
    memset(&b, 0, sizeof b);
    b.dir = hk_asprintf("%s/%s", f->dir, name);
    char *src = hk_asprintf("%s/%s.cu", b.dir, name), *cubin = hk_asprintf("%s/k.cubin", b.dir);
    assert_non_null(b.dir);
    assert_non_null(src);
    assert_non_null(cubin);
    assert_int_equal(measure_mkdirs(b.dir), HK_OK);
    FILE *fp = fopen(src, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    assert_int_equal(harness_cubin_argv(f->sp, REAL_NVCC, "sm_90", NULL, src, cubin, &b.argv),
                     HK_OK);
    double t0 = now_s();
    assert_int_equal(measure_build_compile(o, &b, out), HK_OK);
    *wall_s = now_s() - t0;
    hk_free(src);
    hk_free(cubin);
    measure_build_free(&b);
}

/* A full unroll of 2^20 iterations: cicc works on it for minutes and GBs (1.6 GB and 60 s
 * of CPU, still going, when measured without limits), stopped here at 2 s of CPU. */
static const char unroll_bomb[] =
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    float acc = 0.f;\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < (1 << 20); i++)\n"
    "        acc += x[(i * 7919) & (n - 1)] * (float)i;\n"
    "    y[threadIdx.x] = acc * a;\n"
    "}\n";

/* A 4 MiB initialised __device__ array: a 4.2 MB cubin, stopped at a 2 MiB file limit
 * (the preprocessed text nvcc writes first is 1.3 MB). */
static const char array_bomb[] =
    "__device__ unsigned char pad[1 << 22] = {1};\n"
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i] + pad[(i * 4099) & ((1 << 22) - 1)];\n"
    "}\n";

/* An endless include: the preprocessor reads /dev/zero until its memory runs out. (The
 * host-code scan refuses this line before any compile; the limit is the wall behind it.) */
static const char zero_bomb[] =
    "#include \"/dev/zero\"\n"
    "__global__ void saxpy(int n, float a, const float *x, float *y) {}\n";

static const char honest[] =
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

static void expect_stopped(const measure_compile *c, const char *words, double wall_s)
{
    if (c->ok || !c->details || !strstr(c->details, words))
        fail_msg("expected a compile error saying \"%s\", got ok=%d: %s", words, (int)c->ok,
                 c->details ? c->details : "(no details)");
    assert_false(c->cc.timed_out); /* the limit stopped it, not the wall clock */
    print_message("stopped in %.1f s: %.120s\n", wall_s, c->details);
}

static void test_cpu_limit(void **state)
{
    fixture *f = *state;
    if (access(REAL_NVCC, X_OK) != 0)
        skip();
    measure_opts o = {.spec = f->sp, .compile_cpu_seconds = 2};
    measure_compile c;
    double wall;
    compile(f, &o, "unroll", unroll_bomb, &c, &wall);
    expect_stopped(&c, "CPU time limit (2 s per process; HK_COMPILE_CPU_S sets it)", wall);
    measure_compile_clear(&c);
}

static void test_file_limit(void **state)
{
    fixture *f = *state;
    if (access(REAL_NVCC, X_OK) != 0)
        skip();
    measure_opts o = {.spec = f->sp, .compile_file_max = (uint64_t)2 << 20};
    measure_compile c;
    double wall;
    compile(f, &o, "array", array_bomb, &c, &wall);
    expect_stopped(&c, "file size limit (2 MiB per file written; HK_COMPILE_FILE_MB sets it)", wall);
    measure_compile_clear(&c);
}

static void test_memory_limit(void **state)
{
    fixture *f = *state;
    if (access(REAL_NVCC, X_OK) != 0)
        skip();
    measure_opts o = {.spec = f->sp, .compile_memory_max = (uint64_t)256 << 20};
    measure_compile c;
    double wall;
    compile(f, &o, "zero", zero_bomb, &c, &wall);
    expect_stopped(&c, "out of memory under its limit (256 MiB", wall);
    measure_compile_clear(&c);
}

/* The defaults leave an honest kernel alone, and the environment lowers a default (as
 * tests/gpu/cheats_cpu.sh does for the bomb cheats) only where the options do not set one. */
static void test_honest_and_env(void **state)
{
    fixture *f = *state;
    measure_opts o = {.spec = f->sp};
    measure_build b;
    memset(&b, 0, sizeof b);
    runner_spec rs;
    measure_build_runner_spec(&o, &b, &rs);
    assert_int_equal(rs.cpu_seconds, MEASURE_COMPILE_CPU_S);
    assert_true(rs.file_max == MEASURE_COMPILE_FILE_MAX);
    assert_true(rs.memory_max == MEASURE_COMPILE_MEMORY_MAX);
    assert_int_equal(rs.timeout_ms, 180000);
    setenv("HK_COMPILE_CPU_S", "7", 1);
    setenv("HK_COMPILE_MEMORY_MB", "512", 1);
    setenv("HK_COMPILE_FILE_MB", "x", 1); /* not a number: the default */
    measure_build_runner_spec(&o, &b, &rs);
    assert_int_equal(rs.cpu_seconds, 7);
    assert_true(rs.memory_max == (uint64_t)512 << 20);
    assert_true(rs.file_max == MEASURE_COMPILE_FILE_MAX);
    o.compile_cpu_seconds = 9;
    measure_build_runner_spec(&o, &b, &rs);
    assert_int_equal(rs.cpu_seconds, 9);
    unsetenv("HK_COMPILE_CPU_S");
    unsetenv("HK_COMPILE_MEMORY_MB");
    unsetenv("HK_COMPILE_FILE_MB");
    if (access(REAL_NVCC, X_OK) != 0)
        skip();
    o.compile_cpu_seconds = 0;
    measure_compile c;
    double wall;
    compile(f, &o, "honest", honest, &c, &wall);
    if (!c.ok)
        fail_msg("an honest kernel failed under the default limits: %s", c.details);
    measure_compile_clear(&c);
}

/* The compile of candidate text runs in the benchmark programs' sandbox (issue 12): an
 * #include or a directive the host-code rule missed must not read a file under /tmp beside
 * the candidate's directory (another candidate's, a reference), nor write there. A stand-in
 * compiler (a script under /tmp, so its folder must be bound into the sandbox) reads a
 * secret in a sibling folder, tries to write beside it, and writes its -o output (the
 * launchers' runtime, in the launchers' cache: that must still work). Before the sandbox it
 * quoted the secret back in the compile error and left the file. */
static void test_compile_sandbox(void **state)
{
    fixture *f = *state;
    enum runner_isolation iso = runner_isolation_available();
    if (iso != RUNNER_ISO_BWRAP && iso != RUNNER_ISO_NAMESPACES) {
        print_message("skipped: no sandbox with a private /tmp here (%s)\n",
                      runner_isolation_name(iso));
        skip();
    }
    char secret_dir[512], cmd[2048], bin[512], cache[512], nvcc[600], escaped[600];
    snprintf(secret_dir, sizeof secret_dir, "%s/secret", f->dir);
    snprintf(bin, sizeof bin, "%s/bin", f->dir);
    snprintf(cache, sizeof cache, "%s/cache", f->dir);
    snprintf(nvcc, sizeof nvcc, "%s/nvcc", bin);
    snprintf(escaped, sizeof escaped, "%s/escaped", secret_dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s %s && echo TOPSECRET-42 > %s/secret.txt", secret_dir,
             bin, secret_dir);
    assert_int_equal(system(cmd), 0);
    FILE *fp = fopen(nvcc, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\n"
                "echo \"secret: $(cat %s/secret.txt 2>&1)\" >&2\n"
                "echo escaped > %s 2>/dev/null\n"
                "out=; prev=; for a; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
                "[ -n \"$out\" ] && echo built > \"$out\" && echo \"wrote $out\" >&2\n"
                "exit 1\n",
            secret_dir, escaped);
    fclose(fp);
    assert_int_equal(chmod(nvcc, 0755), 0);
    assert_int_equal(setenv("HK_CACHE_DIR", cache, 1), 0);
    /* a wrapper's folder given as /tmp, or as a folder above the build, is left out: it
     * would bring the secret back (session 34: ./hk test passed a log's folder, /tmp) */
    char above[600], *was = getenv("HK_COMPILE_WRITABLE") ? hk_strdup(getenv("HK_COMPILE_WRITABLE")) : NULL;
    snprintf(above, sizeof above, "/tmp/:%s/work:/:%s", f->dir, f->dir);
    assert_int_equal(setenv("HK_COMPILE_WRITABLE", above, 1), 0);
    measure_opts o = {.spec = f->sp, .nvcc = nvcc, .arch = "sm_90"};
    char work[512];
    snprintf(work, sizeof work, "%s/work/cand", f->dir);
    static const char text[] = "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
                               "{ int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "  if (i < n) y[i] = a * x[i] + y[i]; }\n";
    measure_build b;
    assert_int_equal(measure_build_prepare(&o, work, text, strlen(text), NULL, &b), HK_OK);
    measure_compile out;
    assert_int_equal(measure_build_compile(&o, &b, &out), HK_OK);
    assert_false(out.ok);
    assert_non_null(out.details);
    if (strstr(out.details, "TOPSECRET"))
        fail_msg("the compile read a file outside its sandbox: %s", out.details);
    assert_int_not_equal(access(escaped, F_OK), 0);
    /* the stand-in ran (its folder under /tmp was bound) and wrote into the cache */
    assert_non_null(strstr(out.details, "secret: "));
    if (!strstr(out.details, "wrote "))
        fail_msg("the launchers' cache was not writable in the sandbox: %s", out.details);
    measure_compile_clear(&out);
    measure_build_free(&b);
    unsetenv("HK_CACHE_DIR");
    if (was)
        setenv("HK_COMPILE_WRITABLE", was, 1);
    else
        unsetenv("HK_COMPILE_WRITABLE");
    hk_free(was);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_honest_and_env),
        cmocka_unit_test(test_cpu_limit),
        cmocka_unit_test(test_file_limit),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_compile_sandbox),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
