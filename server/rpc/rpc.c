/* JSON-RPC 2.0 dispatch. Every request that reaches rpc_feed leaves with exactly one
 * response: inline handlers answer before returning, deferred ones later, cancelled
 * ones get RequestCancelled at once and their late answer is dropped, and a handler
 * that forgets to answer gets an InternalError sent on its behalf. */
#include "rpc/rpc.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "core/log.h"

#include <stdio.h>
#include <string.h>

/* Longest envelope head rpc_call_reply_inplace writes in place. */
#define RPC_INPLACE_HEAD 256

struct method {
    char *name;
    rpc_method_fn fn;
    void *ud;
};

struct rpc_call {
    rpc *r;
    char *method;
    json_t *id;              /* new reference; NULL for notifications */
    bool in_handler, deferred, finished, cancelled, linked;
    rpc_cancel_fn on_cancel;
    void *cancel_ud;
    struct rpc_call *prev, *next; /* deferred list */
};

struct out_timer {
    uv_timer_t t;
    rpc *r;          /* NULL once the endpoint is gone */
    int64_t id;
};

struct out_req {
    bool used;
    int64_t id;
    rpc_reply_fn cb;
    void *ud;
    struct out_timer *timer; /* NULL without a loop */
};

struct rpc {
    uv_loop_t *loop;
    rpc_send_fn send;
    void *send_ud;
    rpc_send_owned_fn send_owned; /* NULL: everything through send */
    rpc_send_parts_fn send_parts; /* NULL: lent replies are copied */
    struct method *methods;
    size_t n_methods, cap_methods;
    rpc_filter_fn filter;
    void *filter_ud;
    rpc_trace_fn trace;
    void *trace_ud;
    rpc_call *deferred;      /* list head */
    size_t n_deferred;
    struct out_req out[RPC_MAX_PENDING_OUT];
    size_t n_out;
    int64_t next_id;
};

int rpc_code_from_hk(int hk_err)
{
    switch (hk_err) {
    case HK_EINVAL:
    case HK_ERANGE:
    case HK_ENOENT:
    case HK_ETOOBIG:
        return RPC_INVALID_PARAMS;
    case HK_EPARSE:
        return RPC_PARSE_ERROR;
    case HK_ECANCELED:
        return RPC_REQUEST_CANCELLED;
    case HK_ESTALE:
        return RPC_CONTENT_MODIFIED;
    case HK_ESTATE:
    case HK_EUNSUPPORTED:
    case HK_ENOGPU:
    case HK_ECHILD:
    case HK_ETIMEDOUT:
        return RPC_REQUEST_FAILED;
    default:
        return RPC_INTERNAL_ERROR;
    }
}

int rpc_new(uv_loop_t *loop, rpc_send_fn send, void *send_ud, rpc **out)
{
    rpc *r = hk_calloc(1, sizeof *r);
    if (!r)
        return HK_ENOMEM;
    r->loop = loop;
    r->send = send;
    r->send_ud = send_ud;
    r->next_id = 1;
    *out = r;
    return HK_OK;
}

static void timer_closed(uv_handle_t *h) { hk_free(h->data); }

static void out_slot_release(struct out_req *o)
{
    if (o->timer) {
        uv_timer_stop(&o->timer->t);
        o->timer->r = NULL;
        uv_close((uv_handle_t *)&o->timer->t, timer_closed);
    }
    memset(o, 0, sizeof *o);
}

static void call_free(rpc_call *c)
{
    if (c->linked) {
        if (c->prev)
            c->prev->next = c->next;
        else
            c->r->deferred = c->next;
        if (c->next)
            c->next->prev = c->prev;
        c->r->n_deferred--;
    }
    json_decref(c->id);
    hk_free(c->method);
    hk_free(c);
}

void rpc_cancel_outgoing(rpc *r)
{
    for (size_t i = 0; i < RPC_MAX_PENDING_OUT; i++) {
        struct out_req o = r->out[i];
        if (!o.used)
            continue;
        out_slot_release(&r->out[i]);
        r->n_out--;
        o.cb(r, HK_ECANCELED, NULL, NULL, o.ud);
    }
}

