/* The editor side of episodes (issue 4 contract): code actions and code lenses on kernels,
 * workspace/executeCommand for the hyperkernel.* commands, the hyperkernel/ requests and
 * work-done progress cancellation. Answers from the per-file result cache of episodes.c;
 * store reads go through lsp_ep_query (libuv pool), never on the loop. */
#include "lsp/actions.h"

#include "lsp/loopwatch.h"
#include "lsp/base.h"
#include "lsp/trust.h"
#include "lsp/textsync.h"
#include "lsp/episodes.h"
#include "lsp/lenses.h"

#include "core/buf.h"
#include "core/hk.h"
#include "episode/apply.h"
#include "rewrites/rewrite.h"
#include "spec/infer.h"
#include "spec/spec.h"
#include "report/report.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KIND_OPTIMIZE "refactor.hyperkernel"
#define KIND_APPLY "refactor.rewrite.hyperkernel"
/* How long applyVersion/applied wait for the client's didChange before judging. */
#define VERIFY_POLL_MS 100
#define VERIFY_TRIES 20
/* Caps on the "expect" strings hyperkernel.applied accepts from its arguments. */
#define APPLY_EXPECT_MAX 256
#define APPLY_EXPECT_BYTES ((size_t)4 << 20)

static const char *const commands[] = {
    "hyperkernel.optimize",  "hyperkernel.createSpec", "hyperkernel.applyVersion",
    "hyperkernel.applied",   "hyperkernel.showReport", "hyperkernel.cancel",
    "hyperkernel.trustFolder", "hyperkernel.untrustFolder",
};

void lsp_ep_capabilities(json_t *caps)
{
    json_t *cmds = json_array();
    for (size_t i = 0; cmds && i < HK_ARRAY_LEN(commands); i++)
        json_array_append_new(cmds, json_string(commands[i]));
    json_object_set_new(caps, "codeActionProvider",
                        json_pack("{s:[s,s], s:b}", "codeActionKinds", KIND_OPTIMIZE,
                                  KIND_APPLY, "resolveProvider", 0));
    json_object_set_new(caps, "codeLensProvider", json_pack("{s:b}", "resolveProvider", 0));
    json_object_set_new(caps, "executeCommandProvider", json_pack("{s:o}", "commands", cmds));
}

/* ---- small helpers ---- */

static char *iso_time(int64_t ms)
{
    if (ms <= 0)
        return NULL;
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char buf[32];
    if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return NULL;
    return hk_strdup(buf);
}

static void set_time(json_t *o, const char *key, int64_t ms)
{
    char *t = iso_time(ms);
    if (t)
        json_object_set_new(o, key, json_string(t));
    hk_free(t);
}

static void set_num(json_t *o, const char *key, double v)
{
    if (isfinite(v))
        json_object_set_new(o, key, json_real(v));
}

/* The first argument of an executeCommand (borrowed) or NULL. */
static json_t *arg0(json_t *params)
{
    json_t *a = json_array_get(json_object_get(params, "arguments"), 0);
    return json_is_object(a) ? a : NULL;
}

static const char *str_of(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* An episode id given as a number or a numeric string; 0 when absent or malformed. */
static int64_t episode_of(json_t *o)
{
    json_t *v = json_object_get(o, "episode");
    if (json_is_integer(v))
        return json_integer_value(v);
    const char *t = json_string_value(v);
    if (t && *t) {
        char *end;
        long long n = strtoll(t, &end, 10);
        if (!*end && n > 0)
            return n;
    }
    return 0;
}

/* The kernel under the cursor (byte off) of d: a kernel definition or a launch site.
 * Borrowed name from the model, or NULL. */
static const char *kernel_at(const an_model *m, uint32_t off, const an_function **fout)
{
    *fout = NULL;
    long li = an_model_launch_at(m, off);
    if (li >= 0 && (size_t)li < m->n_launches) {
        long k = an_model_find_kernel(m, m->launches[li].kernel);
        if (k >= 0 && (size_t)k < m->n_funcs)
            *fout = &m->funcs[k];
        return m->launches[li].kernel;
    }
    long fi = an_model_function_at(m, off);
    if (fi >= 0 && (size_t)fi < m->n_funcs && m->funcs[fi].kind == AN_KERNEL) {
        *fout = &m->funcs[fi];
        return m->funcs[fi].name;
    }
    return NULL;
}

static json_t *command_json(const char *title, const char *cmd, json_t *arg /* stolen */)
{
    return json_pack("{s:s, s:s, s:[o]}", "title", title, "command", cmd, "arguments",
                     arg ? arg : json_object());
}

/* The NVIDIA target to offer: the configured one when it is NVIDIA. New string. */
static char *nvidia_target(struct lsp_server *s) { return lsp_nvidia_target(s); }

/* ---- building the apply edit ---- */

/* The chain entry of version number in info, or NULL. */
static json_t *chain_version(json_t *info, int number)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(info, "chain"), i, c) {
        if (json_integer_value(json_object_get(c, "number")) == number)
            return c;
    }
    return NULL;
}

/* What applying one chain version takes, against a snapshot of a document's text. The
 * pool thread fills edits (byte offsets into the snapshot); plan_finish turns them into
 * the WorkspaceEdit on the loop, where the document's line index lives. */
struct apply_plan {
    json_t *edits;  /* [{start, end, newText}] front to back (new reference), or NULL */
    json_t *edit;   /* WorkspaceEdit (new reference), or NULL with reason set */
    char *reason;   /* why it cannot be applied (new string) */
    json_t *expect; /* strings the document holds once the edit landed (new reference) */
    char *note;     /* what the user must still do (no launch site in this file...), or NULL */
};

static void plan_clear(struct apply_plan *p)
{
    json_decref(p->edits);
    json_decref(p->edit);
    json_decref(p->expect);
    hk_free(p->reason);
    hk_free(p->note);
    memset(p, 0, sizeof *p);
}

/* The text a plan is computed against: a copy of a document's text taken on the loop,
 * read on a pool thread. Its model is analysed there on first need (never on the loop). */
struct apply_snap {
    const char *text;
    size_t len;
    bool hip_file;  /* the document is a .hip file */
    an_model *m;    /* owned, NULL until analysed */
    int m_rc;       /* the analysis' error, once tried */
    bool m_tried;
};

/* The snapshot's model (borrowed), analysed on the first call; NULL with sn->m_rc set when
 * the text cannot be analysed. Pool thread. */
static const an_model *snap_model(struct apply_snap *sn)
{
    if (!sn->m_tried) {
        sn->m_tried = true;
        sn->m_rc = an_analyze(sn->text, sn->len, &sn->m);
        if (sn->m_rc)
            sn->m = NULL;
    }
    return sn->m;
}

/* The launch-site edits that make text (the snapshot's, or the snapshot's with the
 * version's file edit applied) launch chain version c as it was measured: rw_launch_config
 * on that text, with m its model (NULL: analysed here). HK_OK with r and rep filled
 * (r->applicable false: r->description says why not), or an error (*why: static text).
 * Pure: any thread (the pool's, for code actions). */
static int launch_edits(bool hip_file, json_t *info, json_t *c, const char *text, size_t len,
                        const an_model *m, rw_result *r, rw_launch_report *rep, const char **why)
{
    const char *kernel = str_of(info, "kernel");
    char err[256];
    ep_launch_fail fail;
    memset(r, 0, sizeof *r);
    memset(rep, 0, sizeof *rep);
    *why = NULL;
    if (!kernel) {
        *why = hk_tr(HK_MSG_LSP_WHY_KERNEL_UNKNOWN);
        return HK_EINVAL;
    }
    const char *target = str_of(json_object_get(info, "best"), "target");
    /* base_launch: the baseline version's launch, when the episode list carries it */
    int rc = ep_apply_launch(text, len, m, kernel, json_object_get(c, "launch"),
                             json_object_get(info, "base_launch"),
                             hip_file || ep_apply_hip(target, NULL), r, rep, &fail, err,
                             sizeof err);
    if (fail == EP_LAUNCH_JSON)
        *why = hk_tr(HK_MSG_LSP_WHY_LAUNCH_UNREADABLE);
    else if (fail == EP_LAUNCH_ANALYSE)
        *why = hk_tr(HK_MSG_LSP_WHY_NOT_ANALYSED);
    else if (rc)
        *why = hk_strerror(rc);
    return rc;
}

/* The launch rewrites of one document text, by launch configuration: the versions of a
 * chain often share one, a code action lists them all, and a rewrite with edits parses
 * its result again, so one code action rewrites each distinct launch once. */
#define LAUNCH_MEMO_MAX 8
struct launch_memo {
    size_t n;
    struct {
        char *key;
        int rc;
        const char *why;
        rw_result r;
        rw_launch_report rep;
    } e[LAUNCH_MEMO_MAX];
};

static void launch_memo_free(struct launch_memo *lm)
{
    for (size_t i = 0; lm && i < lm->n; i++) {
        hk_free(lm->e[i].key);
        rw_result_free(&lm->e[i].r);
        rw_launch_report_free(&lm->e[i].rep);
    }
}

/* Deep copy of a launch rewrite's outcome. HK_OK or HK_ENOMEM (dst cleared). */
static int launch_copy(const rw_result *r, const rw_launch_report *rep, rw_result *r2,
                       rw_launch_report *rep2)
{
    *r2 = *r;
    *rep2 = *rep;
    r2->text = NULL;
    r2->description = r->description ? hk_strdup(r->description) : NULL;
    rep2->edits = rep->n_edits ? hk_calloc(rep->n_edits, sizeof *rep2->edits) : NULL;
    rep2->n_edits = 0;
    bool ok = (!r->description || r2->description) && (!rep->n_edits || rep2->edits);
    for (size_t i = 0; ok && i < rep->n_edits; i++) {
        rw_launch_edit *e = &rep2->edits[rep2->n_edits++];
        *e = rep->edits[i];
        e->text = hk_strdup(rep->edits[i].text);
        e->after = hk_strdup(rep->edits[i].after);
        ok = e->text && e->after;
    }
    if (ok)
        return HK_OK;
    rw_result_free(r2);
    rw_launch_report_free(rep2);
    return HK_ENOMEM;
}

