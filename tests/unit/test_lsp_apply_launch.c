/* The editor's apply writes the launch a version was measured with (actions.c build_apply
 * with rw_launch_config), in-process against a history database made here: a kernel-kind
 * version measured on an SM-multiple grid gets its kernel text, the hk_sm_count() helper
 * and the grid as TextEdits of one document edit; a launch-only version (same text, block
 * 128) is applicable too; hyperkernel.applied checks the launch lines as well as the
 * kernel (a client that applied only the kernel edit is caught); after applying, the
 * action says "already in the file"; hyperkernel.applyVersion pushes the same edit. On a
 * 700 KB file the plan runs on the libuv pool (issue 14): the loop answers other requests
 * meanwhile, and an edit made while it runs gets ContentModified, not a stale edit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/hk.h"
#include "lsp/state.h"
#include "lsp/textsync.h"
#include "store/store.h"

#include "lsp_out.h"

static void feed_json(lsp_server *s, json_t *m /* stolen */)
{
    char *t = json_dumps(m, 0);
    assert_non_null(t);
    feed(s, t);
    hk_free(t); /* jansson allocates through the seam */
    json_decref(m);
}

/* Runs the loop until request id is answered, at most ~30 s (a 778 KB file planned on the
 * pool under AddressSanitizer, on a loaded 2-core CI machine, took more than 5 s). */
static json_t *await(uv_loop_t *loop, struct out *o, int id)
{
    for (int i = 0; i < 3000 && !reply(o, id); i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (!reply(o, id))
            usleep(10000);
    }
    json_t *r = reply(o, id);
    assert_non_null(r);
    return r;
}

/* Runs the loop until the server sent a message with method (the edit is planned on the
 * pool first), at most ~30 s. */
static json_t *await_method(uv_loop_t *loop, struct out *o, const char *method)
{
    for (int i = 0; i < 3000 && !find(o, method); i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (!find(o, method))
            usleep(10000);
    }
    json_t *r = find(o, method);
    assert_non_null(r);
    return r;
}

static char dir[] = "/tmp/hk-test-lsp-apply-XXXXXX";
static char kfile[300], db[300], uri[320];

static const char base_kernel[] =
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}";

static const char stride_kernel[] =
    "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}";

static const char launcher[] =
    "\n"
    "\n"
    "// Runs saxpy on device arrays.\n"
    "void run(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);\n"
    "}\n";

static char *base_text, *stride_text;

static char *concat(const char *a, const char *b)
{
    char *r = malloc(strlen(a) + strlen(b) + 1);
    assert_non_null(r);
    strcpy(r, a);
    strcat(r, b);
    return r;
}

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
    m.bytes_per_s = m.flop_per_s = m.roofline_pct = NAN;
    m.size_key = "n=16777216";
    assert_int_equal(store_measurement_add(s, &m, NULL), HK_OK);
}

