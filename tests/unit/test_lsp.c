/* Unit tests for the lsp module in-process: uri and command-line helpers, settings
 * layers (file < client, nested and dotted keys, bad values reported), compile options
 * from compile_commands.json, requests to the client gated by capabilities, and a
 * session without leaks. A large compile_commands.json replaced while the server runs is
 * read and freed off the loop: the loop watch's count of the loop thread's heap calls in
 * any one iteration stays far below the database's (a count, not a time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/hk.h"
#include "lsp/state.h"
#include "lsp/base.h"
#include "lsp/config.h"
#include "lsp/diagnostics.h"
#include "lsp/loopwatch.h"
#include "rewrites/rewrite.h"
#include "spec/ccdb.h"

#include "lsp_out.h"

static void test_uris(void **st)
{
    char *p = lsp_uri_to_path("file:///home/a%20b/%E4%B8%AD.cu");
    assert_string_equal(p, "/home/a b/\xe4\xb8\xad.cu");
    hk_free(p);
    p = lsp_uri_to_path("file://localhost/x.cu");
    assert_string_equal(p, "/x.cu");
    hk_free(p);
    assert_null(lsp_uri_to_path("untitled:Untitled-1"));
    assert_null(lsp_uri_to_path("file://server/share/x.cu"));
    assert_null(lsp_uri_to_path("file:///a%00b"));
    char *u = lsp_path_to_uri("/home/a b/\xe4\xb8\xad.cu");
    assert_string_equal(u, "file:///home/a%20b/%E4%B8%AD.cu");
    hk_free(u);
}

static void test_split_command(void **st)
{
    char **v = spec_split_command("nvcc -I 'my dir' -DX=\"a b\" \\\"q -c   x.cu");
    assert_non_null(v);
    assert_string_equal(v[0], "nvcc");
    assert_string_equal(v[1], "-I");
    assert_string_equal(v[2], "my dir");
    assert_string_equal(v[3], "-DX=a b");
    assert_string_equal(v[4], "\"q");
    assert_string_equal(v[5], "-c");
    assert_string_equal(v[6], "x.cu");
    assert_null(v[7]);
    hk_strv_free(v);
    assert_null(spec_split_command("nvcc 'unterminated"));
    v = spec_split_command("");
    assert_non_null(v);
    assert_null(v[0]);
    hk_strv_free(v);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static lsp_server *start(uv_loop_t *loop, struct out *o, const char *init_params)
{
    lsp_server *s;
    assert_int_equal(lsp_server_new(loop, sink, o, &s), HK_OK);
    lsp_server_disable_compiles(s);
    char msg[4096];
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":%s}",
             init_params);
    feed(s, msg);
    return s;
}

static void stop(uv_loop_t *loop, lsp_server *s)
{
    lsp_server_stop(s);
    uv_run(loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
    uv_run(loop, UV_RUN_DEFAULT);
}

static void test_settings_layers(void **st)
{
    char dir[] = "/tmp/hk_test_lsp_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/.hyperkernel.json", dir);
    write_file(path, "{\"target\":\"dcu:gfx90a\",\"compile\":{\"debounceMs\":42,\"flags\":[\"-DF\"],"
                     "\"includePaths\":[\"inc\"]},\"compile.timeoutMs\":5000}");
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    char init[1024];
    snprintf(init, sizeof init,
             "{\"rootUri\":\"file://%s\",\"capabilities\":{},\"initializationOptions\":"
             "{\"isTrusted\":true,\"compile.debounceMs\":7,\"compile\":{\"hipcc\":\"/opt/x/hipcc\",\"enabled\":\"yes\"},"
             "\"nope\":1}}",
             dir);
    lsp_server *s = start(&loop, &o, init);
    /* file layer (the client said the workspace is trusted: test_lsp_trust.c has the
     * untrusted case) */
    assert_true(s->cfg.target_set);
    assert_int_equal(s->cfg.backend, CC_DCU);
    assert_string_equal(s->cfg.arch, "gfx90a");
    assert_int_equal(s->cfg.timeout_ms, 5000);
    assert_string_equal(s->cfg.flags[0], "-DF");
    /* include paths are relative to the root */
    char want[300];
    snprintf(want, sizeof want, "%s/inc", dir);
    assert_string_equal(s->cfg.include_paths[0], want);
    /* client layer wins key by key; a bad value keeps the lower layer's */
    assert_int_equal(s->cfg.debounce_ms, 7);
    assert_string_equal(s->cfg.hipcc, "/opt/x/hipcc");
    assert_true(s->cfg.compile_enabled);
    int warnings = 0;
    for (int i = 0; i < o.n; i++) {
        json_t *p = json_object_get(o.m[i], "params");
        const char *msg = json_string_value(json_object_get(p, "message"));
        if (msg && (strstr(msg, "\"nope\"") || strstr(msg, "compile.enabled must be")))
            warnings++;
    }
    assert_int_equal(warnings, 2);
    /* didChangeConfiguration replaces the client layer. */
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"workspace/didChangeConfiguration\",\"params\":"
            "{\"settings\":{\"hyperkernel\":{\"target\":\"nvidia:sm_75\"}}}}");
    assert_int_equal(s->cfg.backend, CC_NVIDIA);
    assert_string_equal(s->cfg.arch, "sm_75");
    assert_int_equal(s->cfg.debounce_ms, 42); /* back to the file's value */
    assert_null(s->cfg.hipcc);
    /* compile options for a file listed in compile_commands.json */
    snprintf(path, sizeof path, "%s/compile_commands.json", dir);
    char db[1024];
    snprintf(db, sizeof db,
             "[{\"directory\":\"%s/b\",\"file\":\"../k.cu\",\"arguments\":[\"nvcc\",\"-I\","
             "\"../inc2\",\"-DA=1\",\"-O3\",\"-std=c++17\",\"-arch=sm_70\",\"-o\",\"k.o\","
             "\"../k.cu\"]},{\"directory\":\"%s\",\"file\":\"other.cu\",\"command\":\"nvcc -DB\"}]",
             dir, dir);
    write_file(path, db);
    char bdir[256];
    snprintf(bdir, sizeof bdir, "%s/b", dir);
    mkdir(bdir, 0700);
    char k[256];
    snprintf(k, sizeof k, "%s/k.cu", dir);
    write_file(k, "__global__ void k() {}\n");
    cc_options opt;
    char **extra = NULL;
    /* the database is read on the pool: the first ask waits (HK_ESTATE), the loop
     * publishes it, then the options carry its flags */
    assert_int_equal(lsp_compile_options(s, k, &opt, &extra), HK_ESTATE);
    assert_null(extra);
    assert_non_null(s->ccdb_job);
    assert_int_equal(lsp_compile_options(s, k, &opt, &extra), HK_ESTATE); /* one read */
    for (int i = 0; i < 500 && s->ccdb_job; i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        if (s->ccdb_job)
            usleep(10000);
    }
    assert_null(s->ccdb_job);
    assert_int_equal(lsp_compile_options(s, k, &opt, &extra), HK_OK);
    assert_string_equal(opt.arch, "sm_75");
    size_t n = 0;
    while (extra[n])
        n++;
    /* -DF, -I<root>/inc, then the entry's -I (resolved) -DA=1 -std=c++17 */
    assert_int_equal(n, 6);
    assert_string_equal(extra[0], "-DF");
    assert_string_equal(extra[2], "-I");
    snprintf(want, sizeof want, "%s/b/../inc2", dir);
    assert_string_equal(extra[3], want);
    assert_string_equal(extra[4], "-DA=1");
    assert_string_equal(extra[5], "-std=c++17");
    hk_strv_free(extra);
    stop(&loop, s);
    assert_int_equal(uv_loop_close(&loop), 0);
    out_clear(&o);
    unlink(k);
    unlink(path);
    rmdir(bdir);
    snprintf(path, sizeof path, "%s/.hyperkernel.json", dir);
    unlink(path);
    rmdir(dir);
}

