/* Unit tests for JSON-RPC dispatch: error codes, exactly one response per request,
 * deferred answers and $/cancelRequest, the depth cap, the filter, outgoing requests
 * with reply matching, timeouts and the pending-table bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "rpc/rpc.h"

#include <stdbool.h>
#include <stdio.h>

static int depth_reference(const char *s, size_t len, int max);

#define MAXOUT 128

struct out {
    json_t *msgs[MAXOUT];
    int n;
};

static int sink(const char *body, size_t len, void *ud)
{
    struct out *o = ud;
    assert_true(o->n < MAXOUT);
    json_error_t e;
    o->msgs[o->n] = json_loadb(body, len, JSON_ALLOW_NUL, &e);
    assert_non_null(o->msgs[o->n]);
    o->n++;
    return HK_OK;
}

static void out_clear(struct out *o)
{
    for (int i = 0; i < o->n; i++)
        json_decref(o->msgs[i]);
    o->n = 0;
}

static int err_code(json_t *m)
{
    return (int)json_integer_value(json_object_get(json_object_get(m, "error"), "code"));
}

static void feed(rpc *r, const char *s) { assert_int_equal(rpc_feed(r, s, strlen(s)), HK_OK); }

/* handlers */
static void h_echo(rpc_call *c, json_t *params, void *ud)
{
    rpc_call_reply(c, json_incref(params));
}

static void h_forget(rpc_call *c, json_t *params, void *ud) { (void)c; }

static rpc_call *g_deferred;
static int g_cancelled;
static void h_later(rpc_call *c, json_t *params, void *ud)
{
    g_deferred = c;
    rpc_call_defer(c);
}
static void on_cancel(rpc_call *c, void *ud) { g_cancelled++; }
static void h_later_cancellable(rpc_call *c, json_t *params, void *ud)
{
    g_deferred = c;
    rpc_call_defer(c);
    rpc_call_on_cancel(c, on_cancel, NULL);
}
static void h_fail(rpc_call *c, json_t *params, void *ud)
{
    rpc_call_error(c, HK_ERANGE, "position out of range");
}

/* Replies in place from a buffer with room before the result, twice from the same
 * buffer (as documentSymbol's cache does). */
static char g_inplace[64 + 32];
static void h_inplace(rpc_call *c, json_t *params, void *ud)
{
    (void)params;
    (void)ud;
    static const char result[] = "[1,{\"a\":\"]\"}]";
    memset(g_inplace, '#', sizeof g_inplace);
    memcpy(g_inplace + 64, result, strlen(result));
    rpc_call_reply_inplace(c, g_inplace, 64, strlen(result));
}

static void test_reply_inplace(void **st)
{
    (void)st;
    struct out o = {0};
    rpc *r;
    assert_int_equal(rpc_new(NULL, sink, &o, &r), HK_OK);
    rpc_register(r, "inplace", h_inplace, NULL);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"inplace\"}");
    /* a string id too long for the room: the result is copied instead */
    char big[400];
    memset(big, 'x', sizeof big);
    snprintf(big, sizeof big, "{\"jsonrpc\":\"2.0\",\"id\":\"%0200d\",\"method\":\"inplace\"}", 5);
    feed(r, big);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"inplace\"}");
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"inplace\"}"); /* notification: nothing sent */
    assert_int_equal(o.n, 3);
    json_t *want = json_loads("[1,{\"a\":\"]\"}]", 0, NULL);
    for (int i = 0; i < 3; i++) {
        assert_true(json_equal(json_object_get(o.msgs[i], "result"), want));
        assert_string_equal(json_string_value(json_object_get(o.msgs[i], "jsonrpc")), "2.0");
    }
    assert_int_equal(json_integer_value(json_object_get(o.msgs[0], "id")), 7);
    assert_int_equal(json_string_length(json_object_get(o.msgs[1], "id")), 200);
    assert_string_equal(json_string_value(json_object_get(o.msgs[2], "id")), "s");
    json_decref(want);
    rpc_free(r);
    out_clear(&o);
}

