/* cmdform.c without a GPU: the workspace copy and its caps, the kernel swap (checked by
 * compiling the swapped project with nvcc when it is installed), build failures with the
 * compiler's lines, PASS/FAIL gating, records files (fixtures under tests/data/cmdform/
 * records, and the lines the real injection library writes when CUPTI cannot record
 * here), "kernel not launched", timeouts. The only stand-in is the program itself:
 * tests/data/cmdform/fake_run.sh writes the records libhk_cupti.so would write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/cmdform.h"

/* The data directory: HK_TEST_DATA from the environment when the tree was moved (the
 * binary built here, run on a GPU machine from another checkout), else the build's. */
static const char *dp(const char *rel)
{
    static char bufs[16][1024];
    static unsigned k;
    const char *env = getenv("HK_TEST_DATA");
    char *b = bufs[k++ % 16];
    snprintf(b, sizeof bufs[0], "%s/cmdform%s", env && env[0] ? env : HK_TEST_DATA, rel);
    return b;
}

static char tmp_root[256];  /* per test run: copies, the built library */
static char lib_path[400];  /* libhk_cupti.so built by the group setup; "" when that failed */
static char dummy_lib[400]; /* a readable file standing in for the library (fake runs) */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        if (len)
            *len = (size_t)n;
    }
    return b;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool have_nvcc(void)
{
    return system("command -v nvcc >/dev/null 2>&1") == 0;
}

static int group_setup(void **state)
{
    (void)state;
    hk_alloc_init_json();
    snprintf(tmp_root, sizeof tmp_root, "/tmp/hk-test-cmdform-XXXXXX");
    if (!mkdtemp(tmp_root))
        return -1;
    snprintf(dummy_lib, sizeof dummy_lib, "%s/dummy_libhk_cupti.so", tmp_root);
    FILE *f = fopen(dummy_lib, "w");
    if (!f)
        return -1;
    fputs("not a library\n", f);
    fclose(f);
    snprintf(lib_path, sizeof lib_path, "%s/" CMDFORM_LIB_NAME, tmp_root);
    const char *prebuilt = getenv("HK_CUPTI_LIB");
    if (prebuilt && prebuilt[0]) { /* built elsewhere (the hk_cupti target, gpu_check.sh) */
        snprintf(lib_path, sizeof lib_path, "%s", prebuilt);
        return 0;
    }
    char *log = NULL;
    if (cmdform_cupti_build(NULL, lib_path, NULL, NULL, 0, &log) != HK_OK) {
        fprintf(stderr, "libhk_cupti.so did not build: %s\n", log ? log : "?");
        lib_path[0] = 0;
    }
    hk_free(log);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    measure_rmtree(tmp_root);
    return 0;
}

/* A command-form spec anchored in tests/data/cmdform (relative paths resolve there). */
static spec *make_spec(const char *kernel, const char *source, const char *workdir, const char *build,
                       const char *run, const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"form\":\"command\",\"kernel\":\"%s\",\"source\":\"%s\",\"workdir\":\"%s\",%s%s%s"
             "\"run\":\"%s\",\"pass_regex\":\"^PASS\",\"fail_regex\":\"FAIL|mismatch\"%s%s}",
             kernel, source, workdir, build ? "\"build\":\"" : "", build ? build : "", build ? "\"," : "",
             run, extra ? "," : "", extra ? extra : "");
    spec *s = NULL;
    spec_diags d = { 0 };
    int rc = spec_parse(text, strlen(text), dp("/test.bench.json"), &s, &d);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "spec: %s: %s\n", d.items[i].path, d.items[i].message);
    spec_diags_free(&d);
    assert_int_equal(rc, HK_OK);
    return s;
}

static spec *fake_spec(const char *mode)
{
    char run[512];
    snprintf(run, sizeof run, "sh %s/fake_run.sh %s", dp(""), mode);
    return make_spec("saxpy", "project/saxpy.cu", "project", NULL, run, NULL);
}

static cmdform_options fake_options(void)
{
    cmdform_options o = { .runs = 5, .cupti_lib = dummy_lib, .tmp_dir = tmp_root };
    return o;
}

/* ---- names ---- */

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(cmdform_status_name(CMDFORM_OK), "ok");
    assert_string_equal(cmdform_status_name(CMDFORM_NOT_LAUNCHED), "not_launched");
    assert_string_equal(cmdform_status_name(CMDFORM_RECORDS_ERROR), "records_error");
    assert_string_equal(cmdform_status_name((enum cmdform_status)99), "unknown");
    assert_int_equal(cmdform_status_reason(CMDFORM_BUILD_ERROR), MEASURE_COMPILE_ERROR);
    assert_int_equal(cmdform_status_reason(CMDFORM_FAIL_OUTPUT), MEASURE_WRONG_ANSWER);
    assert_int_equal(cmdform_status_reason(CMDFORM_RUN_FAILED), MEASURE_WRONG_ANSWER);
    assert_int_equal(cmdform_status_reason(CMDFORM_RUN_CRASHED), MEASURE_CRASH);
    assert_int_equal(cmdform_status_reason(CMDFORM_RUN_TIMEOUT), MEASURE_TIMEOUT);
    assert_int_equal(cmdform_status_reason(CMDFORM_NO_CUPTI), MEASURE_NO_GPU);
    assert_int_equal(cmdform_status_reason(CMDFORM_NOT_LAUNCHED), MEASURE_HARNESS_ERROR);
    assert_int_equal(cmdform_status_reason(CMDFORM_HOST_CODE), MEASURE_HOST_CODE);
}

/* ---- workspace copy ---- */

static void make_tree(const char *root)
{
    char p[600];
    assert_int_equal(measure_mkdirs(root), HK_OK);
    snprintf(p, sizeof p, "%s/sub/deeper", root);
    assert_int_equal(measure_mkdirs(p), HK_OK);
    snprintf(p, sizeof p, "%s/.git", root);
    assert_int_equal(measure_mkdirs(p), HK_OK);
    snprintf(p, sizeof p, "%s/build", root);
    assert_int_equal(measure_mkdirs(p), HK_OK);
    snprintf(p, sizeof p, "%s/build-rel", root);
    assert_int_equal(measure_mkdirs(p), HK_OK);
    snprintf(p, sizeof p, "%s/k.cu", root);
    spit(p, "__global__ void k(float *x) { x[0] = 1; }\n");
    snprintf(p, sizeof p, "%s/sub/deeper/util.h", root);
    spit(p, "#define TILE 32\n");
    snprintf(p, sizeof p, "%s/run.sh", root);
    spit(p, "#!/bin/sh\necho hi\n");
    assert_int_equal(chmod(p, 0755), 0);
    struct timespec old[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };
    assert_int_equal(utimensat(AT_FDCWD, p, old, 0), 0);
    snprintf(p, sizeof p, "%s/.git/HEAD", root);
    spit(p, "ref: refs/heads/main\n");
    snprintf(p, sizeof p, "%s/build/k.o", root);
    spit(p, "object");
    snprintf(p, sizeof p, "%s/build-rel/k.o", root);
    spit(p, "object");
    snprintf(p, sizeof p, "%s/link.h", root);
    assert_int_equal(symlink("sub/deeper/util.h", p), 0);
}