void rpc_free(rpc *r)
{
    if (!r)
        return;
    rpc_cancel_outgoing(r);
    while (r->deferred)
        call_free(r->deferred);
    for (size_t i = 0; i < r->n_methods; i++)
        hk_free(r->methods[i].name);
    hk_free(r->methods);
    hk_free(r);
}

int rpc_register(rpc *r, const char *method, rpc_method_fn fn, void *ud)
{
    for (size_t i = 0; i < r->n_methods; i++) {
        if (strcmp(r->methods[i].name, method) == 0) {
            r->methods[i].fn = fn;
            r->methods[i].ud = ud;
            return HK_OK;
        }
    }
    if (r->n_methods == r->cap_methods) {
        size_t cap = r->cap_methods ? r->cap_methods * 2 : 32;
        struct method *m = hk_realloc(r->methods, cap * sizeof *m);
        if (!m)
            return HK_ENOMEM;
        r->methods = m;
        r->cap_methods = cap;
    }
    char *name = hk_strdup(method);
    if (!name)
        return HK_ENOMEM;
    r->methods[r->n_methods++] = (struct method){name, fn, ud};
    return HK_OK;
}

void rpc_set_filter(rpc *r, rpc_filter_fn fn, void *ud)
{
    r->filter = fn;
    r->filter_ud = ud;
}

void rpc_set_send_owned(rpc *r, rpc_send_owned_fn fn) { r->send_owned = fn; }
void rpc_set_send_parts(rpc *r, rpc_send_parts_fn fn) { r->send_parts = fn; }

/* Sends text (len bytes, hk_malloc'd; stolen). */
static int send_text(rpc *r, char *text, size_t len)
{
    if (r->send_owned)
        return r->send_owned(text, len, r->send_ud);
    int rc = r->send(text, len, r->send_ud);
    hk_free(text);
    return rc;
}

void rpc_set_trace(rpc *r, rpc_trace_fn fn, void *ud)
{
    r->trace = fn;
    r->trace_ud = ud;
}

/* ---- sending ---- */

/* Serialises and sends msg (reference stolen). */
static int send_json(rpc *r, json_t *msg)
{
    int rc = HK_OK;
    char *text = NULL;
    if (!msg)
        return HK_ENOMEM;
    text = json_dumps(msg, JSON_COMPACT);
    if (!text) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = send_text(r, text, strlen(text));
    text = NULL;
    if (rc)
        HK_WARN("rpc: could not send a message: %s", hk_strerror(rc));
out:
    hk_free(text);
    json_decref(msg);
    return rc;
}

/* id: borrowed; NULL sends id null. */
static int send_error(rpc *r, const json_t *id, int code, const char *msg)
{
    json_t *m = json_pack("{s:s, s:O?, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id, "error",
                          "code", code, "message", msg ? msg : "error");
    if (m && !id)
        json_object_set_new(m, "id", json_null());
    return send_json(r, m);
}

static int send_result(rpc *r, const json_t *id, json_t *result)
{
    json_t *m = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result",
                          result ? result : json_null());
    return send_json(r, m);
}

int rpc_send_error(rpc *r, const json_t *id, int code, const char *msg)
{
    return send_error(r, id, code, msg);
}

int rpc_notify(rpc *r, const char *method, json_t *params)
{
    json_t *m = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
    if (m && params)
        json_object_set_new(m, "params", params);
    else
        json_decref(params);
    return send_json(r, m);
}