/* launch_edits on the snapshot's text, through the memo (may be NULL). */
static int launch_edits_memo(struct launch_memo *lm, struct apply_snap *sn, json_t *info,
                             json_t *c, rw_result *r, rw_launch_report *rep, const char **why)
{
    char *key = NULL;
    if (lm) {
        json_t *k = json_pack("[O?,O?]", json_object_get(c, "launch"),
                              json_object_get(info, "base_launch"));
        key = k ? json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(k);
    }
    for (size_t i = 0; key && i < lm->n; i++) {
        if (strcmp(lm->e[i].key, key) != 0)
            continue;
        hk_free(key);
        *why = lm->e[i].why;
        memset(r, 0, sizeof *r);
        memset(rep, 0, sizeof *rep);
        if (lm->e[i].rc)
            return lm->e[i].rc;
        return launch_copy(&lm->e[i].r, &lm->e[i].rep, r, rep);
    }
    const an_model *m = snap_model(sn);
    int rc;
    if (!m) {
        memset(r, 0, sizeof *r);
        memset(rep, 0, sizeof *rep);
        *why = hk_tr(HK_MSG_LSP_WHY_NOT_ANALYSED);
        rc = sn->m_rc ? sn->m_rc : HK_EPARSE;
    } else {
        rc = launch_edits(sn->hip_file, info, c, sn->text, sn->len, m, r, rep, why);
    }
    if (key && lm->n < LAUNCH_MEMO_MAX && rc != HK_ENOMEM) {
        char *own = hk_strdup(key);
        if (own && (rc || launch_copy(r, rep, &lm->e[lm->n].r, &lm->e[lm->n].rep) == HK_OK)) {
            lm->e[lm->n].key = own;
            lm->e[lm->n].rc = rc;
            lm->e[lm->n].why = *why;
            if (rc) {
                memset(&lm->e[lm->n].r, 0, sizeof lm->e[lm->n].r);
                memset(&lm->e[lm->n].rep, 0, sizeof lm->e[lm->n].rep);
            }
            lm->n++;
        } else {
            hk_free(own);
        }
    }
    hk_free(key);
    return rc;
}

static int edit_cmp(const void *a, const void *b)
{
    uint32_t x = (uint32_t)json_integer_value(json_object_get(*(json_t *const *)a, "start"));
    uint32_t y = (uint32_t)json_integer_value(json_object_get(*(json_t *const *)b, "start"));
    return x < y ? -1 : x > y;
}

/* Plans the edit of chain entry c against the snapshot sn: the kernel's text (kinds
 * "kernel" and "file") and the launch sites' grid and block as the version was measured
 * (every kind, "launch" included), several edits of one document, non-overlapping, all
 * against the snapshot's text. Either p->edits (with p->expect) or p->reason is set on
 * return. Parses (tree-sitter), so it runs on a pool thread; info and c must not be
 * touched by another thread meanwhile. */
static void plan_compute(struct apply_snap *sn, json_t *info, json_t *c,
                         struct launch_memo *lm, struct apply_plan *p)
{
    memset(p, 0, sizeof *p);
    const char *kind = str_of(c, "kind");
    int num = (int)json_integer_value(json_object_get(c, "number"));
    long long ep = (long long)json_integer_value(json_object_get(
        json_object_get(info, "best"), "episode"));
    const char *text = sn->text;
    size_t len = sn->len;
    const char *after = str_of(c, "after");
    const char *base_k = str_of(info, "base_kernel_text");
    rw_result lr = {0};
    rw_launch_report rep = {0};
    json_t *tes = NULL;
    if (!kind || !base_k) {
        p->reason = hk_strdup(hk_tr(HK_MSG_LSP_APPLY_VERSIONS_UNREADABLE));
        goto out;
    }
    /* the version's change as lsp/episodes.c recorded it (ep_change_of on the pool) */
    ep_change ch;
    if (lsp_ep_change_view(c, &ch)) {
        p->reason = hk_strdup(hk_tr(HK_MSG_LSP_APPLY_VERSIONS_UNREADABLE));
        goto out;
    }
    const char *base = str_of(info, "base_text");
    uint32_t a = 0, b = 0;
    ep_place place = ep_change_place(&ch, base, base ? strlen(base) : 0, base_k, text, len,
                                     &a, &b);
    bool kernel_edit = place == EP_PLACE_AT && ch.kind != EP_CHANGE_LAUNCH;
    bool already = place == EP_PLACE_ALREADY; /* the kernel is in; its launch may not be */
    if (place == EP_PLACE_STALE && ch.kind != EP_CHANGE_FILE) {
        p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_APPLY_KERNEL_CHANGED), ep);
        goto out;
    }
    if (place == EP_PLACE_STALE || place == EP_PLACE_STALE_FILE) {
        p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_APPLY_FILE_CHANGED), ep, num);
        goto out;
    }
    if (kernel_edit && (a > b || b > len)) {
        p->reason = hk_strdup(hk_tr(HK_MSG_LSP_APPLY_VERSIONS_UNREADABLE));
        goto out;
    }
    const char *why = NULL;
    const char *nt = str_of(c, "new_text") ? str_of(c, "new_text") : "";
    size_t ntl = strlen(nt);
    int rc;
    if (kernel_edit && !strcmp(kind, "file")) {
        /* the version changes code outside the kernel (a #define the launch may use):
         * read the launch in the text as it will be, and map the edits back */
        char *full = hk_malloc(len - (b - a) + ntl + 1);
        if (!full)
            goto oom;
        memcpy(full, text, a);
        memcpy(full + a, nt, ntl);
        memcpy(full + a + ntl, text + b, len - b);
        full[len - (b - a) + ntl] = '\0';
        rc = launch_edits(sn->hip_file, info, c, full, len - (b - a) + ntl, NULL, &lr, &rep,
                          &why);
        hk_free(full);
        for (size_t i = 0; rc == HK_OK && lr.applicable && i < rep.n_edits; i++) {
            rw_launch_edit *e = &rep.edits[i];
            if (e->end <= a && !(e->start == a && a == b)) {
                continue;
            } else if (e->start >= a + ntl && !(e->start == a + ntl && a == b)) {
                e->start = (uint32_t)(e->start - ntl + (b - a));
                e->end = (uint32_t)(e->end - ntl + (b - a));
            } else {
                p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_APPLY_LAUNCH_INSIDE), num, e->line);
                goto out;
            }
        }
    } else {
        rc = launch_edits_memo(lm, sn, info, c, &lr, &rep, &why);
    }
    if (rc) {
        p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_APPLY_LAUNCH_CANNOT), num, why ? why : hk_strerror(rc));
        goto out;
    }
    if (!lr.applicable) {
        p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_APPLY_LAUNCH_CANNOT), num, lr.description);
        goto out;
    }
    if (!kernel_edit && !rep.n_edits) {
        if (rep.advice)
            p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_LOG_VERSION_NOTE), num, lr.description);
        else
            p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_APPLY_ALREADY), num);
        goto out;
    }
    if (rep.advice && !(p->note = hk_strdup(lr.description)))
        goto oom;
    tes = json_array();
    p->expect = json_array();
    if (!tes || !p->expect)
        goto oom;
    if (kernel_edit) {
        json_t *te = json_pack("{s:I, s:I, s:s}", "start", (json_int_t)a, "end", (json_int_t)b,
                               "newText", nt);
        if (!te || json_array_append_new(tes, te))
            goto oom;
    }
    if ((kernel_edit || already) && after && json_array_append_new(p->expect, json_string(after)))
        goto oom;
    for (size_t i = 0; i < rep.n_edits; i++) {
        const rw_launch_edit *e = &rep.edits[i];
        if (kernel_edit && ((e->start < b && e->end > a) || (e->start == a && a == b))) {
            p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_APPLY_LAUNCH_IN_KERNEL), num, str_of(info, "kernel"),
                                    e->line);
            goto out;
        }
        if (kernel_edit && e->start == e->end && (e->start == a || e->start == b) && a != b) {
            p->reason = hk_asprintf(hk_tr(HK_MSG_LSP_APPLY_LAUNCH_TOUCHES), num, e->line);
            goto out;
        }
        json_t *te = json_pack("{s:I, s:I, s:s}", "start", (json_int_t)e->start, "end",
                               (json_int_t)e->end, "newText", e->text);
        if (!te || json_array_append_new(tes, te) ||
            json_array_append_new(p->expect, json_string(e->after)))
            goto oom;
    }
    /* front to back, then drop the sort key */
    size_t n = json_array_size(tes);
    json_t **v = n ? hk_malloc(n * sizeof *v) : NULL;
    if (n && !v)
        goto oom;
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(tes, i));
    qsort(v, n, sizeof *v, edit_cmp);
    json_array_clear(tes);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(tes, v[i]);
    hk_free(v);
    p->edits = tes;
    tes = NULL;
    goto out;
oom:
    plan_clear(p);
    p->reason = hk_strdup(hk_tr(HK_MSG_LSP_ERR_OOM));