static void test_copy_tree(void **state)
{
    (void)state;
    char src[400], dst[400], p[600];
    snprintf(src, sizeof src, "%s/tree-src", tmp_root);
    snprintf(dst, sizeof dst, "%s/tree-dst", tmp_root);
    make_tree(src);
    long live = hk_alloc_live();
    uint64_t bytes = 0;
    size_t files = 0;
    char *why = NULL;
    assert_int_equal(cmdform_copy_tree(src, dst, NULL, &bytes, &files, &why), HK_OK);
    assert_null(why);
    /* k.cu run.sh link.h sub sub/deeper sub/deeper/util.h */
    assert_int_equal(files, 6);
    assert_int_equal(bytes, strlen("__global__ void k(float *x) { x[0] = 1; }\n") + strlen("#define TILE 32\n") +
                                strlen("#!/bin/sh\necho hi\n"));
    snprintf(p, sizeof p, "%s/sub/deeper/util.h", dst);
    char *t = slurp(p, NULL);
    assert_non_null(t);
    assert_string_equal(t, "#define TILE 32\n");
    free(t);
    struct stat st;
    snprintf(p, sizeof p, "%s/run.sh", dst);
    assert_int_equal(stat(p, &st), 0);
    assert_true(st.st_mode & S_IXUSR);
    assert_int_equal(st.st_mtim.tv_sec, 1000000000); /* times kept (make) */
    snprintf(p, sizeof p, "%s/link.h", dst);
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    t = slurp(p, NULL); /* the relative link resolves inside the copy */
    assert_non_null(t);
    assert_string_equal(t, "#define TILE 32\n");
    free(t);
    const char *skipped[] = { ".git", "build", "build-rel" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dst, skipped[i]);
        assert_int_not_equal(lstat(p, &st), 0);
    }
    assert_int_equal(hk_alloc_live(), live);

    /* the destination exists already: refused, nothing overwritten */
    assert_int_equal(cmdform_copy_tree(src, dst, NULL, NULL, NULL, &why), HK_EIO);
    assert_non_null(why);
    hk_free(why);

    /* caps */
    char dst2[420];
    snprintf(dst2, sizeof dst2, "%s-bytes", dst);
    cmdform_options o = { .copy_max_bytes = 40 };
    assert_int_equal(cmdform_copy_tree(src, dst2, &o, NULL, NULL, &why), HK_ETOOBIG);
    assert_non_null(strstr(why, "over 40 bytes"));
    hk_free(why);
    snprintf(dst2, sizeof dst2, "%s-files", dst);
    o = (cmdform_options){ .copy_max_files = 3 };
    assert_int_equal(cmdform_copy_tree(src, dst2, &o, NULL, NULL, &why), HK_ETOOBIG);
    assert_non_null(strstr(why, "more than 3 files"));
    hk_free(why);

    /* custom skip patterns replace the defaults */
    snprintf(dst2, sizeof dst2, "%s-skip", dst);
    const char *skip[] = { "sub", "*.sh", NULL };
    o = (cmdform_options){ .skip = skip };
    assert_int_equal(cmdform_copy_tree(src, dst2, &o, NULL, &files, &why), HK_OK);
    snprintf(p, sizeof p, "%s/build/k.o", dst2);
    assert_int_equal(stat(p, &st), 0);
    snprintf(p, sizeof p, "%s/run.sh", dst2);
    assert_int_not_equal(lstat(p, &st), 0);
    snprintf(p, sizeof p, "%s/sub", dst2);
    assert_int_not_equal(lstat(p, &st), 0);

    /* into itself */
    snprintf(dst2, sizeof dst2, "%s/sub/copy", src);
    assert_int_equal(cmdform_copy_tree(src, dst2, NULL, NULL, NULL, &why), HK_EINVAL);
    assert_non_null(strstr(why, "inside the workspace"));
    hk_free(why);
    snprintf(dst2, sizeof dst2, "%s/nope", tmp_root);
    assert_int_equal(cmdform_copy_tree("/nonexistent/dir", dst2, NULL, NULL, NULL, &why), HK_ENOENT);
    hk_free(why);
    assert_int_equal(hk_alloc_live(), live);
}

/* ---- kernel swap ---- */

static void test_swap_kernel(void **state)
{
    (void)state;
    size_t len = 0, clen = 0, olen = 0;
    char *text = slurp(dp("/project/saxpy.cu"), &len);
    char *cand = slurp(dp("/saxpy_candidate.cu"), &clen);
    assert_non_null(text);
    assert_non_null(cand);
    long live = hk_alloc_live();
    char *out = NULL, *why = NULL;
    assert_int_equal(cmdform_swap_kernel(text, len, "saxpy", cand, clen, &out, &olen, &why), HK_OK);
    assert_null(why);
    assert_int_equal(strlen(out), olen);
    assert_non_null(strstr(out, "HK_CANDIDATE_MARK"));
    assert_non_null(strstr(out, "i += gridDim.x * blockDim.x"));
    assert_null(strstr(out, "A candidate for saxpy")); /* only the definition is taken */
    assert_null(strstr(out, "    if (i < n)\n        y[i] = a * x[i] + y[i];"));
    /* the rest of the file is byte for byte the same */
    const char *k = strstr(text, "__global__ void saxpy");
    assert_non_null(k);
    assert_memory_equal(out, text, (size_t)(k - text));
    const char *tail = strstr(text, "\nint main");
    assert_non_null(strstr(out, tail));
    assert_non_null(strstr(out, "__global__ void fill(float *x, float v, int n)"));
    hk_free(out);

    /* a whole file as the candidate: its definition of the kernel is what is taken */
    assert_int_equal(cmdform_swap_kernel(text, len, "saxpy", text, len, &out, &olen, &why), HK_OK);
    assert_int_equal(olen, len);
    assert_memory_equal(out, text, len);
    hk_free(out);

    /* a candidate without the kernel, a kernel the source lacks */
    const char *other = "__global__ void other(float *y) { y[0] = 0; }\n";
    assert_int_equal(cmdform_swap_kernel(text, len, "saxpy", other, strlen(other), &out, &olen, &why), HK_ENOENT);
    assert_null(out);
    assert_non_null(strstr(why, "the candidate has no definition of the kernel saxpy (1 other kernel found"));
    hk_free(why);
    assert_int_equal(cmdform_swap_kernel(text, len, "nope", cand, clen, &out, &olen, &why), HK_ENOENT);
    assert_non_null(strstr(why, "the source file has no definition of the kernel nope (2 other kernels"));
    hk_free(why);
    assert_int_equal(hk_alloc_live(), live);
    free(text);
    free(cand);
}

static void test_swap_template_and_declaration(void **state)
{
    (void)state;
    /* a declaration before the definition, a template prefix, a namespace */
    const char *src = "namespace hk {\n"
                      "template <int B> __global__ void tile(float *x);\n"
                      "template <int B>\n__global__ void tile(float *x) { x[threadIdx.x] = B; }\n"
                      "}\n"
                      "void go(float *x) { hk::tile<64><<<1, 64>>>(x); }\n";
    const char *cand = "template <int B>\n__global__ void __launch_bounds__(B) tile(float *x)\n"
                       "{ x[threadIdx.x] = 2 * B; }\n";
    char *out = NULL, *why = NULL;
    size_t olen = 0;
    assert_int_equal(cmdform_swap_kernel(src, strlen(src), "tile", cand, strlen(cand), &out, &olen, &why), HK_OK);
    assert_string_equal(out, "namespace hk {\n"
                             "template <int B> __global__ void tile(float *x);\n"
                             "template <int B>\n__global__ void __launch_bounds__(B) tile(float *x)\n"
                             "{ x[threadIdx.x] = 2 * B; }\n"
                             "}\n"
                             "void go(float *x) { hk::tile<64><<<1, 64>>>(x); }\n");
    hk_free(out);
}

/* ---- records ---- */

static void read_records(const char *file, const char *kernel, cmdform_run *run, enum cmdform_status *st,
                         char **why, char ***names, size_t *n_names)
{
    char path[400];
    snprintf(path, sizeof path, "%s/records/%s", dp(""), file);
    memset(run, 0, sizeof *run);
    assert_int_equal(cmdform_records_read(path, kernel, run, names, n_names, st, why), HK_OK);
}

static bool has(char **names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return true;
    return false;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hk_free(names[i]);
    hk_free(names);
}

