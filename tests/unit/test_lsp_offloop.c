/* The analysis off the loop (textsync.c): didOpen and didChange return before the parse,
 * requests that need the model wait on the document and answer for the latest text; a
 * storm of changes while a parse is out (more than the kept edits, too) ends in the
 * same symbols as a fresh open of the final text; a waiting documentSymbol that is
 * cancelled gets exactly one reply (RequestCancelled), one whose document closes gets
 * ContentModified; a close during a parse and a shutdown + exit behind a waiting request
 * leak nothing (hk_alloc_live, and ASan in the sanitizer pass). A large message is
 * decoded on the pool, the messages behind it (and the end of input) wait their turn.
 * The documentSymbol reply is lent to the write without a copy: a reparse while a write
 * still reads it renders a new one instead of patching it, and a server freed with such
 * a write out leaves the text to the write, which frees it. */
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
#include "lsp/textsync.h"
#include "lsp/lenses.h"

#include "lsp_out.h"

#define URI "file:///t/off.cu"

static void feed_json(lsp_server *s, json_t *m /* stolen */)
{
    char *t = json_dumps(m, JSON_COMPACT);
    assert_non_null(t);
    feed(s, t);
    hk_free(t); /* jansson allocates through the seam */
    json_decref(m);
}

static lsp_server *start(uv_loop_t *loop, struct out *o)
{
    lsp_server *s;
    assert_int_equal(lsp_server_new(loop, sink, o, &s), HK_OK);
    lsp_server_disable_compiles(s);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":"
            "{\"textDocument\":{\"documentSymbol\":{\"hierarchicalDocumentSymbolSupport\":true}}}}}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    out_clear(o);
    return s;
}

static void stop(uv_loop_t *loop, lsp_server *s)
{
    lsp_server_stop(s);
    uv_run(loop, UV_RUN_DEFAULT); /* the parses still out come back and free themselves */
    lsp_server_free(s);
    uv_run(loop, UV_RUN_DEFAULT);
}

/* n kernels k0000.., each a few lines; about 120 bytes each. New string (free). */
static char *kernels_text(int n)
{
    size_t cap = (size_t)n * 160 + 1, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "__global__ void k%04d(float *p, int n)\n{\n    int i = threadIdx.x;\n"
                                "    if (i < n) p[i] = %d.0f;\n}\n",
                                i, i);
    return t;
}

/* The largest of a document's spare text buffers (0: none). */
static size_t spare_max(const struct lsp_doc *ld)
{
    size_t m = 0;
    for (int i = 0; i < LSP_DOC_SPARES; i++)
        if (ld->snap[i] && ld->snap_cap[i] > m)
            m = ld->snap_cap[i];
    return m;
}

static void open_doc(lsp_server *s, const char *text)
{
    feed_json(s, json_pack("{s:s, s:s, s:{s:{s:s, s:s, s:i, s:s}}}", "jsonrpc", "2.0", "method",
                           "textDocument/didOpen", "params", "textDocument", "uri", URI,
                           "languageId", "cuda", "version", 1, "text", text));
}

/* Replaces characters [c0, c1) of line by text. */
static void change(lsp_server *s, int version, int line, int c0, int c1, const char *text)
{
    feed_json(s, json_pack("{s:s, s:s, s:{s:{s:s, s:i}, s:[{s:{s:{s:i, s:i}, s:{s:i, s:i}}, s:s}]}}",
                           "jsonrpc", "2.0", "method", "textDocument/didChange", "params",
                           "textDocument", "uri", URI, "version", version, "contentChanges",
                           "range", "start", "line", line, "character", c0, "end", "line", line,
                           "character", c1, "text", text));
}

static void feed_symbols(lsp_server *s, int id)
{
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:{s:s}}}", "jsonrpc", "2.0", "id", id, "method",
                           "textDocument/documentSymbol", "params", "textDocument", "uri", URI));
}

/* Runs the loop until request id is answered, at most ~10 s; the reply (borrowed). */
static json_t *await_reply(uv_loop_t *loop, struct out *o, int id)
{
    for (int i = 0; i < 1000 && !reply(o, id); i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (!reply(o, id))
            usleep(10000);
    }
    assert_non_null(reply(o, id));
    return reply(o, id);
}

static int replies_to(struct out *o, int id)
{
    int n = 0;
    for (int i = 0; i < o->n; i++)
        n += json_integer_value(json_object_get(o->m[i], "id")) == id &&
             !json_object_get(o->m[i], "method");
    return n;
}

static const char *symbol_name(json_t *r, size_t i)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(r, "result"), i),
                                             "name"));
}

/* didOpen returns before the parse: a documentSymbol right after it waits (no reply
 * until the loop runs the parse's completion), then answers with the kernels. */
static void test_open_returns_before_the_parse(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(300);
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    feed_symbols(s, 2);
    assert_null(reply(&o, 2)); /* queued on the document, not answered on the loop */
    json_t *r = await_reply(&loop, &o, 2);
    assert_int_equal(json_array_size(json_object_get(r, "result")), 300);
    assert_string_equal(symbol_name(r, 299), "k0299");
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

/* Many changes while the first parse is out, documentSymbols among them: every reply
 * is for the text as it was when the reply was sent at the earliest, the last one names
 * the last edit, and it equals a fresh server's reply to the final text. n_changes: how
 * many (past PENDING_EDITS_MAX kept edits the next parse is a full one); mid_runs: let
 * parses come back in the middle of the storm (else all changes come during the first). */
static void storm(int n_changes, bool mid_runs)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0}, of = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(200);
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    /* rename k0100 (line 500, columns 16..21) again and again: kA.., back and forth */
    char name[8];
    for (int v = 2; v < n_changes + 2; v++) {
        snprintf(name, sizeof name, "x%04d", v % 10000);
        change(s, v, 500, 16, 21, name);
        if (v % 97 == 0)
            feed_symbols(s, 1000 + v);
        if (mid_runs && v % 50 == 0)
            uv_run(&loop, UV_RUN_NOWAIT); /* a parse may come back in the middle */
    }
    feed_symbols(s, 2);
    json_t *r = await_reply(&loop, &o, 2);
    assert_string_equal(symbol_name(r, 100), name);
    assert_string_equal(symbol_name(r, 99), "k0099");
    assert_string_equal(symbol_name(r, 101), "k0101");
    for (int v = 2; v < n_changes + 2; v++) /* every waiting request answered once */
        if (v % 97 == 0)
            assert_int_equal(replies_to(&o, 1000 + v), 1);
    /* a fresh server opening the final text says the same */
    memcpy(strstr(text, "k0100"), name, 5);
    lsp_server *fresh = start(&loop, &of);
    open_doc(fresh, text);
    feed_symbols(fresh, 2);
    json_t *rf = await_reply(&loop, &of, 2);
    assert_true(json_equal(json_object_get(r, "result"), json_object_get(rf, "result")));
    out_clear(&o);
    out_clear(&of);
    stop(&loop, s);
    stop(&loop, fresh);
    out_clear(&o);
    out_clear(&of);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

