/* The generated benchmark program built for DCU / AMD targets: the suite's plain-CUDA
 * kernels, a HIP kernel launched with hipLaunchKernelGGL (tests/data/analysis/vadd.hip) and
 * a CUDA kernel using __shfl_down_sync and __nv_bfloat16 go through harness_generate and
 * harness_nvcc_argv's hipcc form, and the real hipcc builds them for gfx906 and gfx90a; so
 * do the engine's structural rewrites of five suite kernels (warp reduce, tiled transpose,
 * privatized histogram and lane-replica histogram, online softmax, tiled GEMM), as a DCU
 * episode proposes them. The first gfx906 program and the gfx90a one are built alone, as
 * the product builds a program; the other gfx906 programs are built as one program, each
 * its generated file verbatim in a namespace of its own (batch, issue 14: CI time), each
 * answering from it; a batch that fails is rebuilt one program at a time.
 * Candidates including CUDA headers build through measure.c's shims (of hk_hip.h), device-only
 * as every DCU candidate: measure.c's build is a hipcc --genco code object plus the shared
 * launcher built with hipcc, which holds no candidate text and loads the image with
 * hipModuleLoad (test_measure_device_only; the program form tested here is what the
 * engine's own hipBLAS substitution still uses).
 * The programs then run here: with no AMD GPU they must say so (exit HK_EXIT_NO_GPU, one
 * JSON line), and a bad command line is a usage error before any device is touched (every
 * program of the batch is run with one).
 * Skipped with a message when hipcc is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "compile/compile.h"
#include "core/hk.h"
#include "measure/harness.h"
#include "measure/measure.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_hist.h"
#include "rewrites/rewrite_pattern.h"
#include "spec/spec.h"
#include "prog_batch.h"

#define SUITE HK_SOURCE_DIR "/bench/kernels/"
#define DCU_DATA HK_TEST_DATA "/dcu/"

static char *hipcc;
static char workdir[] = "/tmp/hk-test-harness-hip-XXXXXX";

/* The engine's structural rewrites (what the optimize stage proposes on a DCU too). */
enum rewrite { RW_NONE, RW_WARP_REDUCE, RW_TILED_TRANSPOSE, RW_HISTOGRAM, RW_SOFTMAX,
               RW_GEMM, RW_HISTOGRAM_LANES };

/* One program to build: a spec (its source is the candidate, rewritten when rw is set) for
 * one arch. */
typedef struct {
    const char *tag, *spec_path, *kernel, *arch;
    pid_t pid;
    int status;
    char exe[600], log[600];
    enum rewrite rw;
} build;

static build builds[] = {
    { "vector_add-906", SUITE "vector_add.bench.json", "vector_add", "gfx906", -1, -1, "", "", RW_NONE },
    { "saxpy-906", SUITE "saxpy.bench.json", "saxpy", "gfx906", -1, -1, "", "", RW_NONE },
    { "reduce_sum-906", SUITE "reduce_sum.bench.json", "reduce_sum", "gfx906", -1, -1, "", "", RW_NONE },
    { "transpose-906", SUITE "transpose.bench.json", "transpose", "gfx906", -1, -1, "", "", RW_NONE },
    { "stencil2d-906", SUITE "stencil2d.bench.json", "stencil2d", "gfx906", -1, -1, "", "", RW_NONE },
    { "vadd_hip-906", DCU_DATA "vadd.bench.json", "vadd", "gfx906", -1, -1, "", "", RW_NONE },
    { "warp_sum-906", DCU_DATA "warp_sum.bench.json", "warp_sum", "gfx906", -1, -1, "", "", RW_NONE },
    /* a __constant__ mask set by symbol, and the candidate's own cudaMemcpyToSymbol */
    { "conv_mask-906", HK_TEST_DATA "/specs/conv_mask.bench.json", "conv2d", "gfx906", -1, -1, "", "",
      RW_NONE },
    /* gfx90a: the generated text is the same for every arch, only --offload-arch differs
     * (test_argv checks that form), so one program with shared memory and barriers shows
     * that the second arch builds; four more (vector_add, saxpy, transpose, vadd) compiled
     * hipcc's support for gfx90a again, not this program (issue 14: CI time) */
    { "reduce_sum-90a", SUITE "reduce_sum.bench.json", "reduce_sum", "gfx90a", -1, -1, "", "", RW_NONE },
    { "rw-reduce-906", SUITE "reduce_sum.bench.json", "reduce_sum", "gfx906", -1, -1, "", "",
      RW_WARP_REDUCE },
    { "rw-transpose-906", SUITE "transpose.bench.json", "transpose", "gfx906", -1, -1, "", "",
      RW_TILED_TRANSPOSE },
    { "rw-histogram-906", SUITE "histogram.bench.json", "histogram", "gfx906", -1, -1, "", "",
      RW_HISTOGRAM },
    { "rw-histogram-lanes-906", SUITE "histogram.bench.json", "histogram", "gfx906", -1, -1, "", "",
      RW_HISTOGRAM_LANES },
    { "rw-softmax-906", SUITE "softmax.bench.json", "softmax", "gfx906", -1, -1, "", "",
      RW_SOFTMAX },
    { "rw-sgemm-906", SUITE "sgemm.bench.json", "sgemm", "gfx906", -1, -1, "", "", RW_GEMM },
};

