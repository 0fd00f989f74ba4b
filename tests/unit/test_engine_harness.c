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
#include "measure/harness.h"
#include "measure/kimage.h"
#include "spec/spec.h"

#include "test_nvcc.h"

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
    int status; /* nvcc's exit status once waited for */
} jobs[] = {
    { "saxpy", "saxpy.bench.json", -1, -1 },
    { "transpose", "transpose.bench.json", -1, -1 },
    { "reduce", "reduce_sum.bench.json", -1, -1 },
    { "half", "half_scale.bench.json", -1, -1 },
    { "template", "tiled_template.bench.json", -1, -1 },
    { "conv", "conv_mask.bench.json", -1, -1 }, /* __constant__ inputs set by symbol */
    { "arity", NULL, -1, -1 }, /* the wrong-arity spec below */
    { "fill", NULL, -1, -1 },  /* a host-only program of hk_harness.h's input generation */
};

/* Host-only checks of the input generator, compiled with nvcc and run on the CPU: element
 * values depend on (seed, index) only (a threaded fill equals any single-threaded piece
 * of it, for every dtype and distribution), grid() values lie on their lattice and match
 * the device generator's expression, the normal quantile is accurate, the moments are
 * right, and 2^26 floats are generated fast. Prints what it measured; exit 0 = pass. */