static void test_change_storm_answers_the_latest_text(void **st)
{
    (void)st;
    storm(300, true);
}

static void test_change_storm_past_the_kept_edits(void **st)
{
    (void)st;
    storm(5000, false); /* more edits than PENDING_EDITS_MAX in one parse's time */
}

/* didClose while the parse is out and a documentSymbol waits: the request gets
 * ContentModified, the parse frees the analysis when it comes back, nothing leaks;
 * the document opened again answers for its new text. */
static void test_close_during_a_parse(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(300);
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    feed_symbols(s, 2);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didClose\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"}}}");
    json_t *err = json_object_get(reply(&o, 2), "error");
    assert_non_null(err);
    assert_int_equal(json_integer_value(json_object_get(err, "code")), -32801);
    /* reopened at once, shorter, while the first parse may still be out */
    char *small = kernels_text(3);
    open_doc(s, small);
    feed_symbols(s, 3);
    json_t *r = await_reply(&loop, &o, 3);
    assert_int_equal(json_array_size(json_object_get(r, "result")), 3);
    assert_int_equal(replies_to(&o, 2), 1);
    /* closed with a parse out and nothing waiting, then the server stops */
    change(s, 2, 0, 16, 21, "y0000");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didClose\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"}}}");
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    free(small);
    assert_int_equal(hk_alloc_live(), live);
}

/* $/cancelRequest of a documentSymbol that waits for the parse: RequestCancelled at
 * once and no second reply when the parse comes back; the request after it is answered. */
static void test_cancel_a_waiting_request(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(300);
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    feed_symbols(s, 2);
    feed_symbols(s, 3);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":2}}");
    json_t *err = json_object_get(reply(&o, 2), "error");
    assert_non_null(err);
    assert_int_equal(json_integer_value(json_object_get(err, "code")), -32800);
    json_t *r = await_reply(&loop, &o, 3);
    assert_int_equal(json_array_size(json_object_get(r, "result")), 300);
    assert_int_equal(replies_to(&o, 2), 1);
    assert_int_equal(rpc_deferred_count(s->rpc), 0);
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

/* shutdown and exit right behind a waiting documentSymbol (an editor closing): the
 * request is answered first, then shutdown, and the server exits with 0. */
static void test_shutdown_behind_a_waiting_request(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(300);
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    feed_symbols(s, 2);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    assert_null(reply(&o, 3));
    assert_false(lsp_server_exited(s));
    await_reply(&loop, &o, 3);
    int i2 = -1, i3 = -1;
    for (int i = 0; i < o.n; i++) {
        int id = (int)json_integer_value(json_object_get(o.m[i], "id"));
        i2 = id == 2 ? i : i2;
        i3 = id == 3 ? i : i3;
    }
    assert_true(i2 >= 0 && i2 < i3);
    assert_int_equal(json_array_size(json_object_get(o.m[i2], "result")), 300);
    assert_true(lsp_server_exited(s));
    assert_int_equal(lsp_server_exit_code(s), 0);
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

/* A message of 64 KB or more is decoded on the pool: right after the feed the document
 * is not even open; the requests behind it are handled in arrival order once it is
 * (the symbols, then a hover of the same text). */
static void test_large_message_decoded_off_the_loop(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(1000); /* about 120 KB */
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    assert_int_equal(doc_store_count(s->docs), 0); /* still on the pool */
    feed_symbols(s, 2);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/hover\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":5,\"character\":17}}}");
    assert_int_equal(o.n, 0);
    json_t *r = await_reply(&loop, &o, 2);
    assert_int_equal(json_array_size(json_object_get(r, "result")), 1000);
    json_t *h = await_reply(&loop, &o, 3);
    assert_non_null(strstr(json_string_value(json_object_get(
                               json_object_get(json_object_get(h, "result"), "contents"), "value")),
                           "k0001"));
    assert_int_equal(doc_store_count(s->docs), 1);
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

/* A didChange that replaces the whole text. */
static void change_full(lsp_server *s, int version, const char *text)
{
    feed_json(s, json_pack("{s:s, s:s, s:{s:{s:s, s:i}, s:[{s:s}]}}", "jsonrpc", "2.0",
                           "method", "textDocument/didChange", "params", "textDocument", "uri",
                           URI, "version", version, "contentChanges", "text", text));
}

static void feed_hover(lsp_server *s, int id, int line, int character)
{
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:{s:s}, s:{s:i, s:i}}}", "jsonrpc", "2.0", "id",
                           id, "method", "textDocument/hover", "params", "textDocument", "uri",
                           URI, "position", "line", line, "character", character));
}

static const char *hover_text(json_t *h)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(h, "result"), "contents"), "value"));
}