static void test_errors(void **st)
{
    struct out o = {0};
    rpc *r;
    assert_int_equal(rpc_new(NULL, sink, &o, &r), HK_OK);
    rpc_register(r, "echo", h_echo, NULL);
    feed(r, "{not json");
    assert_int_equal(err_code(o.msgs[0]), RPC_PARSE_ERROR);
    assert_true(json_is_null(json_object_get(o.msgs[0], "id")));
    feed(r, "[1,2]");
    assert_int_equal(err_code(o.msgs[1]), RPC_INVALID_REQUEST);
    feed(r, "42");
    assert_int_equal(err_code(o.msgs[2]), RPC_INVALID_REQUEST);
    feed(r, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"echo\"}");
    assert_int_equal(err_code(o.msgs[3]), RPC_INVALID_REQUEST);
    assert_int_equal(json_integer_value(json_object_get(o.msgs[3], "id")), 1);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":7}");
    assert_int_equal(err_code(o.msgs[4]), RPC_INVALID_REQUEST);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"echo\"}");
    assert_int_equal(err_code(o.msgs[5]), RPC_INVALID_REQUEST);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"nope\"}");
    assert_int_equal(err_code(o.msgs[6]), RPC_METHOD_NOT_FOUND);
    assert_string_equal(json_string_value(json_object_get(o.msgs[6], "id")), "s");
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\",\"params\":5}");
    assert_int_equal(err_code(o.msgs[7]), RPC_INVALID_REQUEST);
    /* Unknown notifications get no response at all. */
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}");
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"$/whatever\"}");
    assert_int_equal(o.n, 8);
    /* A good one. */
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"echo\",\"params\":{\"a\":[1]}}");
    assert_int_equal(o.n, 9);
    json_t *a = json_object_get(json_object_get(o.msgs[8], "result"), "a");
    assert_int_equal(json_integer_value(json_array_get(a, 0)), 1);
    assert_int_equal(json_integer_value(json_object_get(o.msgs[8], "id")), 4);
    /* Empty body. */
    feed(r, "");
    assert_int_equal(err_code(o.msgs[9]), RPC_PARSE_ERROR);
    /* "params": null is no params (LSP clients send it with shutdown): a result, no error */
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"echo\",\"params\":null}");
    assert_int_equal(o.n, 11);
    assert_null(json_object_get(o.msgs[10], "error"));
    assert_true(json_is_null(json_object_get(o.msgs[10], "result")));
    assert_int_equal(json_integer_value(json_object_get(o.msgs[10], "id")), 5);
    rpc_free(r);
    out_clear(&o);
}

static void test_depth_cap(void **st)
{
    struct out o = {0};
    rpc *r;
    assert_int_equal(rpc_new(NULL, sink, &o, &r), HK_OK);
    char *deep = malloc(200001);
    memset(deep, '[', 100000);
    memset(deep + 100000, ']', 100000);
    deep[200000] = '\0';
    feed(r, deep);
    assert_int_equal(o.n, 1);
    assert_int_equal(err_code(o.msgs[0]), RPC_PARSE_ERROR);
    free(deep);
    assert_int_equal(rpc_check_depth("[[[]]]", 6, 3), HK_OK);
    assert_int_equal(rpc_check_depth("[[[[]]]]", 8, 3), HK_ETOOBIG);
    /* Brackets inside strings (with escaped quotes) do not count. */
    const char *s = "{\"a\":\"[[[[\\\"[[[[\"}";
    assert_int_equal(rpc_check_depth(s, strlen(s), 2), HK_OK);
    /* An escaped backslash ends the string: the brackets after it count. */
    const char *t = "{\"a\":\"x\\\\\"}[[[";
    assert_int_equal(rpc_check_depth(t, strlen(t), 3), HK_OK);
    assert_int_equal(rpc_check_depth(t, strlen(t), 2), HK_ETOOBIG);
    assert_int_equal(depth_reference(t, strlen(t), 2), HK_ETOOBIG);
    rpc_free(r);
    out_clear(&o);
}

/* rpc_check_depth skips strings with memchr; this is the byte-by-byte rule it must
 * agree with on any text. */
static int depth_reference(const char *s, size_t len, int max)
{
    int depth = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
            continue;
        }
        if (ch == '"')
            in_str = true;
        else if ((ch == '[' || ch == '{') && ++depth > max)
            return HK_ETOOBIG;
        else if (ch == ']' || ch == '}')
            depth--;
    }
    return HK_OK;
}

static void test_depth_matches_byte_rule(void **st)
{
    (void)st;
    static const char alphabet[] = "\"\\[]{}a";
    char buf[64];
    unsigned seed = 99;
    for (int round = 0; round < 200000; round++) {
        size_t n = (size_t)rand_r(&seed) % sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
        int max = rand_r(&seed) % 5;
        if (rpc_check_depth(buf, n, max) != depth_reference(buf, n, max)) {
            fprintf(stderr, "differs on %.*s (max %d)\n", (int)n, buf, max);
            fail();
        }
    }
}

