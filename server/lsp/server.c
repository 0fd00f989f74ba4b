/* Lifecycle of the server (initialize, initialized, shutdown, exit), the state gate in
 * front of every method, capability negotiation, tracing, and the routing of the events
 * the files below send up (route). The top of the module: the only file that calls every
 * other (docs/ARCHITECTURE.md, "Inside lsp/"). lsp_main wires it to stdio. Its functions
 * are the module's public API, lsp.h. */
#include "lsp/lsp.h"

#include "lsp/loopwatch.h"
#include "lsp/base.h"
#include "lsp/trust.h"
#include "lsp/config.h"
#include "lsp/textsync.h"
#include "lsp/diagnostics.h"
#include "lsp/episodes.h"
#include "lsp/features.h"
#include "lsp/actions.h"

#include "core/hk.h"
#include "core/i18n.h"
#include "transport/transport.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* ---- gate and trace ---- */

/* hyperkernel/loopStats: how long the loop's iterations have kept it from its I/O since
 * the start or the last reset (loopwatch.h); without a watch (libuv refused its metric)
 * iterations is 0. {"reset": true}: the figures start again after this reply, so that a
 * bench can read one kind of request's cost at a time. */
static void on_loop_stats(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    json_t *r = lsp_loopwatch_json(s->loopwatch);
    if (r && json_is_true(json_object_get(params, "reset")))
        lsp_loopwatch_reset(s->loopwatch);
    if (r)
        json_object_set_new(r, "watched", json_boolean(s->loopwatch != NULL));
    if (r)
        rpc_call_reply(call, r);
    else
        rpc_call_error(call, HK_ENOMEM, hk_tr(HK_MSG_LSP_ERR_OOM));
}

static int gate(const char *method, bool is_request, const char **msg, void *ud)
{
    struct lsp_server *s = ud;
    lsp_loopwatch_note(s->loopwatch, method);
    bool is_exit = strcmp(method, "exit") == 0;
    switch (s->state) {
    case LSP_UNINIT:
        if (strcmp(method, "initialize") == 0 || is_exit)
            return 0;
        *msg = hk_tr(HK_MSG_LSPX_NOT_INITIALIZED);
        return RPC_SERVER_NOT_INITIALIZED;
    case LSP_RUNNING:
        return 0;
    case LSP_SHUTDOWN:
        if (is_exit)
            return 0;
        *msg = hk_tr(HK_MSG_LSP_ERR_SHUTTING_DOWN);
        return RPC_INVALID_REQUEST;
    case LSP_EXITED:
        *msg = hk_tr(HK_MSG_LSP_ERR_EXITED);
        return RPC_INVALID_REQUEST;
    }
    return 0;
}

static void trace_cb(const char *method, bool is_request, double ms, void *ud)
{
    struct lsp_server *s = ud;
    HK_DEBUG("%s %s handled in %.3f ms", is_request ? "request" : "notification", method, ms);
    if (s->trace == 0 || s->state == LSP_EXITED || strcmp(method, "$/setTrace") == 0)
        return;
    char msg[320];
    snprintf(msg, sizeof msg,
             hk_tr(is_request ? HK_MSG_LSPX_TRACE_REQUEST : HK_MSG_LSPX_TRACE_NOTIFICATION), method, ms);
    hk_utf8_trim(msg);
    json_t *p = json_pack("{s:s}", "message", msg);
    if (p && s->trace == 2)
        json_object_set_new(p, "verbose", json_string(is_request ? "answered" : "processed"));
    rpc_notify(s->rpc, "$/logTrace", p);
}

static int parse_trace(const json_t *v)
{
    const char *t = json_string_value(v);
    if (!t)
        return -1;
    if (strcmp(t, "off") == 0)
        return 0;
    if (strcmp(t, "messages") == 0)
        return 1;
    if (strcmp(t, "verbose") == 0)
        return 2;
    return -1;
}

/* ---- lifecycle ---- */

static bool get_bool_path(json_t *o, const char *const *path)
{
    for (; *path && o; path++)
        o = json_object_get(o, *path);
    return json_is_true(o);
}