static void test_records_two_processes(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    cmdform_run run;
    enum cmdform_status st;
    char *why = NULL, **names = NULL;
    size_t n = 0;
    read_records("two_procs.jsonl", "saxpy", &run, &st, &why, &names, &n);
    assert_int_equal(st, CMDFORM_OK);
    assert_null(why);
    /* _Z5saxpy in two processes and hk::detail::saxpy<256, float>; not saxpy_c or saxpy_more */
    assert_int_equal(run.launches, 3);
    assert_true(fabs(run.kernel_ms - 0.0065) < 1e-12);
    assert_int_equal(run.processes, 2);
    assert_int_equal(run.other_kernels, 3);
    assert_int_equal(n, 2);
    assert_true(has(names, n, "_Z5saxpyifPKfPf"));
    assert_true(has(names, n, "_ZN2hk6detail5saxpyILi256EfEEviT0_PKS2_PS2_"));
    free_names(names, n);

    /* a qualified kernel name selects only its own launches */
    read_records("two_procs.jsonl", "hk::detail::saxpy", &run, &st, &why, NULL, NULL);
    assert_int_equal(st, CMDFORM_OK);
    assert_int_equal(run.launches, 1);
    assert_true(fabs(run.kernel_ms - 0.0015) < 1e-12);
    /* extern "C" names are matched as written */
    read_records("two_procs.jsonl", "saxpy_c", &run, &st, &why, NULL, NULL);
    assert_int_equal(st, CMDFORM_OK);
    assert_int_equal(run.launches, 1);
    assert_true(fabs(run.kernel_ms - 0.0001) < 1e-12);
    /* names that are signatures already (demangled by someone else), the library's
     * "demangled" field when our demangler cannot read the name */
    read_records("demangled.jsonl", "saxpy", &run, &st, &why, NULL, NULL);
    assert_int_equal(st, CMDFORM_OK);
    assert_int_equal(run.launches, 3);
    assert_true(fabs(run.kernel_ms - 0.00175) < 1e-12);
    assert_int_equal(run.other_kernels, 1);
    read_records("demangled.jsonl", "ns::saxpy", &run, &st, &why, NULL, NULL);
    assert_int_equal(st, CMDFORM_OK);
    assert_int_equal(run.launches, 1);
    assert_int_equal(hk_alloc_live(), live);
}

