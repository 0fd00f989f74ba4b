/* Report: the line diff (against `diff -u` output kept in tests/data/report, and as a
 * property on random inputs: the patch applies and is minimal), HTML escaping, and the
 * JSON / Markdown / HTML reports of a fixture episode, including a hostile kernel name,
 * bad UTF-8, caps, files written atomically and allocation failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "report/report.h"
#include "store/store.h"

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/report/%s", HK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    p[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return p;
}

static void diff_matches_gnu_diff(void **state)
{
    const char *cases[][5] = {{"saxpy_v0.cu", "saxpy_best.cu", "saxpy.diff", "v0 (baseline)",
                               "v3 (best)"},
                              {"lines_a.txt", "lines_b.txt", "lines.diff", "a", "b"}};
    for (size_t i = 0; i < 2; i++) {
        size_t la, lb;
        char *a = slurp(cases[i][0], &la), *b = slurp(cases[i][1], &lb),
             *want = slurp(cases[i][2], NULL);
        struct hk_buf out;
        hk_buf_init(&out, 1 << 20);
        assert_int_equal(report_diff_unified(a, la, b, lb, cases[i][3], cases[i][4], 3, &out),
                         HK_OK);
        assert_string_equal(out.data, want);
        hk_buf_free(&out);
        free(a);
        free(b);
        free(want);
    }
    /* A missing final newline is marked as diff -u marks it. */
    struct hk_buf out;
    hk_buf_init(&out, 4096);
    assert_int_equal(report_diff_unified("a\nb\nc", 5, "a\nB\nc\nd", 7, "x", "y", 3, &out), HK_OK);
    assert_string_equal(out.data, "--- x\n+++ y\n@@ -1,3 +1,4 @@\n a\n-b\n-c\n"
                                  "\\ No newline at end of file\n+B\n+c\n+d\n"
                                  "\\ No newline at end of file\n");
    hk_buf_reset(&out);
    /* Empty to something, something to empty, equal texts. */
    assert_int_equal(report_diff_unified("", 0, "x\n", 2, "a", "b", 3, &out), HK_OK);
    assert_string_equal(out.data, "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n");
    hk_buf_reset(&out);
    assert_int_equal(report_diff_unified("x\ny\n", 4, "", 0, "a", "b", 3, &out), HK_OK);
    assert_string_equal(out.data, "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-x\n-y\n");
    hk_buf_reset(&out);
    assert_int_equal(report_diff_unified("same\n", 5, "same\n", 5, "a", "b", 3, &out), HK_OK);
    assert_int_equal(out.len, 0);
    hk_buf_free(&out);
}

/* Applies a unified diff to a (lines), checking every context and deleted line. */
static char *apply_patch(const char *a, const char *patch)
{
    /* Split a into lines (each keeps its '\n'). */
    const char *lines[256];
    size_t lens[256], n = 0;
    for (const char *p = a; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        lines[n] = p;
        lens[n++] = len;
        p += len;
    }
    char *res = calloc(1, 8192);
    size_t pos = 0; /* next line of a to copy */
    const char *p = strstr(patch, "@@");
    while (p && *p) {
        int a_start = 0;
        /* "@@ -l[,c] +l[,c] @@" */
        assert_true(sscanf(p, "@@ -%d", &a_start) == 1);
        const char *comma = strchr(p + 4, ',');
        const char *plus = strchr(p + 3, '+');
        int a_count = (comma && comma < plus) ? atoi(comma + 1) : 1;
        size_t first = a_count == 0 ? (size_t)a_start : (size_t)a_start - 1;
        while (pos < first) {
            strncat(res, lines[pos], lens[pos]);
            pos++;
        }
        p = strchr(p, '\n') + 1;
        while (*p && strncmp(p, "@@", 2) != 0) {
            const char *nl = strchr(p, '\n');
            size_t len = (size_t)(nl - p) + 1;
            bool no_nl = strncmp(nl + 1, "\\ No newline", 12) == 0;
            size_t body = no_nl ? len - 2 : len - 1; /* without the tag, without '\n' if none */
            if (*p == ' ' || *p == '-') {
                assert_true(pos < n);
                assert_int_equal(lens[pos], no_nl ? len - 2 : len - 1);
                assert_memory_equal(lines[pos], p + 1, body);
                pos++;
            }
            if (*p == ' ' || *p == '+')
                strncat(res, p + 1, body);
            p = nl + 1;
            if (no_nl)
                p = strchr(p, '\n') + 1;
        }
    }
    while (pos < n) {
        strncat(res, lines[pos], lens[pos]);
        pos++;
    }
    return res;
}

static int lcs(const char **a, int n, const char **b, int m)
{
    int dp[20][20] = {{0}};
    for (int i = n - 1; i >= 0; i--)
        for (int j = m - 1; j >= 0; j--)
            dp[i][j] = strcmp(a[i], b[j]) == 0 ? dp[i + 1][j + 1] + 1
                                                : (dp[i + 1][j] > dp[i][j + 1] ? dp[i + 1][j]
                                                                               : dp[i][j + 1]);
    return dp[0][0];
}

static void diff_property_random(void **state)
{
    const char *alphabet[] = {"x\n", "y\n", "z\n", "{\n", "}\n"};
    srand(12345);
    for (int iter = 0; iter < 3000; iter++) {
        int n = rand() % 15, m = rand() % 15;
        const char *la[20], *lb[20];
        char a[256] = "", b[256] = "";
        for (int i = 0; i < n; i++)
            strcat(a, la[i] = alphabet[rand() % 5]);
        for (int i = 0; i < m; i++)
            strcat(b, lb[i] = alphabet[rand() % 5]);
        /* Sometimes drop the last newline on either side. */
        if (n && rand() % 4 == 0)
            a[strlen(a) - 1] = '\0';
        if (m && rand() % 4 == 0)
            b[strlen(b) - 1] = '\0';
        int ctx = rand() % 4;
        struct hk_buf out;
        hk_buf_init(&out, 1 << 16);
        assert_int_equal(report_diff_unified(a, strlen(a), b, strlen(b), "a", "b", ctx, &out),
                         HK_OK);
        if (strcmp(a, b) == 0) {
            assert_int_equal(out.len, 0);
            hk_buf_free(&out);
            continue;
        }
        char *got = apply_patch(a, out.data);
        assert_string_equal(got, b);
        free(got);
        /* Minimal when both end in '\n' (then lines compare as the alphabet does). */
        if ((!n || a[strlen(a) - 1] == '\n') && (!m || b[strlen(b) - 1] == '\n')) {
            int edits = 0;
            for (const char *p = strstr(out.data, "@@"); p && *p; p = strchr(p, '\n') + 1) {
                if ((*p == '+' || *p == '-') && strncmp(p, "+++", 3) && strncmp(p, "---", 3))
                    edits++;
                if (!strchr(p, '\n'))
                    break;
            }
            assert_int_equal(edits, n + m - 2 * lcs(la, n, lb, m));
        }
        hk_buf_free(&out);
    }
}