/* n entries, each with 5 flags kept (-I DIR -DA=i -DB -std=c++17), written with stdio (no
 * heap calls through the seam), its mtime set to sec so that each version is new. */
static void write_ccdb(const char *path, const char *dir, int n, int gen, time_t sec)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s{\"directory\":\"%s\",\"file\":\"f%05d.cu\",\"arguments\":[\"nvcc\","
                   "\"-I\",\"inc\",\"-DA=%d\",\"-DB\",\"-std=c++17\",\"-c\",\"f%05d.cu\"]}",
                i ? "," : "", dir, i, gen, i);
    fputs("]\n", f);
    fclose(f);
    struct timespec ts[2] = {{sec, 0}, {sec, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* Asks for a file's options until the database read on the pool is published. */
static void await_ccdb(uv_loop_t *loop, lsp_server *s, const char *file, const char *want_flag)
{
    cc_options opt;
    char **extra = NULL;
    assert_int_equal(lsp_compile_options(s, file, &opt, &extra), HK_ESTATE);
    for (int i = 0; i < 1000 && s->ccdb_job; i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (s->ccdb_job)
            usleep(10000);
    }
    assert_null(s->ccdb_job);
    assert_int_equal(lsp_compile_options(s, file, &opt, &extra), HK_OK);
    bool seen = false;
    for (char **f = extra; *f; f++)
        seen |= strcmp(*f, want_flag) == 0;
    assert_true(seen);
    hk_strv_free(extra);
}

static void test_large_ccdb_off_the_loop(void **st)
{
    enum { N = 4000 }; /* freed on the loop, 7 heap calls an entry: 28,000 in one iteration */
    char dir[] = "/tmp/hk_test_lsp_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], file[256];
    snprintf(path, sizeof path, "%s/compile_commands.json", dir);
    snprintf(file, sizeof file, "%s/f00007.cu", dir);
    write_ccdb(path, dir, N, 1, 1000000);
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    char init[512];
    snprintf(init, sizeof init, "{\"rootUri\":\"file://%s\",\"capabilities\":{}}", dir);
    lsp_server *s = start(&loop, &o, init);
    assert_non_null(s->loopwatch);
    await_ccdb(&loop, s, file, "-DA=1");
    assert_int_equal(s->ccdb.n, N);
    /* a build rewrites it: the new one is read on the pool, the old one freed there */
    write_ccdb(path, dir, N, 2, 2000000);
    await_ccdb(&loop, s, file, "-DA=2");
    /* and it goes away: the last one freed on the pool too */
    unlink(path);
    cc_options opt;
    char **extra = NULL;
    assert_int_equal(lsp_compile_options(s, file, &opt, &extra), HK_OK);
    assert_int_equal(s->ccdb.n, 0);
    hk_strv_free(extra);
    for (int i = 0; i < 50; i++) { /* the frees' completions */
        uv_run(&loop, UV_RUN_NOWAIT);
        usleep(2000);
    }
    json_t *j = lsp_loopwatch_json(s->loopwatch);
    assert_non_null(j);
    json_int_t most = json_integer_value(json_object_get(j, "heap_calls_max"));
    print_message("most heap calls of the loop thread in one iteration: %lld (%s)\n",
                  (long long)most,
                  json_string_value(json_object_get(j, "heap_calls_longest_during")));
    assert_true(json_integer_value(json_object_get(j, "iterations")) > 0);
    assert_true(most < N);
    json_decref(j);
    stop(&loop, s);
    assert_int_equal(uv_loop_close(&loop), 0);
    out_clear(&o);
    rmdir(dir);
}

static int g_replies;
static int g_status;
static void on_reply(rpc *r, int status, json_t *result, json_t *error, void *ud)
{
    g_replies++;
    g_status = status;
    if (status == HK_OK && result)
        assert_true(json_is_true(json_object_get(result, "applied")));
}

static void test_client_requests(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    /* Without the capabilities: refused, showDocument falls back to a message. */
    lsp_server *s = start(&loop, &o, "{\"capabilities\":{}}");
    assert_int_equal(lsp_client_apply_edit(s, "x", json_object(), on_reply, NULL),
                     HK_EUNSUPPORTED);
    assert_int_equal(lsp_client_progress_create(s, "t1", on_reply, NULL), HK_EUNSUPPORTED);
    assert_int_equal(lsp_client_show_document(s, "file:///a/b.cu", true, NULL, on_reply, NULL),
                     HK_EUNSUPPORTED);
    json_t *m = find(&o, "window/showMessage");
    assert_non_null(m);
    assert_non_null(strstr(json_string_value(json_object_get(json_object_get(m, "params"), "message")),
                           "/a/b.cu"));
    stop(&loop, s);
    out_clear(&o);
    /* With them: sent, and the reply is matched by id. */
    s = start(&loop, &o, "{\"capabilities\":{\"workspace\":{\"applyEdit\":true},"
                         "\"window\":{\"workDoneProgress\":true,\"showDocument\":{\"support\":true}}}}");
    g_replies = 0;
    assert_int_equal(lsp_client_apply_edit(s, "Apply v3", json_pack("{s:{}}", "changes"),
                                           on_reply, NULL), HK_OK);
    m = find(&o, "workspace/applyEdit");
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(json_object_get(m, "params"), "label")),
                        "Apply v3");
    char reply[128];
    snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"applied\":true}}",
             (long long)json_integer_value(json_object_get(m, "id")));
    feed(s, reply);
    assert_int_equal(g_replies, 1);
    assert_int_equal(g_status, HK_OK);
    assert_int_equal(lsp_client_progress_create(s, "tok", on_reply, NULL), HK_OK);
    /* Pending at exit: cancelled exactly once, and the loop can finish. */
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    assert_true(lsp_server_exited(s));
    assert_int_equal(lsp_server_exit_code(s), 1);
    assert_int_equal(g_replies, 2);
    assert_int_equal(g_status, HK_ECANCELED);
    stop(&loop, s);
    assert_int_equal(uv_loop_close(&loop), 0);
    out_clear(&o);
}

