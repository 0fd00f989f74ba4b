/* Numbers from the simulated GPU (the CI test double) say "simulated" wherever they are
 * shown (issue 12): against a history database made here with one simulated episode
 * (saxpy) and one on a real device (scale), the result diagnostic, the code lens, the
 * Apply action's title, the hover table, hyperkernel/history, hyperkernel/episodes, the
 * report titles (Markdown and HTML) and hkls history's lines carry the mark for saxpy and
 * not for scale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "lsp/state.h"
#include "report/report.h"
#include "store/store.h"

#include "lsp_out.h"

static char dir[] = "/tmp/hk-test-lsp-sim-XXXXXX";
static char kfile[300], db[300], uri[320];
static int64_t sim_ep, real_ep;

static const char saxpy_v0[] = "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
                               "{\n"
                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n)\n"
                               "        y[i] = a * x[i] + y[i];\n"
                               "}\n";
static const char saxpy_v1[] =
    "__global__ void saxpy(int n, float a, const float *__restrict__ x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";
static const char scale_v0[] = "__global__ void scale(int n, float *y)\n"
                               "{\n"
                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n)\n"
                               "        y[i] = 2.0f * y[i];\n"
                               "}\n";
static const char scale_v1[] = "__global__ void scale(int n, float *__restrict__ y)\n"
                               "{\n"
                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n)\n"
                               "        y[i] = 2.0f * y[i];\n"
                               "}\n";
static char text0[2048], text_saxpy1[2048], text_scale1[2048];

static void add_measure(store *s, int64_t vid, int64_t eid, enum store_measure_kind kind,
                        double ms)
{
    store_measurement m = {0};
    m.version_id = vid;
    m.episode_id = eid;
    m.kind = kind;
    m.median_ms = ms;
    m.p10_ms = ms * 0.98;
    m.p90_ms = ms * 1.02;
    m.spread = NAN;
    m.reps = 50;
    m.bytes_per_s = 1e12;
    m.flop_per_s = m.roofline_pct = NAN;
    m.size_key = "n=16777216";
    assert_int_equal(store_measurement_add(s, &m, NULL), HK_OK);
}

/* One completed episode of kernel name: v0 (file text0) -> v1 (after), 2.0 -> 1.6 ms. */
static int64_t add_episode(store *s, const char *name, const char *k0, const char *after,
                           const char *device, const char *info)
{
    char kh[STORE_HASH_HEX];
    store_content_hash(k0, strlen(k0), kh);
    int64_t kid, ep, v0, v1;
    assert_int_equal(store_kernel_upsert(s, kfile, name, kh, &kid), HK_OK);
    store_episode_new en = {.kernel_id = kid, .name = name, .target = "nvidia:sm_90",
                            .backend = "nvidia", .arch = "sm_90", .engine = "builtin"};
    assert_int_equal(store_episode_create(s, &en, &ep), HK_OK);
    store_version_new vn = {.episode_id = ep, .source = text0, .status = STORE_V_VERIFIED,
                            .produced_by = "original"};
    assert_int_equal(store_version_add(s, &vn, &v0), HK_OK);
    vn.parent_id = v0;
    vn.source = after;
    vn.produced_by = "builtin: __restrict__";
    assert_int_equal(store_version_add(s, &vn, &v1), HK_OK);
    add_measure(s, v0, ep, STORE_M_BASELINE, 2.0);
    add_measure(s, v1, ep, STORE_M_VERIFY, 1.6);
    assert_int_equal(store_episode_set_baseline(s, ep, v0), HK_OK);
    assert_int_equal(store_episode_set_best(s, ep, v1), HK_OK);
    assert_int_equal(store_episode_set_device(s, ep, device), HK_OK);
    assert_int_equal(store_episode_set_info(s, ep, info), HK_OK);
    assert_int_equal(store_episode_finish(s, ep, STORE_EP_COMPLETED, NULL), HK_OK);
    return ep;
}

static int setup(void **st)
{
    hk_alloc_init_json();
    if (!mkdtemp(dir))
        return -1;
    snprintf(kfile, sizeof kfile, "%s/k.cu", dir);
    snprintf(db, sizeof db, "%s/history.db", dir);
    snprintf(uri, sizeof uri, "file://%s", kfile);
    snprintf(text0, sizeof text0, "%s\n%s", saxpy_v0, scale_v0);
    snprintf(text_saxpy1, sizeof text_saxpy1, "%s\n%s", saxpy_v1, scale_v0);
    snprintf(text_scale1, sizeof text_scale1, "%s\n%s", saxpy_v0, scale_v1);
    FILE *f = fopen(kfile, "w");
    if (!f)
        return -1;
    fputs(text0, f);
    fclose(f);
    store *s = NULL;
    assert_int_equal(store_open(db, &s), HK_OK);
    sim_ep = add_episode(s, "saxpy", saxpy_v0, text_saxpy1, STORE_SIMULATED_DEVICE,
                         "{\"gpu\":{\"name\":\"Simulated GPU\",\"how\":\"simulated\"}}");
    real_ep = add_episode(s, "scale", scale_v0, text_scale1, "NVIDIA H200",
                          "{\"gpu\":{\"name\":\"NVIDIA H200\",\"how\":\"nvidia-smi\"}}");
    store_close(s);
    return 0;
}

