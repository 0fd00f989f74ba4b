/* `hkls history`, `hkls report` and `hkls apply` end to end: a database is filled through
 * the store API (an episode with a baseline, a faster verified version with a launch
 * change, a rejected one, and a version that edits outside the kernel), then the built
 * binary (HK_BINARY_DIR/hkls, or $HKLS_BIN) is run against it and a real file. Apply is
 * checked for the three outcomes: whole verified text, a kernel spliced into a file edited
 * elsewhere, and refusals when the kernel (or, for an outside edit, the file) changed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hk.h"
#include "store/store.h"

extern char **environ;

static const char *hkls_path(void)
{
    const char *p = getenv("HKLS_BIN");
    return p && *p ? p : HK_BINARY_DIR "/hkls";
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    fclose(f);
    return b;
}

static void write_all(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

struct run {
    int code;
    char *out;
    char *err;
};

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Runs hkls with args (NULL-terminated), HK_DB unset so only --db counts. */
static void run_hkls(const char *const *args, struct run *r)
{
    const char *bin = hkls_path();
    if (access(bin, X_OK) != 0)
        fail_msg("%s is not built: run `cmake --build` for the hkls target before ctest", bin);
    char *argv[32];
    size_t n = 0;
    argv[n++] = (char *)bin;
    for (size_t i = 0; args[i] && n < 31; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    char *envp[512];
    size_t e = 0;
    for (size_t i = 0; environ[i] && e < 500; i++)
        if (strncmp(environ[i], "HK_DB=", 6) != 0)
            envp[e++] = environ[i];
    envp[e] = NULL;
    char out_path[] = "/tmp/hk-hist-out-XXXXXX", err_path[] = "/tmp/hk-hist-err-XXXXXX";
    int ofd = mkstemp(out_path), efd = mkstemp(err_path);
    assert_true(ofd >= 0 && efd >= 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ofd, 1);
    posix_spawn_file_actions_adddup2(&fa, efd, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, bin, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    assert_int_equal(rc, 0);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    close(ofd);
    close(efd);
    r->code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    r->out = read_all(out_path);
    r->err = read_all(err_path);
    unlink(out_path);
    unlink(err_path);
    if (getenv("HK_TEST_VERBOSE"))
        fprintf(stderr, "--- hkls %s: exit %d\n%s\n--- stderr\n%s\n", args[0], r->code, r->out,
                r->err);
}

/* ---- the fixture: a file, its history ---- */

static const char original[] =
    "// saxpy example\n"
    "#define BLOCK 256\n"
    "__device__ float twice(float v) { return 2.0f * v; }\n"
    "\n"
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n"
    "\n"
    "void launch(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    saxpy<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(n, a, x, y);\n"
    "}\n";

/* v1: the kernel only (restrict, launch bounds); measured with block 128 */
static const char v1_kernel[] =
    "__global__ void __launch_bounds__(128) saxpy(int n, float a, const float *__restrict__ x,\n"
    "                                             float *__restrict__ y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}";

/* v4: the grid-stride kernel, measured on a grid of 8 blocks per SM */
static const char v4_kernel[] =
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}";

static char dir[64];
static char file[128], db_path[128];
static char *v1_text, *v3_text, *v4_text;
static int64_t ep_id, ep2_id;

static char *replace(const char *text, const char *old, const char *new_)
{
    const char *p = strstr(text, old);
    assert_non_null(p);
    size_t a = (size_t)(p - text), ol = strlen(old), nl = strlen(new_), tl = strlen(text);
    char *r = malloc(tl - ol + nl + 1);
    assert_non_null(r);
    memcpy(r, text, a);
    memcpy(r + a, new_, nl);
    memcpy(r + a + nl, p + ol, tl - a - ol + 1);
    return r;
}

static const char original_kernel[] =
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}";

static void add_measure(store *s, int64_t vid, int64_t eid, enum store_measure_kind kind, double ms)
{
    store_measurement m = { 0 };
    m.version_id = vid;
    m.episode_id = eid;
    m.kind = kind;
    m.median_ms = ms;
    m.p10_ms = ms * 0.98;
    m.p90_ms = ms * 1.02;
    m.spread = NAN;
    m.reps = 50;
    m.bytes_per_s = m.flop_per_s = m.roofline_pct = NAN;
    m.size_key = "n=16777216";
    assert_int_equal(store_measurement_add(s, &m, NULL), HK_OK);
}