int rpc_notify_raw(rpc *r, const char *method, const char *const *parts, const size_t *lens,
                   size_t n)
{
    json_t *m = json_string(method);
    char *name = m ? json_dumps(m, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    json_decref(m);
    if (!name)
        return HK_ENOMEM;
    static const char head1[] = "{\"jsonrpc\":\"2.0\",\"method\":", head2[] = ",\"params\":";
    size_t nl = strlen(name), total = sizeof head1 - 1 + nl + sizeof head2 - 1 + 1;
    for (size_t i = 0; i < n; i++)
        total += lens[i];
    /* one allocation, written once: a publish of 1,800 diagnostics is 400 KB */
    char *text = hk_malloc(total + 1), *p = text;
    if (!text) {
        hk_free(name);
        return HK_ENOMEM;
    }
    memcpy(p, head1, sizeof head1 - 1);
    p += sizeof head1 - 1;
    memcpy(p, name, nl);
    p += nl;
    hk_free(name);
    memcpy(p, head2, sizeof head2 - 1);
    p += sizeof head2 - 1;
    for (size_t i = 0; i < n; i++) {
        if (lens[i])
            memcpy(p, parts[i], lens[i]);
        p += lens[i];
    }
    *p++ = '}';
    *p = '\0';
    int rc = send_text(r, text, total);
    if (rc)
        HK_WARN("rpc: could not send a message: %s", hk_strerror(rc));
    return rc;
}

/* ---- calls ---- */

const char *rpc_call_method(const rpc_call *c) { return c->method; }
bool rpc_call_is_request(const rpc_call *c) { return c->id != NULL; }
const json_t *rpc_call_id(const rpc_call *c) { return c->id; }
bool rpc_call_cancelled(const rpc_call *c) { return c->cancelled; }
rpc *rpc_call_endpoint(const rpc_call *c) { return c->r; }

void rpc_call_on_cancel(rpc_call *c, rpc_cancel_fn fn, void *ud)
{
    c->on_cancel = fn;
    c->cancel_ud = ud;
}

void rpc_call_defer(rpc_call *c)
{
    if (c->deferred || c->finished)
        return;
    c->deferred = true;
    rpc *r = c->r;
    if (r->n_deferred >= RPC_MAX_DEFERRED) {
        /* Refuse now; the handler's later finish is dropped like a cancelled one. */
        if (c->id)
            send_error(r, c->id, RPC_REQUEST_FAILED, hk_tr(HK_MSG_RPC_TOO_MANY));
        c->cancelled = true;
    }
    c->linked = true;
    c->prev = NULL;
    c->next = r->deferred;
    if (r->deferred)
        r->deferred->prev = c;
    r->deferred = c;
    r->n_deferred++;
}

/* Marks c finished; frees it now unless its handler is still running. */
static void call_finish(rpc_call *c)
{
    c->finished = true;
    if (!c->in_handler)
        call_free(c);
}

void rpc_call_reply(rpc_call *c, json_t *result)
{
    if (c->finished) {
        json_decref(result);
        return;
    }
    if (c->id && !c->cancelled)
        send_result(c->r, c->id, result);
    else
        json_decref(result);
    call_finish(c);
}

void rpc_call_reply_raw(rpc_call *c, const char *text, size_t len)
{
    if (c->finished)
        return;
    if (c->id && !c->cancelled) {
        struct hk_buf b;
        hk_buf_init(&b, len + 4096);
        char *id = json_dumps(c->id, JSON_ENCODE_ANY | JSON_COMPACT);
        int rc = id ? HK_OK : HK_ENOMEM;
        if (!rc)
            rc = hk_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":", id); /* i18n: not for people */
        if (!rc)
            rc = hk_buf_append(&b, text, len);
        if (!rc)
            rc = hk_buf_appends(&b, "}");
        if (!rc) {
            size_t n = b.len;
            rc = send_text(c->r, hk_buf_steal(&b), n);
        }
        if (rc == HK_ENOMEM) /* still answer, so the request gets its one response */
            send_error(c->r, c->id, RPC_INTERNAL_ERROR, hk_tr(HK_MSG_RPC_NO_MEMORY));
        else if (rc)
            HK_WARN("rpc: could not send a message: %s", hk_strerror(rc));
        hk_free(id);
        hk_buf_free(&b);
    }
    call_finish(c);
}

