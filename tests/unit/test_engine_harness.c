/* The generated benchmark program: its text for known specs, its command lines, and
 * (the part that matters) that nvcc -arch=sm_90 compiles it for saxpy, a 2D transpose,
 * a reduction into an inout scalar, a half-precision kernel and a template kernel, and
 * refuses it when the spec's arguments do not match the kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hk.h"
#include "engine/harness.h"
#include "engine/spec.h"

#define NVCC "/usr/local/cuda/bin/nvcc"

static spec *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/specs/%s", HK_TEST_DATA, name);
    spec_diags d = { 0 };
    spec *s = NULL;
    int rc = spec_load(path, &s, &d);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "%s:%d: %s: %s\n", name, d.items[i].line, d.items[i].path, d.items[i].message);
    assert_int_equal(rc, HK_OK);
    spec_diags_free(&d);
    return s;
}

static spec *parse_text(const char *text)
{
    spec_diags d = { 0 };
    spec *s = NULL;
    int rc = spec_parse(text, strlen(text), NULL, &s, &d);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "%d: %s: %s\n", d.items[i].line, d.items[i].path, d.items[i].message);
    assert_int_equal(rc, HK_OK);
    spec_diags_free(&d);
    return s;
}

static pid_t spawn(char **argv, const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return hk_strdup("");
    char *buf = hk_calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The nvcc compiles run in parallel, started by the group setup; each test waits for
 * its own. (One compile takes several seconds; in sequence they would crowd the
 * unit-test timeout on a busy two-core machine.) */
static struct compile_job {
    const char *tag, *specfile;
    pid_t pid;
} jobs[] = {
    { "saxpy", "saxpy.bench.json", -1 },
    { "transpose", "transpose.bench.json", -1 },
    { "reduce", "reduce_sum.bench.json", -1 },
    { "half", "half_scale.bench.json", -1 },
    { "template", "tiled_template.bench.json", -1 },
    { "arity", NULL, -1 }, /* the wrong-arity spec below */
};

static char tmpdir[256];

static spec *arity_spec(void)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"kernel\": \"saxpy\", \"source\": \"%s/bench/kernels/saxpy.cu\","
             " \"sizes\": [{\"n\": 1000}, {\"n\": 4096}],"
             " \"args\": [{\"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},"
             "  {\"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},"
             "  {\"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"}],"
             " \"launch\": {\"grid\": \"ceil_div(n, block_x)\", \"block\": 256}}",
             HK_SOURCE_DIR);
    return parse_text(text);
}

static int setup_tmp(void **state)
{
    hk_alloc_init_json();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/hk_harness_test.XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    if (access(NVCC, X_OK) != 0)
        return 0; /* the compile tests skip */
    for (size_t i = 0; i < HK_ARRAY_LEN(jobs); i++) {
        spec *s = jobs[i].specfile ? load(jobs[i].specfile) : arity_spec();
        char cu[512], exe[512], log[512];
        snprintf(cu, sizeof cu, "%s/%s.cu", tmpdir, jobs[i].tag);
        snprintf(exe, sizeof exe, "%s/%s", tmpdir, jobs[i].tag);
        snprintf(log, sizeof log, "%s/%s.log", tmpdir, jobs[i].tag);
        char **argv = NULL;
        /* saxpy is linked into a program; the others stop at the object file, which
         * is all this test needs and saves the link on a busy machine */
        const char *obj_only[] = { "-c", NULL };
        if (harness_write(s, s->source_path, cu) != HK_OK ||
            harness_nvcc_argv(s, NVCC, "sm_90", HK_SOURCE_DIR "/include", i == 0 ? NULL : obj_only, cu,
                              exe, &argv) != HK_OK)
            return -1;
        jobs[i].pid = spawn(argv, log);
        harness_argv_free(argv);
        spec_free(s);
    }
    return 0;
}