static int setup(void **st)
{
    hk_alloc_init_json();
    if (!mkdtemp(dir))
        return -1;
    snprintf(kfile, sizeof kfile, "%s/k.cu", dir);
    snprintf(db, sizeof db, "%s/history.db", dir);
    snprintf(uri, sizeof uri, "file://%s", kfile);
    base_text = concat(base_kernel, launcher);
    stride_text = concat(stride_kernel, launcher);
    FILE *f = fopen(kfile, "w");
    if (!f)
        return -1;
    fputs(base_text, f);
    fclose(f);

    store *s = NULL;
    assert_int_equal(store_open(db, &s), HK_OK);
    char kh[STORE_HASH_HEX];
    store_content_hash(base_kernel, strlen(base_kernel), kh);
    int64_t kid, ep, v0, v1, v2;
    assert_int_equal(store_kernel_upsert(s, kfile, "saxpy", kh, &kid), HK_OK);
    store_episode_new en = {.kernel_id = kid, .name = "saxpy sm_90", .target = "nvidia:sm_90",
                            .backend = "nvidia", .arch = "sm_90", .engine = "builtin"};
    assert_int_equal(store_episode_create(s, &en, &ep), HK_OK);
    store_version_new vn = {.episode_id = ep, .source = base_text,
                            .launch_json = "{\"flags\":[],\"block\":null}",
                            .status = STORE_V_VERIFIED, .produced_by = "original"};
    assert_int_equal(store_version_add(s, &vn, &v0), HK_OK);
    /* v1: the same text, launched with block 128 */
    vn.parent_id = v0;
    vn.launch_json = "{\"flags\":[],\"block\":[128,1,1],\"grid_mode\":\"spec\"}";
    vn.produced_by = "builtin: block 128x1x1";
    assert_int_equal(store_version_add(s, &vn, &v1), HK_OK);
    /* v2: the grid-stride kernel on 8 blocks per SM, block 256 */
    vn.parent_id = v1;
    vn.source = stride_text;
    vn.launch_json = "{\"flags\":[],\"block\":[256,1,1],\"grid_mode\":\"sm_multiple\","
                     "\"grid_per_sm\":8}";
    vn.produced_by = "builtin: grid-stride loop; 8 blocks/SM";
    assert_int_equal(store_version_add(s, &vn, &v2), HK_OK);
    add_measure(s, v0, ep, STORE_M_BASELINE, 2.0);
    add_measure(s, v1, ep, STORE_M_VERIFY, 1.9);
    add_measure(s, v2, ep, STORE_M_VERIFY, 1.6);
    assert_int_equal(store_episode_set_baseline(s, ep, v0), HK_OK);
    assert_int_equal(store_episode_set_best(s, ep, v2), HK_OK);
    assert_int_equal(store_episode_finish(s, ep, STORE_EP_COMPLETED, NULL), HK_OK);
    store_close(s);
    return 0;
}

static int teardown(void **st)
{
    free(base_text);
    free(stride_text);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static lsp_server *start(uv_loop_t *loop, struct out *o)
{
    lsp_server *s;
    assert_int_equal(lsp_server_new(loop, sink, o, &s), HK_OK);
    lsp_server_disable_compiles(s);
    char msg[4096];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
             "\"rootUri\":\"file://%s\",\"capabilities\":{\"workspace\":{\"applyEdit\":true,"
             "\"workspaceEdit\":{\"documentChanges\":true}},\"textDocument\":{\"codeAction\":"
             "{\"disabledSupport\":true}}},\"initializationOptions\":{\"episodes\":{\"db\":"
             "\"%s\"}}}}",
             dir, db);
    feed(s, msg);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    return s;
}

static int doc_version_now = 1;

static void open_doc(lsp_server *s, const char *text)
{
    feed_json(s, json_pack("{s:s, s:s, s:{s:{s:s, s:s, s:i, s:s}}}", "jsonrpc", "2.0", "method",
                           "textDocument/didOpen", "params", "textDocument", "uri", uri,
                           "languageId", "cuda", "version", doc_version_now, "text", text));
}

static void set_text(lsp_server *s, const char *text)
{
    doc_version_now++;
    feed_json(s, json_pack("{s:s, s:s, s:{s:{s:s, s:i}, s:[{s:s}]}}", "jsonrpc", "2.0",
                           "method", "textDocument/didChange", "params", "textDocument", "uri",
                           uri, "version", doc_version_now, "contentChanges", "text", text));
}

/* Byte offset of an LSP position in an ASCII text. */
static size_t offset_of(const char *text, json_t *pos)
{
    long line = (long)json_integer_value(json_object_get(pos, "line"));
    size_t i = 0;
    for (; line > 0 && text[i]; i++)
        if (text[i] == '\n')
            line--;
    return i + (size_t)json_integer_value(json_object_get(pos, "character"));
}

/* text with the TextEdits applied (malloc'd); only_first: just the first edit. */
static char *apply_edits(const char *text, json_t *edits, bool only_first)
{
    size_t n = only_first ? 1 : json_array_size(edits);
    char *cur = strdup(text);
    assert_non_null(cur);
    /* back to front, so earlier offsets hold */
    for (size_t k = n; k-- > 0;) {
        json_t *e = json_array_get(edits, k);
        json_t *r = json_object_get(e, "range");
        size_t a = offset_of(cur, json_object_get(r, "start"));
        size_t b = offset_of(cur, json_object_get(r, "end"));
        const char *nt = json_string_value(json_object_get(e, "newText"));
        assert_true(a <= b && b <= strlen(cur));
        if (k > 0) {
            json_t *prev = json_object_get(json_array_get(edits, k - 1), "range");
            assert_true(offset_of(cur, json_object_get(prev, "end")) <= a); /* sorted, apart */
        }
        char *next = malloc(strlen(cur) - (b - a) + strlen(nt) + 1);
        assert_non_null(next);
        memcpy(next, cur, a);
        strcpy(next + a, nt);
        strcat(next, cur + b);
        free(cur);
        cur = next;
    }
    return cur;
}