void rpc_call_reply_inplace(rpc_call *c, char *buf, size_t room, size_t len)
{
    if (c->finished)
        return;
    if (!c->id || c->cancelled) {
        call_finish(c);
        return;
    }
    char head[RPC_INPLACE_HEAD];
    char *id = json_dumps(c->id, JSON_ENCODE_ANY | JSON_COMPACT);
    int n = id ? snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":", id) /* i18n: not for people */
               : -1;
    hk_free(id);
    if (n < 0 || (size_t)n >= sizeof head || (size_t)n > room) {
        rpc_call_reply_raw(c, buf + room, len);
        return;
    }
    char *start = buf + room - n;
    memcpy(start, head, (size_t)n);
    buf[room + len] = '}';
    int rc = c->r->send(start, (size_t)n + len + 1, c->r->send_ud);
    if (rc == HK_ENOMEM)
        send_error(c->r, c->id, RPC_INTERNAL_ERROR, hk_tr(HK_MSG_RPC_NO_MEMORY));
    else if (rc)
        HK_WARN("rpc: could not send a message: %s", hk_strerror(rc));
    call_finish(c);
}

/* Sends head_items and text as the result: "[" head_items "," text "]" when array (a comma
 * only between two non-empty lists), else head_items then text (head_items empty). */
static void reply_lent(rpc_call *c, bool array, const char *head_items, size_t head_len,
                       const char *text, size_t len, rpc_release_fn release, void *arg)
{
    bool comma = array && head_len && len;
    if (c->finished || !c->id || c->cancelled || !c->r->send_parts) {
        /* joined and copied: rpc_call_reply_raw finishes, or drops what is finished */
        struct hk_buf j;
        hk_buf_init(&j, head_len + len + 4);
        int rc = hk_buf_appends(&j, array ? "[" : "");
        rc = rc ? rc : hk_buf_append(&j, head_items, head_len);
        rc = rc ? rc : hk_buf_appends(&j, comma ? "," : "");
        rc = rc ? rc : hk_buf_append(&j, text, len);
        rc = rc ? rc : hk_buf_appends(&j, array ? "]" : "");
        if (rc)
            rpc_call_error(c, rc, NULL);
        else
            rpc_call_reply_raw(c, j.data ? j.data : "", j.len);
        hk_buf_free(&j);
        release(arg);
        return;
    }
    struct hk_buf b;
    char *id = json_dumps(c->id, JSON_ENCODE_ANY | JSON_COMPACT);
    hk_buf_init(&b, (id ? strlen(id) : 0) + head_len + 64);
    int rc = id ? hk_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s", id, /* i18n: not for people */
                                array ? "[" : "")
                : HK_ENOMEM;
    rc = rc ? rc : hk_buf_append(&b, head_items, head_len);
    rc = rc ? rc : hk_buf_appends(&b, comma ? "," : "");
    hk_free(id);
    if (rc) {
        hk_buf_free(&b);
        release(arg);
    } else {
        size_t n = b.len;
        rc = c->r->send_parts(hk_buf_steal(&b), n, text, len, array ? "]}" : "}",
                              array ? 2 : 1, release, arg, c->r->send_ud);
    }
    if (rc == HK_ENOMEM) /* still answer, so the request gets its one response */
        send_error(c->r, c->id, RPC_INTERNAL_ERROR, hk_tr(HK_MSG_RPC_NO_MEMORY));
    else if (rc)
        HK_WARN("rpc: could not send a message: %s", hk_strerror(rc));
    call_finish(c);
}

void rpc_call_reply_lent(rpc_call *c, const char *text, size_t len, rpc_release_fn release,
                         void *arg)
{
    reply_lent(c, false, "", 0, text, len, release, arg);
}

void rpc_call_reply_lent_array(rpc_call *c, const char *head_items, size_t head_len,
                               const char *items, size_t len, rpc_release_fn release, void *arg)
{
    reply_lent(c, true, head_items, head_len, items, len, release, arg);
}

void rpc_call_error_code(rpc_call *c, int code, const char *msg)
{
    if (c->finished)
        return;
    if (c->id && !c->cancelled)
        send_error(c->r, c->id, code, msg);
    else if (!c->id)
        HK_WARN("rpc: notification %s failed: %s", c->method, msg ? msg : "error");
    call_finish(c);
}