/* Runs the loop until request id is answered (the analysis is parsed on the pool), at
 * most ~5 s; the reply (borrowed). */
static json_t *await_reply(uv_loop_t *loop, struct out *o, int id)
{
    for (int i = 0; i < 500 && !reply(o, id); i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (!reply(o, id))
            usleep(10000);
    }
    assert_non_null(reply(o, id));
    return reply(o, id);
}

static void test_session_without_leaks(void **st)
{
    long before = hk_alloc_live();
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    lsp_server *s = start(&loop, &o, "{\"capabilities\":{}}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":"
            "{\"uri\":\"file:///t/a.cu\",\"languageId\":\"cuda\",\"version\":1,\"text\":"
            "\"__global__ void k(int *p) { p[0] = 1; }\\nvoid h(int *p) { k<<<1, 32>>>(p); }\\n\"}}}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":"
            "{\"uri\":\"file:///t/a.cu\",\"version\":2},\"contentChanges\":[{\"range\":{\"start\":"
            "{\"line\":0,\"character\":16},\"end\":{\"line\":0,\"character\":17}},\"text\":\"kk\"}]}}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/documentSymbol\",\"params\":"
            "{\"textDocument\":{\"uri\":\"file:///t/a.cu\"}}}");
    json_t *r = await_reply(&loop, &o, 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(r, "result"), 0),
                                                          "name")),
                        "kk");
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/hover\",\"params\":"
            "{\"textDocument\":{\"uri\":\"file:///t/a.cu\"},\"position\":{\"line\":1,\"character\":20}}}");
    r = await_reply(&loop, &o, 3);
    assert_non_null(strstr(json_string_value(json_object_get(json_object_get(json_object_get(r, "result"),
                                                                             "contents"), "value")),
                           "Launch of k"));
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"shutdown\"}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    assert_int_equal(lsp_server_exit_code(s), 0);
    stop(&loop, s);
    assert_int_equal(uv_loop_close(&loop), 0);
    out_clear(&o);
    assert_int_equal(hk_alloc_live(), before);
}