static void test_exactly_one_response(void **st)
{
    struct out o = {0};
    rpc *r;
    assert_int_equal(rpc_new(NULL, sink, &o, &r), HK_OK);
    rpc_register(r, "forget", h_forget, NULL);
    rpc_register(r, "fail", h_fail, NULL);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"forget\"}");
    assert_int_equal(o.n, 1);
    assert_int_equal(err_code(o.msgs[0]), RPC_INTERNAL_ERROR);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"fail\"}");
    assert_int_equal(o.n, 2);
    assert_int_equal(err_code(o.msgs[1]), RPC_INVALID_PARAMS);
    /* A notification handler that reports an error sends nothing. */
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"fail\"}");
    assert_int_equal(o.n, 2);
    rpc_free(r);
    out_clear(&o);
}

static void test_deferred_and_cancel(void **st)
{
    struct out o = {0};
    rpc *r;
    assert_int_equal(rpc_new(NULL, sink, &o, &r), HK_OK);
    rpc_register(r, "later", h_later, NULL);
    rpc_register(r, "cancellable", h_later_cancellable, NULL);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"later\"}");
    assert_int_equal(o.n, 0);
    assert_int_equal(rpc_deferred_count(r), 1);
    /* Same id again while in progress. */
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"later\"}");
    assert_int_equal(o.n, 1);
    assert_int_equal(err_code(o.msgs[0]), RPC_INVALID_REQUEST);
    rpc_call *first = g_deferred; /* the duplicate never reached the handler */
    rpc_call_reply(first, json_string("done"));
    assert_int_equal(o.n, 2);
    assert_string_equal(json_string_value(json_object_get(o.msgs[1], "result")), "done");
    assert_int_equal(rpc_deferred_count(r), 0);

    g_cancelled = 0;
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":\"c1\",\"method\":\"cancellable\"}");
    rpc_call *c = g_deferred;
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":\"c1\"}}");
    assert_int_equal(o.n, 3);
    assert_int_equal(err_code(o.msgs[2]), RPC_REQUEST_CANCELLED);
    assert_int_equal(g_cancelled, 1);
    assert_true(rpc_call_cancelled(c));
    /* A second cancel and the late answer both produce nothing. */
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":\"c1\"}}");
    rpc_call_reply(c, json_string("late"));
    assert_int_equal(o.n, 3);
    assert_int_equal(g_cancelled, 1);
    /* Cancelling something unknown or malformed is ignored. */
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":99}}");
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":[1]}}");
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\"}");
    assert_int_equal(o.n, 3);
    /* A deferred call still open at free is released without a crash or a leak. */
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"later\"}");
    rpc_free(r);
    out_clear(&o);
}

static int g_filter_calls;
static int filter(const char *method, bool is_request, const char **msg, void *ud)
{
    g_filter_calls++;
    if (strcmp(method, "init") == 0)
        return 0;
    *msg = "not initialized";
    return RPC_SERVER_NOT_INITIALIZED;
}

static void test_filter(void **st)
{
    struct out o = {0};
    rpc *r;
    assert_int_equal(rpc_new(NULL, sink, &o, &r), HK_OK);
    rpc_register(r, "echo", h_echo, NULL);
    rpc_register(r, "init", h_echo, NULL);
    rpc_set_filter(r, filter, NULL);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}");
    assert_int_equal(err_code(o.msgs[0]), RPC_SERVER_NOT_INITIALIZED);
    feed(r, "{\"jsonrpc\":\"2.0\",\"method\":\"echo\"}"); /* dropped */
    assert_int_equal(o.n, 1);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"init\"}");
    assert_int_equal(o.n, 2);
    assert_true(json_is_null(json_object_get(o.msgs[1], "result")));
    rpc_free(r);
    out_clear(&o);
}

struct reply_log {
    int calls;
    int status;
    json_t *result, *error;
};

static void on_reply(rpc *r, int status, json_t *result, json_t *error, void *ud)
{
    struct reply_log *l = ud;
    l->calls++;
    l->status = status;
    l->result = json_incref(result);
    l->error = json_incref(error);
}