/* Runs the loop until the document is open (its large didOpen decoded on the pool). */
static struct lsp_doc *await_open(uv_loop_t *loop, lsp_server *s)
{
    for (int i = 0; i < 1000 && !doc_get(s->docs, URI); i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (!doc_get(s->docs, URI))
            usleep(10000);
    }
    assert_non_null(doc_get(s->docs, URI));
    return lsp_doc_of(doc_get(s->docs, URI));
}

/* A large didOpen's text, and a large full-text didChange's, are made ready on the pool
 * (the document's copy, its line index, a buffer for the next parse) and taken by the
 * handler without a copy; the messages right behind them keep their order: an edit fed
 * at once after the open, a hover and a documentSymbol answer for the edited text, and
 * so do they after a full-text change followed at once by an edit. */
static void test_large_text_made_ready_on_the_pool(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(1000); /* about 120 KB: decoded and made ready on the pool */
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    change(s, 2, 5, 16, 21, "renamed1"); /* k0001 (line 5, columns 16..21) */
    feed_hover(s, 3, 5, 18);
    feed_symbols(s, 4);
    assert_int_equal(o.n, 0);
    json_t *h = await_reply(&loop, &o, 3);
    assert_non_null(strstr(hover_text(h), "renamed1"));
    json_t *r = await_reply(&loop, &o, 4);
    assert_int_equal(json_array_size(json_object_get(r, "result")), 1000);
    assert_string_equal(symbol_name(r, 1), "renamed1");
    doc *d = doc_get(s->docs, URI);
    assert_int_equal(doc_version(d), 2);
    size_t at = (size_t)(strstr(text, "k0001") - text);
    assert_int_equal(doc_length(d), strlen(text) + 3);
    assert_memory_equal(doc_text(d), text, at);
    assert_memory_equal(doc_text(d) + at, "renamed1", 8);
    assert_string_equal(doc_text(d) + at + 8, text + at + 5);
    out_clear(&o);

    /* a full-text change (made ready on the pool: the parse buffer comes with it), an
     * edit at once behind it, and requests */
    char *text2 = kernels_text(1100);
    memcpy(strstr(text2, "k1050"), "kABCD", 5);
    change_full(s, 3, text2);
    change(s, 4, 0, 16, 21, "first");
    feed_hover(s, 5, 0, 17);
    feed_symbols(s, 6);
    h = await_reply(&loop, &o, 5);
    assert_non_null(strstr(hover_text(h), "first"));
    r = await_reply(&loop, &o, 6);
    assert_int_equal(json_array_size(json_object_get(r, "result")), 1100);
    assert_string_equal(symbol_name(r, 0), "first");
    assert_string_equal(symbol_name(r, 1050), "kABCD");
    d = doc_get(s->docs, URI);
    assert_int_equal(doc_version(d), 4);
    assert_int_equal(doc_length(d), strlen(text2));
    assert_memory_equal(doc_text(d) + 21, text2 + 21, strlen(text2) - 21);
    /* the line index came with the text: positions past the edit convert both ways */
    uint32_t off = 0;
    assert_int_equal(doc_offset_at(d, DOC_UTF8, (struct doc_pos){5250, 16}, &off), HK_OK);
    assert_memory_equal(doc_text(d) + off, "kABCD", 5);
    /* the change's parse buffer came from the pool, with room to grow (a parse's own
     * copy is the text's size exactly) */
    assert_true(spare_max(lsp_doc_of(d)) > doc_length(d) + 1);
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);

    /* a fresh open: the document takes the pool's buffer (no parse has copied yet) */
    s = start(&loop, &o);
    open_doc(s, text);
    struct lsp_doc *ld = await_open(&loop, s);
    assert_true(spare_max(ld) > strlen(text));
    /* closed with its parse out, then a large open and full change and close back to
     * back, and the server stops: nothing leaks */
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didClose\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"}}}");
    open_doc(s, text);
    change_full(s, 2, text2);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didClose\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"}}}");
    open_doc(s, text2);
    change_full(s, 2, text);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    free(text2);
    assert_int_equal(hk_alloc_live(), live);
}

/* The input ends right behind a large message, a request, shutdown and exit (hkls <
 * file): all are handled, in order, and the server exits with 0; and a server stopped
 * while a decode or a parse is on the pool (a request waiting behind it) leaks nothing. */
static void test_input_end_behind_a_large_message(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(1000);
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    feed_symbols(s, 2);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    lsp_server_input_closed(s);
    assert_false(lsp_server_exited(s));
    json_t *r = await_reply(&loop, &o, 2);
    assert_int_equal(json_array_size(json_object_get(r, "result")), 1000);
    await_reply(&loop, &o, 3);
    assert_true(lsp_server_exited(s));
    assert_int_equal(lsp_server_exit_code(s), 0);
    out_clear(&o);
    stop(&loop, s);
    /* stopped with the decode still out (then the loop runs, as lsp.h asks) */
    s = start(&loop, &o);
    open_doc(s, text);
    feed_symbols(s, 2);
    stop(&loop, s);
    /* stopped with a parse still out (a small text is decoded at once) */
    char *small = kernels_text(20);
    s = start(&loop, &o);
    open_doc(s, small);
    feed_symbols(s, 2);
    stop(&loop, s);
    free(small);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

/* The documentSymbol reply is made on the pool with the parse: once a hover (which
 * waits for the analysis) is answered, the document's kept reply is there, for the
 * current model, before any documentSymbol asked for it. */
static void test_symbols_rendered_with_the_parse(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(50);
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/hover\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":0,\"character\":17}}}");
    await_reply(&loop, &o, 2);
    struct lsp_doc *ld = lsp_doc_of(doc_get(s->docs, URI));
    assert_non_null(ld);
    assert_non_null(an_doc_user(ld->an));
    /* and again after an edit: patched with the reparse */
    change(s, 2, 0, 16, 21, "z0000");
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/hover\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":0,\"character\":17}}}");
    await_reply(&loop, &o, 3);
    void *kept = an_doc_user(ld->an);
    assert_non_null(kept);
    feed_symbols(s, 4);
    json_t *r = reply(&o, 4); /* answered at once, from the kept reply */
    assert_non_null(r);
    assert_string_equal(symbol_name(r, 0), "z0000");
    assert_ptr_equal(an_doc_user(ld->an), kept);
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}