void rpc_call_error(rpc_call *c, int hk_err, const char *msg)
{
    rpc_call_error_code(c, rpc_code_from_hk(hk_err), msg ? msg : hk_strerror_tr(hk_err));
}

/* ---- receiving ---- */

int rpc_check_depth(const char *s, size_t len, int max)
{
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (ch == '"') {
            /* Skip the string with memchr: a didOpen is mostly one long string (the
             * document), and a byte loop over it cost more than the rest of this. */
            size_t j = i + 1;
            for (;;) {
                const char *q = j < len ? memchr(s + j, '"', len - j) : NULL;
                if (!q)
                    return HK_OK; /* unterminated: the JSON parser rejects it */
                size_t k = (size_t)(q - s), bs = 0;
                while (k - bs > j && s[k - bs - 1] == '\\')
                    bs++;
                j = k + 1;
                if (bs % 2 == 0)
                    break; /* an even run of backslashes escapes none of the quote */
            }
            i = j - 1;
        } else if (ch == '[' || ch == '{') {
            if (++depth > max)
                return HK_ETOOBIG;
        } else if (ch == ']' || ch == '}') {
            depth--; /* unbalanced text is left to the JSON parser to reject */
        }
    }
    return HK_OK;
}

static struct method *find_method(rpc *r, const char *name)
{
    for (size_t i = 0; i < r->n_methods; i++)
        if (strcmp(r->methods[i].name, name) == 0)
            return &r->methods[i];
    return NULL;
}

static bool ids_equal(const json_t *a, const json_t *b)
{
    return a && b && json_equal((json_t *)a, (json_t *)b);
}

static void handle_cancel(rpc *r, json_t *params)
{
    json_t *id = params ? json_object_get(params, "id") : NULL;
    if (!id || (!json_is_integer(id) && !json_is_string(id))) {
        HK_DEBUG("rpc: $/cancelRequest without a usable id");
        return;
    }
    for (rpc_call *c = r->deferred; c; c = c->next) {
        if (!ids_equal(c->id, id) || c->cancelled || c->finished)
            continue;
        c->cancelled = true;
        send_error(r, c->id, RPC_REQUEST_CANCELLED, hk_tr(HK_MSG_RPC_CANCELLED));
        if (c->on_cancel)
            c->on_cancel(c, c->cancel_ud);
        return;
    }
    /* Already answered or unknown: the spec says to ignore it. */
}

static void handle_response(rpc *r, json_t *msg, json_t *id)
{
    if (!json_is_integer(id)) {
        HK_WARN("rpc: response with a non-integer id ignored");
        return;
    }
    int64_t want = json_integer_value(id);
    for (size_t i = 0; i < RPC_MAX_PENDING_OUT; i++) {
        struct out_req o = r->out[i];
        if (!o.used || o.id != want)
            continue;
        out_slot_release(&r->out[i]);
        r->n_out--;
        json_t *result = json_object_get(msg, "result");
        json_t *error = json_object_get(msg, "error");
        if (error)
            result = NULL;
        else if (!result)
            result = json_null(); /* a malformed reply still ends the wait */
        o.cb(r, HK_OK, result, error, o.ud);
        return;
    }
    HK_WARN("rpc: response to unknown request id %lld ignored", (long long)want);
}

