/* Workspace trust (issue 12), in-process: the trust list (covers, add/remove, atomic
 * rewrite, a broken list left alone), an untrusted folder's .hyperkernel.json with the
 * keys that run programs ignored and named (showMessage, a diagnostic per key on the
 * file), hyperkernel.trustFolder persisting to $XDG_CONFIG_HOME and applying the keys,
 * a restarted server reading the list, and the client's isTrusted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hk.h"
#include "lsp/state.h"
#include "lsp/trust.h"

#include "lsp_out.h"

static char g_xdg[64];
static char g_dir[64];
static char g_list[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A fresh XDG_CONFIG_HOME and workspace with a .hyperkernel.json that sets every key
 * that needs trust and two that do not (target, includePaths). */
static int setup(void **st)
{
    snprintf(g_xdg, sizeof g_xdg, "/tmp/hk_trust_xdg_XXXXXX");
    snprintf(g_dir, sizeof g_dir, "/tmp/hk_trust_ws_XXXXXX");
    if (!mkdtemp(g_xdg) || !mkdtemp(g_dir))
        return -1;
    setenv("XDG_CONFIG_HOME", g_xdg, 1);
    snprintf(g_list, sizeof g_list, "%s/hyperkernel/trusted.json", g_xdg);
    char path[256];
    snprintf(path, sizeof path, "%s/.hyperkernel.json", g_dir);
    write_file(path, "{\n"
                     "  \"target\": \"nvidia:sm_80\",\n"
                     "  \"compile\": {\n"
                     "    \"includePaths\": [\"inc\"],\n"
                     "    \"nvcc\": \"/tmp/evil.sh\",\n"
                     "    \"flags\": [\"-ccbin\", \"/tmp/evil.sh\"]\n"
                     "  },\n"
                     "  \"compile.hipcc\": \"/tmp/evil-hipcc\",\n"
                     "  \"episodes\": {\"simulate\": true, \"budget\": 3},\n"
                     "  \"engines\": [{\"name\": \"x\", \"kind\": \"openai\", \"endpoint\": \"http://evil\"}],\n"
                     "  \"isTrusted\": true\n"
                     "}\n");
    return 0;
}

static int teardown(void **st)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", g_xdg, g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static lsp_server *start(uv_loop_t *loop, struct out *o, const char *init_opts)
{
    lsp_server *s;
    assert_int_equal(lsp_server_new(loop, sink, o, &s), HK_OK);
    lsp_server_disable_compiles(s);
    char msg[1024];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"rootUri\":"
             "\"file://%s\",\"capabilities\":{},\"initializationOptions\":%s}}",
             g_dir, init_opts ? init_opts : "{}");
    feed(s, msg);
    assert_non_null(reply(o, 1));
    return s;
}

