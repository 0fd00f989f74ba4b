/* Unit tests of rw_invariant_table (rewrites/rewrite_table.h): the suite's rope_forward gets a
 * per-block __shared__ table of inv_freq filled before its guard, one barrier and a guarded
 * table read, re-analyses, compiles with nvcc alone (no warnings) and inside the benchmark
 * program of its spec, and its PTX reads shared memory; variants (grid-stride, double,
 * unsigned index, nested uniform locals) apply; near misses are refused with their reason;
 * every suite kernel returns cleanly, also under allocation failures; the skills list the
 * rewrite for rope. With HK_RWP_DUMP_DIR set, only the rope rewrite runs and is written
 * there as rope.invariant_table.cu (step 2 of tests/gpu/rewrite_pattern_check.sh judges it
 * with `hkls verify-candidate` on a GPU). nvcc
 * missing: compile checks say so and are skipped. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/harness.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_table.h"
#include "search/skillplan.h"
#include "spec/spec.h"
#include "skills/skills.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#define BENCH HK_SOURCE_DIR "/bench/kernels"

#include "rw_fixture.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrite-table");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* Queues text's compile to PTX as TAG (rwf_nvcc_ptx_queue: warnings fail too), where want
 * (static: read by rwf_nvcc_queued, the last test) is checked on its own PTX; the queue is
 * compiled in few nvcc runs, each text's own PTX cut back out of its batch's (nvcc_batch.h).
 * Returns false when nvcc is missing. (A text whose PTX is not read is queued with
 * rwf_nvcc_compiles_strict, checked by rwf_nvcc_queued in the same runs.) */
static bool nvcc_ptx(const char *text, const char *tag, const rwf_ptx_want *want)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, compile check of %s skipped\n", NVCC, tag);
        return false;
    }
    rwf_nvcc_ptx_queue(text, tag, true, rwf_ptx_has_lacks, want);
    return true;
}

/* The candidate inside the benchmark program of bench/kernels/<kname>.bench.json compiles. */
static void compiles_in_harness(const char *kname, const char *candidate)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.bench.json", BENCH, kname);
    spec *sp = NULL;
    spec_diags d = {0};
    assert_int_equal(spec_load(path, &sp, &d), HK_OK);
    assert_int_equal(d.n_errors, 0);
    spec_diags_free(&d);
    if (access(NVCC, X_OK) == 0) {
        char prog[1024], obj[1024], cmd[8192], out[8192];
        snprintf(prog, sizeof prog, "%s/harness-%s.cu", tmpdir, kname);
        snprintf(obj, sizeof obj, "%s/harness-%s.o", tmpdir, kname);
        assert_int_equal(harness_write(sp, candidate, prog), HK_OK);
        char **argv = NULL;
        const char *const extra[] = {"-cubin", NULL};
        assert_int_equal(harness_nvcc_argv(sp, NVCC, "sm_90", NULL, extra, prog, obj, &argv), HK_OK);
        size_t n = 0;
        for (size_t i = 0; argv[i] && n < sizeof cmd - 600; i++)
            n += (size_t)snprintf(cmd + n, sizeof cmd - n, "'%s' ", argv[i]);
        snprintf(cmd + n, sizeof cmd - n, "2>&1");
        int st = run_cmd(cmd, out, sizeof out);
        if (st != 0)
            print_message("%s: %s\n%s\n", kname, cmd, out);
        assert_int_equal(st, 0);
        harness_argv_free(argv);
    } else {
        print_message("note: no nvcc at %s, harness compile of %s skipped\n", NVCC, kname);
    }
    spec_free(sp);
}

static void assert_has(const char *text, const char *s)
{
    if (!strstr(text, s))
        print_message("missing `%s` in:\n%s\n", s, text);
    assert_non_null(strstr(text, s));
}

static size_t pos(const char *text, const char *s)
{
    const char *p = strstr(text, s);
    if (!p)
        print_message("missing `%s` in:\n%s\n", s, text);
    assert_non_null(p);
    return (size_t)(p - text);
}