static void dispatch(rpc *r, const char *method, json_t *id, json_t *params)
{
    bool is_request = id != NULL;
    uint64_t t0 = uv_hrtime();
    if (!is_request && strcmp(method, "$/cancelRequest") == 0) {
        handle_cancel(r, params);
        goto traced;
    }
    if (r->filter) {
        const char *why = NULL;
        int code = r->filter(method, is_request, &why, r->filter_ud);
        if (code) {
            if (is_request)
                send_error(r, id, code, why);
            else
                HK_DEBUG("rpc: notification %s dropped: %s", method, why ? why : "");
            goto traced;
        }
    }
    if (is_request) {
        for (rpc_call *c = r->deferred; c; c = c->next) {
            if (ids_equal(c->id, id) && !c->cancelled) {
                send_error(r, id, RPC_INVALID_REQUEST, hk_tr(HK_MSG_RPC_ID_IN_PROGRESS));
                goto traced;
            }
        }
    }
    struct method *m = find_method(r, method);
    if (!m) {
        if (is_request) {
            char *msg = hk_trf(HK_MSG_RPC_METHOD_NOT_FOUND, method);
            send_error(r, id, RPC_METHOD_NOT_FOUND, msg ? msg : hk_tr(HK_MSG_RPC_METHOD_NOT_FOUND_BARE));
            hk_free(msg);
        } else if (strncmp(method, "$/", 2) != 0) {
            HK_INFO("rpc: notification %s not handled", method);
        }
        goto traced;
    }
    rpc_call *c = hk_calloc(1, sizeof *c);
    char *name = c ? hk_strdup(method) : NULL;
    if (!c || !name) {
        hk_free(c);
        if (is_request)
            send_error(r, id, RPC_INTERNAL_ERROR, hk_tr(HK_MSG_RPC_NO_MEMORY));
        goto traced;
    }
    c->r = r;
    c->method = name;
    c->id = is_request ? json_incref(id) : NULL;
    c->in_handler = true;
    m->fn(c, params, m->ud);
    c->in_handler = false;
    if (c->finished) {
        call_free(c);
    } else if (!c->deferred) {
        if (is_request) {
            HK_ERROR("rpc: handler for %s returned without answering", method);
            send_error(r, id, RPC_INTERNAL_ERROR, hk_tr(HK_MSG_RPC_NO_ANSWER));
        }
        call_free(c);
    }
traced:
    if (r->trace)
        r->trace(method, is_request, (double)(uv_hrtime() - t0) / 1e6, r->trace_ud);
}

int rpc_decode(const char *body, size_t len, json_t **out, char *why, size_t why_len)
{
    *out = NULL;
    if (rpc_check_depth(body, len, RPC_MAX_DEPTH)) {
        snprintf(why, why_len, hk_tr(HK_MSG_RPC_TOO_DEEP), RPC_MAX_DEPTH);
        hk_utf8_trim(why);
        return HK_EPARSE;
    }
    json_error_t jerr;
    *out = json_loadb(body, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &jerr);
    if (!*out) {
        snprintf(why, why_len, hk_tr(HK_MSG_RPC_INVALID_JSON), jerr.text, jerr.position);
        hk_utf8_trim(why);
        return HK_EPARSE;
    }
    return HK_OK;
}

int rpc_feed(rpc *r, const char *body, size_t len)
{
    json_t *msg;
    char why[RPC_DECODE_WHY_MAX];
    int rc = rpc_decode(body, len, &msg, why, sizeof why);
    return rpc_feed_decoded(r, rc ? NULL : msg, why);
}