static int teardown(void **st)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static json_t *await(uv_loop_t *loop, struct out *o, int id)
{
    for (int i = 0; i < 500 && !reply(o, id); i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (!reply(o, id))
            usleep(10000);
    }
    json_t *r = reply(o, id);
    assert_non_null(r);
    return r;
}

static void feed_json(lsp_server *s, json_t *m /* stolen */)
{
    char *t = json_dumps(m, 0);
    assert_non_null(t);
    feed(s, t);
    hk_free(t);
    json_decref(m);
}

static int next_id = 10;

static json_t *request(uv_loop_t *loop, lsp_server *s, struct out *o, const char *method,
                       json_t *params /* stolen */)
{
    int id = next_id++;
    feed_json(s, json_pack("{s:s, s:i, s:s, s:o}", "jsonrpc", "2.0", "id", id, "method", method,
                           "params", params));
    return json_object_get(await(loop, o, id), "result");
}

static json_t *at(int line, int ch)
{
    return json_pack("{s:{s:s}, s:{s:i, s:i}}", "textDocument", "uri", uri, "position", "line",
                     line, "character", ch);
}

static bool title_with(json_t *list, const char *prefix, const char *want)
{
    size_t i;
    json_t *a;
    json_array_foreach(list, i, a) {
        json_t *cmd = json_object_get(a, "command");
        const char *t = json_string_value(json_object_get(a, "title"));
        if (!t && json_is_object(cmd))
            t = json_string_value(json_object_get(cmd, "title"));
        if (t && !strncmp(t, prefix, strlen(prefix)) && strstr(t, want))
            return true;
    }
    return false;
}

static bool title_without(json_t *list, const char *prefix, const char *not)
{
    size_t i;
    json_t *a;
    bool seen = false;
    json_array_foreach(list, i, a) {
        json_t *cmd = json_object_get(a, "command");
        const char *t = json_string_value(json_object_get(a, "title"));
        if (!t && json_is_object(cmd))
            t = json_string_value(json_object_get(cmd, "title"));
        if (t && !strncmp(t, prefix, strlen(prefix))) {
            seen = true;
            if (strstr(t, not))
                return false;
        }
    }
    return seen;
}