out:
    if (p->reason) {
        json_decref(p->edits);
        json_decref(p->expect);
        hk_free(p->note);
        p->edits = p->expect = NULL;
        p->note = NULL;
    }
    json_decref(tes);
    rw_result_free(&lr);
    rw_launch_report_free(&rep);
}

/* Turns p->edits (byte offsets into d's text) into p->edit, the WorkspaceEdit; d must
 * hold the very text the plan was computed against. Loop thread. */
static void plan_finish(struct lsp_server *s, doc *d, struct apply_plan *p)
{
    if (p->reason || !p->edits)
        return;
    json_t *tes = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(p->edits, i, e) {
        uint32_t a = (uint32_t)json_integer_value(json_object_get(e, "start"));
        uint32_t b = (uint32_t)json_integer_value(json_object_get(e, "end"));
        json_t *range = tes ? lsp_range_json(s, d, a, b) : NULL;
        json_t *te = range ? json_pack("{s:o, s:O}", "range", range, "newText",
                                       json_object_get(e, "newText"))
                           : NULL;
        if (!te || json_array_append_new(tes, te)) {
            json_decref(tes);
            tes = NULL;
            break;
        }
    }
    if (tes && s->cl_doc_changes)
        p->edit = json_pack("{s:[{s:{s:s, s:I}, s:O}]}", "documentChanges", "textDocument",
                            "uri", doc_uri(d), "version", (json_int_t)doc_version(d), "edits", tes);
    else if (tes)
        p->edit = json_pack("{s:{s:O}}", "changes", doc_uri(d), tes);
    json_decref(tes);
    if (!p->edit) {
        plan_clear(p);
        p->reason = hk_strdup(hk_tr(HK_MSG_LSP_ERR_OOM));
    }
}

/* ---- planning off the loop ----
 * A plan re-parses text (the document's, and for a "file" version the text as it will be):
 * on a 700 KB file that is tens of milliseconds to seconds, so it runs on the libuv pool
 * (STYLE.md 9; issue 14) and the request is answered from the after callback. The job owns
 * a copy of the text and a deep copy of the kernel's results: the pool thread touches
 * nothing the loop does. When the document changed meanwhile the plans are of old text:
 * the request gets ContentModified (HK_ESTALE) and the client asks again; nothing computed
 * against the old text reaches the new one. A $/cancelRequest drops a job not yet started
 * (uv_cancel); a running one finishes and its answer is dropped. */
struct plan_job;
/* Called on the loop when every plan is finished against d (same text as the snapshot);
 * it must finish j->call. */
typedef void (*plan_done_fn)(struct lsp_server *s, struct plan_job *j, doc *d);

struct plan_job {
    uv_work_t req;
    struct lsp_server *s;
    rpc_call *call;
    char *uri;
    int64_t version;
    char *text;              /* the document's text when queued (owned) */
    size_t len;
    size_t text_cap;         /* bytes at text (lsp_doc_copy_buffer) */
    bool hip_file;
    json_t *info;            /* deep copy of the kernel's results (owned) */
    int number;              /* the one chain version to plan, or -1: all, in chain order */
    struct apply_plan *plans;
    size_t n_plans;
    plan_done_fn done;
    /* for done (loop only) */
    char *kernel;
    json_t *out, *only, *tail;
    json_t *params;
};

static void plan_job_free(struct plan_job *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n_plans; i++)
        plan_clear(&j->plans[i]);
    hk_free(j->plans);
    hk_free(j->uri);
    hk_free(j->text);
    hk_free(j->kernel);
    json_decref(j->info);
    json_decref(j->out);
    json_decref(j->only);
    json_decref(j->tail);
    json_decref(j->params);
    hk_free(j);
}

/* Pool thread: every plan of the job against its snapshot. */
static void plan_work(uv_work_t *req)
{
    hk_thread_background();
    struct plan_job *j = req->data;
    struct apply_snap sn = {.text = j->text, .len = j->len, .hip_file = j->hip_file};
    struct launch_memo memo = {0};
    json_t *chain = json_object_get(j->info, "chain");
    if (j->number >= 0) {
        json_t *c = chain_version(j->info, j->number);
        if (c)
            plan_compute(&sn, j->info, c, NULL, &j->plans[0]);
        else
            j->plans[0].reason = hk_strdup(hk_tr(HK_MSG_LSP_WHY_VERSION_GONE));
    } else {
        for (size_t i = 0; i < j->n_plans; i++)
            plan_compute(&sn, j->info, json_array_get(chain, i), &memo, &j->plans[i]);
    }
    launch_memo_free(&memo);
    an_model_free(sn.m);
}

static void plan_after(uv_work_t *req, int status)
{
    struct plan_job *j = req->data;
    struct lsp_server *s = j->s;
    lsp_loopwatch_note(s->loopwatch, "(Apply plan done)"); /* i18n: not for people */
    s->plan_jobs--;
    rpc_call_on_cancel(j->call, NULL, NULL);
    doc *d = doc_get(s->docs, j->uri);
    if (status == UV_ECANCELED || s->stopped || rpc_call_cancelled(j->call)) {
        rpc_call_error(j->call, HK_ECANCELED, NULL);
    } else if (!d || doc_version(d) != j->version || doc_length(d) != j->len ||
               memcmp(doc_text(d), j->text, j->len) != 0) {
        rpc_call_error(j->call, HK_ESTALE, hk_tr(HK_MSG_LSP_ERR_DOC_CHANGED_EDITS));
    } else {
        for (size_t i = 0; i < j->n_plans; i++)
            plan_finish(s, d, &j->plans[i]);
        j->done(s, j, d);
    }
    d = doc_get(s->docs, j->uri); /* done may have changed the documents */
    lsp_doc_copy_return(d ? lsp_doc_of(d) : NULL, j->text, j->text_cap);
    j->text = NULL;
    plan_job_free(j);
}

static void plan_cancelled(rpc_call *call, void *ud)
{
    struct plan_job *j = ud;
    (void)call;
    uv_cancel((uv_req_t *)&j->req); /* fails once started: plan_after drops the answer */
}

/* A job planning chain version number (-1: every version) of info (borrowed; copied) for
 * d as it is now. NULL on ENOMEM. Loop thread. */
static struct plan_job *plan_job_new(struct lsp_server *s, rpc_call *call, doc *d,
                                     json_t *info, int number, plan_done_fn done)
{
    struct plan_job *j = hk_calloc(1, sizeof *j);
    if (!j)
        return NULL;
    struct lsp_doc *ld = lsp_doc_of(d);
    j->req.data = j;
    j->s = s;
    j->call = call;
    j->number = number;
    j->done = done;
    j->version = doc_version(d);
    j->len = doc_length(d);
    j->hip_file = ld && cc_path_is_hip(ld->path);
    j->n_plans = number >= 0 ? 1 : json_array_size(json_object_get(info, "chain"));
    j->uri = hk_strdup(doc_uri(d));
    j->text = lsp_doc_copy_buffer(ld, j->len + 1, &j->text_cap);
    j->info = json_deep_copy(info);
    j->plans = hk_calloc(j->n_plans ? j->n_plans : 1, sizeof *j->plans);
    if (!j->uri || !j->text || !j->info || !j->plans) {
        j->n_plans = 0;
        plan_job_free(j);
        return NULL;
    }
    memcpy(j->text, doc_text(d), j->len);
    j->text[j->len] = '\0';
    return j;
}

/* Defers j->call and queues the job; on failure answers the call and frees j. */
static void plan_job_queue(struct plan_job *j)
{
    struct lsp_server *s = j->s;
    rpc_call_defer(j->call);
    if (uv_queue_work(s->loop, &j->req, plan_work, plan_after)) {
        rpc_call_error(j->call, HK_EIO, hk_tr(HK_MSG_LSP_ERR_QUEUE_EDITS));
        plan_job_free(j);
        return;
    }
    s->plan_jobs++;
    rpc_call_on_cancel(j->call, plan_cancelled, j);
}

static char *apply_title(json_t *c)
{
    int num = (int)json_integer_value(json_object_get(c, "number"));
    json_t *sp = json_object_get(c, "speedup");
    bool sim = json_is_true(json_object_get(c, "simulated"));
    if (json_is_number(sp))
        return hk_trf(HK_MSG_ACT_APPLY_SPEEDUP, num, json_number_value(sp),
                      sim ? hk_tr(HK_MSG_SIMULATED_WORD) : "");
    return hk_trf(HK_MSG_ACT_APPLY, num, sim ? hk_tr(HK_MSG_SIMULATED_PAREN) : "");
}

/* ---- textDocument/codeAction ---- */

static bool kind_wanted(json_t *only, const char *kind)
{
    if (!json_array_size(only))
        return true;
    size_t i;
    json_t *k;
    json_array_foreach(only, i, k) {
        const char *w = json_string_value(k);
        size_t n = w ? strlen(w) : 0;
        if (w && strncmp(kind, w, n) == 0 && (kind[n] == '\0' || kind[n] == '.'))
            return true;
    }
    return false;
}

static void push_action(json_t *out, json_t *only, const char *title, const char *kind,
                        json_t *command, json_t *edit, const char *disabled, bool preferred)
{
    if (!kind_wanted(only, kind)) {
        json_decref(command);
        json_decref(edit);
        return;
    }
    json_t *a = json_pack("{s:s, s:s}", "title", title, "kind", kind);
    if (!a) {
        json_decref(command);
        json_decref(edit);
        return;
    }
    if (command)
        json_object_set_new(a, "command", command);
    if (edit)
        json_object_set_new(a, "edit", edit);
    if (disabled)
        json_object_set_new(a, "disabled", json_pack("{s:s}", "reason", disabled));
    if (preferred)
        json_object_set_new(a, "isPreferred", json_true());
    json_array_append_new(out, a);
}