/* A write that has not finished: what rpc_call_reply_lent lent to it. */
struct held {
    const char *lent;
    size_t len;
    char *copy;            /* the bytes when it was sent (malloc) */
    rpc_release_fn release;
    void *arg;
};

struct parts_sink {
    struct out o;
    struct held h[8];
    int n;
};

/* lsp_server_set_send_parts's function: parses the message into o, keeps the lent part
 * unreleased (a write still out). */
static int parts_sink(char *head, size_t head_len, const char *lent, size_t lent_len,
                      const char *tail, size_t tail_len, rpc_release_fn release, void *arg,
                      void *ud)
{
    struct parts_sink *p = ud;
    size_t n = head_len + lent_len + tail_len;
    char *all = malloc(n + 1);
    assert_non_null(all);
    memcpy(all, head, head_len);
    memcpy(all + head_len, lent, lent_len);
    memcpy(all + head_len + lent_len, tail, tail_len);
    sink(all, n, &p->o);
    free(all);
    hk_free(head);
    assert_true(p->n < 8);
    struct held *h = &p->h[p->n++];
    h->lent = lent;
    h->len = lent_len;
    h->copy = malloc(lent_len);
    memcpy(h->copy, lent, lent_len);
    h->release = release;
    h->arg = arg;
    return HK_OK;
}

static void parts_release_all(struct parts_sink *p)
{
    for (int i = 0; i < p->n; i++) {
        p->h[i].release(p->h[i].arg);
        free(p->h[i].copy);
    }
    p->n = 0;
}

/* The documentSymbol reply goes out lent; an edit while that write is out gets a new
 * reply rendered (the lent text is not patched under the write), and both writes' texts
 * are freed once released. */
static void test_lent_reply_not_patched_under_a_write(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct parts_sink p = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(50);
    lsp_server *s = start(&loop, &p.o);
    lsp_server_set_send_parts(s, parts_sink);
    open_doc(s, text);
    feed_symbols(s, 2);
    json_t *r = await_reply(&loop, &p.o, 2);
    assert_string_equal(symbol_name(r, 0), "k0000");
    assert_int_equal(p.n, 1); /* lent, not copied */
    /* a small reply after it comes after it */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/hover\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":0,\"character\":17}}}");
    assert_non_null(reply(&p.o, 3));
    assert_ptr_equal(reply(&p.o, 2), p.o.m[0]);
    change(s, 2, 0, 16, 21, "z0000"); /* same length: a patch in place if it were allowed */
    feed_symbols(s, 4);
    r = await_reply(&loop, &p.o, 4);
    assert_string_equal(symbol_name(r, 0), "z0000");
    assert_int_equal(p.n, 2);
    assert_ptr_not_equal(p.h[1].lent, p.h[0].lent);
    assert_memory_equal(p.h[0].lent, p.h[0].copy, p.h[0].len); /* untouched under the write */
    parts_release_all(&p);
    /* with no write out the text is the cache's again: patched in place */
    change(s, 3, 0, 16, 21, "y0000");
    feed_symbols(s, 5);
    r = await_reply(&loop, &p.o, 5);
    assert_string_equal(symbol_name(r, 0), "y0000");
    parts_release_all(&p);
    out_clear(&p.o);
    stop(&loop, s);
    out_clear(&p.o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

/* A server stopped and freed while a write still reads the lent reply: the document's
 * cache goes, the text stays for the write and is freed by its release. */
static void test_server_freed_with_a_lent_reply_out(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct parts_sink p = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(300);
    lsp_server *s = start(&loop, &p.o);
    lsp_server_set_send_parts(s, parts_sink);
    open_doc(s, text);
    feed_symbols(s, 2);
    await_reply(&loop, &p.o, 2);
    assert_int_equal(p.n, 1);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"shutdown\"}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    out_clear(&p.o);
    stop(&loop, s);
    assert_true(hk_alloc_live() > live); /* the lent text */
    assert_memory_equal(p.h[0].lent, p.h[0].copy, p.h[0].len);
    parts_release_all(&p);
    out_clear(&p.o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}


/* ---- a finished compile: placed and serialized on the pool ---- */

/* A stand-in for nvcc in dir: waits for dir/go when wait, then prints, for each of n
 * kernels k0000.. of kernels_text, a warning on its "int i" line and ptxas's resource
 * lines. Returns the script's path (static buffer). */
static const char *fake_nvcc(const char *dir, int n, bool wait)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/nvcc", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "#!/bin/sh\n"
            "for a; do src=$a; done\n"
            "%s"
            "i=0\n"
            "while [ $i -lt %d ]; do\n"
            "  k=$(printf k%%04d $i)\n"
            "  echo \"$src($((i * 5 + 3))): warning #177-D: variable \\\"i\\\" was declared but \"\\\n"
            "\"never referenced\" >&2\n" /* the line continued: one word */
            "  echo \"ptxas info    : Compiling entry function '_Z5${k}Pfi' for 'sm_90'\"\n"
            "  echo \"ptxas info    : Function properties for _Z5${k}Pfi\"\n"
            "  echo \"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\"\n"
            "  echo \"ptxas info    : Used 8 registers, 368 bytes cmem[0]\"\n"
            "  i=$((i + 1))\n"
            "done\n",
            wait ? "while [ ! -e \"$(dirname \"$0\")/go\" ]; do sleep 0.01; done\n" : "", n);
    fclose(f);
    chmod(path, 0755);
    return path;
}

/* What the server sent, kept as text (malloc, not the heap seam the loop watch counts) and
 * parsed afterwards, so that the sink's own JSON work is not the loop's. */