static void test_records_problems(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    static const struct {
        const char *file;
        enum cmdform_status st;
        const char *words;
    } cases[] = {
        { "not_launched.jsonl", CMDFORM_NOT_LAUNCHED,
          "kernel saxpy was not launched (the program launched 2 other kernels: fill, saxpy_more)" },
        { "dropped.jsonl", CMDFORM_RECORDS_ERROR, "CUPTI dropped 12 kernel records" },
        { "no_exit.jsonl", CMDFORM_RECORDS_ERROR, "process 7 did not exit normally" },
        { "cupti_error.jsonl", CMDFORM_NO_CUPTI, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" },
        { "malformed.jsonl", CMDFORM_RECORDS_ERROR, "malformed.jsonl:3: not a CUPTI record line" },
        { "backwards.jsonl", CMDFORM_RECORDS_ERROR, "ends (4000 ns) before it starts (5000 ns)" },
        { "missing.jsonl", CMDFORM_NO_CUPTI, "no CUPTI records were written" },
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        cmdform_run run;
        enum cmdform_status st;
        char *why = NULL;
        read_records(cases[i].file, "saxpy", &run, &st, &why, NULL, NULL);
        if (st != cases[i].st || !why || !strstr(why, cases[i].words))
            fail_msg("%s: status %s, why: %s", cases[i].file, cmdform_status_name(st), why ? why : "(null)");
        hk_free(why);
    }
    /* an empty file: the library was never loaded */
    char path[400];
    snprintf(path, sizeof path, "%s/empty.jsonl", tmp_root);
    spit(path, "");
    cmdform_run run;
    enum cmdform_status st;
    char *why = NULL;
    assert_int_equal(cmdform_records_read(path, "saxpy", &run, NULL, NULL, &st, &why), HK_OK);
    assert_int_equal(st, CMDFORM_NO_CUPTI);
    assert_non_null(strstr(why, "no init line"));
    hk_free(why);
    assert_int_equal(hk_alloc_live(), live);
}

/* Every allocation failing in turn: an error, never a crash or a leak. */
static void test_out_of_memory(void **state)
{
    (void)state;
    size_t len = 0, clen = 0;
    char *text = slurp(dp("/project/saxpy.cu"), &len);
    char *cand = slurp(dp("/saxpy_candidate.cu"), &clen);
    spec *s = fake_spec("ok");
    runner_result rr = { .exit_code = 1, .out = "mismatch at 1\nFAIL\n", .out_len = 19, .err = "", .err_len = 0 };
    long live = hk_alloc_live();
    bool done[3] = { false, false, false };
    for (long n = 1; n < 5000 && !(done[0] && done[1] && done[2]); n++) {
        if (!done[0]) {
            cmdform_run run;
            enum cmdform_status st;
            char *why = NULL, **names = NULL;
            size_t n_names = 0;
            hk_alloc_fail_after(n);
            int rc = cmdform_records_read(dp("/records/two_procs.jsonl"), "saxpy", &run, &names, &n_names, &st, &why);
            hk_alloc_fail_after(0);
            assert_true(rc == HK_OK || rc == HK_ENOMEM);
            if (rc == HK_OK) {
                assert_int_equal(st, CMDFORM_OK);
                assert_int_equal(run.launches, 3);
                done[0] = true;
            }
            free_names(names, n_names);
            hk_free(why);
        }
        if (!done[1]) {
            char *out = NULL, *why = NULL;
            size_t olen = 0;
            hk_alloc_fail_after(n);
            int rc = cmdform_swap_kernel(text, len, "saxpy", cand, clen, &out, &olen, &why);
            hk_alloc_fail_after(0);
            assert_true(rc == HK_OK || rc == HK_ENOMEM || rc == HK_ENOENT);
            if (rc == HK_OK) {
                assert_non_null(strstr(out, "HK_CANDIDATE_MARK"));
                done[1] = true;
            }
            hk_free(out);
            hk_free(why);
        }
        if (!done[2]) {
            enum cmdform_status st;
            char *why = NULL;
            hk_alloc_fail_after(n);
            int rc = cmdform_gate(s, &rr, &st, &why);
            hk_alloc_fail_after(0);
            assert_true(rc == HK_OK || rc == HK_ENOMEM);
            if (rc == HK_OK) {
                assert_int_equal(st, CMDFORM_RUN_FAILED);
                assert_non_null(strstr(why, "printed \"mismatch at 1\""));
                done[2] = true;
            }
            hk_free(why);
        }
        assert_int_equal(hk_alloc_live(), live);
    }
    assert_true(done[0] && done[1] && done[2]);
    spec_free(s);
    free(text);
    free(cand);
}

/* ---- gating ---- */

static void test_gate(void **state)
{
    (void)state;
    spec *s = fake_spec("ok");
    long live = hk_alloc_live();
    static const struct {
        const char *out, *err;
        int exit_code, sig;
        bool timed_out;
        enum cmdform_status st;
        const char *words;
    } cases[] = {
        { "checking\nPASS (0 wrong)\n", "", 0, 0, false, CMDFORM_OK, NULL },
        { "warming up\n", "PASS\n", 0, 0, false, CMDFORM_OK, NULL },
        { "  PASS\n", "", 0, 0, false, CMDFORM_NO_PASS_OUTPUT, "does not match pass_regex \"^PASS\"" },
        { "PASS\nmismatch at 3: got 1 want 2\n", "", 0, 0, false, CMDFORM_FAIL_OUTPUT,
          "matches fail_regex \"FAIL|mismatch\": \"mismatch at 3: got 1 want 2\"" },
        { "FAIL\n", "", 1, 0, false, CMDFORM_RUN_FAILED, "exited with status 1 and printed \"FAIL\"" },
        { "PASS\n", "boom\n", 3, 0, false, CMDFORM_RUN_FAILED, "stderr:\nboom" },
        { "PASS\n", "", -1, 11, false, CMDFORM_RUN_CRASHED, "killed by signal 11" },
        { "", "", -1, 9, true, CMDFORM_RUN_TIMEOUT, "time limit" },
        { "PASS\n", "", 134, 0, false, CMDFORM_RUN_CRASHED, "killed by signal 6 (Aborted; the shell's status 134)" },
        { "PASS\n", "", 130, 0, false, CMDFORM_RUN_FAILED, "exited with status 130" },
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        runner_result r = { .exit_code = cases[i].exit_code, .term_signal = cases[i].sig,
                            .timed_out = cases[i].timed_out, .out = (char *)cases[i].out,
                            .out_len = strlen(cases[i].out), .err = (char *)cases[i].err,
                            .err_len = strlen(cases[i].err) };
        enum cmdform_status st;
        char *why = NULL;
        assert_int_equal(cmdform_gate(s, &r, &st, &why), HK_OK);
        if (st != cases[i].st || (cases[i].words && (!why || !strstr(why, cases[i].words))))
            fail_msg("case %zu: status %s, why: %s", i, cmdform_status_name(st), why ? why : "(null)");
        if (!cases[i].words)
            assert_null(why);
        hk_free(why);
    }
    assert_int_equal(hk_alloc_live(), live);
    spec_free(s);
}

static void test_first_lines(void **state)
{
    (void)state;
    const char *log = "nvcc -O3 saxpy.cu\nsaxpy.cu(6): error: identifier \"q\" is undefined\n  y = q;\n"
                      "1 error detected\n";
    char *s = cmdform_first_lines(log, strlen(log), 2);
    assert_string_equal(s, "saxpy.cu(6): error: identifier \"q\" is undefined\n  y = q;");
    hk_free(s);
    s = cmdform_first_lines("a\nb\nc\n", 6, 2); /* no error line: from the start */
    assert_string_equal(s, "a\nb");
    hk_free(s);
}

/* ---- the whole measurement, with the fake program ---- */

static void test_measure_fake_ok(void **state)
{
    (void)state;
    spec *s = fake_spec("ok");
    cmdform_options o = fake_options();
    cmdform_result r;
    long live = hk_alloc_live();
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    if (r.status != CMDFORM_OK)
        fail_msg("%s: %s", cmdform_status_name(r.status), r.details);
    /* run N gives each of 3 launches N us: per-run sums 3, 6, 9, 12, 15 us */
    assert_int_equal(r.n_runs, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_true(fabs(r.runs[i].kernel_ms - 0.003 * (double)(i + 1)) < 1e-12);
        assert_int_equal(r.runs[i].launches, 3);
        assert_int_equal(r.runs[i].processes, 1);
        assert_int_equal(r.runs[i].other_kernels, 3);
    }
    assert_true(fabs(r.timing.median_ms - 0.009) < 1e-12);
    assert_true(fabs(r.timing.min_ms - 0.003) < 1e-12);
    assert_true(fabs(r.max_ms - 0.015) < 1e-12);
    assert_true(fabs(r.timing.p10_ms - 0.0042) < 1e-12);
    assert_true(fabs(r.timing.spread - (0.012 - 0.006) / 0.009) < 1e-9);
    assert_int_equal(r.timing.reps, 5);
    assert_int_equal(r.n_kernel_names, 1);
    assert_string_equal(r.kernel_names[0], "_Z5saxpyifPKfPf");
    assert_null(r.workspace);
    assert_non_null(r.isolation_words);
    json_t *j = cmdform_result_json(&r);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
    assert_string_equal(json_string_value(json_object_get(j, "timer")), "cupti");
    assert_int_equal(json_array_size(json_object_get(j, "runs")), 5);
    assert_true(fabs(json_real_value(json_object_get(j, "median_ms")) - 0.009) < 1e-12);
    json_decref(j);
    cmdform_result_clear(&r);
    assert_int_equal(hk_alloc_live(), live);
    /* the user's workspace was never written: the run counter lives in the copy */
    struct stat st;
    assert_int_not_equal(stat(dp("/project/.fake_runs"), &st), 0);
    spec_free(s);
}

/* s with the first occurrence of from replaced by to (new string, free). */
static char *replaced(const char *s, const char *from, const char *to)
{
    const char *p = strstr(s, from);
    assert_non_null(p);
    size_t a = (size_t)(p - s), n = strlen(s) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    assert_non_null(out);
    memcpy(out, s, a);
    strcpy(out + a, to);
    strcat(out, p + strlen(from));
    return out;
}

/* Issue 12: only the kernel's definition may change. A stencil's RADIUS changed by a
 * candidate is a different computation that the program's own check (sharing the macro)
 * would pass. */
static void test_check_outside_kernel(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = slurp(dp("/project/saxpy.cu"), &len);
    assert_non_null(text);
    long live = hk_alloc_live();
    unsigned line = 99;
    char *why = NULL;

    /* the kernel's body alone: accepted by this check */
    char *body = replaced(text, "    if (i < n)\n        y[i] = a * x[i] + y[i];",
                          "    for (; i < n; i += gridDim.x * blockDim.x)\n        y[i] = a * x[i] + y[i];");
    assert_int_equal(cmdform_check_outside_kernel(text, len, body, strlen(body), "saxpy", &line, &why), HK_OK);
    assert_int_equal(line, 0);
    assert_null(why);

    /* a host line after the kernel */
    char *host = replaced(body, "atoi(argv[2]) : 10;", "atoi(argv[2]) : 5;");
    assert_int_equal(cmdform_check_outside_kernel(text, len, host, strlen(host), "saxpy", &line, &why), HK_OK);
    print_message("%s\n", why);
    assert_int_equal(line, 28);
    assert_non_null(strstr(why, "the candidate changes line 28, outside the definition of saxpy"));
    assert_non_null(strstr(why, "`    int iters = argc > 2 ? atoi(argv[2]) : 5;`"));
    hk_free(why);

    /* a line dropped before the kernel */
    char *dropped = replaced(text, "#include <vector>\n", "");
    assert_int_equal(cmdform_check_outside_kernel(text, len, dropped, strlen(dropped), "saxpy", &line, &why),
                     HK_OK);
    assert_int_equal(line, 7);
    assert_non_null(strstr(why, "drops line 7 of the original"));
    assert_non_null(strstr(why, "`#include <vector>`"));
    hk_free(why);

    /* the reported case: RADIUS 7 set to 3 above the stencil */
    size_t slen = 0;
    char *stencil = slurp(dp("/../knob/stencil1d.cu"), &slen);
    assert_non_null(stencil);
    char *radius = replaced(stencil, "#define RADIUS 3", "#define RADIUS 7");
    assert_int_equal(cmdform_check_outside_kernel(stencil, slen, radius, strlen(radius), "stencil_1d", &line,
                                                  &why), HK_OK);
    assert_int_equal(line, 6);
    assert_non_null(strstr(why, "line 6, outside the definition of stencil_1d"));
    assert_non_null(strstr(why, "`#define RADIUS 7`"));
    hk_free(why);

    /* session 29: the same change made from inside the kernel's body. A directive there
     * passes the byte comparison outside the definition, yet acts on everything after it:
     * RADIUS is 1 for the kernel's loop and for the program's own check after it */
    char *inside = replaced(stencil, "    out[gindex] = result;\n",
                            "    out[gindex] = result;\n#undef RADIUS\n#define RADIUS 1\n");
    assert_int_equal(cmdform_check_outside_kernel(stencil, slen, inside, strlen(inside), "stencil_1d",
                                                  &line, &why), HK_OK);
    assert_int_equal(line, 25);
    assert_non_null(strstr(why, "the candidate's definition of stencil_1d has a preprocessor line the "
                                "original's does not, line 25: `#undef RADIUS`"));
    hk_free(why);
    /* the same through a comment before the '#', the %: digraph, a _Pragma operator */
    static const char *const hidden[] = {"/* x */ # define RADIUS 1\n", "  %:define RADIUS 1\n",
                                         "    _Pragma(\"push_macro(\\\"RADIUS\\\")\") int z = 0;\n"};
    for (size_t h = 0; h < sizeof hidden / sizeof hidden[0]; h++) {
        char *t = replaced(stencil, "    int result = 0;\n", hidden[h]);
        line = 0;
        assert_int_equal(cmdform_check_outside_kernel(stencil, slen, t, strlen(t), "stencil_1d", &line,
                                                      &why), HK_OK);
        assert_int_equal(line, 21);
        hk_free(why);
        free(t);
    }
    /* #pragma unroll is the kernel's own business; a line continued by a backslash is no
     * directive */
    char *unroll = replaced(stencil, "    for (int offset", "    #pragma unroll\n    for (int offset");
    assert_int_equal(cmdform_check_outside_kernel(stencil, slen, unroll, strlen(unroll), "stencil_1d",
                                                  &line, &why), HK_OK);
    assert_int_equal(line, 0);
    assert_null(why);
    char *cont = replaced(stencil, "    int result = 0;\n", "    int result = 0 + \\\n# 0;\n");
    assert_int_equal(cmdform_check_outside_kernel(stencil, slen, cont, strlen(cont), "stencil_1d",
                                                  &line, &why), HK_OK);
    assert_int_equal(line, 0);
    free(inside);
    free(unroll);
    free(cont);

    /* no definition in the candidate */
    const char *other = "__global__ void other(float *y) { y[0] = 0; }\n";
    assert_int_equal(cmdform_check_outside_kernel(text, len, other, strlen(other), "saxpy", &line, &why),
                     HK_ENOENT);
    assert_non_null(strstr(why, "the candidate has no definition of the kernel saxpy"));
    hk_free(why);
    assert_int_equal(hk_alloc_live(), live);
    free(body);
    free(host);
    free(dropped);
    free(radius);
    free(stencil);
    free(text);
}

/* Session 38 (issue 12, red team): a candidate whose kernel ends in the `%>` digraph. The
 * definition's span is tree-sitter's, which reads `%>` and `<%` as operators; the compiler
 * ends the kernel at `%>` and compiles what follows as host code: a printf that turns the
 * program's own "FAIL at" line into "PASS" and an atexit handler that turns its failing exit
 * into 0; `<% ... }` is a function closed by the original's `}`. Every byte outside the span
 * and every directive inside it are the original's, so before this check it was clean (line
 * 0: measured, with a wrong, cheap kernel). Built with nvcc 13.0 as a whole program (`printf`
 * defined in it); running it needs a GPU. Now the definition, read as the compiler reads it
 * (digraphs, trigraphs, splices), must close once, at the span's end. */
static void test_check_outside_kernel_digraph(void **state)
{
    (void)state;
    size_t slen = 0;
    char *stencil = slurp(dp("/../knob/stencil1d.cu"), &slen);
    assert_non_null(stencil);
    long live = hk_alloc_live();
    static const char cheat[] =
        "    out[gindex] = (2 * RADIUS + 1) * in[gindex];\n"
        "%>\n"
        "extern \"C\" int printf(const char *f, ...)\n"
        "{\n"
        "    if (f[0] == 'F')\n"
        "        return puts(\"PASS\");\n"
        "    __builtin_va_list a;\n"
        "    __builtin_va_start(a, f);\n"
        "    int r = vprintf(f, a);\n"
        "    __builtin_va_end(a);\n"
        "    return r;\n"
        "}\n"
        "static int hk_quiet = (atexit([] { fflush(stdout); _Exit(0); }), 0);\n"
        "static void hk_tail() <%\n"
        "}\n";
    char *dg = replaced(stencil, "    out[gindex] = result;\n}\n", cheat);
    unsigned line = 0;
    char *why = NULL;
    assert_int_equal(cmdform_check_outside_kernel(stencil, slen, dg, strlen(dg), "stencil_1d", &line, &why),
                     HK_OK);
    print_message("%s\n", why ? why : "(clean)");
    assert_int_equal(line, 25); /* the `%>` that ends the body for the compiler */
    assert_non_null(why);
    assert_non_null(strstr(why, "the candidate's definition of stencil_1d ends before the analysis sees it "
                                "end, line 25: `%>`"));
    hk_free(why);
    /* the same host code as `__host__ __device__` (the host-code rule's device kind), after a
     * `??>` trigraph, after a `%>` split by a backslash-newline: each ends the body early */
    static const char *const early[] = {
        "    out[gindex] = 0;\n%>\nextern \"C\" __host__ __device__ int printf(const char *f, ...) { return 0; }\n"
        "static __device__ void hk_tail() <%\n}\n",
        "    out[gindex] = 0;\n?\?>\nextern \"C\" __host__ __device__ int printf(const char *f, ...) { return 0; }\n"
        "static __device__ void hk_tail() ?\?<\n}\n",
        "    out[gindex] = 0;\n%\\\n>\nextern \"C\" __host__ __device__ int printf(const char *f, ...) { return 0; }\n"
        "static __device__ void hk_tail() <%\n}\n"};
    for (size_t e = 0; e < sizeof early / sizeof early[0]; e++) {
        char *t = replaced(stencil, "    out[gindex] = result;\n}\n", early[e]);
        line = 0;
        assert_int_equal(cmdform_check_outside_kernel(stencil, slen, t, strlen(t), "stencil_1d", &line, &why),
                         HK_OK);
        print_message("%s\n", why ? why : "(clean)");
        assert_int_equal(line, 25);
        assert_non_null(why);
        assert_non_null(strstr(why, "ends before the analysis sees it end"));
        hk_free(why);
        free(t);
    }
    /* braces the compiler does not read as braces: in strings, characters, comments, raw
     * strings and after digit separators; and a brace default inside the parameters: clean */
    char *lookalike = replaced(stencil, "    int result = 0;\n",
                               "    int result = 0 * (int)sizeof(\"}%>\") * (int)'}' * (1'000 > 0); // } %>\n"
                               "    /* } */ const char *r = R\"x(}%>)\" )x\"; (void)r;\n"
                               "    auto f = [](int v = int{}) { return v; }; result += f();\n");
    assert_int_equal(cmdform_check_outside_kernel(stencil, slen, lookalike, strlen(lookalike), "stencil_1d",
                                                  &line, &why), HK_OK);
    print_message("%s\n", why ? why : "(clean)");
    assert_int_equal(line, 0);
    assert_null(why);
    free(lookalike);
    /* the same kernel with plain braces is an honest candidate's shape: clean */
    char *plain = replaced(stencil, "    out[gindex] = result;\n", "    out[gindex] = result + 0;\n");
    assert_int_equal(cmdform_check_outside_kernel(stencil, slen, plain, strlen(plain), "stencil_1d", &line,
                                                  &why), HK_OK);
    assert_int_equal(line, 0);
    assert_null(why);
    /* a helper added before the kernel is device code: clean; a host one is not */
    char *dev = replaced(stencil, "__global__ void stencil_1d", "__device__ int twice(int v) { return 2 * v; }\n__global__ void stencil_1d");
    assert_int_equal(cmdform_check_outside_kernel(stencil, slen, dev, strlen(dev), "stencil_1d", &line, &why),
                     HK_OK);
    assert_int_equal(line, 10); /* before the span: a changed line, as before */
    hk_free(why);
    free(dev);
    free(plain);
    free(dg);
    assert_int_equal(hk_alloc_live(), live);
    free(stencil);
}

/* A whole-file candidate that changes a host line is not built: host_code, the line quoted. */
static void test_measure_host_code(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = slurp(dp("/project/saxpy.cu"), &len);
    assert_non_null(text);
    char *host = replaced(text, "atoi(argv[2]) : 10;", "atoi(argv[2]) : 1;");
    char *body = replaced(text, "        y[i] = a * x[i] + y[i];", "        y[i] = y[i] + a * x[i];");
    spec *s = fake_spec("ok");
    cmdform_options o = fake_options();
    o.candidate_is_file = true;
    o.runs = 2;
    long live = hk_alloc_live();
    cmdform_result r;
    assert_int_equal(cmdform_measure(s, host, strlen(host), &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_HOST_CODE);
    assert_string_equal(cmdform_status_name(r.status), "host_code");
    assert_int_equal(cmdform_status_reason(r.status), MEASURE_HOST_CODE);
    assert_non_null(strstr(r.details, "line 28"));
    assert_non_null(strstr(r.details, "atoi(argv[2]) : 1;"));
    assert_int_equal(r.n_runs, 0);
    cmdform_result_clear(&r);
    /* the kernel's body alone is measured */
    assert_int_equal(cmdform_measure(s, body, strlen(body), &o, &r), HK_OK);
    if (r.status != CMDFORM_OK)
        fail_msg("%s: %s", cmdform_status_name(r.status), r.details);
    assert_int_equal(r.n_runs, 2);
    cmdform_result_clear(&r);
    assert_int_equal(hk_alloc_live(), live);
    spec_free(s);
    free(host);
    free(body);
    free(text);
}

static void test_measure_fake_failures(void **state)
{
    (void)state;
    static const struct {
        const char *mode;
        enum cmdform_status st;
        const char *words;
    } cases[] = {
        { "fail", CMDFORM_FAIL_OUTPUT, "run 1: the output matches fail_regex" },
        { "nopass", CMDFORM_NO_PASS_OUTPUT, "does not match pass_regex" },
        { "exit1", CMDFORM_RUN_FAILED, "exited with status 1" },
        { "notlaunched", CMDFORM_NOT_LAUNCHED,
          "kernel saxpy was not launched (the program launched 3 other kernels: fill)" },
        { "nocupti", CMDFORM_NO_CUPTI, "no CUPTI records were written" },
        { "nogpu", CMDFORM_NO_CUPTI, "CUPTI injection library was never loaded" },
        { "crash", CMDFORM_RUN_CRASHED, "killed by signal 11 (Segmentation fault; the shell's status 139)" },
        /* records the injection library of this run did not write: no nonce, or an
         * earlier run's lines (another nonce) replayed in front of this run's */
        { "forged", CMDFORM_RECORDS_ERROR, "without this run's nonce: not written by the injection library" },
        { "replayed", CMDFORM_RECORDS_ERROR, "(forged or replayed)" },
    };
    long live = hk_alloc_live();
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        spec *s = fake_spec(cases[i].mode);
        cmdform_options o = fake_options();
        o.runs = 3;
        cmdform_result r;
        assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
        if (r.status != cases[i].st || !r.details || !strstr(r.details, cases[i].words))
            fail_msg("%s: status %s, details: %s", cases[i].mode, cmdform_status_name(r.status),
                     r.details ? r.details : "(null)");
        assert_int_equal(r.n_runs, 0);
        assert_true(isnan(r.timing.median_ms));
        cmdform_result_clear(&r);
        spec_free(s);
    }
    assert_int_equal(hk_alloc_live(), live);
}

/* build once, run many times: baseline and candidate interleaved, each in its own copy */
static void test_steps_interleaved(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    spec *s = fake_spec("ok");
    cmdform_options o = fake_options();
    const char *cand = "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
                       "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }\n";
    cmdform_ws *wa = NULL, *wb = NULL;
    cmdform_result ra, rb;
    assert_int_equal(cmdform_prepare(s, NULL, 0, &o, &wa, &ra), HK_OK);
    assert_int_equal(cmdform_prepare(s, cand, strlen(cand), &o, &wb, &rb), HK_OK);
    assert_non_null(wa);
    assert_non_null(wb);
    assert_string_not_equal(cmdform_ws_dir(wa), cmdform_ws_dir(wb));
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cmdform_run_once(wa, &ra), HK_OK);
        assert_int_equal(cmdform_run_once(wb, &rb), HK_OK);
    }
    assert_int_equal(ra.status, CMDFORM_OK);
    assert_int_equal(rb.status, CMDFORM_OK);
    assert_int_equal(ra.n_runs, 4);
    assert_int_equal(rb.n_runs, 4);
    /* each copy counts its own runs: 3, 6, 9, 12 us */
    assert_true(fabs(rb.runs[3].kernel_ms - 0.012) < 1e-12);
    assert_true(fabs(ra.timing.median_ms - 0.0075) < 1e-12);
    assert_true(fabs(rb.timing.median_ms - 0.0075) < 1e-12);
    char p[600];
    snprintf(p, sizeof p, "%s/saxpy.cu", cmdform_ws_dir(wb));
    char *swapped = slurp(p, NULL);
    assert_non_null(strstr(swapped, "y[i] += a * x[i]"));
    free(swapped);
    char *kept = NULL;
    assert_true(cmdform_ws_keep(wb, &kept));
    cmdform_ws_free(wa);
    cmdform_ws_free(wb);
    struct stat st;
    assert_int_equal(stat(p, &st), 0); /* kept */
    char *slash = strrchr(kept, '/');
    *slash = 0;
    assert_int_equal(measure_rmtree(kept), HK_OK);
    hk_free(kept);
    cmdform_result_clear(&ra);
    cmdform_result_clear(&rb);
    spec_free(s);

    /* after a failed run, no more runs */
    s = fake_spec("fail");
    assert_int_equal(cmdform_prepare(s, NULL, 0, &o, &wa, &ra), HK_OK);
    assert_int_equal(cmdform_run_once(wa, &ra), HK_OK);
    assert_int_equal(ra.status, CMDFORM_FAIL_OUTPUT);
    assert_int_equal(cmdform_run_once(wa, &ra), HK_EINVAL);
    cmdform_ws_free(wa);
    cmdform_result_clear(&ra);
    spec_free(s);

    /* a failed build is kept for a look when asked */
    char run[512];
    snprintf(run, sizeof run, "sh %s/fake_run.sh ok", dp(""));
    s = make_spec("saxpy", "project/saxpy.cu", "project", "echo 'saxpy.cu(3): error: no' >&2; exit 2", run, NULL);
    o.keep_workspace = true;
    assert_int_equal(cmdform_prepare(s, NULL, 0, &o, &wa, &ra), HK_OK);
    assert_null(wa);
    assert_int_equal(ra.status, CMDFORM_BUILD_ERROR);
    assert_non_null(strstr(ra.details, "status 2:\nsaxpy.cu(3): error: no"));
    assert_non_null(ra.workspace);
    snprintf(p, sizeof p, "%s/check.h", ra.workspace);
    assert_int_equal(stat(p, &st), 0);
    slash = strrchr(ra.workspace, '/');
    *slash = 0;
    assert_int_equal(measure_rmtree(ra.workspace), HK_OK);
    cmdform_result_clear(&ra);
    spec_free(s);
    assert_int_equal(hk_alloc_live(), live);
}