static void diff_caps(void **state)
{
    size_t big = (REPORT_DIFF_MAX_LINES + 1) * 2;
    char *a = malloc(big + 1);
    for (size_t i = 0; i < big; i += 2)
        memcpy(a + i, "x\n", 2);
    a[big] = '\0';
    struct hk_buf out;
    hk_buf_init(&out, 1 << 20);
    assert_int_equal(report_diff_unified(a, big, "y\n", 2, "a", "b", 3, &out), HK_ETOOBIG);
    free(a);
    /* Too many edits: two texts with nothing in common, past the edit cap. */
    size_t lines = REPORT_DIFF_MAX_EDITS; /* 2 * lines edits in all */
    char *x = malloc(lines * 8 + 1), *y = malloc(lines * 8 + 1);
    x[0] = y[0] = '\0';
    size_t lx = 0, ly = 0;
    for (size_t i = 0; i < lines; i++) {
        lx += (size_t)sprintf(x + lx, "a%05zu\n", i);
        ly += (size_t)sprintf(y + ly, "b%05zu\n", i);
    }
    long live = hk_alloc_live();
    assert_int_equal(report_diff_unified(x, lx, y, ly, "a", "b", 3, &out), HK_ETOOBIG);
    assert_int_equal(hk_alloc_live(), live);
    /* Output cap. */
    hk_buf_free(&out);
    hk_buf_init(&out, 40);
    assert_int_equal(report_diff_unified("a\nb\nc\n", 6, "a\nX\nc\n", 6, "left", "right", 3, &out),
                     HK_ETOOBIG);
    hk_buf_free(&out);
    free(x);
    free(y);
}