struct raw {
    char *m[MAXOUT];
    size_t len[MAXOUT];
    int n;
};

static int raw_sink(const char *body, size_t len, void *ud)
{
    struct raw *r = ud;
    if (r->n < MAXOUT) {
        r->m[r->n] = malloc(len);
        assert_non_null(r->m[r->n]);
        memcpy(r->m[r->n], body, len);
        r->len[r->n++] = len;
    }
    return HK_OK;
}

/* Moves what r holds into o, parsed. */
static void raw_parse(struct raw *r, struct out *o)
{
    for (int i = 0; i < r->n; i++) {
        sink(r->m[i], r->len[i], o);
        free(r->m[i]);
    }
    r->n = 0;
}

static lsp_server *start_compiling(uv_loop_t *loop, struct out *o, struct raw *raw,
                                   const char *nvcc)
{
    lsp_server *s;
    if (raw)
        assert_int_equal(lsp_server_new(loop, raw_sink, raw, &s), HK_OK);
    else
        assert_int_equal(lsp_server_new(loop, sink, o, &s), HK_OK);
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:{s:{s:{s:b}}}, s:{s:{s:i, s:s}}}}", "jsonrpc",
                           "2.0", "id", 1, "method", "initialize", "params", "capabilities",
                           "textDocument", "publishDiagnostics", "versionSupport", 1,
                           "initializationOptions", "compile", "debounceMs", 0, "nvcc", nvcc));
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    if (raw)
        raw_parse(raw, o);
    out_clear(o);
    return s;
}

static struct lsp_doc *doc_state(lsp_server *s)
{
    return lsp_doc_of(doc_get(s->docs, URI));
}

/* Runs the loop (at most ~20 s) until done(s) holds. */
static void run_until(uv_loop_t *loop, lsp_server *s, bool (*done)(lsp_server *s))
{
    for (int i = 0; i < 2000 && !done(s); i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        if (!done(s))
            usleep(10000);
    }
    assert_true(done(s));
}

static bool compiler_running(lsp_server *s)
{
    return doc_state(s) && doc_state(s)->job && cc_job_pid(doc_state(s)->job) > 0;
}

static bool no_compile(lsp_server *s) { return s->jobs_running == 0; }

static char *make_dir(void)
{
    char tmpl[] = "/tmp/hk-offloop-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    return strdup(tmpl);
}

static void remove_dir(char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(dir);
}

/* The loop's publish of a finished compile of 200 kernels: 200 warnings on their lines and
 * 200 hints on the kernels' names, placed on the pool; the iterations that take them in
 * (a first compile, and a second that replaces it) do little heap work (it was thousands
 * of calls: the diagnostics' JSON built and serialized, the resources copied and freed,
 * on the loop). */
static void test_compile_result_made_on_the_pool(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *dir = make_dir();
    char *text = kernels_text(200);
    struct raw raw = {0};
    lsp_server *s = start_compiling(&loop, &o, &raw, fake_nvcc(dir, 200, false));
    open_doc(s, text);
    for (int i = 0; i < 2000 && !find(&o, "textDocument/publishDiagnostics"); i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        usleep(10000);
        raw_parse(&raw, &o);
    }
    json_t *p = json_object_get(find(&o, "textDocument/publishDiagnostics"), "params");
    assert_non_null(p);
    assert_string_equal(json_string_value(json_object_get(p, "uri")), URI);
    assert_int_equal(json_integer_value(json_object_get(p, "version")), 1);
    json_t *ds = json_object_get(p, "diagnostics");
    assert_int_equal(json_array_size(ds), 400);
    /* the warnings first (the compile's source), then the hints */
    json_t *w = json_array_get(ds, 7), *h = json_array_get(ds, 207);
    assert_int_equal(json_integer_value(json_object_get(w, "severity")), 2);
    assert_string_equal(json_string_value(json_object_get(w, "source")), "nvcc");
    json_t *ws = json_object_get(json_object_get(w, "range"), "start");
    assert_int_equal(json_integer_value(json_object_get(ws, "line")), 7 * 5 + 2);
    assert_int_equal(json_integer_value(json_object_get(ws, "character")), 8);
    assert_int_equal(json_integer_value(json_object_get(h, "severity")), 4);
    assert_non_null(strstr(json_string_value(json_object_get(h, "message")), "8 registers"));
    json_t *hr = json_object_get(h, "range");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(hr, "start"), "line")),
                     7 * 5);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(hr, "start"), "character")), 16);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(hr, "end"), "character")),
                     21);
    assert_int_equal(doc_state(s)->n_res, 200); /* kept for hover */
    /* a second compile replaces the first's (the loop frees the old ones) */
    change(s, 2, 1, 1, 1, " ");
    json_t *p2 = NULL;
    for (int i = 0; i < 2000 && !p2; i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        usleep(10000);
        raw_parse(&raw, &o);
        p2 = json_object_get(find(&o, "textDocument/publishDiagnostics"), "params");
        if (json_integer_value(json_object_get(p2, "version")) != 2)
            p2 = NULL;
    }
    assert_non_null(p2);
    assert_int_equal(json_array_size(json_object_get(p2, "diagnostics")), 400);
    assert_int_equal(doc_state(s)->res_version, 2);
    /* the loop's part: what the loop watch counted in the iteration that took it in */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"hyperkernel/loopStats\"}");
    raw_parse(&raw, &o);
    json_t *r = json_object_get(reply(&o, 5), "result");
    assert_non_null(r);
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(r, "top_cpu"), i, e) {
        char *during = json_dumps(json_object_get(e, "during"), JSON_ENCODE_ANY);
        if (strstr(during, "(compile done)"))
            assert_in_range(json_integer_value(json_object_get(e, "heap_calls")), 0, 300);
        hk_free(during);
    }
    char *during = json_dumps(json_object_get(r, "heap_calls_longest_during"), JSON_ENCODE_ANY);
    /* a cheap iteration may be in neither list; the old one (thousands of heap calls)
     * was the heaviest of the run */
    if (strstr(during, "(compile done)"))
        assert_in_range(json_integer_value(json_object_get(r, "heap_calls_max")), 0, 300);
    hk_free(during);
    out_clear(&o);
    stop(&loop, s);
    raw_parse(&raw, &o);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    remove_dir(dir);
    assert_int_equal(hk_alloc_live(), live);
}