static const char fill_program[] =
    "#include \"hk_harness.h\"\n"
    "#include <chrono>\n"
    "static double cpu_s(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);"
    " return t.tv_sec + t.tv_nsec * 1e-9; }\n"
    "static double wall_s(void) { return std::chrono::duration<double>(std::chrono::steady_clock::"
    "now().time_since_epoch()).count(); }\n"
    "#define CHECK(c) do { if (!(c)) { printf(\"FAIL %s at line %d\\n\", #c, __LINE__); return 1; } } while (0)\n"
    "int main(void)\n{\n"
    "    const size_t n = (size_t)3 << 20; /* over the threading threshold */\n"
    "    const hk_dist dists[5] = { {HK_DIST_UNIFORM, -1, 1}, {HK_DIST_NORMAL, 0, 1}, {HK_DIST_INT, -100, 100},\n"
    "                               {HK_DIST_ONES_SPARSE, 0.1, 0}, {HK_DIST_UNIFORM, 0, 1000} };\n"
    "    const int dts[4] = { HK_DT_F32, HK_DT_F64, HK_DT_I32, HK_DT_F16 };\n"
    "    std::vector<unsigned char> all(n * 8), piece(4096 * 8);\n"
    "    for (int t = 0; t < 4; t++)\n"
    "        for (int k = 0; k < 5; k++) {\n"
    "            size_t es = hk_dtype_size(dts[t]);\n"
    "            hk_fill(all.data(), n, dts[t], dists[k], 77);\n"
    "            const size_t starts[3] = { 0, n / 2 + 1, n - 4096 };\n"
    "            for (int s = 0; s < 3; s++) {\n"
    "                /* the piece [start, start + 4096) generated alone */\n"
    "                std::vector<unsigned char> one((starts[s] + 4096) * es);\n"
    "                if (dts[t] == HK_DT_F32) hk_fill_range<float>((float *)one.data(), starts[s], starts[s] + 4096, dists[k], 77);\n"
    "                if (dts[t] == HK_DT_F64) hk_fill_range<double>((double *)one.data(), starts[s], starts[s] + 4096, dists[k], 77);\n"
    "                if (dts[t] == HK_DT_I32) hk_fill_range<int32_t>((int32_t *)one.data(), starts[s], starts[s] + 4096, dists[k], 77);\n"
    "                if (dts[t] == HK_DT_F16) hk_fill_range<__half>((__half *)one.data(), starts[s], starts[s] + 4096, dists[k], 77);\n"
    "                /* element 0 may be the never-constant fix-up (int32 of uniform(-1,1) is all 0) */\n"
    "                size_t from = starts[s] ? starts[s] : 1;\n"
    "                CHECK(memcmp(one.data() + from * es, all.data() + from * es, (starts[s] + 4096 - from) * es) == 0);\n"
    "            }\n"
    "            /* another seed gives other values */\n"
    "            hk_fill(piece.data(), 4096, dts[t], dists[k], 78);\n"
    "            if (!(dts[t] == HK_DT_I32 && k == 0)) /* that one is all zeros but element 0 */\n"
    "                CHECK(memcmp(piece.data(), all.data(), 4096 * es) != 0);\n"
    "        }\n"
    "    /* the other dtypes over the threading threshold too: each chunk has its dtype's element\n"
    "     * type (the last 4096 elements generated alone by hk_fill_range of that type) */\n"
    "    const int more[8] = { HK_DT_BF16, HK_DT_I8, HK_DT_I16, HK_DT_I64, HK_DT_U8, HK_DT_U16, HK_DT_U32, HK_DT_U64 };\n"
    "    for (int t = 0; t < 8; t++) {\n"
    "        size_t es = hk_dtype_size(more[t]), at = n - 4096;\n"
    "        hk_fill(all.data(), n, more[t], dists[2], 79);\n"
    "        std::vector<unsigned char> one(n * es);\n"
    "#define ALONE(DT, T) if (more[t] == DT) hk_fill_range<T>((T *)one.data(), at, n, dists[2], 79)\n"
    "        ALONE(HK_DT_BF16, __nv_bfloat16); ALONE(HK_DT_I8, int8_t); ALONE(HK_DT_I16, int16_t);\n"
    "        ALONE(HK_DT_I64, int64_t); ALONE(HK_DT_U8, uint8_t); ALONE(HK_DT_U16, uint16_t);\n"
    "        ALONE(HK_DT_U32, uint32_t); ALONE(HK_DT_U64, uint64_t);\n"
    "        CHECK(memcmp(one.data() + at * es, all.data() + at * es, 4096 * es) == 0);\n"
    "    }\n"
    "    /* grid(lo,hi) (the referee's exact distribution): every value k * q inside [lo, hi], every k\n"
    "     * drawn, the threaded fill equal to the device generator's expression element by element */\n"
    "    const hk_dist grids[3] = { {HK_DIST_GRID, 0, 1.5}, {HK_DIST_GRID, 0.25, 0.75}, {HK_DIST_GRID, -2, 2} };\n"
    "    for (int k = 0; k < 3; k++) {\n"
    "        double q, k0, nk;\n"
    "        hk_grid_params(grids[k].a, grids[k].b, &q, &k0, &nk);\n"
    "        hk_fill(all.data(), n, HK_DT_F32, grids[k], 80);\n"
    "        const float *g = (const float *)all.data();\n"
    "        std::vector<size_t> seen((size_t)nk);\n"
    "        for (size_t i = 0; i < n; i++) {\n"
    "            double v = g[i], kk = v / q;\n"
    "            CHECK(v >= grids[k].a && v <= grids[k].b && kk == floor(kk));\n"
    "            seen[(size_t)(kk - k0)]++;\n"
    "            /* hk_gen_kernel's value for element i, converted as it converts (float)v */\n"
    "            CHECK(g[i] == (float)hk_grid_value(q, k0, nk, hk_unit64(hk_elem_hash(80, i))));\n"
    "        }\n"
    "        for (size_t j = 0; j < seen.size(); j++)\n"
    "            CHECK(seen[j] > n / (4 * seen.size()));\n"
    "    }\n"
    "    /* an unknown dtype: nothing written */\n"
    "    memset(piece.data(), 0x5a, piece.size());\n"
    "    hk_fill(piece.data(), 4096, 99, dists[0], 1);\n"
    "    for (size_t i = 0; i < piece.size(); i++)\n"
    "        CHECK(piece[i] == 0x5a);\n"
    "    double worst = 0;\n"
    "    for (int k = 1; k < 200000; k++) {\n"
    "        double u = k / 200000.0, x = hk_normal_quantile(u), back = 0.5 * erfc(-x / sqrt(2.0));\n"
    "        worst = fmax(worst, fabs(back - u) / fmin(u, 1 - u));\n"
    "    }\n"
    "    printf(\"normal quantile: worst relative error %.3g\\n\", worst);\n"
    "    CHECK(worst < 1e-6);\n"
    "    const size_t big = (size_t)1 << 26;\n"
    "    float *f = (float *)malloc(big * sizeof *f);\n"
    "    CHECK(f);\n"
    "    memset(f, 0, big * sizeof *f);\n"
    "    for (int k = 0; k < 2; k++) {\n"
    "        double c0 = cpu_s(), w0 = wall_s();\n"
    "        hk_fill(f, big, HK_DT_F32, dists[k], 5);\n"
    "        double cpu = cpu_s() - c0, wall = wall_s() - w0, m = 0, m2 = 0;\n"
    "        for (size_t i = 0; i < big; i++) { m += f[i]; m2 += (double)f[i] * f[i]; }\n"
    "        m /= big; m2 = m2 / big - m * m;\n"
    "        printf(\"2^26 floats %s: %.3f s wall, %.3f s CPU (%.1f ns per element), mean %.4f, variance %.4f, %u threads\\n\",\n"
    "               k ? \"normal(0,1)\" : \"uniform(-1,1)\", wall, cpu, cpu / big * 1e9, m, m2, std::thread::hardware_concurrency());\n"
    "        CHECK(fabs(m - 0.0) < 0.01 && fabs(m2 - (k ? 1.0 : 1.0 / 3.0)) < 0.01);\n"
    "        CHECK(cpu / big * 1e9 < 60); /* generous: a loaded CI machine; the H200 host has 16 cores */\n"
    "    }\n"
    "    free(f);\n"
    "    /* the long-tail rule (session 49, ref12): a launch with a long tail is dropped only\n"
    "     * below the median of the samples kept, so a tail never removes a slow launch */\n"
    "    std::vector<double> kept;\n"
    "    CHECK(!hk_tail_keeps(kept, 9.0));\n"
    "    kept.push_back(3.0); kept.push_back(1.0); kept.push_back(2.0);\n"
    "    CHECK(hk_tail_keeps(kept, 9.0) && hk_tail_keeps(kept, 2.0) && !hk_tail_keeps(kept, 1.5));\n"
    "    /* the sensitivity check's --perturb: exactly the planned elements change, each by its\n"
    "     * amount rounded to the type; integer and grid inputs never; the plans printed for the\n"
    "     * server's C compile of hk_perturb_plan to compare (perturbation_plans) */\n"
    "    {\n"
    "        const hk_dist u = {HK_DIST_UNIFORM, 0, 1}, g = {HK_DIST_GRID, 0, 1};\n"
    "        std::vector<float> a(1 << 16), b;\n"
    "        hk_fill(a.data(), a.size(), HK_DT_F32, u, 81);\n"
    "        b = a;\n"
    "        hk_perturb_seed = 12345;\n"
    "        hk_perturb_scale = 64;\n"
    "        hk_perturb_apply(b.data(), b.size(), HK_DT_F32, u, 0);\n"
    "        uint64_t pos[HK_PERTURB_N];\n"
    "        double am[HK_PERTURB_N];\n"
    "        int np = 0;\n"
    "        hk_perturb_plan(12345, 0, b.size(), HK_DT_F32, u, 64, pos, am, &np);\n"
    "        CHECK(np == HK_PERTURB_N);\n"
    "        size_t changed = 0;\n"
    "        for (size_t i = 0; i < a.size(); i++)\n"
    "            changed += a[i] != b[i];\n"
    "        CHECK(changed == HK_PERTURB_N);\n"
    "        for (int j = 0; j < np; j++)\n"
    "            CHECK(b[pos[j]] == (float)((double)a[pos[j]] + am[j]));\n"
    "        /* the spread plan (--perturb S:SCALE:spread): one element in each stratum */\n"
    "        b = a;\n"
    "        hk_perturb_kind = HK_PERTURB_SPREAD_PLAN;\n"
    "        hk_perturb_apply(b.data(), b.size(), HK_DT_F32, u, 0);\n"
    "        hk_perturb_kind = HK_PERTURB_LADDER;\n"
    "        uint64_t sp[HK_PERTURB_MAX];\n"
    "        double sa[HK_PERTURB_MAX];\n"
    "        hk_perturb_plan_kind(12345, 0, b.size(), HK_DT_F32, u, 64, HK_PERTURB_SPREAD_PLAN, sp, sa, &np);\n"
    "        CHECK(np == HK_PERTURB_SPREAD);\n"
    "        changed = 0;\n"
    "        for (size_t i = 0; i < a.size(); i++)\n"
    "            changed += a[i] != b[i];\n"
    "        CHECK(changed == HK_PERTURB_SPREAD);\n"
    "        for (int j = 0; j < np; j++)\n"
    "            CHECK(b[sp[j]] == (float)((double)a[sp[j]] + sa[j]) && sp[j] / (a.size() / HK_PERTURB_SPREAD) == (uint64_t)j);\n"
    "        std::vector<int32_t> ia(4096, 7);\n"
    "        std::vector<float> ga(4096, 0.5f);\n"
    "        hk_perturb_apply(ia.data(), ia.size(), HK_DT_I32, u, 1);\n"
    "        hk_perturb_apply(ga.data(), ga.size(), HK_DT_F32, g, 1);\n"
    "        for (size_t i = 0; i < 4096; i++)\n"
    "            CHECK(ia[i] == 7 && ga[i] == 0.5f);\n"
    "        hk_perturb_seed = -1;\n"
    "        hk_perturb_apply(a.data(), a.size(), HK_DT_F32, u, 0); /* none without --perturb */\n"
    "        hk_fill(b.data(), b.size(), HK_DT_F32, u, 81);\n"
    "        CHECK(memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);\n"
    "        const hk_dist pd[2] = { {HK_DIST_UNIFORM, 0.25, 0.75}, {HK_DIST_NORMAL, 1, 0.25} };\n"
    "        const unsigned long long ps[3] = { 1, 12345, 1ull << 40 };\n"
    "        for (int k = 0; k < 3; k++)\n"
    "            for (int d = 0; d < 2; d++) {\n"
    "                hk_perturb_plan(ps[k], 2 * d + 1, 16777216, HK_DT_F32, pd[d], 4096, pos, am, &np);\n"
    "                printf(\"plan %llu %d %d:\", ps[k], 2 * d + 1, np);\n"
    "                for (int j = 0; j < np; j++)\n"
    "                    printf(\" %llu+%.17g\", (unsigned long long)pos[j], am[j]);\n"
    "                printf(\"\\n\");\n"
    "                uint64_t sp2[HK_PERTURB_MAX];\n"
    "                double sa2[HK_PERTURB_MAX];\n"
    "                hk_perturb_plan_kind(ps[k], 2 * d + 1, 16777216, HK_DT_F32, pd[d], 4096, HK_PERTURB_SPREAD_PLAN, sp2, sa2, &np);\n"
    "                printf(\"spread %llu %d %d:\", ps[k], 2 * d + 1, np);\n"
    "                for (int j = 0; j < np; j++)\n"
    "                    printf(\" %llu+%.17g\", (unsigned long long)sp2[j], sa2[j]);\n"
    "                printf(\"\\n\");\n"
    "            }\n"
    "    }\n"
    "    printf(\"fill ok\\n\");\n"
    "    return 0;\n"
    "}\n";

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
        jobs[i].status = -1;
        if (!strcmp(jobs[i].tag, "fill")) {
            char cu[512], exe[512], log[512];
            snprintf(cu, sizeof cu, "%s/fill.cu", tmpdir);
            snprintf(exe, sizeof exe, "%s/fill", tmpdir);
            snprintf(log, sizeof log, "%s/fill.log", tmpdir);
            FILE *f = fopen(cu, "w");
            if (!f || fputs(fill_program, f) < 0 || fclose(f) != 0)
                return -1;
            char *argv[] = { (char *)NVCC, (char *)"-O3", (char *)"-std=c++17", (char *)"-I",
                             (char *)HK_SOURCE_DIR "/include", (char *)"-o", exe, cu, NULL };
            jobs[i].pid = spawn(argv, log);
            continue;
        }
        spec *s = jobs[i].specfile ? load(jobs[i].specfile) : arity_spec();
        char cu[512], exe[512], log[512];
        snprintf(cu, sizeof cu, "%s/%s.cu", tmpdir, jobs[i].tag);
        snprintf(exe, sizeof exe, "%s/%s", tmpdir, jobs[i].tag);
        snprintf(log, sizeof log, "%s/%s.log", tmpdir, jobs[i].tag);
        char **argv = NULL;
        /* saxpy is linked into a program; the others are compiled with -cubin: nvcc's
         * front end still checks the whole program, host code included (the arity
         * static_assert, the __constant__ set by symbol), and builds the kernel's device
         * code; what is left out, gcc's pass over the host side, is the same for every
         * spec and runs in saxpy's build (about 9 s of CPU each with -c, 2.5 with -cubin) */
        const char *obj_only[] = { "-cubin", NULL };
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
        char log[512];
        snprintf(log, sizeof log, "%s/%s.log", tmpdir, tag);
        if (jobs[i].pid < 0) { /* waited for by an earlier test */
            *log_text = slurp(log);
            return jobs[i].status;
        }
        int st = 0;
        assert_int_equal(waitpid(jobs[i].pid, &st, 0), jobs[i].pid);
        jobs[i].pid = -1;
        *log_text = slurp(log);
        int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        jobs[i].status = rc;
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