static void negotiate(struct lsp_server *s, json_t *caps)
{
    s->enc = DOC_UTF16;
    json_t *encs = json_object_get(json_object_get(caps, "general"), "positionEncodings");
    size_t i;
    json_t *e;
    json_array_foreach(encs, i, e) {
        if (json_is_string(e) && strcmp(json_string_value(e), "utf-8") == 0)
            s->enc = DOC_UTF8;
    }
    s->cl_hier_symbols = get_bool_path(
        caps, (const char *const[]){"textDocument", "documentSymbol",
                                    "hierarchicalDocumentSymbolSupport", NULL});
    json_t *fmts = json_object_get(
        json_object_get(json_object_get(caps, "textDocument"), "hover"), "contentFormat");
    s->cl_markdown = false;
    json_array_foreach(fmts, i, e) {
        if (json_is_string(e) && strcmp(json_string_value(e), "markdown") == 0)
            s->cl_markdown = true;
    }
    s->cl_apply_edit =
        get_bool_path(caps, (const char *const[]){"workspace", "applyEdit", NULL});
    s->cl_show_document = get_bool_path(
        caps, (const char *const[]){"window", "showDocument", "support", NULL});
    s->cl_progress =
        get_bool_path(caps, (const char *const[]){"window", "workDoneProgress", NULL});
    s->cl_diag_version = get_bool_path(
        caps, (const char *const[]){"textDocument", "publishDiagnostics", "versionSupport",
                                    NULL});
    s->cl_codelens_refresh = get_bool_path(
        caps, (const char *const[]){"workspace", "codeLens", "refreshSupport", NULL});
    s->cl_doc_changes = get_bool_path(
        caps, (const char *const[]){"workspace", "workspaceEdit", "documentChanges", NULL});
    s->cl_action_disabled = get_bool_path(
        caps, (const char *const[]){"textDocument", "codeAction", "disabledSupport", NULL});
}

static char *root_from_params(json_t *p)
{
    json_t *folders = json_object_get(p, "workspaceFolders");
    json_t *uri = json_object_get(p, "rootUri");
    if (json_is_array(folders) && json_array_size(folders) > 0)
        uri = json_object_get(json_array_get(folders, 0), "uri");
    if (json_is_string(uri))
        return lsp_uri_to_path(json_string_value(uri));
    json_t *path = json_object_get(p, "rootPath");
    if (json_is_string(path) && json_string_value(path)[0] == '/')
        return hk_strdup(json_string_value(path));
    return NULL;
}

/* "isTrusted" of the client's settings (VS Code's workspace.isTrusted): true trusts the
 * workspace for this session; absent leaves it as it was (VS Code cannot take trust back
 * without restarting the extension, and other clients never send it). False when the value
 * is not a boolean: the caller says so once the settings have chosen the language. */
static bool client_trust(struct lsp_server *s, json_t *settings)
{
    json_t *v = json_object_get(settings, "isTrusted");
    if (json_is_boolean(v))
        s->client_trusted = json_is_true(v);
    return !v || json_is_boolean(v);
}

static json_t *capabilities(struct lsp_server *s)
{
    json_t *caps = json_pack(
        "{s:s, s:{s:b, s:i, s:{s:b}}, s:b, s:b, s:{s:{s:b, s:b}}}", "positionEncoding",
        s->enc == DOC_UTF8 ? "utf-8" : "utf-16", "textDocumentSync", "openClose", 1, "change",
        2 /* incremental */, "save", "includeText", 0, "documentSymbolProvider", 1,
        "hoverProvider", 1, "workspace", "workspaceFolders", "supported", 1,
        "changeNotifications", 0);
    if (caps)
        lsp_ep_capabilities(caps); /* code actions, lenses, commands (actions.h) */
    return caps;
}