/* The rewrite re-analyses cleanly and keeps the kernel's signature. */
static void check_reanalyses(const fixture *fx, size_t k, const rw_result *r)
{
    assert_true(r->applicable);
    assert_non_null(r->text);
    assert_int_equal(strlen(r->text), r->len);
    an_model *m;
    assert_int_equal(an_analyze(r->text, r->len, &m), HK_OK);
    assert_false(m->has_errors);
    long k2 = an_model_find_kernel(m, fx->m->funcs[k].name);
    assert_true(k2 >= 0);
    assert_string_equal(m->funcs[k2].signature, fx->m->funcs[k].signature);
    an_model_free(m);
}

static void dump(const char *kname, const rw_result *r)
{
    const char *dir = getenv("HK_RWP_DUMP_DIR");
    if (!dir || !*dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.invariant_table.cu", dir, kname);
    rwf_write_file(path, r->text);
    print_message("wrote %s\n", path);
}

/* rope_forward: table fill at the top (before the guard), one barrier, the guarded read. */
static void test_rope(void **state)
{
    (void)state;
    bool dump_only = getenv("HK_RWP_DUMP_DIR") && *getenv("HK_RWP_DUMP_DIR");
    fixture fx;
    load_path(BENCH "/rope.cu", &fx);
    size_t k = kernel(&fx, "rope_forward");
    rw_result r;
    assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, k, 0, &r), HK_OK);
    if (!r.applicable)
        print_message("%s\n", r.description);
    check_reanalyses(&fx, k, &r);
    dump("rope", &r);   /* named after the spec file, as rewrite_pattern_check.sh wants */
    if (dump_only) {
        rw_result_free(&r);
        unload(&fx);
        return;
    }
    const char *t = r.text;
    assert_has(r.description, "inv_freq");
    assert_has(r.description, "bit-identical");
    assert_has(t, "constexpr int HK_TABLE = 1024;");
    assert_has(t, "__shared__ float hk_tab[HK_TABLE];");
    assert_has(t, "int half = dim / 2;\n        hk_k = (long long)(half);");
    assert_has(t, "const int j = (int)hk_t;");
    assert_has(t, "hk_tab[hk_t] = 1.0f / powf(base, (2.0f * j) / dim);");
    assert_has(t, "float inv_freq = (hk_tab_on && (long long)(j) >= 0 && (long long)(j) < hk_k) ? "
                  "hk_tab[j] : (1.0f / powf(base, (2.0f * j) / dim));");
    /* order: fill, barrier, then the original guard and the read */
    size_t fill = pos(t, "hk_tab[hk_t] ="), bar = pos(t, "__syncthreads();"), guard = pos(t, "if (pair >= pairs)"),
           read = pos(t, "? hk_tab[j]");
    assert_true(fill < bar && bar < guard && guard < read);
    /* exactly one barrier; the original lines stay */
    assert_null(strstr(t + bar + 1, "__syncthreads"));
    assert_has(t, "int j = pair % half;");
    assert_has(t, "sincosf((float)t * inv_freq, &s, &c);");

    /* the table read and the barrier are in the machine code; the original has neither */
    static const rwf_ptx_want rope_want = {.has = {"ld.shared.f32", "bar.sync"}},
                              base_want = {.lacks = {"ld.shared"}};
    if (nvcc_ptx(t, "rope", &rope_want)) {
        nvcc_ptx(fx.text, "rope_base", &base_want);
        char cand[1024];
        snprintf(cand, sizeof cand, "%s/cand-rope.cu", tmpdir);
        rwf_write_file(cand, t);
        compiles_in_harness("rope", cand);
    }

    /* a second application finds its own table */
    fixture fx2;
    load_text(t, &fx2);
    rw_result r2;
    assert_int_equal(rw_invariant_table(fx2.text, fx2.len, fx2.m, kernel(&fx2, "rope_forward"), 0, &r2), HK_OK);
    assert_false(r2.applicable);
    assert_has(r2.description, "already has an invariant table");
    rw_result_free(&r2);
    unload(&fx2);

    /* the table size is the parameter; out of range is refused */
    rw_result_free(&r);
    assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, k, 64, &r), HK_OK);
    assert_true(r.applicable);
    assert_has(r.text, "constexpr int HK_TABLE = 64;");
    rw_result_free(&r);
    assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, k, -1, &r), HK_EINVAL);
    assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, k, 20000, &r), HK_EINVAL);
    assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, k, 0, NULL), HK_EINVAL);
    assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, fx.m->n_funcs, 0, &r), HK_EINVAL);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* s after its leading `//` comment lines and a HIP runtime include. */