static void test_measure_timeouts(void **state)
{
    (void)state;
    spec *s = fake_spec("sleep");
    cmdform_options o = fake_options();
    o.runs = 2;
    o.timeout_ms = 1500;
    cmdform_result r;
    time_t t0 = time(NULL);
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_RUN_TIMEOUT);
    assert_non_null(strstr(r.details, "run 1: the run command was stopped"));
    assert_true(time(NULL) - t0 < 15);
    assert_int_equal(cmdform_status_reason(r.status), MEASURE_TIMEOUT);
    cmdform_result_clear(&r);
    spec_free(s);

    char run[512];
    snprintf(run, sizeof run, "sh %s/fake_run.sh ok", dp(""));
    s = make_spec("saxpy", "project/saxpy.cu", "project", "sleep 20", run, NULL);
    t0 = time(NULL);
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_BUILD_TIMEOUT);
    assert_true(time(NULL) - t0 < 15);
    cmdform_result_clear(&r);
    spec_free(s);

    /* the spec's own timeout_s applies when the options give none */
    s = make_spec("saxpy", "project/saxpy.cu", "project", NULL, "sleep 20; echo PASS", "\"timeout_s\": 1");
    o.timeout_ms = 0;
    t0 = time(NULL);
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_RUN_TIMEOUT);
    assert_true(time(NULL) - t0 < 15);
    cmdform_result_clear(&r);
    spec_free(s);
}

