/* Unit tests for the episode side of the lsp module (episodes.c, actions.c) in-process:
 * the edit region, the capped line assembler, the default spec path, the episodes/engines
 * settings, the capabilities, code actions on a kernel and its launch site with an empty
 * history, refused commands (no spec, bad arguments) and the store requests answered
 * from the thread pool, with nothing leaked. The full flow with real workers is
 * tests/protocol/episodes.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "spec/infer.h"
#include "lsp/state.h"
#include "lsp/episodes.h"
#include "runners/child.h"
#include "episode/apply.h"

#include "lsp_out.h"

/* Runs the loop until request id is answered (pool work finishing), at most ~5 s. */
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

/* ---- pure helpers ---- */

static void test_diff_region(void **st)
{
    size_t p, q;
    ep_apply_diff_region("abcXYZdef", 9, "abcQdef", 7, &p, &q);
    assert_int_equal(p, 3);
    assert_int_equal(q, 3);
    ep_apply_diff_region("same", 4, "same", 4, &p, &q);
    assert_int_equal(p + q, 4); /* nothing to replace */
    /* a prefix and suffix that overlap must not count a byte twice */
    ep_apply_diff_region("aaa", 3, "aaaa", 4, &p, &q);
    assert_int_equal(p, 3);
    assert_int_equal(q, 0);
    ep_apply_diff_region("", 0, "x", 1, &p, &q);
    assert_int_equal(p, 0);
    assert_int_equal(q, 0);
}

/* episode/apply.c, shared by hkls apply and the editor's Apply: the kind of a version's
 * change, and where it goes in the file as it is now. */
static const char ap_base[] =
    "#define B 256\n"
    "__global__ void k(float *y) { y[threadIdx.x] = 1.0f; }\n"
    "void run(float *y) { k<<<1, B>>>(y); }\n";

static void change_of(const char *ver, ep_change *ch, char **base_k)
{
    size_t at = 0;
    assert_int_equal(ep_apply_kernel_text(ap_base, strlen(ap_base), "k", base_k, &at), HK_OK);
    assert_int_equal(ep_change_of(ap_base, strlen(ap_base), *base_k, at, ver, strlen(ver), "k",
                                  ch), HK_OK);
}

static void test_apply_change_place(void **st)
{
    (void)st;
    const char *kv = "#define B 256\n"
                     "__global__ void k(float *__restrict__ y) { y[threadIdx.x] = 1.0f; }\n"
                     "void run(float *y) { k<<<1, B>>>(y); }\n";
    const char *fv = "#define B 128\n"
                     "__global__ void k(float *y) { y[threadIdx.x] = 1.0f; }\n"
                     "void run(float *y) { k<<<1, B>>>(y); }\n";
    const char *edited = "// mine\n#define B 256\n"
                         "__global__ void k(float *y) { y[threadIdx.x] = 1.0f; }\n"
                         "void run(float *y) { k<<<1, B>>>(y); }\n";
    ep_change ch;
    char *bk = NULL;
    uint32_t a, b;
    size_t bl = strlen(ap_base);

    /* a kernel change goes where the kernel is, in an edited file too; then it is there */
    change_of(kv, &ch, &bk);
    assert_int_equal(ch.kind, EP_CHANGE_KERNEL);
    assert_int_equal(ep_change_place(&ch, ap_base, bl, bk, edited, strlen(edited), &a, &b),
                     EP_PLACE_AT);
    assert_int_equal(a, strlen("// mine\n#define B 256\n__global__ void k(float *"));
    assert_int_equal(ep_change_place(&ch, ap_base, bl, bk, kv, strlen(kv), &a, &b),
                     EP_PLACE_ALREADY);
    ep_change_free(&ch);
    hk_free(bk);

    /* a change outside an unchanged kernel: the kernel being there is no proof that the
     * version is (the editor's copy said "already in the file"); stale when edited */
    change_of(fv, &ch, &bk);
    assert_int_equal(ch.kind, EP_CHANGE_FILE);
    assert_int_equal(ch.outside_line, 1);
    assert_int_equal(ep_change_place(&ch, ap_base, bl, bk, ap_base, bl, &a, &b), EP_PLACE_AT);
    assert_int_equal(ep_change_place(&ch, ap_base, bl, bk, edited, strlen(edited), &a, &b),
                     EP_PLACE_STALE_FILE);
    assert_int_equal(ep_change_place(&ch, ap_base, bl, bk, fv, strlen(fv), &a, &b),
                     EP_PLACE_ALREADY); /* applied: the version's whole text */
    ep_change_free(&ch);
    hk_free(bk);

    /* a launch-only version needs the kernel it was measured on */
    change_of(ap_base, &ch, &bk);
    assert_int_equal(ch.kind, EP_CHANGE_LAUNCH);
    assert_int_equal(ep_change_place(&ch, NULL, 0, bk, edited, strlen(edited), &a, &b),
                     EP_PLACE_AT);
    assert_int_equal(ep_change_place(&ch, NULL, 0, bk, kv, strlen(kv), &a, &b), EP_PLACE_STALE);
    ep_change_free(&ch);
    hk_free(bk);

    /* the .hip rule: the file's name or the episode's backend */
    assert_true(ep_apply_hip(NULL, "/w/a.hip"));
    assert_true(ep_apply_hip("dcu:gfx906", "/w/a.cu"));
    assert_true(ep_apply_hip("amd:gfx90a", NULL));
    assert_false(ep_apply_hip("nvidia:sm_90", "/w/a.cu"));
    assert_false(ep_apply_hip(NULL, "/w/a.hip.cu"));
}