static void on_initialize(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    if (s->state != LSP_UNINIT) {
        rpc_call_error_code(call, RPC_INVALID_REQUEST, hk_tr(HK_MSG_LSP_ERR_INIT_TWICE));
        return;
    }
    if (!json_is_object(params)) {
        rpc_call_error_code(call, RPC_INVALID_PARAMS, hk_tr(HK_MSG_LSP_ERR_INIT_PARAMS));
        return;
    }
    json_t *caps = json_object_get(params, "capabilities");
    if (caps && !json_is_object(caps)) {
        rpc_call_error_code(call, RPC_INVALID_PARAMS, hk_tr(HK_MSG_LSP_ERR_CAPABILITIES));
        return;
    }
    negotiate(s, caps);
    int tr = parse_trace(json_object_get(params, "trace"));
    s->trace = tr < 0 ? 0 : tr;
    s->root = root_from_params(params);
    char canon[PATH_MAX];
    if (s->root && realpath(s->root, canon))
        s->root_canon = hk_strdup(canon);
    /* the client's UI language picks ours unless the settings name one (docs/i18n.md) */
    const char *locale = json_string_value(json_object_get(params, "locale"));
    if (locale)
        s->client_locale = hk_strndup(locale, strnlen(locale, 64));
    json_t *opts = json_object_get(params, "initializationOptions");
    bool trust_ok = true;
    if (json_is_object(opts)) {
        s->cfg_client_json = json_incref(opts);
        trust_ok = client_trust(s, opts);
    }
    s->state = LSP_RUNNING;
    if (!lsp_config_refresh_file(s)) /* it rebuilds the settings when it read the file */
        lsp_config_rebuild(s);
    if (!trust_ok)
        lsp_log_message(s, 2, "%s", hk_tr(HK_MSG_LSP_LOG_IS_TRUSTED));
    json_t *caps_out = capabilities(s);
    json_t *res = json_pack("{s:o, s:{s:s, s:s}}", "capabilities", caps_out, "serverInfo",
                            "name", "hkls", "version", HK_VERSION);
    rpc_call_reply(call, res);
    s->init_replied = true;
    HK_INFO("initialized: encoding %s, root %s (%s)", s->enc == DOC_UTF8 ? "utf-8" : "utf-16",
            s->root ? s->root : "(none)", lsp_trusted(s) ? "trusted" : "not trusted");
    lsp_trust_report(s); /* ignored keys of .hyperkernel.json, now that we may speak */
}

static void on_initialized(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    if (!s->grammar_ok) { /* an_grammar_check's words are English (kbuild quotes them) */
        char *said = hk_tr_said(hk_i18n_lang(), s->grammar_why);
        lsp_show_message(s, 1, hk_tr(HK_MSG_SHOW_ANALYSIS_OFF), said ? said : s->grammar_why);
        hk_free(said);
    }
    rpc_call_reply(call, NULL);
}

static void has_waiters(doc *d, void *ud)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (ld && ld->waiters)
        *(bool *)ud = true;
}

static bool analysis_waited_for(struct lsp_server *s)
{
    bool any = false;
    doc_store_foreach(s->docs, has_waiters, &any);
    return any;
}

static void on_shutdown(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    lsp_diag_cancel_all(s);
    s->state = LSP_SHUTDOWN;
    if (!s->shutdown_call && analysis_waited_for(s)) {
        /* earlier requests wait for a parse on the pool: they are answered first */
        rpc_call_defer(call);
        s->shutdown_call = call;
        return;
    }
    rpc_call_reply(call, NULL);
}

static void finish(struct lsp_server *s, int code);

/* A document's waiting requests were answered (textsync.c, LSP_EV_ANALYSIS_DRAINED). A
 * shutdown that waited for them is answered once no document has any, and an exit that
 * came after it is carried out then: requests sent before shutdown get their replies
 * first. */
static void analysis_drained(struct lsp_server *s)
{
    if (!s->shutdown_call || analysis_waited_for(s))
        return;
    rpc_call *call = s->shutdown_call;
    s->shutdown_call = NULL;
    rpc_call_reply(call, NULL);
    if (s->exit_due)
        finish(s, 0);
}