static void html_escape(void **state)
{
    struct hk_buf out;
    hk_buf_init(&out, 1024);
    assert_int_equal(report_html_escape(&out, "<a href=\"x\">'&'</a>"), HK_OK);
    assert_string_equal(out.data, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    assert_int_equal(report_html_escape(&out, NULL), HK_OK);
    hk_buf_free(&out);
}

/* ---- a fixture episode ---- */

#define HOSTILE "<script>alert(\"pwn\")</script>|*_`[x](http://evil)&amp;"

struct fixture {
    store *s;
    int64_t kernel, ep, v0, v1, v2, v3;
};

static void meas(store *s, int64_t vid, int64_t ep, enum store_measure_kind kind, double med,
                 double p10, double p90, double bytes)
{
    store_measurement m = {.version_id = vid, .episode_id = ep, .kind = kind, .median_ms = med,
                           .p10_ms = p10, .p90_ms = p90, .spread = NAN, .reps = 40,
                           .bytes_per_s = bytes, .flop_per_s = 2.0 * 16777216 / (med * 1e-3),
                           .roofline_pct = NAN, .size_key = "n=16777216"};
    assert_int_equal(store_measurement_add(s, &m, NULL), HK_OK);
}

static void fixture_build(struct fixture *f, const char *kernel_name)
{
    char *v0src = slurp("saxpy_v0.cu", NULL), *bestsrc = slurp("saxpy_best.cu", NULL);
    assert_int_equal(store_open(":memory:", &f->s), HK_OK);
    store *s = f->s;
    assert_int_equal(store_kernel_upsert(s, "/work/k/saxpy.cu", kernel_name, NULL, &f->kernel),
                     HK_OK);
    store_episode_new en = {.kernel_id = f->kernel, .target = "nvidia:sm_90",
                            .backend = "nvidia", .arch = "sm_90", .engine = "builtin",
                            .budget_json = "{\"candidates\":24,\"minutes\":10}",
                            .pid = getpid()};
    assert_int_equal(store_episode_create(s, &en, &f->ep), HK_OK);
    assert_int_equal(store_device_put(s, "NVIDIA H200", "9.0",
                                      "{\"dram_bytes_per_s\":4.0e12,\"fp32_flop_per_s\":6.0e13}"),
                     HK_OK);
    assert_int_equal(store_episode_set_device(s, f->ep, "NVIDIA H200"), HK_OK);
    assert_int_equal(store_episode_set_info(s, f->ep, "{\"isolation\":\"bwrap (no network)\","
                                                      "\"nvcc\":\"/usr/local/cuda/bin/nvcc\","
                                                      "\"device\":{\"driver_version\":13000,"
                                                      "\"runtime_version\":12040}}"),
                     HK_OK);
    assert_int_equal(store_event_add(s, f->ep, "init", "sm_90, 132 SMs", NULL, NULL), HK_OK);
    assert_int_equal(store_event_add(s, f->ep, "baseline", "measured", NULL, NULL), HK_OK);
    assert_int_equal(store_event_add(s, f->ep, "optimize", "3 candidates", NULL, NULL), HK_OK);
    assert_int_equal(store_event_add(s, f->ep, "verify", HOSTILE, NULL, NULL), HK_OK);

    store_version_new vn = {.episode_id = f->ep, .source = v0src, .status = STORE_V_VERIFIED,
                            .produced_by = "baseline"};
    assert_int_equal(store_version_add(s, &vn, &f->v0), HK_OK);
    assert_int_equal(store_episode_set_baseline(s, f->ep, f->v0), HK_OK);
    vn.parent_id = f->v0;
    vn.source = "__global__ void saxpy_v1() {}\n";
    vn.produced_by = "builtin:block_size";
    assert_int_equal(store_version_add(s, &vn, &f->v1), HK_OK);
    vn.parent_id = f->v1;
    vn.source = "__global__ void racy() {}\n";
    vn.status = STORE_V_REJECTED;
    vn.produced_by = "builtin:" HOSTILE;
    assert_int_equal(store_version_add(s, &vn, &f->v2), HK_OK);
    assert_int_equal(store_version_set_status(s, f->v2, STORE_V_REJECTED, "wrong answer",
                                              "max abs err 3.5 at [17]</td><img src=x "
                                              "onerror=alert(1)>"),
                     HK_OK);
    vn.source = bestsrc;
    vn.status = STORE_V_VERIFIED;
    vn.produced_by = "builtin:grid_stride";
    assert_int_equal(store_version_add(s, &vn, &f->v3), HK_OK);
    assert_int_equal(store_version_set_accuracy(s, f->v3, 0.0, 0.0), HK_OK);
    assert_int_equal(store_version_set_accuracy(s, f->v1, 1.5e-7, 3e-8), HK_OK);
    /* saxpy moves 12 bytes per element: 16M elements. */
    double bytes = 12.0 * 16777216;
    meas(s, f->v0, f->ep, STORE_M_BASELINE, 0.100, 0.098, 0.104, bytes / 0.100e-3);
    meas(s, f->v0, f->ep, STORE_M_VERIFY, 0.105, 0.100, 0.110, bytes / 0.105e-3);
    meas(s, f->v1, f->ep, STORE_M_CANDIDATE, 0.080, 0.078, 0.083, bytes / 0.080e-3);
    meas(s, f->v3, f->ep, STORE_M_VERIFY, 0.060, 0.059, 0.062, bytes / 0.060e-3);
    assert_int_equal(store_evidence_add(s, f->v0, f->ep, "ptxas",
                                        "{\"registers\":12,\"spill_stores\":0,\"smem_static\":0,"
                                        "\"spills\":false}",
                                        NULL),
                     HK_OK);
    /* SASS evidence as episodes before the rename recorded it: local loads as "spills" */
    assert_int_equal(store_evidence_add(s, f->v0, f->ep, "sass", "{\"ldl\":2,\"spills\":true}",
                                        NULL),
                     HK_OK);
    assert_int_equal(store_evidence_add(s, f->v3, f->ep, "sass",
                                        "{\"LDG.E.128\":2,\"STG.E.128\":1,\"local_memory\":0,"
                                        "\"note\":\"<b>wide</b>\"}",
                                        NULL),
                     HK_OK);
    assert_int_equal(store_evidence_add(s, f->v3, f->ep, "ncu",
                                        "{\"dram__throughput.avg.pct_of_peak\":91.2,"
                                        "\"sm__warps_active\":[1,2]}",
                                        NULL),
                     HK_OK);
    assert_int_equal(store_episode_set_best(s, f->ep, f->v3), HK_OK);
    assert_int_equal(store_episode_finish(s, f->ep, STORE_EP_COMPLETED, NULL), HK_OK);
    free(v0src);
    free(bestsrc);
}

static void json_report(void **state)
{
    struct fixture f;
    fixture_build(&f, "saxpy");
    struct hk_buf out;
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_json(f.s, f.ep, &out), HK_OK);
    json_error_t err;
    json_t *m = json_loads(out.data, 0, &err);
    if (!m)
        fail_msg("report JSON does not parse: %s", err.text);
    assert_string_equal(json_string_value(json_object_get(m, "schema")), "hyperkernel.report/1");
    json_t *ep = json_object_get(m, "episode");
    assert_string_equal(json_string_value(json_object_get(ep, "name")), "saxpy sm_90");
    assert_string_equal(json_string_value(json_object_get(ep, "status")), "completed");
    assert_string_equal(json_string_value(json_object_get(json_object_get(ep, "info"),
                                                          "isolation")),
                        "bwrap (no network)");
    assert_string_equal(json_string_value(json_object_get(json_object_get(m, "device"), "name")),
                        "NVIDIA H200");
    /* speedup = baseline verify 0.105 / best verify 0.060; spread from p10/p90 */
    json_t *sp = json_object_get(m, "speedup");
    assert_true(fabs(json_real_value(json_object_get(sp, "value")) - 1.75) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(sp, "lo")) - 0.100 / 0.062) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(sp, "hi")) - 0.110 / 0.059) < 1e-9);
    /* bandwidth and % of roofline against the device's measured 4 TB/s */
    json_t *best = json_object_get(m, "best");
    assert_string_equal(json_string_value(json_object_get(best, "label")), "v3");
    double bw = json_real_value(json_object_get(best, "bytes_per_s"));
    assert_true(fabs(bw - 12.0 * 16777216 / 0.060e-3) < 1);
    double roof = json_real_value(json_object_get(best, "roofline_pct"));
    assert_true(fabs(roof - 100.0 * bw / 4.0e12) < 1e-6);
    assert_true(json_is_true(json_object_get(best, "is_best")));
    json_t *acc = json_object_get(m, "accuracy");
    assert_true(json_real_value(json_object_get(acc, "max_abs_err")) == 0.0);
    /* chain baseline -> best skips the rejected v2 */
    json_t *chain = json_object_get(m, "chain");
    assert_int_equal(json_array_size(chain), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(chain, 0), "label")),
                        "v0");
    assert_string_equal(json_string_value(json_object_get(json_array_get(chain, 2), "label")),
                        "v3");
    json_t *rej = json_object_get(m, "rejected");
    assert_int_equal(json_array_size(rej), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rej, 0),
                                                          "reject_reason")),
                        "wrong answer");
    assert_int_equal(json_array_size(json_object_get(m, "versions")), 4);
    assert_int_equal(json_array_size(json_object_get(m, "stages")), 4);
    assert_int_equal(json_array_size(json_object_get(json_object_get(m, "evidence"), "best")), 2);
    /* The diff is exactly diff -u's. */
    char *want = slurp("saxpy.diff", NULL);
    assert_string_equal(json_string_value(json_object_get(json_object_get(m, "diff"), "text")),
                        want);
    free(want);
    json_decref(m);
    hk_buf_free(&out);
    store_close(f.s);
}

