/* Optimization workers and their results in the server: each episode runs as `hkls
 * optimize --events` in its own process group; its stdout lines (JSON events) drive the
 * work-done progress and hyperkernel/episodeChanged; its end is read back from the SQLite
 * store. Every store read runs on the libuv pool with its own connection (lsp_ep_query),
 * so the loop only ever handles cached JSON: code actions, lenses, hover and the result
 * diagnostics answer from the per-file cache that those reads fill. */
#include "lsp/episodes.h"

#include "lsp/loopwatch.h"
#include "lsp/base.h"
#include "lsp/trust.h"
#include "lsp/textsync.h"
#include "lsp/diagnostics.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/strv.h"
#include "episode/apply.h"
#include "episode/episode.h"
#include "report/report.h"
#include "spec/infer.h"
#include "runners/child.h"
#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- pure helpers ---- */

int lsp_ep_change_view(json_t *c, ep_change *out)
{
    memset(out, 0, sizeof *out);
    out->start = (size_t)json_integer_value(json_object_get(c, "start"));
    out->end = (size_t)json_integer_value(json_object_get(c, "end"));
    out->new_text = (char *)json_string_value(json_object_get(c, "new_text"));
    out->after = (char *)json_string_value(json_object_get(c, "after"));
    return ep_change_kind_parse(json_string_value(json_object_get(c, "kind")), &out->kind);
}

long lsp_ep_find(const char *hay, size_t len, const char *needle, size_t n, size_t from)
{
    if (n == 0 || from > len || n > len - from)
        return -1;
    const char *p = memmem(hay + from, len - from, needle, n);
    return p ? (long)(p - hay) : -1;
}

/* ---- state ---- */

struct ep_run;

struct ep_waiter {
    struct ep_waiter *next;
    char *path;
    rpc_call *call;
    json_t *params;            /* new reference */
    lsp_ep_retry_fn retry;
};

struct lsp_eps {
    struct ep_run *runs;
    size_t n_running;
    unsigned serial;
    size_t n_queries;
    bool stopped;
    bool marked;               /* store_mark_interrupted ran for this server */
    json_t *files;             /* path -> {"loading":true} | {"data":{...}}; new reference */
    struct ep_waiter *waiters;
    /* optimizations waiting for their inferred draft spec to be saved:
     * spec path -> {uri, kernel, target, engine}; new reference */
    json_t *pending;
};

static char *db_path(struct lsp_server *s)
{
    if (s->cfg.ep.db)
        return hk_strdup(s->cfg.ep.db);
    char *p = NULL;
    return ep_default_db_path(&p) == HK_OK ? p : NULL;
}

/* ---- queries on the pool ---- */

struct ep_query {
    uv_work_t req;
    struct lsp_server *s;
    char *db;
    bool mark;
    lsp_ep_query_fn fn;
    lsp_ep_done_fn done;
    void *arg;
    void (*free_arg)(void *);
    int rc;
    json_t *out;
    char *msg;
};

static void query_work(uv_work_t *req)
{
    hk_thread_background();
    struct ep_query *q = req->data;
    store *st = NULL;
    char err[256] = "";
    /* Reading must not create the database (a hover in a fresh workspace would): with no
     * file yet there is no history, which an empty in-memory store answers the same. */
    bool exists = access(q->db, F_OK) == 0;
    q->rc = store_open_ex(exists ? q->db : ":memory:", 0, &st, err, sizeof err);
    if (q->rc) {
        q->msg = hk_asprintf(hk_tr(HK_MSG_LSP_ERR_DB_OPEN), q->db,
                             err[0] ? err : hk_strerror_tr(q->rc));
        return;
    }
    if (q->mark && exists && store_mark_interrupted(st, NULL))
        HK_WARN("episodes: marking interrupted episodes: %s", store_errmsg(st));
    q->rc = q->fn(st, q->arg, &q->out, &q->msg);
    store_close(st);
}

static void query_after(uv_work_t *req, int status)
{
    struct ep_query *q = req->data;
    struct lsp_server *s = q->s;
    lsp_loopwatch_note(s->loopwatch, "(store query done)"); /* i18n: not for people (loopStats' label) */
    s->eps->n_queries--;
    int rc = status == UV_ECANCELED ? HK_ECANCELED : q->rc;
    json_t *out = status == UV_ECANCELED ? NULL : q->out;
    if (status == UV_ECANCELED)
        json_decref(q->out);
    q->done(s, rc, out, q->msg, q->arg);
    if (q->free_arg)
        q->free_arg(q->arg);
    hk_free(q->msg);
    hk_free(q->db);
    hk_free(q);
}

int lsp_ep_query(struct lsp_server *s, lsp_ep_query_fn fn, lsp_ep_done_fn done, void *arg,
                 void (*free_arg)(void *))
{
    int rc = HK_ENOMEM;
    struct ep_query *q = NULL;
    if (!s->eps || s->eps->stopped || !s->loop) {
        rc = HK_ESTATE;
        goto fail;
    }
    q = hk_calloc(1, sizeof *q);
    if (!q || !(q->db = db_path(s)))
        goto fail;
    q->req.data = q;
    q->s = s;
    q->fn = fn;
    q->done = done;
    q->arg = arg;
    q->free_arg = free_arg;
    q->mark = !s->eps->marked;
    if (uv_queue_work(s->loop, &q->req, query_work, query_after)) {
        rc = HK_EIO;
        goto fail;
    }
    s->eps->marked = true;
    s->eps->n_queries++;
    return HK_OK;
fail:
    if (q)
        hk_free(q->db);
    hk_free(q);
    if (free_arg)
        free_arg(arg);
    return rc;
}

/* ---- workers ---- */

struct ep_run {
    struct lsp_server *s;
    struct ep_run *next;
    runner_child *child;       /* the worker, until its one report */
    int refs;                  /* pending replies and queries that hold it */
    bool listed;               /* in s->eps->runs */
    bool finished, cancel;
    bool running_told;         /* a "running" episodeChanged went out */
    bool gpu_missing;          /* stopped by the server: the worker found no GPU */
    char *gpu_why;
    int64_t exit_status;
    int term_signal;
    int pid;
    int64_t episode;           /* store id, 0 until known */
    bool id_query_busy;
    int64_t started_ms;
    char *uri, *path, *kernel, *target, *engine, *token;
    rpc_call *call;            /* deferred hyperkernel.optimize, or NULL once answered */
    bool progress_wait, progress_ok, progress_end;
    int percent, sent_percent;
    char stage[32];
    char message[512];
    char *spec_note;           /* what an inferred spec guessed, until a progress message has
                                * said it: the client may accept the token only after later
                                * stages have replaced message (the Neovim flow test saw it) */
    json_t *done_ev;           /* the worker's "done" event (new reference) */
    char *draft_path;          /* the worker's "spec" event: a draft that needs checking */
    char *draft_why;           /* its reasons, joined */
    char *end_status, *end_error;
    bool no_gpu;
    json_t *held_logs;         /* the worker's log lines from before its store id was known,
                                * [type, text] each: relayed once the id is there, so that
                                * none says "episode 0" */
    /* event lines said on the pool (ev_batch): those that came while a batch was out, in
     * order; the worker's end, when it came while lines were out or waiting */
    struct ev_line *ev_q;
    size_t ev_n, ev_cap;
    bool ev_out;
    bool end_waits;
    char *end_err_tail;
};

static void run_maybe_free(struct ep_run *r)
{
    if (r->child || r->refs > 0 || r->listed)
        return;
    json_decref(r->done_ev);
    json_decref(r->held_logs);
    hk_free(r->ev_q); /* empty: lines wait only while a batch holds a reference */
    hk_free(r->end_err_tail);
    hk_free(r->spec_note);
    hk_free(r->draft_path);
    hk_free(r->draft_why);
    hk_free(r->uri);
    hk_free(r->path);
    hk_free(r->kernel);
    hk_free(r->target);
    hk_free(r->engine);
    hk_free(r->token);
    hk_free(r->end_status);
    hk_free(r->end_error);
    hk_free(r->gpu_why);
    hk_free(r);
}

static void run_unref(struct ep_run *r)
{
    r->refs--;
    run_maybe_free(r);
}

static bool is_running(const struct ep_run *r) { return !r->finished; }

/* A worker's log line in the editor's log, prefixed with the episode and kernel. Before the
 * store id is known (its query runs on the pool, and under load the worker's first lines
 * come before it answers) lines are held, at most HELD_LOGS_MAX of them, and relayed in
 * order by flush_held_logs. */
#define HELD_LOGS_MAX 256
static void relay_log(struct ep_run *r, int type, const char *text)
{
    if (r->s->eps->stopped || r->s->state != LSP_RUNNING)
        return;
    if (!r->episode) {
        if (!r->held_logs)
            r->held_logs = json_array();
        if (r->held_logs && json_array_size(r->held_logs) < HELD_LOGS_MAX)
            json_array_append_new(r->held_logs, json_pack("[is]", type, text));
        return;
    }
    lsp_log_message(r->s, type, hk_tr(HK_MSG_LSP_LOG_EPISODE), (long long)r->episode, r->kernel,
                    text);
}

/* The held lines, once the id is known (or the worker has ended without one: then they go
 * out with the number the run has, 0 at worst, rather than not at all). */
static void flush_held_logs(struct ep_run *r)
{
    json_t *held = r->held_logs;
    r->held_logs = NULL;
    size_t i;
    json_t *x;
    json_array_foreach(held, i, x) {
        if (r->s->eps->stopped || r->s->state != LSP_RUNNING)
            break;
        lsp_log_message(r->s, (int)json_integer_value(json_array_get(x, 0)),
                        hk_tr(HK_MSG_LSP_LOG_EPISODE), (long long)r->episode, r->kernel,
                        json_string_value(json_array_get(x, 1)));
    }
    json_decref(held);
}