/* Runs argv (NULL-terminated) to completion; its exit status, stdout+stderr in *out. */
static int run_capture(char **argv, char **out)
{
    char log[512];
    snprintf(log, sizeof log, "%s/run.log", tmpdir);
    pid_t pid = spawn(argv, log);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    *out = slurp(log);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The launchers' runtime (hk_launcher_rt.cu) built once into tmpdir with the argv measure.c
 * uses (harness_launcher_rt_argv): every launcher of this test links it. Its path. */
static const char *launcher_runtime(void)
{
    static char rt[512];
    if (rt[0])
        return rt;
    snprintf(rt, sizeof rt, "%s/hk_launcher_rt.o", tmpdir);
    char **ra = NULL, *out = NULL;
    assert_int_equal(harness_launcher_rt_argv(NVCC, "sm_90", HK_SOURCE_DIR "/include", rt, &ra),
                     HK_OK);
    int rc = run_capture(ra, &out);
    if (rc != 0)
        fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    hk_free(out);
    harness_argv_free(ra);
    return rt;
}

static int count_global(void *ctx, const hk_kglobal *g)
{
    (void)g;
    (*(int *)ctx)++;
    return 0;
}

static bool have_gpu(void)
{
    return access("/dev/nvidiactl", F_OK) == 0 && getenv("HK_NO_GPU") == NULL;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = hk_malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* --combos and --prime-sizes: a bad list or mode is a usage error before any device is
 * touched; with a GPU, one process over several combinations, primed by a launch at the
 * other size, writes exactly the bytes that one process per combination writes. */
static void combos_mode(void **state)
{
    if (access(NVCC, X_OK) != 0)
        skip();
    char *log = NULL;
    assert_int_equal(wait_compile("saxpy", &log), 0);
    hk_free(log);
    char exe[512], *out = NULL;
    snprintf(exe, sizeof exe, "%s/saxpy", tmpdir);
    char *bad_list[] = { exe, "--mode", "run", "--size", "0", "--combos", "1:0,2", "--out-dir", tmpdir, NULL };
    assert_int_equal(run_capture(bad_list, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--combos"));
    hk_free(out);
    char *bad_dist[] = { exe, "--mode", "run", "--size", "0", "--combos", "1:3", NULL };
    assert_int_equal(run_capture(bad_dist, &out), HK_EXIT_USAGE);
    hk_free(out);
    char *bad_mode[] = { exe, "--mode", "time", "--size", "0", "--combos", "1:0", NULL };
    assert_int_equal(run_capture(bad_mode, &out), HK_EXIT_USAGE);
    hk_free(out);
    /* --prime-sizes: the spec's size indices (saxpy has 2), run mode only */
    char *bad_prime[] = { exe, "--mode", "run", "--size", "0", "--prime-sizes", "1,2", NULL };
    assert_int_equal(run_capture(bad_prime, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--prime-sizes 1,2"));
    hk_free(out);
    char *bad_prime_list[] = { exe, "--mode", "run", "--size", "0", "--prime-sizes", "1;0", NULL };
    assert_int_equal(run_capture(bad_prime_list, &out), HK_EXIT_USAGE);
    hk_free(out);
    char *bad_prime_mode[] = { exe, "--mode", "time", "--size", "0", "--prime-sizes", "1", NULL };
    assert_int_equal(run_capture(bad_prime_mode, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--prime-sizes is for --mode run"));
    hk_free(out);
    /* --launch-state: check or restore; check needs run mode and an image */
    char *bad_state[] = { exe, "--mode", "run", "--size", "0", "--launch-state", "off", NULL };
    assert_int_equal(run_capture(bad_state, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--launch-state off"));
    hk_free(out);
    char *state_no_module[] = { exe, "--mode", "run", "--size", "0", "--launch-state", "check", NULL };
    assert_int_equal(run_capture(state_no_module, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--launch-state check is for --mode run with --module"));
    hk_free(out);
    char *state_time[] = { exe, "--mode", "time", "--size", "0", "--module", "k.cubin",
                           "--function", "k", "--launch-state", "check", NULL };
    assert_int_equal(run_capture(state_time, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--launch-state check is for --mode run"));
    hk_free(out);
    /* --ref-launch: seven launch numbers, with a reference kernel only */
    char *bad_ref_launch[] = { exe, "--mode", "time", "--size", "0", "--ref-launch", "1,1,1", NULL };
    assert_int_equal(run_capture(bad_ref_launch, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--ref-launch 1,1,1"));
    hk_free(out);
    char *bad_ref_block[] = { exe, "--mode", "time", "--size", "0", "--ref-launch",
                              "8,1,1,2048,1,1,0", NULL };
    assert_int_equal(run_capture(bad_ref_block, &out), HK_EXIT_USAGE);
    hk_free(out);
    char *lone_ref_launch[] = { exe, "--mode", "time", "--size", "0", "--ref-launch",
                                "8,1,1,256,1,1,0", NULL };
    assert_int_equal(run_capture(lone_ref_launch, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--ref-launch goes with --ref-module"));
    hk_free(out);
    /* --widen: I=W pairs (an argument index, a finite widening >= 0), with a reference only */
    const char *bad_widen[] = { "3", "3=", "3=-1", "32=1", "3=1;4=2", "3=nan", "x=1" };
    for (size_t k = 0; k < sizeof bad_widen / sizeof *bad_widen; k++) {
        char *args[] = { exe, "--mode", "time", "--size", "0", "--ref-module", "b.cubin",
                         "--ref-function", "k", "--widen", (char *)bad_widen[k], NULL };
        assert_int_equal(run_capture(args, &out), HK_EXIT_USAGE);
        if (!strstr(out, "--widen"))
            fail_msg("--widen %s: %s", bad_widen[k], out);
        hk_free(out);
    }
    char *lone_widen[] = { exe, "--mode", "time", "--size", "0", "--widen", "3=0.5", NULL };
    assert_int_equal(run_capture(lone_widen, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--widen goes with --ref-module"));
    hk_free(out);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/combos", tmpdir);
    mkdir(dir, 0777);
    /* primed by a launch at size 1 first: saxpy keeps no state, so the bytes are the same */
    char *multi[] = { exe, "--mode", "run", "--size", "0", "--combos", "1:0,2:1,3:2,1:1", "--out-dir", dir,
                      "--prime-sizes", "1", NULL };
    int rc = run_capture(multi, &out);
    if (!have_gpu()) {
        assert_int_equal(rc, HK_EXIT_NO_GPU);
        hk_free(out);
        skip(); /* the byte comparison needs a GPU */
    }
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "\"combos\":4,\"primed\":1"));
    hk_free(out);
    const long long seeds[] = { 1, 2, 3, 1 };
    const int dists[] = { 0, 1, 2, 1 };
    for (int k = 0; k < 4; k++) {
        char single[700], seed[32], dist[32], *name = harness_run_out_name(0, dists[k], seeds[k]);
        snprintf(single, sizeof single, "%s/single-%d.out", tmpdir, k);
        snprintf(seed, sizeof seed, "%lld", seeds[k]);
        snprintf(dist, sizeof dist, "%d", dists[k]);
        char *one[] = { exe, "--mode", "run", "--size", "0", "--seed", seed, "--dist", dist, "--out", single, NULL };
        assert_int_equal(run_capture(one, &out), 0);
        hk_free(out);
        char path[800];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        size_t la, lb;
        char *a = read_all(single, &la), *b = read_all(path, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        hk_free(a);
        hk_free(b);
        hk_free(name);
    }
}

static void fill_generator(void **state)
{
    if (access(NVCC, X_OK) != 0)
        skip();
    char *log = NULL;
    assert_int_equal(wait_compile("fill", &log), 0);
    hk_free(log);
    char exe[512], *out = NULL;
    snprintf(exe, sizeof exe, "%s/fill", tmpdir);
    char *argv[] = { exe, NULL };
    int rc = run_capture(argv, &out);
    fprintf(stderr, "%s", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "fill ok"));
    /* the program's plans (nvcc's host compile) are the server's (this C compile) */
    const hk_dist pd[2] = { {HK_DIST_UNIFORM, 0.25, 0.75}, {HK_DIST_NORMAL, 1, 0.25} };
    const unsigned long long ps[3] = { 1, 12345, 1ull << 40 };
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 2; d++) {
            uint64_t pos[HK_PERTURB_N];
            double am[HK_PERTURB_N];
            int np = 0, at;
            char line[1024];
            hk_perturb_plan(ps[k], 2 * d + 1, 16777216, HK_DT_F32, pd[d], 4096, pos, am, &np);
            assert_int_equal(np, HK_PERTURB_N);
            at = snprintf(line, sizeof line, "plan %llu %d %d:", ps[k], 2 * d + 1, np);
            for (int j = 0; j < np; j++)
                at += snprintf(line + at, sizeof line - (size_t)at, " %llu+%.17g",
                               (unsigned long long)pos[j], am[j]);
            assert_non_null(strstr(out, line));
            uint64_t sp[HK_PERTURB_MAX];
            double sa[HK_PERTURB_MAX];
            hk_perturb_plan_kind(ps[k], 2 * d + 1, 16777216, HK_DT_F32, pd[d], 4096, HK_PERTURB_SPREAD_PLAN,
                                 sp, sa, &np);
            assert_int_equal(np, HK_PERTURB_SPREAD);
            at = snprintf(line, sizeof line, "spread %llu %d %d:", ps[k], 2 * d + 1, np);
            for (int j = 0; j < np; j++)
                at += snprintf(line + at, sizeof line - (size_t)at, " %llu+%.17g",
                               (unsigned long long)sp[j], sa[j]);
            assert_non_null(strstr(out, line));
        }
    hk_free(out);
}
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
    assert_non_null(strstr(text, "{ \"y\", HK_ARG_INOUT, HK_DT_F32, 0.0001, 1.0000000000000001e-05 }"));
    assert_non_null(strstr(text, "{ HK_DIST_NORMAL, 0, 1 }"));
    assert_non_null(strstr(text, "hk_launch_kernel(saxpy,"));
    /* 3 distributions x 4 args */
    assert_non_null(strstr(text, "static hk_dist hk_dists[3][4]"));
    assert_non_null(strstr(text, "0, NULL, NULL, NULL };")); /* no __constant__ inputs */
    assert_null(strstr(text, "hk_consts"));
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
    /* the spec's own directory is searched after the harness's (a candidate is compiled
     * from a copy, where the kernel's headers are not): absolute, whatever the cwd */
    assert_int_equal(s->n_include_dirs, 1);
    assert_string_equal(s->include_dirs[0], s->dir);
    assert_true(s->dir[0] == '/');
    const char *want[] = { "nvcc", "-arch=sm_80", "-O3", "-std=c++17", "-lineinfo", "-I", "/inc",
                           "-I", s->dir, "-DHK_TEST_FLAG=1", "--use_fast_math", "-o", "p", "p.cu",
                           NULL };
    for (size_t i = 0; want[i]; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[14]);
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

    /* several combinations of one size in one process */
    const long long seeds[] = { 1, 2, 1003 };
    const int dists[] = { 0, 0, 2 };
    harness_run m = { .mode = "run", .size = 1, .n_combos = 3, .combo_seeds = seeds,
                      .combo_dists = dists, .out_dir = "/w/out", .block = block };
    assert_int_equal(harness_run_argv("./p", &m, &argv), HK_OK);
    const char *want3[] = { "./p", "--mode", "run", "--size", "1", "--combos", "1:0,2:0,1003:2",
                            "--out-dir", "/w/out", "--block", "128,2,1", NULL };
    for (size_t i = 0; want3[i]; i++)
        assert_string_equal(argv[i], want3[i]);
    assert_null(argv[11]);
    harness_argv_free(argv);
    /* a candidate's process launches at the spec's other sizes first */
    const int prime[] = { 0, 2 };
    m.n_prime_sizes = 2;
    m.prime_sizes = prime;
    assert_int_equal(harness_run_argv("./p", &m, &argv), HK_OK);
    for (size_t i = 0; want3[i]; i++)
        assert_string_equal(argv[i], want3[i]);
    assert_string_equal(argv[11], "--prime-sizes");
    assert_string_equal(argv[12], "0,2");
    assert_null(argv[13]);
    harness_argv_free(argv);
    r.mode = "time"; /* priming is run mode only */
    r.n_prime_sizes = 2;
    r.prime_sizes = prime;
    assert_int_equal(harness_run_argv("./p", &r, &argv), HK_EINVAL);
    const int negative[] = { 0, -1 };
    m.prime_sizes = negative;
    assert_int_equal(harness_run_argv("./p", &m, &argv), HK_EINVAL);
    m.prime_sizes = prime;
    m.n_prime_sizes = HK_MAX_PRIME_SIZES + 1;
    assert_int_equal(harness_run_argv("./p", &m, &argv), HK_EINVAL);
    m.n_prime_sizes = 0;
    m.mode = "time"; /* combinations are run mode only */
    assert_int_equal(harness_run_argv("./p", &m, &argv), HK_EINVAL);
    m.mode = "run";
    m.n_combos = HK_MAX_COMBOS + 1;
    assert_int_equal(harness_run_argv("./p", &m, &argv), HK_EINVAL);
    /* the sensitivity check's perturbed run: one combination in run mode only */
    harness_run pr = { .mode = "run", .size = 0, .seed = 42, .dist = 1, .out = "o.bin",
                       .check_seed = -1, .perturb = true, .perturb_seed = 42,
                       .perturb_scale = 1048576 };
    assert_int_equal(harness_run_argv("./p", &pr, &argv), HK_OK);
    const char *want_p[] = { "./p", "--mode", "run", "--size", "0", "--seed", "42", "--dist", "1",
                             "--out", "o.bin", "--perturb", "42:1048576", NULL };
    for (size_t i = 0; want_p[i]; i++)
        assert_string_equal(argv[i], want_p[i]);
    assert_null(argv[13]);
    harness_argv_free(argv);
    pr.perturb_kind = HK_PERTURB_SPREAD_PLAN; /* the spread plan: ":spread" */
    assert_int_equal(harness_run_argv("./p", &pr, &argv), HK_OK);
    assert_string_equal(argv[12], "42:1048576:spread");
    harness_argv_free(argv);
    pr.perturb_kind = HK_PERTURB_LADDER;
    pr.mode = "time";
    assert_int_equal(harness_run_argv("./p", &pr, &argv), HK_EINVAL);
    pr.mode = "run";
    pr.perturb_scale = 0;
    assert_int_equal(harness_run_argv("./p", &pr, &argv), HK_EINVAL);
    m.n_combos = 3;
    m.perturb = true;
    m.perturb_scale = 1;
    assert_int_equal(harness_run_argv("./p", &m, &argv), HK_EINVAL);
    m.perturb = false;
    /* time mode with a reference kernel: the baseline's own launch goes with it */
    const long long base_launch[7] = { 264, 1, 1, 256, 1, 1, 1024 };
    harness_run t = { .mode = "time", .size = 0, .seed = 5, .dist = 0, .out = "o.bin",
                      .check_seed = 6, .module = "c.cubin", .function = "k",
                      .ref_module = "b.cubin", .ref_function = "k", .ref_launch = base_launch };
    assert_int_equal(harness_run_argv("./p", &t, &argv), HK_OK);
    size_t at = 0;
    while (argv[at] && strcmp(argv[at], "--ref-launch"))
        at++;
    assert_non_null(argv[at]);
    assert_string_equal(argv[at + 1], "264,1,1,256,1,1,1024");
    assert_string_equal(argv[at - 2], "--ref-function");
    for (size_t i = 0; argv[i]; i++)
        assert_string_not_equal(argv[i], "--widen"); /* nothing to widen */
    harness_argv_free(argv);
    double widen[HK_MAX_ARGS] = { 0 };
    widen[3] = 0.25;
    widen[5] = 6e-4;
    t.widen = widen;
    assert_int_equal(harness_run_argv("./p", &t, &argv), HK_OK);
    at = 0;
    while (argv[at] && strcmp(argv[at], "--widen"))
        at++;
    assert_non_null(argv[at]);
    assert_string_equal(argv[at + 1], "3=0.25,5=0.00059999999999999995");
    harness_argv_free(argv);
    widen[3] = widen[5] = 0; /* all zero: no option */
    assert_int_equal(harness_run_argv("./p", &t, &argv), HK_OK);
    for (size_t i = 0; argv[i]; i++)
        assert_string_not_equal(argv[i], "--widen");
    harness_argv_free(argv);
    t.widen = NULL;
    t.ref_module = t.ref_function = NULL; /* no reference kernel: no launch for it */
    assert_int_equal(harness_run_argv("./p", &t, &argv), HK_OK);
    for (size_t i = 0; argv[i]; i++)
        assert_string_not_equal(argv[i], "--ref-launch");
    harness_argv_free(argv);
    char *name = harness_run_out_name(1, 2, 1003);
    assert_string_equal(name, "run-s1-d2-seed1003.out");
    hk_free(name);
    /* a launcher: the shared runtime compiled once (-c), each launcher's own text (.cpp: the
     * host compiler alone) linked with it */
    assert_int_equal(harness_launcher_rt_argv("/cuda/nvcc", "sm_80", "/inc", "/r/rt.o", &argv),
                     HK_OK);
    const char *want_rt[] = { "/cuda/nvcc", "-arch=sm_80", "-O2", "-std=c++17", "-I", "/inc", "-c",
                              "-o", "/r/rt.o", "/inc/hk_launcher_rt.cu", NULL };
    for (size_t i = 0; want_rt[i] || argv[i]; i++) {
        assert_non_null(argv[i]);
        assert_non_null(want_rt[i]);
        assert_string_equal(argv[i], want_rt[i]);
    }
    harness_argv_free(argv);
    assert_int_equal(harness_launcher_argv("/cuda/nvcc", "sm_80", "/inc", "/c/bench.cpp", "/r/rt.o",
                                           "/c/bench", &argv),
                     HK_OK);
    const char *want_l[] = { "/cuda/nvcc", "-arch=sm_80", "-O2", "-std=c++17", "-I", "/inc", "-o",
                             "/c/bench", "/c/bench.cpp", "/r/rt.o", "-ldl", NULL };
    for (size_t i = 0; want_l[i] || argv[i]; i++) {
        assert_non_null(argv[i]);
        assert_non_null(want_l[i]);
        assert_string_equal(argv[i], want_l[i]);
    }
    harness_argv_free(argv);
}

static void exit_reasons(void **state)
{
    assert_string_equal(harness_exit_reason(HK_EXIT_UNWRITTEN), "unwritten_output");
    assert_string_equal(harness_exit_reason(HK_EXIT_OUT_OF_BOUNDS), "out_of_bounds");
    assert_string_equal(harness_exit_reason(HK_EXIT_INPUT_MODIFIED), "input_modified");
    assert_string_equal(harness_exit_reason(HK_EXIT_LAUNCH_STATE), "launch_state");
    assert_string_equal(harness_exit_reason(HK_EXIT_CUDA), "cuda_error");
    assert_string_equal(harness_exit_reason(137), "timeout");
    assert_string_equal(harness_exit_reason(42), "exit_42");
}

/* The launcher holds no candidate text and no launch of its own; a candidate's image is
 * its device code alone. Both compile, the image's entry for a template kernel is found,
 * and on a GPU the launcher runs the image. */
static void launcher_and_image(void **state)
{
    (void)state;
    spec *s = load("tiled_template.bench.json");
    char *text = NULL;
    assert_int_equal(harness_generate(s, NULL, &text), HK_OK);
    assert_null(strstr(text, s->source_path));
    assert_null(strstr(text, "hk_launch_kernel"));
    assert_null(strstr(text, "#define main"));
    assert_non_null(strstr(text, "hk_setup, NULL,\n"));
    /* plain C++: the runtime is linked in (hk_launcher_rt.cu), not compiled with it */
    assert_non_null(strstr(text, "#define HK_HARNESS_LAUNCHER\n#include \"hk_harness.h\"\n"));
    char lcu[512], lexe[512], mcu[512], cubin[512];
    snprintf(lcu, sizeof lcu, "%s/launcher.cpp", tmpdir);
    snprintf(lexe, sizeof lexe, "%s/launcher", tmpdir);
    snprintf(mcu, sizeof mcu, "%s/module.cu", tmpdir);
    snprintf(cubin, sizeof cubin, "%s/kernel.cubin", tmpdir);
    FILE *f = fopen(lcu, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    hk_free(text);
    assert_int_equal(harness_module_generate(s, s->source_path, &text), HK_OK);
    assert_non_null(strstr(text, "(void)&row_sum<128, double>;"));
    f = fopen(mcu, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    hk_free(text);
    if (access(NVCC, X_OK) != 0) {
        spec_free(s);
        skip();
    }
    char **la = NULL, **ca = NULL, *out = NULL;
    assert_int_equal(harness_launcher_argv(NVCC, "sm_90", HK_SOURCE_DIR "/include", lcu,
                                          launcher_runtime(), lexe, &la), HK_OK);
    assert_int_equal(harness_cubin_argv(s, NVCC, "sm_90", NULL, mcu, cubin, &ca), HK_OK);
    assert_string_equal(ca[1], "-cubin");
    int rc = run_capture(ca, &out);
    if (rc != 0)
        fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    hk_free(out);
    rc = run_capture(la, &out);
    if (rc != 0)
        fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    hk_free(out);
    char **names = NULL, *fn = NULL, *why = NULL;
    assert_int_equal(kimage_entries(cubin, &names), HK_OK);
    assert_int_equal(kimage_find(names, s->kernel, s->template_args, s->n_template_args, &fn, &why), HK_OK);
    kimage_names_free(names);
    /* without a GPU the launcher says so (no loader error: libcuda is opened at run time) */
    char *run[] = {lexe, "--mode", "run", "--size", "0", "--seed", "3", "--module", cubin,
                   "--function", fn, NULL};
    rc = run_capture(run, &out);
    if (have_gpu())
        assert_int_equal(rc, HK_EXIT_OK);
    else
        assert_int_equal(rc, HK_EXIT_NO_GPU);
    hk_free(out);
    /* a launcher refuses to run without an image */
    char *bare[] = {lexe, "--mode", "run", "--size", "0", NULL};
    assert_int_equal(run_capture(bare, &out), HK_EXIT_USAGE);
    assert_non_null(strstr(out, "--module"));
    hk_free(out);
    hk_free(fn);
    harness_argv_free(la);
    harness_argv_free(ca);
    spec_free(s);
}

/* Every launch starts from the image's writable globals as loaded (docs/referee.md, "Every
 * launch starts from the same device state"): a saxpy that counts its launches in a
 * __device__ variable and adds 1 once one has finished (specs/saxpy_launch_state.cu) is
 * right on every timed launch against the honest saxpy as reference (without the restore
 * the checked launches, the last always, would be off by one: wrong_answer), its time-mode
 * result says it restored 2 globals; run mode notes the change, and with --launch-state
 * check fails the process (exit 11, launch_state) naming the variable and its bytes. On the
 * CPU: the image builds and its globals are the two counters; the launcher answers no_gpu. */
static void launch_state_restored(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0)
        skip();
    spec *s = load("saxpy.bench.json");
    char *text = NULL;
    char lcu[512], lexe[512], mcu[512], cubin[512], scu[512], scubin[512];
    snprintf(lcu, sizeof lcu, "%s/ls-launcher.cpp", tmpdir);
    snprintf(lexe, sizeof lexe, "%s/ls-launcher", tmpdir);
    snprintf(mcu, sizeof mcu, "%s/ls-module.cu", tmpdir);
    snprintf(cubin, sizeof cubin, "%s/ls-honest.cubin", tmpdir);
    snprintf(scu, sizeof scu, "%s/ls-state.cu", tmpdir);
    snprintf(scubin, sizeof scubin, "%s/ls-state.cubin", tmpdir);
    assert_int_equal(harness_generate(s, NULL, &text), HK_OK);
    FILE *f = fopen(lcu, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    hk_free(text);
    assert_int_equal(harness_module_generate(s, s->source_path, &text), HK_OK);
    f = fopen(mcu, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    hk_free(text);
    assert_int_equal(harness_module_generate(s, HK_TEST_DATA "/specs/saxpy_launch_state.cu", &text), HK_OK);
    f = fopen(scu, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    hk_free(text);
    char **la = NULL, **ca = NULL, **sa = NULL, *out = NULL;
    assert_int_equal(harness_launcher_argv(NVCC, "sm_90", HK_SOURCE_DIR "/include", lcu,
                                          launcher_runtime(), lexe, &la), HK_OK);
    assert_int_equal(harness_cubin_argv(s, NVCC, "sm_90", NULL, mcu, cubin, &ca), HK_OK);
    assert_int_equal(harness_cubin_argv(s, NVCC, "sm_90", NULL, scu, scubin, &sa), HK_OK);
    char **argvs[] = {ca, sa, la};
    for (size_t k = 0; k < 3; k++) {
        int rc = run_capture(argvs[k], &out);
        if (rc != 0)
            fprintf(stderr, "%s\n", out);
        assert_int_equal(rc, 0);
        hk_free(out);
    }
    size_t len = 0;
    char *img = read_all(scubin, &len);
    int n_globals = 0;
    assert_int_equal(hk_kglobals_each((const unsigned char *)img, len, count_global, &n_globals), 0);
    assert_int_equal(n_globals, 2);
    hk_free(img);
    char *timed[] = {lexe, "--mode", "time", "--size", "0", "--seed", "5", "--module", scubin,
                     "--function", "saxpy", "--ref-module", cubin, "--ref-function", "saxpy",
                     "--min-reps", "12", "--max-reps", "12", "--checks", "12", NULL};
    int rc = run_capture(timed, &out);
    if (!have_gpu()) {
        assert_int_equal(rc, HK_EXIT_NO_GPU);
        hk_free(out);
        harness_argv_free(la);
        harness_argv_free(ca);
        harness_argv_free(sa);
        spec_free(s);
        skip(); /* the launches need a GPU */
    }
    if (rc != 0)
        fail_msg("timed with the restore: %s", out);
    assert_non_null(strstr(out, "\"globals_restored\":2"));
    hk_free(out);
    char *noted[] = {lexe, "--mode", "run", "--size", "0", "--combos", "1:0,2:1", "--module",
                     scubin, "--function", "saxpy", NULL};
    assert_int_equal(run_capture(noted, &out), 0);
    assert_non_null(strstr(out, "\"launch_state\":{\"globals\":2"));
    assert_non_null(strstr(out, "__device__ variable launches (4 bytes) changed"));
    hk_free(out);
    char *checked[] = {lexe, "--mode", "run", "--size", "0", "--combos", "1:0", "--module",
                       scubin, "--function", "saxpy", "--launch-state", "check", NULL};
    assert_int_equal(run_capture(checked, &out), HK_EXIT_LAUNCH_STATE);
    assert_non_null(strstr(out, "\"error\":\"launch_state\""));
    assert_non_null(strstr(out, "variable launches (4 bytes) changed: bytes 0..0 were 00 before the "
                                "launch and 01 after it"));
    hk_free(out);
    /* the honest image has no writable globals: nothing to restore, nothing to fail */
    char *honest[] = {lexe, "--mode", "run", "--size", "0", "--combos", "1:0", "--module", cubin,
                      "--function", "saxpy", "--launch-state", "check", NULL};
    assert_int_equal(run_capture(honest, &out), 0);
    assert_non_null(strstr(out, "\"launch_state\":{\"globals\":0"));
    hk_free(out);
    harness_argv_free(la);
    harness_argv_free(ca);
    harness_argv_free(sa);
    spec_free(s);
}

/* __constant__ inputs (the spec's "constants"): a program copies them to its own symbols,
 * a launcher into the loaded image's symbol, named as hk_constant_symbol says and as nvcc
 * emits it (checked on a compiled image); both compile; on a GPU the launcher runs. */
static void constant_inputs(void **state)
{
    (void)state;
    char sym[64];
    assert_int_equal(hk_constant_symbol("d_mask", sym, sizeof sym), 0);
    assert_string_equal(sym, "d_mask");
    assert_int_equal(hk_constant_symbol("ns::lut", sym, sizeof sym), 0);
    assert_string_equal(sym, "_ZN2ns3lutE");
    assert_int_equal(hk_constant_symbol("a::bc::d", sym, sizeof sym), 0);
    assert_string_equal(sym, "_ZN1a2bc1dE");
    assert_int_equal(hk_constant_symbol("ns::lut", sym, 8), -1);

    spec *s = load("conv_mask.bench.json");
    assert_int_equal(s->n_consts, 1);
    char *text = NULL;
    assert_int_equal(harness_generate(s, s->source_path, &text), HK_OK);
    assert_non_null(strstr(text, "static const hk_constdesc hk_consts[1] = {\n    { \"d_mask\", HK_DT_F32 },\n};"));
    assert_non_null(strstr(text, "static const hk_dist hk_const_dists[3][1]"));
    assert_non_null(strstr(text, "st->const_count[0] = (size_t)25LL;"));
    assert_non_null(strstr(text, "case 0: HK_CHECK(cudaMemcpyToSymbol(d_mask, host, bytes)); break;"));
    assert_non_null(strstr(text, "1, hk_consts, &hk_const_dists[0][0], hk_set_constant };"));
    hk_free(text);
    assert_int_equal(harness_generate(s, NULL, &text), HK_OK);
    assert_non_null(strstr(text, "{ \"d_mask\", HK_DT_F32 }"));
    assert_non_null(strstr(text, "1, hk_consts, &hk_const_dists[0][0], NULL };"));
    assert_null(strstr(text, "cudaMemcpyToSymbol"));
    char lcu[512], lexe[512], mcu[512], cubin[512];
    snprintf(lcu, sizeof lcu, "%s/conv_launcher.cpp", tmpdir);
    snprintf(lexe, sizeof lexe, "%s/conv_launcher", tmpdir);
    snprintf(mcu, sizeof mcu, "%s/conv_module.cu", tmpdir);
    snprintf(cubin, sizeof cubin, "%s/conv.cubin", tmpdir);
    FILE *f = fopen(lcu, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    hk_free(text);
    /* the image, with a namespaced constant beside the kernel's for the symbol check */
    assert_int_equal(harness_module_generate(s, s->source_path, &text), HK_OK);
    f = fopen(mcu, "w");
    assert_non_null(f);
    fputs(text, f);
    fputs("namespace hkt { __constant__ double lut[8]; }\n"
          "__global__ void hkt_read(double *o) { o[threadIdx.x] = hkt::lut[threadIdx.x & 7]; }\n", f);
    fclose(f);
    hk_free(text);
    if (access(NVCC, X_OK) != 0) {
        spec_free(s);
        skip();
    }
    char *log = NULL;
    assert_int_equal(wait_compile("conv", &log), 0); /* the program, by symbol */
    hk_free(log);
    char **la = NULL, **ca = NULL, *out = NULL;
    assert_int_equal(harness_launcher_argv(NVCC, "sm_90", HK_SOURCE_DIR "/include", lcu,
                                          launcher_runtime(), lexe, &la), HK_OK);
    assert_int_equal(harness_cubin_argv(s, NVCC, "sm_90", NULL, mcu, cubin, &ca), HK_OK);
    int rc = run_capture(ca, &out);
    if (rc != 0)
        fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    hk_free(out);
    rc = run_capture(la, &out);
    if (rc != 0)
        fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    hk_free(out);
    /* the symbols the launcher asks cuModuleGetGlobal for are the image's */
    if (system("command -v readelf >/dev/null 2>&1") == 0) {
        char cmd[1400], *rd = NULL;
        snprintf(cmd, sizeof cmd, "readelf -sW %s > %s/conv.syms", cubin, tmpdir);
        assert_int_equal(system(cmd), 0);
        snprintf(cmd, sizeof cmd, "%s/conv.syms", tmpdir);
        rd = slurp(cmd);
        char want[80];
        assert_int_equal(hk_constant_symbol("d_mask", sym, sizeof sym), 0);
        snprintf(want, sizeof want, " %s\n", sym);
        assert_non_null(strstr(rd, want));
        assert_int_equal(hk_constant_symbol("hkt::lut", sym, sizeof sym), 0);
        snprintf(want, sizeof want, " %s\n", sym);
        assert_non_null(strstr(rd, want));
        hk_free(rd);
    }
    char **names = NULL, *fn = NULL, *why = NULL;
    assert_int_equal(kimage_entries(cubin, &names), HK_OK);
    assert_int_equal(kimage_find(names, s->kernel, NULL, 0, &fn, &why), HK_OK);
    kimage_names_free(names);
    char outfile[600];
    snprintf(outfile, sizeof outfile, "%s/conv.out", tmpdir);
    char *run[] = {lexe, "--mode", "run", "--size", "0", "--seed", "3", "--module", cubin,
                   "--function", fn, "--out", outfile, NULL};
    rc = run_capture(run, &out);
    if (have_gpu()) {
        if (rc != 0)
            fprintf(stderr, "%s\n", out);
        assert_int_equal(rc, HK_EXIT_OK);
    } else {
        assert_int_equal(rc, HK_EXIT_NO_GPU);
        fprintf(stderr, "skipped: no GPU (the launcher's run with constants)\n");
    }
    hk_free(out);
    hk_free(fn);
    harness_argv_free(la);
    harness_argv_free(ca);
    spec_free(s);
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
        cmocka_unit_test(combos_mode),
        cmocka_unit_test(fill_generator),
        cmocka_unit_test(compiles_transpose_2d),
        cmocka_unit_test(compiles_reduction_inout),
        cmocka_unit_test(compiles_half),
        cmocka_unit_test(compiles_template),
        cmocka_unit_test(nvcc_refuses_wrong_arity),
        cmocka_unit_test(launcher_and_image),
        cmocka_unit_test(launch_state_restored),
        cmocka_unit_test(constant_inputs),
    };
    return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