static void test_measure_setup_errors(void **state)
{
    (void)state;
    cmdform_options o = fake_options();
    cmdform_result r;
    char run[512];
    snprintf(run, sizeof run, "sh %s/fake_run.sh ok", dp(""));
    long live = hk_alloc_live();

    /* the source outside the workdir */
    spec *s = make_spec("saxpy", "saxpy_candidate.cu", "project", NULL, run, NULL);
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_WORKSPACE_ERROR);
    assert_non_null(strstr(r.details, "is outside the workdir"));
    cmdform_result_clear(&r);
    spec_free(s);

    /* a kernel the source does not define */
    s = make_spec("saxpy_v2", "project/saxpy.cu", "project", NULL, run, NULL);
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_SWAP_ERROR);
    assert_non_null(strstr(r.details, "no definition of the kernel saxpy_v2"));
    cmdform_result_clear(&r);
    spec_free(s);

    /* no injection library */
    s = fake_spec("ok");
    o.cupti_lib = "/nonexistent/libhk_cupti.so";
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_NO_CUPTI);
    assert_non_null(strstr(r.details, "cannot be read"));
    cmdform_result_clear(&r);

    /* over the copy cap */
    o = fake_options();
    o.copy_max_bytes = 100;
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_WORKSPACE_ERROR);
    assert_non_null(strstr(r.details, "over 100 bytes"));
    cmdform_result_clear(&r);

    /* not a command-form spec, bad options */
    o = fake_options();
    o.runs = CMDFORM_MAX_RUNS + 1;
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_EINVAL);
    cmdform_result_clear(&r);
    spec_free(s);
    assert_int_equal(cmdform_measure(NULL, NULL, 0, NULL, &r), HK_EINVAL);
    cmdform_result_clear(&r);
    assert_int_equal(hk_alloc_live(), live);
}