static void html_report_is_safe_and_complete(void **state)
{
    struct fixture f;
    fixture_build(&f, HOSTILE);
    struct hk_buf out;
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_html(f.s, f.ep, &out), HK_OK);
    const char *h = out.data;
    /* Nothing from the data became markup, and nothing is loaded from outside. */
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "<img"));
    assert_null(strstr(h, "<link"));
    assert_null(strstr(h, "src=\""));
    assert_null(strstr(h, "href="));
    assert_null(strstr(h, "<b>wide"));
    assert_non_null(strstr(h, "&lt;script&gt;alert(&quot;pwn&quot;)&lt;/script&gt;"));
    assert_non_null(strstr(h, "&lt;/td&gt;&lt;img src=x onerror=alert(1)&gt;"));
    assert_non_null(strstr(h, "&amp;amp;"));
    /* Everything the brief asks for is there. */
    assert_non_null(strstr(h, "<!DOCTYPE html>"));
    assert_non_null(strstr(h, "<style>"));
    assert_non_null(strstr(h, "<svg"));
    assert_int_equal(strstr(h, "<rect") != NULL, 1);
    assert_non_null(strstr(h, "<b class=\"good\">1.75x</b>")); /* speedup */
    assert_non_null(strstr(h, "(spread 1.61x .. 1.86x"));      /* its spread */
    assert_non_null(strstr(h, "3355.4 GB/s"));                 /* best bandwidth */
    assert_non_null(strstr(h, "83.9%"));                       /* % of the measured 4 TB/s */
    assert_non_null(strstr(h, "559.2 GFLOP/s"));               /* 2 FLOP per element */
    assert_non_null(strstr(h, "NVIDIA H200"));
    assert_non_null(strstr(h, "bwrap (no network)"));
    assert_non_null(strstr(h, "wrong answer"));
    assert_non_null(strstr(h, "LDG.E.128"));
    assert_non_null(strstr(h, "dram__throughput.avg.pct_of_peak"));
    assert_non_null(strstr(h, "registers"));
    assert_non_null(strstr(h, "<span class=\"add\">+    int block = 256;</span>\n"));
    assert_non_null(strstr(h, "<span class=\"file\">--- v0 (baseline)</span>\n"));
    assert_non_null(strstr(h, "v0 &rarr; v1 &rarr; v3"));
    assert_non_null(strstr(h, "<th>Stage</th>"));
    assert_non_null(strstr(h, "verify"));
    assert_non_null(strstr(h, "</html>"));
    /* The first screen: verdict, the one bandwidth figure with what it is against, the
     * result table and the chart, then the diff; the facts, stages and the raw evidence
     * (folded) come after it. */
    const char *headline = strstr(h, "class=\"headline\""), *chart = strstr(h, "<svg"),
               *diff = strstr(h, "<h2>Diff"), *facts = strstr(h, "<h2>Episode</h2>"),
               *evid = strstr(h, "<details><summary>Evidence"),
               *settings = strstr(h, "<details><summary>Settings");
    assert_non_null(headline);
    assert_non_null(diff);
    assert_non_null(facts);
    assert_non_null(evid);
    assert_non_null(settings);
    assert_true(headline < chart && chart < diff && diff < facts && facts < evid);
    assert_true(evid < strstr(h, "LDG.E.128") && strstr(h, "LDG.E.128") < strstr(evid, "</details>"));
    assert_non_null(strstr(h, "Bandwidth of v3: 3355.4 GB/s, 83.9% of peak bandwidth (4000.0 GB/s"));
    assert_non_null(strstr(h, "of the copy line instead"));
    /* the toolchain as words, not a path and a JSON blob */
    assert_non_null(strstr(h, "<th>Toolchain</th><td>nvcc /usr/local/cuda/bin/nvcc, CUDA 12.4 (the"
                              " runtime the device probe was built with); driver for CUDA 13.0"));
    /* "spills" is ptxas's alone: the SASS's local loads no longer contradict it */
    int spills = 0;
    for (const char *p = h; (p = strstr(p, ">spills<")); p++)
        spills++;
    assert_int_equal(spills, 1);
    assert_non_null(strstr(h, ">local_memory<"));
    /* One bar per measured version (v0, v1, v3), none for the rejected v2. */
    int bars = 0;
    for (const char *p = h; (p = strstr(p, "<rect")); p++)
        bars++;
    assert_int_equal(bars, 3);
    hk_buf_free(&out);
    store_close(f.s);
}

static void markdown_report(void **state)
{
    struct fixture f;
    fixture_build(&f, HOSTILE);
    struct hk_buf out;
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    const char *md = out.data;
    /* Outside the diff's fenced block every '<', '[' and '|' from data is escaped. */
    const char *fence = strstr(md, "```diff");
    assert_non_null(fence);
    for (const char *p = md; p < fence; p++)
        if (*p == '<' || *p == '[')
            assert_true(p > md && p[-1] == '\\');
    assert_null(strstr(md, "x](http")); /* the link text bracket is escaped: no link */
    assert_non_null(strstr(md, "\\<script\\>"));
    assert_non_null(strstr(md, "\\|\\*\\_\\`\\[x\\]"));
    assert_non_null(strstr(md, "**Speedup: 1.75x** (spread 1.61x .. 1.86x"));
    assert_non_null(strstr(md, "```diff\n--- v0 (baseline)\n+++ v3 (best)\n"));
    assert_non_null(strstr(md, "| v3 (best) | v1 | verified |"));
    assert_non_null(strstr(md, "Chain: v0 -> v1 -> v3"));
    assert_non_null(strstr(md, "## Rejected candidates"));
    assert_non_null(strstr(md, "| Isolation | bwrap (no network) |"));
    /* result, versions and diff first; facts next; raw evidence folded at the end */
    const char *result = strstr(md, "## Result"), *diff = strstr(md, "## Diff"),
               *facts = strstr(md, "## Episode"), *evid = strstr(md, "<details><summary>Evidence");
    assert_true(result && diff && facts && evid);
    assert_true(result < diff && diff < facts && facts < evid);
    assert_non_null(strstr(md, "**Bandwidth of v3: 3355.4 GB/s, 83.9% of peak bandwidth"));
    assert_non_null(strstr(md, "| Toolchain | nvcc /usr/local/cuda/bin/nvcc, CUDA 12.4"));
    /* Every table row has a consistent number of unescaped cell separators. */
    for (const char *line = md; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len && line[0] == '|' && strncmp(line, "| Version | Parent", 18) == 0) {
            int pipes = 0;
            for (size_t i = 0; i < len; i++)
                pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
            assert_int_equal(pipes, 11);
        }
        line = nl ? nl + 1 : NULL;
    }
    hk_buf_free(&out);
    store_close(f.s);
}