static const char *skip_header(const char *s)
{
    while (!strncmp(s, "//", 2) || !strncmp(s, "#include <hip/hip_runtime.h>", 28)) {
        const char *nl = strchr(s, '\n');
        if (!nl)
            break;
        s = nl + 1;
    }
    return s;
}

/* Text of path (static buffer) or NULL. */
static const char *read_small(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The skills' sample kernel (tests/data/skills/kernels/invariant_table.cu) rewrites to
 * exactly the code of the after/ files its SASS/ISA evidence is proven on. */
/* rope_forward after the grid-stride rewrite: the table is filled once per block, before
 * the loop, so a persistent block (an SM-multiple grid) pays for it once. */
static void test_rope_grid_stride(void **state)
{
    (void)state;
    fixture fx;
    load_path(BENCH "/rope.cu", &fx);
    rw_result g;
    assert_int_equal(rw_grid_stride(fx.text, fx.len, fx.m, kernel(&fx, "rope_forward"), &g), HK_OK);
    assert_true(g.applicable);
    fixture fg;
    load_text(g.text, &fg);
    rw_result r;
    assert_int_equal(rw_invariant_table(fg.text, fg.len, fg.m, kernel(&fg, "rope_forward"), 0, &r), HK_OK);
    if (!r.applicable)
        print_message("%s\n", r.description);
    assert_true(r.applicable);
    dump("rope_grid_stride", &r);
    const char *t = r.text;
    /* fill, barrier, then the grid-stride loop with the table read inside it */
    size_t fill = pos(t, "hk_tab[hk_t] ="), bar = pos(t, "__syncthreads();"),
           loop = pos(t, "pair += (long)gridDim.x * blockDim.x"), read = pos(t, "? hk_tab[j]");
    assert_true(fill < bar && bar < loop && loop < read);
    assert_null(strstr(t + bar + 1, "__syncthreads"));
    /* half, declared inside the loop from dim alone, is copied into the fill's block */
    assert_true(pos(t, "int half = dim / 2;\n        hk_k = (long long)(half);") < bar);
    static const rwf_ptx_want gs_want = {.has = {"ld.shared.f32"}};
    nvcc_ptx(t, "rope_gs", &gs_want);
    rw_result_free(&r);
    unload(&fg);
    rw_result_free(&g);
    unload(&fx);
}

static void test_skill_sample(void **state)
{
    (void)state;
    fixture fx;
    load_path(HK_TEST_DATA "/skills/kernels/invariant_table.cu", &fx);
    rw_result r;
    assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, kernel(&fx, "add_positional"), 0, &r), HK_OK);
    if (!r.applicable)
        print_message("%s\n", r.description);
    check_reanalyses(&fx, kernel(&fx, "add_positional"), &r);
    const char *const after[] = {HK_TEST_DATA "/skills/after/cuda/invariant_table.cu",
                                 HK_TEST_DATA "/skills/after/hip/invariant_table.hip"};
    for (size_t i = 0; i < HK_ARRAY_LEN(after); i++) {
        const char *file = read_small(after[i]);
        if (!file || strcmp(skip_header(file), skip_header(r.text)) != 0) {
            /* the whole rewrite for regenerating the file (print_message cuts long text) */
            char path[700];
            snprintf(path, sizeof path, "%s/invariant_table.sample.cu", HK_BINARY_DIR);
            FILE *f = fopen(path, "w");
            if (f) {
                fputs(r.text, f);
                fclose(f);
            }
            print_message("%s differs from the rewrite, which is in %s\n", after[i], path);
        }
        assert_non_null(file);
        assert_string_equal(skip_header(file), skip_header(r.text));
    }
    rwf_nvcc_compiles_strict(r.text, "sample");
    rw_result_free(&r);
    unload(&fx);
}