/* A compile whose text changed before its result came back, with nothing cancelling it
 * (compiles turned off in the settings first): what the pool placed on the old text is
 * never published, at the new version or any. */
static void test_stale_compile_result_not_published(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *dir = make_dir();
    char *text = kernels_text(20);
    lsp_server *s = start_compiling(&loop, &o, NULL, fake_nvcc(dir, 20, true));
    open_doc(s, text);
    run_until(&loop, s, compiler_running);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"workspace/didChangeConfiguration\",\"params\":"
            "{\"settings\":{\"compile\":{\"enabled\":false}}}}");
    change(s, 2, 0, 16, 21, "z0000");
    assert_non_null(doc_state(s)->job); /* still running: nothing cancelled it */
    out_clear(&o);
    char go[300];
    snprintf(go, sizeof go, "%s/go", dir);
    FILE *f = fopen(go, "w");
    assert_non_null(f);
    fclose(f);
    run_until(&loop, s, no_compile);
    for (int i = 0; i < 20; i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        usleep(5000);
    }
    assert_null(find(&o, "textDocument/publishDiagnostics"));
    assert_int_equal(doc_state(s)->n_res, 0); /* nor kept for hover */
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    remove_dir(dir);
    assert_int_equal(hk_alloc_live(), live);
}


/* codeLens on a file of 300 kernels: two lenses a kernel (NVIDIA, DCU) on its name, with the
 * titles and the arguments hyperkernel.optimize takes, written as text: the request's heap
 * work on the loop does not grow with the kernels (as jansson objects it was about 160
 * calls a kernel). */
static void test_code_lens_written_as_text(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    struct raw raw = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(300);
    lsp_server *s;
    assert_int_equal(lsp_server_new(&loop, raw_sink, &raw, &s), HK_OK);
    lsp_server_disable_compiles(s);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{}}}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
    open_doc(s, text);
    feed_symbols(s, 2);
    for (int i = 0; i < 1000 && !reply(&o, 2); i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        raw_parse(&raw, &o);
        if (!reply(&o, 2))
            usleep(10000);
    }
    assert_non_null(reply(&o, 2));
    out_clear(&o);
    unsigned long h0 = hk_thread_heap_calls();
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/codeLens\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"}}}");
    unsigned long calls = hk_thread_heap_calls() - h0;
    for (int i = 0; i < 1000 && !raw.n; i++) {
        uv_run(&loop, UV_RUN_NOWAIT); /* a large reply is written from the pool */
        if (!raw.n)
            usleep(10000);
    }
    raw_parse(&raw, &o);
    json_t *lenses = json_object_get(reply(&o, 3), "result");
    assert_int_equal(json_array_size(lenses), 600);
    for (int k = 0; k < 300; k += 37) {
        char name[8];
        snprintf(name, sizeof name, "k%04d", k);
        for (int t = 0; t < 2; t++) {
            json_t *l = json_array_get(lenses, (size_t)(2 * k + t));
            json_t *want = json_pack(
                "{s:{s:{s:i, s:i}, s:{s:i, s:i}}, s:{s:s, s:s, s:[{s:s, s:s, s:s}]}}", "range",
                "start", "line", 5 * k, "character", 16, "end", "line", 5 * k, "character", 21,
                "command", "title",
                hk_tr(t ? HK_MSG_LENS_OPTIMIZE_DCU : HK_MSG_LENS_OPTIMIZE_NVIDIA), "command",
                "hyperkernel.optimize", "arguments", "uri", URI, "kernel", name, "target",
                t ? "dcu" : "nvidia");
            if (!json_equal(l, want)) {
                char *got = json_dumps(l, JSON_COMPACT);
                fail_msg("lens %d: %s", 2 * k + t, got);
            }
            json_decref(want);
        }
    }
    assert_in_range(calls, 0, 300); /* 95 here; as objects, 49,330 */
    out_clear(&o);
    stop(&loop, s);
    raw_parse(&raw, &o);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

/* The lens of kernel k (0: NVIDIA, 1: DCU) in a codeLens reply: its range's start line, and
 * its title (borrowed). */
static int lens_line(json_t *r, int k, int t, const char **title)
{
    json_t *l = json_array_get(json_object_get(r, "result"), (size_t)(2 * k + t));
    *title = json_string_value(json_object_get(json_object_get(l, "command"), "title"));
    char name[8];
    snprintf(name, sizeof name, "k%04d", k);
    json_t *arg = json_array_get(json_object_get(json_object_get(l, "command"), "arguments"), 0);
    assert_string_equal(json_string_value(json_object_get(arg, "kernel")), name);
    return (int)json_integer_value(
        json_object_get(json_object_get(json_object_get(l, "range"), "start"), "line"));
}

static const char *lens_title_of(json_t *r)
{
    const char *title;
    lens_line(r, 0, 0, &title);
    return title;
}

static void feed_lens(lsp_server *s, int id)
{
    feed_json(s, json_pack("{s:s, s:i, s:s, s:{s:{s:s}}}", "jsonrpc", "2.0", "id", id, "method",
                           "textDocument/codeLens", "params", "textDocument", "uri", URI));
}

/* The Optimize lenses are rendered on the pool with each parse and lent to the write as
 * they are: a codeLens renders nothing on the loop (its cost no longer grows with the
 * kernels), an edit's lenses are those of the new text (the request waits for its parse;
 * the lenses lent before are not touched), and a language change renders them once on
 * the loop, for every request after it. */