static json_t *run_changed_json(const struct ep_run *r, const char *status)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:s}", "kernel", r->kernel, "uri", r->uri,
                          "status", status, "stage", r->stage[0] ? r->stage : "init",
                          "percent", r->percent, "message", r->message);
    if (o)
        json_object_set_new(o, "episode", r->episode ? json_integer(r->episode) : json_null());
    if (o && r->token)
        json_object_set_new(o, "token", json_string(r->token));
    return o;
}

static void notify_changed(struct ep_run *r, const char *status)
{
    struct lsp_server *s = r->s;
    if (s->eps->stopped || s->state != LSP_RUNNING)
        return;
    /* clients key their lists by episode id: say nothing until it is known (an episode
     * that fails before having one is told by the command's error reply) */
    if (!r->episode)
        return;
    /* an episode that ends before its first "running" is still shown as started first:
     * clients (status bars, lists) then see it come and go rather than only its end */
    if (strcmp(status, "running") && !r->running_told)
        rpc_notify(s->rpc, "hyperkernel/episodeChanged", run_changed_json(r, "running"));
    r->running_told = true;
    rpc_notify(s->rpc, "hyperkernel/episodeChanged", run_changed_json(r, status));
}

static void progress_send(struct ep_run *r, const char *kind)
{
    struct lsp_server *s = r->s;
    if (!r->progress_ok || r->progress_end || s->eps->stopped || s->state != LSP_RUNNING)
        return;
    json_t *v = NULL;
    if (!strcmp(kind, "begin")) {
        char title[300];
        snprintf(title, sizeof title, hk_tr(HK_MSG_PROGRESS_TITLE), r->kernel, r->target);
        /* the spec's guesses first, if no message has said them yet */
        v = json_pack("{s:s, s:s, s:b, s:s, s:i}", "kind", "begin", "title", title,
                      "cancellable", 1, "message", r->spec_note ? r->spec_note : r->message,
                      "percentage", r->percent);
        r->sent_percent = r->percent;
        bool later = r->spec_note && strcmp(r->spec_note, r->message) != 0;
        hk_free(r->spec_note);
        r->spec_note = NULL;
        rpc_notify(s->rpc, "$/progress", json_pack("{s:s, s:o}", "token", r->token, "value", v));
        if (later) /* and then where the episode is now */
            progress_send(r, "report");
        return;
    } else if (!strcmp(kind, "report")) {
        /* percentages only rise */
        if (r->percent < r->sent_percent)
            r->percent = r->sent_percent;
        v = json_pack("{s:s, s:s, s:i}", "kind", "report", "message", r->message,
                      "percentage", r->percent);
        r->sent_percent = r->percent;
    } else {
        v = json_pack("{s:s, s:s}", "kind", "end", "message", r->message);
        r->progress_end = true;
    }
    rpc_notify(s->rpc, "$/progress", json_pack("{s:s, s:o}", "token", r->token, "value", v));
}

static void progress_created(rpc *rp, int status, json_t *result, json_t *error, void *ud)
{
    struct ep_run *r = ud;
    r->progress_wait = false;
    if (status == HK_OK && !error && !r->s->eps->stopped) {
        r->progress_ok = true;
        if (!r->finished) {
            progress_send(r, "begin");
        }
        /* An episode that ended before the client answered: its token is unused and
         * nothing is shown; the end is still told by episodeChanged and the result. */
    } else {
        HK_INFO("episode progress: the client refused the token (%s)",
                status == HK_OK ? "error reply" : hk_strerror(status));
    }
    run_unref(r);
}

static void answer_start(struct ep_run *r)
{
    if (!r->call)
        return;
    rpc_call *c = r->call;
    r->call = NULL;
    if (r->episode) {
        json_t *res = json_pack("{s:I}", "episode", (json_int_t)r->episode);
        if (res)
            json_object_set_new(res, "token", r->token && (r->progress_ok || r->progress_wait)
                                                  ? json_string(r->token) : json_null());
        rpc_call_reply(c, res);
    } else {
        char msg[900];
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_LSP_ERR_NOT_STARTED), r->kernel,
                 r->end_error ? r->end_error : hk_tr(HK_MSG_LSP_ERR_NO_WORKER_EPISODE));
        rpc_call_error_code(c, RPC_REQUEST_FAILED, msg);
    }
}

/* -- finding the episode id of a fresh worker (its pid is in the row) -- */

struct id_arg {
    struct ep_run *r;
    int pid;
    int64_t since;
};

static int id_query(store *st, void *arg, json_t **out, char **msg)
{
    struct id_arg *a = arg;
    store_episode *es = NULL;
    size_t n = 0;
    store_episode_filter f = {.status_mask = STORE_EP_MASK(STORE_EP_RUNNING) |
                                             STORE_EP_MASK(STORE_EP_COMPLETED) |
                                             STORE_EP_MASK(STORE_EP_STOPPED) |
                                             STORE_EP_MASK(STORE_EP_FAILED),
                              .limit = 64};
    int rc = store_episode_list(st, &f, &es, &n);
    if (rc)
        return rc;
    int64_t id = 0;
    for (size_t i = 0; i < n && !id; i++)
        if (es[i].pid == a->pid && es[i].started_ms >= a->since)
            id = es[i].id;
    store_episodes_free(es, n);
    *out = id ? json_integer(id) : NULL;
    return HK_OK;
}

static void id_done(struct lsp_server *s, int rc, json_t *out, const char *msg, void *arg)
{
    struct id_arg *a = arg;
    struct ep_run *r = a->r;
    r->id_query_busy = false;
    if (rc == HK_OK && json_is_integer(out) && !r->episode) {
        r->episode = json_integer_value(out);
        HK_INFO("episode %lld: worker %d for %s", (long long)r->episode, r->pid, r->kernel);
        flush_held_logs(r);
        answer_start(r);
        notify_changed(r, "running");
    }
    json_decref(out);
    run_unref(r);
}

static void free_id_arg(void *p) { hk_free(p); }

static void find_episode_id(struct ep_run *r)
{
    if (r->episode || r->id_query_busy || r->finished)
        return;
    struct id_arg *a = hk_calloc(1, sizeof *a);
    if (!a)
        return;
    a->r = r;
    a->pid = r->pid;
    a->since = r->started_ms - 2000;
    r->refs++;
    r->id_query_busy = true;
    if (lsp_ep_query(r->s, id_query, id_done, a, free_id_arg)) {
        r->id_query_busy = false;
        run_unref(r);
    }
}

/* -- events -- */

/* A stage's name as the user reads it; the worker's own name when it is not one of the
 * known stages (the events' "stage" values themselves are never translated). */
static const char *stage_label(const char *stage)
{
    static const struct {
        const char *name;
        enum hk_msg msg;
    } stages[] = {
        {"init", HK_MSG_STAGE_INIT},         {"spec", HK_MSG_STAGE_SPEC},
        {"baseline", HK_MSG_STAGE_BASELINE}, {"optimize", HK_MSG_STAGE_OPTIMIZE},
        {"accuracy", HK_MSG_STAGE_ACCURACY}, {"verify", HK_MSG_STAGE_VERIFY},
        {"report", HK_MSG_STAGE_REPORT},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(stages); i++)
        if (!strcmp(stage, stages[i].name))
            return hk_tr(stages[i].msg);
    return stage;
}

static void set_message(struct ep_run *r, const char *stage, const char *msg)
{
    if (stage)
        snprintf(r->message, sizeof r->message, "%s: %s", stage_label(stage), msg ? msg : "");
    else if (msg)
        snprintf(r->message, sizeof r->message, "%s", msg);
    /* one line in the progress UI */
    char *nl = strchr(r->message, '\n');
    if (nl)
        *nl = '\0';
    hk_utf8_trim(r->message); /* cut at its size: whole characters (json_pack wants UTF-8) */
}

static void run_cancel(struct ep_run *r);

/* One event line of the worker: its text, and once a batch has been on the pool, the event
 * read from it and its message said in the session's language. */
struct ev_line {
    char *text;
    size_t len;
    bool read;         /* ev, said and err are set */
    json_t *ev;        /* NULL: not an event line (err says why) */
    char *said;
    char *why;         /* a spec event's notes or reasons, said (spec_why) */
    char err[160];
};

/* Handles one event: ev (taken; NULL when the line was not one, err saying why), said its
 * message said in the session's language (taken; NULL: as it is), why a spec event's
 * notes or reasons said and joined (taken; NULL: none). */