static int teardown_tmp(void **state)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(jobs); i++)
        if (jobs[i].pid > 0)
            waitpid(jobs[i].pid, NULL, 0);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Waits for the compile of tag; returns nvcc's exit status, its output in *log_text. */
static int wait_compile(const char *tag, char **log_text)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(jobs); i++) {
        if (strcmp(jobs[i].tag, tag) != 0)
            continue;
        assert_true(jobs[i].pid > 0);
        int st = 0;
        assert_int_equal(waitpid(jobs[i].pid, &st, 0), jobs[i].pid);
        jobs[i].pid = -1;
        char log[512];
        snprintf(log, sizeof log, "%s/%s.log", tmpdir, tag);
        *log_text = slurp(log);
        int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (rc != 0)
            fprintf(stderr, "nvcc output for %s:\n%s\n", tag, *log_text);
        return rc;
    }
    fail_msg("no compile job %s", tag);
    return -1;
}

static void nvcc_compiles(const char *tag)
{
    if (access(NVCC, X_OK) != 0)
        skip();
    char *log = NULL;
    assert_int_equal(wait_compile(tag, &log), 0);
    char exe[512];
    snprintf(exe, sizeof exe, "%s/%s", tmpdir, tag);
    assert_int_equal(access(exe, R_OK), 0);
    hk_free(log);
}

static void compiles_saxpy(void **state) { nvcc_compiles("saxpy"); }
static void compiles_transpose_2d(void **state) { nvcc_compiles("transpose"); }
static void compiles_reduction_inout(void **state) { nvcc_compiles("reduce"); }
static void compiles_half(void **state) { nvcc_compiles("half"); }
static void compiles_template(void **state) { nvcc_compiles("template"); }

/* The compile test can fail: a spec with one argument too few is refused by nvcc with
 * the harness's static_assert message. */
static void nvcc_refuses_wrong_arity(void **state)
{
    if (access(NVCC, X_OK) != 0)
        skip();
    char *log = NULL;
    assert_int_not_equal(wait_compile("arity", &log), 0);
    assert_non_null(strstr(log, "do not match the kernel's parameter count"));
    hk_free(log);
}

static void text_of_saxpy(void **state)
{
    spec *s = load("saxpy.bench.json");
    char *text = NULL;
    assert_int_equal(harness_generate(s, "/abs/cand.cu", &text), HK_OK);
    assert_non_null(strstr(text, "#define main hk_user_main\n#include \"/abs/cand.cu\"\n#undef main\n"));
    assert_non_null(strstr(text, "static const long long hk_sizes[2][1] = {\n    { 1000003LL },\n    { 16777216LL },\n};"));
    assert_non_null(strstr(text, "st->grid[0] = hk_ceil_div(hk_v_n, hk_v_block_x);"));
    assert_non_null(strstr(text, "st->block[0] = 256LL;"));
    assert_non_null(strstr(text, "st->args[1] = hk_float_arg(2.5);"));
    assert_non_null(strstr(text, "st->args[0] = hk_int_arg(hk_v_n);"));
    assert_non_null(strstr(text, "st->count[3] = (size_t)hk_v_n;"));
    assert_non_null(strstr(text, "{ \"y\", HK_ARG_INOUT, HK_DT_F32 }"));
    assert_non_null(strstr(text, "{ HK_DIST_NORMAL, 0, 1 }"));
    assert_non_null(strstr(text, "hk_launch_kernel(saxpy,"));
    /* 3 distributions x 4 args */
    assert_non_null(strstr(text, "static const hk_dist hk_dists[3][4]"));
    hk_free(text);
    spec_free(s);
}