static void stop(uv_loop_t *loop, lsp_server *s)
{
    lsp_server_stop(s);
    uv_run(loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
    uv_run(loop, UV_RUN_DEFAULT);
}

/* The message of the last notification of method, or NULL. */
static const char *last_message(struct out *o, const char *method)
{
    json_t *m = find(o, method);
    return json_string_value(json_object_get(json_object_get(m, "params"), "message"));
}

/* The diagnostics last published for the workspace's .hyperkernel.json, or NULL. */
static json_t *file_diags(struct out *o)
{
    char uri[300];
    snprintf(uri, sizeof uri, "file://%s/.hyperkernel.json", g_dir);
    for (int i = o->n - 1; i >= 0; i--) {
        json_t *p = json_object_get(o->m[i], "params");
        const char *m = json_string_value(json_object_get(o->m[i], "method"));
        if (m && !strcmp(m, "textDocument/publishDiagnostics") &&
            !strcmp(json_string_value(json_object_get(p, "uri")), uri))
            return json_object_get(p, "diagnostics");
    }
    return NULL;
}

static void assert_untrusted_cfg(lsp_server *s)
{
    assert_null(s->cfg.nvcc);
    assert_null(s->cfg.hipcc);
    assert_null(s->cfg.flags);
    assert_false(s->cfg.ep.simulate);
    assert_null(s->cfg.ep.engines);
    /* the harmless keys still apply */
    assert_string_equal(s->cfg.arch, "sm_80");
    assert_int_equal(s->cfg.ep.budget, 3);
    assert_non_null(s->cfg.include_paths);
}

static void assert_trusted_cfg(lsp_server *s)
{
    assert_string_equal(s->cfg.nvcc, "/tmp/evil.sh");
    assert_string_equal(s->cfg.hipcc, "/tmp/evil-hipcc");
    assert_string_equal(s->cfg.flags[0], "-ccbin");
    assert_true(s->cfg.ep.simulate);
    assert_int_equal(json_array_size(s->cfg.ep.engines), 1);
    assert_string_equal(s->cfg.arch, "sm_80");
}

static void test_list(void **st)
{
    char *const folders[] = {"/a/b", "/c/", NULL};
    assert_true(lsp_trust_covers(folders, "/a/b"));
    assert_true(lsp_trust_covers(folders, "/a/b/x/y"));
    assert_false(lsp_trust_covers(folders, "/a/bc"));
    assert_false(lsp_trust_covers(folders, "/a"));
    assert_true(lsp_trust_covers(folders, "/c"));
    assert_true(lsp_trust_covers(folders, "/c/d"));
    assert_false(lsp_trust_covers(folders, "relative/a/b"));
    assert_false(lsp_trust_covers(NULL, "/a/b"));
    char *const root[] = {"/", NULL};
    assert_true(lsp_trust_covers(root, "/anything"));

    char **v = NULL;
    assert_int_equal(lsp_trust_read(g_list, &v), HK_OK); /* no file yet: empty */
    assert_null(v[0]);
    lsp_trust_free(v);
    char sub[128], *canon = NULL;
    bool changed = false;
    snprintf(sub, sizeof sub, "%s/sub", g_dir);
    mkdir(sub, 0700);
    char rel[160]; /* a path with "..": stored canonical */
    snprintf(rel, sizeof rel, "%s/sub/../sub/", g_dir);
    assert_int_equal(lsp_trust_update(g_list, rel, true, &canon, &changed), HK_OK);
    assert_true(changed);
    assert_string_equal(canon, sub);
    hk_free(canon);
    assert_int_equal(lsp_trust_update(g_list, sub, true, NULL, &changed), HK_OK);
    assert_false(changed);
    assert_int_equal(lsp_trust_update(g_list, "/no/such/folder", true, NULL, &changed),
                     HK_ENOENT);
    assert_int_equal(lsp_trust_read(g_list, &v), HK_OK);
    assert_string_equal(v[0], sub);
    assert_null(v[1]);
    lsp_trust_free(v);
    /* removal, also of a folder that is gone */
    rmdir(sub);
    assert_int_equal(lsp_trust_update(g_list, sub, false, NULL, &changed), HK_OK);
    assert_true(changed);
    assert_int_equal(lsp_trust_read(g_list, &v), HK_OK);
    assert_null(v[0]);
    lsp_trust_free(v);
    /* a broken list is an error and is never overwritten */
    write_file(g_list, "{\"not\": \"a list\"}");
    assert_int_equal(lsp_trust_read(g_list, &v), HK_EPARSE);
    assert_null(v);
    assert_int_equal(lsp_trust_update(g_list, g_dir, true, NULL, NULL), HK_EPARSE);
    assert_string_equal(slurp(g_list), "{\"not\": \"a list\"}");
    write_file(g_list, "[\"relative/path\"]");
    assert_int_equal(lsp_trust_read(g_list, &v), HK_EPARSE);
    unlink(g_list);
}

/* Untrusted: the keys are ignored and named; hyperkernel.trustFolder writes the list,
 * applies them at once and clears the warnings; a new server reads the list at start;
 * untrustFolder takes it back. */
static void test_untrusted_then_trusted(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    lsp_server *s = start(&loop, &o, NULL);
    assert_false(lsp_trusted(s));
    assert_untrusted_cfg(s);
    const char *msg = last_message(&o, "window/showMessage");
    assert_non_null(msg);
    static const char *const keys[] = {"compile.nvcc", "compile.hipcc", "compile.flags",
                                       "episodes.simulate", "engines", "isTrusted"};
    for (size_t i = 0; i < HK_ARRAY_LEN(keys); i++)
        assert_non_null(strstr(msg, keys[i]));
    assert_non_null(strstr(msg, "hkls trust"));
    assert_non_null(strstr(msg, ":HyperKernelTrust"));
    assert_null(strstr(msg, "compile.includePaths"));
    /* after the initialize response, not before */
    int at_reply = -1, at_msg = -1;
    for (int i = 0; i < o.n; i++) {
        if (json_integer_value(json_object_get(o.m[i], "id")) == 1)
            at_reply = i;
        if (json_object_get(o.m[i], "method") &&
            !strcmp(json_string_value(json_object_get(o.m[i], "method")), "window/showMessage"))
            at_msg = i;
    }
    assert_true(at_reply >= 0 && at_msg > at_reply);
    json_t *d = file_diags(&o);
    assert_int_equal(json_array_size(d), HK_ARRAY_LEN(keys));
    json_t *nvcc_diag = json_array_get(d, 0);
    assert_non_null(strstr(json_string_value(json_object_get(nvcc_diag, "message")),
                           "compile.nvcc ignored: this folder is not trusted and it names the "
                           "compiler to run"));
    assert_string_equal(json_string_value(json_object_get(nvcc_diag, "code")),
                        "untrusted-setting");
    /* on the line of "nvcc" (0-based 4) */
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(nvcc_diag, "range"), "start"), "line")),
                     4);
    /* the dotted key on its own line (7) */
    json_t *hip_diag = json_array_get(d, 1);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(hip_diag, "range"), "start"), "line")),
                     7);
    /* a rebuild with nothing new does not repeat the message */
    int before = o.n;
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"workspace/didChangeConfiguration\",\"params\":"
            "{\"settings\":{\"hyperkernel\":{\"compile\":{\"debounceMs\":5}}}}}");
    for (int i = before; i < o.n; i++) {
        const char *m = json_string_value(json_object_get(o.m[i], "method"));
        assert_true(!m || strcmp(m, "window/showMessage") != 0);
    }
    assert_untrusted_cfg(s);

    /* trust it through the command: answered after the pool thread wrote the list */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"workspace/executeCommand\",\"params\":"
            "{\"command\":\"hyperkernel.trustFolder\",\"arguments\":[]}}");
    assert_null(reply(&o, 7));
    uv_run(&loop, UV_RUN_DEFAULT);
    json_t *r = json_object_get(reply(&o, 7), "result");
    assert_non_null(r);
    assert_string_equal(json_string_value(json_object_get(r, "folder")), g_dir);
    assert_string_equal(json_string_value(json_object_get(r, "file")), g_list);
    assert_true(json_is_true(json_object_get(r, "workspaceTrusted")));
    assert_true(json_is_true(json_object_get(r, "changed")));
    char *text = slurp(g_list);
    assert_non_null(text);
    assert_non_null(strstr(text, g_dir));
    assert_true(lsp_trusted(s));
    assert_trusted_cfg(s);
    assert_int_equal(json_array_size(file_diags(&o)), 0); /* the warnings are cleared */
    stop(&loop, s);
    out_clear(&o);

    /* a new server reads the list at start */
    s = start(&loop, &o, NULL);
    assert_true(lsp_trusted(s));
    assert_trusted_cfg(s);
    assert_null(find(&o, "window/showMessage"));
    /* untrustFolder with the folder as a uri */
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"workspace/executeCommand\",\"params\":"
             "{\"command\":\"hyperkernel.untrustFolder\",\"arguments\":[{\"folder\":\"file://%s\"}]}}",
             g_dir);
    feed(s, cmd);
    uv_run(&loop, UV_RUN_DEFAULT);
    r = json_object_get(reply(&o, 8), "result");
    assert_false(json_is_true(json_object_get(r, "workspaceTrusted")));
    assert_untrusted_cfg(s);
    assert_null(strstr(slurp(g_list), g_dir));
    /* bad arguments get an error, not a crash */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"workspace/executeCommand\",\"params\":"
            "{\"command\":\"hyperkernel.trustFolder\",\"arguments\":[42]}}");
    assert_non_null(json_object_get(reply(&o, 9), "error"));
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"workspace/executeCommand\",\"params\":"
            "{\"command\":\"hyperkernel.trustFolder\",\"arguments\":[\"/no/such/dir\"]}}");
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_non_null(json_object_get(reply(&o, 10), "error"));
    stop(&loop, s);
    assert_int_equal(uv_loop_close(&loop), 0);
    out_clear(&o);
    unlink(g_list);
}