static void finish(struct lsp_server *s, int code)
{
    if (s->state == LSP_EXITED)
        return;
    if (s->shutdown_call && !s->stopped) { /* after the replies shutdown waits for */
        s->exit_due = true;
        return;
    }
    s->exit_code = code;
    s->state = LSP_EXITED;
    lsp_server_stop(s);
    if (s->on_exit)
        s->on_exit(code, s->exit_ud);
}

static void on_exit_notification(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    rpc_call_reply(call, NULL);
    finish(s, s->state == LSP_SHUTDOWN ? 0 : 1);
}

static void on_set_trace(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    int tr = parse_trace(json_object_get(params, "value"));
    if (tr < 0)
        HK_WARN("$/setTrace: value must be off, messages or verbose");
    else
        s->trace = tr;
    rpc_call_reply(call, NULL);
}

static void on_did_change_configuration(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    json_t *settings = json_object_get(params, "settings");
    json_t *mine = json_object_get(settings, "hyperkernel");
    if (json_is_object(mine))
        settings = mine;
    json_decref(s->cfg_client_json);
    s->cfg_client_json = json_is_object(settings) ? json_incref(settings) : NULL;
    bool trust_ok = client_trust(s, s->cfg_client_json);
    lsp_config_rebuild(s);
    if (!trust_ok)
        lsp_log_message(s, 2, "%s", hk_tr(HK_MSG_LSP_LOG_IS_TRUSTED));
    rpc_call_reply(call, NULL);
}

/* ---- events from the files below (lsp_emit) ---- */

static void recheck_doc(doc *d, void *ud) { lsp_diag_schedule(ud, d, 0); }

/* Where each event goes: the files that act on it, which the file that sends it may not
 * call (docs/ARCHITECTURE.md, "Inside lsp/"). */
static void route(struct lsp_server *s, enum lsp_event ev, doc *d, const char *str)
{
    switch (ev) {
    case LSP_EV_RECHECK_ALL:
        if (s->docs)
            doc_store_foreach(s->docs, recheck_doc, s);
        break;
    case LSP_EV_TRUST_CHANGED:
        lsp_config_rebuild(s);
        break;
    case LSP_EV_DOC_OPENED:
        lsp_diag_schedule(s, d, -1);
        lsp_ep_doc_opened(s, d);
        break;
    case LSP_EV_DOC_CHANGED:
        lsp_diag_schedule(s, d, -1);
        break;
    case LSP_EV_DOC_SAVED:
        if (str)
            lsp_ep_spec_saved(s, str);
        if (d)
            lsp_diag_schedule(s, d, 0);
        break;
    case LSP_EV_DOC_CLOSED:
        lsp_diag_clear_uri(s, str);
        break;
    case LSP_EV_MODEL_FOR_RESULTS:
        lsp_ep_doc_opened(s, d);
        break;
    case LSP_EV_LENSES_STALE:
        lsp_doc_lenses_stale(s);
        break;
    case LSP_EV_ANALYSIS_DRAINED:
        analysis_drained(s);
        break;
    }
}

/* ---- the embedding API ---- */

int lsp_server_new(uv_loop_t *loop, lsp_send_fn send, void *send_ud, lsp_server **out)
{
    int rc = HK_ENOMEM;
    struct lsp_server *s = hk_calloc(1, sizeof *s);
    if (!s)
        return HK_ENOMEM;
    s->loop = loop;
    s->send = send;
    s->send_ud = send_ud;
    s->enc = DOC_UTF16;
    s->on_event = route;
    if (lsp_loopwatch_start(loop, &s->loopwatch) == HK_ENOMEM)
        goto out;
    lsp_config_init(&s->cfg);
    if (rpc_new(loop, send, send_ud, &s->rpc))
        goto out;
    if (doc_store_new(0, &s->docs))
        goto out;
    rpc_set_filter(s->rpc, gate, s);
    rpc_set_trace(s->rpc, trace_cb, s);
    static const struct {
        const char *name;
        rpc_method_fn fn;
    } methods[] = {
        {"initialize", on_initialize},
        {"initialized", on_initialized},
        {"shutdown", on_shutdown},
        {"exit", on_exit_notification},
        {"$/setTrace", on_set_trace},
        {"workspace/didChangeConfiguration", on_did_change_configuration},
        {"hyperkernel/loopStats", on_loop_stats},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(methods); i++)
        if (rpc_register(s->rpc, methods[i].name, methods[i].fn, s))
            goto out;
    lsp_register_textsync(s);
    lsp_register_features(s);
    lsp_trust_load(s); /* startup: the loop does not run yet */
    if (lsp_ep_init(s))
        goto out;
    lsp_ep_register(s);
    s->grammar_ok = an_grammar_check(&s->grammar_why) == HK_OK;
    if (!s->grammar_ok)
        HK_ERROR("tree-sitter grammar unusable: %s", s->grammar_why);
    *out = s;
    return HK_OK;
out:
    lsp_server_free(s);
    return rc;
}