/* The same episode in zh-CN (docs/i18n.md): headings and fixed labels translated, the
 * data and the numbers as they were, the Markdown tables still well formed; the JSON
 * model is the same in both languages (keys and reason codes are never translated). */
static void chinese_reports(void **state)
{
    struct fixture f;
    fixture_build(&f, "saxpy");
    struct hk_buf en_json, zh_json, md, html;
    hk_buf_init(&en_json, 1 << 22);
    hk_buf_init(&zh_json, 1 << 22);
    hk_buf_init(&md, 1 << 22);
    hk_buf_init(&html, 1 << 22);
    assert_int_equal(report_render_json(f.s, f.ep, &en_json), HK_OK);
    hk_i18n_set(HK_LANG_ZH_CN);
    assert_int_equal(report_render_json(f.s, f.ep, &zh_json), HK_OK);
    assert_int_equal(report_render_markdown(f.s, f.ep, &md), HK_OK);
    assert_int_equal(report_render_html(f.s, f.ep, &html), HK_OK);
    hk_i18n_set(HK_LANG_EN);
    json_t *je = json_loads(en_json.data, 0, NULL), *jz = json_loads(zh_json.data, 0, NULL);
    assert_non_null(je);
    assert_non_null(jz);
    json_object_del(je, "generated"); /* a time stamp: the one field that may differ */
    json_object_del(jz, "generated");
    assert_true(json_equal(je, jz));
    json_decref(je);
    json_decref(jz);
    const char *m = md.data;
    assert_non_null(strstr(m, "# Hyper Kernel 优化报告："));
    assert_non_null(strstr(m, "\n## 结果\n\n| | 基线 (v0) | 最佳版本 (v3) |"));
    assert_non_null(strstr(m, "| 中位耗时 | "));
    assert_non_null(strstr(m, "**加速比：1.75x** (波动区间 1.61x .. 1.86x，取自 p10/p90)"));
    assert_non_null(strstr(m, "| v3（最佳） | v1 | verified |")); /* status: a reason code */
    assert_non_null(strstr(m, "版本链：v0 -> v1 -> v3"));
    assert_non_null(strstr(m, "## 代码差异 v0"));
    assert_non_null(strstr(strstr(m, "## 代码差异 v0"), " 到 v3"));
    assert_non_null(strstr(m, "## 优化任务"));
    assert_non_null(strstr(m, "| 核函数 | saxpy |"));
    assert_non_null(strstr(m, "## 阶段"));
    assert_non_null(strstr(m, "由 Hyper Kernel 生成于 "));
    assert_null(strstr(m, "## Result"));
    assert_null(strstr(m, "## Versions"));
    assert_null(strstr(m, "| Kernel |"));
    /* the bandwidth headline and its note (session 30) */
    assert_non_null(strstr(m, "**v3 的带宽："));
    assert_non_null(strstr(m, "，为峰值带宽的 "));
    assert_non_null(strstr(m, "峰值带宽 %：bench spec 给出的一次启动搬运的字节数"));
    assert_null(strstr(m, "Bandwidth of"));
    assert_null(strstr(m, "% of peak bandwidth: the bytes"));
    int rows = 0;
    for (const char *line = m; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len && !strncmp(line, "| 版本 | 父版本", strlen("| 版本 | 父版本"))) {
            int pipes = 0;
            for (size_t i = 0; i < len; i++)
                pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
            assert_int_equal(pipes, 11);
            rows++;
        }
        line = nl ? nl + 1 : NULL;
    }
    assert_int_equal(rows, 1);
    const char *h = html.data;
    assert_non_null(strstr(h, "<html lang=\"zh-CN\">"));
    assert_non_null(strstr(h, "<title>Hyper Kernel 优化报告：saxpy"));
    assert_non_null(strstr(h, "<b class=\"good\">1.75x</b> 加速比 <small>(波动区间 1.61x .. 1.86x"));
    assert_non_null(strstr(h, "<h2>版本</h2>"));
    assert_non_null(strstr(h, "<h2>优化任务</h2>"));
    assert_non_null(strstr(h, "<th>核函数</th><td>saxpy</td>"));
    assert_non_null(strstr(h, "<th>阶段</th>"));
    assert_null(strstr(h, "<th>Stage</th>"));
    assert_null(strstr(h, "<h2>Versions</h2>"));
    /* the chart's title and marks, the versions table's best (session 40) */
    assert_non_null(strstr(h, "<title>各版本的中位耗时（条形）及 p10 到 p90 区间（须线）；越短越快</title>"));
    assert_non_null(strstr(h, "  基线</text>"));
    assert_non_null(strstr(h, "  最佳</text>"));
    assert_non_null(strstr(h, "<tr><td>v0（基线）</td>"));
    assert_non_null(strstr(h, "<tr><td>v3<b>（最佳）</b></td>"));
    assert_null(strstr(h, "Median time per version"));
    assert_null(strstr(h, "  baseline</text>"));
    assert_null(strstr(h, "<b>(best)</b>"));
    hk_buf_free(&en_json);
    hk_buf_free(&zh_json);
    hk_buf_free(&md);
    hk_buf_free(&html);
    store_close(f.s);
}

/* An episode whose device had no physical floor and which left faster versions uncredited. */
static const char floor_info[] =
    "{\"floor\":{\"available\":false,\"why\":\"the device's peaks are unknown\","
    "\"allow_no_floor\":false},\"not_credited\":{\"versions\":2,\"best_version\":3,"
    "\"best_speedup\":1.5}}";