static void test_outgoing(void **st)
{
    struct out o = {0};
    uv_loop_t loop;
    uv_loop_init(&loop);
    rpc *r;
    assert_int_equal(rpc_new(&loop, sink, &o, &r), HK_OK);
    struct reply_log a = {0}, b = {0}, c = {0};
    int64_t ida, idb, idc;
    assert_int_equal(rpc_request(r, "workspace/applyEdit", json_pack("{s:{}}", "edit"), 0,
                                 on_reply, &a, &ida), HK_OK);
    assert_int_equal(rpc_request(r, "window/showDocument", NULL, 0, on_reply, &b, &idb), HK_OK);
    assert_int_equal(rpc_request(r, "window/workDoneProgress/create", NULL, 30, on_reply, &c,
                                 &idc), HK_OK);
    assert_int_equal(o.n, 3);
    assert_string_equal(json_string_value(json_object_get(o.msgs[0], "method")),
                        "workspace/applyEdit");
    assert_int_equal(rpc_pending_out(r), 3);
    /* Replies out of order, one an error; an unknown id is ignored. */
    char buf[256];
    snprintf(buf, sizeof buf, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-1,\"message\":\"no\"}}",
             (long long)idb);
    feed(r, buf);
    snprintf(buf, sizeof buf, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"applied\":true}}",
             (long long)ida);
    feed(r, buf);
    feed(r, "{\"jsonrpc\":\"2.0\",\"id\":12345,\"result\":null}");
    assert_int_equal(a.calls, 1);
    assert_int_equal(a.status, HK_OK);
    assert_true(json_is_true(json_object_get(a.result, "applied")));
    assert_int_equal(b.calls, 1);
    assert_non_null(b.error);
    assert_null(b.result);
    /* c times out through the loop. */
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.status, HK_ETIMEDOUT);
    /* A reply after the timeout is ignored. */
    snprintf(buf, sizeof buf, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":null}", (long long)idc);
    feed(r, buf);
    assert_int_equal(c.calls, 1);
    assert_int_equal(rpc_pending_out(r), 0);
    /* The table is bounded. */
    struct reply_log many[RPC_MAX_PENDING_OUT] = {0};
    for (int i = 0; i < RPC_MAX_PENDING_OUT; i++)
        assert_int_equal(rpc_request(r, "x", NULL, 0, on_reply, &many[i], NULL), HK_OK);
    struct reply_log extra = {0};
    assert_int_equal(rpc_request(r, "x", NULL, 0, on_reply, &extra, NULL), HK_ETOOBIG);
    /* Freeing cancels what is pending, each exactly once. */
    rpc_free(r);
    for (int i = 0; i < RPC_MAX_PENDING_OUT; i++) {
        assert_int_equal(many[i].calls, 1);
        assert_int_equal(many[i].status, HK_ECANCELED);
    }
    assert_int_equal(extra.calls, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    json_decref(a.result);
    json_decref(a.error);
    json_decref(b.result);
    json_decref(b.error);
    out_clear(&o);
}

static void test_code_mapping(void **st)
{
    assert_int_equal(rpc_code_from_hk(HK_EINVAL), RPC_INVALID_PARAMS);
    assert_int_equal(rpc_code_from_hk(HK_ERANGE), RPC_INVALID_PARAMS);
    assert_int_equal(rpc_code_from_hk(HK_ENOENT), RPC_INVALID_PARAMS);
    assert_int_equal(rpc_code_from_hk(HK_ECANCELED), RPC_REQUEST_CANCELLED);
    assert_int_equal(rpc_code_from_hk(HK_ESTALE), RPC_CONTENT_MODIFIED);
    assert_int_equal(rpc_code_from_hk(HK_ENOMEM), RPC_INTERNAL_ERROR);
    assert_int_equal(rpc_code_from_hk(HK_EPARSE), RPC_PARSE_ERROR);
}

static void test_no_leaks(void **st)
{
    long before = hk_alloc_live();
    struct out o = {0};
    rpc *r;
    assert_int_equal(rpc_new(NULL, sink, &o, &r), HK_OK);
    rpc_register(r, "echo", h_echo, NULL);
    rpc_register(r, "later", h_later, NULL);
    for (int i = 0; i < 50; i++) {
        feed(r, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":[\"\\u0000x\"]}");
        feed(r, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"later\"}");
        rpc_call_reply(g_deferred, NULL);
        feed(r, "{bad");
        out_clear(&o);
    }
    rpc_free(r);
    assert_int_equal(hk_alloc_live(), before);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_depth_cap),
        cmocka_unit_test(test_exactly_one_response),
        cmocka_unit_test(test_depth_matches_byte_rule),
        cmocka_unit_test(test_reply_inplace),
        cmocka_unit_test(test_deferred_and_cancel),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_outgoing),
        cmocka_unit_test(test_code_mapping),
        cmocka_unit_test(test_no_leaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