/* The rewritten source of b's kernel written to path. */
static void write_rewrite(const build *b, const char *source, const char *path)
{
    FILE *f = fopen(source, "rb");
    assert_non_null(f);
    char *text = hk_calloc(1, 1 << 20);
    assert_non_null(text);
    size_t len = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    long k = an_model_find_kernel(m, b->kernel);
    assert_true(k >= 0);
    rw_result r;
    memset(&r, 0, sizeof r);
    int rc = HK_EINVAL;
    switch (b->rw) {
    case RW_WARP_REDUCE: rc = rw_warp_reduce(text, len, m, (size_t)k, &r); break;
    case RW_TILED_TRANSPOSE: rc = rw_tiled_transpose(text, len, m, (size_t)k, 32, &r); break;
    case RW_HISTOGRAM: rc = rw_privatized_histogram(text, len, m, (size_t)k, 0, &r); break;
    case RW_HISTOGRAM_LANES: rc = rw_histogram_lane_replicas(text, len, m, (size_t)k, 0, &r); break;
    case RW_SOFTMAX: rc = rw_online_softmax(text, len, m, (size_t)k, &r); break;
    case RW_GEMM: rc = rw_tiled_gemm(text, len, m, (size_t)k, 128, 128, 8, &r); break;
    case RW_NONE: break;
    }
    assert_int_equal(rc, HK_OK);
    assert_non_null(r.text);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(r.text, 1, strlen(r.text), f), strlen(r.text));
    fclose(f);
    rw_result_free(&r);
    an_model_free(m);
    hk_free(text);
}

static spec *load_clean(const char *path)
{
    spec_diags d = { 0 };
    spec *s = NULL;
    int rc = spec_load(path, &s, &d);
    for (size_t i = 0; i < d.n; i++) {
        char *m = spec_diag_format(&d.items[i], path);
        fprintf(stderr, "%s\n", m ? m : "(no memory)");
        hk_free(m);
    }
    spec_diags_free(&d);
    assert_int_equal(rc, HK_OK);
    return s;
}

/* Runs argv with stdout+stderr into log; returns the pid. */
static pid_t spawn(char **argv, const char *log)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
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

/* Writes b's program into dir as STEM.cu (its rewritten candidate, when rw is set, as
 * STEM.kernel.cu beside it); b->exe and b->log: dir/STEM and dir/STEM.log. Returns the spec. */
static spec *write_program(build *b, const char *dir, const char *stem)
{
    spec *s = load_clean(b->spec_path);
    char cu[600], cand[600];
    snprintf(cu, sizeof cu, "%s/%s.cu", dir, stem);
    snprintf(b->exe, sizeof b->exe, "%s/%s", dir, stem);
    snprintf(b->log, sizeof b->log, "%s/%s.log", dir, stem);
    assert_non_null(s->source_path);
    snprintf(cand, sizeof cand, "%s", s->source_path);
    if (b->rw != RW_NONE) {
        snprintf(cand, sizeof cand, "%s/%s.kernel.cu", dir, stem);
        write_rewrite(b, s->source_path, cand);
    }
    assert_int_equal(harness_write(s, cand, cu), HK_OK);
    return s;
}

/* as measure.c asks for a DCU build: clang's resource remarks, and an nvcc-only flag that
 * must be translated (fast math) and one that must be dropped (-Xptxas -v) */
static const char *const hip_extra[] = { "-Rpass-analysis=kernel-resource-usage",
                                         "--use_fast_math", "-Xptxas", "-v" };

/* Starts hipcc on s's program cu for arch, output exe, its messages in log; more: further
 * arguments (NULL-ended, may be NULL) after hip_extra. Returns the pid. */
static pid_t start_hipcc(const spec *s, const char *arch, const char *cu, const char *exe,
                         const char *log, const char *const *more)
{
    const char *extra[64];
    size_t n = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(hip_extra); i++)
        extra[n++] = hip_extra[i];
    for (; more && *more; more++) {
        assert_true(n + 1 < HK_ARRAY_LEN(extra));
        extra[n++] = *more;
    }
    extra[n] = NULL;
    char **argv = NULL;
    assert_int_equal(harness_nvcc_argv(s, hipcc, arch, HK_SOURCE_DIR "/include", extra, cu, exe,
                                       &argv),
                     HK_OK);
    pid_t pid = spawn(argv, log);
    harness_argv_free(argv);
    return pid;
}