/* No physical floor: both reports say so, why, and which faster versions went uncredited. */

static void floor_row(void **state)
{
    (void)state;
    struct fixture f;
    fixture_build(&f, HOSTILE);
    assert_int_equal(store_episode_set_info(f.s, f.ep, floor_info),
                     HK_OK);
    struct hk_buf out;
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "| Physical floor | none (the device's peaks are unknown): "
                                     "speedups measured but not credited; 2 faster version(s) "
                                     "not credited, best v3 at 1.50x"));
    hk_buf_free(&out);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_html(f.s, f.ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "<th>Physical floor</th><td>none (the device&#39;s peaks"));
    hk_buf_free(&out);
    /* a floor applied: no row */
    assert_int_equal(store_episode_set_info(f.s, f.ep, "{\"isolation\":\"none\"}"), HK_OK);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    assert_null(strstr(out.data, "Physical floor"));
    hk_buf_free(&out);
    /* in zh-CN (session 30): the row's words; the floor's why is the engine's, as stored */
    assert_int_equal(store_episode_set_info(f.s, f.ep, floor_info),
                     HK_OK);
    hk_i18n_set(HK_LANG_ZH_CN);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    hk_i18n_set(HK_LANG_EN);
    if (!strstr(out.data, "无（the device's peaks are unknown）：加速比已测量，但未计入；2 个更快的"
                          "版本未计入，最佳为 v3，1.50x（--allow-no-floor 会计入它们）"))
        fail_msg("no Chinese floor row in:\n%s", out.data);
    hk_buf_free(&out);
    store_close(f.s);
}

/* A library substitution won (issue 12: "the report names the library"): both reports
 * name the library and the routine the best version calls, in a facts row and in the
 * credit line, which counts no SASS lines (the library's kernels are not the program's);
 * in Chinese too. A credit without a library (a rewrite's SASS evidence) has no such row. */
static void library_named(void **state)
{
    (void)state;
    struct fixture f;
    fixture_build(&f, HOSTILE);
    assert_int_equal(store_episode_set_info(
                         f.s, f.ep,
                         "{\"credit\":{\"skill\":\"sm90-cublas-gemm\",\"explained\":true,"
                         "\"evidence\":\"library call: credited by the call in the source\","
                         "\"library\":\"cuBLAS\",\"routine\":\"cublasSgemm\"}}"),
                     HK_OK);
    struct hk_buf out;
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    if (!strstr(out.data, "| Library | cuBLAS (cublasSgemm, called from the version's host code: "
                          "its kernels are the library's, not in the program's SASS) |"))
        fail_msg("no library row in:\n%s", out.data);
    assert_non_null(strstr(out.data, "The gain is credited to skill `sm90-cublas-gemm`: the "
                                     "version calls cuBLAS (`cublasSgemm`) from its host code; "
                                     "the call shows in its source\n"));
    assert_null(strstr(out.data, "in the SASS (0 lines")); /* no SASS counts */
    hk_buf_free(&out);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_html(f.s, f.ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "<th>Library</th><td>cuBLAS (cublasSgemm, called from the "
                                     "version&#39;s host code"));
    hk_buf_free(&out);
    hk_i18n_set(HK_LANG_ZH_CN);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "| 调用的库 | cuBLAS（cublasSgemm，由该版本的主机代码调用"));
    assert_non_null(strstr(out.data, "该版本在主机代码中调用 cuBLAS（`cublasSgemm`）"));
    hk_buf_free(&out);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_html(f.s, f.ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "<th>调用的库</th><td>cuBLAS（cublasSgemm"));
    hk_buf_free(&out);
    hk_i18n_set(HK_LANG_EN);
    /* hipBLAS on a DCU */
    assert_int_equal(store_episode_set_info(
                         f.s, f.ep,
                         "{\"credit\":{\"skill\":\"gfx9-hipblas-gemv\",\"explained\":true,"
                         "\"library\":\"hipBLAS\",\"routine\":\"hipblasSgemv\"}}"),
                     HK_OK);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "| Library | hipBLAS (hipblasSgemv, "));
    hk_buf_free(&out);
    /* a rewrite's SASS evidence: no library */
    assert_int_equal(store_episode_set_info(
                         f.s, f.ep,
                         "{\"credit\":{\"skill\":\"vec\",\"explained\":true,\"evidence\":"
                         "\"LDG.E.128\",\"lines_before\":0,\"lines_after\":4}}"),
                     HK_OK);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    assert_null(strstr(out.data, "| Library |"));
    assert_non_null(strstr(out.data, "in the SASS (4 lines; 0 in the baseline)"));
    hk_buf_free(&out);
    store_close(f.s);
}

/* A second rewrite the search could not stack on the leader: its reason, with the construct
 * and line, is in both reports (escaped); none recorded, no section. */
static void stacks_not_applied(void **state)
{
    (void)state;
    struct fixture f;
    fixture_build(&f, HOSTILE);
    assert_int_equal(store_episode_set_info(
                         f.s, f.ep,
                         "{\"stacks_not_applied\":[\"unroll_jam_scan unroll=4 not stacked on "
                         "uniform_tiles tile=256: value declaration at line 35: `d` reads `best` <x>\"]}"),
                     HK_OK);
    struct hk_buf out;
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "## Second rewrites not stacked on the leader\n\n- unroll\\_jam\\_scan "
                                     "unroll=4 not stacked on uniform\\_tiles tile=256: value declaration "
                                     "at line 35: \\`d\\` reads \\`best\\` \\<x\\>\n"));
    hk_buf_free(&out);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_html(f.s, f.ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "<h2>Second rewrites not stacked on the leader</h2>"));
    assert_non_null(strstr(out.data, "reads `best` &lt;x&gt;</li>"));
    hk_buf_free(&out);
    assert_int_equal(store_episode_set_info(f.s, f.ep, "{\"isolation\":\"none\"}"), HK_OK);
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_markdown(f.s, f.ep, &out), HK_OK);
    assert_null(strstr(out.data, "not stacked"));
    hk_buf_free(&out);
    store_close(f.s);
}