static int setup(void **state)
{
    hk_alloc_init_json();
    snprintf(dir, sizeof dir, "/tmp/hk-cli-hist-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(file, sizeof file, "%s/saxpy.cu", dir);
    snprintf(db_path, sizeof db_path, "%s/history.db", dir);
    write_all(file, original);
    v1_text = replace(original, original_kernel, v1_kernel);
    v3_text = replace(original, "#define BLOCK 256", "#define BLOCK 512");
    v4_text = replace(original, original_kernel, v4_kernel);

    store *s = NULL;
    assert_int_equal(store_open(db_path, &s), HK_OK);
    char kh[STORE_HASH_HEX];
    store_content_hash(original_kernel, strlen(original_kernel), kh);
    int64_t kid;
    assert_int_equal(store_kernel_upsert(s, file, "saxpy", kh, &kid), HK_OK);
    store_episode_new en = { .kernel_id = kid, .name = "saxpy sm_90", .target = "nvidia:sm_90",
                             .backend = "nvidia", .arch = "sm_90", .engine = "builtin" };
    assert_int_equal(store_episode_create(s, &en, &ep_id), HK_OK);
    assert_int_equal(store_episode_set_device(s, ep_id, "NVIDIA H200"), HK_OK);
    store_version_new vn = { .episode_id = ep_id, .source = original,
                             .launch_json = "{\"flags\":[],\"block\":null}",
                             .status = STORE_V_VERIFIED, .produced_by = "original" };
    int64_t v0, v1, v2, v3, v4;
    assert_int_equal(store_version_add(s, &vn, &v0), HK_OK);
    vn.parent_id = v0;
    vn.source = v1_text;
    vn.launch_json = "{\"flags\":[\"--use_fast_math\"],\"block\":[128,1,1]}";
    vn.produced_by = "builtin:restrict+launch_bounds";
    assert_int_equal(store_version_add(s, &vn, &v1), HK_OK);
    vn.parent_id = v1;
    vn.source = "// broken\n";
    vn.launch_json = NULL;
    vn.status = STORE_V_REJECTED;
    vn.produced_by = "builtin:unroll";
    assert_int_equal(store_version_add(s, &vn, &v2), HK_OK);
    assert_int_equal(store_version_set_status(s, v2, STORE_V_REJECTED, "wrong_answer",
                                              "max rel err 0.5 at y[17]"), HK_OK);
    vn.parent_id = v0;
    vn.source = v3_text;
    vn.status = STORE_V_VERIFIED;
    vn.produced_by = "builtin:tunable BLOCK \u2192 512";
    assert_int_equal(store_version_add(s, &vn, &v3), HK_OK);
    vn.source = v4_text;
    vn.launch_json = "{\"flags\":[],\"block\":[256,1,1],\"grid_mode\":\"sm_multiple\","
                     "\"grid_per_sm\":8}";
    vn.produced_by = "builtin: grid-stride loop; 8 blocks/SM";
    assert_int_equal(store_version_add(s, &vn, &v4), HK_OK);
    assert_int_equal(store_version_set_accuracy(s, v1, 0, 1.2e-7), HK_OK);
    add_measure(s, v0, ep_id, STORE_M_BASELINE, 2.0);
    add_measure(s, v1, ep_id, STORE_M_VERIFY, 1.0);
    add_measure(s, v3, ep_id, STORE_M_VERIFY, 1.6);
    assert_int_equal(store_episode_set_baseline(s, ep_id, v0), HK_OK);
    assert_int_equal(store_episode_set_best(s, ep_id, v1), HK_OK);
    assert_int_equal(store_event_add(s, ep_id, "init", "toolchain", NULL, NULL), HK_OK);
    assert_int_equal(store_event_add(s, ep_id, "baseline", "2.0 ms", NULL, NULL), HK_OK);
    assert_int_equal(store_episode_finish(s, ep_id, STORE_EP_COMPLETED, NULL), HK_OK);
    /* a second episode that found nothing better */
    en.name = "saxpy again";
    assert_int_equal(store_episode_create(s, &en, &ep2_id), HK_OK);
    assert_int_equal(store_episode_set_baseline(s, ep2_id, v0), HK_OK);
    assert_int_equal(store_episode_finish(s, ep2_id, STORE_EP_STOPPED, "stopped by the user"), HK_OK);
    store_close(s);
    return 0;
}

static int teardown(void **state)
{
    free(v1_text);
    free(v3_text);
    free(v4_text);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void reset_file(const char *text)
{
    write_all(file, text);
}

static char *ep_arg(int64_t id)
{
    static char b[32];
    snprintf(b, sizeof b, "%lld", (long long)id);
    return b;
}

/* ---- history ---- */

static void history_text(void **state)
{
    struct run r;
    const char *a[] = { "history", file, "--db", db_path, NULL };
    run_hkls(a, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "saxpy.cu: saxpy"));
    assert_non_null(strstr(r.out, "saxpy sm_90"));
    assert_non_null(strstr(r.out, "completed"));
    assert_non_null(strstr(r.out, "stopped"));
    assert_non_null(strstr(r.out, "NVIDIA H200"));
    assert_non_null(strstr(r.out, "best v1 2.00x"));
    assert_non_null(strstr(r.out, "<- v0"));
    assert_non_null(strstr(r.out, "<- v1"));
    assert_non_null(strstr(r.out, "wrong_answer"));
    assert_non_null(strstr(r.out, "1.0000 ms"));
    assert_non_null(strstr(r.out, "1.25x")); /* v3: 2.0 / 1.6 */
    /* Columns hold on long and non-ASCII labels: in every version row the column after
     * produced_by (v4's is 38 characters, v3's has a 3-byte arrow) starts at the same
     * terminal column. */
    static const char *const by[] = {"original", "builtin:restrict+launch_bounds",
                                     "builtin:unroll", "builtin:tunable BLOCK \u2192 512",
                                     "builtin: grid-stride loop; 8 blocks/SM"};
    long col = -1;
    for (size_t i = 0; i < sizeof by / sizeof *by; i++) {
        const char *p = strstr(r.out, by[i]);
        assert_non_null(p);
        const char *line = p;
        while (line > r.out && line[-1] != '\n')
            line--;
        const char *q = p + strlen(by[i]);
        while (*q == ' ')
            q++;
        long c = 0; /* terminal columns: UTF-8 continuation bytes take none */
        for (const char *x = line; x < q; x++)
            c += ((unsigned char)*x & 0xc0) != 0x80;
        if (col < 0)
            col = c;
        assert_int_equal(c, col);
    }
    run_free(&r);
}

static void history_json(void **state)
{
    struct run r;
    const char *a[] = { "history", "--db", db_path, "--json", NULL };
    run_hkls(a, &r);
    assert_int_equal(r.code, 0);
    json_error_t err;
    json_t *j = json_loads(r.out, 0, &err);
    assert_non_null(j);
    json_t *ks = json_object_get(j, "kernels");
    assert_int_equal(json_array_size(ks), 1);
    json_t *k = json_array_get(ks, 0);
    assert_string_equal(json_string_value(json_object_get(k, "name")), "saxpy");
    json_t *eps = json_object_get(k, "episodes"), *vs = json_object_get(k, "versions");
    assert_int_equal(json_array_size(eps), 2);
    assert_int_equal(json_array_size(vs), 5);
    /* newest episode first */
    assert_int_equal(json_integer_value(json_object_get(json_array_get(eps, 0), "id")), ep2_id);
    json_t *v1 = json_array_get(vs, 1);
    assert_int_equal(json_integer_value(json_object_get(v1, "number")), 1);
    assert_true(fabs(json_number_value(json_object_get(v1, "speedup")) - 2.0) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(json_array_get(vs, 2), "reject_reason")),
                        "wrong_answer");
    json_decref(j);
    run_free(&r);
}