static void text_of_template_and_2d(void **state)
{
    spec *s = load("tiled_template.bench.json");
    char *text = NULL;
    assert_int_equal(harness_generate(s, s->source_path, &text), HK_OK);
    assert_non_null(strstr(text, "hk_launch_kernel(row_sum<128, double>,"));
    assert_non_null(strstr(text, "st->grid[1] = hk_v_rows;"));
    hk_free(text);
    spec_free(s);
    s = load("transpose.bench.json");
    assert_int_equal(harness_generate(s, s->source_path, &text), HK_OK);
    assert_non_null(strstr(text, "st->grid[1] = hk_ceil_div(hk_v_rows, hk_v_block_y);"));
    assert_non_null(strstr(text, "st->block[1] = 16LL;"));
    assert_non_null(strstr(text, "st->count[0] = (size_t)(hk_v_rows * hk_v_cols);"));
    hk_free(text);
    spec_free(s);
}

static void refuses_bad_paths_and_forms(void **state)
{
    spec *s = load("saxpy.bench.json");
    char *text = NULL;
    assert_int_equal(harness_generate(s, "/tmp/a\"b.cu", &text), HK_EINVAL);
    assert_int_equal(harness_generate(s, "/tmp/a\nb.cu", &text), HK_EINVAL);
    assert_null(text);
    s->form = SPEC_FORM_COMMAND;
    assert_int_equal(harness_generate(s, "/tmp/a.cu", &text), HK_EINVAL);
    s->form = SPEC_FORM_HARNESS;
    spec_free(s);
}

static void command_lines(void **state)
{
    spec *s = load("tiled_template.bench.json");
    char **argv = NULL;
    const char *extra[] = { "--use_fast_math", NULL };
    assert_int_equal(harness_nvcc_argv(s, NULL, "sm_80", "/inc", extra, "p.cu", "p", &argv), HK_OK);
    const char *want[] = { "nvcc", "-arch=sm_80", "-O3", "-std=c++17", "-lineinfo", "-I", "/inc",
                           "-DHK_TEST_FLAG=1", "--use_fast_math", "-o", "p", "p.cu", NULL };
    for (size_t i = 0; want[i]; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[12]);
    harness_argv_free(argv);
    spec_free(s);

    long long block[3] = { 128, 2, 1 };
    harness_run r = { .mode = "time", .size = 1, .dist = 2, .seed = 7, .check_seed = 99,
                      .out = "o.bin", .block = block, .budget_ms = 500 };
    assert_int_equal(harness_run_argv("./p", &r, &argv), HK_OK);
    const char *want2[] = { "./p", "--mode", "time", "--size", "1", "--seed", "7", "--dist", "2",
                            "--out", "o.bin", "--block", "128,2,1", "--check-seed", "99",
                            "--budget-ms", "500", NULL };
    for (size_t i = 0; want2[i]; i++)
        assert_string_equal(argv[i], want2[i]);
    assert_null(argv[17]);
    harness_argv_free(argv);
    r.mode = "walk";
    assert_int_equal(harness_run_argv("./p", &r, &argv), HK_EINVAL);
}

static void exit_reasons(void **state)
{
    assert_string_equal(harness_exit_reason(HK_EXIT_UNWRITTEN), "unwritten_output");
    assert_string_equal(harness_exit_reason(HK_EXIT_OUT_OF_BOUNDS), "out_of_bounds");
    assert_string_equal(harness_exit_reason(HK_EXIT_INPUT_MODIFIED), "input_modified");
    assert_string_equal(harness_exit_reason(HK_EXIT_CUDA), "cuda_error");
    assert_string_equal(harness_exit_reason(137), "timeout");
    assert_string_equal(harness_exit_reason(42), "exit_42");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_of_saxpy),
        cmocka_unit_test(text_of_template_and_2d),
        cmocka_unit_test(refuses_bad_paths_and_forms),
        cmocka_unit_test(command_lines),
        cmocka_unit_test(exit_reasons),
        cmocka_unit_test(compiles_saxpy),
        cmocka_unit_test(compiles_transpose_2d),
        cmocka_unit_test(compiles_reduction_inout),
        cmocka_unit_test(compiles_half),
        cmocka_unit_test(compiles_template),
        cmocka_unit_test(nvcc_refuses_wrong_arity),
    };
    return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