/* VS Code's workspace trust: isTrusted in initializationOptions applies the folder's
 * keys; granted later through didChangeConfiguration, they apply from then on. */
static void test_client_trust(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    lsp_server *s = start(&loop, &o, "{\"isTrusted\": true}");
    assert_true(lsp_trusted(s));
    assert_trusted_cfg(s);
    assert_null(find(&o, "window/showMessage"));
    assert_null(file_diags(&o));
    assert_null(fopen(g_list, "r")); /* the client's trust is not written anywhere */
    stop(&loop, s);
    out_clear(&o);

    s = start(&loop, &o, "{\"isTrusted\": false}");
    assert_untrusted_cfg(s);
    assert_non_null(find(&o, "window/showMessage"));
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"workspace/didChangeConfiguration\",\"params\":"
            "{\"settings\":{\"hyperkernel\":{\"isTrusted\":true}}}}");
    assert_trusted_cfg(s);
    assert_int_equal(json_array_size(file_diags(&o)), 0);
    /* settings without isTrusted keep the trust */
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"workspace/didChangeConfiguration\",\"params\":"
            "{\"settings\":{\"hyperkernel\":{}}}}");
    assert_trusted_cfg(s);
    stop(&loop, s);
    assert_int_equal(uv_loop_close(&loop), 0);
    out_clear(&o);
}