/* Issue 14: the build does not hold the GPU lock (a slow build would stall every other
 * episode's timing); the timed runs do. The build and the run try the lock from a second
 * process (flock(1)) and fail the measurement when it is not as it should be. */
static void test_build_does_not_hold_the_gpu_lock(void **state)
{
    (void)state;
    if (system("command -v flock >/dev/null 2>&1") != 0)
        skip();
    char lock[512], build[1024], run[1024];
    snprintf(lock, sizeof lock, "%s/gpu.lock", tmp_root);
    setenv("HK_GPU_LOCK", lock, 1);
    snprintf(build, sizeof build,
             "flock -n %s true || { echo the GPU lock is held during the build; exit 3; }", lock);
    snprintf(run, sizeof run,
             "if flock -n %s true; then echo FAIL: the GPU lock is free during a timed run; "
             "else sh %s/fake_run.sh ok; fi", lock, dp(""));
    spec *s = make_spec("saxpy", "project/saxpy.cu", "project", build, run, NULL);
    cmdform_options o = fake_options();
    o.runs = 2;
    o.isolation = RUNNER_ISO_NONE; /* the lock file is under /tmp: no private /tmp */
    cmdform_result r;
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    if (r.status != CMDFORM_OK)
        fail_msg("%s: %s", cmdform_status_name(r.status), r.details);
    assert_int_equal(r.n_runs, 2);
    cmdform_result_clear(&r);
    spec_free(s);
    unsetenv("HK_GPU_LOCK");
}

/* ---- with nvcc: the swapped project builds, a broken candidate shows the compiler ---- */

static void test_measure_nvcc_build(void **state)
{
    (void)state;
    if (!have_nvcc())
        skip();
    char run[512];
    snprintf(run, sizeof run, "sh %s/fake_run.sh marker", dp(""));
    spec *s = make_spec("saxpy", "project/saxpy.cu", "project", "nvcc -O3 -arch=sm_90 -o saxpy saxpy.cu", run,
                        NULL);
    size_t orig_len = 0, clen = 0;
    char *orig = slurp(dp("/project/saxpy.cu"), &orig_len);
    char *cand = slurp(dp("/saxpy_candidate.cu"), &clen);
    assert_non_null(orig);
    assert_non_null(cand);
    cmdform_options o = fake_options();
    o.runs = 2;
    o.keep_workspace = true;
    cmdform_result r;
    assert_int_equal(cmdform_measure(s, cand, clen, &o, &r), HK_OK);
    if (r.status != CMDFORM_OK)
        fail_msg("%s: %s", cmdform_status_name(r.status), r.details);
    assert_int_equal(r.n_runs, 2);
    assert_true(r.build_ms > 0);
    assert_non_null(r.workspace);
    char p[600];
    snprintf(p, sizeof p, "%s/saxpy.cu", r.workspace);
    char *swapped = slurp(p, NULL);
    assert_non_null(swapped);
    assert_non_null(strstr(swapped, "HK_CANDIDATE_MARK"));
    free(swapped);
    snprintf(p, sizeof p, "%s/saxpy", r.workspace);
    struct stat st;
    assert_int_equal(stat(p, &st), 0); /* nvcc built the program from the swapped file */
    snprintf(p, sizeof p, "%s/check.h", r.workspace);
    char *h1 = slurp(p, NULL), *h2 = slurp(dp("/project/check.h"), NULL);
    assert_non_null(h1);
    assert_non_null(h2);
    assert_string_equal(h1, h2); /* other files untouched */
    free(h1);
    free(h2);
    /* the copy's root (workspace and records) is the caller's to remove */
    char *slash = strrchr(r.workspace, '/');
    *slash = 0;
    assert_int_equal(measure_rmtree(r.workspace), HK_OK);
    cmdform_result_clear(&r);
    /* the original is as it was */
    size_t now_len = 0;
    char *now = slurp(dp("/project/saxpy.cu"), &now_len);
    assert_int_equal(now_len, orig_len);
    assert_memory_equal(now, orig, orig_len);
    assert_int_not_equal(stat(dp("/project/saxpy"), &st), 0);
    free(now);

    /* a candidate that does not compile: the compiler's first error lines */
    size_t blen = 0;
    char *broken = slurp(dp("/saxpy_broken.cu"), &blen);
    o.keep_workspace = false;
    assert_int_equal(cmdform_measure(s, broken, blen, &o, &r), HK_OK);
    assert_int_equal(r.status, CMDFORM_BUILD_ERROR);
    assert_non_null(strstr(r.details, "the build command exited with status"));
    assert_non_null(strstr(r.details, "error"));
    assert_non_null(strstr(r.details, "undeclared_thing"));
    assert_int_equal(cmdform_status_reason(r.status), MEASURE_COMPILE_ERROR);
    cmdform_result_clear(&r);
    free(broken);
    free(orig);
    free(cand);
    spec_free(s);
}

/* ---- the injection library ---- */

static void test_cupti_library(void **state)
{
    (void)state;
    if (!lib_path[0])
        fail_msg("libhk_cupti.so did not build (see stderr)");
    /* only InitializeInjection is exported */
#ifdef __SANITIZE_ADDRESS__
    __lsan_disable(); /* libcupti's load-time buffer (see the child below) */
#endif
    void *h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
#ifdef __SANITIZE_ADDRESS__
    __lsan_enable();
#endif
    if (!h)
        fail_msg("dlopen %s: %s", lib_path, dlerror());
    assert_non_null(dlsym(h, "InitializeInjection"));
    assert_null(dlsym(h, "hk_write_kernel"));
    assert_null(dlsym(h, "hk_at_exit"));
    dlclose(h);

    /* Loaded and initialized in a child as the driver would: without a GPU CUPTI cannot
     * record, and the file must say so in lines the reader understands. */
    char rec[400];
    snprintf(rec, sizeof rec, "%s/init_records.jsonl", tmp_root);
    unlink(rec);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("HK_CUPTI_OUT", rec, 1);
#ifdef __SANITIZE_ADDRESS__
        /* libcupti keeps a buffer from its own initialisation for the life of the process;
         * that is not ours to free, so LeakSanitizer must not count it in this child */
        __lsan_disable();
#endif
        void *c = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
        int (*init)(void) = c ? (int (*)(void))dlsym(c, "InitializeInjection") : NULL;
        int ok = init ? init() : 0;
        exit(ok == 1 ? 0 : 1); /* exit(): the atexit trailer runs when CUPTI started */
    }
    int wst = 0;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst));
    assert_int_equal(WEXITSTATUS(wst), 0);
    char *text = slurp(rec, NULL);
    assert_non_null(text);
    assert_true(strncmp(text, "{\"event\":\"init\",\"pid\":", 22) == 0);
    free(text);
    cmdform_run run;
    enum cmdform_status st;
    char *why = NULL;
    assert_int_equal(cmdform_records_read(rec, "saxpy", &run, NULL, NULL, &st, &why), HK_OK);
    /* no GPU: CUPTI refuses (an error line); with one and no kernel: not launched */
    if (!(st == CMDFORM_NO_CUPTI && strstr(why, "CUPTI failed in process")) && st != CMDFORM_NOT_LAUNCHED)
        fail_msg("status %s: %s", cmdform_status_name(st), why ? why : "(null)");
    hk_free(why);

    /* without HK_CUPTI_OUT it writes nothing and does not fail the program */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        unsetenv("HK_CUPTI_OUT");
        void *c = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
        int (*init)(void) = c ? (int (*)(void))dlsym(c, "InitializeInjection") : NULL;
        exit(init && init() == 1 ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);

    /* cmdform_cupti_build reports what is missing */
    char *log = NULL;
    char out[400];
    snprintf(out, sizeof out, "%s/never.so", tmp_root);
    assert_int_equal(cmdform_cupti_build(NULL, out, NULL, "/nonexistent-cuda", 0, &log), HK_ENOENT);
    assert_non_null(strstr(log, "CUPTI not found under /nonexistent-cuda"));
    hk_free(log);
    const char *bad = "#include <cupti.h>\nint InitializeInjection(void) { return nope; }\n";
    char badsrc[400];
    snprintf(badsrc, sizeof badsrc, "%s/bad.c", tmp_root);
    spit(badsrc, bad);
    assert_int_equal(cmdform_cupti_build(badsrc, out, NULL, NULL, 0, &log), HK_ECHILD);
    assert_non_null(strstr(log, "nope"));
    hk_free(log);
}