static json_t *action(json_t *actions, const char *prefix)
{
    size_t i;
    json_t *a;
    json_array_foreach(actions, i, a) {
        const char *t = json_string_value(json_object_get(a, "title"));
        if (t && !strncmp(t, prefix, strlen(prefix)))
            return a;
    }
    return NULL;
}

static int next_id = 10;

static json_t *code_actions(uv_loop_t *loop, lsp_server *s, struct out *o)
{
    int id = next_id++;
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:{s:s}, s:{s:{s:i, s:i}, s:{s:i, s:i}}, s:{}}}",
                           "jsonrpc", "2.0", "id", id, "method", "textDocument/codeAction",
                           "params", "textDocument", "uri", uri, "range", "start", "line", 0,
                           "character", 17, "end", "line", 0, "character", 17, "context"));
    return json_object_get(await(loop, o, id), "result");
}

static json_t *execute(uv_loop_t *loop, lsp_server *s, struct out *o, json_t *cmd)
{
    int id = next_id++;
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:O, s:O}}", "jsonrpc", "2.0", "id", id, "method",
                           "workspace/executeCommand", "params", "command",
                           json_object_get(cmd, "command"), "arguments",
                           json_object_get(cmd, "arguments")));
    return json_object_get(await(loop, o, id), "result");
}

static void test_apply_writes_the_launch(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    lsp_server *s = start(&loop, &o);
    open_doc(s, base_text);
    json_t *acts = code_actions(&loop, s, &o);

    /* v2: kernel text + helper + grid, one document edit, three TextEdits */
    json_t *a2 = action(acts, "Apply v2");
    assert_non_null(a2);
    assert_null(json_object_get(a2, "disabled"));
    assert_true(json_is_true(json_object_get(a2, "isPreferred")));
    json_t *dc = json_array_get(json_object_get(json_object_get(a2, "edit"), "documentChanges"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(dc, "textDocument"),
                                                        "version")), doc_version_now);
    json_t *edits = json_object_get(dc, "edits");
    assert_int_equal(json_array_size(edits), 3);
    char *want = apply_edits(base_text, edits, false);
    assert_non_null(strstr(want, stride_kernel));
    assert_non_null(strstr(want, "    saxpy<<<hk_sm_count() * 8, 256>>>(n, a, x, y);\n"));
    assert_non_null(strstr(want, "static int hk_sm_count(void)"));
    assert_true(strstr(want, "static int hk_sm_count") < strstr(want, "// Runs saxpy"));
    json_t *args = json_array_get(json_object_get(json_object_get(a2, "command"), "arguments"), 0);
    assert_int_equal(json_array_size(json_object_get(args, "expect")), 3);

    /* v1: only the launch (block 128), applicable now */
    json_t *a1 = action(acts, "Apply v1");
    assert_non_null(a1);
    assert_null(json_object_get(a1, "disabled"));
    json_t *e1 = json_object_get(json_array_get(
        json_object_get(json_object_get(a1, "edit"), "documentChanges"), 0), "edits");
    char *want1 = apply_edits(base_text, e1, false);
    assert_non_null(strstr(want1, "    saxpy<<<(n + 127) / 128, 128>>>(n, a, x, y);\n"));
    assert_non_null(strstr(want1, base_kernel));
    free(want1);

    /* a client that applied the kernel edit only: the check finds the launch missing */
    char *half = apply_edits(base_text, edits, true);
    set_text(s, half);
    json_t *cmd = json_object_get(a2, "command");
    json_t *r = execute(&loop, s, &o, cmd);
    assert_false(json_is_true(json_object_get(r, "ok")));
    assert_non_null(strstr(json_string_value(json_object_get(r, "message")), "not applied"));
    free(half);

    /* the whole edit: the check passes */
    set_text(s, want);
    r = execute(&loop, s, &o, cmd);
    assert_true(json_is_true(json_object_get(r, "ok")));

    /* applied: the action says so */
    acts = code_actions(&loop, s, &o);
    json_t *again = action(acts, "Apply v2");
    assert_non_null(again);
    const char *why = json_string_value(json_object_get(json_object_get(again, "disabled"), "reason"));
    assert_non_null(why);
    assert_non_null(strstr(why, "already in the file"));

    /* applyVersion pushes the same edit from the original text */
    set_text(s, base_text);
    out_clear(&o);
    int id = next_id++;
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:s, s:[{s:s, s:s, s:i}]}}", "jsonrpc", "2.0",
                           "id", id, "method", "workspace/executeCommand", "params", "command",
                           "hyperkernel.applyVersion", "arguments", "uri", uri, "kernel", "saxpy",
                           "version", 2));
    json_t *req = await_method(&loop, &o, "workspace/applyEdit");
    json_t *pe = json_object_get(json_array_get(json_object_get(
        json_object_get(json_object_get(req, "params"), "edit"), "documentChanges"), 0), "edits");
    char *pushed = apply_edits(base_text, pe, false);
    assert_string_equal(pushed, want);
    set_text(s, pushed);
    feed_json(s, json_pack("{s:s, s:O, s:{s:b}}", "jsonrpc", "2.0", "id",
                           json_object_get(req, "id"), "result", "applied", 1));
    r = json_object_get(await(&loop, &o, id), "result");
    assert_true(json_is_true(json_object_get(r, "ok")));
    free(pushed);
    free(want);

    lsp_server_stop(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
    out_clear(&o);
    uv_loop_close(&loop);
    assert_int_equal(hk_alloc_live(), live);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void feed_code_action(lsp_server *s, int id)
{
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:{s:s}, s:{s:{s:i, s:i}, s:{s:i, s:i}}, s:{}}}",
                           "jsonrpc", "2.0", "id", id, "method", "textDocument/codeAction",
                           "params", "textDocument", "uri", uri, "range", "start", "line", 0,
                           "character", 17, "end", "line", 0, "character", 17, "context"));
}