/* One program built alone, in workdir/TAG (the product's form: its own hipcc run). */
static void start(build *b)
{
    char dir[400], cu[600];
    snprintf(dir, sizeof dir, "%s/%s", workdir, b->tag);
    assert_int_equal(mkdir(dir, 0755), 0);
    spec *s = write_program(b, dir, "bench");
    snprintf(cu, sizeof cu, "%s/bench.cu", dir);
    b->pid = start_hipcc(s, b->arch, cu, b->exe, b->log, NULL);
    spec_free(s);
}

/* Issue 14 (CI time): the gfx906 programs but the first (which test_runs runs as the
 * product builds it) are compiled as one program (prog_batch.h): each generated file
 * verbatim in a namespace of its own, where its main is an ordinary function, and a main
 * that runs the one its first argument names (test_builds runs each). One hipcc run
 * instead of one each: clang, the bundler and lld start once, hk_harness.h is compiled
 * once. The batch holds the programs whose candidates include the same system headers as
 * most do (prog_batch.h's rules); the others, and every program of a batch that fails, are
 * compiled alone. A spec with compile flags of its own is never batched. The programs'
 * files lie in workdir/batch, named by their tags, so that a message names its text. */
#define BATCH_ARCH "gfx906"
static struct {
    build all;        /* the batch's program: exe, log, pid, status (tag "batch") */
    size_t n;
    size_t idx[HK_ARRAY_LEN(builds)]; /* the builds in it, in namespace order hk_hb_1... */
    bool failed;      /* it did not build: its programs were compiled alone */
} batch = { .all = { .tag = "batch", .pid = -1, .status = -1 } };
/* the builds written in workdir/batch (the batch's and the other candidates for it) */
static bool in_batch_dir[HK_ARRAY_LEN(builds)];

static bool in_batch(const build *b)
{
    for (size_t k = 0; k < batch.n; k++)
        if (&builds[batch.idx[k]] == b)
            return true;
    return false;
}

/* Writes the gfx906 programs but the first (those of specs without compile flags) into
 * workdir/batch, fills batch.idx with those whose candidates' includes are the most
 * common set, and writes workdir/batch/batch.cu. */
static void batch_write(void)
{
    char dir[400], cu[600];
    snprintf(dir, sizeof dir, "%s/batch", workdir);
    assert_int_equal(mkdir(dir, 0755), 0);
    size_t cand_idx[HK_ARRAY_LEN(builds)], n_cand = 0;
    char *inc[HK_ARRAY_LEN(builds)], *und[HK_ARRAY_LEN(builds)];
    for (size_t i = 1; i < HK_ARRAY_LEN(builds); i++) {
        if (strcmp(builds[i].arch, BATCH_ARCH))
            continue;
        build *b = &builds[i];
        spec *s = write_program(b, dir, b->tag);
        in_batch_dir[i] = true;
        char cand[700];
        if (b->rw != RW_NONE)
            snprintf(cand, sizeof cand, "%s/%s.kernel.cu", dir, b->tag);
        else
            snprintf(cand, sizeof cand, "%s", s->source_path);
        if (!s->n_compile_flags && pb_scan(cand, &inc[n_cand], &und[n_cand]))
            cand_idx[n_cand++] = i;
        spec_free(s);
    }
    /* the most common include set (the first such, on a tie) */
    size_t best = 0, best_count = 0;
    for (size_t c = 0; c < n_cand; c++) {
        size_t count = 0;
        for (size_t d = 0; d < n_cand; d++)
            count += !strcmp(inc[c], inc[d]);
        if (count > best_count) {
            best = c;
            best_count = count;
        }
    }
    const char *files[HK_ARRAY_LEN(builds)];
    char *undefs[HK_ARRAY_LEN(builds)], names[HK_ARRAY_LEN(builds)][128];
    for (size_t c = 0; c < n_cand && best_count > 1; c++)
        if (!strcmp(inc[c], inc[best])) {
            build *b = &builds[cand_idx[c]];
            snprintf(names[batch.n], sizeof names[batch.n], "%s.cu", b->tag);
            files[batch.n] = names[batch.n];
            undefs[batch.n] = und[c];
            batch.idx[batch.n++] = cand_idx[c];
        }
    if (batch.n) {
        snprintf(cu, sizeof cu, "%s/batch.cu", dir);
        FILE *f = fopen(cu, "wb");
        assert_non_null(f);
        pb_write(f, "hk_hb", "hk_harness.h", inc[best], files, undefs, batch.n);
        fprintf(f, "\nint main(int argc, char **argv)\n{\n");
        for (size_t k = 0; k < batch.n; k++)
            fprintf(f, "    if (argc > 1 && !strcmp(argv[1], \"%s\"))\n"
                       "        return hk_hb_%zu::main(argc - 1, argv + 1);\n",
                    builds[batch.idx[k]].tag, k + 1);
        fprintf(f, "    fprintf(stderr, \"name one of the programs\\n\");\n    return 2;\n}\n");
        assert_int_equal(fclose(f), 0);
        snprintf(batch.all.exe, sizeof batch.all.exe, "%s/batch", dir);
        snprintf(batch.all.log, sizeof batch.all.log, "%s/batch.log", dir);
    }
    for (size_t c = 0; c < n_cand; c++) {
        hk_free(inc[c]);
        hk_free(und[c]);
    }
}