struct lines {
    char got[8][64];
    int n;
};

static void on_line(const char *line, size_t n, void *ud)
{
    struct lines *l = ud;
    assert_true(l->n < 8);
    snprintf(l->got[l->n++], 64, "%.*s", (int)n, line);
}

static void test_feed_lines(void **st)
{
    struct hk_buf b;
    hk_buf_init(&b, 16);
    struct lines l = {0};
    size_t dropped = 0;
    /* split across reads, an empty line, an overlong line dropped whole, then more */
    assert_int_equal(runner_feed_lines(&b, "ab", 2, 16, &dropped, on_line, &l), HK_OK);
    assert_int_equal(runner_feed_lines(&b, "c\n\nxx", 5, 16, &dropped, on_line, &l), HK_OK);
    assert_int_equal(runner_feed_lines(&b, "0123456789abcdefghij", 20, 16, &dropped, on_line,
                                       &l), HK_OK);
    assert_int_equal(runner_feed_lines(&b, "tail\nok\n", 8, 16, &dropped, on_line, &l), HK_OK);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.got[0], "abc");
    assert_string_equal(l.got[1], "");
    assert_string_equal(l.got[2], "ok");
    assert_int_equal(dropped, 1);
    hk_buf_free(&b);
}

static void test_default_spec_and_find(void **st)
{
    char *p = spec_default_path("/w/k/saxpy.cu", "saxpy");
    assert_string_equal(p, "/w/k/saxpy.saxpy.bench.json");
    hk_free(p);
    p = spec_default_path("/w/.hidden", "k");
    assert_string_equal(p, "/w/.hidden.k.bench.json");
    hk_free(p);
    p = spec_default_path("/w/a.b/x.hip", "k");
    assert_string_equal(p, "/w/a.b/x.k.bench.json");
    hk_free(p);
    /* the worker's lookup order: <stem>.<kernel>, <kernel>, <stem> */
    char d[] = "/tmp/hk-test-spec-XXXXXX", f[200], a[200], b[200], c[200];
    assert_non_null(mkdtemp(d));
    snprintf(f, sizeof f, "%s/x.cu", d);
    snprintf(a, sizeof a, "%s/x.k.bench.json", d);
    snprintf(b, sizeof b, "%s/k.bench.json", d);
    snprintf(c, sizeof c, "%s/x.bench.json", d);
    assert_null(spec_find(f, "k"));
    const char *order[] = {c, b, a};
    for (int i = 0; i < 3; i++) {
        FILE *fp = fopen(order[i], "w");
        assert_non_null(fp);
        fclose(fp);
        p = spec_find(f, "k");
        assert_string_equal(p, order[i]);
        hk_free(p);
    }
    for (int i = 0; i < 3; i++)
        unlink(order[i]);
    rmdir(d);
    assert_int_equal(lsp_ep_find("hello world", 11, "world", 5, 0), 6);
    assert_int_equal(lsp_ep_find("hello world", 11, "world", 5, 7), -1);
    assert_int_equal(lsp_ep_find("abc", 3, "", 0, 0), -1);
    assert_int_equal(lsp_ep_find("abc", 3, "abcd", 4, 0), -1);
}