static void history_misses(void **state)
{
    struct run r;
    const char *a[] = { "history", "--db", "/nonexistent/dir/h.db", NULL };
    run_hkls(a, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "no history database at /nonexistent/dir/h.db"));
    assert_int_equal(access("/nonexistent/dir/h.db", F_OK), -1); /* never created */
    run_free(&r);
    const char *b[] = { "history", file, "--kernel", "other", "--db", db_path, NULL };
    run_hkls(b, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "no history for"));
    run_free(&r);
    const char *c[] = { "history", "--db", db_path, "--limit", "0", NULL };
    run_hkls(c, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
    const char *d[] = { "history", "a.cu", "b.cu", NULL };
    run_hkls(d, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
}

/* hkls history's text in Chinese (LC_ALL): the headings, the best version, the note on a
 * failed episode, the error column; the status names are codes and stay (docs/i18n.md). */
static void history_in_chinese(void **state)
{
    (void)state;
    struct run r;
    setenv("LC_ALL", "zh_CN.UTF-8", 1);
    const char *a[] = { "history", file, "--db", db_path, NULL };
    run_hkls(a, &r);
    const char *b[] = { "history", file, "--kernel", "other", "--db", db_path, NULL };
    struct run none;
    run_hkls(b, &none);
    unsetenv("LC_ALL");
    assert_int_equal(r.code, 0);
    if (!strstr(r.out, "  优化任务\n") || !strstr(r.out, "  版本\n") ||
        !strstr(r.out, "最佳版本 v1 2.00x") || !strstr(r.out, "completed"))
        fail_msg("not the Chinese history:\n%s", r.out);
    static const char *const english[] = {"  episodes\n", "  versions\n", "best v1", "max rel err",
                                          "      why: ", "      note: "};
    for (size_t i = 0; i < sizeof english / sizeof *english; i++)
        if (strstr(r.out, english[i]))
            fail_msg("English \"%s\" left in:\n%s", english[i], r.out);
    assert_int_equal(none.code, 0);
    if (!strstr(none.out, ": other 没有历史记录\n"))
        fail_msg("no Chinese 'no history':\n%s", none.out);
    run_free(&r);
    run_free(&none);
}

/* ---- report ---- */

static void report_formats(void **state)
{
    struct run r;
    const char *md[] = { "report", ep_arg(ep_id), "--db", db_path, NULL };
    run_hkls(md, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "saxpy"));
    assert_non_null(strstr(r.out, "#"));
    run_free(&r);

    const char *js[] = { "report", "saxpy sm_90", "--format", "json", "--db", db_path, NULL };
    run_hkls(js, &r);
    assert_int_equal(r.code, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "schema")), "hyperkernel.report/1");
    json_decref(j);
    run_free(&r);

    char out[160];
    snprintf(out, sizeof out, "%s/r.html", dir);
    const char *html[] = { "report", ep_arg(ep_id), "--format=html", "--db", db_path, "-o", out, NULL };
    run_hkls(html, &r);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, "");
    char *page = read_all(out);
    assert_non_null(strstr(page, "<html"));
    assert_non_null(strstr(page, "saxpy"));
    free(page);
    run_free(&r);
}