/* Starts hipcc on workdir/batch/batch.cu: the first program's spec's argv, with the
 * include folders of the others' specs added. */
static void start_batch(void)
{
    char cu[600];
    snprintf(cu, sizeof cu, "%s/batch/batch.cu", workdir);
    spec *first = load_clean(builds[batch.idx[0]].spec_path);
    const char *dirs[64]; /* "-I" DIR of the other specs' folders */
    char *owned[32];
    size_t n_dirs = 0, n_owned = 0;
    for (size_t k = 1; k < batch.n; k++) {
        spec *s = load_clean(builds[batch.idx[k]].spec_path);
        assert_int_equal(s->n_compile_flags, 0);
        for (size_t d = 0; d < s->n_include_dirs; d++) {
            bool have = false;
            for (size_t j = 0; j < first->n_include_dirs; j++)
                have = have || !strcmp(first->include_dirs[j], s->include_dirs[d]);
            for (size_t j = 1; j < n_dirs; j += 2)
                have = have || !strcmp(dirs[j], s->include_dirs[d]);
            if (!have) {
                assert_true(n_owned < HK_ARRAY_LEN(owned));
                owned[n_owned] = hk_strdup(s->include_dirs[d]);
                dirs[n_dirs++] = "-I";
                dirs[n_dirs++] = owned[n_owned++];
            }
        }
        spec_free(s);
    }
    dirs[n_dirs] = NULL;
    batch.all.pid = start_hipcc(first, BATCH_ARCH, cu, batch.all.exe, batch.all.log, dirs);
    spec_free(first);
    for (size_t k = 0; k < n_owned; k++)
        hk_free(owned[k]);
}

/* b, written in workdir/batch, compiled alone from workdir/batch/TAG.cu. */
static void start_alone(build *b)
{
    spec *s = load_clean(b->spec_path);
    char cu[600];
    snprintf(cu, sizeof cu, "%s/batch/%s.cu", workdir, b->tag);
    b->pid = start_hipcc(s, b->arch, cu, b->exe, b->log, NULL);
    spec_free(s);
}

/* Runs the jobs (builds, the batch) two at a time (two cores). */
static int run_jobs(build **jobs, size_t n)
{
    size_t next = 0, running = 0, done = 0;
    build *live[2] = { NULL, NULL };
    while (done < n) {
        while (running < 2 && next < n) {
            build *b = jobs[next];
            if (b == &batch.all)
                start_batch();
            else if (in_batch_dir[b - builds])
                start_alone(b);
            else
                start(b);
            live[live[0] ? 1 : 0] = b;
            next++;
            running++;
        }
        int st;
        pid_t pid = wait(&st);
        if (pid < 0)
            return -1;
        for (int k = 0; k < 2; k++)
            if (live[k] && live[k]->pid == pid) {
                live[k]->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
                live[k] = NULL;
                running--;
                done++;
            }
    }
    return 0;
}

/* All started before the tests look at any: the batch first (the longest), the programs
 * built alone beside it. */