/* The suite's file, then 700 KB of device functions after the launcher (new; free). */
static char *big_text(size_t *len_out)
{
    size_t cap = (size_t)760 << 10, len = strlen(base_text);
    char *big = malloc(cap);
    assert_non_null(big);
    memcpy(big, base_text, len);
    for (int i = 0; len < (size_t)700 << 10; i++)
        len += (size_t)snprintf(big + len, cap - len,
                                "__device__ float pad%05d(float v) { return v * %d.0f + 1.0f; }\n",
                                i, i % 97);
    big[len] = '\0';
    *len_out = len;
    return big;
}

/* One character of big's last line ("+ 1.0f; }\n" -> "+ 3.0f"), sent as a ranged change:
 * the loop reparses one chunk, not the file. big is edited too. */
static void edit_last_line(lsp_server *s, char *big, size_t len)
{
    size_t at = len - 8, line = 0, col = 0;
    assert_int_equal(big[at], '1');
    for (size_t i = 0; i < at; i++) {
        line += big[i] == '\n';
        col = big[i] == '\n' ? 0 : col + 1;
    }
    big[at] = '3';
    doc_version_now++;
    feed_json(s, json_pack("{s:s, s:s, s:{s:{s:s, s:i}, s:[{s:{s:{s:i, s:i}, s:{s:i, s:i}}, "
                           "s:s}]}}", "jsonrpc", "2.0", "method", "textDocument/didChange",
                           "params", "textDocument", "uri", uri, "version", doc_version_now,
                           "contentChanges", "range", "start", "line", (int)line, "character",
                           (int)col, "end", "line", (int)line, "character", (int)col + 1,
                           "text", "3"));
}

/* One analysis of text, in ms: what a request that parsed on the loop paid at least. */
/* The spare buffer of ld a copy of need bytes is made in (lsp_doc_copy_buffer's choice: the
 * smallest large enough), or NULL. */
static char *spare_for(const struct lsp_doc *ld, size_t need)
{
    int best = -1;
    for (int i = 0; i < LSP_DOC_SPARES; i++)
        if (ld->snap[i] && ld->snap_cap[i] >= need &&
            (best < 0 || ld->snap_cap[i] < ld->snap_cap[best]))
            best = i;
    return best < 0 ? NULL : ld->snap[best];
}