static void report_errors(void **state)
{
    struct run r;
    const char *a[] = { "report", "999", "--db", db_path, NULL };
    run_hkls(a, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "no episode '999'"));
    run_free(&r);
    const char *b[] = { "report", ep_arg(ep_id), "--format", "pdf", "--db", db_path, NULL };
    run_hkls(b, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "expected md, html or json"));
    run_free(&r);
    const char *c[] = { "report", "--db", db_path, NULL };
    run_hkls(c, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
}

/* ---- apply ---- */

static void apply_dry_run_then_apply(void **state)
{
    reset_file(original);
    struct run r;
    const char *dry[] = { "apply", ep_arg(ep_id), "--db", db_path, "--dry-run", NULL };
    run_hkls(dry, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "+__global__ void __launch_bounds__(128) saxpy"));
    assert_non_null(strstr(r.out, "-__global__ void saxpy(int n"));
    assert_non_null(strstr(r.out, "dry run: would apply v1"));
    /* v1 was measured with block 128: the #define only the launch uses follows */
    assert_non_null(strstr(r.out, "-#define BLOCK 256"));
    assert_non_null(strstr(r.out, "+#define BLOCK 128"));
    assert_non_null(strstr(r.out, "launch: BLOCK 256 -> 128 (line 2)"));
    run_free(&r);
    char *now = read_all(file);
    assert_string_equal(now, original);
    free(now);

    const char *a[] = { "apply", ep_arg(ep_id), "--db", db_path, NULL };
    run_hkls(a, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "applied v1 (speedup 2.00x"));
    assert_non_null(strstr(r.out, "launch: BLOCK 256 -> 128 (line 2)"));
    assert_null(strstr(r.out, "set it at the kernel's launch site"));
    assert_non_null(strstr(r.out, "note: v1 was compiled with --use_fast_math"));
    run_free(&r);
    now = read_all(file);
    char *want = replace(v1_text, "#define BLOCK 256", "#define BLOCK 128");
    assert_string_equal(now, want); /* the verified text, launched as measured */
    free(want);
    free(now);
    /* again: the file holds v1 and its launch already, as the editor's Apply says */
    run_hkls(a, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "already holds v1 of kernel saxpy: nothing to do"));
    run_free(&r);
    now = read_all(file);
    want = replace(v1_text, "#define BLOCK 256", "#define BLOCK 128");
    assert_string_equal(now, want); /* untouched */
    free(want);
    free(now);
}