static void test_code_lens_kept_from_the_parse(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct parts_sink p = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(300);
    lsp_server *s = start(&loop, &p.o);
    lsp_server_set_send_parts(s, parts_sink);
    open_doc(s, text);
    feed_symbols(s, 2);
    await_reply(&loop, &p.o, 2);
    feed_lens(s, 3);
    json_t *r = await_reply(&loop, &p.o, 3);
    const char *title;
    assert_int_equal(json_array_size(json_object_get(r, "result")), 600);
    assert_int_equal(lens_line(r, 0, 0, &title), 0);
    assert_string_equal(title, hk_tr(HK_MSG_LENS_OPTIMIZE_NVIDIA));
    assert_int_equal(lens_line(r, 299, 1, &title), 5 * 299);
    assert_string_equal(title, hk_tr(HK_MSG_LENS_OPTIMIZE_DCU));
    assert_int_equal(s->lens_loop_renders, 0);
    assert_int_equal(p.n, 2); /* lent, like the symbols */
    /* hyperkernel/loopStats {"reset": true}: the figures start again after its reply */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"hyperkernel/loopStats\","
            "\"params\":{\"reset\":true}}");
    json_t *ls = json_object_get(reply(&p.o, 30), "result");
    assert_true(json_integer_value(json_object_get(ls, "iterations")) > 0);
    assert_true(json_array_size(json_object_get(ls, "top_cpu")) > 0);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":31,\"method\":\"hyperkernel/loopStats\"}");
    ls = json_object_get(reply(&p.o, 31), "result");
    assert_int_equal(json_integer_value(json_object_get(ls, "iterations")), 0);
    assert_int_equal(json_array_size(json_object_get(ls, "top_cpu")), 0);
    assert_true(json_real_value(json_object_get(ls, "cpu_ms_max")) == 0.0);
    /* two lines inserted above every kernel: the request waits for the new parse */
    change(s, 2, 0, 0, 0, "\n\n");
    feed_lens(s, 4);
    assert_null(reply(&p.o, 4));
    r = await_reply(&loop, &p.o, 4);
    assert_int_equal(json_array_size(json_object_get(r, "result")), 600);
    assert_int_equal(lens_line(r, 0, 0, &title), 2);
    assert_int_equal(lens_line(r, 150, 1, &title), 2 + 5 * 150);
    /* the parse's iterations are counted again */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":32,\"method\":\"hyperkernel/loopStats\"}");
    ls = json_object_get(reply(&p.o, 32), "result");
    assert_true(json_integer_value(json_object_get(ls, "iterations")) > 0);
    assert_int_equal(s->lens_loop_renders, 0);
    assert_int_equal(p.n, 3);
    assert_ptr_not_equal(p.h[2].lent, p.h[1].lent);
    assert_memory_equal(p.h[1].lent, p.h[1].copy, p.h[1].len); /* untouched under the write */
    /* titles in another language: rendered again on the pool, the request waiting; the
     * model is of this text already, so nothing is parsed */
    uint64_t model = an_doc_model_id(doc_state(s)->an);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"workspace/didChangeConfiguration\",\"params\":"
            "{\"settings\":{\"language\":\"zh-CN\"}}}");
    feed_lens(s, 5);
    assert_null(reply(&p.o, 5));
    r = await_reply(&loop, &p.o, 5);
    assert_int_equal(lens_line(r, 1, 0, &title), 7);
    assert_string_equal(title, hk_tr_in(HK_LANG_ZH_CN, HK_MSG_LENS_OPTIMIZE_NVIDIA));
    assert_int_equal(lens_line(r, 1, 1, &title), 7);
    assert_string_equal(title, hk_tr_in(HK_LANG_ZH_CN, HK_MSG_LENS_OPTIMIZE_DCU));
    assert_int_equal(s->lens_loop_renders, 0);
    assert_true(an_doc_model_id(doc_state(s)->an) == model);
    /* lenses that no longer fit (here: made for another language) are never sent: the
     * request renders them on the loop, once, and keeps them */
    hk_i18n_set(HK_LANG_EN);
    feed_lens(s, 6);
    r = await_reply(&loop, &p.o, 6);
    assert_string_equal(lens_title_of(r), hk_tr_in(HK_LANG_EN, HK_MSG_LENS_OPTIMIZE_NVIDIA));
    assert_int_equal(s->lens_loop_renders, 1);
    feed_lens(s, 7);
    r = await_reply(&loop, &p.o, 7);
    assert_string_equal(lens_title_of(r), hk_tr_in(HK_LANG_EN, HK_MSG_LENS_OPTIMIZE_NVIDIA));
    assert_int_equal(s->lens_loop_renders, 1);
    hk_i18n_set(HK_LANG_EN);
    parts_release_all(&p);
    stop(&loop, s);
    out_clear(&p.o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

/* Kept lenses are sent only for the text, encoding, target and language they were
 * rendered for: any other is rendered again, never answered as current. */
static void test_lenses_fit_only_their_key(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    doc_store *ds;
    doc *d;
    assert_int_equal(doc_store_new(0, &ds), HK_OK);
    assert_int_equal(doc_open(ds, URI, 1, "int x;\n", 7, &d), HK_OK);
    struct lsp_lens_key key = {.gen = 3, .enc = DOC_UTF16, .nv_target = "nvidia",
                               .lang = HK_LANG_EN};
    struct lsp_lenses *l = lsp_lenses_render(NULL, d, URI, &key);
    assert_non_null(l);
    size_t n;
    assert_string_equal(lsp_lenses_text(l, &n), "");
    assert_int_equal(n, 0);
    assert_true(lsp_lenses_fit(l, &key));
    struct lsp_lens_key k = key;
    k.gen = 4; /* an edit since */
    assert_false(lsp_lenses_fit(l, &k));
    k = key;
    k.enc = DOC_UTF8;
    assert_false(lsp_lenses_fit(l, &k));
    k = key;
    k.nv_target = "nvidia:sm_90";
    assert_false(lsp_lenses_fit(l, &k));
    k = key;
    k.lang = HK_LANG_ZH_CN;
    assert_false(lsp_lenses_fit(l, &k));
    assert_false(lsp_lenses_fit(NULL, &key));
    lsp_lenses_put(lsp_lenses_ref(l));
    lsp_lenses_put(l);
    doc_store_free(ds);
    assert_int_equal(hk_alloc_live(), live);
}

/* A new copy buffer of a large text has room for edits that grow it: the next copy, a
 * line longer, reuses it instead of faulting in fresh pages on the loop. */
static void test_copy_buffer_room_to_grow(void **st)
{
    (void)st;
    long live = hk_alloc_live();
    struct lsp_doc ld = {0};
    size_t need = LSP_TEXT_PREP_BYTES * 4, cap = 0;
    char *b = lsp_doc_copy_buffer(&ld, need, &cap);
    assert_non_null(b);
    assert_true(cap >= need + need / 8);
    lsp_doc_copy_return(&ld, b, cap);
    size_t cap2 = 0;
    char *b2 = lsp_doc_copy_buffer(&ld, need + 40, &cap2);
    assert_ptr_equal(b2, b);
    assert_int_equal(cap2, cap);
    lsp_doc_copy_return(&ld, b2, cap2);
    /* a small text's copy is as large as it needs */
    size_t cap3 = 0;
    char *b3 = lsp_doc_copy_buffer(NULL, 100, &cap3);
    assert_int_equal(cap3, 100);
    hk_free(b3);
    for (int i = 0; i < LSP_DOC_SPARES; i++)
        hk_free(ld.snap[i]);
    assert_int_equal(hk_alloc_live(), live);
}

/* Spares of a large text's size that are free (the loop copies into them without faults). */
static int spares_fitting(const struct lsp_doc *ld, size_t need)
{
    int n = 0;
    for (int i = 0; i < LSP_DOC_SPARES; i++)
        n += ld->snap[i] && ld->snap_cap[i] >= need;
    return n;
}

/* A parse, a compile, the compile a change cancelled and a plan holding copies of a large
 * text at once take every kept spare; new ones are made on the pool (their pages touched
 * there), so the next copy still finds LSP_DOC_SPARES_FREE of them. A document closed
 * while one is being made leaks nothing. */
static void test_spares_made_on_the_pool(void **st)
{
    (void)st;
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct out o = {0};
    long live = hk_alloc_live();
    char *text = kernels_text(1000); /* about 120 KB: a large text */
    lsp_server *s = start(&loop, &o);
    open_doc(s, text);
    feed_symbols(s, 2);
    await_reply(&loop, &o, 2);
    struct lsp_doc *ld = lsp_doc_of(doc_get(s->docs, URI));
    size_t need = doc_length(doc_get(s->docs, URI)) + 1;
    assert_true(need >= LSP_TEXT_PREP_BYTES);
    enum { TAKEN = LSP_DOC_SPARES + 1 };
    char *held[TAKEN];
    size_t cap[TAKEN];
    for (int i = 0; i < TAKEN; i++) {
        held[i] = lsp_doc_copy_buffer(ld, need, &cap[i]);
        assert_non_null(held[i]);
        assert_true(cap[i] >= need);
    }
    for (int i = 0; i < 1000 && spares_fitting(ld, need) < LSP_DOC_SPARES_FREE; i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        if (spares_fitting(ld, need) < LSP_DOC_SPARES_FREE)
            usleep(2000);
    }
    assert_int_equal(spares_fitting(ld, need), LSP_DOC_SPARES_FREE);
    for (int i = 0; i < LSP_DOC_SPARES; i++) /* made, not one of those held */
        for (int j = 0; j < TAKEN; j++)
            assert_true(ld->snap[i] != held[j]);
    for (int i = 0; i < TAKEN; i++)
        lsp_doc_copy_return(ld, held[i], cap[i]);
    assert_null(ld->fill);
    /* taken again, and the document closed while a spare is being made */
    held[0] = lsp_doc_copy_buffer(ld, need, &cap[0]);
    held[1] = lsp_doc_copy_buffer(ld, need, &cap[1]);
    assert_non_null(ld->fill);
    hk_free(held[0]);
    hk_free(held[1]);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didClose\",\"params\":"
            "{\"textDocument\":{\"uri\":\"" URI "\"}}}");
    out_clear(&o);
    stop(&loop, s);
    out_clear(&o);
    uv_loop_close(&loop);
    free(text);
    assert_int_equal(hk_alloc_live(), live);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_returns_before_the_parse),
        cmocka_unit_test(test_change_storm_answers_the_latest_text),
        cmocka_unit_test(test_change_storm_past_the_kept_edits),
        cmocka_unit_test(test_close_during_a_parse),
        cmocka_unit_test(test_cancel_a_waiting_request),
        cmocka_unit_test(test_shutdown_behind_a_waiting_request),
        cmocka_unit_test(test_large_message_decoded_off_the_loop),
        cmocka_unit_test(test_input_end_behind_a_large_message),
        cmocka_unit_test(test_large_text_made_ready_on_the_pool),
        cmocka_unit_test(test_symbols_rendered_with_the_parse),
        cmocka_unit_test(test_lent_reply_not_patched_under_a_write),
        cmocka_unit_test(test_server_freed_with_a_lent_reply_out),
        cmocka_unit_test(test_compile_result_made_on_the_pool),
        cmocka_unit_test(test_stale_compile_result_not_published),
        cmocka_unit_test(test_code_lens_written_as_text),
        cmocka_unit_test(test_code_lens_kept_from_the_parse),
        cmocka_unit_test(test_lenses_fit_only_their_key),
        cmocka_unit_test(test_copy_buffer_room_to_grow),
        cmocka_unit_test(test_spares_made_on_the_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