void lsp_server_set_exit_cb(lsp_server *s, lsp_exit_fn fn, void *ud)
{
    s->on_exit = fn;
    s->exit_ud = ud;
}

void lsp_server_set_send_owned(lsp_server *s, lsp_send_owned_fn fn)
{
    rpc_set_send_owned(s->rpc, fn);
}

void lsp_server_set_send_parts(lsp_server *s, rpc_send_parts_fn fn)
{
    rpc_set_send_parts(s->rpc, fn);
}

void lsp_server_disable_compiles(lsp_server *s) { s->compiles_disabled = true; }

/* ---- input ----
 * A message of LSP_DECODE_POOL_BYTES or more (a didOpen of a large file: decoding the
 * 742 KB one took 13-30 ms) is decoded on the libuv pool; the messages after it queue
 * behind it and are handled in arrival order once it is (small ones decoded then, on the
 * loop). The end of input waits for the queue too. */
#define LSP_DECODE_POOL_BYTES ((size_t)64 << 10)

struct lsp_inmsg {
    uv_work_t req;
    struct lsp_inmsg *next;
    struct lsp_server *s;  /* NULL once the server is freed: the decode frees itself */
    char *body;            /* owned copy; freed once decoded */
    size_t len;
    bool on_pool;          /* decoded on the pool (else on the loop when its turn comes) */
    bool decoded;
    json_t *msg;           /* new reference, or NULL with why */
    struct lsp_text_prep *prep; /* its document text made ready on the pool, or NULL */
    char why[RPC_DECODE_WHY_MAX];
};

static void inmsg_free(struct lsp_inmsg *m)
{
    hk_free(m->body);
    json_decref(m->msg);
    lsp_text_prep_free(m->prep);
    hk_free(m);
}

/* Handles the queued messages whose turn it is, in order, up to one still on the pool. */
static void input_drain(struct lsp_server *s)
{
    while (s->in_head && (!s->in_head->on_pool || s->in_head->decoded)) {
        struct lsp_inmsg *m = s->in_head;
        s->in_head = m->next;
        if (!s->in_head)
            s->in_tail = NULL;
        if (s->state != LSP_EXITED && !s->stopped) {
            if (m->on_pool) {
                json_t *msg = m->msg;
                m->msg = NULL;
                s->in_prep = m->prep; /* lent to the handler, which may take it */
                m->prep = NULL;
                if (rpc_feed_decoded(s->rpc, msg, m->why) == HK_ENOMEM)
                    HK_ERROR("out of memory handling a message");
                lsp_text_prep_free(s->in_prep); /* not taken: dropped */
                s->in_prep = NULL;
            } else if (rpc_feed(s->rpc, m->body, m->len) == HK_ENOMEM) {
                HK_ERROR("out of memory handling a message");
            }
        }
        inmsg_free(m);
    }
    if (!s->in_head && s->input_closed_due) {
        s->input_closed_due = false;
        lsp_server_input_closed(s);
    }
}