static int group_setup(void **state)
{
    (void)state;
    if (cc_find_compiler(CC_DCU, &hipcc) != HK_OK) {
        fprintf(stderr, "skipped: hipcc not found (apt-get install hipcc libamdhip64-dev "
                        "rocm-device-libs)\n");
        return 0;
    }
    if (!mkdtemp(workdir))
        return -1;
    batch_write();
    build *jobs[HK_ARRAY_LEN(builds) + 1];
    size_t n = 0;
    if (batch.n)
        jobs[n++] = &batch.all;
    for (size_t i = 0; i < HK_ARRAY_LEN(builds); i++)
        if (!in_batch(&builds[i]))
            jobs[n++] = &builds[i];
    if (run_jobs(jobs, n) != 0)
        return -1;
    if (batch.n && batch.all.status != 0) {
        char *log = slurp(batch.all.log);
        fprintf(stderr, "the batch of %zu programs for " BATCH_ARCH " failed (hipcc exit %d); "
                        "each is compiled alone:\n%s\n", batch.n, batch.all.status, log);
        hk_free(log);
        batch.failed = true;
        n = 0;
        for (size_t k = 0; k < batch.n; k++)
            jobs[n++] = &builds[batch.idx[k]];
        if (run_jobs(jobs, n) != 0)
            return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    if (hipcc && !getenv("HK_KEEP")) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf %s", workdir);
        if (system(cmd) != 0)
            return -1;
    }
    hk_free(hipcc);
    return 0;
}

/* Every program built; the resource remarks name the kernel on the right arch. A program
 * of the batch: the batch built, and its remarks name the kernel in the program's
 * namespace (hk_hb_K::kernel); the batch's main runs each program's own, which answers a
 * bad mode with the usage error. */
static int run_exe(const char *exe, const char *const *args, char **out);

static void test_builds(void **state)
{
    (void)state;
    if (!hipcc)
        skip();
    for (size_t i = 0; i < HK_ARRAY_LEN(builds); i++) {
        build *b = &builds[i];
        const build *from = b; /* the hipcc run that built it */
        char ns[64] = "";      /* its kernel's namespace in that run, with "::" */
        for (size_t k = 0; !batch.failed && k < batch.n; k++)
            if (batch.idx[k] == i) {
                from = &batch.all;
                snprintf(ns, sizeof ns, "hk_hb_%zu::", k + 1);
            }
        char *log = slurp(from->log);
        if (from->status != 0)
            fprintf(stderr, "%s: hipcc exit %d:\n%s\n", b->tag, from->status, log);
        assert_int_equal(from->status, 0);
        assert_int_equal(access(from->exe, X_OK), 0);
        cc_result r = { 0 };
        assert_int_equal(cc_parse_output(CC_DCU, log, strlen(log), &r), HK_OK);
        bool found = false;
        for (size_t k = 0; k < r.n_res; k++)
            if (r.res[k].base_name && !strcmp(r.res[k].base_name, b->kernel) && r.res[k].kernel &&
                !strncmp(r.res[k].kernel, ns, strlen(ns)) &&
                !strcmp(r.res[k].kernel + strlen(ns), b->kernel)) {
                found = true;
                assert_true(r.res[k].registers > 0); /* VGPRs */
                assert_true(r.res[k].sgprs > 0);
            }
        if (!found)
            fprintf(stderr, "%s: no resource remark for %s%s in:\n%s\n", b->tag, ns, b->kernel,
                    log);
        assert_true(found);
        cc_result_free(&r);
        hk_free(log);
        if (from == &batch.all) {
            const char *bad[] = { b->tag, "--mode", "fly", NULL };
            char *out = NULL;
            int rc = run_exe(from->exe, bad, &out);
            if (rc != HK_EXIT_USAGE || !strstr(out, "\"error\":\"usage\""))
                fprintf(stderr, "%s: the batch's program answered %d:\n%s\n", b->tag, rc, out);
            assert_int_equal(rc, HK_EXIT_USAGE);
            assert_non_null(strstr(out, "\"error\":\"usage\""));
            hk_free(out);
        }
    }
}