int rpc_feed_decoded(rpc *r, json_t *msg, const char *why)
{
    if (!msg)
        return send_error(r, NULL, RPC_PARSE_ERROR, why) == HK_ENOMEM ? HK_ENOMEM : HK_OK;
    if (json_is_array(msg)) {
        send_error(r, NULL, RPC_INVALID_REQUEST, hk_tr(HK_MSG_RPC_BATCH));
        goto out;
    }
    if (!json_is_object(msg)) {
        send_error(r, NULL, RPC_INVALID_REQUEST, hk_tr(HK_MSG_RPC_NOT_OBJECT));
        goto out;
    }
    json_t *id = json_object_get(msg, "id");
    json_t *method = json_object_get(msg, "method");
    json_t *params = json_object_get(msg, "params");
    /* "params": null is read as no params: LSP clients send it with shutdown and exit
     * (their params are void), and refusing it would leave the server running after exit */
    if (json_is_null(params))
        params = NULL;
    json_t *ver = json_object_get(msg, "jsonrpc");
    bool id_ok = id && (json_is_integer(id) || json_is_string(id));
    json_t *reply_id = id_ok ? id : NULL;
    if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0) {
        if (method || !id) /* never answer something that looks like a response */
            send_error(r, reply_id, RPC_INVALID_REQUEST, hk_tr(HK_MSG_RPC_JSONRPC_VERSION));
        goto out;
    }
    if (!method) {
        if (id && (json_object_get(msg, "result") || json_object_get(msg, "error")))
            handle_response(r, msg, id);
        else
            send_error(r, reply_id, RPC_INVALID_REQUEST, hk_tr(HK_MSG_RPC_NO_METHOD));
        goto out;
    }
    if (!json_is_string(method)) {
        send_error(r, reply_id, RPC_INVALID_REQUEST, hk_tr(HK_MSG_RPC_METHOD_NOT_STRING));
        goto out;
    }
    if (id && !id_ok) {
        send_error(r, NULL, RPC_INVALID_REQUEST, hk_tr(HK_MSG_RPC_ID_TYPE));
        goto out;
    }
    if (params && !json_is_object(params) && !json_is_array(params)) {
        if (id)
            send_error(r, id, RPC_INVALID_REQUEST, hk_tr(HK_MSG_RPC_PARAMS_TYPE));
        goto out;
    }
    if (json_string_length(method) != strlen(json_string_value(method))) {
        if (id)
            send_error(r, id, RPC_METHOD_NOT_FOUND, hk_tr(HK_MSG_RPC_METHOD_NUL));
        goto out;
    }
    dispatch(r, json_string_value(method), id, params);
out:
    json_decref(msg);
    return HK_OK;
}

/* ---- outgoing requests ---- */

static void out_timeout(uv_timer_t *t)
{
    struct out_timer *ot = t->data;
    rpc *r = ot->r;
    if (!r)
        return;
    for (size_t i = 0; i < RPC_MAX_PENDING_OUT; i++) {
        struct out_req o = r->out[i];
        if (!o.used || o.id != ot->id)
            continue;
        out_slot_release(&r->out[i]);
        r->n_out--;
        HK_WARN("rpc: request %lld to the client timed out", (long long)o.id);
        o.cb(r, HK_ETIMEDOUT, NULL, NULL, o.ud);
        return;
    }
}

int rpc_request(rpc *r, const char *method, json_t *params, unsigned timeout_ms,
                rpc_reply_fn cb, void *ud, int64_t *id_out)
{
    int rc = HK_OK;
    struct out_req *slot = NULL;
    struct out_timer *ot = NULL;
    json_t *m = NULL;
    if (r->n_out >= RPC_MAX_PENDING_OUT) {
        rc = HK_ETOOBIG;
        goto out;
    }
    for (size_t i = 0; i < RPC_MAX_PENDING_OUT && !slot; i++)
        if (!r->out[i].used)
            slot = &r->out[i];
    int64_t id = r->next_id++;
    if (r->loop) {
        ot = hk_calloc(1, sizeof *ot);
        if (!ot) {
            rc = HK_ENOMEM;
            goto out;
        }
        uv_timer_init(r->loop, &ot->t);
        ot->t.data = ot;
        ot->r = r;
        ot->id = id;
    }
    m = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)id, "method", method);
    if (!m) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (params) {
        json_object_set_new(m, "params", params);
        params = NULL;
    }
    rc = send_json(r, m);
    m = NULL;
    if (rc)
        goto out;
    *slot = (struct out_req){.used = true, .id = id, .cb = cb, .ud = ud, .timer = ot};
    r->n_out++;
    if (ot) {
        uv_timer_start(&ot->t, out_timeout, timeout_ms ? timeout_ms : RPC_DEFAULT_TIMEOUT_MS, 0);
        ot = NULL;
    }
    if (id_out)
        *id_out = id;
out:
    if (ot)
        uv_close((uv_handle_t *)&ot->t, timer_closed);
    json_decref(params);
    json_decref(m);
    return rc;
}

size_t rpc_pending_out(const rpc *r) { return r->n_out; }
size_t rpc_deferred_count(const rpc *r) { return r->n_deferred; }