/* The hover's launch lines in the client's language (issue 14): zh-CN from initialize's
 * locale, the same grid, block and stream. */
static void test_hover_launch_lines_in_chinese(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    lsp_server *s = start(&loop, &o, "{\"capabilities\":{},\"locale\":\"zh-CN\"}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":"
            "{\"uri\":\"file:///t/z.cu\",\"languageId\":\"cuda\",\"version\":1,\"text\":"
            "\"__global__ void k(int *p) { p[0] = 1; }\\nvoid h(int *p, cudaStream_t st) "
            "{ k<<<4, 32, 0, st>>>(p); }\\n\"}}}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/hover\",\"params\":"
            "{\"textDocument\":{\"uri\":\"file:///t/z.cu\"},\"position\":{\"line\":1,\"character\":36}}}");
    json_t *r = await_reply(&loop, &o, 3);
    const char *v = json_string_value(
        json_object_get(json_object_get(json_object_get(r, "result"), "contents"), "value"));
    assert_non_null(v);
    const char *want[] = {"核函数 k 的启动", "- 第 2 行，位于 ", "h", "：网格 ", "4",
                          "，线程块 ", "32", "，共享内存 ", "，流 ", "st"};
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(v, want[i]))
            fail_msg("no \"%s\" in the hover:\n%s", want[i], v);
    if (strstr(v, "Launch of") || strstr(v, " in ") || strstr(v, "grid"))
        fail_msg("English left in the hover:\n%s", v);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"shutdown\"}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    stop(&loop, s);
    assert_int_equal(uv_loop_close(&loop), 0);
    out_clear(&o);
    hk_i18n_set(HK_LANG_EN);
}