static json_t *kernel_args(const char *uri, const char *kernel)
{
    return json_pack("{s:s, s:s}", "uri", uri, "kernel", kernel);
}

static void on_code_action(rpc_call *call, json_t *params, void *ud);
struct plan_job;
static void code_action_done(struct lsp_server *s, struct plan_job *j, doc *d);

static void retry_code_action(struct lsp_server *s, rpc_call *call, json_t *params)
{
    on_code_action(call, params, s);
}

static void on_code_action(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    if (lsp_doc_await_analysis(s, call, params, on_code_action))
        return;
    const char *uri = json_string_value(json_object_get(json_object_get(params, "textDocument"),
                                                        "uri"));
    doc *d = uri ? doc_get(s->docs, uri) : NULL;
    if (!d) {
        rpc_call_error(call, uri ? HK_ENOENT : HK_EINVAL,
                       hk_tr(uri ? HK_MSG_LSP_ERR_NOT_OPEN : HK_MSG_LSP_ERR_URI_STRING));
        return;
    }
    struct doc_pos p;
    uint32_t off;
    if (doc_parse_position(json_object_get(json_object_get(params, "range"), "start"), &p) ||
        doc_offset_at(d, s->enc, p, &off)) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_RANGE_START));
        return;
    }
    const an_model *m = lsp_doc_model(lsp_doc_of(d));
    const an_function *f = NULL;
    const char *kernel = m ? kernel_at(m, off, &f) : NULL;
    struct lsp_doc *ld = lsp_doc_of(d);
    if (!kernel || !ld || !ld->path) {
        rpc_call_reply(call, json_array());
        return;
    }
    json_t *results = lsp_ep_file_results(s, ld->path, call, params, retry_code_action);
    if (!results) {
        /* deferred until the file's results are read (or answered with an error) */
        return;
    }
    json_t *only = json_object_get(json_object_get(params, "context"), "only");
    json_t *out = json_array();
    char *nv = nvidia_target(s);
    json_t *a;
    if ((a = kernel_args(uri, kernel)))
        json_object_set_new(a, "target", json_string(nv ? nv : "nvidia"));
    push_action(out, only, hk_tr(HK_MSG_ACT_OPTIMIZE_NVIDIA), KIND_OPTIMIZE,
                command_json(hk_tr(HK_MSG_ACT_OPTIMIZE_NVIDIA), "hyperkernel.optimize", a),
                NULL, NULL, false);
    if ((a = kernel_args(uri, kernel)))
        json_object_set_new(a, "target", json_string("dcu"));
    push_action(out, only, hk_tr(HK_MSG_ACT_OPTIMIZE_DCU), KIND_OPTIMIZE,
                command_json(hk_tr(HK_MSG_ACT_OPTIMIZE_DCU), "hyperkernel.optimize", a), NULL,
                NULL, false);
    size_t i;
    json_t *eng;
    json_array_foreach(s->cfg.ep.engines, i, eng) {
        const char *name = str_of(eng, "name");
        char *title = hk_trf(HK_MSG_ACT_OPTIMIZE_NVIDIA_WITH, name);
        if ((a = kernel_args(uri, kernel))) {
            json_object_set_new(a, "target", json_string(nv ? nv : "nvidia"));
            json_object_set_new(a, "engine", json_string(name));
        }
        if (title)
            push_action(out, only, title, KIND_OPTIMIZE,
                        command_json(title, "hyperkernel.optimize", a), NULL, NULL, false);
        else
            json_decref(a);
        hk_free(title);
    }
    hk_free(nv);
    char *spec_path = spec_find(ld->path, kernel);
    if (!spec_path)
        push_action(out, only, hk_tr(HK_MSG_ACT_CREATE_SPEC), KIND_OPTIMIZE,
                    command_json(hk_tr(HK_MSG_ACT_CREATE_SPEC), "hyperkernel.createSpec",
                                 kernel_args(uri, kernel)),
                    NULL, NULL, false);
    hk_free(spec_path);
    json_t *info = json_object_get(results, kernel);
    json_t *best = json_object_get(info, "best");
    json_t *latest = json_object_get(info, "latest");
    json_t *rep_ep = best ? json_object_get(best, "episode") : NULL;
    if (!rep_ep && str_of(latest, "report_html"))
        rep_ep = json_object_get(latest, "id");
    /* "Show report" comes after the Apply actions */
    json_t *tail = json_array();
    if (rep_ep && tail)
        push_action(tail, only, hk_tr(HK_MSG_ACT_SHOW_REPORT), KIND_OPTIMIZE,
                    command_json(hk_tr(HK_MSG_ACT_SHOW_REPORT), "hyperkernel.showReport",
                                 json_pack("{s:O}", "episode", rep_ep)),
                    NULL, NULL, false);
    if (!json_array_size(json_object_get(info, "chain")) || !kind_wanted(only, KIND_APPLY)) {
        json_array_extend(out, tail);
        json_decref(tail);
        rpc_call_reply(call, out);
        return;
    }
    /* the Apply actions re-parse the text: on the pool (plan_job) */
    struct plan_job *j = plan_job_new(s, call, d, info, -1, code_action_done);
    if (!j || !(j->kernel = hk_strdup(kernel)) || (only && !(j->only = json_deep_copy(only)))) {
        plan_job_free(j);
        json_decref(out);
        json_decref(tail);
        rpc_call_error(call, HK_ENOMEM, NULL);
        return;
    }
    j->out = out;
    j->tail = tail;
    plan_job_queue(j);
}

/* The Apply actions of a code action, once planned on the pool, then "Show report". */
static void code_action_done(struct lsp_server *s, struct plan_job *j, doc *d)
{
    (void)d;
    json_t *info = j->info, *only = j->only, *out = j->out;
    const char *uri = j->uri, *kernel = j->kernel;
    json_t *best = json_object_get(info, "best");
    json_t *chain = json_object_get(info, "chain");
    size_t n_chain = json_array_size(chain), i;
    json_t *c;
    json_array_foreach(chain, i, c) {
        if (i >= j->n_plans)
            break;
        struct apply_plan *ap = &j->plans[i];
        char *title = apply_title(c);
        if (!title)
            continue;
        json_t *args = kernel_args(uri, kernel);
        if (args) {
            json_object_set(args, "episode", json_object_get(best, "episode"));
            json_object_set(args, "version", json_object_get(c, "number"));
            /* what hyperkernel.applied must find once the edit landed: the launch
             * sites' new lines as well as the kernel's text */
            if (ap->expect)
                json_object_set(args, "expect", ap->expect);
            if (ap->note)
                json_object_set_new(args, "note", json_string(ap->note));
        }
        if (ap->edit) {
            push_action(out, only, title, KIND_APPLY,
                        command_json(title, "hyperkernel.applied", args), json_incref(ap->edit),
                        NULL, i + 1 == n_chain);
        } else if (s->cl_action_disabled) {
            json_decref(args);
            push_action(out, only, title, KIND_APPLY, NULL, NULL, ap->reason, false);
        } else {
            json_decref(args);
        }
        hk_free(title);
    }
    json_array_extend(out, j->tail);
    rpc_call_reply(j->call, json_incref(out));
}

/* ---- textDocument/codeLens ---- */

static void on_code_lens(rpc_call *call, json_t *params, void *ud);

static void retry_code_lens(struct lsp_server *s, rpc_call *call, json_t *params)
{
    on_code_lens(call, params, s);
}