static void test_marks_in_the_editor(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    lsp_server *s;
    assert_int_equal(lsp_server_new(&loop, sink, &o, &s), HK_OK);
    lsp_server_disable_compiles(s);
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:s, s:{s:{s:{s:[s]}}}, s:{s:{s:s}}}}", "jsonrpc",
                           "2.0", "id", 1, "method", "initialize", "params", "rootUri",
                           "file:///tmp", "capabilities", "textDocument", "hover",
                           "contentFormat", "markdown", "initializationOptions", "episodes",
                           "db", db));
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    feed_json(s, json_pack("{s:s, s:s, s:{s:{s:s, s:s, s:i, s:s}}}", "jsonrpc", "2.0", "method",
                           "textDocument/didOpen", "params", "textDocument", "uri", uri,
                           "languageId", "cuda", "version", 1, "text", text0));
    /* code actions on each kernel (the first waits for the store read) */
    json_t *acts = request(&loop, s, &o, "textDocument/codeAction",
                           json_pack("{s:{s:s}, s:{s:{s:i, s:i}, s:{s:i, s:i}}, s:{}}",
                                     "textDocument", "uri", uri, "range", "start", "line", 0,
                                     "character", 17, "end", "line", 0, "character", 17,
                                     "context"));
    assert_true(title_with(acts, "Apply v1", "(1.25x simulated)"));
    acts = request(&loop, s, &o, "textDocument/codeAction",
                   json_pack("{s:{s:s}, s:{s:{s:i, s:i}, s:{s:i, s:i}}, s:{}}", "textDocument",
                             "uri", uri, "range", "start", "line", 7, "character", 17, "end",
                             "line", 7, "character", 17, "context"));
    assert_true(title_without(acts, "Apply v1", "simulated"));
    /* code lenses */
    json_t *lenses = request(&loop, s, &o, "textDocument/codeLens",
                             json_pack("{s:{s:s}}", "textDocument", "uri", uri));
    assert_true(title_with(lenses, "best", "best 1.25x simulated (v1) - Apply"));
    assert_true(title_with(lenses, "best", "best 1.25x (v1) - Apply"));
    /* the result diagnostics */
    json_t *pd = find(&o, "textDocument/publishDiagnostics");
    assert_non_null(pd);
    json_t *diags = json_object_get(json_object_get(pd, "params"), "diagnostics");
    int sim = 0, real = 0;
    size_t i;
    json_t *d;
    json_array_foreach(diags, i, d) {
        const char *m = json_string_value(json_object_get(d, "message"));
        if (m && strstr(m, "faster version available")) {
            int line = (int)json_integer_value(
                json_object_get(json_object_get(json_object_get(d, "range"), "start"), "line"));
            if (line == 0) {
                assert_non_null(strstr(m, "simulated GPU: 1.25x faster version available"));
                sim++;
            } else {
                assert_null(strstr(m, "simulated"));
                real++;
            }
        }
    }
    assert_int_equal(sim, 1);
    assert_int_equal(real, 1);
    /* hover tables */
    json_t *h = request(&loop, s, &o, "textDocument/hover", at(0, 17));
    const char *hv = json_string_value(json_object_get(json_object_get(h, "contents"), "value"));
    assert_non_null(hv);
    assert_non_null(strstr(hv, "Optimization history (simulated GPU"));
    assert_non_null(strstr(hv, "1.25x simulated"));
    assert_non_null(strstr(hv, "1.6 ms simulated"));
    assert_non_null(strstr(hv, "1000 GB/s simulated"));
    h = request(&loop, s, &o, "textDocument/hover", at(7, 17));
    hv = json_string_value(json_object_get(json_object_get(h, "contents"), "value"));
    assert_non_null(strstr(hv, "Optimization history"));
    assert_null(strstr(hv, "simulated"));
    /* hyperkernel/history and hyperkernel/episodes */
    json_t *hist = request(&loop, s, &o, "hyperkernel/history",
                           json_pack("{s:s, s:s}", "uri", uri, "kernel", "saxpy"));
    json_t *v;
    json_array_foreach(json_object_get(hist, "versions"), i, v)
        assert_true(json_is_true(json_object_get(v, "simulated")));
    hist = request(&loop, s, &o, "hyperkernel/history",
                   json_pack("{s:s, s:s}", "uri", uri, "kernel", "scale"));
    json_array_foreach(json_object_get(hist, "versions"), i, v)
        assert_true(json_is_false(json_object_get(v, "simulated")));
    json_t *eps = request(&loop, s, &o, "hyperkernel/episodes", json_object());
    assert_int_equal(json_array_size(eps), 2);
    json_array_foreach(eps, i, v) {
        bool is_sim = json_integer_value(json_object_get(v, "id")) == sim_ep;
        assert_int_equal(json_is_true(json_object_get(v, "simulated")), is_sim);
    }
    lsp_server_stop(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
    out_clear(&o);
    uv_loop_close(&loop);
    assert_int_equal(hk_alloc_live(), live);
}

/* The same marks for a client whose UI is Chinese (initialize's "locale"; docs/i18n.md):
 * titles, the diagnostic and the hover in zh-CN, the commands and numbers unchanged. */
static void test_marks_in_chinese(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    lsp_server *s;
    assert_int_equal(lsp_server_new(&loop, sink, &o, &s), HK_OK);
    lsp_server_disable_compiles(s);
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:s, s:s, s:{s:{s:{s:[s]}}}, s:{s:{s:s}}}}",
                           "jsonrpc", "2.0", "id", 1, "method", "initialize", "params",
                           "rootUri", "file:///tmp", "locale", "zh-CN", "capabilities",
                           "textDocument", "hover", "contentFormat", "markdown",
                           "initializationOptions", "episodes", "db", db));
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    feed_json(s, json_pack("{s:s, s:s, s:{s:{s:s, s:s, s:i, s:s}}}", "jsonrpc", "2.0", "method",
                           "textDocument/didOpen", "params", "textDocument", "uri", uri,
                           "languageId", "cuda", "version", 1, "text", text0));
    json_t *acts = request(&loop, s, &o, "textDocument/codeAction",
                           json_pack("{s:{s:s}, s:{s:{s:i, s:i}, s:{s:i, s:i}}, s:{}}",
                                     "textDocument", "uri", uri, "range", "start", "line", 0,
                                     "character", 17, "end", "line", 0, "character", 17,
                                     "context"));
    assert_true(title_with(acts, "应用 v1", "（加速比 1.25x，模拟）"));
    assert_true(title_with(acts, "针对 NVIDIA 优化", ""));
    assert_true(title_with(acts, "查看报告", ""));
    assert_false(title_with(acts, "Apply", ""));
    json_t *lenses = request(&loop, s, &o, "textDocument/codeLens",
                             json_pack("{s:{s:s}}", "textDocument", "uri", uri));
    assert_true(title_with(lenses, "最佳", "最佳加速比 1.25x，模拟 (v1) - 应用"));
    assert_true(title_with(lenses, "最佳", "最佳加速比 1.25x (v1) - 应用"));
    assert_true(title_with(lenses, "报告", ""));
    json_t *pd = find(&o, "textDocument/publishDiagnostics");
    assert_non_null(pd);
    json_t *diags = json_object_get(json_object_get(pd, "params"), "diagnostics");
    int n = 0;
    size_t i;
    json_t *d;
    json_array_foreach(diags, i, d) {
        const char *m = json_string_value(json_object_get(d, "message"));
        assert_null(strstr(m ? m : "", "faster version"));
        if (m && strstr(m, "模拟 GPU：有更快的版本可用，加速比 1.25x"))
            n++;
    }
    assert_int_equal(n, 1);
    json_t *h = request(&loop, s, &o, "textDocument/hover", at(0, 17));
    const char *hv = json_string_value(json_object_get(json_object_get(h, "contents"), "value"));
    assert_non_null(hv);
    assert_non_null(strstr(hv, "**优化历史（模拟 GPU：未在硬件上实测）**"));
    assert_non_null(strstr(hv, "| 版本 | 耗时 | 加速比 | 带宽 | 精度 | 引擎 | 日期 |"));
    assert_null(strstr(hv, "Optimization history"));
    lsp_server_stop(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
    out_clear(&o);
    uv_loop_close(&loop);
    hk_i18n_set(HK_LANG_EN);
    assert_int_equal(hk_alloc_live(), live);
}