static void decode_work(uv_work_t *req)
{
    hk_thread_background();
    struct lsp_inmsg *m = req->data;
    if (rpc_decode(m->body, m->len, &m->msg, m->why, sizeof m->why) != HK_OK)
        m->msg = NULL;
    hk_free(m->body); /* the decoded message is all that is needed now */
    m->body = NULL;
    if (m->msg) /* a document's text: its copy made here rather than on the loop */
        m->prep = lsp_text_prep_new(m->msg);
}

static void decode_after(uv_work_t *req, int status)
{
    struct lsp_inmsg *m = req->data;
    if (!m->s) { /* the server was freed meanwhile */
        inmsg_free(m);
        return;
    }
    if (status && !m->msg)
        snprintf(m->why, sizeof m->why, "%s", hk_tr(HK_MSG_LSP_ERR_NOT_DECODED));
    lsp_loopwatch_note(m->s->loopwatch, "(decode done)");
    m->decoded = true;
    input_drain(m->s);
}

/* Frees the queue at lsp_server_free; a message still on the pool frees itself. */
static void input_free(struct lsp_server *s)
{
    while (s->in_head) {
        struct lsp_inmsg *m = s->in_head;
        s->in_head = m->next;
        if (m->on_pool && !m->decoded)
            m->s = NULL;
        else
            inmsg_free(m);
    }
    s->in_tail = NULL;
}

/* body: borrowed, or owned (stolen) when owned is true. */
static int feed(lsp_server *s, char *body, size_t len, bool owned)
{
    int rc = HK_OK;
    struct lsp_inmsg *m = NULL;
    if (s->state == LSP_EXITED)
        goto out;
    HK_TRACE("<- %.*s", len > 2000 ? 2000 : (int)len, body);
    bool big = len >= LSP_DECODE_POOL_BYTES && s->loop;
    if (big) /* the iteration that read it (the read itself is the transport's) */
        lsp_loopwatch_note(s->loopwatch, "(large message read)"); /* i18n: not for people (loopStats' label) */
    if (!big && !s->in_head) {
        rc = rpc_feed(s->rpc, body, len);
        goto out;
    }
    m = hk_calloc(1, sizeof *m);
    if (m && owned) {
        m->body = body;
        body = NULL;
    } else if (m && (m->body = hk_malloc(len + 1)) != NULL) {
        memcpy(m->body, body, len);
        m->body[len] = '\0';
    }
    if (!m || !m->body) {
        hk_free(m);
        rc = s->in_head ? HK_ENOMEM : rpc_feed(s->rpc, body, len);
        goto out;
    }
    m->len = len;
    m->s = s;
    m->req.data = m;
    m->on_pool = big && uv_queue_work(s->loop, &m->req, decode_work, decode_after) == 0;
    if (s->in_tail)
        s->in_tail->next = m;
    else
        s->in_head = m;
    s->in_tail = m;
    input_drain(s); /* a small one behind nothing, or a big one the pool refused */
out:
    if (owned)
        hk_free(body);
    return rc;
}

int lsp_server_feed(lsp_server *s, const char *body, size_t len)
{
    return feed(s, (char *)body, len, false);
}

int lsp_server_feed_owned(lsp_server *s, char *body, size_t len)
{
    return feed(s, body, len, true);
}

void lsp_server_framing_error(lsp_server *s, int err, const char *msg)
{
    HK_WARN("framing: %s", msg);
    if (s->state == LSP_EXITED)
        return;
    rpc_send_error(s->rpc, NULL, err == HK_ETOOBIG ? RPC_INVALID_REQUEST : RPC_PARSE_ERROR, msg);
}

void lsp_server_input_closed(lsp_server *s)
{
    if (s->in_head) { /* after the messages that came before the end */
        s->input_closed_due = true;
        return;
    }
    if (s->state != LSP_EXITED)
        HK_INFO("input closed by the client%s",
                s->state == LSP_SHUTDOWN ? "" : " without shutdown");
    finish(s, s->state == LSP_SHUTDOWN ? 0 : 1);
}

bool lsp_server_exited(const lsp_server *s) { return s->state == LSP_EXITED; }
int lsp_server_exit_code(const lsp_server *s) { return s->exit_code; }