static void handle_event(struct ep_run *r, json_t *ev, char *said, char *why, const char *line,
                         const char *err)
{
    const char *kind = json_string_value(json_object_get(ev, "event"));
    if (!kind) {
        HK_WARN("episode worker %d: not an event line (%s): %.200s", r->pid, err, line);
        json_decref(ev);
        hk_free(said);
        hk_free(why);
        return;
    }
    find_episode_id(r);
    const char *stage = json_string_value(json_object_get(ev, "stage"));
    const char *msg = json_string_value(json_object_get(ev, "message"));
    json_t *pct = json_object_get(ev, "percent");
    if (json_is_integer(pct)) {
        json_int_t p = json_integer_value(pct);
        if (p > r->percent)
            r->percent = p > 100 ? 100 : (int)p;
    }
    if (!strcmp(kind, "stage")) {
        bool changed = !stage || strcmp(stage, r->stage) != 0;
        if (stage)
            snprintf(r->stage, sizeof r->stage, "%s", stage);
        set_message(r, stage, said ? said : msg);
        progress_send(r, "report");
        if (changed)
            notify_changed(r, "running");
    } else if (!strcmp(kind, "progress") || !strcmp(kind, "version")) {
        set_message(r, stage ? stage : r->stage, said ? said : msg);
        progress_send(r, "report");
    } else if (!strcmp(kind, "log")) {
        const char *level = json_string_value(json_object_get(ev, "level"));
        int type = level && !strcmp(level, "error") ? 1 : level && !strcmp(level, "warn") ? 2 : 4;
        relay_log(r, type, said ? said : msg ? msg : "");
        /* Without a GPU the worker would go on building every candidate for nothing it
         * can measure; the editor wants the answer now (issue 4: "ends quickly"). The
         * line says so by its code, whatever its words. */
        const char *code = json_string_value(json_object_get(ev, "code"));
        if (code && !strcmp(code, "no_gpu") && !r->gpu_missing && !r->cancel) {
            r->gpu_missing = true;
            r->gpu_why = hk_strdup(msg ? msg : "no GPU found");
            run_cancel(r);
            snprintf(r->message, sizeof r->message, "%s", hk_tr(HK_MSG_PROGRESS_NO_GPU));
        }
    } else if (!strcmp(kind, "spec")) {
        /* the worker inferred the spec (spec/infer.c): say what it guessed, and keep a
         * draft's reasons for the refusal */
        const char *st = json_string_value(json_object_get(ev, "status"));
        const char *path = json_string_value(json_object_get(ev, "path"));
        bool draft = st && strcmp(st, "inferred") != 0;
        if (draft) {
            hk_free(r->draft_path);
            hk_free(r->draft_why);
            r->draft_path = path && *path ? hk_strdup(path) : NULL;
            r->draft_why = hk_strdup(why ? why : hk_tr(HK_MSG_LSP_INFERENCE_FAILED));
        } else {
            snprintf(r->message, sizeof r->message, hk_tr(HK_MSG_PROGRESS_SPEC_INFERRED),
                     path ? path : "?", why ? why : "");
            hk_utf8_trim(r->message); /* Chinese notes cut at its size */
            if (r->progress_ok) {
                progress_send(r, "report");
            } else { /* kept for the begin, whenever the client accepts the token */
                hk_free(r->spec_note);
                r->spec_note = hk_strdup(r->message);
            }
            if (!r->s->eps->stopped && r->s->state == LSP_RUNNING)
                lsp_log_message(r->s, 3, hk_tr(HK_MSG_LSP_LOG_SPEC_INFERRED), r->kernel,
                                path ? path : "?", why ? why : "");
        }
    } else if (!strcmp(kind, "done")) {
        json_decref(r->done_ev);
        r->done_ev = json_incref(ev);
        json_t *id = json_object_get(ev, "episode");
        if (json_is_integer(id) && !r->episode)
            r->episode = json_integer_value(id);
        if (r->episode)
            flush_held_logs(r);
    }
    hk_free(said);
    hk_free(why);
    json_decref(ev);
}

/* A spec event's notes (inferred) or reasons (a draft), each said in lang (hk_tr_note:
 * spec inference's notes, with the budget a note of nested fragments needs), joined by
 * "; ". New string, NULL when there are none. */
static char *spec_why(json_t *ev, enum hk_lang lang)
{
    const char *st = json_string_value(json_object_get(ev, "status"));
    bool draft = st && strcmp(st, "inferred") != 0;
    json_t *list = json_object_get(ev, draft ? "reasons" : "notes");
    struct hk_buf why;
    hk_buf_init(&why, 4096);
    size_t i;
    json_t *x;
    json_array_foreach(list, i, x) {
        const char *item = json_string_value(x) ? json_string_value(x) : "";
        char *item_said = hk_tr_note(lang, item);
        hk_buf_printf(&why, "%s%s", i ? "; " : "", item_said ? item_said : item);
        hk_free(item_said);
    }
    return hk_buf_steal(&why);
}

/* Reads l's line as an event, and says its message in lang (docs/i18n.md: the worker's
 * events are English, said in the session's language where shown), and a spec event's
 * notes. */
static void ev_read(struct ev_line *l, enum hk_lang lang)
{
    json_error_t jerr;
    l->ev = json_loadb(l->text, l->len, JSON_REJECT_DUPLICATES, &jerr);
    const char *kind = json_string_value(json_object_get(l->ev, "event"));
    if (!kind) {
        snprintf(l->err, sizeof l->err, "%s", jerr.text);
    } else {
        l->said = hk_tr_said(lang, json_string_value(json_object_get(l->ev, "message")));
        if (!strcmp(kind, "spec"))
            l->why = spec_why(l->ev, lang);
    }
    l->read = true;
}

/* The worker's event lines are read and said on the pool, a batch at a time (issue 14:
 * nothing on the loop over 5 ms): hk_tr_said takes a few tenths of a millisecond for a
 * sentence that nests others, and the worker writes tens of them at once (a refused
 * tunable each), which one read of its pipe hands to the loop together. The loop keeps
 * their order: the lines that come while a batch is out wait for it and go in the next;
 * a batch's events are handled in order when it comes back; the worker's end waits for
 * its last line (worker_done). In English nothing is said: lines are handled at once
 * unless a batch is out. */
struct ev_batch {
    uv_work_t req;
    struct ep_run *r;
    enum hk_lang lang;
    struct ev_line *line;
    size_t n;
};

static void worker_end(struct ep_run *r);

static void ev_batch_work(uv_work_t *req)
{
    hk_thread_background();
    struct ev_batch *b = req->data;
    for (size_t i = 0; i < b->n; i++)
        ev_read(&b->line[i], b->lang);
}

static void ev_batch_send(struct ep_run *r);

static void ev_batch_after(uv_work_t *req, int status)
{
    (void)status; /* cancelled: the lines are read here */
    struct ev_batch *b = req->data;
    struct ep_run *r = b->r;
    lsp_loopwatch_note(r->s->loopwatch, "(episode events said)"); /* i18n: not for people (loopStats' label) */
    r->ev_out = false;
    for (size_t i = 0; i < b->n; i++) {
        struct ev_line *l = &b->line[i];
        if (!l->read)
            ev_read(l, HK_LANG_EN);
        handle_event(r, l->ev, l->said, l->why, l->text, l->err);
        hk_free(l->text);
    }
    hk_free(b->line);
    hk_free(b);
    if (r->ev_n)
        ev_batch_send(r);
    else if (r->end_waits)
        worker_end(r);
    run_unref(r);
}

/* The waiting lines to the pool as one batch; on the loop, said, if it cannot go. */
static void ev_batch_send(struct ep_run *r)
{
    struct ev_batch *b = hk_calloc(1, sizeof *b);
    if (b) {
        b->req.data = b;
        b->r = r;
        b->lang = hk_i18n_lang();
        b->line = r->ev_q;
        b->n = r->ev_n;
        if (uv_queue_work(r->s->loop, &b->req, ev_batch_work, ev_batch_after) == 0) {
            r->ev_q = NULL;
            r->ev_n = r->ev_cap = 0;
            r->ev_out = true;
            r->refs++;
            return;
        }
        hk_free(b);
    }
    struct ev_line *q = r->ev_q;
    size_t n = r->ev_n;
    r->ev_q = NULL;
    r->ev_n = r->ev_cap = 0;
    for (size_t i = 0; i < n; i++) {
        ev_read(&q[i], hk_i18n_lang());
        handle_event(r, q[i].ev, q[i].said, q[i].why, q[i].text, q[i].err);
        hk_free(q[i].text);
    }
    hk_free(q);
}

static void on_event_line(const char *line, size_t n, void *ud)
{
    struct ep_run *r = ud;
    if (n == 0)
        return;
    lsp_loopwatch_note(r->s->loopwatch, "(episode event)");
    if (hk_i18n_lang() == HK_LANG_EN && !r->ev_out && !r->ev_n) { /* nothing to say */
        struct ev_line l = {.text = (char *)line, .len = n};
        ev_read(&l, HK_LANG_EN);
        handle_event(r, l.ev, l.said, l.why, line, l.err);
        return;
    }
    if (r->ev_n == r->ev_cap) {
        size_t cap = r->ev_cap ? 2 * r->ev_cap : 16;
        struct ev_line *q = hk_realloc(r->ev_q, cap * sizeof *q);
        if (!q) {
            HK_WARN("episode worker %d: out of memory: event line dropped", r->pid);
            return;
        }
        r->ev_q = q;
        r->ev_cap = cap;
    }
    char *text = hk_strndup(line, n);
    if (!text) {
        HK_WARN("episode worker %d: out of memory: event line dropped", r->pid);
        return;
    }
    r->ev_q[r->ev_n++] = (struct ev_line){.text = text, .len = n};
    if (!r->ev_out)
        ev_batch_send(r);
}

/* The client's answer to showing a draft spec: nothing waits for it (rpc_request calls its
 * callback always, so there must be one). */
static void draft_shown(rpc *r, int status, json_t *result, json_t *error, void *ud)
{
    (void)r;
    (void)ud;
    if (status != HK_OK || error || !json_is_true(json_object_get(result, "success")))
        HK_DEBUG("window/showDocument of a draft spec: %s",
                 status != HK_OK ? hk_strerror(status) : "not shown");
}

static void maybe_finish(struct ep_run *r, const char *err_tail);

/* The worker's one report, after its process and both pipes are done (runner_child). */
static void worker_done(runner_child *c, const runner_child_exit *e, void *data)
{
    (void)c;
    struct ep_run *r = data;
    lsp_loopwatch_note(r->s->loopwatch, "(episode worker exited)"); /* i18n: not for people (loopStats' label) */
    r->child = NULL;
    r->exit_status = e->exit_status;
    r->term_signal = e->term_signal;
    HK_INFO("episode worker %d exited: status %lld, signal %d", r->pid,
            (long long)r->exit_status, r->term_signal);
    if (e->dropped_lines)
        HK_WARN("episode worker %d: %zu event lines over %zu bytes dropped", r->pid,
                e->dropped_lines, LSP_EP_MAX_LINE);
    if (r->ev_out || r->ev_n) { /* its last lines are on the pool: the end comes after */
        r->end_waits = true;
        hk_free(r->end_err_tail);
        r->end_err_tail = hk_strdup(e->err ? e->err : "");
        return;
    }
    maybe_finish(r, e->err ? e->err : "");
    run_maybe_free(r);
}