/* Shapes that apply: each compiles without warnings and holds the listed strings. */
static void test_variants(void **state)
{
    (void)state;
    static const struct {
        const char *tag, *src;
        const char *want[4];
    } cases[] = {
        {"grid_stride_double",
         "__global__ void k(const double *x, double *y, long n, int half, double base)\n"
         "{\n"
         "    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {\n"
         "        long j = i % half;\n"
         "        const double f = exp(-log(base) * j / half);\n"
         "        y[i] = x[i] * f;\n"
         "    }\n"
         "}\n",
         {"__shared__ double hk_tab[HK_TABLE];", "const long j = (long)hk_t;",
          "const double f = (hk_tab_on && (long long)(j) >= 0", "hk_k = (long long)(half);"}},
        {"unsigned_index",
         "__global__ void k(const float *x, float *y, unsigned n, unsigned dim, float base)\n"
         "{\n"
         "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    const unsigned q = dim / 4u;\n"
         "    const unsigned period = q * 2u;\n"
         "    if (i >= n) return;\n"
         "    unsigned j = i % period;\n"
         "    float a = sinf(3.0f * j / (float)period) + __expf(-(float)j);\n"
         "    y[i] = x[i] * a;\n"
         "}\n",
         {"const unsigned q = dim / 4u;\n        const unsigned period = q * 2u;", "const unsigned j = (unsigned)hk_t;",
          "float a = (hk_tab_on", NULL}},
        {"parenthesized",
         "__global__ void k(float *y, int n, int period)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i >= n) return;\n"
         "    const int j = (i % period);\n"
         "    float g = erff((float)j / period) * log1pf((float)j);\n"
         "    y[i] = g;\n"
         "}\n",
         {"hk_k = (long long)(period);", "const int j = (int)hk_t;", "float g = (hk_tab_on", NULL}},
        {"define_and_template",
         "#define HALF (128 / 2)\n"
         "template <int STEPS>\n"
         "__global__ void k(float *y, int n, float base)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i >= n) return;\n"
         "    int j = i % HALF;\n"
         "    float f = powf(base, (float)j / STEPS);\n"
         "    y[i] = f;\n"
         "}\n"
         "template __global__ void k<8>(float *, int, float);\n",
         {"hk_k = (long long)(HALF);", "hk_tab[hk_t] = powf(base, (float)j / STEPS);", NULL, NULL}},
        {"blockdim_range",
         "__global__ void k(float *y, int n)\n"
         "{\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i < n) {\n"
         "        int j = i % (int)blockDim.x;\n"
         "        float w = cosf(6.2831853f * j / blockDim.x);\n"
         "        y[i] *= w;\n"
         "    }\n"
         "}\n",
         {"hk_k = (long long)((int)blockDim.x);", "float w = (hk_tab_on", NULL, NULL}},
    };
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        fixture fx;
        load_text(cases[c].src, &fx);
        rw_result r;
        assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, kernel(&fx, "k"), 0, &r), HK_OK);
        if (!r.applicable)
            print_message("%s: %s\n", cases[c].tag, r.description);
        check_reanalyses(&fx, kernel(&fx, "k"), &r);
        for (size_t i = 0; i < HK_ARRAY_LEN(cases[c].want) && cases[c].want[i]; i++)
            assert_has(r.text, cases[c].want[i]);
        rwf_nvcc_compiles_strict(r.text, cases[c].tag);
        rw_result_free(&r);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