static void free_doc_state(doc *d, void *ud)
{
    struct lsp_server *s = ud;
    struct lsp_doc *ld = lsp_doc_of(d);
    if (ld)
        lsp_doc_state_free(s, ld);
    doc_set_user(d, NULL);
}

void lsp_server_stop(lsp_server *s)
{
    if (s->stopped)
        return;
    s->stopped = true;
    /* closed here, not in lsp_server_free: the caller's next loop run frees it */
    lsp_loopwatch_stop(s->loopwatch);
    s->loopwatch = NULL;
    if (s->rpc)
        rpc_cancel_outgoing(s->rpc);
    if (s->docs)
        doc_store_foreach(s->docs, free_doc_state, s);
    lsp_ep_stop(s);
}

void lsp_server_free(lsp_server *s)
{
    if (!s)
        return;
    lsp_server_stop(s);
    input_free(s);
    rpc_free(s->rpc);
    lsp_ep_free(s);
    doc_store_free(s->docs);
    lsp_config_free(&s->cfg);
    lsp_ccdb_free(&s->ccdb);
    json_decref(s->cfg_file_json);
    hk_free(s->cfg_file_text);
    json_decref(s->cfg_client_json);
    hk_strv_free(s->trusted_folders);
    hk_free(s->root_canon);
    hk_free(s->untrusted_keys);
    hk_free(s->root);
    hk_free(s->client_locale);
    hk_free(s);
}

/* ---- stdio host ---- */

struct host {
    uv_loop_t loop;
    tr_conn *conn;
    lsp_server *srv;
    uv_signal_t sigterm, sigint;
    bool signals_open;
    int code;
    bool done;
};

static int host_send(const char *body, size_t len, void *ud)
{
    struct host *h = ud;
    if (!h->conn)
        return HK_EIO;
    HK_TRACE("-> %.*s", len > 2000 ? 2000 : (int)len, body);
    return tr_conn_send(h->conn, body, len);
}

static int host_send_owned(char *body, size_t len, void *ud)
{
    struct host *h = ud;
    if (!h->conn) {
        hk_free(body);
        return HK_EIO;
    }
    HK_TRACE("-> %.*s", len > 2000 ? 2000 : (int)len, body);
    return tr_conn_send_owned(h->conn, body, len);
}

static void host_message(const char *body, size_t len, void *ud)
{
    struct host *h = ud;
    if (lsp_server_feed(h->srv, body, len) == HK_ENOMEM)
        HK_ERROR("out of memory handling a message");
}

static int host_send_parts(char *head, size_t head_len, const char *lent, size_t lent_len,
                           const char *tail, size_t tail_len, rpc_release_fn release, void *arg,
                           void *ud)
{
    struct host *h = ud;
    if (!h->conn) {
        hk_free(head);
        release(arg);
        return HK_EIO;
    }
    return tr_conn_send_parts(h->conn, head, head_len, lent, lent_len, tail, tail_len, release,
                              arg);
}

static void host_owned_message(char *body, size_t len, void *ud)
{
    struct host *h = ud;
    if (lsp_server_feed_owned(h->srv, body, len) == HK_ENOMEM)
        HK_ERROR("out of memory handling a message");
}

static void host_framing_error(int err, const char *msg, void *ud)
{
    struct host *h = ud;
    lsp_server_framing_error(h->srv, err, msg);
}

static void host_eof(int err, void *ud)
{
    struct host *h = ud;
    lsp_server_input_closed(h->srv);
}

static void host_exit(int code, void *ud)
{
    struct host *h = ud;
    h->code = code;
    h->done = true;
    if (h->signals_open) {
        h->signals_open = false;
        uv_close((uv_handle_t *)&h->sigterm, NULL);
        uv_close((uv_handle_t *)&h->sigint, NULL);
    }
    if (h->conn) {
        tr_conn_close(h->conn); /* lets queued replies drain first */
        h->conn = NULL;
    }
}