static void apply_refuses_changed_kernel(void **state)
{
    char *edited = replace(original, "a * x[i] + y[i]", "a * x[i] + y[i] + 0.0f");
    reset_file(edited);
    struct run r;
    const char *a[] = { "apply", ep_arg(ep_id), "--db", db_path, NULL };
    run_hkls(a, &r);
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "refused: kernel saxpy in"));
    assert_non_null(strstr(r.err, "changed since episode"));
    assert_non_null(strstr(r.err, "lines 5-10"));
    assert_non_null(strstr(r.err, "+        y[i] = a * x[i] + y[i] + 0.0f;"));
    assert_non_null(strstr(r.err, "-        y[i] = a * x[i] + y[i];"));
    run_free(&r);
    char *now = read_all(file);
    assert_string_equal(now, edited); /* untouched */
    free(now);
    free(edited);

    /* the kernel is gone */
    char *renamed = replace(original, "void saxpy(", "void saxpy2(");
    reset_file(renamed);
    run_hkls(a, &r);
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "no longer defines kernel saxpy"));
    run_free(&r);
    free(renamed);
}

static void apply_splices_into_a_file_edited_elsewhere(void **state)
{
    char *edited = replace(original, "// saxpy example\n", "// saxpy example, edited by hand\n// more\n");
    reset_file(edited);
    struct run r;
    const char *a[] = { "apply", ep_arg(ep_id), "--version", "v1", "--db", db_path, NULL };
    run_hkls(a, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "line 6"));
    run_free(&r);
    char *now = read_all(file);
    char *spliced = replace(edited, original_kernel, v1_kernel);
    char *want = replace(spliced, "#define BLOCK 256", "#define BLOCK 128");
    assert_string_equal(now, want);
    free(now);
    free(want);
    free(spliced);

    /* v3 changes the #define outside the kernel: fine on the untouched file ... */
    reset_file(original);
    const char *b[] = { "apply", ep_arg(ep_id), "--version", "3", "--db", db_path, NULL };
    run_hkls(b, &r);
    assert_int_equal(r.code, 0);
    run_free(&r);
    now = read_all(file);
    assert_string_equal(now, v3_text);
    free(now);
    /* ... refused when the file changed elsewhere */
    reset_file(edited);
    run_hkls(b, &r);
    assert_int_equal(r.code, 3);
    assert_non_null(strstr(r.err, "outside kernel saxpy"));
    assert_non_null(strstr(r.err, "line 2 of the version"));
    run_free(&r);
    now = read_all(file);
    assert_string_equal(now, edited);
    free(now);
    free(edited);
}

/* The grid-stride version measured on 8 blocks per SM: its launch gets that grid, through
 * a helper added once; a launch that cannot be rewritten leaves a note, not a failure. */