/* Runs exe with args; *out: its stdout+stderr (hk_free). Returns the exit status. */
static int run_exe(const char *exe, const char *const *args, char **out)
{
    char log[600];
    snprintf(log, sizeof log, "%s.run.log", exe);
    char *argv[16];
    size_t n = 0;
    argv[n++] = (char *)exe;
    for (; args && *args && n < 15; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    pid_t pid = spawn(argv, log);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    *out = slurp(log);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The HIP programs run here: a usage error before any device, and "no HIP device" as the
 * no_gpu exit when there is no AMD GPU (this machine); with one, probe reports a gfx arch. */
static void test_runs(void **state)
{
    (void)state;
    if (!hipcc)
        skip();
    const build *b = &builds[0]; /* vector_add, gfx906 */
    char *out = NULL;
    const char *bad[] = { "--mode", "fly", NULL };
    assert_int_equal(run_exe(b->exe, bad, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "\"error\":\"usage\""));
    hk_free(out);
    const char *size[] = { "--mode", "run", "--size", "9", NULL };
    assert_int_equal(run_exe(b->exe, size, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--size 9"));
    hk_free(out);

    const char *probe[] = { "--mode", "probe", NULL };
    int rc = run_exe(b->exe, probe, &out);
    if (access("/dev/kfd", F_OK) != 0) {
        assert_int_equal(rc, HK_EXIT_NO_GPU);
        json_t *j = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);
        assert_non_null(j);
        assert_string_equal(json_string_value(json_object_get(j, "error")), "no_gpu");
        assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "no HIP device"));
        assert_int_equal(json_integer_value(json_object_get(j, "exit")), HK_EXIT_NO_GPU);
        json_decref(j);
        hk_free(out);
        const char *run[] = { "--mode", "run", "--size", "1", "--seed", "3", NULL };
        assert_int_equal(run_exe(b->exe, run, &out), HK_EXIT_NO_GPU);
    } else { /* an AMD GPU: the probe names its gfx arch and wavefront size */
        assert_int_equal(rc, HK_EXIT_OK);
        assert_non_null(strstr(out, "\"arch\":\"gfx"));
        assert_non_null(strstr(out, "\"warp_size\":"));
    }
    hk_free(out);
}

/* Candidates that include CUDA headers (<cuda_fp16.h>, <cuda_bf16.h>) build for a DCU
 * through measure.c's build (the one the episode uses): it answers those headers with
 * shims of hk_harness.h. The resources come back with the arch. */
static void test_measure_cuda_headers(void **state)
{
    (void)state;
    if (!hipcc)
        skip();
    const char *kernels[] = { "half_scale_bias", "bf16_axpy" };
    for (size_t i = 0; i < HK_ARRAY_LEN(kernels); i++) {
        char path[300], dir[600];
        snprintf(path, sizeof path, SUITE "%s.bench.json", kernels[i]);
        snprintf(dir, sizeof dir, "%s/measure-%s", workdir, kernels[i]);
        spec *s = load_clean(path);
        char *text = slurp(s->source_path);
        assert_non_null(strstr(text, "#include <cuda_"));
        measure_opts o;
        memset(&o, 0, sizeof o);
        o.spec = s;
        o.nvcc = hipcc;
        o.arch = "gfx906";
        measure_build b;
        measure_compile c;
        assert_int_equal(measure_build_prepare(&o, dir, text, strlen(text), NULL, &b), HK_OK);
        assert_int_equal(measure_build_compile(&o, &b, &c), HK_OK);
        if (!c.ok)
            fprintf(stderr, "%s: %s\n", kernels[i], c.details ? c.details : "?");
        assert_true(c.ok);
        json_t *r = measure_resources_json(&c, kernels[i]);
        assert_non_null(r);
        assert_string_equal(json_string_value(json_object_get(r, "arch")), "gfx906");
        assert_true(json_integer_value(json_object_get(r, "registers")) > 0);
        json_decref(r);
        measure_compile_clear(&c);
        measure_build_free(&b);
        hk_free(text);
        spec_free(s);
    }
}

/* Whether the file at path holds the bytes of needle. */
static bool file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t cap = 8 << 20, n;
    char *b = hk_malloc(cap);
    assert_non_null(b);
    n = fread(b, 1, cap, f);
    fclose(f);
    bool has = memmem(b, n, needle, strlen(needle)) != NULL;
    hk_free(b);
    return has;
}

/* A DCU candidate is built device-only, as an NVIDIA one: measure.c writes module.cu (hk_hip.h,
 * then the candidate) compiled with hipcc --genco into kernel.co, and a launcher generated
 * from the spec alone, built with hipcc, that holds no line of the candidate and loads the
 * code object with hipModuleLoad. The entry is read from the code object; the launcher runs
 * here and says there is no HIP device (with one: it would run the image). */