/* The worker's end that waited for its last event lines (ev_batch_after holds r). */
static void worker_end(struct ep_run *r)
{
    r->end_waits = false;
    maybe_finish(r, r->end_err_tail ? r->end_err_tail : "");
    hk_free(r->end_err_tail);
    r->end_err_tail = NULL;
}

/* -- the end -- */

static void unlist(struct ep_run *r)
{
    struct lsp_eps *e = r->s->eps;
    for (struct ep_run **pp = &e->runs; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    r->listed = false;
    e->n_running--;
}

static void announce_end(struct ep_run *r)
{
    struct lsp_server *s = r->s;
    flush_held_logs(r);
    const char *st = r->end_status ? r->end_status : "failed";
    /* the error is English as stored (the worker's, or ours: maybe_finish) */
    char *said = hk_tr_said(hk_i18n_lang(), r->end_error);
    const char *end_error = said ? said : r->end_error;
    if (!strcmp(st, "completed")) {
        json_t *dsum = json_object_get(r->done_ev, "summary");
        double sp = json_number_value(json_object_get(dsum, "speedup"));
        bool sim = json_is_true(json_object_get(dsum, "simulated"));
        if (sp > 0)
            snprintf(r->message, sizeof r->message, hk_tr(HK_MSG_PROGRESS_DONE_BEST), sp,
                     sim ? hk_tr(HK_MSG_SIMULATED_GPU_PAREN) : "");
        else
            snprintf(r->message, sizeof r->message, "%s", hk_tr(HK_MSG_PROGRESS_DONE_NONE));
    } else if (!strcmp(st, "stopped")) {
        snprintf(r->message, sizeof r->message, "%s", hk_tr(HK_MSG_PROGRESS_STOPPED));
    } else {
        snprintf(r->message, sizeof r->message, hk_tr(HK_MSG_PROGRESS_FAILED),
                 end_error ? end_error : hk_tr(HK_MSG_UNKNOWN_ERROR));
        hk_utf8_trim(r->message); /* %.480s counts bytes */
    }
    r->percent = r->sent_percent > r->percent ? r->sent_percent : r->percent;
    answer_start(r);
    if (!s->eps->stopped && s->state == LSP_RUNNING) {
        if (r->progress_ok)
            progress_send(r, "end");
        notify_changed(r, st);
        if (!strcmp(st, "failed"))
            lsp_show_message(s, 1, hk_tr(HK_MSG_SHOW_OPTIMIZE_FAILED), r->kernel, r->target,
                             end_error ? end_error : hk_tr(HK_MSG_UNKNOWN_ERROR));
        else if (!strcmp(st, "completed"))
            lsp_log_message(s, 3, hk_tr(HK_MSG_LSP_LOG_OPTIMIZE_DONE), r->kernel, r->target, r->message);
        if (r->path)
            lsp_ep_file_reload(s, r->path);
    }
    hk_free(said);
    unlist(r);
}

/* The worker did not record its end (it died, or was killed): record it for it. */
struct end_arg {
    struct ep_run *r;
    int pid;
    int64_t since, id;
    enum store_episode_status status;
    bool force;
    char *error;
};

/* The reports the worker wrote (store paths) written again from the store, in the same
 * folder. A worker the server stops for want of a GPU writes them on its way out as
 * "stopped by the user"; the server then records the real end, and "Show report" must
 * open what `hkls report N` says. No reports yet: nothing to do. */
static int rewrite_reports(store *st, int64_t id)
{
    store_episode e;
    int rc = store_episode_get(st, id, &e);
    if (rc)
        return rc;
    unsigned formats = (e.report_json ? REPORT_JSON : 0) | (e.report_md ? REPORT_MD : 0) |
                       (e.report_html ? REPORT_HTML : 0);
    const char *any = e.report_html ? e.report_html : e.report_md ? e.report_md : e.report_json;
    char *dir = any ? hk_strdup(any) : NULL;
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (any && !dir)
        rc = HK_ENOMEM;
    else if (slash) {
        *slash = '\0';
        rc = report_write(st, id, dir[0] ? dir : "/", formats, NULL);
    }
    hk_free(dir);
    store_episode_clear(&e);
    return rc;
}

static int end_query(store *st, void *arg, json_t **out, char **msg)
{
    struct end_arg *a = arg;
    if (!a->id) {
        json_t *found = NULL;
        struct id_arg ia = {.pid = a->pid, .since = a->since};
        int rc = id_query(st, &ia, &found, msg);
        if (rc)
            return rc;
        a->id = json_is_integer(found) ? json_integer_value(found) : 0;
        json_decref(found);
    }
    if (!a->id)
        return HK_ENOENT;
    int rc = a->force ? store_episode_set_status(st, a->id, a->status, a->error)
                      : store_episode_finish(st, a->id, a->status, a->error);
    if (rc == HK_ESTATE)
        return HK_OK; /* it had ended after all, and its reports say how */
    if (rc == HK_OK)
        rc = rewrite_reports(st, a->id);
    return rc;
}

static void end_done(struct lsp_server *s, int rc, json_t *out, const char *msg, void *arg)
{
    struct end_arg *a = arg;
    struct ep_run *r = a->r;
    json_decref(out);
    if (rc && rc != HK_ENOENT)
        HK_WARN("episode %lld: cannot record its end: %s", (long long)a->id,
                msg ? msg : hk_strerror(rc));
    if (!r->episode)
        r->episode = a->id;
    announce_end(r);
    run_unref(r);
}

static void free_end_arg(void *p)
{
    struct end_arg *a = p;
    hk_free(a->error);
    hk_free(a);
}

/* Records the end in the store for the worker (force: over what it recorded itself),
 * then announces it. */
static void record_end(struct ep_run *r, enum store_episode_status st, const char *why,
                       bool force)
{
    struct end_arg *a = hk_calloc(1, sizeof *a);
    if (a) {
        a->r = r;
        a->pid = r->pid;
        a->since = r->started_ms - 2000;
        a->id = r->episode;
        a->status = st;
        a->force = force;
        a->error = why ? hk_strdup(why) : NULL;
        r->refs++;
        if (lsp_ep_query(r->s, end_query, end_done, a, free_end_arg) == HK_OK)
            return;
        r->refs--;
    }
    announce_end(r);
}

static void maybe_finish(struct ep_run *r, const char *err_tail)
{
    if (r->finished)
        return;
    r->finished = true;
    if (r->gpu_missing) {
        /* stopped by us for want of a GPU: a failure, whatever the worker recorded */
        r->no_gpu = true;
        r->end_status = hk_strdup("failed");
        r->end_error = hk_strdup(r->gpu_why ? r->gpu_why : "no GPU found");
        if (r->done_ev && json_is_integer(json_object_get(r->done_ev, "episode")) && !r->episode)
            r->episode = json_integer_value(json_object_get(r->done_ev, "episode"));
        record_end(r, STORE_EP_FAILED, r->end_error, true);
        return;
    }
    if (r->done_ev) {
        const char *st = json_string_value(json_object_get(r->done_ev, "status"));
        const char *er = json_string_value(json_object_get(r->done_ev, "error"));
        /* the worker ended before the id query answered: its last event names it */
        if (json_is_integer(json_object_get(r->done_ev, "episode")) && !r->episode)
            r->episode = json_integer_value(json_object_get(r->done_ev, "episode"));
        r->end_status = hk_strdup(st ? st : "failed");
        r->end_error = er ? hk_strdup(er) : NULL;
        r->no_gpu = json_is_true(json_object_get(r->done_ev, "no_gpu"));
        if (r->no_gpu && r->end_error && !strstr(r->end_error, "GPU")) {
            char *m = hk_asprintf("no GPU found: %s", r->end_error);
            if (m) {
                hk_free(r->end_error);
                r->end_error = m;
            }
        }
        announce_end(r);
        return;
    }
    if (r->draft_why && !r->cancel) {
        /* Not sure enough to run: the draft opens for editing, and saving it runs this
         * optimization again (lsp_ep_spec_saved). */
        struct lsp_server *s = r->s;
        char *m = r->draft_path ? hk_trf(HK_MSG_EP_DRAFT_CHECK_EDIT, r->draft_why, r->draft_path)
                              : hk_trf(HK_MSG_EP_DRAFT_CHECK, r->draft_why);
        r->end_status = hk_strdup("failed");
        r->end_error = m;
        if (r->draft_path && s->eps->pending && !s->eps->stopped) {
            json_t *p = json_pack("{s:s, s:s, s:s, s:s}", "uri", r->uri, "kernel", r->kernel,
                                  "target", r->target, "engine", r->engine);
            if (p)
                json_object_set_new(s->eps->pending, r->draft_path, p);
            char *uri = lsp_path_to_uri(r->draft_path);
            if (uri && s->state == LSP_RUNNING)
                lsp_client_show_document(s, uri, true, NULL, draft_shown, NULL);
            hk_free(uri);
        }
        announce_end(r);
        return;
    }
    /* No "done" line: the worker died or was killed. */
    char why[LSP_EP_ERR_TAIL + 128];
    const char *tail = err_tail;
    const char *last = tail;
    /* the last non-empty line of stderr says most */
    for (const char *p = tail; *p; p++)
        if (*p == '\n' && p[1])
            last = p + 1;
    /* recorded in the store, so English; announce_end says it in the session's language */
    if (r->cancel)
        snprintf(why, sizeof why, "%s", hk_tr_in(HK_LANG_EN, HK_MSG_LSP_END_STOPPED));
    else if (r->term_signal)
        snprintf(why, sizeof why, hk_tr_in(HK_LANG_EN, HK_MSG_LSP_END_SIGNAL), r->term_signal,
                 *last ? ": " : "", last);
    else
        snprintf(why, sizeof why, hk_tr_in(HK_LANG_EN, HK_MSG_LSP_END_STATUS),
                 (long long)r->exit_status, *last ? ": " : "", last);
    char *nl = strchr(why, '\n');
    if (nl)
        *nl = '\0';
    r->end_status = hk_strdup(r->cancel ? "stopped" : "failed");
    r->end_error = hk_strdup(why);
    record_end(r, r->cancel ? STORE_EP_STOPPED : STORE_EP_FAILED, why, false);
}

/* -- start, cancel -- */

static void run_cancel(struct ep_run *r)
{
    if (!runner_child_pid(r->child) || r->cancel)
        return; /* exited: its report is on the way */
    r->cancel = true;
    snprintf(r->message, sizeof r->message, "%s", hk_tr(HK_MSG_PROGRESS_STOPPING));
    /* The whole group: the worker stops cleanly on SIGTERM (it records "stopped"), and
     * its compilers and benchmark programs go with it. */
    runner_child_cancel(r->child);
}

int lsp_ep_cancel(struct lsp_server *s, int64_t episode)
{
    for (struct ep_run *r = s->eps ? s->eps->runs : NULL; r; r = r->next)
        if (r->episode == episode && is_running(r)) {
            run_cancel(r);
            return HK_OK;
        }
    return HK_ENOENT;
}

int lsp_ep_cancel_token(struct lsp_server *s, const char *token)
{
    for (struct ep_run *r = s->eps ? s->eps->runs : NULL; r; r = r->next)
        if (r->token && !strcmp(r->token, token) && is_running(r)) {
            run_cancel(r);
            return HK_OK;
        }
    return HK_ENOENT;
}

json_t *lsp_ep_running_json(struct lsp_server *s)
{
    json_t *o = json_object();
    for (struct ep_run *r = s->eps ? s->eps->runs : NULL; o && r; r = r->next) {
        if (!r->episode)
            continue;
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)r->episode);
        json_t *v = run_changed_json(r, r->finished ? (r->end_status ? r->end_status : "failed")
                                                    : "running");
        if (v) {
            json_object_set_new(v, "target", json_string(r->target));
            json_object_set_new(v, "engine", json_string(r->engine));
            json_object_set_new(o, key, v);
        }
    }
    return o;
}