/* A lens whose argument and title are made with jansson (the few kernels with results). */
static int lens_json(struct hk_buf *b, bool *first, const char *range, const char *title,
                     const char *cmd, json_t *arg /* stolen */)
{
    json_t *t = json_string(title);
    char *tt = t ? json_dumps(t, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    char *at = arg ? json_dumps(arg, JSON_COMPACT) : NULL;
    json_decref(t);
    json_decref(arg);
    int rc = tt && at ? HK_OK : HK_ENOMEM;
    struct hk_buf c;
    hk_buf_init(&c, 1024);
    rc = rc ? rc : lsp_json_str(&c, cmd);
    rc = rc ? rc : lsp_lens_text(b, first, range, tt, c.data, at);
    hk_buf_free(&c);
    hk_free(tt);
    hk_free(at);
    return rc;
}

/* Appends the lenses of kernel f's results (info: its entry in the file's results):
 * "best ... - Apply" and "Report". */
static int result_lenses(struct lsp_server *s, struct hk_buf *b, bool *first, const doc *d,
                         const char *uri, const an_function *f, json_t *info)
{
    char range[160];
    if (lsp_lens_range(d, s->enc, f, range, sizeof range) != 0)
        return HK_OK;
    int rc = HK_OK;
    json_t *best = json_object_get(info, "best");
    json_t *chain = json_object_get(info, "chain");
    json_t *last = json_array_get(chain, json_array_size(chain) - 1);
    double sp = json_number_value(json_object_get(best, "speedup"));
    if (best && last && sp > 1.0) {
        int num = (int)json_integer_value(json_object_get(last, "number"));
        char title[160];
        snprintf(title, sizeof title, hk_tr(HK_MSG_LENS_BEST_APPLY), sp,
                 json_is_true(json_object_get(best, "simulated")) ? hk_tr(HK_MSG_SIMULATED_WORD)
                                                                  : "",
                 num);
        json_t *ja = kernel_args(uri, f->name);
        if (ja) {
            json_object_set(ja, "episode", json_object_get(best, "episode"));
            json_object_set_new(ja, "version", json_integer(num));
        }
        rc = ja ? lens_json(b, first, range, title, "hyperkernel.applyVersion", ja) : HK_ENOMEM;
    }
    json_t *rep = best ? json_object_get(best, "episode") : NULL;
    if (!rep && str_of(json_object_get(info, "latest"), "report_html"))
        rep = json_object_get(json_object_get(info, "latest"), "id");
    if (!rc && rep)
        rc = lens_json(b, first, range, hk_tr(HK_MSG_LENS_REPORT), "hyperkernel.showReport",
                       json_pack("{s:O}", "episode", rep));
    return rc;
}

/* The lenses are JSON text, not jansson objects: a file of 1,000 kernels has 2,000 of
 * them, which as objects cost the loop 23-40 ms and 164,000 heap calls
 * (bench/results/lsp-2026-12-05-s32-face5.md). Every kernel's two Optimize lenses are
 * rendered on the pool after each parse (lenses.c, textsync.c) and lent to the write as
 * they are; the loop writes only the lenses of the kernels that have results, before
 * them. Lenses rendered for another text, encoding, target or language are never sent:
 * they are rendered again here and kept for the requests after. */
static void on_code_lens(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    if (lsp_doc_await_analysis(s, call, params, on_code_lens))
        return;
    const char *uri = json_string_value(json_object_get(json_object_get(params, "textDocument"),
                                                        "uri"));
    doc *d = uri ? doc_get(s->docs, uri) : NULL;
    if (!d) {
        rpc_call_error(call, uri ? HK_ENOENT : HK_EINVAL,
                       hk_tr(uri ? HK_MSG_LSP_ERR_NOT_OPEN : HK_MSG_LSP_ERR_URI_STRING));
        return;
    }
    struct lsp_doc *ld = lsp_doc_of(d);
    const an_model *m = lsp_doc_model(lsp_doc_of(d));
    if (!m || !ld || !ld->path) {
        rpc_call_reply(call, json_array());
        return;
    }
    json_t *results = lsp_ep_file_results(s, ld->path, call, params, retry_code_lens);
    if (!results)
        return; /* deferred until the file's results are read */
    struct lsp_lens_key key = {.gen = ld->text_gen, .enc = s->enc,
                               .nv_target = lsp_nvidia_target(s), .lang = hk_i18n_lang()};
    int rc = key.nv_target ? HK_OK : HK_ENOMEM;
    if (!rc && !lsp_lenses_fit(ld->lenses, &key)) {
        lsp_loopwatch_note(s->loopwatch, "(codeLens rendered on the loop)"); /* i18n: not for people */
        s->lens_loop_renders++;
        struct lsp_lenses *l = lsp_lenses_render(m, d, ld->uri, &key);
        if (l) {
            lsp_lenses_put(ld->lenses);
            ld->lenses = l;
        } else {
            rc = HK_ENOMEM;
        }
    }
    hk_free((char *)key.nv_target);
    /* the kernels with results (few: none in most files) */
    struct hk_buf b;
    hk_buf_init(&b, (size_t)1 << 30);
    bool first = true;
    for (size_t k = 0; !rc && json_object_size(results) && k < m->n_funcs; k++) {
        const an_function *f = &m->funcs[k];
        json_t *info = f->kind == AN_KERNEL ? json_object_get(results, f->name) : NULL;
        if (info)
            rc = result_lenses(s, &b, &first, d, uri, f, info);
    }
    if (rc) {
        hk_buf_free(&b);
        rpc_call_error(call, rc, NULL);
        return;
    }
    size_t n;
    const char *items = lsp_lenses_text(ld->lenses, &n);
    rpc_call_reply_lent_array(call, b.data ? b.data : "", b.len, items, n, lsp_lenses_put,
                              lsp_lenses_ref(ld->lenses));
    hk_buf_free(&b);
}

/* ---- applying a version, and checking that it really landed ---- */

struct verify {
    struct lsp_server *s;
    rpc_call *call;
    char *uri, *path, *note;
    json_t *expect; /* strings the document must hold (the kernel's text, launch lines) */
    int number, tries;
    bool client_said_no;
    char *client_why;
    uv_timer_t timer;
};

static void verify_closed(uv_handle_t *h)
{
    struct verify *v = h->data;
    hk_free(v->uri);
    json_decref(v->expect);
    hk_free(v->note);
    hk_free(v->path);
    hk_free(v->client_why);
    hk_free(v);
}

/* true when the document holds the version's text: every expected piece. */
static bool verify_check(struct verify *v)
{
    doc *d = doc_get(v->s->docs, v->uri);
    if (!d || !json_array_size(v->expect))
        return false;
    size_t i;
    json_t *x;
    json_array_foreach(v->expect, i, x) {
        const char *t = json_string_value(x);
        if (!t || lsp_ep_find(doc_text(d), doc_length(d), t, strlen(t), 0) < 0)
            return false;
    }
    return true;
}

static void verify_finish(struct verify *v, bool ok)
{
    char msg[600];
    if (ok)
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_LSP_APPLY_APPLIED),
                 v->number, v->note ? hk_tr(HK_MSG_LSP_APPLY_NOTE_SEP) : "", v->note ? v->note : "");
    else if (v->client_said_no)
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_LSP_APPLY_CLIENT_REFUSED),
                 v->number, v->client_why ? ": " : "", v->client_why ? v->client_why : "");
    else
        snprintf(msg, sizeof msg,
                 hk_tr(HK_MSG_LSP_APPLY_NOT_HELD),
                 v->number);
    if (!ok)
        lsp_log_message(v->s, 2, "%s", msg);
    else if (v->note)
        lsp_log_message(v->s, 3, hk_tr(HK_MSG_LSP_LOG_VERSION_NOTE), v->number, v->note);
    rpc_call_reply(v->call, json_pack("{s:b, s:s}", "ok", ok, "message", msg));
    if (ok && v->path && !lsp_ep_stopping(v->s))
        lsp_ep_file_reload(v->s, v->path); /* diagnostics and lenses follow the new text */
    uv_close((uv_handle_t *)&v->timer, verify_closed);
}

static void verify_tick(uv_timer_t *t)
{
    struct verify *v = t->data;
    bool ok = verify_check(v);
    /* Clients send didChange on their own schedule (Neovim debounces it): wait a little
     * for the text before concluding that an edit did not land. */
    if (ok || ++v->tries >= VERIFY_TRIES || lsp_ep_stopping(v->s)) {
        uv_timer_stop(t);
        verify_finish(v, ok);
    }
}

static void verify_start(struct verify *v)
{
    if (verify_check(v)) {
        verify_finish(v, true);
        return;
    }
    uv_timer_start(&v->timer, verify_tick, VERIFY_POLL_MS, VERIFY_POLL_MS);
}

/* A verify for call (deferred here); NULL (call answered) on failure. expect: the
 * strings the document must hold (borrowed; copied), note: said with success (or NULL). */
static struct verify *verify_new(struct lsp_server *s, rpc_call *call, const char *uri,
                                 json_t *expect, const char *note, int number, const char *path)
{
    struct verify *v = hk_calloc(1, sizeof *v);
    if (!v || !(v->uri = hk_strdup(uri)) || !(v->expect = json_deep_copy(expect)) ||
        (note && !(v->note = hk_strdup(note))) || (path && !(v->path = hk_strdup(path)))) {
        if (v) {
            hk_free(v->uri);
            json_decref(v->expect);
            hk_free(v->note);
            hk_free(v);
        }
        rpc_call_error(call, HK_ENOMEM, NULL);
        return NULL;
    }
    v->s = s;
    v->call = call;
    v->number = number;
    uv_timer_init(s->loop, &v->timer);
    v->timer.data = v;
    rpc_call_defer(call);
    return v;
}

static void apply_replied(rpc *r, int status, json_t *result, json_t *error, void *ud)
{
    struct verify *v = ud;
    if (status != HK_OK || error || !json_is_true(json_object_get(result, "applied"))) {
        v->client_said_no = true;
        const char *why = status != HK_OK ? hk_strerror(status)
                          : error         ? json_string_value(json_object_get(error, "message"))
                                          : json_string_value(json_object_get(result,
                                                                              "failureReason"));
        v->client_why = why ? hk_strdup(why) : NULL;
    }
    /* never trust "applied": look at the text either way */
    verify_start(v);
}

/* Finds the info and chain entry named by an apply/applied argument; answers call and
 * returns false when it cannot. May defer call (file results loading). */
static bool find_version(struct lsp_server *s, rpc_call *call, json_t *params,
                         lsp_ep_retry_fn retry, doc **d_out, json_t **info_out,
                         json_t **c_out)
{
    json_t *a = arg0(params);
    const char *uri = str_of(a, "uri"), *kernel = str_of(a, "kernel");
    json_t *ver = json_object_get(a, "version");
    if (!uri || !kernel || !(json_is_integer(ver) || json_is_string(ver))) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_ARGS_APPLY));
        return false;
    }
    int number = json_is_integer(ver) ? (int)json_integer_value(ver)
                                      : atoi(json_string_value(ver) +
                                             (json_string_value(ver)[0] == 'v'));
    doc *d = doc_get(s->docs, uri);
    struct lsp_doc *ld = d ? lsp_doc_of(d) : NULL;
    if (!d || !ld || !ld->path) {
        rpc_call_error(call, HK_ENOENT, hk_tr(HK_MSG_LSP_ERR_DOC_NOT_OPEN));
        return false;
    }
    json_t *results = lsp_ep_file_results(s, ld->path, call, params, retry);
    if (!results)
        return false; /* deferred */
    json_t *info = json_object_get(results, kernel);
    json_t *c = chain_version(info, number);
    if (!c) {
        char msg[300];
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_LSP_APPLY_NOT_IN_CHAIN), number,
                 kernel);
        rpc_call_reply(call, json_pack("{s:b, s:s}", "ok", 0, "message", msg));
        return false;
    }
    *d_out = d;
    *info_out = info;
    *c_out = c;
    return true;
}