/* Include paths apply in an untrusted folder -- unless an entry has characters nvcc's
 * shell would run; then the list is dropped and named. */
static void test_unsafe_include_paths(void **st)
{
    char path[256];
    snprintf(path, sizeof path, "%s/.hyperkernel.json", g_dir);
    write_file(path, "{\"compile\": {\"includePaths\": [\"inc\", \"x`touch y`\"]},\n"
                     " \"compile.debounceMs\": 9}\n");
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    lsp_server *s = start(&loop, &o, NULL);
    assert_null(s->cfg.include_paths);
    assert_int_equal(s->cfg.debounce_ms, 9);
    const char *msg = last_message(&o, "window/showMessage");
    assert_non_null(msg);
    assert_non_null(strstr(msg, "compile.includePaths"));
    json_t *d = file_diags(&o);
    assert_int_equal(json_array_size(d), 1);
    assert_non_null(strstr(json_string_value(json_object_get(json_array_get(d, 0), "message")),
                           "shell"));
    stop(&loop, s);
    out_clear(&o);
    /* trusted: the user's call */
    s = start(&loop, &o, "{\"isTrusted\": true}");
    assert_non_null(s->cfg.include_paths);
    assert_non_null(s->cfg.include_paths[1]);
    stop(&loop, s);
    assert_int_equal(uv_loop_close(&loop), 0);
    out_clear(&o);
}

/* The trust messages in the user's language (docs/i18n.md): with "language": "zh-CN" (a
 * setting that needs no trust) the untrusted warning and trustFolder's result are Chinese;
 * the keys, the folder and the commands stay as they are. */
static void test_messages_in_chinese(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    lsp_server *s = start(&loop, &o, "{\"language\":\"zh-CN\",\"bogusKey\":1}");
    /* the settings' warnings speak the language those same settings choose */
    const char *log = last_message(&o, "window/logMessage");
    if (!log || !strstr(log, "：已忽略未知设置 \"bogusKey\""))
        fail_msg("not the Chinese settings warning: %s", log ? log : "(none)");
    const char *msg = last_message(&o, "window/showMessage");
    assert_non_null(msg);
    char want[256];
    snprintf(want, sizeof want, "hkls：%s 不是受信任的文件夹，因此忽略了其 .hyperkernel.json 中的"
             "以下设置：", g_dir);
    if (strncmp(msg, want, strlen(want)) || !strstr(msg, "compile.nvcc") ||
        !strstr(msg, "\"hkls trust ") || strstr(msg, "is not a trusted folder"))
        fail_msg("not the Chinese warning: %s", msg);
    /* the per-key warnings on .hyperkernel.json: the sentence and its reason in Chinese,
     * the key and the command as they are */
    json_t *d = file_diags(&o);
    assert_true(json_array_size(d) >= 1);
    const char *nvcc = json_string_value(json_object_get(json_array_get(d, 0), "message"));
    snprintf(want, sizeof want, "已忽略 compile.nvcc：此文件夹不受信任，而它指定要运行的编译器。"
             "信任该文件夹后才能使用它（hkls trust %s、", g_dir);
    if (!nvcc || strncmp(nvcc, want, strlen(want)))
        fail_msg("not the Chinese per-key warning: %s", nvcc ? nvcc : "(none)");
    assert_string_equal(json_string_value(json_object_get(json_array_get(d, 0), "code")),
                        "untrusted-setting");
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"workspace/executeCommand\",\"params\":"
            "{\"command\":\"hyperkernel.trustFolder\",\"arguments\":[]}}");
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_non_null(json_object_get(reply(&o, 7), "result"));
    msg = last_message(&o, "window/showMessage");
    snprintf(want, sizeof want, "hkls：已信任 %s：其 .hyperkernel.json 全部生效", g_dir);
    if (!msg || strcmp(msg, want))
        fail_msg("trustFolder said: %s", msg ? msg : "(nothing)");
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"workspace/executeCommand\",\"params\":"
            "{\"command\":\"hyperkernel.untrustFolder\",\"arguments\":[]}}");
    uv_run(&loop, UV_RUN_DEFAULT);
    msg = last_message(&o, "window/showMessage");
    snprintf(want, sizeof want, "hkls：不再信任 %s", g_dir);
    if (!msg || strcmp(msg, want))
        fail_msg("untrustFolder said: %s", msg ? msg : "(nothing)");
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    hk_i18n_set(HK_LANG_EN);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_untrusted_then_trusted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_trust, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsafe_include_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_messages_in_chinese, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