/* ---- in-process server ---- */

static char dir[] = "/tmp/hk-test-lsp-episodes-XXXXXX";
static char kfile[300], db[300];

static const char kernel_src[] =
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n"
    "void run(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);\n"
    "}\n";

static int setup(void **st)
{
    if (!mkdtemp(dir))
        return -1;
    snprintf(kfile, sizeof kfile, "%s/k.cu", dir);
    snprintf(db, sizeof db, "%s/history.db", dir);
    FILE *f = fopen(kfile, "w");
    if (!f)
        return -1;
    fputs(kernel_src, f);
    fclose(f);
    return 0;
}

static int teardown(void **st)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static lsp_server *start(uv_loop_t *loop, struct out *o, const char *opts)
{
    lsp_server *s;
    assert_int_equal(lsp_server_new(loop, sink, o, &s), HK_OK);
    lsp_server_disable_compiles(s);
    char msg[4096];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
             "\"rootUri\":\"file://%s\",\"capabilities\":{\"textDocument\":{\"codeAction\":"
             "{\"disabledSupport\":true}}},\"initializationOptions\":%s}}",
             dir, opts);
    feed(s, msg);
    return s;
}

static void stop(uv_loop_t *loop, lsp_server *s)
{
    lsp_server_stop(s);
    uv_run(loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
}

static void open_doc(lsp_server *s)
{
    json_t *m = json_pack("{s:s, s:s, s:{s:{s:s, s:s, s:i, s:s}}}", "jsonrpc", "2.0", "method",
                          "textDocument/didOpen", "params", "textDocument", "uri", "",
                          "languageId", "cuda", "version", 1, "text", kernel_src);
    char uri[400];
    snprintf(uri, sizeof uri, "file://%s", kfile);
    json_object_set_new(json_object_get(json_object_get(m, "params"), "textDocument"), "uri",
                        json_string(uri));
    char *t = json_dumps(m, 0);
    feed(s, t);
    hk_free(t); /* jansson allocates through the seam */
    json_decref(m);
}

static void test_settings_and_capabilities(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    lsp_server *s = start(&loop, &o,
                          "{\"episodes\":{\"db\":\"hist/x.db\",\"budget\":7,\"minutes\":1.5,"
                          "\"simulate\":true,\"check\":\"quick\",\"allowNoFloor\":true,"
                          "\"bogus\":1},"
                          "\"engines\":[{\"name\":\"fast\",\"kind\":\"builtin\"},"
                          "{\"name\":\"bad\",\"kind\":\"telepathy\"}],"
                          "\"episodes.budget\":3}");
    json_t *caps = json_object_get(json_object_get(reply(&o, 1), "result"), "capabilities");
    assert_non_null(json_object_get(caps, "codeActionProvider"));
    assert_non_null(json_object_get(caps, "codeLensProvider"));
    json_t *cmds = json_object_get(json_object_get(caps, "executeCommandProvider"), "commands");
    assert_int_equal(json_array_size(cmds), 8);
    assert_string_equal(json_string_value(json_array_get(cmds, 0)), "hyperkernel.optimize");
    assert_string_equal(json_string_value(json_array_get(cmds, 6)), "hyperkernel.trustFolder");
    assert_string_equal(json_string_value(json_array_get(cmds, 7)), "hyperkernel.untrustFolder");
    char want_db[400];
    snprintf(want_db, sizeof want_db, "%s/hist/x.db", dir);
    assert_string_equal(s->cfg.ep.db, want_db); /* relative to the workspace root */
    assert_int_equal(s->cfg.ep.budget, 7);      /* nested wins over dotted */
    assert_true(s->cfg.ep.minutes == 1.5);
    assert_true(s->cfg.ep.simulate);
    assert_string_equal(s->cfg.ep.check, "quick");
    assert_true(s->cfg.ep.allow_no_floor);
    assert_int_equal(json_array_size(s->cfg.ep.engines), 1);
    /* the bad key and the bad engine were reported, "episodes" itself was not */
    int unknown = 0, bad_engine = 0;
    for (int i = 0; i < o.n; i++) {
        const char *msg = json_string_value(
            json_object_get(json_object_get(o.m[i], "params"), "message"));
        if (msg && strstr(msg, "episodes.bogus"))
            unknown++;
        if (msg && strstr(msg, "engines[1]"))
            bad_engine++;
        assert_true(!msg || !strstr(msg, "unknown setting \"episodes\""));
    }
    assert_int_equal(unknown, 1);
    assert_int_equal(bad_engine, 1);
    /* bad values leave the earlier ones */
    out_clear(&o);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"workspace/didChangeConfiguration\",\"params\":"
            "{\"settings\":{\"episodes\":{\"budget\":-1,\"simulate\":\"yes\"}}}}");
    assert_int_equal(s->cfg.ep.budget, 0);
    assert_false(s->cfg.ep.simulate);
    assert_non_null(find(&o, "window/logMessage"));
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    assert_int_equal(hk_alloc_live(), live);
}