static void markdown_fence_survives_backticks(void **state)
{
    store *s = NULL;
    assert_int_equal(store_open(":memory:", &s), HK_OK);
    int64_t k, ep, v0, v1;
    assert_int_equal(store_kernel_upsert(s, "/t.cu", "tick", NULL, &k), HK_OK);
    store_episode_new en = {.kernel_id = k, .arch = "sm_90"};
    assert_int_equal(store_episode_create(s, &en, &ep), HK_OK);
    char src[256];
    memset(src, 0, sizeof src);
    strcpy(src, "// ");
    memset(src + 3, '`', 70);
    strcat(src, "\n<img src=x onerror=alert(1)>\n");
    store_version_new vn = {.episode_id = ep, .source = "a\n", .status = STORE_V_VERIFIED};
    assert_int_equal(store_version_add(s, &vn, &v0), HK_OK);
    vn.parent_id = v0;
    vn.source = src;
    assert_int_equal(store_version_add(s, &vn, &v1), HK_OK);
    assert_int_equal(store_episode_set_baseline(s, ep, v0), HK_OK);
    assert_int_equal(store_episode_set_best(s, ep, v1), HK_OK);
    struct hk_buf out;
    hk_buf_init(&out, 1 << 20);
    assert_int_equal(report_render_markdown(s, ep, &out), HK_OK);
    char fence[80];
    memset(fence, '`', 71);
    strcpy(fence + 71, "diff\n");
    const char *open = strstr(out.data, fence);
    assert_non_null(open);
    assert_int_equal(open[-1], '\n'); /* exactly 71: not part of a longer run */
    const char *img = strstr(out.data, "<img");
    assert_non_null(img);
    assert_true(img > open);
    /* The closing fence (71 backticks alone on a line) comes after the hostile line. */
    memset(fence, '`', 71);
    strcpy(fence + 71, "\n\n");
    const char *close = strstr(open + 75, fence);
    assert_non_null(close);
    assert_true(img < close);
    /* Without a best the chain is the baseline alone. */
    assert_int_equal(store_episode_set_best(s, ep, 0), HK_OK);
    assert_int_equal(store_version_set_status(s, v1, STORE_V_REJECTED, "timeout", NULL), HK_OK);
    json_t *m = NULL;
    assert_int_equal(report_build(s, ep, &m), HK_OK);
    assert_int_equal(json_array_size(json_object_get(m, "chain")), 1);
    assert_true(json_is_null(json_object_get(m, "best")));
    json_decref(m);
    hk_buf_free(&out);
    store_close(s);
}

static void odd_episodes(void **state)
{
    store *s = NULL;
    assert_int_equal(store_open(":memory:", &s), HK_OK);
    int64_t k, ep, v;
    /* Invalid UTF-8 in names and details must still give valid JSON. */
    assert_int_equal(store_kernel_upsert(s, "/bad\xff.cu", "k\xc3(", NULL, &k), HK_OK);
    store_episode_new en = {.kernel_id = k, .target = "nvidia"};
    assert_int_equal(store_episode_create(s, &en, &ep), HK_OK);
    assert_int_equal(store_episode_set_device(s, ep, "GPU\xfe"), HK_OK);
    store_version_new vn = {.episode_id = ep, .source = "x\n", .status = STORE_V_REJECTED};
    assert_int_equal(store_version_add(s, &vn, &v), HK_OK);
    char details[REPORT_MAX_TEXT * 2];
    memset(details, 'e', sizeof details - 1);
    details[sizeof details - 1] = '\0';
    details[10] = '\x80';
    assert_int_equal(store_version_set_status(s, v, STORE_V_REJECTED, "compile error", details),
                     HK_OK);
    assert_int_equal(store_episode_finish(s, ep, STORE_EP_FAILED, "nvcc failed"), HK_OK);
    struct hk_buf out;
    hk_buf_init(&out, 1 << 22);
    assert_int_equal(report_render_json(s, ep, &out), HK_OK);
    json_t *m = json_loads(out.data, 0, NULL);
    assert_non_null(m);
    assert_true(json_is_null(json_object_get(m, "speedup")));
    assert_true(json_is_null(json_object_get(m, "best")));
    assert_true(json_is_null(json_object_get(m, "baseline")));
    const char *name = json_string_value(json_object_get(json_object_get(m, "kernel"), "name"));
    assert_string_equal(name, "k\xef\xbf\xbd(");
    const char *d = json_string_value(
        json_object_get(json_array_get(json_object_get(m, "rejected"), 0), "reject_details"));
    assert_true(strlen(d) < REPORT_MAX_TEXT + 64);
    assert_non_null(strstr(d, "more bytes cut"));
    json_decref(m);
    hk_buf_reset(&out);
    assert_int_equal(report_render_html(s, ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "No faster verified version"));
    assert_non_null(strstr(out.data, "No measured versions to chart"));
    assert_non_null(strstr(out.data, "nvcc failed"));
    /* in zh-CN (session 40): the empty chart's sentence, and the cut details' tail, stored
     * in English in the model, said in Chinese */
    hk_buf_reset(&out);
    hk_i18n_set(HK_LANG_ZH_CN);
    assert_int_equal(report_render_html(s, ep, &out), HK_OK);
    hk_i18n_set(HK_LANG_EN);
    assert_non_null(strstr(out.data, "<p>没有可绘制图表的已测量版本。</p>"));
    assert_null(strstr(out.data, "No measured versions to chart"));
    assert_non_null(strstr(out.data, " [……另有 "));
    assert_non_null(strstr(out.data, " 字节已截去]"));
    assert_null(strstr(out.data, "more bytes cut"));
    hk_buf_reset(&out);
    assert_int_equal(report_render_markdown(s, ep, &out), HK_OK);
    assert_non_null(strstr(out.data, "compile error"));
    /* Unknown episode, cap hit, bad model. */
    hk_buf_reset(&out);
    assert_int_equal(report_render_html(s, 999, &out), HK_ENOENT);
    hk_buf_free(&out);
    hk_buf_init(&out, 200);
    assert_int_equal(report_render_html(s, ep, &out), HK_ETOOBIG);
    assert_int_equal(report_render_json(s, ep, &out), HK_ETOOBIG);
    hk_buf_free(&out);
    json_t *bad = json_object();
    hk_buf_init(&out, 1000);
    assert_int_equal(report_model_to_html(bad, &out), HK_EINVAL);
    assert_int_equal(report_model_to_markdown(bad, &out), HK_EINVAL);
    json_decref(bad);
    hk_buf_free(&out);
    store_close(s);
}