static char **build_argv(struct lsp_server *s, const char *exe, const struct lsp_ep_start *st,
                         const char *path, const char *spec_file, const char *db)
{
    char **v = hk_calloc(32, sizeof *v);
    if (!v)
        return NULL;
    int n = 0;
    bool oom = false;
#define ARG(x)                                                                                \
    do {                                                                                      \
        char *a_ = (x);                                                                       \
        if (!a_)                                                                              \
            oom = true;                                                                       \
        else                                                                                  \
            v[n++] = a_;                                                                      \
    } while (0)
    ARG(hk_strdup(exe));
    ARG(hk_strdup("optimize"));
    ARG(hk_strdup(path));
    ARG(hk_strdup("--kernel"));
    ARG(hk_strdup(st->kernel));
    if (spec_file) { /* else the worker infers one */
        ARG(hk_strdup("--spec"));
        ARG(hk_strdup(spec_file));
    }
    ARG(hk_strdup("--events"));
    ARG(hk_strdup("--db"));
    ARG(hk_strdup(db));
    ARG(hk_strdup("--target"));
    ARG(hk_strdup(st->target));
    if (st->engine) {
        ARG(hk_strdup("--engine"));
        ARG(hk_strdup(st->engine));
    }
    if (s->cfg.ep.budget > 0) {
        ARG(hk_strdup("--budget"));
        ARG(hk_asprintf("%ld", s->cfg.ep.budget));
    }
    if (s->cfg.ep.minutes > 0) {
        ARG(hk_strdup("--minutes"));
        ARG(hk_asprintf("%g", s->cfg.ep.minutes));
    }
    if (s->cfg.ep.check) {
        ARG(hk_strdup("--check"));
        ARG(hk_strdup(s->cfg.ep.check));
    }
    if (s->cfg.ep.simulate)
        ARG(hk_strdup("--simulate-gpu"));
    if (s->cfg.ep.allow_no_floor)
        ARG(hk_strdup("--allow-no-floor"));
    /* An untrusted folder's spec may not run commands or pass compiler flags (issue 12). */
    if (!lsp_trusted(s))
        ARG(hk_strdup("--untrusted"));
    /* the report the worker writes is in the session's language, not its environment's */
    ARG(hk_strdup("--lang"));
    ARG(hk_strdup(hk_lang_tag(hk_i18n_lang())));
#undef ARG
    if (oom) {
        hk_strv_free(v);
        return NULL;
    }
    return v;
}

/* An optimization that cannot start: the request's error, or a message when it was
 * started by saving its draft spec (no request). */
static void start_error_code(struct lsp_server *s, rpc_call *call, int code, const char *msg)
{
    if (call)
        rpc_call_error_code(call, code, msg);
    else if (s->state == LSP_RUNNING)
        lsp_show_message(s, 1, hk_tr(HK_MSG_SHOW_START_FAILED),
                         msg ? msg : hk_tr(HK_MSG_UNKNOWN_ERROR));
}

static void start_error(struct lsp_server *s, rpc_call *call, int hk_err, const char *msg)
{
    if (call)
        rpc_call_error(call, hk_err, msg);
    else
        start_error_code(s, call, 0, msg ? msg : hk_strerror_tr(hk_err));
}

void lsp_ep_optimize(struct lsp_server *s, rpc_call *call, const struct lsp_ep_start *st)
{
    struct lsp_eps *e = s->eps;
    char *path = NULL, *spec_file = NULL, *db = NULL, **argv = NULL;
    struct ep_run *r = NULL;
    char exe[4096];
    size_t exe_len = sizeof exe;
    if (e->stopped) {
        start_error(s, call, HK_ESTATE, hk_tr(HK_MSG_LSP_ERR_STOPPING));
        return;
    }
    if (e->n_running >= LSP_EP_MAX_RUNNING) {
        start_error_code(s, call, RPC_REQUEST_FAILED,
                            hk_tr(HK_MSG_LSP_ERR_TOO_MANY));
        return;
    }
    if (!(path = lsp_uri_to_path(st->uri))) {
        start_error(s, call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_FILE_URI));
        goto out;
    }
    /* Without a spec the worker infers one (spec/infer.c), off this loop, and says so in
     * a "spec" event. */
    spec_file = st->spec ? (strncmp(st->spec, "file://", 7) == 0 ? lsp_uri_to_path(st->spec)
                                                            : hk_strdup(st->spec))
                    : spec_find(path, st->kernel);
    db = db_path(s);
    if ((st->spec && !spec_file) || !db) {
        start_error(s, call, db ? HK_ENOMEM : HK_ENOENT,
                    db ? NULL : hk_tr(HK_MSG_LSP_ERR_NO_DB));
        goto out;
    }
    if (st->spec && access(spec_file, R_OK) != 0) {
        char *m = hk_asprintf(hk_tr(HK_MSG_LSP_ERR_NO_SPEC), st->kernel, spec_file);
        start_error_code(s, call, RPC_REQUEST_FAILED, m ? m : hk_tr(HK_MSG_LSP_ERR_NO_SPEC_SHORT));
        hk_free(m);
        goto out;
    }
    if (uv_exepath(exe, &exe_len) != 0) {
        start_error(s, call, HK_EIO, hk_tr(HK_MSG_LSP_ERR_NO_EXE));
        goto out;
    }
    if (!(argv = build_argv(s, exe, st, path, spec_file, db)) || !(r = hk_calloc(1, sizeof *r))) {
        start_error(s, call, HK_ENOMEM, NULL);
        goto out;
    }
    r->s = s;
    r->uri = hk_strdup(st->uri);
    r->path = path;
    path = NULL;
    r->kernel = hk_strdup(st->kernel);
    r->target = hk_strdup(st->target);
    r->engine = hk_strdup(st->engine ? st->engine : "builtin");
    r->token = hk_asprintf("hyperkernel/episode/%u/%d", ++e->serial, (int)uv_os_getpid());
    snprintf(r->message, sizeof r->message, "%s", hk_tr(HK_MSG_PROGRESS_STARTING));
    if (!r->uri || !r->kernel || !r->target || !r->engine || !r->token) {
        start_error(s, call, HK_ENOMEM, NULL);
        goto out;
    }
    char *slash = strrchr(r->path, '/');
    char *cwd = slash && slash != r->path ? hk_strndup(r->path, (size_t)(slash - r->path)) : NULL;
    runner_child_spec cs = {
        .argv = argv,
        .cwd = cwd,
        .name = "episode worker",
        .out = {.mode = RUNNER_CHILD_LINES, .max = LSP_EP_MAX_LINE, .on_line = on_event_line},
        .err = {.mode = RUNNER_CHILD_TAIL, .max = LSP_EP_ERR_TAIL - 1},
        .kill_grace_ms = LSP_EP_KILL_GRACE_MS,
        .done = worker_done,
        .data = r,
    };
    int uvrc = 0;
    int rc = runner_child_start(s->loop, &cs, &r->child, &uvrc);
    hk_free(cwd);
    if (rc) {
        char m[300];
        snprintf(m, sizeof m, hk_tr(HK_MSG_LSP_ERR_WORKER_START), exe,
                 uvrc ? uv_strerror(uvrc) : hk_strerror_tr(rc));
        start_error_code(s, call, RPC_REQUEST_FAILED, m);
        goto out;
    }
    r->pid = runner_child_pid(r->child);
    r->started_ms = store_now_ms();
    r->listed = true;
    r->next = e->runs;
    e->runs = r;
    e->n_running++;
    if (call)
        rpc_call_defer(call);
    r->call = call;
    HK_INFO("episode worker %d: %s %s in %s (target %s)", r->pid, r->engine, r->kernel, r->uri,
            r->target);
    r->refs++;
    if (lsp_client_progress_create(s, r->token, progress_created, r) == HK_OK)
        r->progress_wait = true;
    else
        r->refs--;
    r = NULL;