static void test_measure_device_only(void **state)
{
    (void)state;
    if (!hipcc)
        skip();
    char dir[600], cache[600];
    snprintf(dir, sizeof dir, "%s/device-only/cand", workdir);
    snprintf(cache, sizeof cache, "%s/device-only/cache", workdir);
    setenv("HK_CACHE_DIR", cache, 1);
    spec *s = load_clean(SUITE "saxpy.bench.json");
    char *text = slurp(s->source_path);
    measure_opts o;
    memset(&o, 0, sizeof o);
    o.spec = s;
    o.nvcc = hipcc;
    o.arch = "gfx906";
    o.include_dir = HK_SOURCE_DIR "/include";
    measure_build b;
    measure_compile c;
    assert_int_equal(measure_build_prepare(&o, dir, text, strlen(text), NULL, &b), HK_OK);
    unsetenv("HK_CACHE_DIR");
    /* the image and the shared launcher, not a program that includes the candidate */
    assert_non_null(b.module);
    assert_non_null(strstr(b.module, "/kernel.co"));
    assert_non_null(strstr(b.exe, cache));
    char *launcher = slurp(b.prog);
    assert_non_null(strstr(launcher, "#include \"hk_harness.h\""));
    assert_null(strstr(launcher, "kernel.cu"));
    assert_null(strstr(launcher, "a * x[i] + y[i]")); /* no line of the kernel's body */
    assert_non_null(strstr(text, "a * x[i] + y[i]"));
    hk_free(launcher);
    char modpath[700];
    snprintf(modpath, sizeof modpath, "%s/module.cu", b.dir);
    char *mod = slurp(modpath);
    const char *hip = strstr(mod, "#include \"hk_hip.h\"");
    const char *cand = strstr(mod, "/kernel.cu\"");
    assert_non_null(hip);
    assert_non_null(cand);
    assert_true(hip < cand);
    assert_null(strstr(mod, "hk_harness.h"));
    hk_free(mod);
    char shpath[700];
    snprintf(shpath, sizeof shpath, "%s/build.sh", b.dir);
    assert_true(file_has(shpath, "'--genco'"));
    assert_true(file_has(shpath, "'--offload-arch=gfx906'"));

    assert_int_equal(measure_build_compile(&o, &b, &c), HK_OK);
    if (!c.ok)
        fprintf(stderr, "device-only saxpy: %s\n", c.details ? c.details : "?");
    assert_true(c.ok);
    /* the entry came from the code object (a clang offload bundle), mangled as emitted */
    assert_true(file_has(b.module, "__CLANG_OFFLOAD_BUNDLE__"));
    assert_true(file_has(b.module, "amdgcn-amd-amdhsa--gfx906"));
    assert_non_null(b.function);
    assert_string_equal(b.function, "_Z5saxpyifPKfPf");
    /* the assembly the code object was assembled from stays beside it, read for clock reads
     * (measure_clock_check): saxpy reads none; the preprocessed text is not kept */
    char asmpath[700], cuipath[700];
    snprintf(asmpath, sizeof asmpath, "%s/module-hip-amdgcn-amd-amdhsa-gfx906.s", b.dir);
    snprintf(cuipath, sizeof cuipath, "%s/module-hip-amdgcn-amd-amdhsa-gfx906.cui", b.dir);
    assert_true(file_has(asmpath, "s_endpgm"));
    assert_int_not_equal(access(cuipath, F_OK), 0);
    const char *clock_result = NULL;
    char *clock_why = NULL;
    assert_int_equal(measure_clock_check(b.module, b.module, &clock_result, &clock_why), HK_OK);
    assert_string_equal(clock_result, "pass");
    json_t *r = measure_resources_json(&c, "saxpy");
    assert_non_null(r);
    assert_string_equal(json_string_value(json_object_get(r, "arch")), "gfx906");
    json_decref(r);
    /* the launcher is HIP's: it calls the module API, and holds no symbol of the kernel */
    assert_int_equal(access(b.exe, X_OK), 0);
    assert_true(file_has(b.exe, "hipModuleLoad"));
    assert_true(file_has(b.exe, "hipModuleLaunchKernel"));
    assert_false(file_has(b.exe, "_Z5saxpyifPKfPf"));
    char *out = NULL;
    const char *noimg[] = { "--mode", "run", "--size", "0", NULL };
    assert_int_equal(run_exe(b.exe, noimg, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "give --module and --function"));
    hk_free(out);
    const char *run[] = { "--mode", "run", "--size", "0", "--seed", "3", "--module", b.module,
                          "--function", b.function, NULL };
    int rc = run_exe(b.exe, run, &out);
    if (access("/dev/kfd", F_OK) != 0) {
        assert_int_equal(rc, HK_EXIT_NO_GPU);
        assert_non_null(strstr(out, "no HIP device"));
    } else {
        assert_int_equal(rc, HK_EXIT_OK);
    }
    hk_free(out);
    measure_compile_clear(&c);
    measure_build_free(&b);
    hk_free(text);
    spec_free(s);
}