/* Near misses: not applicable, with the reason. */
static void test_not_applicable(void **state)
{
    (void)state;
#define HEAD "__global__ void k(const float *x, const float *w, float *y, const int *n_ptr, int n, int dim, float base)\n{\n" \
             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n"
    static const struct {
        const char *tag, *src, *why;
    } cases[] = {
        {"reads_memory", HEAD "    int half = dim / 2;\n    int j = i % half;\n"
                              "    float f = w[j] * powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "reads memory"},
        {"thread_index", HEAD "    int half = dim / 2;\n    int j = i % half;\n"
                              "    float f = powf(base, (float)(j + threadIdx.x));\n    y[i] = x[i] * f;\n}\n",
         "thread or block index"},
        {"k_loaded", HEAD "    int half = n_ptr[0];\n    int j = i % half;\n"
                          "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "range K of `j = ... % K` is not uniform: `half`"},
        {"k_per_thread", HEAD "    int j = i % (threadIdx.x + 1);\n"
                              "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "range K of `j = ... % K` is not uniform: `threadIdx`"},
        {"k_from_index", HEAD "    int half = i / 2 + 1;\n    int j = i % half;\n"
                              "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "not uniform: `half`"},
        {"cheap", HEAD "    int half = dim / 2;\n    int j = i % half;\n"
                       "    float f = j * 2.0f;\n    y[i] = x[i] * f;\n}\n",
         "calls no costly math function"},
        {"no_mod", HEAD "    int j = i / 2;\n"
                        "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "no declaration `T j = A % K;`"},
        {"conditional", HEAD "    int half = dim / 2;\n    int j = half > 0 ? i % half : 0;\n"
                             "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "no declaration `T j = A % K;`"},
        {"macro_of_a_name", "#define PERIOD n\n" HEAD "    int j = i % PERIOD;\n"
                                "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "not uniform: `PERIOD`"},
        {"no_value", HEAD "    int half = dim / 2;\n    int j = i % half;\n    y[i] = x[i] * j;\n}\n",
         "no float/double declaration"},
        {"param_written", HEAD "    dim += 2;\n    int half = dim / 2;\n    int j = i % half;\n"
                               "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "not uniform: `half`"},
        {"base_written", HEAD "    int half = dim / 2;\n    int j = i % half;\n    base *= 2.0f;\n"
                              "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "the body writes this parameter"},
        {"index_written", HEAD "    int half = dim / 2;\n    int j = i % half;\n    j += 1;\n"
                               "    float f = powf(base, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "written or declared more than once"},
        {"local_per_thread", HEAD "    int half = dim / 2;\n    int j = i % half;\n    float s = x[i];\n"
                                  "    float f = powf(s, (float)j);\n    y[i] = x[i] * f;\n}\n",
         "`s`: it is not uniform"},
        {"unknown_call", HEAD "    int half = dim / 2;\n    int j = i % half;\n"
                              "    float f = powf(base, my_scale(j));\n    y[i] = x[i] * f;\n}\n",
         "`my_scale`: it calls a function that is not a known pure math function"},
        {"pointer_param", HEAD "    int half = dim / 2;\n    int j = i % half;\n"
                               "    float f = powf(base, (float)j) + *w;\n    y[i] = x[i] * f;\n}\n",
         "reads memory through a pointer"},
    };
#undef HEAD
    static const char prelude[] = "__device__ float my_scale(int j) { return (float)j; }\n";
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        char src[4096];
        snprintf(src, sizeof src, "%s%s", prelude, cases[c].src);
        fixture fx;
        load_text(src, &fx);
        rw_result r;
        assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, kernel(&fx, "k"), 0, &r), HK_OK);
        assert_non_null(r.description);
        if (r.applicable || !strstr(r.description, cases[c].why))
            print_message("%s: expected not applicable with `%s`, got %s: %s\n%s\n", cases[c].tag, cases[c].why,
                          r.applicable ? "applicable" : "not applicable", r.description, r.text ? r.text : "");
        assert_false(r.applicable);
        assert_null(r.text);
        assert_non_null(strstr(r.description, cases[c].why));
        rw_result_free(&r);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

/* Every suite kernel: HK_OK or HK_EPARSE, a description always, no crash or leak; the
 * launchers are refused as HK_EINVAL. rope_forward applies. */
static void test_all_suite_kernels(void **state)
{
    (void)state;
    DIR *d = opendir(BENCH);
    assert_non_null(d);
    struct dirent *de;
    size_t n_files = 0;
    bool rope = false;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 3, ".cu") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", BENCH, de->d_name);
        fixture fx;
        load_path(path, &fx);
        n_files++;
        for (size_t k = 0; k < fx.m->n_funcs; k++) {
            rw_result r;
            int rc = rw_invariant_table(fx.text, fx.len, fx.m, k, 0, &r);
            if (fx.m->funcs[k].kind != AN_KERNEL) {
                assert_int_equal(rc, HK_EINVAL);
                continue;
            }
            assert_true(rc == HK_OK || rc == HK_EPARSE);
            assert_non_null(r.description);
            print_message("%-16s %s\n", fx.m->funcs[k].name, r.applicable ? "applicable" : r.description);
            if (r.applicable)
                rope |= strcmp(fx.m->funcs[k].name, "rope_forward") == 0;
            rw_result_free(&r);
        }
        unload(&fx);
    }
    closedir(d);
    assert_true(n_files >= 10);
    assert_true(rope);
    assert_int_equal(hk_alloc_live(), 0);
}

static int invariant_table_of(const fixture *fx, size_t k, rw_result *r)
{
    return rw_invariant_table(fx->text, fx->len, fx->m, k, 0, r);
}

/* Allocation failures anywhere give HK_ENOMEM (or a clean result), never a crash or leak. */
static void test_alloc_failures(void **state)
{
    (void)state;
    fixture fx;
    load_path(BENCH "/rope.cu", &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "rope_forward"), invariant_table_of);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The skills offer invariant_table for rope on every arch when it is memory-bound at 40%
 * of its roofline (the H200 baseline), and the offered choice applies; not for softmax. */
static void test_skill_plan(void **state)
{
    (void)state;
    sk_set *skills = NULL;
    char err[1024];
    assert_int_equal(sk_load_dir(HK_SOURCE_DIR "/skills", &skills, err, sizeof err), HK_OK);
    static const struct {
        const char *file, *kernel, *arch;
        bool listed;
    } cases[] = {{"rope", "rope_forward", "sm_90", true},   {"rope", "rope_forward", "sm_80", true},
                 {"rope", "rope_forward", "gfx906", true},  {"softmax", "softmax", "sm_90", false},
                 {"vector_add", "vector_add", "sm_90", false}};
    sk_metrics mt;
    sk_metrics_init(&mt);
    mt.v[SK_M_ROOFLINE_PCT] = 40;
    mt.v[SK_M_DRAM_PCT_OF_PEAK] = 40;
    for (size_t c = 0; c < HK_ARRAY_LEN(cases); c++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.cu", BENCH, cases[c].file);
        if (access(path, R_OK) != 0)
            continue;
        fixture fx;
        load_path(path, &fx);
        skillplan p;
        assert_int_equal(skillplan_build(skills, cases[c].arch, SK_MEMORY_BOUND, &mt, fx.text, fx.len, &p), HK_OK);
        size_t at = p.n;
        for (size_t i = 0; i < p.n && at == p.n; i++)
            if (!strcmp(p.v[i].rewrite, "invariant_table"))
                at = i;
        if (cases[c].listed != (at < p.n))
            print_message("%s on %s: invariant_table %s\n", cases[c].kernel, cases[c].arch,
                          at < p.n ? "listed" : "not listed");
        assert_int_equal(cases[c].listed, at < p.n);
        if (at < p.n) {
            rw_result r;
            assert_int_equal(rw_invariant_table(fx.text, fx.len, fx.m, kernel(&fx, cases[c].kernel),
                                                p.v[at].params[0], &r),
                             HK_OK);
            assert_true(r.applicable);
            rw_result_free(&r);
        }
        skillplan_free(&p);
        unload(&fx);
    }
    sk_set_free(skills);
}

int main(void)
{
    hk_alloc_init_json();
    const char *dir = getenv("HK_RWP_DUMP_DIR");
    const struct CMUnitTest dump_only[] = {cmocka_unit_test(test_rope), cmocka_unit_test(test_rope_grid_stride)};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rope),          cmocka_unit_test(test_rope_grid_stride),
        cmocka_unit_test(test_skill_sample),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_not_applicable), cmocka_unit_test(test_all_suite_kernels),
        cmocka_unit_test(test_alloc_failures), cmocka_unit_test(test_skill_plan),
        cmocka_unit_test(rwf_nvcc_queued),
    };
    if (dir && *dir)
        return cmocka_run_group_tests(dump_only, setup, teardown);
    return cmocka_run_group_tests(tests, setup, teardown);
}