static bool spare_holds(const struct lsp_doc *ld, const char *p)
{
    for (int i = 0; i < LSP_DOC_SPARES; i++)
        if (ld->snap[i] == p)
            return true;
    return false;
}

static double analysis_ms(const char *text, size_t len)
{
    double t0 = now_ms();
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    double ms = now_ms() - t0;
    an_model_free(m);
    return ms;
}

static void feed_hover(lsp_server *s, int id)
{
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:{s:s}, s:{s:i, s:i}}}", "jsonrpc", "2.0", "id",
                           id, "method", "textDocument/hover", "params", "textDocument", "uri",
                           uri, "position", "line", 0, "character", 17));
}

/* $/cancelRequest for id: RequestCancelled at once. */
static void cancel_now(lsp_server *s, struct out *o, int id)
{
    feed_json(s, json_pack("{s:s, s:s, s:{s:i}}", "jsonrpc", "2.0", "method", "$/cancelRequest",
                           "params", "id", id));
    json_t *err = json_object_get(reply(o, id), "error");
    assert_non_null(err);
    assert_int_equal(json_integer_value(json_object_get(err, "code")), -32800);
}

/* Runs the loop until no job is left on the pool (~10 s at most); the replies to id. */
static int drain_replies(uv_loop_t *loop, lsp_server *s, struct out *o, int id)
{
    for (int i = 0; i < 1000 && s->plan_jobs; i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (s->plan_jobs)
            usleep(10000);
    }
    assert_int_equal(s->plan_jobs, 0);
    int replies = 0;
    for (int i = 0; i < o->n; i++)
        replies += json_integer_value(json_object_get(o->m[i], "id")) == id;
    return replies;
}

static void test_big_file_plans_off_the_loop(void **st)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    /* the suite's file, then 700 KB of device functions after the launcher */
    size_t len;
    char *big = big_text(&len);
    lsp_server *s = start(&loop, &o);
    open_doc(s, big);
    json_t *acts = code_actions(&loop, s, &o); /* reads the history into the cache */
    assert_non_null(action(acts, "Apply v2"));
    assert_non_null(json_object_get(action(acts, "Apply v2"), "edit"));

    /* what the loop used to pay inside the request, at least: one analysis of the text */
    double parse_ms = analysis_ms(big, len), t0;

    /* the job's copy of the text goes into the document's kept buffer (its pages in, not
     * 180 fresh ones on the loop), which comes back with the answer */
    struct lsp_doc *ld = lsp_doc_of(doc_get(s->docs, uri));
    char *kept = spare_for(ld, len + 1);
    assert_non_null(kept);
    out_clear(&o);
    int id = next_id++;
    t0 = now_ms();
    feed_code_action(s, id);
    double feed_ms = now_ms() - t0;
    assert_null(reply(&o, id)); /* queued: answered from the loop once planned */
    assert_false(spare_holds(ld, kept)); /* lent to the job */
    /* the loop is free meanwhile: a hover is answered inline, before the code action */
    int hid = next_id++;
    feed_hover(s, hid);
    assert_non_null(reply(&o, hid));
    assert_null(reply(&o, id));
    print_message("code action on %zu bytes: %.2f ms on the loop, one analysis %.2f ms\n", len,
                  feed_ms, parse_ms);
    assert_true(feed_ms * 4 < parse_ms);
    json_t *r = json_object_get(await(&loop, &o, id), "result");
    assert_true(spare_holds(ld, kept));
    json_t *a2 = action(r, "Apply v2");
    assert_non_null(a2);
    json_t *dc = json_array_get(json_object_get(json_object_get(a2, "edit"), "documentChanges"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(dc, "textDocument"),
                                                        "version")), doc_version_now);
    char *want = apply_edits(big, json_object_get(dc, "edits"), false);
    assert_non_null(strstr(want, stride_kernel));
    assert_non_null(strstr(want, "    saxpy<<<hk_sm_count() * 8, 256>>>(n, a, x, y);\n"));
    free(want);

    /* edited while the plan runs: ContentModified, no edit for the old text */
    out_clear(&o);
    id = next_id++;
    feed_code_action(s, id);
    edit_last_line(s, big, len);
    json_t *err = json_object_get(await(&loop, &o, id), "error");
    assert_non_null(err);
    assert_int_equal(json_integer_value(json_object_get(err, "code")), -32801);
    assert_null(json_object_get(reply(&o, id), "result"));
    /* asking again plans against the new text */
    r = code_actions(&loop, s, &o);
    assert_non_null(json_object_get(action(r, "Apply v2"), "edit"));

    /* cancelled while queued or running: RequestCancelled at once, and no second reply */
    out_clear(&o);
    id = next_id++;
    feed_code_action(s, id);
    cancel_now(s, &o, id);
    assert_int_equal(drain_replies(&loop, s, &o, id), 1);

    lsp_server_stop(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(big);
    assert_int_equal(hk_alloc_live(), live);
}