static void test_marks_in_reports(void **st)
{
    store *s = NULL;
    assert_int_equal(store_open(db, &s), HK_OK);
    store_episode e = {0};
    assert_int_equal(store_episode_get(s, sim_ep, &e), HK_OK);
    assert_true(store_episode_simulated(&e));
    json_t *sum = report_episode_summary(&e);
    assert_true(json_is_true(json_object_get(sum, "simulated")));
    json_decref(sum);
    store_episode_clear(&e);
    assert_int_equal(store_episode_get(s, real_ep, &e), HK_OK);
    assert_false(store_episode_simulated(&e));
    store_episode_clear(&e);

    struct hk_buf b;
    hk_buf_init(&b, (size_t)16 << 20);
    assert_int_equal(report_render_markdown(s, sim_ep, &b), HK_OK);
    assert_non_null(strstr(b.data, "# Hyper Kernel report (simulated GPU): saxpy"));
    assert_non_null(strstr(b.data, "## Result (simulated)"));
    hk_buf_reset(&b);
    assert_int_equal(report_render_html(s, sim_ep, &b), HK_OK);
    assert_non_null(strstr(b.data, "<title>Hyper Kernel report (simulated GPU): saxpy"));
    /* the page's first screen says it twice: a mark by the title and a banner */
    assert_non_null(strstr(b.data, "<span class=\"status\">simulated</span>"));
    assert_non_null(strstr(b.data, "<strong>Simulated GPU: every time, speedup and bandwidth in"
                                   " this report is simulated, not measured on hardware."));
    hk_buf_reset(&b);
    assert_int_equal(report_render_json(s, sim_ep, &b), HK_OK);
    assert_non_null(strstr(b.data, "\"simulated\": true"));
    hk_buf_reset(&b);
    assert_int_equal(report_render_markdown(s, real_ep, &b), HK_OK);
    assert_non_null(strstr(b.data, "# Hyper Kernel report: scale"));
    assert_null(strstr(b.data, "simulated"));
    hk_buf_free(&b);
    store_close(s);

    /* hkls history's text */
    char cmd[700], out[8192];
    const char *bin = getenv("HKLS_BIN");
    snprintf(cmd, sizeof cmd, "%s history %s --db %s", bin && *bin ? bin : HK_BINARY_DIR "/hkls",
             kfile, db);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    /* one block per kernel, separated by a blank line */
    char *blocks[2] = {out, strstr(out, "\n\n")};
    assert_non_null(blocks[1]);
    *blocks[1] = '\0';
    blocks[1] += 2;
    const char *sim_block = strstr(blocks[0], ": saxpy\n") ? blocks[0] : blocks[1];
    const char *real_block = sim_block == blocks[0] ? blocks[1] : blocks[0];
    assert_non_null(strstr(sim_block, ": saxpy\n"));
    assert_non_null(strstr(real_block, ": scale\n"));
    assert_non_null(strstr(sim_block, "(simulated GPU: not measured on hardware)"));
    assert_non_null(strstr(sim_block, "1.6000 ms sim"));
    assert_non_null(strstr(sim_block, "] simulated"));
    assert_null(strstr(real_block, "simulated"));
    assert_null(strstr(real_block, " ms sim"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_marks_in_the_editor),
        cmocka_unit_test(test_marks_in_chinese),
        cmocka_unit_test(test_marks_in_reports),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