out:
    if (r) {
        r->listed = false;
        run_maybe_free(r);
    }
    hk_strv_free(argv);
    hk_free(path);
    hk_free(spec_file);
    hk_free(db);
}

void lsp_ep_spec_saved(struct lsp_server *s, const char *path)
{
    json_t *p = s->eps && s->eps->pending ? json_object_get(s->eps->pending, path) : NULL;
    if (!p || s->eps->stopped)
        return;
    json_incref(p);
    json_object_del(s->eps->pending, path);
    struct lsp_ep_start st = {
        .uri = json_string_value(json_object_get(p, "uri")),
        .kernel = json_string_value(json_object_get(p, "kernel")),
        .target = json_string_value(json_object_get(p, "target")),
        .engine = json_string_value(json_object_get(p, "engine")),
        .spec = path,
    };
    if (st.uri && st.kernel && st.target) {
        HK_INFO("spec %s saved: optimizing %s again", path, st.kernel);
        lsp_ep_optimize(s, NULL, &st);
    }
    json_decref(p);
}

/* ---- lifecycle ---- */

bool lsp_ep_stopping(const struct lsp_server *s) { return !s->eps || s->eps->stopped; }

int lsp_ep_init(struct lsp_server *s)
{
    s->eps = hk_calloc(1, sizeof *s->eps);
    if (!s->eps || !(s->eps->files = json_object()) || !(s->eps->pending = json_object()))
        return HK_ENOMEM;
    return HK_OK;
}

void lsp_ep_stop(struct lsp_server *s)
{
    struct lsp_eps *e = s->eps;
    if (!e || e->stopped)
        return;
    e->stopped = true;
    for (struct ep_run *r = e->runs; r; r = r->next)
        run_cancel(r);
    /* deferred calls are answered by rpc_free; forget them */
    for (struct ep_run *r = e->runs; r; r = r->next)
        r->call = NULL;
    while (e->waiters) {
        struct ep_waiter *w = e->waiters;
        e->waiters = w->next;
        rpc_call_error(w->call, HK_ECANCELED, hk_tr(HK_MSG_LSP_ERR_STOPPING));
        json_decref(w->params);
        hk_free(w->path);
        hk_free(w);
    }
}

void lsp_ep_free(struct lsp_server *s)
{
    struct lsp_eps *e = s->eps;
    if (!e)
        return;
    if (e->runs || e->n_queries)
        HK_WARN("episodes: freed with %zu queries and workers still running", e->n_queries);
    json_decref(e->files);
    json_decref(e->pending);
    hk_free(e);
    s->eps = NULL;
}

/* ---- the per-file cache ---- */

/* Text of the kernel named name in text (new string), or NULL. Pool thread. */
static char *kernel_text(const char *text, size_t len, const char *name, size_t *start)
{
    char *out = NULL;
    ep_apply_kernel_text(text, len, name, &out, start);
    return out;
}

static json_t *num_json(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* One chain version's edit relative to the episode's baseline. Pool thread. */
static json_t *chain_entry(const store_version *v, const char *base, size_t base_len,
                           const char *base_k, size_t base_k_start, const char *kernel,
                           const store_history_row *row)
{
    ep_change ch;
    json_t *o = NULL;
    if (ep_change_of(base, base_len, base_k, base_k_start, v->source, strlen(v->source), kernel,
                     &ch) != HK_OK)
        return NULL;
    o = json_pack("{s:I, s:i, s:I, s:s}", "id", (json_int_t)v->id, "number", v->number,
                  "episode", (json_int_t)v->episode_id, "produced_by",
                  v->produced_by ? v->produced_by : "");
    if (!o)
        goto out;
    json_object_set_new(o, "speedup", num_json(row ? row->speedup : NAN));
    json_object_set_new(o, "ms", num_json(row && row->measured ? row->best.median_ms : NAN));
    if (v->launch_json)
        json_object_set_new(o, "launch", json_loads(v->launch_json, 0, NULL));
    json_object_set_new(o, "kind", json_string(ep_change_kind_name(ch.kind)));
    if (ch.kind != EP_CHANGE_LAUNCH) {
        json_object_set_new(o, "start", json_integer((json_int_t)ch.start));
        json_object_set_new(o, "end", json_integer((json_int_t)ch.end));
        json_object_set_new(o, "new_text", json_string(ch.new_text));
        json_object_set_new(o, "after", json_string(ch.after));
    }
out:
    ep_change_free(&ch);
    return o;
}

static const store_history_row *row_of(const store_history_row *rows, size_t n, int64_t vid)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].version.id == vid)
            return &rows[i];
    return NULL;
}

static json_t *episode_brief(const store_episode *e)
{
    json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:I}", "id", (json_int_t)e->id, "status",
                          store_episode_status_name(e->status), "target",
                          e->target ? e->target : "", "engine", e->engine ? e->engine : "",
                          "started_ms", (json_int_t)e->started_ms);
    if (!o)
        return NULL;
    json_object_set_new(o, "error", e->error ? json_string(e->error) : json_null());
    json_object_set_new(o, "report_html", e->report_html ? json_string(e->report_html)
                                                         : json_null());
    json_object_set_new(o, "ended_ms", json_integer(e->ended_ms));
    json_object_set_new(o, "simulated", json_boolean(store_episode_simulated(e)));
    return o;
}

/* Whether the episode with that id (among es) ran on the simulated GPU. */
static bool simulated_of(const store_episode *es, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (es[i].id == id)
            return store_episode_simulated(&es[i]);
    return false;
}

/* Everything the editor shows for one kernel. Pool thread. */
static json_t *kernel_info(store *st, const store_kernel *k)
{
    json_t *info = json_pack("{s:s}", "kernel", k->name);
    store_episode *es = NULL;
    size_t n_es = 0;
    store_history_row *hist = NULL, *erows = NULL;
    size_t n_hist = 0, n_erows = 0;
    store_version base = {0};
    char *base_k = NULL;
    if (!info)
        return NULL;
    store_episode_filter f = {.kernel_id = k->id, .limit = 200};
    if (store_episode_list(st, &f, &es, &n_es) || n_es == 0)
        goto out;
    json_object_set_new(info, "latest", episode_brief(&es[0]));
    const store_episode *best = NULL;
    for (size_t i = 0; i < n_es && !best; i++)
        if (es[i].status == STORE_EP_COMPLETED && es[i].best_version_id &&
            es[i].best_version_id != es[i].baseline_version_id)
            best = &es[i];
    if (store_kernel_history(st, k->id, &hist, &n_hist) == HK_OK) {
        json_t *table = json_array();
        size_t first = 0, shown = 0;
        for (size_t i = n_hist; i-- > 0 && shown < LSP_EP_MAX_TABLE;)
            if (hist[i].version.status == STORE_V_VERIFIED) {
                first = i;
                shown++;
            }
        for (size_t i = first; table && i < n_hist; i++) {
            const store_history_row *h = &hist[i];
            if (h->version.status != STORE_V_VERIFIED)
                continue;
            const char *engine = NULL;
            for (size_t j = 0; j < n_es; j++)
                if (es[j].id == h->version.episode_id)
                    engine = es[j].engine;
            json_t *row = json_pack("{s:i, s:I, s:I, s:s, s:s}", "number", h->version.number,
                                    "episode", (json_int_t)h->version.episode_id,
                                    "created_ms", (json_int_t)h->version.created_ms,
                                    "engine", engine ? engine : "builtin", "produced_by",
                                    h->version.produced_by ? h->version.produced_by : "");
            if (!row)
                continue;
            json_object_set_new(row, "ms", num_json(h->measured ? h->best.median_ms : NAN));
            json_object_set_new(row, "speedup", num_json(h->speedup));
            json_object_set_new(row, "bytes_per_s",
                                num_json(h->measured ? h->best.bytes_per_s : NAN));
            json_object_set_new(row, "max_rel_err", num_json(h->version.max_rel_err));
            json_object_set_new(row, "simulated",
                                json_boolean(simulated_of(es, n_es, h->version.episode_id)));
            json_array_append_new(table, row);
        }
        json_object_set_new(info, "table", table ? table : json_array());
    }
    if (!best)
        goto out;
    if (store_version_get(st, best->baseline_version_id, &base) || !base.source)
        goto out;
    size_t base_len = strlen(base.source), bk_start = 0;
    base_k = kernel_text(base.source, base_len, k->name, &bk_start);
    if (!base_k)
        goto out;
    store_episode_versions(st, best->id, &erows, &n_erows);
    const store_history_row *brow = row_of(erows, n_erows, best->best_version_id);
    json_t *b = json_pack("{s:I, s:I, s:s}", "episode", (json_int_t)best->id, "version_id",
                          (json_int_t)best->best_version_id, "target",
                          best->target ? best->target : "");
    if (!b)
        goto out;
    json_object_set_new(b, "report_html", best->report_html ? json_string(best->report_html)
                                                            : json_null());
    json_object_set_new(b, "speedup", num_json(brow ? brow->speedup : NAN));
    json_object_set_new(b, "simulated", json_boolean(store_episode_simulated(best)));
    json_object_set_new(b, "ms", num_json(brow && brow->measured ? brow->best.median_ms : NAN));
    json_object_set_new(b, "base_ms", num_json(brow && brow->has_base ? brow->base.median_ms
                                                                      : NAN));
    double bps = brow && brow->measured ? brow->best.bytes_per_s : NAN;
    double peak_pct = NAN;
    store_device dev = {0};
    if (best->device && isfinite(bps) && store_device_get(st, best->device, &dev) == HK_OK) {
        json_t *pk = json_loads(dev.peaks_json ? dev.peaks_json : "{}", 0, NULL);
        double peak = json_number_value(json_object_get(pk, STORE_PEAK_DRAM_BYTES_PER_S));
        if (peak > 0)
            peak_pct = 100.0 * bps / peak;
        json_decref(pk);
    }
    store_device_clear(&dev);
    json_object_set_new(b, "bandwidth_pct", num_json(peak_pct));
    json_object_set_new(b, "roofline_pct", num_json(brow && brow->measured
                                                        ? brow->best.roofline_pct : NAN));
    json_object_set_new(info, "best", b);
    json_object_set_new(info, "base_kernel_text", json_string(base_k));
    json_object_set_new(info, "base_text_len", json_integer((json_int_t)base_len));
    /* the baseline's launch (its block): what applying a version compares its launch with */
    json_t *base_launch = base.launch_json ? json_loads(base.launch_json, 0, NULL) : NULL;
    if (base_launch)
        json_object_set_new(info, "base_launch", base_launch);
    /* the chain, best first, then reversed */
    json_t *chain = json_array();
    int64_t vid = best->best_version_id;
    for (int steps = 0; chain && vid && steps < LSP_EP_MAX_CHAIN; steps++) {
        store_version v = {0};
        if (store_version_get(st, vid, &v))
            break;
        int64_t parent = v.parent_id;
        if (parent && v.status == STORE_V_VERIFIED && v.source) {
            const store_history_row *hr = row_of(erows, n_erows, v.id);
            if (!hr)
                hr = row_of(hist, n_hist, v.id);
            json_t *c = chain_entry(&v, base.source, base_len, base_k, bk_start, k->name, hr);
            if (c)
                json_object_set_new(c, "simulated",
                                    json_boolean(simulated_of(es, n_es, v.episode_id)));
            if (c)
                json_array_insert_new(chain, 0, c);
        }
        store_version_clear(&v);
        vid = parent;
    }
    json_object_set_new(info, "chain", chain ? chain : json_array());
    /* a change outside the kernel needs the whole baseline file to compare against */
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(info, "chain"), i, c) {
        const char *kind = json_string_value(json_object_get(c, "kind"));
        if (kind && !strcmp(kind, "file")) {
            json_object_set_new(info, "base_text", json_string(base.source));
            break;
        }
    }