/* ---- on a GPU: the real program under the real library (skipped elsewhere) ---- */

static bool have_gpu(void)
{
    return access("/dev/nvidia0", F_OK) == 0 && system("nvidia-smi -L 2>/dev/null | grep -q '^GPU '") == 0;
}

static void test_gpu_real_program(void **state)
{
    (void)state;
    if (!have_gpu() || !have_nvcc()) {
        fprintf(stderr, "skipped: no GPU\n");
        skip();
    }
    if (!lib_path[0])
        fail_msg("libhk_cupti.so did not build (see stderr)");
    spec *s = NULL;
    spec_diags d = { 0 };
    assert_int_equal(spec_load(dp("/saxpy.bench.json"), &s, &d), HK_OK);
    spec_diags_free(&d);
    cmdform_options o = { .runs = 3, .cupti_lib = lib_path, .tmp_dir = tmp_root };
    /* one saxpy launch of n = 2^24 + 17 floats moves 12 bytes per element: no GPU does that
     * in under n * 12 / 10 TB/s, and none takes 50 ms */
    const double n = (double)((1 << 24) + 17), floor_ms = n * 12.0 / 10e12 * 1e3;
    const char *texts[2] = { NULL, NULL };
    size_t lens[2] = { 0, 0 };
    char *cand = slurp(dp("/saxpy_candidate.cu"), &lens[1]);
    texts[1] = cand;
    for (int k = 0; k < 2; k++) {
        cmdform_result r;
        assert_int_equal(cmdform_measure(s, texts[k], lens[k], &o, &r), HK_OK);
        if (r.status != CMDFORM_OK)
            fail_msg("%s: %s: %s", k ? "candidate" : "baseline", cmdform_status_name(r.status), r.details);
        assert_int_equal(r.n_runs, 3);
        for (size_t i = 0; i < r.n_runs; i++) {
            assert_int_equal(r.runs[i].launches, 10);    /* main launches saxpy 10 times */
            assert_int_equal(r.runs[i].other_kernels, 12); /* and fill 12 times */
            assert_int_equal(r.runs[i].processes, 1);
            double per_launch = r.runs[i].kernel_ms / 10.0;
            if (!(per_launch > floor_ms && per_launch < 50.0))
                fail_msg("run %zu: %.6f ms per launch is not plausible (floor %.6f ms)", i, per_launch, floor_ms);
        }
        assert_int_equal(r.n_kernel_names, 1);
        assert_string_equal(r.kernel_names[0], "_Z5saxpyifPKfPf");
        fprintf(stderr, "gpu: %s saxpy: median %.4f ms per run of 10 launches (spread %.3f, build %ld ms)\n",
                k ? "candidate" : "baseline", r.timing.median_ms, r.timing.spread, r.build_ms);
        cmdform_result_clear(&r);
    }
    free(cand);

    /* a wrong candidate: the program's own check fails it */
    const char *wrong = "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
                        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i]; }\n";
    cmdform_result r;
    o.runs = 1;
    assert_int_equal(cmdform_measure(s, wrong, strlen(wrong), &o, &r), HK_OK);
    if (r.status != CMDFORM_RUN_FAILED || !strstr(r.details, "FAIL"))
        fail_msg("wrong candidate: %s: %s", cmdform_status_name(r.status), r.details ? r.details : "");
    cmdform_result_clear(&r);

    /* a candidate that launches nothing under the kernel's name cannot exist (the program
     * calls it by name), but a kernel the program never calls can: fill's spec */
    spec_free(s);
    s = make_spec("fill", "project/saxpy.cu", "project", "nvcc -O3 -arch=sm_90 -o saxpy saxpy.cu",
                  "./saxpy 1000 0", NULL);
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    if (r.status != CMDFORM_OK) /* fill runs twice even with 0 iterations */
        fail_msg("fill: %s: %s", cmdform_status_name(r.status), r.details);
    assert_int_equal(r.runs[0].launches, 2);
    cmdform_result_clear(&r);
    spec_free(s);
    s = make_spec("saxpy", "project/saxpy.cu", "project", "nvcc -O3 -arch=sm_90 -o saxpy saxpy.cu",
                  "./saxpy 1000 0", NULL);
    assert_int_equal(cmdform_measure(s, NULL, 0, &o, &r), HK_OK);
    if (r.status != CMDFORM_NOT_LAUNCHED || !strstr(r.details, "kernel saxpy was not launched"))
        fail_msg("0 iterations: %s: %s", cmdform_status_name(r.status), r.details ? r.details : "");
    cmdform_result_clear(&r);
    spec_free(s);
}

static void test_cupti_find(void **state)
{
    (void)state;
    char *p = NULL;
    char *saved = getenv("HK_CUPTI_LIB") ? strdup(getenv("HK_CUPTI_LIB")) : NULL;
    setenv("HK_CUPTI_LIB", dummy_lib, 1);
    assert_int_equal(cmdform_cupti_find(&p), HK_OK);
    assert_string_equal(p, dummy_lib);
    hk_free(p);
    setenv("HK_CUPTI_LIB", "/nonexistent/libhk_cupti.so", 1);
    assert_int_equal(cmdform_cupti_find(&p), HK_ENOENT);
    assert_null(p);
    unsetenv("HK_CUPTI_LIB");
    if (saved)
        setenv("HK_CUPTI_LIB", saved, 1);
    free(saved);
    assert_string_equal(strrchr(cmdform_cupti_source(), '/'), "/hk_cupti.c");
    if (!getenv("HK_TEST_DATA")) /* a moved tree has the source elsewhere */
        assert_int_equal(access(cmdform_cupti_source(), R_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_copy_tree),
        cmocka_unit_test(test_swap_kernel),
        cmocka_unit_test(test_swap_template_and_declaration),
        cmocka_unit_test(test_records_two_processes),
        cmocka_unit_test(test_records_problems),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_gate),
        cmocka_unit_test(test_first_lines),
        cmocka_unit_test(test_measure_fake_ok),
        cmocka_unit_test(test_measure_fake_failures),
        cmocka_unit_test(test_check_outside_kernel),
        cmocka_unit_test(test_check_outside_kernel_digraph),
        cmocka_unit_test(test_measure_host_code),
        cmocka_unit_test(test_steps_interleaved),
        cmocka_unit_test(test_measure_timeouts),
        cmocka_unit_test(test_measure_setup_errors),
        cmocka_unit_test(test_build_does_not_hold_the_gpu_lock),
        cmocka_unit_test(test_measure_nvcc_build),
        cmocka_unit_test(test_cupti_library),
        cmocka_unit_test(test_cupti_find),
        cmocka_unit_test(test_gpu_real_program),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