static void feed_create_spec(lsp_server *s, int id)
{
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:s, s:[{s:s, s:s}]}}", "jsonrpc", "2.0", "id",
                           id, "method", "workspace/executeCommand", "params", "command",
                           "hyperkernel.createSpec", "arguments", "uri", uri, "kernel",
                           "saxpy"));
}

/* hyperkernel.createSpec on a 700 KB document (issue 14, the loop stays free): the
 * parse, the skeleton and the write run on the pool; the loop answers a hover meanwhile;
 * an edit made while it runs gets ContentModified and nothing is written; a cancelled
 * one gets RequestCancelled once and writes nothing either. */
static void test_big_file_spec_off_the_loop(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    size_t len;
    char *big = big_text(&len);
    char spec[400];
    snprintf(spec, sizeof spec, "%s/k.saxpy.bench.json", dir);
    unlink(spec);
    lsp_server *s = start(&loop, &o);
    open_doc(s, big);
    feed_hover(s, next_id); /* the analysis is parsed on the pool: wait until it is in */
    await(&loop, &o, next_id++);

    /* what the loop used to pay inside the request, at least: one analysis of the text */
    double parse_ms = analysis_ms(big, len), t0;

    struct lsp_doc *ld = lsp_doc_of(doc_get(s->docs, uri));
    char *kept = spare_for(ld, len + 1); /* the document's kept buffer, lent to the job's copy */
    assert_non_null(kept);
    out_clear(&o);
    int id = next_id++;
    t0 = now_ms();
    feed_create_spec(s, id);
    double feed_ms = now_ms() - t0;
    assert_null(reply(&o, id)); /* queued */
    assert_false(spare_holds(ld, kept));
    int hid = next_id++;
    feed_hover(s, hid);
    assert_non_null(reply(&o, hid));
    assert_null(reply(&o, id));
    print_message("createSpec on %zu bytes: %.2f ms on the loop, one analysis %.2f ms\n", len,
                  feed_ms, parse_ms);
    assert_true(feed_ms * 4 < parse_ms);
    json_t *r = json_object_get(await(&loop, &o, id), "result");
    assert_true(spare_holds(ld, kept)); /* given back */
    assert_string_equal(json_string_value(json_object_get(r, "path")), spec);
    json_error_t je;
    json_t *sj = json_load_file(spec, 0, &je);
    assert_non_null(sj);
    assert_string_equal(json_string_value(json_object_get(sj, "kernel")), "saxpy");
    json_decref(sj);
    assert_int_equal(unlink(spec), 0);

    /* edited while the skeleton is made: ContentModified, no file */
    out_clear(&o);
    id = next_id++;
    feed_create_spec(s, id);
    edit_last_line(s, big, len);
    json_t *err = json_object_get(await(&loop, &o, id), "error");
    assert_non_null(err);
    assert_int_equal(json_integer_value(json_object_get(err, "code")), -32801);
    assert_int_not_equal(access(spec, F_OK), 0);

    /* cancelled: RequestCancelled at once, one reply, no file */
    out_clear(&o);
    id = next_id++;
    feed_create_spec(s, id);
    cancel_now(s, &o, id);
    assert_int_equal(drain_replies(&loop, s, &o, id), 1);
    assert_int_not_equal(access(spec, F_OK), 0);

    lsp_server_stop(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(big);
    assert_int_equal(hk_alloc_live(), live);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply_writes_the_launch),
        cmocka_unit_test(test_big_file_plans_off_the_loop),
        cmocka_unit_test(test_big_file_spec_off_the_loop),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