out:
    hk_free(base_k);
    store_version_clear(&base);
    store_history_free(hist, n_hist);
    store_history_free(erows, n_erows);
    store_episodes_free(es, n_es);
    return info;
}

struct file_arg {
    char *path;
    bool reload;
};

static void free_file_arg(void *p)
{
    struct file_arg *a = p;
    hk_free(a->path);
    hk_free(a);
}

/* What an inferred spec of kernel next to path guessed and from where, as
 * {"file": base name, "notes": [...]}; NULL when its spec was written by hand or there is
 * none. Reads a file: the pool's side of the hover, never the loop's. New reference. */
static json_t *inferred_notes(const char *path, const char *kernel)
{
    char *spec_path = spec_find(path, kernel);
    json_t *sj = spec_path ? json_load_file(spec_path, JSON_REJECT_DUPLICATES, NULL) : NULL;
    json_t *notes = json_object_get(sj, "inferred");
    json_t *o = NULL;
    if (json_array_size(notes)) {
        const char *base = strrchr(spec_path, '/');
        o = json_pack("{s:s, s:O}", "file", base ? base + 1 : spec_path, "notes", notes);
    }
    json_decref(sj);
    hk_free(spec_path);
    return o;
}

static int file_query(store *st, void *arg, json_t **out, char **msg)
{
    struct file_arg *a = arg;
    char *real = realpath(a->path, NULL);
    store_kernel *ks = NULL;
    size_t n = 0;
    int rc = store_kernel_list(st, real ? real : a->path, &ks, &n);
    free(real);
    if (rc) {
        *msg = hk_strdup(store_errmsg(st));
        return rc;
    }
    json_t *o = json_object();
    for (size_t i = 0; o && i < n; i++) {
        json_t *info = kernel_info(st, &ks[i]);
        json_t *inferred = info ? inferred_notes(a->path, ks[i].name) : NULL;
        if (inferred)
            json_object_set_new(info, "spec_inferred", inferred);
        if (info)
            json_object_set_new(o, ks[i].name, info);
    }
    store_kernels_free(ks, n);
    *out = o;
    return o ? HK_OK : HK_ENOMEM;
}

static void set_doc_diags(struct lsp_server *s, doc *d, json_t *results);

struct diag_walk {
    struct lsp_server *s;
    const char *path;
    json_t *results;
};

static void diag_each(doc *d, void *ud)
{
    struct diag_walk *w = ud;
    struct lsp_doc *ld = lsp_doc_of(d);
    if (ld && ld->path && !strcmp(ld->path, w->path))
        set_doc_diags(w->s, d, w->results);
}

static void refresh_reply(rpc *r, int status, json_t *result, json_t *error, void *ud)
{
    if (status != HK_OK || error)
        HK_DEBUG("workspace/codeLens/refresh: %s", status == HK_OK ? "error reply"
                                                                   : hk_strerror(status));
}

static void file_done(struct lsp_server *s, int rc, json_t *out, const char *msg, void *arg)
{
    struct file_arg *a = arg;
    struct lsp_eps *e = s->eps;
    if (rc) {
        HK_WARN("episodes: results of %s not read: %s", a->path, msg ? msg : hk_strerror(rc));
        json_decref(out);
        out = json_object(); /* an empty cache: no results, and no retry loop */
    }
    json_object_set_new(e->files, a->path, json_pack("{s:o}", "data", out ? out : json_object()));
    json_t *results = json_object_get(json_object_get(e->files, a->path), "data");
    if (!e->stopped && s->state == LSP_RUNNING) {
        struct diag_walk w = {s, a->path, results};
        doc_store_foreach(s->docs, diag_each, &w);
        if (a->reload && s->cl_codelens_refresh)
            rpc_request(s->rpc, "workspace/codeLens/refresh", NULL, 0, refresh_reply, NULL,
                        NULL);
    }
    /* re-dispatch the requests that waited for this file */
    struct ep_waiter **pp = &e->waiters;
    while (*pp) {
        struct ep_waiter *w = *pp;
        if (strcmp(w->path, a->path) != 0) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        w->retry(s, w->call, w->params);
        json_decref(w->params);
        hk_free(w->path);
        hk_free(w);
    }
}

static void start_load(struct lsp_server *s, const char *path, bool reload)
{
    struct file_arg *a = hk_calloc(1, sizeof *a);
    if (!a || !(a->path = hk_strdup(path))) {
        hk_free(a);
        return;
    }
    a->reload = reload;
    json_object_set_new(s->eps->files, path, json_pack("{s:b}", "loading", 1));
    if (lsp_ep_query(s, file_query, file_done, a, free_file_arg))
        /* not queued (stopping, out of memory): answer from an empty cache */
        json_object_set_new(s->eps->files, path, json_pack("{s:{}}", "data"));
}

json_t *lsp_ep_file_results(struct lsp_server *s, const char *path, rpc_call *call,
                            json_t *params, lsp_ep_retry_fn retry)
{
    if (!path || !s->eps)
        return NULL;
    json_t *ent = json_object_get(s->eps->files, path);
    json_t *data = json_object_get(ent, "data");
    if (data)
        return data;
    if (!ent) {
        start_load(s, path, false);
        data = json_object_get(json_object_get(s->eps->files, path), "data");
        if (data)
            return data;
    }
    if (call) {
        struct ep_waiter *w = hk_calloc(1, sizeof *w);
        if (w && (w->path = hk_strdup(path))) {
            w->call = call;
            w->params = json_incref(params);
            w->retry = retry;
            w->next = s->eps->waiters;
            s->eps->waiters = w;
            rpc_call_defer(call);
        } else {
            hk_free(w);
            rpc_call_error(call, HK_ENOMEM, NULL);
        }
    }
    return NULL;
}

void lsp_ep_file_reload(struct lsp_server *s, const char *path)
{
    json_t *ent = json_object_get(s->eps->files, path);
    if (ent && json_object_get(ent, "loading"))
        return; /* a load is on its way; it reads the newest rows anyway */
    start_load(s, path, true);
}

void lsp_ep_doc_opened(struct lsp_server *s, doc *d)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || !ld->path || !ld->compilable || lsp_ep_stopping(s))
        return;
    json_t *results = lsp_ep_file_results(s, ld->path, NULL, NULL, NULL);
    if (results) /* cached already: place the results on this document now */
        set_doc_diags(s, d, results);
    /* else the load it queued places them when it ends */
}

/* ---- result diagnostics ---- */

static json_t *make_diag(struct lsp_server *s, doc *d, const an_span *sp, int sev,
                         const char *msg, const char *href)
{
    json_t *range = lsp_range_json(s, d, sp->start_byte, sp->end_byte);
    if (!range)
        return NULL;
    json_t *o = json_pack("{s:o, s:i, s:s, s:s, s:s}", "range", range, "severity", sev,
                          "source", "hyperkernel", "message", msg, "code", "hyperkernel");
    if (o && href) {
        char *uri = lsp_path_to_uri(href);
        if (uri)
            json_object_set_new(o, "codeDescription", json_pack("{s:s}", "href", uri));
        hk_free(uri);
    }
    return o;
}