/* The resource line of the hover and of the resource hints, in both languages: the same
 * numbers, the occupancy limiter named in the reader's words (docs/i18n.md). */
static void test_resource_summary_languages(void **st)
{
    cc_resource r = {.arch = "sm_90", .registers = 255, .spill_stores = 8, .spill_loads = 4,
                     .smem_static = 1024};
    struct hk_buf en, zh;
    hk_buf_init(&en, 4096);
    hk_buf_init(&zh, 4096);
    assert_int_equal(lsp_resource_summary(&r, NULL, &en), HK_OK);
    hk_i18n_set(HK_LANG_ZH_CN);
    assert_int_equal(lsp_resource_summary(&r, NULL, &zh), HK_OK);
    hk_i18n_set(HK_LANG_EN);
    /* 255 registers at 256 threads: 1 block of 8 warps out of 64 */
    assert_string_equal(en.data, "255 registers, 12 B spill, 1024 B smem, occupancy 12% at 256 "
                                 "threads/block limited by registers");
    assert_string_equal(zh.data, "寄存器 255 个，溢出 12 B，共享内存 1024 B，占用率 12%"
                                 "（每线程块 256 个线程），受限于寄存器");
    hk_buf_free(&en);
    hk_buf_free(&zh);
}

/* The occupancy's block is the one the file launches the kernel with, read as hkls check
 * and Apply read it (rw_kernel_block_of): through a #define and a local dim3, before the
 * __launch_bounds__ cap (the editor's own copy took the cap first and literals only). */
static void test_resource_summary_launch_block(void **st)
{
    (void)st;
    static const char text[] =
        "#define BLOCK 128\n"
        "__global__ void __launch_bounds__(256) k(float *y) { y[threadIdx.x] = 0; }\n"
        "__global__ void j(float *y) { y[threadIdx.x] = 0; }\n"
        "void run(float *y)\n"
        "{\n"
        "    k<<<4, BLOCK>>>(y);\n"
        "    dim3 b(16, 4);\n"
        "    j<<<4, b, 512>>>(y);\n"
        "}\n";
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, strlen(text), &m), HK_OK);
    long k = an_model_find_kernel(m, "k"), j = an_model_find_kernel(m, "j");
    assert_true(k >= 0 && j >= 0);
    cc_resource r = {.arch = "sm_90", .registers = 32};
    struct hk_buf b;
    hk_buf_init(&b, 4096);
    rw_kernel_block kb, all[16];
    assert_true(m->n_funcs <= 16);
    assert_int_equal(rw_kernel_blocks(text, strlen(text), m, all), HK_OK);
    assert_int_equal(rw_kernel_block_of(text, strlen(text), m, "k", -1, &kb), HK_OK);
    assert_int_equal(kb.threads, all[k].threads);
    assert_int_equal(lsp_resource_summary(&r, &kb, &b), HK_OK);
    assert_non_null(strstr(b.data, "at 128 threads/block"));
    hk_buf_reset(&b);
    assert_int_equal(rw_kernel_block_of(text, strlen(text), m, "j", j, &kb), HK_OK);
    assert_int_equal(lsp_resource_summary(&r, &kb, &b), HK_OK);
    assert_non_null(strstr(b.data, "at 64 threads/block"));
    assert_int_equal(kb.threads, 64);
    assert_int_equal(kb.dyn_smem, 512);
    assert_string_equal(kb.source, "launch");
    assert_int_equal(all[j].threads, 64);
    assert_int_equal(all[j].dyn_smem, 512);
    hk_buf_free(&b);
    an_model_free(m);
}

int main(void)
{
    hk_alloc_init_json();
    hk_log_open("/dev/null", HK_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uris),
        cmocka_unit_test(test_resource_summary_languages),
        cmocka_unit_test(test_resource_summary_launch_block),
        cmocka_unit_test(test_split_command),
        cmocka_unit_test(test_settings_layers),
        cmocka_unit_test(test_large_ccdb_off_the_loop),
        cmocka_unit_test(test_client_requests),
        cmocka_unit_test(test_session_without_leaks),
        cmocka_unit_test(test_hover_launch_lines_in_chinese),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