static void write_files(void **state)
{
    struct fixture f;
    fixture_build(&f, "saxpy");
    char dir[] = "/tmp/hk_test_report_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[600];
    snprintf(sub, sizeof sub, "%s/reports/nested", dir);
    report_paths p;
    assert_int_equal(report_write(f.s, f.ep, sub, REPORT_ALL, &p), HK_OK);
    assert_non_null(p.json);
    assert_non_null(p.md);
    assert_non_null(p.html);
    assert_true(p.html[0] == '/');
    struct stat st;
    assert_int_equal(stat(p.html, &st), 0);
    assert_true(st.st_size > 1000);
    json_t *m = json_load_file(p.json, 0, NULL);
    assert_non_null(m);
    json_decref(m);
    store_episode e;
    assert_int_equal(store_episode_get(f.s, f.ep, &e), HK_OK);
    assert_string_equal(e.report_html, p.html);
    assert_string_equal(e.report_md, p.md);
    store_episode_clear(&e);
    report_paths_clear(&p);
    /* Only HTML asked: only HTML written, the other paths stay. */
    assert_int_equal(report_write(f.s, f.ep, sub, REPORT_HTML, &p), HK_OK);
    assert_null(p.json);
    assert_non_null(p.html);
    report_paths_clear(&p);
    /* No temporary files left behind. */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq 3", sub);
    assert_int_equal(system(cmd), 0);
    /* A directory that cannot be made. */
    snprintf(sub, sizeof sub, "%s/reports/nested/episode-%lld.html/x", dir, (long long)f.ep);
    assert_int_equal(report_write(f.s, f.ep, sub, 0, &p), HK_EIO);
    assert_null(p.html);
    assert_int_equal(report_write(f.s, 4242, dir, 0, &p), HK_ENOENT);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    store_close(f.s);
}

static void list_json(void **state)
{
    struct fixture f;
    fixture_build(&f, "saxpy");
    report_paths p;
    char dir[] = "/tmp/hk_test_report_XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(report_write(f.s, f.ep, dir, REPORT_HTML, &p), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(f.s, f.ep, &e), HK_OK);
    json_t *j = report_episode_summary(&e);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "name")), "saxpy sm_90");
    assert_string_equal(json_string_value(json_object_get(j, "status")), "completed");
    assert_string_equal(json_string_value(json_object_get(j, "device")), "NVIDIA H200");
    assert_int_equal(json_integer_value(json_object_get(j, "best_version_id")), f.v3);
    json_t *r = json_object_get(j, "reports");
    assert_string_equal(json_string_value(json_object_get(r, "html")), p.html);
    assert_true(json_is_null(json_object_get(r, "json")));
    json_decref(j);
    store_episode_clear(&e);
    report_paths_clear(&p);

    store_history_row *rows;
    size_t n;
    assert_int_equal(store_kernel_history(f.s, f.kernel, &rows, &n), HK_OK);
    long live = hk_alloc_live();
    json_t *h = NULL;
    for (long i = 1; !h; i++) {
        hk_alloc_fail_after(i);
        h = report_history_json(rows, n);
        hk_alloc_fail_after(0);
        if (!h)
            assert_int_equal(hk_alloc_live(), live);
    }
    assert_int_equal(json_array_size(h), 4);
    json_t *v3 = json_array_get(h, 3);
    assert_string_equal(json_string_value(json_object_get(v3, "label")), "v3");
    assert_true(fabs(json_real_value(json_object_get(v3, "speedup")) - 1.75) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(v3, "kind")), "verify");
    json_t *v2 = json_array_get(h, 2);
    assert_true(json_is_null(json_object_get(v2, "median_ms")));
    assert_string_equal(json_string_value(json_object_get(v2, "reject_reason")), "wrong answer");
    json_decref(h);
    store_history_free(rows, n);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    store_close(f.s);
}

static void allocation_failures(void **state)
{
    struct fixture f;
    fixture_build(&f, HOSTILE);
    long live = hk_alloc_live();
    int enomem = 0;
    long only = getenv("HK_FAIL_AT") ? atol(getenv("HK_FAIL_AT")) : 0;
    for (int which = 0; which < 3; which++) {
        int rc = HK_ENOMEM;
        /* Every allocation site early on, then every third one: the same sites repeat per
         * version and evidence row, and the full sweep is quadratic. */
        for (long i = only ? only : 1; i < 20000 && rc != HK_OK; i += i < 400 ? 1 : 3) {
            struct hk_buf out;
            hk_buf_init(&out, 1 << 22);
            hk_alloc_fail_after(i);
            rc = which == 0   ? report_render_json(f.s, f.ep, &out)
                 : which == 1 ? report_render_markdown(f.s, f.ep, &out)
                              : report_render_html(f.s, f.ep, &out);
            hk_alloc_fail_after(0);
            hk_buf_free(&out);
            if (rc != HK_OK) {
                assert_int_equal(rc, HK_ENOMEM);
                enomem++;
            }
            if (hk_alloc_live() != live)
                fail_msg("renderer %d leaks when allocation %ld fails", which, i);
        }
        assert_int_equal(rc, HK_OK);
    }
    assert_true(enomem > 100);
    store_close(f.s);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_matches_gnu_diff),
        cmocka_unit_test(diff_property_random),
        cmocka_unit_test(diff_caps),
        cmocka_unit_test(html_escape),
        cmocka_unit_test(json_report),
        cmocka_unit_test(html_report_is_safe_and_complete),
        cmocka_unit_test(markdown_report),
        cmocka_unit_test(chinese_reports),
        cmocka_unit_test(markdown_fence_survives_backticks),
        cmocka_unit_test(floor_row),
        cmocka_unit_test(stacks_not_applied),
        cmocka_unit_test(library_named),
        cmocka_unit_test(odd_episodes),
        cmocka_unit_test(write_files),
        cmocka_unit_test(list_json),
        cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