static void set_doc_diags(struct lsp_server *s, doc *d, json_t *results)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    const an_model *m = lsp_doc_model(ld);
    if (!m) {
        /* the parse of the current text is on the pool: placed when it is in */
        if (ld && ld->an && !lsp_doc_analysis_current(ld))
            ld->ep_diags_due = true;
        return;
    }
    json_t *out = json_array();
    const char *kname;
    json_t *info;
    json_object_foreach(results, kname, info) {
        long k = an_model_find_kernel(m, kname);
        if (!out || k < 0 || (size_t)k >= m->n_funcs)
            continue;
        const an_span *sp = &m->funcs[k].name_span;
        json_t *latest = json_object_get(info, "latest");
        const char *st = json_string_value(json_object_get(latest, "status"));
        bool running = false;
        for (struct ep_run *r = s->eps->runs; r; r = r->next)
            running |= r->path && ld->path && !strcmp(r->path, ld->path) &&
                       !strcmp(r->kernel, kname) && !r->finished;
        if (running)
            continue;
        if (st && (!strcmp(st, "failed") || !strcmp(st, "interrupted"))) {
            const char *err = json_string_value(json_object_get(latest, "error"));
            char *said = hk_tr_said(hk_i18n_lang(), err); /* stored in English */
            char msg[700];
            snprintf(msg, sizeof msg,
                     hk_tr(!strcmp(st, "failed") ? HK_MSG_DIAG_FAILED : HK_MSG_DIAG_INTERRUPTED),
                     said ? said : err ? err : hk_tr(HK_MSG_DIAG_SEE_REPORT));
            hk_free(said);
            hk_utf8_trim(msg); /* %.600s counts bytes */
            json_t *dj = make_diag(s, d, sp, 2, msg,
                                   json_string_value(json_object_get(latest, "report_html")));
            if (dj)
                json_array_append_new(out, dj);
            continue;
        }
        json_t *best = json_object_get(info, "best");
        double sp_x = json_number_value(json_object_get(best, "speedup"));
        if (!best || !(sp_x > 1.0))
            continue;
        /* once the best version is in the file, there is nothing left to offer (as the
         * Apply action judges it: ep_change_place) */
        json_t *chain = json_object_get(info, "chain");
        json_t *last = json_array_get(chain, json_array_size(chain) - 1);
        const char *base = json_string_value(json_object_get(info, "base_text"));
        const char *base_k = json_string_value(json_object_get(info, "base_kernel_text"));
        ep_change ch;
        uint32_t at_a, at_b;
        if (base_k && lsp_ep_change_view(last, &ch) == HK_OK &&
            ep_change_place(&ch, base, base ? strlen(base) : 0, base_k, doc_text(d),
                            doc_length(d), &at_a, &at_b) == EP_PLACE_ALREADY)
            continue;
        struct hk_buf b;
        hk_buf_init(&b, 1024);
        bool sim = json_is_true(json_object_get(best, "simulated"));
        hk_buf_appends(&b, sim ? hk_tr(HK_MSG_DIAG_SIMULATED_PREFIX) : "");
        hk_buf_printf(&b, hk_tr(HK_MSG_DIAG_FASTER), sp_x);
        double base_ms = json_number_value(json_object_get(best, "base_ms"));
        double ms = json_number_value(json_object_get(best, "ms"));
        if (json_is_number(json_object_get(best, "base_ms")) &&
            json_is_number(json_object_get(best, "ms")))
            hk_buf_printf(&b, ": %.3g ms -> %.3g ms", base_ms, ms);
        json_t *bw = json_object_get(best, "bandwidth_pct");
        json_t *roof = json_object_get(best, "roofline_pct");
        /* two significant digits below 10% (a tiny problem is far from any peak) */
        if (json_is_number(bw))
            hk_buf_printf(&b, hk_tr(json_number_value(bw) < 10 ? HK_MSG_DIAG_BANDWIDTH_SMALL
                                                               : HK_MSG_DIAG_BANDWIDTH),
                          json_number_value(bw));
        else if (json_is_number(roof))
            hk_buf_printf(&b, hk_tr(json_number_value(roof) < 10 ? HK_MSG_DIAG_ROOFLINE_SMALL
                                                                 : HK_MSG_DIAG_ROOFLINE),
                          json_number_value(roof));
        hk_buf_printf(&b, hk_tr(HK_MSG_DIAG_EPISODE),
                      (long long)json_integer_value(json_object_get(best, "episode")));
        json_t *dj = b.data ? make_diag(s, d, sp, 3, b.data,
                                        json_string_value(json_object_get(best, "report_html")))
                            : NULL;
        hk_buf_free(&b);
        if (dj)
            json_array_append_new(out, dj);
    }
    /* publish only a change: an unchanged set would re-send every source's diagnostics */
    json_t *prev = ld->diags[LSP_DIAG_REPORT];
    if (!out || (prev ? json_equal(prev, out) : json_array_size(out) == 0)) {
        json_decref(out);
        return;
    }
    lsp_diag_set(s, d, LSP_DIAG_REPORT, out);
}

/* ---- hover ---- */

static void fmt_num(char *out, size_t n, json_t *v, const char *fmt, double scale)
{
    if (json_is_number(v))
        snprintf(out, n, fmt, json_number_value(v) * scale);
    else
        snprintf(out, n, "-");
}

void lsp_ep_hover(struct lsp_server *s, doc *d, const char *kernel, struct hk_buf *b)
{
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!ld || !ld->path || !s->eps)
        return;
    json_t *results = lsp_ep_file_results(s, ld->path, NULL, NULL, NULL);
    json_t *info = json_object_get(results, kernel);
    json_t *table = json_object_get(info, "table");
    bool md = s->cl_markdown;
    for (struct ep_run *r = s->eps->runs; r; r = r->next)
        if (r->path && !strcmp(r->path, ld->path) && !strcmp(r->kernel, kernel) && !r->finished)
            hk_buf_printf(b, "\n%s%s%s (%s): %s, %d%%\n", md ? "**" : "",
                          hk_tr(HK_MSG_HOVER_OPTIMIZING), md ? "**" : "", r->target, r->message,
                          r->percent);
    /* An inferred spec says what it guessed and from where: read with the kernel's
     * results on the pool (inferred_notes), never here on the loop */
    json_t *inferred = json_object_get(info, "spec_inferred");
    json_t *notes = json_object_get(inferred, "notes");
    if (json_array_size(notes)) {
        const char *file = json_string_value(json_object_get(inferred, "file"));
        hk_buf_printf(b, "\n%s%s%s (%s):\n", md ? "**" : "", hk_tr(HK_MSG_HOVER_SPEC_INFERRED),
                      md ? "**" : "", file ? file : "?");
        size_t k;
        json_t *x;
        /* the saved spec's notes are English (its JSON never changes with the language):
         * said again in the session's (docs/i18n.md) */
        enum hk_lang lang = hk_i18n_lang();
        json_array_foreach(notes, k, x) {
            if (!json_is_string(x))
                continue;
            char *said = hk_tr_note(lang, json_string_value(x)); /* NULL in English */
            hk_buf_printf(b, "- %s\n", said ? said : json_string_value(x));
            hk_free(said);
        }
    }
    if (!json_array_size(table))
        return;
    bool any_sim = false;
    size_t i;
    json_t *row;
    json_array_foreach(table, i, row)
        any_sim |= json_is_true(json_object_get(row, "simulated"));
    hk_buf_printf(b, "\n%s%s%s%s\n", md ? "**" : "", hk_tr(HK_MSG_HOVER_HISTORY),
                  any_sim ? hk_tr(HK_MSG_HOVER_HISTORY_SIMULATED) : "", md ? "**" : "");
    /* plaintext clients (eglot) get the column names too */
    hk_buf_appends(b, hk_tr(md ? HK_MSG_HOVER_HISTORY_HEAD_MD : HK_MSG_HOVER_HISTORY_HEAD_TEXT));
    json_array_foreach(table, i, row) {
        char ms[48], sp[48], bw[48], acc[32], date[32] = "-";
        fmt_num(ms, sizeof ms, json_object_get(row, "ms"), "%.3g ms", 1);
        fmt_num(sp, sizeof sp, json_object_get(row, "speedup"), "%.2fx", 1);
        fmt_num(bw, sizeof bw, json_object_get(row, "bytes_per_s"), "%.0f GB/s", 1e-9);
        if (json_is_true(json_object_get(row, "simulated"))) { /* not a measurement */
            size_t l = strlen(sp);
            snprintf(sp + l, sizeof sp - l, "%s", hk_tr(HK_MSG_LSP_HOVER_SIMULATED));
            if (strcmp(ms, "-") != 0) {
                l = strlen(ms);
                snprintf(ms + l, sizeof ms - l, "%s", hk_tr(HK_MSG_LSP_HOVER_SIMULATED));
            }
            if (strcmp(bw, "-") != 0) {
                l = strlen(bw);
                snprintf(bw + l, sizeof bw - l, "%s", hk_tr(HK_MSG_LSP_HOVER_SIMULATED));
            }
        }
        fmt_num(acc, sizeof acc, json_object_get(row, "max_rel_err"), "%.1e rel", 1);
        time_t t = (time_t)(json_integer_value(json_object_get(row, "created_ms")) / 1000);
        struct tm tm;
        if (t > 0 && gmtime_r(&t, &tm))
            strftime(date, sizeof date, "%Y-%m-%d %H:%M", &tm);
        const char *engine = json_string_value(json_object_get(row, "engine"));
        int num = (int)json_integer_value(json_object_get(row, "number"));
        if (md)
            hk_buf_printf(b, "| v%d | %s | %s | %s | %s | %s | %s |\n", num, ms, sp, bw, acc,
                          engine ? engine : "", date);
        else
            hk_buf_printf(b, "v%d  %s  %s  %s  %s  %s  %s\n", num, ms, sp, bw, acc,
                          engine ? engine : "", date);
    }
}