static void cmd_apply_version(struct lsp_server *s, rpc_call *call, json_t *params);

static void retry_apply_version(struct lsp_server *s, rpc_call *call, json_t *params)
{
    cmd_apply_version(s, call, params);
}

static void apply_version_done(struct lsp_server *s, struct plan_job *j, doc *d);

static void cmd_apply_version(struct lsp_server *s, rpc_call *call, json_t *params)
{
    doc *d;
    json_t *info, *c;
    if (!find_version(s, call, params, retry_apply_version, &d, &info, &c))
        return;
    int number = (int)json_integer_value(json_object_get(c, "number"));
    /* the plan re-parses the text: on the pool (plan_job) */
    struct plan_job *j = plan_job_new(s, call, d, info, number, apply_version_done);
    if (!j) {
        rpc_call_error(call, HK_ENOMEM, NULL);
        return;
    }
    plan_job_queue(j);
}

static void apply_version_done(struct lsp_server *s, struct plan_job *j, doc *d)
{
    rpc_call *call = j->call;
    struct apply_plan *p = &j->plans[0];
    json_t *c = chain_version(j->info, j->number);
    if (!p->edit || !c) {
        rpc_call_reply(call, json_pack("{s:b, s:s}", "ok", 0, "message",
                                       p->reason ? p->reason : hk_tr(HK_MSG_LSP_APPLY_NO_EDIT)));
        return;
    }
    if (!s->cl_apply_edit) {
        rpc_call_reply(call, json_pack("{s:b, s:s}", "ok", 0, "message",
                                       hk_tr(HK_MSG_LSP_APPLY_CLIENT_CANNOT)));
        return;
    }
    int number = j->number;
    struct verify *v = verify_new(s, call, doc_uri(d), p->expect, p->note, number,
                                  lsp_doc_of(d)->path);
    json_t *edit = json_incref(p->edit);
    if (!v) {
        json_decref(edit);
        return;
    }
    char *label = apply_title(c);
    int rc = lsp_client_apply_edit(s, label, edit, apply_replied, v);
    hk_free(label);
    if (rc) {
        v->client_said_no = true;
        v->client_why = hk_strdup(hk_strerror(rc));
        v->tries = VERIFY_TRIES;
        verify_finish(v, verify_check(v));
    }
}

static void cmd_applied(struct lsp_server *s, rpc_call *call, json_t *params);

static void retry_applied(struct lsp_server *s, rpc_call *call, json_t *params)
{
    cmd_applied(s, call, params);
}

static void cmd_applied(struct lsp_server *s, rpc_call *call, json_t *params)
{
    doc *d;
    json_t *info, *c;
    if (!find_version(s, call, params, retry_applied, &d, &info, &c))
        return;
    /* The code action's arguments say what its edit writes (the kernel's text and the
     * launch sites' lines); older arguments without them: the kernel's text. The
     * strings are only looked for in the document. */
    json_t *a = arg0(params), *expect = json_object_get(a, "expect");
    bool usable = json_is_array(expect) && json_array_size(expect) > 0 &&
                  json_array_size(expect) <= APPLY_EXPECT_MAX;
    size_t i;
    json_t *x;
    json_array_foreach(usable ? expect : NULL, i, x)
        usable = usable && json_is_string(x) && json_string_length(x) <= APPLY_EXPECT_BYTES;
    const char *after = str_of(c, "after");
    json_t *own = NULL;
    if (!usable) {
        if (!after) {
            rpc_call_reply(call, json_pack("{s:b, s:s}", "ok", 0, "message",
                                           hk_tr(HK_MSG_LSP_APPLY_NO_CHANGE)));
            return;
        }
        if (!(own = json_pack("[s]", after))) {
            rpc_call_error(call, HK_ENOMEM, NULL);
            return;
        }
        expect = own;
    }
    struct verify *v = verify_new(s, call, doc_uri(d), expect, str_of(a, "note"),
                                  (int)json_integer_value(json_object_get(c, "number")),
                                  lsp_doc_of(d)->path);
    json_decref(own);
    if (v)
        verify_start(v);
}

/* ---- hyperkernel.optimize / cancel / createSpec ---- */

static void cmd_optimize(struct lsp_server *s, rpc_call *call, json_t *params)
{
    json_t *a = arg0(params);
    struct lsp_ep_start st = {.uri = str_of(a, "uri"),
                              .kernel = str_of(a, "kernel"),
                              .target = str_of(a, "target"),
                              .engine = str_of(a, "engine"),
                              .spec = str_of(a, "spec")};
    if (!st.uri || !st.kernel || !*st.kernel) {
        rpc_call_error(call, HK_EINVAL,
                       hk_tr(HK_MSG_LSP_ERR_ARGS_OPTIMIZE));
        return;
    }
    char *nv = NULL;
    if (!st.target)
        st.target = nv = nvidia_target(s);
    if (!st.target || (strncmp(st.target, "nvidia", 6) && strncmp(st.target, "dcu", 3))) {
        hk_free(nv);
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_TARGET));
        return;
    }
    if (st.engine) {
        /* a configured engine name maps to its kind; the worker knows "builtin" */
        size_t i;
        json_t *e;
        json_array_foreach(s->cfg.ep.engines, i, e) {
            if (!strcmp(str_of(e, "name"), st.engine) && !strcmp(str_of(e, "kind"), "builtin"))
                st.engine = "builtin";
        }
    }
    lsp_ep_optimize(s, call, &st);
    hk_free(nv);
}

static void cmd_cancel(struct lsp_server *s, rpc_call *call, json_t *a)
{
    int64_t ep = episode_of(a);
    if (!ep) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_NEEDS_EPISODE));
        return;
    }
    int rc = lsp_ep_cancel(s, ep);
    json_t *res = json_pack("{s:b}", "ok", rc == HK_OK);
    if (res && rc)
        json_object_set_new(res, "message",
                            json_string(hk_tr(HK_MSG_LSP_CANCEL_NOT_RUNNING)));
    rpc_call_reply(call, res);
}

static void spec_shown(rpc *r, int status, json_t *result, json_t *error, void *ud) {}

/* hyperkernel.createSpec writes the skeleton of a kernel's bench spec next to its file.
 * The parse, the skeleton and the write run on the libuv pool, against a copy of the
 * document's text taken on the loop (or the file, read there when it is not open), in
 * two stages: the skeleton, then, once the loop has seen that the document still holds
 * the text it was made from (ContentModified otherwise, nothing written), the write. */
struct spec_job {
    uv_work_t req;
    struct lsp_server *s;
    rpc_call *call;
    char *uri, *path, *kernel;
    char *text;              /* the snapshot (owned); NULL: the file is read on the pool */
    size_t len;
    size_t text_cap;         /* from_doc: bytes at text (lsp_doc_copy_buffer) */
    bool from_doc;           /* text is the open document's at version */
    int64_t version;
    bool writing;            /* the second stage */
    /* the outcome: an error (rc, or code RPC_REQUEST_FAILED) with msg, or spec_path */
    int rc, code;
    char *msg;
    char *spec_path, *dump;
};

static void spec_job_free(struct spec_job *j)
{
    hk_free(j->uri);
    hk_free(j->path);
    hk_free(j->kernel);
    hk_free(j->text);
    hk_free(j->msg);
    hk_free(j->spec_path);
    hk_free(j->dump); /* jansson allocates through the seam */
    hk_free(j);
}

static void spec_fail(struct spec_job *j, int rc, int code, char *msg /* stolen */)
{
    j->rc = rc;
    j->code = code;
    j->msg = msg;
}

/* Pool thread: the file's text when it is not open (capped), its model, the skeleton. */
static void spec_make(struct spec_job *j)
{
    an_model *m = NULL;
    json_t *sk = NULL;
    if (!j->text) {
        FILE *f = fopen(j->path, "rb");
        struct hk_buf b;
        hk_buf_init(&b, (size_t)16 << 20);
        char chunk[8192];
        size_t n;
        while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
            if (hk_buf_append(&b, chunk, n))
                break;
        if (f)
            fclose(f);
        j->len = b.len;
        if (!(j->text = hk_buf_steal(&b))) {
            spec_fail(j, HK_ENOENT, 0, hk_strdup(hk_tr(HK_MSG_LSP_ERR_READ_FILE)));
            return;
        }
    }
    if (an_analyze(j->text, j->len, &m)) {
        spec_fail(j, HK_EPARSE, 0, hk_strdup(hk_tr(HK_MSG_LSP_ERR_CANNOT_ANALYSE)));
        goto out;
    }
    long k = an_model_find_kernel(m, j->kernel);
    const char *slash = strrchr(j->path, '/');
    int rc = k < 0 ? HK_ENOENT
                   : spec_skeleton(m, k, j->text, j->len, slash ? slash + 1 : j->path, &sk);
    if (rc) {
        spec_fail(j, rc, RPC_REQUEST_FAILED,
                  hk_asprintf(hk_tr(HK_MSG_LSP_ERR_NO_SKELETON), j->kernel,
                              rc == HK_ENOENT ? hk_tr(HK_MSG_LSP_ERR_SKELETON_NO_KERNEL)
                              : rc == HK_EUNSUPPORTED
                                  ? hk_tr(HK_MSG_LSP_ERR_SKELETON_NOTHING)
                                  : hk_strerror(rc)));
        goto out;
    }
    j->spec_path = spec_default_path(j->path, j->kernel);
    j->dump = j->spec_path ? json_dumps(sk, JSON_INDENT(2)) : NULL;
    if (!j->dump)
        spec_fail(j, HK_ENOMEM, 0, NULL);
out:
    json_decref(sk);
    an_model_free(m);
}