/* SIGTERM / SIGINT (an editor giving up on us): end like a closed input, so compile
 * jobs are killed with their process groups instead of being orphaned. */
static void host_signal(uv_signal_t *sig, int signum)
{
    struct host *h = sig->data;
    HK_WARN("terminated by signal %d", signum);
    lsp_server_input_closed(h->srv);
}

static void close_walk(uv_handle_t *hd, void *arg)
{
    if (!uv_is_closing(hd))
        uv_close(hd, NULL);
}

int lsp_main(const struct lsp_opts *o)
{
    int code = 2;
    struct host h = {.code = 1};
    enum hk_log_level lv = HK_LOG_WARN;
    if (o->log_level && hk_log_parse_level(o->log_level, &lv)) {
        fprintf(stderr, hk_tr(HK_MSG_LSPX_BAD_LOG_LEVEL),
                o->log_level);
        return 2;
    }
    if (hk_log_open(o->log_path, lv)) {
        fprintf(stderr, hk_tr(HK_MSG_LSPX_CANNOT_OPEN_LOG), o->log_path);
        return 2;
    }
    /* A client that goes away must not kill us with SIGPIPE mid-write. */
    signal(SIGPIPE, SIG_IGN);
    hk_alloc_init_json();
#ifdef __GLIBC__
    /* Large blocks (a 742 KB didOpen, the 1.1 MB documentSymbol reply framed for the
     * write) are made and freed at every request: from fresh mmaps, or from heap top
     * that glibc trims and grows again, each costs hundreds of page faults, which made
     * the loop's part of an edit + documentSymbol 4-9 ms (p99 20 ms wall) under load.
     * Kept in the heap they are reused; memory is still given back after a didClose
     * (malloc_trim, textsync.c). */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
    if (uv_loop_init(&h.loop)) {
        HK_ERROR("cannot create the event loop");
        goto out_log;
    }
    if (lsp_server_new(&h.loop, host_send, &h, &h.srv)) {
        HK_ERROR("cannot create the server (out of memory)");
        goto out_loop;
    }
    h.srv->cli_log_level = o->log_level != NULL;
    lsp_server_set_exit_cb(h.srv, host_exit, &h);
    lsp_server_set_send_owned(h.srv, host_send_owned);
    lsp_server_set_send_parts(h.srv, host_send_parts);
    struct tr_conn_cbs cbs = {host_message, host_framing_error, host_eof, &h,
                              host_owned_message};
    if (tr_conn_open(&h.loop, o->in_fd, o->out_fd, 0, &cbs, &h.conn)) {
        HK_ERROR("cannot open stdio");
        goto out_srv;
    }
    if (uv_signal_init(&h.loop, &h.sigterm) == 0 && uv_signal_init(&h.loop, &h.sigint) == 0) {
        h.sigterm.data = h.sigint.data = &h;
        uv_signal_start(&h.sigterm, host_signal, SIGTERM);
        uv_signal_start(&h.sigint, host_signal, SIGINT);
        uv_unref((uv_handle_t *)&h.sigterm); /* they must not keep the loop alive */
        uv_unref((uv_handle_t *)&h.sigint);
        h.signals_open = true;
    }
    HK_INFO("hkls %s started (pid %d)", HK_VERSION, (int)uv_os_getpid());
    uv_run(&h.loop, UV_RUN_DEFAULT);
    code = h.done ? h.code : 1;
out_srv:
    if (h.conn) {
        tr_conn_close(h.conn);
        h.conn = NULL;
    }
    if (h.srv)
        lsp_server_stop(h.srv);
    uv_run(&h.loop, UV_RUN_DEFAULT); /* compile jobs report their cancellation */
    lsp_server_free(h.srv);
    uv_walk(&h.loop, close_walk, NULL);
    uv_run(&h.loop, UV_RUN_DEFAULT);
out_loop:
    if (uv_loop_close(&h.loop))
        HK_WARN("event loop closed with handles still open");
out_log:
    HK_INFO("hkls exiting with code %d", code);
    hk_log_close();
    return code;
}