static void apply_writes_the_measured_launch(void **state)
{
    reset_file(original);
    struct run r;
    const char *dry[] = { "apply", ep_arg(ep_id), "--version", "4", "--db", db_path, "--dry-run", NULL };
    run_hkls(dry, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "+static int hk_sm_count(void)"));
    assert_non_null(strstr(r.out, "-    saxpy<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(n, a, x, y);"));
    assert_non_null(strstr(r.out, "+    saxpy<<<hk_sm_count() * 8, BLOCK>>>(n, a, x, y);"));
    run_free(&r);
    char *now = read_all(file);
    assert_string_equal(now, original);
    free(now);

    const char *a[] = { "apply", ep_arg(ep_id), "--version", "4", "--db", db_path, NULL };
    run_hkls(a, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "applied v4"));
    assert_non_null(strstr(r.out, "kernel saxpy, line 5\n")); /* the helper went below it */
    assert_non_null(strstr(r.out, "launch: launch of saxpy at line "));
    assert_non_null(strstr(r.out, "-> `hk_sm_count() * 8`; added hk_sm_count() at line 11"));
    run_free(&r);
    now = read_all(file);
    assert_non_null(strstr(now, v4_kernel));
    assert_non_null(strstr(now, "    saxpy<<<hk_sm_count() * 8, BLOCK>>>(n, a, x, y);\n"));
    const char *helper = strstr(now, "static int hk_sm_count(void)");
    assert_non_null(helper);
    assert_null(strstr(helper + 1, "static int hk_sm_count(void)"));
    assert_non_null(strstr(now, "cudaDevAttrMultiProcessorCount"));
    assert_true(helper > strstr(now, v4_kernel) && helper < strstr(now, "void launch("));
    free(now);

    /* BLOCK also used outside the launch: v1's block 128 cannot be written, the kernel is */
    char *edited = replace(original, "#define BLOCK 256\n",
                           "#define BLOCK 256\nstatic const int tile = BLOCK;\n");
    reset_file(edited);
    const char *b[] = { "apply", ep_arg(ep_id), "--version", "1", "--db", db_path, NULL };
    run_hkls(b, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "applied v1"));
    assert_non_null(strstr(r.out, "note: v1's launch was not written: launch of saxpy at line 16: "
                                  "its block is BLOCK, which is also used at "
                                  "line 3"));
    run_free(&r);
    now = read_all(file);
    char *want = replace(edited, original_kernel, v1_kernel);
    assert_string_equal(now, want);
    free(want);
    free(now);
    free(edited);
}

static void apply_refuses_bad_versions(void **state)
{
    reset_file(original);
    struct run r;
    const char *rej[] = { "apply", ep_arg(ep_id), "--version", "2", "--db", db_path, NULL };
    run_hkls(rej, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "v2 is not verified (rejected: wrong_answer)"));
    run_free(&r);
    const char *none[] = { "apply", ep_arg(ep_id), "--version", "9", "--db", db_path, NULL };
    run_hkls(none, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "no version v9"));
    run_free(&r);
    const char *nobest[] = { "apply", "saxpy again", "--db", db_path, NULL };
    run_hkls(nobest, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "no verified version faster"));
    run_free(&r);
    const char *badv[] = { "apply", ep_arg(ep_id), "--version", "x", "--db", db_path, NULL };
    run_hkls(badv, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
    /* the same version as in the file: nothing to do */
    const char *v0[] = { "apply", ep_arg(ep_id), "--version", "0", "--db", db_path, NULL };
    run_hkls(v0, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "nothing to do"));
    run_free(&r);
    char *now = read_all(file);
    assert_string_equal(now, original);
    free(now);
}

/* Issue 14: report's and apply's errors and apply's result lines in zh-CN from the
 * environment; ids, paths, version numbers, status codes and the diff stay as they are,
 * and the file is untouched by a dry run. (The tests above check the English.) */