/* Pool thread: the spec file, written once: O_EXCL refuses to overwrite. */
static void spec_write(struct spec_job *j)
{
    int fd = open(j->spec_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        spec_fail(j, HK_EIO, RPC_REQUEST_FAILED,
                  hk_asprintf("%s: %s%s", j->spec_path, strerror(errno),
                              errno == EEXIST ? hk_tr(HK_MSG_LSP_ERR_NOT_OVERWRITTEN) : ""));
        return;
    }
    size_t dl = strlen(j->dump);
    bool ok = write(fd, j->dump, dl) == (ssize_t)dl && write(fd, "\n", 1) == 1;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        unlink(j->spec_path);
        spec_fail(j, HK_EIO, 0, hk_strdup(hk_tr(HK_MSG_LSP_ERR_WRITE_SPEC)));
    }
}

static void spec_work(uv_work_t *req)
{
    hk_thread_background();
    struct spec_job *j = req->data;
    if (j->writing)
        spec_write(j);
    else
        spec_make(j);
}

static void spec_cancelled(rpc_call *call, void *ud)
{
    struct spec_job *j = ud;
    (void)call;
    uv_cancel((uv_req_t *)&j->req); /* fails once started: spec_after drops the answer */
}

static void spec_after(uv_work_t *req, int status);

/* Queues the job's next stage; on failure answers the call and frees j. Loop thread. */
static void spec_queue(struct spec_job *j)
{
    struct lsp_server *s = j->s;
    if (uv_queue_work(s->loop, &j->req, spec_work, spec_after)) {
        rpc_call_error(j->call, HK_EIO, hk_tr(HK_MSG_LSP_ERR_QUEUE_SKELETON));
        spec_job_free(j);
        return;
    }
    s->plan_jobs++;
    rpc_call_on_cancel(j->call, spec_cancelled, j);
}

static void spec_after(uv_work_t *req, int status)
{
    struct spec_job *j = req->data;
    struct lsp_server *s = j->s;
    lsp_loopwatch_note(s->loopwatch, "(createSpec done)");
    s->plan_jobs--;
    rpc_call_on_cancel(j->call, NULL, NULL);
    doc *d = j->from_doc ? doc_get(s->docs, j->uri) : NULL;
    if (status == UV_ECANCELED || s->stopped || rpc_call_cancelled(j->call)) {
        rpc_call_error(j->call, HK_ECANCELED, NULL);
    } else if (j->rc && j->code) {
        rpc_call_error_code(j->call, j->code, j->msg);
    } else if (j->rc) {
        rpc_call_error(j->call, j->rc, j->msg);
    } else if (!j->writing && j->from_doc &&
               (!d || doc_version(d) != j->version || doc_length(d) != j->len ||
                memcmp(doc_text(d), j->text, j->len) != 0)) {
        rpc_call_error(j->call, HK_ESTALE, hk_tr(HK_MSG_LSP_ERR_DOC_CHANGED_SPEC));
    } else if (!j->writing) {
        j->writing = true;
        spec_queue(j);
        return;
    } else {
        char *spec_uri = lsp_path_to_uri(j->spec_path);
        if (spec_uri)
            lsp_client_show_document(s, spec_uri, true, NULL, spec_shown, NULL);
        rpc_call_reply(j->call, json_pack("{s:s, s:s}", "path", j->spec_path, "uri",
                                          spec_uri ? spec_uri : ""));
        hk_free(spec_uri);
    }
    if (j->from_doc) { /* the copy's buffer goes back to the document, if still open */
        d = doc_get(s->docs, j->uri);
        lsp_doc_copy_return(d ? lsp_doc_of(d) : NULL, j->text, j->text_cap);
        j->text = NULL;
    }
    spec_job_free(j);
}

static void cmd_create_spec(struct lsp_server *s, rpc_call *call, json_t *params)
{
    json_t *a = arg0(params);
    const char *uri = str_of(a, "uri"), *kernel = str_of(a, "kernel");
    char *path = uri && kernel ? lsp_uri_to_path(uri) : NULL;
    if (!path) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_ARGS_SPEC));
        return;
    }
    struct spec_job *j = hk_calloc(1, sizeof *j);
    doc *d = doc_get(s->docs, uri);
    if (j) {
        j->req.data = j;
        j->s = s;
        j->call = call;
        j->path = path;
        j->uri = hk_strdup(uri);
        j->kernel = hk_strdup(kernel);
        j->from_doc = d != NULL;
        if (d) {
            j->version = doc_version(d);
            j->len = doc_length(d);
            if ((j->text = lsp_doc_copy_buffer(lsp_doc_of(d), j->len + 1, &j->text_cap))) {
                memcpy(j->text, doc_text(d), j->len);
                j->text[j->len] = '\0';
            }
        }
    }
    if (!j || !j->uri || !j->kernel || (d && !j->text)) {
        rpc_call_error(call, HK_ENOMEM, NULL);
        if (j)
            spec_job_free(j);
        else
            hk_free(path);
        return;
    }
    rpc_call_defer(call);
    spec_queue(j);
}

/* ---- store requests: report, episodes, history ---- */

struct req_arg {
    rpc_call *call;
    int64_t episode;
    bool show;
    store_episode_filter f;
    char *file, *kernel;
    unsigned mask;
};

static void free_req_arg(void *p)
{
    struct req_arg *a = p;
    hk_free(a->file);
    hk_free(a->kernel);
    hk_free(a);
}

static void reply_query(struct lsp_server *s, int rc, json_t *out, const char *msg, void *arg)
{
    struct req_arg *a = arg;
    if (rc)
        rpc_call_error(a->call, rc, msg);
    else
        rpc_call_reply(a->call, out);
    if (rc)
        json_decref(out);
}

/* Queues fn for call (deferred) or answers the error. arg is consumed. */
static void run_query(struct lsp_server *s, rpc_call *call, lsp_ep_query_fn fn,
                      lsp_ep_done_fn done, struct req_arg *a)
{
    a->call = call;
    rpc_call_defer(call);
    int rc = lsp_ep_query(s, fn, done, a, free_req_arg);
    if (rc)
        rpc_call_error(call, rc, hk_tr(HK_MSG_LSP_ERR_DB_NOW));
}

static int report_query(store *st, void *arg, json_t **out, char **msg)
{
    struct req_arg *a = arg;
    store_episode e;
    int rc = store_episode_get(st, a->episode, &e);
    if (rc) {
        *msg = hk_asprintf(hk_tr(HK_MSG_LSP_ERR_NO_EPISODE), (long long)a->episode);
        return rc;
    }
    if (!e.report_html && !e.report_md && !e.report_json) {
        *msg = hk_asprintf(hk_tr(HK_MSG_LSP_ERR_NO_REPORT), (long long)a->episode,
                           store_episode_status_name(e.status));
        store_episode_clear(&e);
        return HK_ENOENT;
    }
    *out = json_pack("{s:s?, s:s?, s:s?}", "html", e.report_html, "md", e.report_md, "json",
                     e.report_json);
    store_episode_clear(&e);
    return *out ? HK_OK : HK_ENOMEM;
}

static void report_shown(rpc *r, int status, json_t *result, json_t *error, void *ud) {}

static void report_done(struct lsp_server *s, int rc, json_t *out, const char *msg, void *arg)
{
    struct req_arg *a = arg;
    const char *html = str_of(out, "html");
    if (rc == HK_OK && a->show && html && !lsp_ep_stopping(s)) {
        char *uri = lsp_path_to_uri(html);
        if (uri && s->cl_show_document)
            rpc_request(s->rpc, "window/showDocument",
                        json_pack("{s:s, s:b}", "uri", uri, "external", 1), 0, report_shown,
                        NULL, NULL);
        else
            lsp_show_message(s, 3, hk_tr(HK_MSG_SHOW_REPORT_OF), (long long)a->episode, html);
        hk_free(uri);
    }
    reply_query(s, rc, out, msg, arg);
}

static void report_request(struct lsp_server *s, rpc_call *call, json_t *a, bool show)
{
    int64_t ep = episode_of(a);
    if (!ep) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_NEEDS_EPISODE));
        return;
    }
    struct req_arg *q = hk_calloc(1, sizeof *q);
    if (!q) {
        rpc_call_error(call, HK_ENOMEM, NULL);
        return;
    }
    q->episode = ep;
    q->show = show;
    run_query(s, call, report_query, report_done, q);
}

/* Baseline and best times of an episode from its versions. Pool thread. */
static void episode_numbers(store *st, const store_episode *e, json_t *o)
{
    if (!e->best_version_id)
        return;
    store_history_row *rows = NULL;
    size_t n = 0;
    if (store_episode_versions(st, e->id, &rows, &n))
        return;
    for (size_t i = 0; i < n; i++) {
        const store_history_row *h = &rows[i];
        if (h->version.id != e->best_version_id)
            continue;
        if (h->measured)
            set_num(o, "bestMs", h->best.median_ms);
        if (h->has_base)
            set_num(o, "baselineMs", h->base.median_ms);
        set_num(o, "speedup", h->speedup);
        json_object_set_new(o, "bestVersion", json_integer(h->version.number));
    }
    store_history_free(rows, n);
}