static json_t *titles(json_t *actions)
{
    json_t *t = json_array();
    size_t i;
    json_t *a;
    json_array_foreach(actions, i, a) json_array_append(t, json_object_get(a, "title"));
    return t;
}

static bool has_title(json_t *t, const char *title)
{
    size_t i;
    json_t *v;
    json_array_foreach(t, i, v) if (!strcmp(json_string_value(v), title)) return true;
    return false;
}

static void test_actions_and_requests(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char opts[600];
    snprintf(opts, sizeof opts,
             "{\"episodes\":{\"db\":\"%s\"},\"engines\":[{\"name\":\"fast\",\"kind\":"
             "\"builtin\"}]}",
             db);
    lsp_server *s = start(&loop, &o, opts);
    open_doc(s);
    out_clear(&o);
    char req[1200];
    /* on the kernel name: answered once the (empty) history is read on the pool */
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/codeAction\",\"params\":"
             "{\"textDocument\":{\"uri\":\"file://%s\"},\"range\":{\"start\":{\"line\":0,"
             "\"character\":17},\"end\":{\"line\":0,\"character\":17}},\"context\":"
             "{\"diagnostics\":[]}}}",
             kfile);
    feed(s, req);
    json_t *t = titles(json_object_get(await(&loop, &o, 2), "result"));
    assert_true(has_title(t, "Optimize for NVIDIA"));
    assert_true(has_title(t, "Optimize for DCU"));
    assert_true(has_title(t, "Optimize for NVIDIA with fast"));
    assert_true(has_title(t, "Create benchmark spec")); /* no k.saxpy.bench.json yet */
    assert_int_equal(json_array_size(t), 4);
    json_decref(t);
    /* on the launch site: answered inline now that the file's results are cached */
    out_clear(&o);
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/codeAction\",\"params\":"
             "{\"textDocument\":{\"uri\":\"file://%s\"},\"range\":{\"start\":{\"line\":8,"
             "\"character\":6},\"end\":{\"line\":8,\"character\":6}},\"context\":"
             "{\"only\":[\"refactor.rewrite\"]}}}",
             kfile);
    feed(s, req);
    assert_non_null(reply(&o, 3));
    assert_int_equal(json_array_size(json_object_get(reply(&o, 3), "result")), 0); /* only */
    /* outside any kernel: nothing */
    out_clear(&o);
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"textDocument/codeAction\",\"params\":"
             "{\"textDocument\":{\"uri\":\"file://%s\"},\"range\":{\"start\":{\"line\":6,"
             "\"character\":2},\"end\":{\"line\":6,\"character\":2}},\"context\":{}}}",
             kfile);
    feed(s, req);
    assert_int_equal(json_array_size(json_object_get(reply(&o, 4), "result")), 0);
    /* code lenses: the two optimize entries on the kernel */
    out_clear(&o);
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"textDocument/codeLens\",\"params\":"
             "{\"textDocument\":{\"uri\":\"file://%s\"}}}",
             kfile);
    feed(s, req);
    json_t *lenses = json_object_get(reply(&o, 5), "result");
    assert_int_equal(json_array_size(lenses), 2);
    /* a spec named but missing: refused at once, naming it (without one the worker
     * infers it: tests/protocol/episodes.py, test_engine_episode_cli.c) */
    out_clear(&o);
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"workspace/executeCommand\",\"params\":"
             "{\"command\":\"hyperkernel.optimize\",\"arguments\":[{\"uri\":\"file://%s\","
             "\"kernel\":\"saxpy\",\"target\":\"nvidia\",\"spec\":\"/nonexistent/k.bench.json\"}]}}",
             kfile);
    feed(s, req);
    const char *msg = json_string_value(
        json_object_get(json_object_get(reply(&o, 6), "error"), "message"));
    assert_non_null(msg);
    assert_non_null(strstr(msg, "/nonexistent/k.bench.json does not exist"));
    /* bad arguments, an unknown command, a bad target */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"workspace/executeCommand\",\"params\":"
            "{\"command\":\"hyperkernel.optimize\",\"arguments\":[]}}");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(reply(&o, 7), "error"),
                                                        "code")),
                     RPC_INVALID_PARAMS);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"workspace/executeCommand\",\"params\":"
            "{\"command\":\"hyperkernel.nope\"}}");
    assert_non_null(json_object_get(reply(&o, 8), "error"));
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"workspace/executeCommand\",\"params\":"
             "{\"command\":\"hyperkernel.optimize\",\"arguments\":[{\"uri\":\"file://%s\","
             "\"kernel\":\"saxpy\",\"target\":\"tpu\"}]}}",
             kfile);
    feed(s, req);
    assert_non_null(json_object_get(reply(&o, 9), "error"));
    /* cancel of nothing */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"hyperkernel/cancel\",\"params\":"
            "{\"episode\":42}}");
    assert_false(json_is_true(json_object_get(json_object_get(reply(&o, 10), "result"), "ok")));
    /* store requests: an empty history, answered from the pool; the database file is not
     * created by reading */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"hyperkernel/episodes\",\"params\":"
            "{\"status\":[\"running\",\"completed\"],\"limit\":5}}");
    json_t *r = await(&loop, &o, 11);
    assert_true(json_is_array(json_object_get(r, "result")));
    assert_int_equal(json_array_size(json_object_get(r, "result")), 0);
    assert_int_not_equal(access(db, F_OK), 0);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"hyperkernel/episodes\",\"params\":"
            "{\"status\":[\"sleeping\"]}}");
    msg = json_string_value(json_object_get(json_object_get(reply(&o, 12), "error"), "message"));
    assert_non_null(strstr(msg, "sleeping"));
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"hyperkernel/history\",\"params\":"
             "{\"uri\":\"file://%s\",\"kernel\":\"saxpy\"}}",
             kfile);
    feed(s, req);
    r = json_object_get(await(&loop, &o, 13), "result");
    assert_string_equal(json_string_value(json_object_get(r, "kernel")), "saxpy");
    assert_int_equal(json_array_size(json_object_get(r, "versions")), 0);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"hyperkernel/report\",\"params\":"
            "{\"episode\":3}}");
    assert_non_null(json_object_get(await(&loop, &o, 14), "error"));
    /* createSpec writes the skeleton once and refuses to overwrite it */
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"workspace/executeCommand\",\"params\":"
             "{\"command\":\"hyperkernel.createSpec\",\"arguments\":[{\"uri\":\"file://%s\","
             "\"kernel\":\"saxpy\"}]}}",
             kfile);
    feed(s, req);
    char spec[400];
    snprintf(spec, sizeof spec, "%s/k.saxpy.bench.json", dir);
    /* made and written on the pool: the answer comes from the loop later */
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(await(&loop, &o, 15), "result"), "path")),
                        spec);
    json_error_t je;
    json_t *sj = json_load_file(spec, 0, &je);
    assert_non_null(sj);
    assert_string_equal(json_string_value(json_object_get(sj, "kernel")), "saxpy");
    assert_string_equal(json_string_value(json_object_get(sj, "source")), "k.cu");
    json_decref(sj);
    /* without showDocument support the client is told the path */
    assert_non_null(find(&o, "window/showMessage"));
    req[sizeof "{\"jsonrpc\":\"2.0\",\"id\":1" - 1] = '6'; /* id 16, same request */
    feed(s, req);
    msg = json_string_value(json_object_get(json_object_get(await(&loop, &o, 16), "error"),
                                            "message"));
    assert_non_null(msg);
    assert_non_null(strstr(msg, "not overwritten"));
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    assert_int_equal(hk_alloc_live(), live);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diff_region),
        cmocka_unit_test(test_apply_change_place),
        cmocka_unit_test(test_feed_lines),
        cmocka_unit_test(test_default_spec_and_find),
        cmocka_unit_test(test_settings_and_capabilities),
        cmocka_unit_test(test_actions_and_requests),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