/* The command lines themselves: hipcc's form for gfx archs, nvcc's unchanged otherwise. */
static void test_argv(void **state)
{
    (void)state;
    spec *s = load_clean(SUITE "saxpy.bench.json");
    const char *extra[] = { "--use_fast_math", "-Xptxas", "-v", "-DX=1", NULL };
    char **v = NULL;
    assert_int_equal(harness_nvcc_argv(s, "/opt/rocm/bin/hipcc", "gfx928", "/inc", extra,
                                       "/w/bench.cu", "/w/bench", &v),
                     HK_OK);
    /* the spec's own directory follows the harness's (absolute: see spec.c anchor_includes) */
    assert_int_equal(s->n_include_dirs, 1);
    assert_string_equal(s->include_dirs[0], s->dir);
    const char *want[] = { "/opt/rocm/bin/hipcc", "--offload-arch=gfx928", "-O3", "-std=c++17",
                           "-gline-tables-only", "-I", "/inc", "-I", s->dir, "-ffast-math", "-DX=1",
                           "-o", "/w/bench", "-x", "hip", "/w/bench.cu", NULL };
    for (size_t i = 0; want[i] || v[i]; i++) {
        assert_non_null(v[i]);
        assert_non_null(want[i]);
        assert_string_equal(v[i], want[i]);
    }
    harness_argv_free(v);
    /* NULL compiler: "hipcc" on PATH */
    assert_int_equal(harness_nvcc_argv(s, NULL, "gfx906", "/inc", NULL, "p.cu", "p", &v), HK_OK);
    assert_string_equal(v[0], "hipcc");
    assert_string_equal(v[1], "--offload-arch=gfx906");
    harness_argv_free(v);
    /* NVIDIA: as before */
    assert_int_equal(harness_nvcc_argv(s, "nvcc", "sm_80", "/inc", extra, "p.cu", "p", &v), HK_OK);
    assert_string_equal(v[1], "-arch=sm_80");
    bool fast = false;
    for (size_t i = 0; v[i]; i++)
        fast = fast || !strcmp(v[i], "--use_fast_math");
    assert_true(fast);
    harness_argv_free(v);
    /* the device-only image: hipcc --genco, nothing linked; nvcc -cubin otherwise */
    const char *lib[] = { "-lhipblas", "-DX=1", NULL };
    assert_int_equal(harness_image_argv(s, "/opt/dtk/bin/hipcc", "gfx936", "/inc", lib, "/w/module.cu",
                                        "/w/kernel.co", &v),
                     HK_OK);
    const char *want_img[] = { "/opt/dtk/bin/hipcc", "--genco", "--offload-arch=gfx936", "-O3",
                               "-std=c++17", "-gline-tables-only", "-I", "/inc", "-I", s->dir,
                               "-DX=1", "-o", "/w/kernel.co", "-x", "hip", "/w/module.cu", NULL };
    for (size_t i = 0; want_img[i] || v[i]; i++) {
        assert_non_null(v[i]);
        assert_non_null(want_img[i]);
        assert_string_equal(v[i], want_img[i]);
    }
    harness_argv_free(v);
    assert_int_equal(harness_image_argv(s, "nvcc", "sm_90", "/inc", NULL, "m.cu", "k.cubin", &v), HK_OK);
    assert_string_equal(v[1], "-cubin");
    harness_argv_free(v);
    /* the launcher: hipcc for a gfx arch, with the module API's runtime: the runtime's object
     * compiled as HIP once, each launcher's own text as plain C++ linked with it */
    assert_int_equal(harness_launcher_rt_argv("hipcc", "gfx90a", "/inc", "/r/rt.o", &v), HK_OK);
    const char *want_rt[] = { "hipcc", "--offload-arch=gfx90a", "-O2", "-std=c++17", "-I", "/inc",
                              "-c", "-o", "/r/rt.o", "-x", "hip", "/inc/hk_launcher_rt.cu", NULL };
    for (size_t i = 0; want_rt[i] || v[i]; i++) {
        assert_non_null(v[i]);
        assert_non_null(want_rt[i]);
        assert_string_equal(v[i], want_rt[i]);
    }
    harness_argv_free(v);
    assert_int_equal(harness_launcher_argv("hipcc", "gfx90a", "/inc", "/c/bench.cpp", "/r/rt.o",
                                           "/c/bench", &v),
                     HK_OK);
    const char *want_l[] = { "hipcc", "--offload-arch=gfx90a", "-O2", "-std=c++17", "-I", "/inc",
                             "-o", "/c/bench", "-x", "c++", "/c/bench.cpp", "-x", "none", "/r/rt.o",
                             "-ldl", NULL };
    for (size_t i = 0; want_l[i] || v[i]; i++) {
        assert_non_null(v[i]);
        assert_non_null(want_l[i]);
        assert_string_equal(v[i], want_l[i]);
    }
    harness_argv_free(v);
    /* the generated text includes the header first for hipcc only */
    char *text = NULL;
    assert_int_equal(harness_generate(s, "/abs/cand.cu", &text), HK_OK);
    const char *hip = strstr(text, "#if defined(__HIPCC__) && !defined(__CUDACC__)\n"
                                   "#include \"hk_harness.h\"\n#endif\n");
    const char *cand = strstr(text, "#include \"/abs/cand.cu\"");
    assert_non_null(hip);
    assert_non_null(cand);
    assert_true(hip < cand);
    hk_free(text);
    spec_free(s);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_builds),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_measure_cuda_headers),
        cmocka_unit_test(test_measure_device_only),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