static int episodes_query(store *st, void *arg, json_t **out, char **msg)
{
    struct req_arg *a = arg;
    char *real = a->file ? realpath(a->file, NULL) : NULL;
    a->f.status_mask = a->mask;
    a->f.file = real ? real : a->file;
    a->f.kernel = a->kernel;
    store_episode *es = NULL;
    size_t n = 0;
    int rc = store_episode_list(st, &a->f, &es, &n);
    free(real);
    if (rc) {
        *msg = hk_strdup(store_errmsg(st));
        return rc;
    }
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++) {
        const store_episode *e = &es[i];
        char *uri = e->file ? lsp_path_to_uri(e->file) : NULL;
        json_t *o = json_pack("{s:I, s:s, s:s?, s:s?, s:s?, s:s?, s:s}", "id", (json_int_t)e->id,
                              "name", e->name ? e->name : "", "uri", uri, "kernel", e->kernel,
                              "target", e->target, "engine", e->engine, "status",
                              store_episode_status_name(e->status));
        hk_free(uri);
        if (!o)
            continue;
        set_time(o, "started", e->started_ms);
        set_time(o, "ended", e->ended_ms);
        if (e->report_html)
            json_object_set_new(o, "report", json_string(e->report_html));
        if (e->error)
            json_object_set_new(o, "error", json_string(e->error));
        if (e->device)
            json_object_set_new(o, "device", json_string(e->device));
        json_object_set_new(o, "simulated", json_boolean(store_episode_simulated(e)));
        episode_numbers(st, e, o);
        json_array_append_new(list, o);
    }
    store_episodes_free(es, n);
    *out = list;
    return list ? HK_OK : HK_ENOMEM;
}

static void episodes_done(struct lsp_server *s, int rc, json_t *out, const char *msg, void *arg)
{
    /* running ones: their live stage and percent from memory */
    json_t *live = rc == HK_OK ? lsp_ep_running_json(s) : NULL;
    size_t i;
    json_t *o;
    json_array_foreach(out, i, o) {
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(o, "id")));
        json_t *r = json_object_get(live, key);
        if (!r)
            continue;
        json_object_set(o, "stage", json_object_get(r, "stage"));
        json_object_set(o, "percent", json_object_get(r, "percent"));
        json_object_set(o, "message", json_object_get(r, "message"));
        if (json_object_get(r, "token"))
            json_object_set(o, "token", json_object_get(r, "token"));
    }
    json_decref(live);
    reply_query(s, rc, out, msg, arg);
}

static void on_episodes(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    if (params && !json_is_object(params)) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_PARAMS_OBJECT));
        return;
    }
    struct req_arg *q = hk_calloc(1, sizeof *q);
    if (!q) {
        rpc_call_error(call, HK_ENOMEM, NULL);
        return;
    }
    json_t *st = json_object_get(params, "status");
    size_t i;
    json_t *e;
    const char *bad = NULL;
    if (json_is_string(st)) {
        enum store_episode_status v;
        if (store_episode_status_parse(json_string_value(st), &v))
            bad = json_string_value(st);
        else
            q->mask |= STORE_EP_MASK(v);
    }
    json_array_foreach(json_is_array(st) ? st : NULL, i, e) {
        enum store_episode_status v;
        if (!json_is_string(e) || store_episode_status_parse(json_string_value(e), &v))
            bad = json_is_string(e) ? json_string_value(e) : "(not a string)";
        else
            q->mask |= STORE_EP_MASK(v);
    }
    json_t *lim = json_object_get(params, "limit");
    if (bad || (lim && (!json_is_integer(lim) || json_integer_value(lim) < 1 ||
                        json_integer_value(lim) > 10000))) {
        char msg[300];
        if (bad)
            snprintf(msg, sizeof msg, hk_tr(HK_MSG_LSP_ERR_BAD_STATUS), bad);
        else
            snprintf(msg, sizeof msg, "%s", hk_tr(HK_MSG_LSP_ERR_BAD_LIMIT));
        hk_utf8_trim(msg);
        free_req_arg(q);
        rpc_call_error(call, HK_EINVAL, msg);
        return;
    }
    q->f.limit = lim ? (size_t)json_integer_value(lim) : 100;
    const char *uri = str_of(params, "uri"), *kernel = str_of(params, "kernel");
    if ((uri && !(q->file = lsp_uri_to_path(uri))) || (kernel && !(q->kernel = hk_strdup(kernel)))) {
        free_req_arg(q);
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_FILE_URI));
        return;
    }
    run_query(s, call, episodes_query, episodes_done, q);
}

static int history_query(store *st, void *arg, json_t **out, char **msg)
{
    struct req_arg *a = arg;
    char *real = realpath(a->file, NULL);
    int64_t kid = 0;
    int rc = store_kernel_find(st, real ? real : a->file, a->kernel, &kid);
    free(real);
    json_t *versions = json_array();
    *out = json_pack("{s:s, s:o}", "kernel", a->kernel, "versions", versions);
    if (rc == HK_ENOENT || !*out)
        return *out ? HK_OK : HK_ENOMEM; /* never optimized: no versions */
    if (rc) {
        *msg = hk_strdup(store_errmsg(st));
        return rc;
    }
    store_history_row *rows = NULL;
    size_t n = 0;
    store_episode *es = NULL;
    size_t n_es = 0;
    store_episode_filter f = {.kernel_id = kid, .limit = 10000};
    if ((rc = store_kernel_history(st, kid, &rows, &n)) ||
        (rc = store_episode_list(st, &f, &es, &n_es))) {
        store_history_free(rows, n);
        *msg = hk_strdup(store_errmsg(st));
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        const store_history_row *h = &rows[i];
        const char *engine = NULL;
        bool sim = false;
        for (size_t j = 0; j < n_es; j++)
            if (es[j].id == h->version.episode_id) {
                engine = es[j].engine;
                sim = store_episode_simulated(&es[j]);
            }
        json_t *o = json_pack("{s:I, s:i, s:s, s:s?, s:s?, s:b}", "episode",
                              (json_int_t)h->version.episode_id, "version", h->version.number,
                              "status", store_version_status_label(h->version.status, h->measured),
                              "engine",
                              engine, "producedBy", h->version.produced_by, "simulated", sim);
        if (!o)
            continue;
        if (h->measured) {
            set_num(o, "ms", h->best.median_ms);
            set_num(o, "bandwidthGBs", h->best.bytes_per_s / 1e9);
        }
        set_num(o, "speedup", h->speedup);
        set_num(o, "maxRelErr", h->version.max_rel_err);
        set_time(o, "created", h->version.created_ms);
        if (h->version.reject_reason)
            json_object_set_new(o, "rejectReason", json_string(h->version.reject_reason));
        json_array_append_new(versions, o);
    }
    store_history_free(rows, n);
    store_episodes_free(es, n_es);
    return HK_OK;
}

static void on_history(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    const char *uri = str_of(params, "uri"), *kernel = str_of(params, "kernel");
    struct req_arg *q = uri && kernel ? hk_calloc(1, sizeof *q) : NULL;
    if (!q || !(q->file = lsp_uri_to_path(uri)) || !(q->kernel = hk_strdup(kernel))) {
        if (q)
            free_req_arg(q);
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_NEEDS_URI_KERNEL));
        return;
    }
    run_query(s, call, history_query, reply_query, q);
}

static void on_cancel_request(rpc_call *call, json_t *params, void *ud)
{
    cmd_cancel(ud, call, params);
}

static void on_report_request(rpc_call *call, json_t *params, void *ud)
{
    report_request(ud, call, params, false);
}

static void on_progress_cancel(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    json_t *t = json_object_get(params, "token");
    char num[32];
    const char *tok = json_string_value(t);
    if (json_is_integer(t)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(t));
        tok = num;
    }
    if (!tok || lsp_ep_cancel_token(s, tok))
        HK_INFO("window/workDoneProgress/cancel: no running episode has token %s",
                tok ? tok : "(none)");
    rpc_call_reply(call, NULL);
}

/* ---- workspace/executeCommand ---- */

static void on_execute_command(rpc_call *call, json_t *params, void *ud)
{
    struct lsp_server *s = ud;
    const char *cmd = str_of(params, "command");
    if (!cmd) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_COMMAND_STRING));
        return;
    }
    if (!strcmp(cmd, "hyperkernel.optimize"))
        cmd_optimize(s, call, params);
    else if (!strcmp(cmd, "hyperkernel.cancel"))
        cmd_cancel(s, call, arg0(params));
    else if (!strcmp(cmd, "hyperkernel.createSpec"))
        cmd_create_spec(s, call, params);
    else if (!strcmp(cmd, "hyperkernel.applyVersion"))
        cmd_apply_version(s, call, params);
    else if (!strcmp(cmd, "hyperkernel.applied"))
        cmd_applied(s, call, params);
    else if (!strcmp(cmd, "hyperkernel.showReport"))
        report_request(s, call, arg0(params), true);
    else if (!strcmp(cmd, "hyperkernel.trustFolder"))
        lsp_trust_command(s, call, params, true);
    else if (!strcmp(cmd, "hyperkernel.untrustFolder"))
        lsp_trust_command(s, call, params, false);
    else
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_UNKNOWN_COMMAND));
}

void lsp_ep_register(struct lsp_server *s)
{
    static const struct {
        const char *name;
        rpc_method_fn fn;
    } methods[] = {
        {"textDocument/codeAction", on_code_action},
        {"textDocument/codeLens", on_code_lens},
        {"workspace/executeCommand", on_execute_command},
        {"window/workDoneProgress/cancel", on_progress_cancel},
        {"hyperkernel/episodes", on_episodes},
        {"hyperkernel/history", on_history},
        {"hyperkernel/cancel", on_cancel_request},
        {"hyperkernel/report", on_report_request},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(methods); i++)
        rpc_register(s->rpc, methods[i].name, methods[i].fn, s);
}