static void report_and_apply_in_chinese(void **state)
{
    reset_file(original);
    struct run nf, fmt, dry, rej, usage;
    setenv("LC_ALL", "zh_CN.UTF-8", 1);
    const char *a[] = { "report", "999", "--db", db_path, NULL };
    run_hkls(a, &nf);
    const char *b[] = { "report", ep_arg(ep_id), "--format", "pdf", "--db", db_path, NULL };
    run_hkls(b, &fmt);
    const char *c[] = { "apply", ep_arg(ep_id), "--db", db_path, "--dry-run", NULL };
    run_hkls(c, &dry);
    const char *d[] = { "apply", ep_arg(ep_id), "--version", "2", "--db", db_path, NULL };
    run_hkls(d, &rej);
    const char *e[] = { "apply", NULL };
    run_hkls(e, &usage);
    unsetenv("LC_ALL");
    assert_int_equal(nf.code, 1);
    assert_non_null(strstr(nf.err, "hkls report：没有优化任务 '999'（见 hkls history）"));
    assert_int_equal(fmt.code, 2);
    assert_non_null(strstr(fmt.err, "hkls report：--format pdf：应为 md、html 或 json"));
    assert_int_equal(dry.code, 0);
    char want[256];
    snprintf(want, sizeof want, "]，优化任务 #%lld）应用到 %s\n", (long long)ep_id, file);
    if (!strstr(dry.out, "试运行：将把 v1（加速比 2.00x [") || !strstr(dry.out, want) || !strstr(dry.out, "注意：v1 编译时使用了 --use_fast_math：") ||
        !strstr(dry.out, "+#define BLOCK 128") || strstr(dry.out, "dry run") ||
        strstr(dry.out, "note: "))
        fail_msg("not the Chinese dry run:\n%s", dry.out);
    char *now = read_all(file);
    assert_string_equal(now, original);
    free(now);
    assert_int_equal(rej.code, 1);
    assert_non_null(strstr(rej.err, "hkls apply：v2 未通过验证（rejected: wrong_answer）"));
    assert_int_equal(usage.code, 2);
    assert_non_null(strstr(usage.err, "用法：hkls apply EPISODE [--version N]"));
    run_free(&nf);
    run_free(&fmt);
    run_free(&dry);
    run_free(&rej);
    run_free(&usage);
}

/* Issue 15: an episode whose worker was killed is shown as interrupted by `hkls report`
 * and `hkls history` (not "running" forever), the same test the editor's server applies
 * (store_mark_interrupted); one whose worker is alive stays running. */
static void killed_worker_shows_interrupted(void **state)
{
    char db[160];
    snprintf(db, sizeof db, "%s/killed.db", dir);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        pause(); /* the "worker", killed below */
        _exit(0);
    }
    store *s = NULL;
    assert_int_equal(store_open(db, &s), HK_OK);
    char kh[STORE_HASH_HEX];
    store_content_hash(original_kernel, strlen(original_kernel), kh);
    int64_t kid, killed, alive;
    assert_int_equal(store_kernel_upsert(s, file, "saxpy", kh, &kid), HK_OK);
    store_episode_new en = { .kernel_id = kid, .name = "killed", .target = "nvidia",
                             .backend = "nvidia", .arch = "sm_90", .engine = "builtin",
                             .pid = (int)child };
    assert_int_equal(store_episode_create(s, &en, &killed), HK_OK);
    en.name = "alive";
    en.pid = (int)getpid(); /* this test: alive while hkls looks */
    assert_int_equal(store_episode_create(s, &en, &alive), HK_OK);
    store_close(s);
    assert_int_equal(kill(child, SIGKILL), 0);
    int ws;
    assert_int_equal(waitpid(child, &ws, 0), child);

    struct run r;
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)killed);
    const char *rep[] = { "report", id, "--format", "json", "--db", db, NULL };
    run_hkls(rep, &r);
    assert_int_equal(r.code, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "episode"),
                                                          "status")),
                        "interrupted");
    json_decref(j);
    run_free(&r);

    const char *hist[] = { "history", "--db", db, "--json", NULL };
    run_hkls(hist, &r);
    assert_int_equal(r.code, 0);
    j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *eps = json_object_get(json_array_get(json_object_get(j, "kernels"), 0), "episodes");
    assert_int_equal(json_array_size(eps), 2);
    size_t i;
    json_t *e;
    json_array_foreach(eps, i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *st = json_string_value(json_object_get(e, "status"));
        assert_string_equal(st, !strcmp(name, "killed") ? "interrupted" : "running");
    }
    json_decref(j);
    run_free(&r);
    const char *text[] = { "history", "--db", db, NULL };
    run_hkls(text, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "interrupted"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(history_text),
        cmocka_unit_test(history_json),
        cmocka_unit_test(history_misses),
        cmocka_unit_test(history_in_chinese),
        cmocka_unit_test(report_formats),
        cmocka_unit_test(report_errors),
        cmocka_unit_test(apply_dry_run_then_apply),
        cmocka_unit_test(apply_refuses_changed_kernel),
        cmocka_unit_test(apply_splices_into_a_file_edited_elsewhere),
        cmocka_unit_test(apply_writes_the_measured_launch),
        cmocka_unit_test(apply_refuses_bad_versions),
        cmocka_unit_test(report_and_apply_in_chinese),
        cmocka_unit_test(killed_worker_shows_interrupted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
