/* The episode orchestrator: init > baseline > optimize > accuracy > verify > report, each
 * stage recorded in the store as events (with timings through their order) as it happens,
 * so a killed worker leaves a consistent, readable history. Candidates come from the
 * builtin search (search.h), are compiled in parallel ahead of the GPU (runner pool) and
 * judged by measure.c; the baseline is always the original text. */
#include "episode/episode.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "core/log.h"
#include "measure/device.h"
#include "episode/evidence.h"
#include "measure/hostcode.h"
#include "measure/oracle.h"
#include "rewrites/promote.h"
#include "rewrites/rewrite.h"
#include "measure/sanitize.h"
#include "search/search.h"
#include "search/skillplan.h"
#include "report/report.h"
#include "skills/skills.h"

/* A sentence the worker stores or sends: English (docs/i18n.md); hk_tr_said says it again. */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define TRY(x)                   \
    do {                         \
        if ((rc = (x)) != HK_OK) \
            goto out;            \
    } while (0)

#define SOURCE_MAX ((size_t)16 << 20) /* largest kernel source file accepted */
#define MAX_RECS 4096

/* One version this episode built or measured (the baseline, the start version, each
 * candidate). */
typedef struct ep_rec {
    int64_t vid;                 /* store id; 0 until recorded */
    int number;                  /* vN within the kernel */
    unsigned search_id;          /* the search's candidate id */
    bool from_search;
    char *dir, *exe, *text, *produced_by;
    char *module;                /* the device-only image the launcher exe runs; NULL: exe is
                                  * a program (library substitution, DCU) */
    size_t len;
    long long block[3];
    bool block_set;
    json_t *ptxas;               /* ptxas resources of the kernel, or NULL */
    json_t *launch;              /* launch/flags JSON stored with the version */
    measure_build build;         /* while compiling */
    char build_key[STORE_HASH_HEX]; /* program identity: text, flags, template args, grid */
    struct ep_rec *follows;      /* same program as this earlier record: built once */
    bool build_done, build_ok;
    char *compile_details;       /* the compiler's first errors when !build_ok */
    char *skill;                 /* the skill whose structural rewrite it carries, or NULL */
    char *sass;                  /* cuobjdump --dump-sass of its program (base and best) */
    char *sanitize_note;         /* compute-sanitizer's outcome once its program was checked
                                  * (sanitize.h), without the "memory safety: " prefix */
    char *credit_why;            /* set when that check could not complete and the claim it
                                  * was made for is over 2x (sanitize_credit_allowed): why
                                  * its speedup is not credited */
    char *sens_note;             /* the sensitivity check's outcome once it ran on this
                                  * version (measure_sensitivity): passed, not checked and
                                  * why, or insensitive */
    double median_ms, speedup, max_abs, max_rel;
    bool evaluated, accepted, rejected, flagged, is_start;
    bool uncredited;             /* measured and correct, but no floor checked its time and
                                  * no-floor credit was not allowed: kept as a candidate */
    bool behind;                 /* timed behind the leader: the full check set did not run
                                  * (measure_evaluate_ranked), kept as a candidate */
    bool rechecked;              /* was behind; the accuracy stage gave it the full check
                                  * once the leader was lost (stage_accuracy) */
} ep_rec;

/* The accuracy stage's order of the versions it may take as the best, kept on the episode
 * so that the verify stage, once it drops a best, takes the next one through the same
 * checks (accuracy_next). */
typedef struct {
    ep_rec **order;            /* accepted versions, fastest first; room for those behind */
    ep_rec **behind;           /* timed behind the leader, fastest first (disjoint) */
    size_t n_order, n_behind;
    size_t next, next_behind;  /* the first of each not yet taken */
    size_t rechecks;           /* full checks given to behind versions, this episode */
    bool lost;                 /* a leader was lost: a behind version may be the fastest */
    measure_combo *combos;     /* the full set, seeds + 1000 */
    size_t n_combos;
    char *ref;                 /* the baseline's outputs on them */
} ep_accuracy;

typedef struct {
    const ep_options *o;
    ep_result *res;
    store *db;
    int64_t kernel_id, episode_id;
    char *file_abs, *text;
    size_t text_len;
    char kernel_hash[STORE_HASH_HEX];
    spec *sp;
    enum cc_backend backend; /* from the target: nvcc + sm_XX, or hipcc + gfxNNN (DCU) */
    char *nvcc;              /* the compiler: nvcc, or hipcc for a DCU target */
    char arch[32];
    char *work;
    char *scratch;   /* output files (references, candidates' outputs): a memory-backed
                      * directory when one has room (measure_scratch_parent), else work */
    bool has_gpu, has_dev, failed, have_base;
    bool is_cmd;     /* a command-form spec: the cmdform_* path of each stage */
    cmdform_options co;
    char no_gpu_why[256];
    device_gpu gpu;
    device_info dev;
    measure_opts mo;
    const char *stage;
    int percent;
    long budget;
    double minutes, t_opt; /* t_opt: when the optimize stage began */
    double lock_wait_s;    /* seconds this episode's runs waited for the GPU lock (mo) */
    double opt_wait_s;     /* of those, the optimize stage's: not counted in its budget */
    measure_baseline base;
    measure_build shadow_build;  /* the baseline's fp64 shadow (build_shadow), or empty */
    measure_prog shadow;         /* its program: c->mo.ref64 points here when it built */
    int64_t base_vid, start_vid; /* start_vid 0: the search starts from the original */
    int start_number;
    ep_rec *base_rec, *start_rec, *best;
    ep_accuracy acc;             /* set up by stage_accuracy; read again by stage_verify */
    sanitize_result base_san;    /* the baseline under every tool, once a candidate's finding
                                  * asks whether it is the original's (sanitize_again) */
    bool base_san_done;
    sanitize_result base_san_timed; /* the same at the timed size (sanitize_opts.timed) */
    bool base_san_timed_done;
    char *start_text;
    size_t start_len;
    ep_rec **recs;
    size_t n_recs, cap_recs, n_proposed, n_evaluated;
    measure_speedup verified_speedup;
    json_t *info;
    char *report_dir;
    char *sources_dir;   /* the candidates' sources kept beside the report, or NULL */
    sk_set *skills;  /* loaded for the optimize stage; NULL when none could be */
    bool at_roof;    /* a candidate reached EP_ROOF_PCT of its roofline bound */
    enum hk_lang lang; /* the user's, for the report's Markdown and HTML: everything else
                        * the episode says is stored or sent, so English (docs/i18n.md) */
} ep_ctx;

/* The search stops proposing once a candidate runs at this % of its roofline bound:
 * what is left cannot be worth the GPU time. */
#define EP_ROOF_PCT 90.0

static void ep__log(ep_ctx *c, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ep__fail_early(ep_ctx *c, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ep__fail(ep_ctx *c, bool no_gpu, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ep__save_info(ep_ctx *c);
static const char *credit_missing(const ep_ctx *c);
static int ep__stage_optimize(ep_ctx *c);
static void ep__evidence(ep_ctx *c, ep_rec *r);
static void skill_credit(ep_ctx *c);
static char *rec_out_dir(const ep_ctx *c, const ep_rec *r, const char *what);
static int cmd_stage_baseline(ep_ctx *c);
static int cmd_stage_optimize(ep_ctx *c);
static int cmd_stage_accuracy(ep_ctx *c);
typedef struct verify_try verify_try;
static int cmd_verify_time(ep_ctx *c, verify_try *t);
static ep_rec *cmd_next_best(ep_ctx *c, ep_rec *const *dropped, size_t n);
static void record_rejection(ep_ctx *c, ep_rec *r, enum measure_reason reason,
                             const char *details, search *s);
static int program_key(const char *text, size_t len, const char *const *flags,
                       char *const *targs, size_t n_targs, int grid_mode, unsigned grid_arg,
                       char out[STORE_HASH_HEX]);

/* ---- small helpers ---- */

static json_t *ep__text(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    /* not UTF-8 (compiler output can hold anything): keep ASCII, mark the rest */
    char *c = hk_strdup(s);
    if (!c)
        return NULL;
    for (unsigned char *p = (unsigned char *)c; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    j = json_string(c);
    hk_free(c);
    return j;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}


int ep_default_db_path(char **out)
{
    *out = NULL;
    const char *env = getenv("HK_DB");
    if (env && *env)
        *out = hk_strdup(env);
    else if ((env = getenv("XDG_DATA_HOME")) && *env)
        *out = hk_asprintf("%s/hyperkernel/history.db", env);
    else if ((env = getenv("HOME")) && *env)
        *out = hk_asprintf("%s/.local/share/hyperkernel/history.db", env);
    else
        return HK_ENOENT;
    return *out ? HK_OK : HK_ENOMEM;
}

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

const volatile sig_atomic_t *ep_stop_on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    /* no SA_RESTART: a blocking poll() in the runner returns and sees the flag */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* the editor closing our stdout must not kill the episode */
    return &stop_flag;
}

void ep_result_clear(ep_result *r)
{
    if (!r)
        return;
    hk_free(r->error);
    hk_free(r->report_json);
    hk_free(r->report_md);
    hk_free(r->report_html);
    json_decref(r->summary);
    memset(r, 0, sizeof *r);
}

/* ---- events ---- */

static bool stopped(const ep_ctx *c)
{
    return c->o->stop && *c->o->stop;
}

/* Sends ev (stolen) to the listener and, once the episode exists, to the store. */
static void ep__emit(ep_ctx *c, json_t *ev)
{
    if (!ev)
        return;
    json_t *pct = json_object_get(ev, "percent");
    if (json_is_integer(pct)) { /* percentages only rise */
        int p = (int)json_integer_value(pct);
        if (p < c->percent)
            json_object_set_new(ev, "percent", json_integer(c->percent));
        else
            c->percent = p > 100 ? 100 : p;
    }
    if (c->db && c->episode_id) {
        const char *kind = json_string_value(json_object_get(ev, "event"));
        const char *msg = json_string_value(json_object_get(ev, "message"));
        char *dump = json_dumps(ev, JSON_COMPACT);
        if (store_event_add(c->db, c->episode_id, c->stage ? c->stage : "init",
                            msg ? msg : (kind ? kind : "event"), dump, NULL))
            HK_WARN("episode: event not stored: %s", store_errmsg(c->db));
        free(dump);
    }
    if (c->o->on_event)
        c->o->on_event(ev, c->o->event_data);
    json_decref(ev);
}

static json_t *event_new(const ep_ctx *c, const char *kind, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    json_t *ev = json_object();
    if (!ev)
        return NULL;
    json_object_set_new(ev, "event", json_string(kind));
    json_object_set_new(ev, "stage", json_string(c->stage ? c->stage : "init"));
    json_object_set_new(ev, "message", ep__text(msg));
    return ev;
}

static void ep__log(ep_ctx *c, const char *level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *ev = event_new(c, "log", fmt, ap);
    va_end(ap);
    if (ev)
        json_object_set_new(ev, "level", json_string(level));
    ep__emit(c, ev);
}

/* A log line that programs key on by its code ("no_gpu": docs/episode.md), not its words. */
static void ep__log_code(ep_ctx *c, const char *level, const char *code, const char *msg)
{
    json_t *ev = json_object();
    if (!ev)
        return;
    json_object_set_new(ev, "event", json_string("log"));
    json_object_set_new(ev, "stage", json_string(c->stage ? c->stage : "init"));
    json_object_set_new(ev, "message", ep__text(msg));
    json_object_set_new(ev, "level", json_string(level));
    json_object_set_new(ev, "code", json_string(code));
    ep__emit(c, ev);
}

/* A store write that failed, the episode going on without it: "store: <SQLite's words>",
 * code "store_error" (its words are SQLite's, English; a face says the prefix again). */
static void ep__log_store(ep_ctx *c)
{
    char *m = hk_trf(HK_MSG_EP_STORE_FAILED, store_errmsg(c->db));
    ep__log_code(c, "warn", "store_error", m ? m : store_errmsg(c->db));
    hk_free(m);
}

static void stage_begin(ep_ctx *c, const char *stage, int percent, const char *fmt, ...)
{
    c->stage = stage;
    va_list ap;
    va_start(ap, fmt);
    json_t *ev = event_new(c, "stage", fmt, ap);
    va_end(ap);
    if (ev)
        json_object_set_new(ev, "percent", json_integer(percent));
    ep__emit(c, ev);
}

/* A progress event; extra (stolen, may be NULL) is merged in. */
static void progress(ep_ctx *c, int percent, json_t *extra, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *ev = event_new(c, "progress", fmt, ap);
    va_end(ap);
    if (ev) {
        json_object_set_new(ev, "percent", json_integer(percent));
        if (extra)
            json_object_update(ev, extra);
    }
    json_decref(extra);
    ep__emit(c, ev);
}

/* The host_code policy (hostcode.h) for a candidate's text against the baseline's: *why
 * NULL when clean, else a new "line N: WHY: QUOTE". HK_OK, HK_ENOMEM, HK_ETOOBIG. */
static int host_code_details(const char *base, size_t base_len, const char *cand,
                             size_t cand_len, char **why)
{
    hostcode_finding f;
    *why = NULL;
    int rc = hostcode_check(base, base_len, cand, cand_len, &f);
    if (rc == HK_OK && f.found &&
        !(*why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_HC_AT), f.line,
                             f.why ? f.why : "host code", f.quote ? f.quote : "")))
        rc = HK_ENOMEM;
    hostcode_finding_clear(&f);
    return rc;
}

/* Without an fp64 reference the referee's own distribution (oracle_add_precision_dist)
 * is run but its accuracy is not judged: say so, with the reason. */
static void precision_unjudged(ep_ctx *c, const char *why)
{
    if (c->sp && c->sp->n_referee_dists)
        ep__log(c, "warn", hk_tr(HK_MSG_EP_ACCURACY_REFEREE_ADDED_DISTRIBUTION),
                c->sp->dist_texts[c->sp->n_dists - 1], why);
}

/* The baseline's fp64 shadow (promote.h) built as an image into dir, so that candidates'
 * errors are judged against it relative to the baseline's own (measure_opts.ref64). Where
 * the kernel does not allow one (half data, vector types, a refused construct of promote.h,
 * a build failure...), the episode says so and the spec's tolerance decides alone: never an
 * error of the episode. HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int build_shadow(ep_ctx *c, const char *dir)
{
    const char *off = getenv("HK_REF64");
    if (c->backend == CC_DCU || c->is_cmd || (off && !strcmp(off, "off"))) {
        precision_unjudged(c, c->backend == CC_DCU ? EN(EPS_NO_SHADOW_DCU)
                              : c->is_cmd ? "command form" : "HK_REF64=off");
        return HK_OK;
    }
    promote_result pr;
    measure_compile mc;
    memset(&mc, 0, sizeof mc);
    const char *why = NULL;
    int rc = promote_fp64_spec(c->sp, c->text, c->text_len, &pr);
    if (rc == HK_ENOMEM)
        goto out;
    rc = HK_OK;
    if (!pr.text)
        why = pr.reason[0] ? pr.reason : EN(EPS_CANNOT_PROMOTE);
    else if (!pr.double_params)
        why = EN(EPS_NO_FLOAT_PARAM);
    if (why) {
        ep__log(c, "info", hk_tr(HK_MSG_EP_ACCURACY_FP64_REFERENCE_SPEC),
                why);
        json_object_set_new(c->info, "accuracy_reference", ep__text(why));
        precision_unjudged(c, why);
        goto out;
    }
    /* a template kernel's shadow is instantiated with double for each float type argument
     * (promote.h: its parameters of those types are marked double): the image's entry is
     * found by the promoted arguments, while its runs keep the spec's sizes and launch */
    measure_opts mo = c->mo;
    spec shadow_spec = *c->sp;
    if (pr.n_template_args == c->sp->n_template_args && pr.n_template_args) {
        shadow_spec.template_args = pr.template_args;
        mo.spec = &shadow_spec;
    }
    if ((rc = measure_build_prepare(&mo, dir, pr.text, pr.len, NULL, &c->shadow_build)))
        goto out;
    if ((rc = measure_build_compile(&mo, &c->shadow_build, &mc)))
        goto out;
    if (!mc.ok || !c->shadow_build.module) {
        ep__log(c, "warn", hk_tr(HK_MSG_EP_ACCURACY_FP64_SHADOW_DOES), mc.details ? mc.details : "");
        json_object_set_new(c->info, "accuracy_reference",
                            ep__text(EN(EPS_SHADOW_NO_BUILD)));
        precision_unjudged(c, EN(EPS_SHADOW_NO_BUILD));
        goto out;
    }
    c->shadow = (measure_prog){.exe = c->shadow_build.exe, .module = c->shadow_build.module,
                               .promote = pr.double_params, .shmem_scale = pr.shmem_factor};
    c->mo.ref64 = &c->shadow;
    ep__log(c, "info", hk_tr(HK_MSG_EP_ACCURACY_OUTPUTS_ARE_ALSO), pr.n_promoted, ORACLE_REF64_K);
    json_object_set_new(c->info, "accuracy_reference",
                        ep__text(EN(EPS_SHADOW_REFERENCE)));
out:
    measure_compile_clear(&mc);
    promote_result_free(&pr);
    return rc;
}

/* After the baseline ran: whether its fp64 shadow gave references. */
/* With a shadow, every comparison with the baseline widens by its own error (measure_widen);
 * the log says where that is more than the spec's own absolute tolerance. */
static void widen_from_shadow(ep_ctx *c)
{
    const measure_widen *w = &c->base.widen;
    c->mo.widen = w->err ? w : NULL;
    struct hk_buf note;
    hk_buf_init(&note, 4096);
    for (unsigned a = 0; w->err && a < HK_MAX_ARGS && a < c->sp->n_args; a++) {
        double most = 0;
        for (size_t k = 0; k < w->n_sizes; k++)
            for (size_t d = 0; d < w->n_dists; d++)
                most = fmax(most, measure_widen_at(w, (int)k, (int)d, a).atol);
        if (most <= c->sp->args[a].tol.atol)
            continue;
        ep__log(c, "info", hk_tr(HK_MSG_EP_ACCURACY_BASELINE_UP_FROM),
                c->sp->args[a].name, most / 2, c->sp->args[a].tol.atol, most);
        (void)hk_buf_printf(&note, "%s'%s' up to %.3g", note.len ? ", " : "",
                            c->sp->args[a].name, most);
    }
    const char *said = json_string_value(json_object_get(c->info, "correctness"));
    if (note.len && said) { /* the report's Correctness row says so */
        char *more = hk_trf(HK_MSG_EP_CORRECT_WIDENED, said, note.data);
        if (more)
            json_object_set_new(c->info, "correctness", ep__text(more));
        hk_free(more);
        ep__save_info(c);
    }
    hk_buf_free(&note);
}

static void shadow_ran(ep_ctx *c)
{
    if (c->mo.ref64 && c->base.ref64_dir)
        widen_from_shadow(c);
    if (!c->mo.ref64 || c->base.ref64_dir)
        return;
    ep__log(c, "warn", hk_tr(HK_MSG_EP_ACCURACY_SPEC_TOLERANCE_DECIDES),
            c->base.ref64_note ? c->base.ref64_note : EN(EPS_SHADOW_NO_REFERENCE));
    json_object_set_new(c->info, "accuracy_reference", ep__text(c->base.ref64_note));
    precision_unjudged(c, c->base.ref64_note ? c->base.ref64_note : EN(EPS_SHADOW_NO_REFERENCE));
    c->mo.ref64 = NULL;
}

/* ---- records of evaluated versions ---- */

static void rec_free(ep_rec *r)
{
    if (!r)
        return;
    hk_free(r->dir);
    hk_free(r->exe);
    hk_free(r->module);
    hk_free(r->text);
    hk_free(r->produced_by);
    json_decref(r->ptxas);
    json_decref(r->launch);
    hk_free(r->compile_details);
    hk_free(r->skill);
    hk_free(r->sass);
    hk_free(r->sanitize_note);
    hk_free(r->sens_note);
    hk_free(r->credit_why);
    measure_build_free(&r->build);
    hk_free(r);
}

static int rec_push(ep_ctx *c, ep_rec *r)
{
    if (c->n_recs >= MAX_RECS)
        return HK_ETOOBIG;
    if (c->n_recs == c->cap_recs) {
        size_t cap = c->cap_recs ? c->cap_recs * 2 : 16;
        ep_rec **v = hk_realloc(c->recs, cap * sizeof *v);
        if (!v)
            return HK_ENOMEM;
        c->recs = v;
        c->cap_recs = cap;
    }
    c->recs[c->n_recs++] = r;
    return HK_OK;
}

static measure_prog rec_prog(const ep_rec *r)
{
    measure_prog p = {.exe = r->exe, .block = r->block_set ? r->block : NULL, .module = r->module};
    return p;
}

/* ---- stage 1: init ---- */

/* "sm_XY" from nvidia-smi's compute capability of GPU 0; false when unavailable. */
static bool smi_arch(char *out, size_t size)
{
    const char *argv[] = {"nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader", NULL};
    runner_spec s = {.argv = argv, .timeout_ms = 10000, .isolation = RUNNER_ISO_NONE};
    runner_result r;
    int major, minor;
    bool ok = runner_run(&s, &r) == HK_OK && r.exit_code == 0 &&
              sscanf(r.out, "%d.%d", &major, &minor) == 2 && major > 0 && major < 100 &&
              minor >= 0 && minor < 10;
    if (ok)
        snprintf(out, size, "sm_%d%d", major, minor);
    runner_result_free(&r);
    return ok;
}

static int peaks_json(const device_info *d, char **out)
{
    json_t *p = json_object();
    if (!p)
        return HK_ENOMEM;
    double bw = device_peak_bandwidth_gbs(d);
    if (bw > 0)
        json_object_set_new(p, STORE_PEAK_DRAM_BYTES_PER_S, json_real(bw * 1e9));
    if (d->fp32_tflops > 0)
        json_object_set_new(p, STORE_PEAK_FP32_FLOP_PER_S, json_real(d->fp32_tflops * 1e12));
    if (d->tensor_bf16_tflops > 0)
        json_object_set_new(p, STORE_PEAK_TENSOR_FLOP_PER_S,
                            json_real(d->tensor_bf16_tflops * 1e12));
    *out = json_dumps(p, JSON_COMPACT);
    json_decref(p);
    return *out ? HK_OK : HK_ENOMEM;
}

/* The measured peaks of this GPU: from the per-device cache, else probed now (compiled and
 * run once) and cached; either way recorded in the store for the report. */
static int init_device(ep_ctx *c)
{
    int rc = HK_OK;
    char *why = NULL, *peaks = NULL, *cache = NULL;
    (void)device_cache_path(&cache);
    if (c->o->gpu == EP_GPU_SIMULATED) {
        c->dev = *c->o->sim_device;
        ep__log(c, "warn", hk_tr(HK_MSG_EP_SIMULATED_GPU_NOTHING_HERE),
                c->dev.name);
    } else if (device_cache_load(cache, c->gpu.name, c->gpu.uuid, &c->dev) == HK_OK) {
        ep__log(c, "info", hk_tr(HK_MSG_EP_DEVICE_PEAKS_FROM_CACHE), cache,
                (long long)c->dev.measured_at);
    } else {
        char *dir = hk_asprintf("%s/probe", c->work);
        if (!dir)
            return HK_ENOMEM;
        progress(c, 2, NULL, hk_tr(HK_MSG_EPW_PEAKS), c->gpu.name);
        device_probe_options po = {.nvcc = c->nvcc, .workdir = dir, .arch = c->arch,
                                   .stop = c->o->stop};
        rc = measure_mkdirs(dir);
        if (rc == HK_OK)
            rc = device_probe(&po, &c->dev, &why);
        hk_free(dir);
        if (rc == HK_ECANCELED) { /* Ctrl-C during the probe: the episode stops now */
            hk_free(why);
            hk_free(cache);
            return rc;
        }
        if (rc) {
            ep__log(c, "warn", hk_tr(HK_MSG_EP_DEVICE_PROBE_FAILED_PHYSICAL),
                    hk_strerror(rc), why ? why : "");
            hk_free(why);
            hk_free(cache);
            snprintf(c->dev.name, sizeof c->dev.name, "%s", c->gpu.name);
            return HK_OK; /* the episode can still measure; the floor check is skipped */
        }
        if (device_cache_save(cache, &c->dev) != HK_OK)
            ep__log(c, "warn", hk_tr(HK_MSG_EP_COULD_NOT_CACHE_DEVICE), cache ? cache : "?");
    }
    hk_free(cache);
    c->has_dev = true;
    char cc[32];
    snprintf(cc, sizeof cc, "%d.%d", c->dev.cc_major, c->dev.cc_minor);
    TRY(peaks_json(&c->dev, &peaks));
    if (c->db && (store_device_put(c->db, c->dev.name, cc, peaks) ||
                  store_episode_set_device(c->db, c->episode_id, c->dev.name)))
        ep__log_store(c);
    c->mo.peak_bytes_per_s = device_peak_bandwidth_gbs(&c->dev) * 1e9;
    c->mo.peak_flops = c->dev.fp32_tflops > 0 ? c->dev.fp32_tflops * 1e12 : 0;
    c->mo.sm_count = c->dev.sm_count;
    json_t *dj = device_info_to_json(&c->dev);
    json_object_set_new(c->info, "device", dj ? dj : json_null());
    ep__log(c, "info", hk_tr(HK_MSG_EP_SMS_GB_COPY_TFLOP), c->dev.name,
            c->dev.arch, c->dev.sm_count, device_peak_bandwidth_gbs(&c->dev), c->dev.fp32_tflops,
            c->dev.tensor_bf16_tflops > 0 ? "measured" : "absent");
out:
    hk_free(peaks);
    return rc;
}

/* Loads the bench spec at path into c->sp, logging each diagnostic as FILE:LINE. HK_OK, or
 * spec_load's error (HK_EPARSE when the spec is invalid). */
static int load_spec(ep_ctx *c, const char *path)
{
    spec_diags d = {0};
    int rc = spec_load(path, &c->sp, &d);
    for (size_t i = 0; i < d.n; i++) {
        char *line = spec_diag_format(&d.items[i], path);
        ep__log(c, d.items[i].severity == SPEC_ERROR ? "error" : "warn", "%s",
                line ? line : d.items[i].message);
        hk_free(line);
    }
    spec_diags_free(&d);
    if (rc == HK_OK) {
        /* float inputs with integer values only cannot show precision lost: the referee
         * adds a real-valued distribution of its own, judged against the fp64 shadow */
        char note[640];
        rc = oracle_add_precision_dist(c->sp, note, sizeof note);
        if (rc == HK_OK && note[0])
            ep__log(c, "info", hk_tr(HK_MSG_EP_ACCURACY_NOTE), note);
        /* real-valued float inputs: one more of the referee's, values on a power-of-two
         * grid where any order of float sums is exact, so that a baseline exact there
         * leaves a candidate the floor alone (a sampler of its inputs is off by its
         * sampling error: docs/accuracy.md, "The exact distribution") */
        if (rc == HK_OK)
            rc = oracle_add_grid_dist(c->sp, note, sizeof note);
        if (rc == HK_OK && note[0])
            ep__log(c, "info", hk_tr(HK_MSG_EP_ACCURACY_NOTE), note);
    }
    return rc;
}

/* Before the episode exists: the file, the kernel in it, the spec. Errors here leave no
 * episode behind (there is nothing to record against). */
static int init_inputs(ep_ctx *c)
{
    const ep_options *o = c->o;
    int rc = HK_OK;
    an_model *m = NULL;
    char *abs = realpath(o->file, NULL);
    if (!abs) {
        ep__fail_early(c, HK_ENOENT, hk_tr(HK_MSG_EP_CANNOT_OPEN), o->file, strerror(errno));
        return HK_ENOENT;
    }
    c->file_abs = hk_strdup(abs);
    free(abs);
    if (!c->file_abs)
        return HK_ENOMEM;
    rc = hk_read_file(c->file_abs, SOURCE_MAX, &c->text, &c->text_len);
    if (rc) {
        ep__fail_early(c, rc, hk_tr(HK_MSG_EP_CANNOT_READ), c->file_abs, hk_strerror(rc));
        return rc;
    }
    const char *why = "";
    size_t at = 0;
    if (!cc_source_is_text(c->text, c->text_len, &why, &at)) {
        ep__fail_early(c, HK_EINVAL, hk_tr(HK_MSG_EP_NOT_TEXT_FILE_AT_2), o->file, why,
                       at);
        return HK_EINVAL;
    }
    if ((rc = an_analyze(c->text, c->text_len, &m))) {
        ep__fail_early(c, rc, hk_tr(HK_MSG_EP_CANNOT_ANALYSE), c->file_abs, hk_strerror(rc));
        return rc;
    }
    long k = an_model_find_kernel(m, o->kernel);
    if (k < 0) {
        an_model_free(m);
        ep__fail_early(c, HK_ENOENT, hk_tr(HK_MSG_EP_GLOBAL_KERNEL_NAMED), c->file_abs,
                       o->kernel);
        return HK_ENOENT;
    }
    const an_span *sp = &m->funcs[k].span;
    store_content_hash(c->text + sp->start_byte, sp->end_byte - sp->start_byte, c->kernel_hash);
    an_model_free(m);

    rc = load_spec(c, o->spec_path);
    if (rc) {
        ep__fail_early(c, rc == HK_ENOMEM ? rc : HK_EPARSE, hk_tr(HK_MSG_EP_BENCH_SPEC_NOT_VALID),
                       o->spec_path);
        return rc == HK_ENOMEM ? rc : HK_EPARSE;
    }
    c->is_cmd = c->sp->form == SPEC_FORM_COMMAND;
    if (o->untrusted && (c->is_cmd || c->sp->n_compile_flags > 0)) {
        ep__fail_early(c, HK_EUNSUPPORTED,
                       hk_tr(HK_MSG_EP_FOLDER_NOT_TRUSTED_TRUST),
                       o->spec_path,
                       hk_tr(c->is_cmd ? HK_MSG_EP_UNTRUSTED_COMMAND : HK_MSG_EP_UNTRUSTED_FLAGS));
        return HK_EUNSUPPORTED;
    }
    if (strcmp(c->sp->kernel, o->kernel) != 0) {
        ep__fail_early(c, HK_EINVAL, hk_tr(HK_MSG_EP_BENCHMARKS_KERNEL_NOT), o->spec_path,
                       c->sp->kernel, o->kernel);
        return HK_EINVAL;
    }
    char *spec_src = c->sp->source_path ? realpath(c->sp->source_path, NULL) : NULL;
    if (spec_src && strcmp(spec_src, c->file_abs) != 0)
        ep__log(c, "warn", hk_tr(HK_MSG_EP_SPEC_SOURCE_OPTIMIZING_GIVEN), spec_src,
                c->file_abs);
    free(spec_src);
    return HK_OK;
}

/* Target -> backend and arch (arch empty when it must come from the GPU): "nvidia",
 * "nvidia:sm_XX", "sm_XX", "dcu", "dcu:gfxNNN", "amd:gfxNNN", "gfxNNN"; none: the .hip
 * rule (cc_backend_of_path: a .hip file is for a DCU, as hkls check and the editor's
 * compiles read it). */
static int parse_target(ep_ctx *c)
{
    const char *t = c->o->target;
    c->backend = t ? CC_NVIDIA : cc_backend_of_path(c->o->file);
    if (!t || !strcmp(t, "nvidia"))
        return HK_OK;
    if (!strcmp(t, "dcu") || !strcmp(t, "amd")) {
        c->backend = CC_DCU;
        return HK_OK;
    }
    enum cc_backend be;
    char *arch = NULL;
    int rc = cc_parse_target(t, &be, &arch);
    if (rc == HK_ENOMEM)
        return rc;
    if (rc) {
        const char *a = !strncmp(t, "nvidia:", 7) ? t + 7 : t;
        if (!strncmp(a, "sm_", 3))
            ep__fail_early(c, HK_EINVAL, hk_tr(HK_MSG_EP_TARGET_NOT_AN_NVIDIA), t, a, cc_nvidia_archs_text());
        else
            ep__fail_early(c, HK_EINVAL,
                           hk_tr(HK_MSG_EP_TARGET_EXPECTED_NVIDIA_NVIDIA), t);
        return HK_EINVAL;
    }
    c->backend = be;
    snprintf(c->arch, sizeof c->arch, "%s", arch);
    hk_free(arch);
    return HK_OK;
}

/* The GPU of the target's family: c->has_gpu and c->gpu, or c->no_gpu_why in words (the
 * NVIDIA wording says "no GPU found", the DCU one "no DCU GPU here"). Not for the
 * simulated GPU. */
static void detect_gpu(ep_ctx *c, enum ep_gpu_mode mode)
{
    bool dcu = c->backend == CC_DCU;
    if (mode == EP_GPU_NONE) {
        snprintf(c->no_gpu_why, sizeof c->no_gpu_why, "%s",
                 hk_tr(dcu ? HK_MSG_EP_NO_DCU_DISABLED : HK_MSG_EP_NO_GPU_DISABLED));
        return;
    }
    if (dcu ? device_detect_dcu(NULL, NULL, &c->gpu) == HK_OK && c->gpu.present
            : device_detect_gpu(&c->gpu) == HK_OK && c->gpu.present) {
        c->has_gpu = true;
        return;
    }
    if (dcu)
        snprintf(c->no_gpu_why, sizeof c->no_gpu_why, "%s",
                 hk_tr(!strcmp(c->gpu.how, "none") ? HK_MSG_EP_NO_DCU_NO_KFD
                                                   : HK_MSG_EP_NO_DCU_NO_NODE));
    else
        snprintf(c->no_gpu_why, sizeof c->no_gpu_why, "%s", hk_tr(HK_MSG_EP_NO_GPU_FOUND));
}

/* The target's compiler into c->nvcc, or false with the error logged (and the episode
 * failed when it exists). */
static bool find_compiler(ep_ctx *c, bool episode)
{
    if (cc_find_compiler(c->backend, &c->nvcc) == HK_OK)
        return true;
    const char *why = hk_tr(c->backend == CC_DCU ? HK_MSG_EP_NO_HIPCC : HK_MSG_EP_NO_NVCC);
    if (episode)
        (void)ep__fail(c, false, "%s", why);
    else
        ep__log(c, "error", "%s", why);
    return false;
}

static int create_episode(ep_ctx *c)
{
    const ep_options *o = c->o;
    int rc = HK_OK;
    char *dbdir = NULL, *budget = NULL;
    if (!(dbdir = hk_strdup(o->db_path)))
        return HK_ENOMEM;
    char *slash = strrchr(dbdir, '/');
    if (slash && slash != dbdir) {
        *slash = '\0';
        if (measure_mkdirs(dbdir) != HK_OK) {
            ep__fail_early(c, HK_EIO, hk_tr(HK_MSG_EP_CANNOT_CREATE_DIRECTORY_HISTORY),
                           dbdir);
            hk_free(dbdir);
            return HK_EIO;
        }
    }
    hk_free(dbdir);
    char dberr[256] = "";
    if ((rc = store_open_ex(o->db_path, 0, &c->db, dberr, sizeof dberr))) {
        ep__fail_early(c, rc, hk_tr(HK_MSG_EP_CANNOT_OPEN_HISTORY_DATABASE), o->db_path,
                       dberr[0] ? dberr : hk_strerror(rc));
        return rc;
    }
    if (store_kernel_upsert(c->db, c->file_abs, o->kernel, c->kernel_hash, &c->kernel_id)) {
        ep__fail_early(c, HK_EDB, hk_tr(HK_MSG_EP_STORE_FAILED), store_errmsg(c->db));
        return HK_EDB;
    }
    json_t *bj = json_pack("{s:I, s:f, s:I, s:b}", "candidates", (json_int_t)c->budget,
                           "minutes", c->minutes, "seed", (json_int_t)o->seed, "from_original",
                           o->from_original);
    budget = bj ? json_dumps(bj, JSON_COMPACT) : NULL;
    json_decref(bj);
    char name[512];
    if (o->name && *o->name)
        snprintf(name, sizeof name, "%s", o->name);
    else
        snprintf(name, sizeof name, "%s %s", o->kernel, c->arch);
    store_episode_new en = {.kernel_id = c->kernel_id,
                            .name = name,
                            .target = o->target ? o->target : "nvidia",
                            .backend = cc_backend_name(c->backend),
                            .arch = c->arch,
                            .engine = "builtin",
                            .budget_json = budget,
                            .pid = (int)getpid()};
    if (store_episode_create(c->db, &en, &c->episode_id)) {
        ep__fail_early(c, HK_EDB, hk_tr(HK_MSG_EP_STORE_FAILED), store_errmsg(c->db));
        rc = HK_EDB;
    }
    c->res->episode_id = c->episode_id;
    free(budget);
    return rc;
}

static int stage_init(ep_ctx *c)
{
    int rc = HK_OK;
    stage_begin(c, "init", 0, "%s", hk_tr(HK_MSG_EPW_INIT));
    c->info = json_object();
    if (!c->info)
        return HK_ENOMEM;
    if (!find_compiler(c, true))
        return HK_ECHILD;
    bool dcu = c->backend == CC_DCU;
    /* "nvcc" names the compiler whatever it is (readers of older episodes know that key) */
    json_object_set_new(c->info, "nvcc", ep__text(c->nvcc));
    json_object_set_new(c->info, "backend", json_string(cc_backend_name(c->backend)));
    json_object_set_new(c->info, "spec", ep__text(c->o->spec_path));
    json_object_set_new(c->info, "work_dir", ep__text(c->work));
    ep__log(c, "info", "%s: %s", dcu ? "hipcc" : "nvcc", c->nvcc);
    if (dcu && c->is_cmd) /* its kernel timer is a CUPTI injection library */
        return ep__fail(c, false, "%s", hk_tr(HK_MSG_EP_COMMAND_FORM_SPECS_ARE));
    if (c->has_gpu && dcu && c->o->gpu != EP_GPU_SIMULATED) {
        json_object_set_new(c->info, "gpu", json_pack("{s:s, s:s, s:s, s:s}", "name", c->gpu.name,
                                                      "uuid", c->gpu.uuid, "how", c->gpu.how,
                                                      "arch", c->gpu.arch));
        ep__log(c, "info", hk_tr(HK_MSG_EP_DCU_GPU_CUS_FOUND),
                c->gpu.name[0] ? c->gpu.name : "AMD/Hygon GPU", c->gpu.arch, c->gpu.cu_count,
                c->gpu.how);
        /* The device probe (device.c) is a CUDA program: on a DCU the peaks stay unknown,
         * so there is no physical floor and no roofline position. */
        ep__log(c, "warn", hk_tr(HK_MSG_EP_PEAKS_UNKNOWN_DEVICE_PROBE), c->gpu.name[0] ? c->gpu.name : "the DCU");
        snprintf(c->dev.name, sizeof c->dev.name, "%s", c->gpu.name);
        snprintf(c->dev.arch, sizeof c->dev.arch, "%.*s", (int)sizeof c->dev.arch - 1, c->gpu.arch);
        if (c->gpu.cu_count > 0)
            c->mo.sm_count = c->gpu.cu_count;
        if (c->db && c->episode_id &&
            store_episode_set_device(c->db, c->episode_id, c->gpu.name[0] ? c->gpu.name : "DCU"))
            ep__log_store(c);
        if (c->o->target && c->gpu.arch[0] && strcmp(c->arch, c->gpu.arch) != 0)
            ep__log(c, "warn", hk_tr(HK_MSG_EP_COMPILING_ASKED_GPU), c->arch, c->gpu.arch);
    } else if (c->has_gpu) {
        json_object_set_new(c->info, "gpu", json_pack("{s:s, s:s, s:s}", "name", c->gpu.name,
                                                      "uuid", c->gpu.uuid, "how", c->gpu.how));
        ep__log(c, "info", hk_tr(HK_MSG_EP_GPU_FOUND_BY), c->gpu.name[0] ? c->gpu.name : "NVIDIA GPU",
                c->gpu.how);
        TRY(init_device(c));
        if (c->o->target && strcmp(c->arch, c->dev.arch) != 0 && c->has_dev)
            ep__log(c, "warn", hk_tr(HK_MSG_EP_COMPILING_ASKED_GPU), c->arch, c->dev.arch);
    } else {
        json_object_set_new(c->info, "gpu", json_null());
        ep__log_code(c, "warn", "no_gpu", c->no_gpu_why);
    }
    json_object_set_new(c->info, "arch", json_string(c->arch));
    const char *mem_words = NULL;
    enum runner_isolation iso = c->mo.isolation == RUNNER_ISO_AUTO ? runner_isolation_available()
                                                                   : c->mo.isolation;
    (void)runner_memory_available(true, &mem_words);
    json_object_set_new(c->info, "isolation", ep__text(runner_isolation_name(iso)));
    /* compiles of candidate text run in the same sandbox (measure_build_runner_spec) */
    json_object_set_new(c->info, "compile_isolation", ep__text(runner_isolation_name(iso)));
    /* what decided "correct": said on every report, plainly for the command form */
    json_object_set_new(c->info, "correctness",
                        ep__text(hk_tr(c->is_cmd ? HK_MSG_EP_CORRECT_CMD
                                                 : HK_MSG_EP_CORRECT_HARNESS)));
    json_object_set_new(c->info, "memory_limit", ep__text(mem_words));
    ep__log(c, "info", hk_tr(HK_MSG_EP_ISOLATION), runner_isolation_name(iso));
    ep__log(c, "info", hk_tr(HK_MSG_EP_SPEC_SIZES_SEEDS_DISTRIBUTIONS), c->o->spec_path,
            c->sp->n_sizes, c->sp->n_seeds, c->sp->n_dists);
    if (c->sp->n_inferred) {
        /* an inferred spec says what it guessed: the report and the editor repeat it */
        struct hk_buf ib;
        hk_buf_init(&ib, 8192);
        for (size_t i = 0; i < c->sp->n_inferred; i++)
            hk_buf_printf(&ib, "%s%s", i ? "; " : "", c->sp->inferred[i]);
        json_object_set_new(c->info, "spec_inferred", ep__text(ib.data ? ib.data : ""));
        ep__log(c, "info", hk_tr(HK_MSG_EP_SPEC_INFERRED), ib.data ? ib.data : "");
        hk_buf_free(&ib);
    }
    c->mo.spec = c->sp;
    c->mo.nvcc = c->nvcc;
    c->mo.arch = c->arch;
    c->mo.stop = c->o->stop;
    c->mo.lock_wait_s = &c->lock_wait_s;
    const char *no_floor = c->has_gpu ? credit_missing(c) : NULL;
    if (no_floor) {
        json_object_set_new(c->info, "floor",
                            json_pack("{s:b, s:s, s:b}", "available", 0, "why", no_floor,
                                      "allow_no_floor", c->mo.allow_no_floor));
        if (c->mo.allow_no_floor)
            ep__log(c, "warn", hk_tr(HK_MSG_EP_PHYSICAL_FLOOR_SPEEDUPS_ARE), no_floor);
        else
            ep__log(c, "warn", hk_tr(HK_MSG_EP_PHYSICAL_FLOOR_CANDIDATES_ARE), no_floor);
    }
    ep__save_info(c);
out:
    return rc;
}

/* Why no physical floor bounds this episode's times, or NULL when one does. A command-form
 * spec has no byte or FLOP formula, so never one. */
static const char *credit_missing(const ep_ctx *c)
{
    if (c->is_cmd)
        return hk_tr_in(HK_LANG_EN, HK_MSG_FLOOR_CMDFORM);
    return c->mo.spec ? measure_floor_missing(&c->mo) : NULL;
}

static void ep__save_info(ep_ctx *c)
{
    if (!c->info || !c->db || !c->episode_id)
        return;
    char *s = json_dumps(c->info, JSON_COMPACT);
    if (s && store_episode_set_info(c->db, c->episode_id, s))
        HK_WARN("episode: info not stored: %s", store_errmsg(c->db));
    free(s);
}

/* ---- failure and stop ---- */

static void ep__fail_early(ep_ctx *c, int rc, const char *fmt, ...)
{
    (void)rc;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!c->res->error)
        c->res->error = hk_strdup(msg);
    ep__log(c, "error", "%s", msg);
}

static int ep__fail(ep_ctx *c, bool no_gpu, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!c->res->error)
        c->res->error = hk_strdup(msg);
    c->res->status = STORE_EP_FAILED;
    c->res->no_gpu = c->res->no_gpu || no_gpu;
    c->failed = true;
    ep__log(c, "error", "%s", msg);
    return HK_ECHILD; /* stage-level: "the episode failed", handled by ep_run */
}

/* ---- stage 2: baseline ---- */

/* Candidate timeouts from the baseline's slowest process and combination (unless the
 * caller set them), so a kernel that never terminates costs seconds, not minutes. */
static void size_timeouts(ep_ctx *c, const measure_verdict *v)
{
    const measure_opts *given = &c->o->measure;
    long w = v->max_wall_ms > 0 ? v->max_wall_ms : 1000;
    /* run mode's limit is per combination (a --combos process is killed when its next
     * output file is that late), from the baseline's time per combination */
    long per = v->max_combo_wall_ms > 0 ? v->max_combo_wall_ms : w;
    /* only ever raised: a later call (the accuracy stage's larger processes) adds to it */
    if (!given->run_timeout_ms)
        c->mo.run_timeout_ms = (unsigned)fmax(c->mo.run_timeout_ms,
                                              fmin(120000, fmax(10000, 10.0 * (double)per)));
    if (!given->time_timeout_ms)
        c->mo.time_timeout_ms = (unsigned)fmax(c->mo.time_timeout_ms,
                                               fmin(600000, fmax(60000, 10.0 * (double)w)));
}

static int record_evidence(ep_ctx *c, int64_t vid, const char *kind, json_t *j)
{
    if (!j)
        return HK_OK;
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s)
        return HK_ENOMEM;
    if (store_evidence_add(c->db, vid, c->episode_id, kind, s, NULL))
        ep__log(c, "warn", hk_tr(HK_MSG_EP_STORE_EVIDENCE), kind, store_errmsg(c->db));
    free(s);
    return HK_OK;
}

static char *size_key(const ep_ctx *c, int k)
{
    struct hk_buf b;
    hk_buf_init(&b, 1024);
    for (size_t i = 0; i < c->sp->n_size_names; i++)
        (void)hk_buf_printf(&b, "%s%s=%lld", i ? "," : "", c->sp->size_names[i],
                            c->sp->size_values[(size_t)k * c->sp->n_size_names + i]);
    char *s = hk_buf_steal(&b);
    return s ? s : hk_strdup("");
}

static int ep__add_measurement(ep_ctx *c, int64_t vid, enum store_measure_kind kind, int size,
                        double median, double p10, double p90, int reps, json_t *raw)
{
    store_measurement m;
    memset(&m, 0, sizeof m);
    m.version_id = vid;
    m.episode_id = c->episode_id;
    m.kind = kind;
    m.median_ms = median;
    m.p10_ms = p10;
    m.p90_ms = p90;
    m.spread = NAN;
    m.reps = reps;
    measure_rates(&c->mo, size, median, &m.bytes_per_s, &m.flop_per_s, &m.roofline_pct);
    m.size_key = size_key(c, size);
    m.raw_json = raw ? json_dumps(raw, JSON_COMPACT) : NULL;
    json_decref(raw);
    int rc = store_measurement_add(c->db, &m, NULL);
    if (rc)
        ep__log(c, "warn", hk_tr(HK_MSG_EP_STORE_MEASUREMENT), store_errmsg(c->db));
    hk_free(m.size_key);
    free(m.raw_json);
    return HK_OK;
}

static json_t *launch_json(const long long *block, const char *const *flags)
{
    json_t *j = json_object(), *f = json_array();
    if (!j || !f) {
        json_decref(j);
        json_decref(f);
        return NULL;
    }
    for (size_t i = 0; flags && flags[i]; i++)
        json_array_append_new(f, ep__text(flags[i]));
    json_object_set_new(j, "flags", f);
    if (block)
        json_object_set_new(j, "block", json_pack("[I,I,I]", (json_int_t)block[0],
                                                  (json_int_t)block[1], (json_int_t)block[2]));
    else
        json_object_set_new(j, "block", json_null());
    return j;
}

/* Adds a version of this episode (source: the whole file text). */
static int ep__add_version(ep_ctx *c, const char *text, int64_t parent, json_t *launch,
                    enum store_version_status st, const char *produced_by, int64_t *vid)
{
    char *lj = launch ? json_dumps(launch, JSON_COMPACT) : NULL;
    store_version_new vn = {.episode_id = c->episode_id,
                            .parent_id = parent,
                            .source = text,
                            .launch_json = lj,
                            .status = st,
                            .produced_by = produced_by};
    int rc = store_version_add(c->db, &vn, vid);
    free(lj);
    if (rc)
        ep__log(c, "error", hk_tr(HK_MSG_EP_STORE_VERSION), store_errmsg(c->db));
    return rc ? HK_EDB : HK_OK;
}

/* The original text as version v0 of the chain: the root version of earlier episodes with
 * this text, or a new one (form: "command" for command-form specs, NULL for the harness
 * form), recorded as the episode's baseline and as c->base_rec. HK_OK, HK_ENOMEM, HK_EDB. */
static int baseline_version(ep_ctx *c, const char *form)
{
    char hash[STORE_HASH_HEX];
    store_content_hash(c->text, c->text_len, hash);
    /* The original is a root version with this text. (Candidates can share the text --
     * a block-size change alters only the launch -- so the hash alone is not enough.) */
    store_history_row *rows = NULL;
    size_t n_rows = 0;
    c->base_vid = 0;
    if (store_kernel_history(c->db, c->kernel_id, &rows, &n_rows) == HK_OK)
        for (size_t i = 0; i < n_rows; i++) {
            const store_version *v = &rows[i].version;
            if (v->parent_id == 0 && v->content_hash && !strcmp(v->content_hash, hash) &&
                v->produced_by && !strcmp(v->produced_by, "original"))
                c->base_vid = v->id;
        }
    store_history_free(rows, n_rows);
    int rc;
    if (!c->base_vid) {
        /* the block the baseline is measured with (the spec's, at size set 0), so that
         * applying a version can tell whether its block differs from the launch sites' */
        search_launch sl;
        char err[128];
        long long blk[3];
        bool has_block = !form && search_launch_from_spec(c->sp, 0, &sl, err, sizeof err) == HK_OK;
        for (int d = 0; has_block && d < 3; d++)
            blk[d] = sl.block[d];
        json_t *lj = launch_json(has_block ? blk : NULL, NULL);
        if (lj && has_block)
            json_object_set_new(lj, "grid_mode", json_string("spec"));
        if (lj && form)
            json_object_set_new(lj, "form", json_string(form));
        /* a candidate until it is measured (baseline_measured): without a GPU the original
         * is built, never verified */
        rc = ep__add_version(c, c->text, 0, lj, STORE_V_CANDIDATE, "original", &c->base_vid);
        json_decref(lj);
        if (rc)
            return rc;
    }
    if (store_episode_set_baseline(c->db, c->episode_id, c->base_vid))
        ep__log_store(c);
    ep_rec *b = hk_calloc(1, sizeof *b);
    if (!b)
        return HK_ENOMEM;
    b->vid = c->base_vid;
    b->produced_by = hk_strdup("original");
    b->median_ms = b->speedup = b->max_abs = b->max_rel = NAN;
    if ((rc = rec_push(c, b))) {
        rec_free(b);
        return rc;
    }
    c->base_rec = b;
    return HK_OK;
}

/* The baseline ran, checked and timed: its version is verified from now on. */
static void baseline_measured(ep_ctx *c)
{
    c->have_base = true;
    if (store_version_set_status(c->db, c->base_vid, STORE_V_VERIFIED, NULL, NULL))
        ep__log_store(c);
}

static int stage_baseline(ep_ctx *c)
{
    int rc = HK_OK;
    stage_begin(c, "baseline", 5, "%s",
                hk_tr(c->has_gpu ? HK_MSG_EPW_BASELINE_GPU : HK_MSG_EPW_BASELINE_NO_GPU));
    if ((rc = baseline_version(c, NULL)))
        return rc;
    ep_rec *b = c->base_rec;

    /* build */
    char *dir = hk_asprintf("%s/baseline", c->work);
    measure_build mb;
    measure_compile mc;
    memset(&mb, 0, sizeof mb);
    memset(&mc, 0, sizeof mc);
    if (!dir)
        return HK_ENOMEM;
    rc = measure_build_prepare(&c->mo, dir, c->text, c->text_len, NULL, &mb);
    hk_free(dir);
    if (rc) {
        rc = ep__fail(c, false, hk_tr(HK_MSG_EP_CANNOT_WRITE_BENCHMARK_PROGRAM), hk_strerror(rc));
        goto out;
    }
    const char *base_name = strrchr(c->file_abs, '/');
    mb.name = hk_strdup(base_name ? base_name + 1 : c->file_abs); /* errors name the user's file */
    progress(c, 6, NULL, "%s", hk_tr(HK_MSG_EPW_COMPILING_BASELINE));
    TRY(measure_build_compile(&c->mo, &mb, &mc));
    b->dir = hk_strdup(mb.dir);
    b->exe = hk_strdup(mb.exe);
    b->module = mb.module ? hk_strdup(mb.module) : NULL;
    b->ptxas = measure_resources_json(&mc, c->o->kernel);
    if (!mc.ok) {
        rc = ep__fail(c, false, hk_tr(HK_MSG_EP_ORIGINAL_KERNEL_DOES_NOT),
                      mc.details ? mc.details : "");
        goto out;
    }
    b->build_done = b->build_ok = true;
    TRY(program_key(c->text, c->text_len, NULL, c->sp->template_args, c->sp->n_template_args,
                    SEARCH_GRID_SPEC, 0, b->build_key));
    if (b->ptxas) {
        ep__log(c, "info", hk_tr(HK_MSG_EP_BASELINE_REGISTERS_BYTES_SPILLED),
                json_integer_value(json_object_get(b->ptxas, "registers")),
                json_integer_value(json_object_get(b->ptxas, "spill_stores")),
                json_integer_value(json_object_get(b->ptxas, "smem_static")));
        record_evidence(c, c->base_vid, "ptxas", json_incref(b->ptxas));
    }
    if (!c->has_gpu)
        goto out;
    {
        char *sdir = hk_asprintf("%s/fp64", c->work);
        rc = sdir ? build_shadow(c, sdir) : HK_ENOMEM;
        hk_free(sdir);
        if (rc)
            goto out;
    }

    /* reference outputs and timing */
    char *ref = hk_asprintf("%s/ref", c->scratch);
    if (!ref) {
        rc = HK_ENOMEM;
        goto out;
    }
    measure_verdict v;
    measure_verdict_init(&v);
    progress(c, 8, NULL, "%s",
             hk_tr(c->mo.quick_check ? HK_MSG_EPW_RUN_BASELINE_QUICK : HK_MSG_EPW_RUN_BASELINE_FULL));
    measure_prog bp = rec_prog(b);
    rc = measure_baseline_run(&c->mo, &bp, ref, &c->base, &v);
    hk_free(ref);
    if (rc == HK_OK && v.reason == MEASURE_OK)
        shadow_ran(c);
    if (rc == HK_OK)
        ep__log(c, "info", hk_tr(HK_MSG_EP_INPUTS_SPEC_SEEDS_DRAWN),
                c->base.seed_offset, c->base.seed_offset);
    if (rc == HK_OK && v.reason != MEASURE_OK) {
        rc = ep__fail(c, v.reason == MEASURE_NO_GPU, hk_tr(HK_MSG_EP_BASELINE_FAILED),
                      measure_reason_name(v.reason), v.details ? v.details : "");
        measure_verdict_clear(&v);
        goto out;
    }
    size_timeouts(c, &v);
    measure_verdict_clear(&v);
    if (rc)
        goto out;
    baseline_measured(c);
    for (size_t k = 0; k < c->base.n_times; k++) {
        const measure_timing *t = &c->base.times[k];
        double bps, fps, pct, floor_ms;
        bool below;
        measure_rates(&c->mo, (int)k, t->median_ms, &bps, &fps, &pct);
        json_t *x = json_pack("{s:i, s:f, s:o, s:o, s:o, s:i}", "size", (int)k, "median_ms",
                              t->median_ms, "bytes_per_s", num_or_null(bps), "flop_per_s",
                              num_or_null(fps), "roofline_pct", num_or_null(pct), "reps", t->reps);
        progress(c, 12, x, hk_tr(HK_MSG_EPW_BASELINE_SIZE), k,
                 t->median_ms, t->p10_ms, t->p90_ms, t->reps,
                 (int)k == c->base.primary_size ? hk_tr(HK_MSG_EPW_SPEEDUP_HERE) : "");
        if (measure_floor_check(&c->mo, (int)k, t->median_ms, &floor_ms, &below) == HK_OK && below)
            ep__log(c, "warn",
                    hk_tr(HK_MSG_EP_BASELINE_MS_BELOW_PHYSICAL),
                    t->median_ms, floor_ms, k);
    }
    const measure_timing *pt = &c->base.times[c->base.primary_size];
    json_t *raw = json_loads(pt->raw ? pt->raw : "{}", 0, NULL);
    if (raw && c->base.checks)
        json_object_set_new(raw, "checks", json_deep_copy(c->base.checks));
    ep__add_measurement(c, c->base_vid, STORE_M_BASELINE, c->base.primary_size, pt->median_ms,
                        pt->p10_ms, pt->p90_ms, pt->reps, raw);
    b->median_ms = pt->median_ms;
    b->speedup = 1.0;
    b->accepted = true;
    b->evaluated = true;
out:
    measure_build_free(&mb);
    measure_compile_clear(&mc);
    return rc;
}

/* ---- memory safety: compute-sanitizer (sanitize.h, docs/sanitizer.md) ---- */

/* The original kernel under every tool at so's size (the smallest, or the timed one with
 * so->timed), run once per episode and kept in c: what a candidate's finding, or a check the
 * candidate left incomplete (incomplete), is judged against. tool: the one that asked, for
 * the log.
 * *base: c's result. HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int sanitize_base(ep_ctx *c, const sanitize_opts *so, const measure_prog *bp,
                         const char *what, enum sanitize_tool tool, bool incomplete,
                         const sanitize_result **base)
{
    sanitize_result *b = so->timed ? &c->base_san_timed : &c->base_san;
    bool *done = so->timed ? &c->base_san_timed_done : &c->base_san_done;
    *base = b;
    if (*done)
        return HK_OK;
    sanitize_opts bo = *so;
    bo.all_tools = true;
    bo.signatures = true; /* memcheck's findings kept by signature (sanitize_sigs) */
    bo.baseline = NULL;
    ep__log(c, "info",
            hk_tr(incomplete ? HK_MSG_EP_MEMORY_SAFETY_BASE_INCOMPLETE
                             : HK_MSG_EP_MEMORY_SAFETY_COMPUTE_SANITIZER),
            what, sanitize_tool_name(tool));
    int rc = sanitize_candidate(&c->mo, &bo, bp, b);
    if (rc) {
        sanitize_result_clear(b);
        return rc;
    }
    *done = true;
    return HK_OK;
}

/* A candidate rejected for a tool's finding (not the program's own failure): the baseline
 * (bp, c->text) runs under every tool once, and when that tool finds something there too,
 * the candidate (cp, its text) runs again with the baseline's result, so that findings on
 * lines the candidate keeps from the original are the original's (sanitize_opts.baseline)
 * and the other tools still check it. *sr is replaced then. what names the candidate in
 * the log. HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int sanitize_again(ep_ctx *c, const sanitize_opts *so, const measure_prog *bp,
                          const char *what, const measure_prog *cp, const char *text,
                          size_t len, sanitize_result *sr)
{
    if (sr->outcome != SANITIZE_REJECTED || !text)
        return HK_OK;
    int found = -1;
    for (int t = 0; t < SANITIZE_N_TOOLS && found < 0; t++)
        if (sr->tools[t].status == SANITIZE_FOUND)
            found = t;
    if (found < 0)
        return HK_OK;
    const sanitize_result *base;
    int rc = sanitize_base(c, so, bp, what, (enum sanitize_tool)found, false, &base);
    if (rc)
        return rc;
    if (base->tools[found].status != SANITIZE_FOUND)
        return HK_OK;
    sanitize_opts io = *so;
    io.baseline = base;
    io.base_text = c->text;
    io.base_len = c->text_len;
    io.cand_text = text;
    io.cand_len = len;
    sanitize_result again;
    if ((rc = sanitize_candidate(&c->mo, &io, cp, &again))) {
        sanitize_result_clear(&again);
        return rc;
    }
    sanitize_result_clear(sr);
    *sr = again;
    return HK_OK;
}

/* The tools at the smallest size (cheap, quick findings), then, unless that rejected or
 * could not complete (sanitize_timed_wanted), once more at the timed size: one launch at
 * the baseline's primary size, where the speedup is measured, so that a kernel safe only at
 * small sizes is seen where it is timed (tests/gpu/cheats/size_race.cu). Each pass judges
 * findings against the original kernel's own at its size (sanitize_again: bp and text;
 * bp NULL or text NULL: every finding rejects). *sr: both passes folded into one
 * (sanitize_result_add_timed). HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int sanitize_sizes(ep_ctx *c, const sanitize_opts *so, const measure_prog *bp,
                          const char *what, const measure_prog *cp, const char *text,
                          size_t len, sanitize_result *sr)
{
    int rc = sanitize_candidate(&c->mo, so, cp, sr);
    if (!rc && bp)
        rc = sanitize_again(c, so, bp, what, cp, text, len, sr);
    if (rc || !c->base.n_times || !sanitize_timed_wanted(sr, c->base.primary_size))
        return rc;
    sanitize_opts to = *so;
    to.timed = true;
    to.size = c->base.primary_size;
    ep__log(c, "info", hk_tr(HK_MSG_EP_MEMORY_SAFETY_TIMED), what, to.size);
    sanitize_result t;
    rc = sanitize_candidate(&c->mo, &to, cp, &t);
    if (!rc && bp)
        rc = sanitize_again(c, &to, bp, what, cp, text, len, &t);
    if (!rc)
        rc = sanitize_result_add_timed(sr, &t);
    sanitize_result_clear(&t);
    return rc;
}

/* A check the candidate left incomplete (a tool past its limit, or ended by the runner's
 * limits: sanitize_tool_result.incomplete) where the original kernel's run of the same tool at
 * the same size completed is the candidate's own doing: a kernel that spins, or does far more
 * work, only under the tool would otherwise leave a faster verdict unchecked at any claim
 * (sanitize_credit_allowed holds back only claims over 2x). *why: the note that uncredits it
 * (owned), or NULL when every incomplete tool was incomplete for the original too (the tool
 * cannot check this program at this size within its limit: the note says so, the credit
 * stands). bp: the original's program. HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int sanitize_incomplete_judged(ep_ctx *c, const sanitize_opts *so, const measure_prog *bp,
                                      const char *what, const sanitize_result *sr, char **why)
{
    *why = NULL;
    if (!sr->incomplete || sr->outcome != SANITIZE_UNCHECKED)
        return HK_OK;
    for (const sanitize_result *p = sr; p; p = p->at_timed)
        for (int t = 0; t < SANITIZE_N_TOOLS; t++) {
            const sanitize_tool_result *x = &p->tools[t];
            if (!x->incomplete)
                continue;
            sanitize_opts po = *so;
            if (p->timed) {
                po.timed = true;
                po.size = p->size;
            }
            const sanitize_result *base;
            int rc = sanitize_base(c, &po, bp, what, (enum sanitize_tool)t, true, &base);
            if (rc)
                return rc;
            const sanitize_tool_result *b = &base->tools[t];
            /* ran to its end: not cut at its limit (a finding printed before the cut is no
             * completed run), not ended by the runner's limits */
            bool completed = !b->incomplete && !b->cut &&
                             (b->status == SANITIZE_CLEAN || b->status == SANITIZE_FOUND ||
                              b->status == SANITIZE_FAILED);
            if (!completed)
                continue;
            *why = hk_asprintf(hk_tr(HK_MSG_SAN_CREDIT_INCOMPLETE_BASE),
                               sanitize_tool_name(x->tool), p->timed ? hk_tr(HK_MSG_SAN_AT_TIMED_SIZE) : "",
                               x->text, (double)b->wall_ms / 1000.0);
            return *why ? HK_OK : HK_ENOMEM;
        }
    return HK_OK;
}

/* Runs the tools on r's program when sanitize_wanted says so (best: it is about to become
 * the accepted best; claimed: the speedup it was measured with), once per version. A
 * rejection is set in v (reason, the tool's first finding); v is untouched otherwise. The
 * outcome goes to the log, the version's "sanitizer" evidence and the episode's info
 * ("memory_safety", the report's row; the best's is written last, so it is the one shown).
 * HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int sanitize_rec(ep_ctx *c, ep_rec *r, bool best, double claimed, measure_verdict *v)
{
    static const char prefix[] = "memory safety: ";
    if (!sanitize_wanted(best, false, claimed, r->sanitize_note != NULL)) {
        if (best && r->sanitize_note && c->info)
            json_object_set_new(c->info, "memory_safety",
                                json_sprintf(hk_tr(HK_MSG_SAN_VERSION_NOTE), r->number,
                                             r->sanitize_note));
        return HK_OK;
    }
    sanitize_opts so = {0};
    if (c->backend == CC_DCU)
        so.unchecked = hk_tr(HK_MSG_SAN_DCU);
    else if (c->o->gpu == EP_GPU_SIMULATED && !getenv("HK_COMPUTE_SANITIZER"))
        so.unchecked = hk_tr(HK_MSG_SAN_SIMULATED);
    if (best)
        ep__log(c, "info", hk_tr(HK_MSG_EP_MEMORY_SAFETY_COMPUTE_SANITIZER_2), r->number);
    else
        ep__log(c, "info", hk_tr(HK_MSG_EP_MEMORY_SAFETY_COMPUTE_SANITIZER_3), r->number, claimed, SANITIZE_CLAIM_SPEEDUP);
    sanitize_result sr;
    measure_prog p = rec_prog(r), bp = c->base_rec ? rec_prog(c->base_rec) : p;
    char what[32];
    snprintf(what, sizeof what, "v%d", r->number);
    bool judge = c->base_rec && r != c->base_rec; /* the original's findings (sanitize_again) */
    int rc = sanitize_sizes(c, &so, judge ? &bp : NULL, what, &p, judge ? r->text : NULL,
                            r->len, &sr);
    if (rc) {
        sanitize_result_clear(&sr);
        return rc;
    }
    const char *note = sr.note && !strncmp(sr.note, prefix, strlen(prefix))
                           ? sr.note + strlen(prefix) : sr.note ? sr.note : "";
    hk_free(r->sanitize_note);
    if (!(r->sanitize_note = hk_strdup(note))) {
        sanitize_result_clear(&sr);
        return HK_ENOMEM;
    }
    ep__log(c, sr.outcome == SANITIZE_PASSED ? "info" : "warn", hk_tr(HK_MSG_SAN_VERSION_NOTE),
            r->number, sr.note ? sr.note : "");
    if (r->vid)
        record_evidence(c, r->vid, "sanitizer", sanitize_result_json(&sr));
    if (c->info)
        json_object_set_new(c->info, "memory_safety",
                            json_sprintf(hk_tr(HK_MSG_SAN_VERSION_NOTE), r->number,
                                         r->sanitize_note));
    if (sr.outcome == SANITIZE_REJECTED)
        rc = measure_verdict_set(v, sr.reason, "%s", sr.details ? sr.details : "");
    if (!rc && !sanitize_credit_allowed(&sr, claimed)) {
        hk_free(r->credit_why);
        if (!(r->credit_why = sanitize_credit_note(&sr, claimed)))
            rc = HK_ENOMEM;
        else
            ep__log(c, "warn", "v%d: %s", r->number, r->credit_why);
    } else if (!rc && judge) {
        char *why = NULL;
        rc = sanitize_incomplete_judged(c, &so, &bp, what, &sr, &why);
        if (why) {
            hk_free(r->credit_why);
            r->credit_why = why;
            ep__log(c, "warn", "v%d: %s", r->number, r->credit_why);
        }
    }
    sanitize_result_clear(&sr);
    return rc;
}

/* ---- the sensitivity check (measure_sensitivity, docs/accuracy.md) ---- */

/* Runs the sensitivity check on r, once per version: the accepted best (accuracy_next)
 * and a claim over SANITIZE_CLAIM_SPEEDUP in the search (evaluate), like compute-sanitizer.
 * At the timed size on a fresh seed (the note names it, so the check can be replayed). An
 * insensitive version's rejection is set in v; v is untouched otherwise. The outcome goes
 * to the log and the episode's info ("sensitivity", the report's row; the best's is
 * written last). HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int sens_rec(ep_ctx *c, ep_rec *r, measure_verdict *v)
{
    if (!c->base_rec || r == c->base_rec)
        return HK_OK;
    if (r->sens_note) { /* checked already: it passed or was not checked (a failure rejects) */
        if (c->info)
            json_object_set_new(c->info, "sensitivity",
                                json_sprintf(hk_tr(HK_MSG_SENS_VERSION_NOTE), r->number, r->sens_note));
        return HK_OK;
    }
    ep__log(c, "info", hk_tr(HK_MSG_EP_SENSITIVITY), r->number);
    char *dir = rec_out_dir(c, r, "sens");
    if (!dir)
        return HK_ENOMEM;
    measure_prog p = rec_prog(r), bp = rec_prog(c->base_rec);
    measure_verdict sv;
    measure_verdict_init(&sv);
    char *note = NULL;
    int runs = 0;
    int rc = measure_sensitivity(&c->mo, &bp, &p, dir, c->base.primary_size, measure_fresh_seed(),
                                 &note, &runs, &sv);
    (void)measure_rmtree(dir);
    hk_free(dir);
    if (!rc) {
        r->sens_note = note;
        note = NULL;
        ep__log(c, sv.reason == MEASURE_OK ? "info" : "warn", hk_tr(HK_MSG_SENS_VERSION_NOTE),
                r->number, r->sens_note);
        if (c->info)
            json_object_set_new(c->info, "sensitivity",
                                json_sprintf(hk_tr(HK_MSG_SENS_VERSION_NOTE), r->number, r->sens_note));
        if (sv.reason != MEASURE_OK)
            rc = measure_verdict_set(v, sv.reason, "%s", sv.details ? sv.details : "");
    }
    hk_free(note);
    measure_verdict_clear(&sv);
    return rc;
}

/* ---- stage 4: accuracy ---- */

static int cmp_rec_speedup(const void *a, const void *b)
{
    const ep_rec *x = *(ep_rec *const *)a, *y = *(ep_rec *const *)b;
    return x->speedup < y->speedup ? 1 : x->speedup > y->speedup ? -1 : 0;
}

static int reject_late(ep_ctx *c, ep_rec *r, const char *stage, const measure_verdict *v)
{
    char details[MEASURE_MAX_DETAILS + 128];
    snprintf(details, sizeof details, hk_tr(HK_MSG_EP_REJECT_LATE), stage,
             v->details ? v->details : "");
    r->accepted = false;
    r->rejected = true; /* the summary counts it as rejected, not as never measured */
    if (store_version_set_status(c->db, r->vid, STORE_V_REJECTED, measure_reason_name(v->reason),
                                 details))
        ep__log_store(c);
    json_t *ev = json_pack("{s:s, s:s, s:I, s:s, s:s, s:o}", "event", "version", "stage",
                           c->stage, "id", (json_int_t)r->vid, "status", "rejected", "reason",
                           measure_reason_name(v->reason), "message", ep__text(details));
    ep__emit(c, ev);
    return HK_OK;
}

static const ep_rec *uncredited_best(const ep_ctx *c);
static void version_event(ep_ctx *c, const ep_rec *r, const char *status, const char *reason,
                          const char *details);
static int evaluate(ep_ctx *c, ep_rec *r, search *s, double lead);

/* Faster versions whose speedup is not credited: said once, in the log and the episode's
 * info (the report shows it), so that "no best" is never mistaken for "nothing faster". */
static void note_uncredited(ep_ctx *c)
{
    const ep_rec *b = uncredited_best(c);
    if (!b)
        return;
    size_t n = 0;
    for (size_t i = 0; i < c->n_recs; i++)
        n += c->recs[i]->uncredited && c->recs[i]->speedup > 1.0;
    /* the best's own memory-safety check, else no physical floor (every version) */
    bool floor = !b->credit_why;
    const char *why = floor ? credit_missing(c) : b->credit_why;
    ep__log(c, "warn",
            hk_tr(floor ? (n == 1 ? HK_MSG_EP_NOT_CREDITED_ONE : HK_MSG_EP_NOT_CREDITED)
                        : (n == 1 ? HK_MSG_EP_NOT_CREDITED_SAFETY_ONE
                                  : HK_MSG_EP_NOT_CREDITED_SAFETY)),
            n, b->number, b->speedup, why ? why : "?");
    json_object_set_new(c->info, "not_credited",
                        json_pack("{s:i, s:i, s:f, s:s?, s:s}", "versions", (int)n,
                                  "best_version", b->number, "best_speedup", b->speedup, "why",
                                  why, "by", floor ? "floor" : "memory_safety"));
    ep__save_info(c);
}

/* The search times each candidate once against the baseline's own run; a gain under 2%
 * (SEARCH_NOISE_SPEEDUP) is within that run's noise, and taking such a candidate through the
 * full set, the sanitizer and the interleaved pairs cost up to 100 s of GPU time per episode
 * on the H200's wild suite (cs_transpose_naive: 1.0008x, cut by its time limit in the
 * verification) without a faster version to show for it. */
#define ACCURACY_MIN_SPEEDUP SEARCH_NOISE_SPEEDUP

/* Versions the accuracy stage tries before it gives up (a demotion spends none), for each
 * best it looks for (the first, and one per best the verify stage drops: VERIFY_TRIES),
 * and full checks it gives to versions that were timed behind a leader it then lost, in the
 * whole episode: each is one candidate's evaluation of the search, so together they bound
 * the GPU time of the two stages. */
#define ACCURACY_TRIES 3
#define ACCURACY_RECHECKS 3

/* A version timed behind the leader in the search (its correctness set, other sizes and
 * second look never ran: measure_evaluate_ranked) that is faster than the next version left
 * to the accuracy stage (next, or NULL when none is left), now that the leader is lost: it
 * gets the evaluation a candidate that could lead got in the search (measure_evaluate, its
 * sanitizer check for a claim over 2x, the credit), and is then verified, rejected or not
 * credited as it would have been there. Its events carry the accuracy stage. */
static int recheck_behind(ep_ctx *c, ep_rec *r, const ep_rec *next)
{
    if (next)
        ep__log(c, "info", hk_tr(HK_MSG_EP_BEHIND_RECHECK), r->number, r->speedup, next->number,
                next->speedup);
    else
        ep__log(c, "info", hk_tr(HK_MSG_EP_BEHIND_RECHECK_NONE), r->number, r->speedup);
    r->behind = false;
    r->rechecked = true;
    return evaluate(c, r, NULL, NAN);
}

/* Puts r into order[from..*n) after every version at least as fast (order has room). */
static void order_insert(ep_rec **order, size_t from, size_t *n, ep_rec *r)
{
    size_t j = from;
    while (j < *n && order[j]->speedup >= r->speedup)
        j++;
    memmove(order + j + 1, order + j, (*n - j) * sizeof *order);
    order[j] = r;
    (*n)++;
}

/* The next best: the fastest version left in the accuracy stage's order that passes its
 * checks (the full set on fresh seeds, then compute-sanitizer), with a version timed behind
 * a lost leader given its full check first when it is faster than what is left (below).
 * c->best is set when one passes, left NULL when none does within ACCURACY_TRIES. Called by
 * stage_accuracy, and by stage_verify for each best it drops: the order, the rechecks
 * already spent and whether a leader was lost carry over, the tries start again. */
static int accuracy_next(ep_ctx *c)
{
    int rc = HK_OK;
    ep_accuracy *a = &c->acc;
    measure_verdict v;
    if (!a->order || !a->ref)
        return HK_OK; /* the stage found nothing to check */
    /* The fastest that survives becomes the best; a few tries, then give up (a version
     * demoted for its memory-safety check takes no try: the one after it is as good a
     * best as it would have been). Once a leader is lost (rejected late or demoted), a
     * version the search timed behind it and never checked in full may now be the fastest
     * left: it gets that full check first (recheck_behind; a failed one spends a try, at
     * most ACCURACY_RECHECKS in all) and, verified, joins the order by its new time. */
    size_t tries = 0;
    bool demoted = false;
    c->best = NULL;
    while (tries < ACCURACY_TRIES && !c->best) {
        ep_rec *next = a->next < a->n_order ? a->order[a->next] : NULL;
        if (a->lost && a->next_behind < a->n_behind &&
            (!next || a->behind[a->next_behind]->speedup > next->speedup)) {
            if (a->rechecks == ACCURACY_RECHECKS) {
                size_t left = 0;
                for (size_t k = a->next_behind; k < a->n_behind; k++)
                    left += !next || a->behind[k]->speedup > next->speedup;
                ep__log(c, "info", hk_tr(HK_MSG_EP_BEHIND_RECHECK_LIMIT), left,
                        ACCURACY_RECHECKS);
                a->next_behind = a->n_behind;
                continue;
            }
            ep_rec *b = a->behind[a->next_behind++];
            a->rechecks++;
            TRY(recheck_behind(c, b, next));
            if (b->rejected)
                tries++;
            else if (b->accepted && b->speedup >= ACCURACY_MIN_SPEEDUP)
                order_insert(a->order, a->next, &a->n_order, b);
            demoted |= b->uncredited; /* said once more at the end, as a demotion */
            continue;
        }
        if (!next)
            break;
        ep_rec *r = next;
        a->next++;
        tries++;
        measure_verdict_init(&v);
        char *dir = rec_out_dir(c, r, "accuracy");
        measure_prog p = rec_prog(r);
        rc = dir ? measure_check(&c->mo, &p, dir, a->ref, a->combos, a->n_combos, &v)
                 : HK_ENOMEM;
        if (dir)
            (void)measure_rmtree(dir);
        hk_free(dir);
        if (rc) {
            measure_verdict_clear(&v);
            goto out;
        }
        if (!isnan(v.max_abs_err) && (isnan(r->max_abs) || v.max_abs_err > r->max_abs))
            r->max_abs = v.max_abs_err;
        if (!isnan(v.max_rel_err) && (isnan(r->max_rel) || v.max_rel_err > r->max_rel))
            r->max_rel = v.max_rel_err;
        /* the accepted best follows a change of its inputs as the baseline does
         * (sens_rec), and passes compute-sanitizer (DESIGN.md), or is not the best */
        bool unsafe = false, insensitive = false;
        if (v.reason == MEASURE_OK) {
            if ((rc = sens_rec(c, r, &v))) {
                measure_verdict_clear(&v);
                goto out;
            }
            insensitive = v.reason != MEASURE_OK;
        }
        if (v.reason == MEASURE_OK) {
            bool uncredited = r->credit_why != NULL;
            if ((rc = sanitize_rec(c, r, true, r->speedup, &v))) {
                measure_verdict_clear(&v);
                goto out;
            }
            unsafe = v.reason != MEASURE_OK;
            if (!unsafe && !uncredited && r->credit_why) {
                /* its check incomplete where the original's completed: kept as a
                 * candidate, measured and correct, never the best (sanitize_incomplete_judged) */
                r->accepted = false;
                r->uncredited = true;
                if (store_version_set_status(c->db, r->vid, STORE_V_CANDIDATE, "not_credited",
                                             r->credit_why))
                    ep__log_store(c);
                version_event(c, r, "candidate", "not_credited", r->credit_why);
                measure_verdict_clear(&v);
                demoted = a->lost = true;
                tries--; /* counted above: a demotion spends none */
                continue;
            }
        }
        if (v.reason == MEASURE_OK) {
            c->best = r;
            (void)store_version_set_accuracy(c->db, r->vid, r->max_abs, r->max_rel);
            progress(c, 86, NULL, hk_tr(HK_MSG_EPW_PASSED_MORE),
                     r->number, v.n_checked, r->max_abs, r->max_rel);
        } else {
            reject_late(c, r, unsafe ? "memory safety" : insensitive ? "sensitivity" : "accuracy", &v);
            a->lost = true;
        }
        measure_verdict_clear(&v);
    }
    if (demoted)
        note_uncredited(c); /* said before the tries; once more with the demoted versions */
out:
    return rc;
}

static int stage_accuracy(ep_ctx *c)
{
    int rc = HK_OK;
    ep_accuracy *a = &c->acc;
    stage_begin(c, "accuracy", 80, "%s", hk_tr(HK_MSG_EPW_ACCURACY));
    /* order: the accepted versions, fastest first, and room for those behind (disjoint) */
    a->order = hk_calloc(c->n_recs ? c->n_recs : 1, sizeof *a->order);
    a->behind = hk_calloc(c->n_recs ? c->n_recs : 1, sizeof *a->behind);
    if (!a->order || !a->behind)
        return HK_ENOMEM; /* ctx_free frees them */
    for (size_t i = 0; i < c->n_recs; i++) {
        ep_rec *r = c->recs[i];
        if (r == c->base_rec || r->speedup < ACCURACY_MIN_SPEEDUP)
            continue;
        if (r->accepted)
            a->order[a->n_order++] = r;
        else if (r->behind && !r->rejected)
            a->behind[a->n_behind++] = r;
    }
    qsort(a->order, a->n_order, sizeof *a->order, cmp_rec_speedup);
    qsort(a->behind, a->n_behind, sizeof *a->behind, cmp_rec_speedup);
    note_uncredited(c);
    if (!a->n_order) {
        ep__log(c, "info", "%s",
                hk_tr(uncredited_best(c) ? HK_MSG_EP_NO_FASTER_CREDITED : HK_MSG_EP_NO_FASTER_NOISE));
        return HK_OK;
    }
    /* The full set whatever the search used, on seeds no search check saw. */
    TRY(measure_combos(c->sp, c->base.seed_offset + 1000, &a->combos, &a->n_combos));
    char *ref = hk_asprintf("%s/ref-accuracy", c->scratch);
    if (!ref) {
        rc = HK_ENOMEM;
        goto out;
    }
    measure_verdict v;
    measure_verdict_init(&v);
    measure_prog bp = rec_prog(c->base_rec);
    rc = measure_reference(&c->mo, &bp, ref, a->combos, a->n_combos, &v);
    if (rc) {
        hk_free(ref);
        measure_verdict_clear(&v);
        goto out;
    }
    if (v.reason != MEASURE_OK) {
        rc = ep__fail(c, false, hk_tr(HK_MSG_EP_BASELINE_FAILED_ACCURACY_SEEDS),
                      measure_reason_name(v.reason), v.details ? v.details : "");
        hk_free(ref);
        measure_verdict_clear(&v);
        goto out;
    }
    a->ref = ref; /* the verify stage checks the next best against it as well */
    /* its processes hold more combinations than the search's did: timeouts follow them */
    size_timeouts(c, &v);
    measure_verdict_clear(&v);
    rc = accuracy_next(c);
out:
    return rc;
}

/* ---- stage 5: verify ---- */

static json_t *samples_json(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_real(x[i]));
    return a;
}

static void quantiles(const double *x, size_t n, double *p10, double *p50, double *p90)
{
    double s[MEASURE_MAX_PAIRS];
    memcpy(s, x, n * sizeof *x);
    for (size_t i = 1; i < n; i++) /* insertion sort: n <= 64 */
        for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    *p10 = measure_quantile(s, n, 0.1);
    *p50 = measure_quantile(s, n, 0.5);
    *p90 = measure_quantile(s, n, 0.9);
}

/* Bests the verify stage measures: the accuracy stage's, then up to two more, each the next
 * version that passes the accuracy stage's checks (accuracy_next) in place of one dropped
 * here (rejected on its interleaved runs, or not faster). Each costs its pairs of runs and,
 * before them, the accuracy stage's checks of the versions it takes (ACCURACY_TRIES). */
#define VERIFY_TRIES 3

/* One version's interleaved pairs against the baseline. */
struct verify_try {
    ep_rec *r;
    size_t pairs;
    double a[MEASURE_MAX_PAIRS], b[MEASURE_MAX_PAIRS];
    measure_speedup sp;
    measure_verdict vb;   /* the version's verdict on its runs */
    bool timed;           /* vb is MEASURE_OK: a, b and sp hold the pairs */
};

/* Times c->best interleaved with the baseline into t (its vb initialized here, cleared by
 * the caller). HK_ECHILD after ep__fail when the baseline fails; a failure of the version
 * is t->vb's. */
static int verify_time(ep_ctx *c, verify_try *t)
{
    int rc = HK_OK;
    t->r = c->best;
    t->timed = false;
    measure_verdict va;
    measure_verdict_init(&va);
    measure_verdict_init(&t->vb);
    char *da = hk_asprintf("%s/verify-baseline", c->scratch), *db = rec_out_dir(c, t->r, "verify");
    measure_prog pa = rec_prog(c->base_rec), pb = rec_prog(t->r);
    if (!da || !db) {
        rc = HK_ENOMEM;
        goto out;
    }
    TRY(measure_interleave(&c->mo, &pa, da, &pb, db, c->base.ref_dir, c->base.primary_size,
                           c->base.time_seed, c->base.time_dist, c->base.check_seed, t->pairs,
                           t->a, t->b, &va, &t->vb));
    if (va.reason != MEASURE_OK) {
        rc = ep__fail(c, false, hk_tr(HK_MSG_EP_BASELINE_FAILED_WHILE_VERIFYING),
                      measure_reason_name(va.reason), va.details ? va.details : "");
        goto out;
    }
    if (t->vb.reason != MEASURE_OK)
        goto out;
    TRY(measure_speedup_compute(t->a, t->b, t->pairs, &t->sp));
    t->timed = true;
    const measure_speedup *sp = &t->sp; /* every version timed says its figures */
    json_t *x = json_pack("{s:f, s:f, s:f, s:f, s:f}", "speedup", sp->speedup, "speedup_p10",
                          sp->lo, "speedup_p90", sp->hi, "baseline_ms", sp->a_median,
                          "best_ms", sp->b_median);
    progress(c, 94, x, hk_tr(HK_MSG_EPW_INTERLEAVED), sp->a_median, t->r->number,
             sp->b_median, sp->speedup, sp->lo, sp->hi);
out:
    measure_verdict_clear(&va);
    hk_free(da);
    hk_free(db);
    return rc;
}

/* The verify measurements of a timed try and the episode's verified speedup: those of the
 * version that ends the stage only. */
static void verify_record(ep_ctx *c, const verify_try *t)
{
    const measure_speedup *sp = &t->sp;
    size_t pairs = t->pairs;
    int size = c->base.primary_size;
    double a10, a50, a90, b10, b50, b90;
    quantiles(t->a, pairs, &a10, &a50, &a90);
    quantiles(t->b, pairs, &b10, &b50, &b90);
    json_t *raw_a = json_pack("{s:o, s:s}", "samples", samples_json(t->a, pairs), "role",
                              "baseline");
    json_t *raw_b = json_pack("{s:o, s:s, s:f, s:f, s:f}", "samples",
                              samples_json(t->b, pairs), "role", "candidate", "speedup",
                              sp->speedup, "ratio_p10", sp->lo, "ratio_p90", sp->hi);
    if (c->is_cmd) { /* the command form times with CUPTI, one problem size of its own */
        size = 0;
        json_object_set_new(raw_a, "timer", json_string("cupti"));
        json_object_set_new(raw_b, "timer", json_string("cupti"));
    }
    ep__add_measurement(c, c->base_vid, STORE_M_VERIFY, size, a50, a10, a90, (int)pairs, raw_a);
    ep__add_measurement(c, t->r->vid, STORE_M_VERIFY, size, b50, b10, b90, (int)pairs, raw_b);
    c->verified_speedup = *sp;
}

/* Why the verify stage dropped t's version: in the log's words (English, stored) and as
 * an entry of the episode info's "verify" (appended to dropped). */
static void verify_dropped(const verify_try *t, json_t *dropped, char *why, size_t n)
{
    const char *reason = t->timed ? "not_faster" : measure_reason_name(t->vb.reason);
    if (t->timed)
        snprintf(why, n, hk_tr(HK_MSG_EP_VERIFY_WHY_SLOWER), t->sp.speedup);
    else
        snprintf(why, n, hk_tr(HK_MSG_EP_VERIFY_WHY_REJECTED), reason);
    json_t *d = json_pack("{s:i, s:I, s:s, s:o}", "version", t->r->number, "id",
                          (json_int_t)t->r->vid, "reason", reason, "details",
                          ep__text(t->timed ? NULL : t->vb.details));
    if (d && t->timed) {
        json_object_set_new(d, "speedup", json_real(t->sp.speedup));
        json_object_set_new(d, "speedup_p10", json_real(t->sp.lo));
        json_object_set_new(d, "speedup_p90", json_real(t->sp.hi));
    }
    json_array_append_new(dropped, d);
}

/* Baseline and best interleaved (A B A B ..., separate processes; the command form: each
 * program built once, its runs interleaved). A best rejected on its runs or not faster is
 * dropped, and the next version that passes the accuracy stage's checks (accuracy_next;
 * the command form's: the next fastest accepted, cmd_next_best) is verified in its place,
 * VERIFY_TRIES in all: the stage's time holds those checks too. What was dropped, and
 * why, is the episode info's "verify". */
static int stage_verify(ep_ctx *c)
{
    int rc = HK_OK;
    size_t pairs = c->o->verify_pairs > 0 ? (size_t)c->o->verify_pairs : 5;
    if (pairs < 5)
        pairs = 5;
    if (pairs > MEASURE_MAX_PAIRS)
        pairs = MEASURE_MAX_PAIRS;
    enum hk_msg begin = c->is_cmd ? HK_MSG_EPW_CMD_VERIFY : HK_MSG_EPW_VERIFY;
    stage_begin(c, "verify", 88, hk_tr(begin), c->best->number, pairs);
    verify_try *t = hk_calloc(1, sizeof *t);
    json_t *dropped = json_array();
    ep_rec *was[VERIFY_TRIES];
    if (!t || !dropped) {
        hk_free(t);
        json_decref(dropped);
        return HK_ENOMEM;
    }
    t->pairs = pairs;
    measure_verdict_init(&t->vb);
    for (int n = 1;; n++) {
        if (n > 1)
            progress(c, 94, NULL, hk_tr(begin), c->best->number, pairs);
        measure_verdict_clear(&t->vb);
        TRY(c->is_cmd ? cmd_verify_time(c, t) : verify_time(c, t));
        /* faster by verify-candidate's rule (measure_speedup_faster: the pairs' p10 above 1,
         * their median ratio at the noise bar), not a median ratio above 1.0: a version no
         * faster than the baseline passed that about one time in two, and with a best
         * dropped here followed by the next (VERIFY_TRIES) up to seven times in eight */
        if (t->timed && measure_speedup_faster(&t->sp)) {
            verify_record(c, t);
            if (store_episode_set_best(c->db, c->episode_id, t->r->vid))
                ep__log_store(c);
            break;
        }
        if (!t->timed)
            reject_late(c, t->r, "verify", &t->vb);
        was[n - 1] = t->r;
        c->best = NULL;
        c->acc.lost = true; /* a leader lost: those timed behind it may be the fastest now */
        char why[256];
        verify_dropped(t, dropped, why, sizeof why);
        if (stopped(c)) {
            /* the episode says it was stopped: no next one */
        } else if (n == VERIFY_TRIES) {
            ep__log(c, "info", hk_tr(HK_MSG_EP_VERIFY_DROPPED_LAST), t->r->number, why,
                    VERIFY_TRIES);
        } else {
            ep__log(c, "info", hk_tr(HK_MSG_EP_VERIFY_DROPPED_NEXT), t->r->number, why, n + 1,
                    VERIFY_TRIES);
            if (c->is_cmd)
                c->best = cmd_next_best(c, was, (size_t)n);
            else
                TRY(accuracy_next(c));
            if (c->best)
                continue;
            ep__log(c, "info", hk_tr(HK_MSG_EP_VERIFY_NONE_LEFT), t->r->number);
        }
        if (t->timed) /* the last one timed, not faster: its figures stay on record */
            verify_record(c, t);
        break;
    }
out:
    /* what was dropped stays on record however the stage ended (the baseline failing in
     * a later try, a stop): a version is named only when verified */
    if (json_array_size(dropped)) {
        json_object_set_new(c->info, "verify",
                            json_pack("{s:o, s:O}", "version",
                                      rc == HK_OK && c->best ? json_integer(c->best->number) : json_null(),
                                      "dropped", dropped));
        ep__save_info(c);
    }
    json_decref(dropped);
    measure_verdict_clear(&t->vb);
    hk_free(t);
    return rc;
}

/* ---- stage 6: report ---- */

/* Nothing was measured (no GPU, or the baseline never ran): the candidates' sources are
 * what the episode found, and the scratch directory holding them is removed, so each one
 * is kept as <report dir>/candidates/vN.cu (the version's whole file). A failure to write
 * them is logged, not fatal: the store holds every version's text as well. */
static void keep_sources(ep_ctx *c)
{
    char *dir = hk_asprintf("%s/candidates", c->report_dir);
    size_t kept = 0;
    if (!dir || measure_mkdirs(dir) != HK_OK) {
        ep__log(c, "warn", hk_tr(HK_MSG_EP_CANDIDATES_SOURCES_NOT_KEPT),
                dir ? dir : "their folder");
        hk_free(dir);
        return;
    }
    for (size_t i = 0; i < c->n_recs; i++) {
        const ep_rec *r = c->recs[i];
        if (r == c->base_rec || r->is_start || r->number <= 0 || !r->text)
            continue;
        char *path = hk_asprintf("%s/v%d.cu", dir, r->number);
        FILE *f = path ? fopen(path, "w") : NULL;
        bool ok = f && fwrite(r->text, 1, r->len, f) == r->len;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok)
            ep__log(c, "warn", hk_tr(HK_MSG_EP_CANDIDATE_V_SOURCE_NOT), r->number,
                    path ? path : hk_strerror(HK_ENOMEM));
        else
            kept++;
        hk_free(path);
    }
    if (kept) {
        c->sources_dir = dir;
        ep__log(c, "info", hk_tr(HK_MSG_EP_NOTHING_MEASURED_CANDIDATES_SOURCES), kept,
                dir);
    } else {
        (void)rmdir(dir); /* no candidate got that far: no empty folder left behind */
        hk_free(dir);
    }
}

static int stage_report(ep_ctx *c)
{
    int rc = HK_OK;
    stage_begin(c, "report", 95, "%s", hk_tr(HK_MSG_EPW_REPORT));
    /* never a silent pass: a best that no tool checked says so (command form) */
    if (c->best && c->info && !json_object_get(c->info, "memory_safety"))
        json_object_set_new(c->info, "memory_safety",
                            json_sprintf(EN(EPS_NOT_CHECKED), c->best->number,
                                         c->is_cmd ? EN(EPS_CMD_NO_SANITIZER)
                                                   : EN(EPS_SANITIZER_NOT_RUN)));
    ep_rec *show[2] = {c->base_rec, c->best};
    for (int i = 0; i < 2; i++) {
        ep_rec *r = show[i];
        if (!r || !r->exe || (i == 1 && r == c->base_rec))
            continue;
        if (i == 1 && r->ptxas)
            record_evidence(c, r->vid, "ptxas", json_incref(r->ptxas));
        ep__evidence(c, r);
    }
    skill_credit(c);
    char *dir = NULL;
    if (c->o->out_dir) {
        dir = hk_strdup(c->o->out_dir);
    } else {
        char *dbc = hk_strdup(c->o->db_path);
        if (dbc) {
            char *slash = strrchr(dbc, '/');
            if (slash)
                *slash = '\0';
            dir = hk_asprintf("%s/reports/%lld", slash ? dbc : ".", (long long)c->episode_id);
        }
        hk_free(dbc);
    }
    if (!dir)
        return HK_ENOMEM;
    c->report_dir = dir;
    if (!c->have_base)
        keep_sources(c);
    return rc;
}

static int write_report(ep_ctx *c)
{
    report_paths rp = {0};
    /* the one thing of the episode a person reads as it is written */
    int was = hk_i18n_thread_lang(c->lang);
    int rc = report_write(c->db, c->episode_id, c->report_dir, REPORT_ALL, &rp);
    hk_i18n_thread_lang(was);
    if (rc) {
        char *m = hk_trf(HK_MSG_EP_REPORT_FAILED, hk_strerror(rc));
        ep__log_code(c, "error", "report_error", m ? m : hk_strerror(rc));
        hk_free(m);
        return rc;
    }
    c->res->report_json = rp.json;
    c->res->report_md = rp.md;
    c->res->report_html = rp.html;
    return HK_OK;
}

/* ---- the episode ---- */

/* The fastest candidate measured faster than the baseline but not credited, or NULL. */
static const ep_rec *uncredited_best(const ep_ctx *c)
{
    const ep_rec *b = NULL;
    for (size_t i = 0; i < c->n_recs; i++) {
        const ep_rec *r = c->recs[i];
        if (r->uncredited && r->speedup > 1.0 && (!b || r->speedup > b->speedup))
            b = r;
    }
    return b;
}

static json_t *summary_json(ep_ctx *c)
{
    json_t *s = json_object();
    if (!s)
        return NULL;
    size_t acc = 0, rej = 0, unmeasured = 0, uncredited = 0, behind = 0, rechecked = 0;
    const ep_rec *best_unc = uncredited_best(c);
    for (size_t i = 0; i < c->n_recs; i++) {
        const ep_rec *r = c->recs[i];
        if (r == c->base_rec || r->is_start)
            continue;
        rechecked += r->rechecked;
        if (r->rejected)
            rej++;
        else if (r->accepted)
            acc++;
        else if (r->uncredited)
            uncredited++;
        else if (r->behind)
            behind++;
        else
            unmeasured++;
    }
    json_object_set_new(s, "kernel", ep__text(c->o->kernel));
    json_object_set_new(s, "file", ep__text(c->file_abs));
    char src_hash[STORE_HASH_HEX];
    if (c->text)
        store_content_hash(c->text, c->text_len, src_hash);
    json_object_set_new(s, "source_hash", c->text ? json_string(src_hash) : json_null());
    json_object_set_new(s, "arch", ep__text(c->arch));
    json_object_set_new(s, "device", c->has_dev ? ep__text(c->dev.name) : json_null());
    /* a simulated GPU's numbers are not measurements: every reader marks them */
    json_object_set_new(s, "simulated", json_boolean(c->o->gpu == EP_GPU_SIMULATED));
    json_object_set_new(s, "candidates", json_integer((json_int_t)c->n_proposed));
    json_object_set_new(s, "accepted", json_integer((json_int_t)acc));
    json_object_set_new(s, "rejected", json_integer((json_int_t)rej));
    json_object_set_new(s, "not_measured", json_integer((json_int_t)unmeasured));
    json_object_set_new(s, "not_credited", json_integer((json_int_t)uncredited));
    json_object_set_new(s, "behind", json_integer((json_int_t)behind));
    /* of the others, those that were behind and got their full check in the accuracy stage */
    json_object_set_new(s, "behind_rechecked", json_integer((json_int_t)rechecked));
    if (best_unc)
        json_object_set_new(s, "not_credited_best",
                            json_pack("{s:i, s:f, s:f, s:s?, s:s}", "version", best_unc->number,
                                      "speedup", best_unc->speedup, "median_ms",
                                      best_unc->median_ms, "why",
                                      best_unc->credit_why ? best_unc->credit_why
                                                           : credit_missing(c),
                                      "by", best_unc->credit_why ? "memory_safety" : "floor"));
    /* what was built, each with its resources: a run without a GPU shows its work here */
    json_t *built = json_array();
    for (size_t i = 0; built && i < c->n_recs; i++) {
        const ep_rec *r = c->recs[i];
        if (r->is_start || (r != c->base_rec && r->number <= 0))
            continue;
        json_t *reg = json_object_get(r->ptxas, "registers");
        json_t *spill = json_object_get(r->ptxas, "spill_stores");
        json_array_append_new(
            built, json_pack("{s:i, s:s?, s:O?, s:O?, s:o, s:b, s:b}", "version", r->number,
                             "produced_by", r->produced_by, "registers", reg, "spill_stores",
                             spill, "same_code_as",
                             r->follows ? json_integer(r->follows->number) : json_null(),
                             "built", r == c->base_rec ? r->ptxas != NULL : r->build_ok, "rejected",
                             r->rejected));
    }
    json_object_set_new(s, "built", built ? built : json_null());
    json_object_set_new(s, "candidates_dir", ep__text(c->sources_dir));
    json_object_set_new(s, "baseline_version", json_integer(c->base_rec ? c->base_rec->number : 0));
    json_object_set_new(s, "baseline_ms", num_or_null(c->have_base
                                                          ? c->base.times[c->base.primary_size].median_ms
                                                          : NAN));
    if (c->best && c->verified_speedup.n > 0) { /* a best is only reported once verified */
        const measure_speedup *sp = &c->verified_speedup;
        double bps, fps, pct;
        measure_rates(&c->mo, c->base.primary_size, sp->b_median, &bps, &fps, &pct);
        json_object_set_new(s, "best_version", json_integer(c->best->number));
        json_object_set_new(s, "best_version_id", json_integer((json_int_t)c->best->vid));
        json_object_set_new(s, "best_ms", num_or_null(sp->b_median));
        json_object_set_new(s, "verify_baseline_ms", num_or_null(sp->a_median));
        json_object_set_new(s, "speedup", num_or_null(sp->speedup));
        json_object_set_new(s, "speedup_p10", num_or_null(sp->lo));
        json_object_set_new(s, "speedup_p90", num_or_null(sp->hi));
        json_object_set_new(s, "bytes_per_s", num_or_null(bps));
        json_object_set_new(s, "flop_per_s", num_or_null(fps));
        json_object_set_new(s, "roofline_pct", num_or_null(pct));
        json_object_set_new(s, "max_abs_err", num_or_null(c->best->max_abs));
        json_object_set_new(s, "max_rel_err", num_or_null(c->best->max_rel));
        json_object_set_new(s, "produced_by", ep__text(c->best->produced_by));
        json_object_set_new(s, "flagged", json_boolean(c->best->flagged));
        json_object_set_new(s, "memory_safety",
                            json_incref(json_object_get(c->info, "memory_safety")));
        json_object_set_new(s, "sensitivity", json_incref(json_object_get(c->info, "sensitivity")));
    } else {
        json_object_set_new(s, "best_version", json_null());
        json_object_set_new(s, "speedup", json_null());
    }
    return s;
}

static void emit_done(ep_ctx *c)
{
    ep_result *res = c->res;
    json_t *ev = json_object();
    if (!ev)
        return;
    json_object_set_new(ev, "event", json_string("done"));
    json_object_set_new(ev, "stage", json_string(c->stage ? c->stage : "init"));
    json_object_set_new(ev, "status", json_string(store_episode_status_name(res->status)));
    json_object_set_new(ev, "episode", res->episode_id ? json_integer(res->episode_id) : json_null());
    json_object_set_new(ev, "error", ep__text(res->error));
    json_object_set_new(ev, "no_gpu", json_boolean(res->no_gpu));
    json_object_set_new(ev, "percent", json_integer(100));
    json_object_set_new(ev, "message",
                        json_string(res->status == STORE_EP_COMPLETED ? "completed"
                                    : res->status == STORE_EP_STOPPED ? "stopped"
                                                                      : "failed"));
    json_t *rp = json_object();
    json_object_set_new(rp, "json", ep__text(res->report_json));
    json_object_set_new(rp, "md", ep__text(res->report_md));
    json_object_set_new(rp, "html", ep__text(res->report_html));
    json_object_set_new(ev, "report", rp);
    json_t *sum = summary_json(c);
    json_object_set_new(ev, "summary", sum ? sum : json_null());
    json_decref(res->summary);
    res->summary = json_incref(ev);
    ep__emit(c, ev);
}

static void ctx_free(ep_ctx *c)
{
    for (size_t i = 0; i < c->n_recs; i++)
        rec_free(c->recs[i]);
    hk_free(c->recs);
    measure_baseline_clear(&c->base);
    if (c->base_san_done)
        sanitize_result_clear(&c->base_san);
    if (c->base_san_timed_done)
        sanitize_result_clear(&c->base_san_timed);
    measure_build_free(&c->shadow_build);
    hk_free(c->acc.order);
    hk_free(c->acc.behind);
    hk_free(c->acc.combos);
    hk_free(c->acc.ref);
    spec_free(c->sp);
    sk_set_free(c->skills);
    hk_free(c->file_abs);
    hk_free(c->text);
    hk_free(c->start_text);
    hk_free(c->nvcc);
    hk_free(c->report_dir);
    hk_free(c->sources_dir);
    json_decref(c->info);
    if (c->scratch && c->scratch != c->work && !c->o->keep_work)
        (void)measure_rmtree(c->scratch); /* in memory: never left behind */
    if (c->scratch != c->work)
        hk_free(c->scratch);
    if (c->work && !c->o->keep_work && !c->o->work_dir)
        (void)measure_rmtree(c->work);
    hk_free(c->work);
    store_close(c->db);
}

static int make_work_dir(ep_ctx *c)
{
    if (c->o->work_dir) {
        c->work = hk_strdup(c->o->work_dir);
        if (!c->work)
            return HK_ENOMEM;
        return measure_mkdirs(c->work);
    }
    const char *tmp = getenv("TMPDIR");
    char *t = hk_asprintf("%s/hk-episode-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!t)
        return HK_ENOMEM;
    if (!mkdtemp(t)) {
        hk_free(t);
        return HK_EIO;
    }
    c->work = t;
    return HK_OK;
}

/* The scratch directory for output files: its own directory under a memory-backed file
 * system when that has room for the references of the full set, the accuracy stage's and
 * one candidate's outputs; else the work directory. */
static int make_scratch(ep_ctx *c)
{
    uint64_t per_set = 0, need = 0;
    for (size_t k = 0; k < c->sp->n_sizes; k++) {
        uint64_t b = 0;
        if (measure_output_bytes(c->sp, (int)k, &b) == HK_OK)
            per_set += b;
    }
    /* full references + accuracy references + a candidate's + time-mode files */
    need = per_set * (2 * (uint64_t)c->sp->n_seeds * c->sp->n_dists + 4);
    char *parent = NULL;
    int rc = measure_scratch_parent(need, c->work, &parent);
    if (rc)
        return rc;
    if (!strcmp(parent, c->work)) {
        hk_free(parent);
        c->scratch = c->work;
        return HK_OK;
    }
    char *t = hk_asprintf("%s/hk-out-XXXXXX", parent);
    hk_free(parent);
    if (!t)
        return HK_ENOMEM;
    if (!mkdtemp(t)) {
        hk_free(t);
        c->scratch = c->work; /* not usable after all: the work directory will do */
        return HK_OK;
    }
    c->scratch = t;
    return HK_OK;
}

/* The directory for one record's outputs under the scratch directory (new string). */
static char *rec_out_dir(const ep_ctx *c, const ep_rec *r, const char *what)
{
    const char *base = r->dir ? strrchr(r->dir, '/') : NULL;
    return hk_asprintf("%s/%s-%s", c->scratch, base ? base + 1 : "rec", what);
}

static int episode_run(const ep_options *o, ep_result *out, enum hk_lang lang)
{
    memset(out, 0, sizeof *out);
    out->status = STORE_EP_FAILED;
    if (!o || !o->file || !o->kernel || !o->spec_path || !o->db_path)
        return HK_EINVAL;
    ep_ctx ctx, *c = &ctx;
    memset(c, 0, sizeof *c);
    c->o = o;
    c->res = out;
    c->lang = lang;
    c->mo = o->measure;
    c->budget = o->budget > 0 ? o->budget : 12;
    c->minutes = o->minutes > 0 ? o->minutes : 10;
    if (o->cmdform)
        c->co = *o->cmdform;
    c->co.stop = o->stop;
    c->co.lock_wait_s = &c->lock_wait_s;
    if (c->co.isolation == RUNNER_ISO_AUTO)
        c->co.isolation = o->measure.isolation;
    if (!c->co.memory_max)
        c->co.memory_max = o->measure.memory_max;
    int rc = HK_OK;
    if (o->engine && strcmp(o->engine, "builtin") != 0) {
        ep__fail_early(c, HK_EUNSUPPORTED, hk_tr(HK_MSG_EP_ENGINE_NOT_AVAILABLE_HERE),
                       o->engine);
        rc = HK_EUNSUPPORTED;
        goto early;
    }
    if ((rc = init_inputs(c)) || (rc = parse_target(c)))
        goto early;

    /* GPU presence decides the arch when no target gave one, and the episode's name */
    if (o->gpu == EP_GPU_NONE) {
        detect_gpu(c, EP_GPU_NONE);
    } else if (o->gpu == EP_GPU_SIMULATED) {
        if (!o->sim_device || (!o->measure.wrapper && !c->is_cmd)) {
            ep__fail_early(c, HK_EINVAL, "%s", hk_tr(HK_MSG_EP_SIMULATED_GPU_NEEDS_SIM));
            rc = HK_EINVAL;
            goto early;
        }
        c->has_gpu = true;
        snprintf(c->gpu.name, sizeof c->gpu.name, "%s", o->sim_device->name);
        snprintf(c->gpu.uuid, sizeof c->gpu.uuid, "%s", o->sim_device->uuid);
        snprintf(c->gpu.how, sizeof c->gpu.how, "simulated");
        if (!c->arch[0]) /* --target wins; never copy c->arch onto itself */
            snprintf(c->arch, sizeof c->arch, "%.*s", (int)sizeof c->arch - 1, o->sim_device->arch);
    } else {
        detect_gpu(c, o->gpu);
    }
    if (!c->arch[0] && c->backend == CC_DCU) {
        /* the GPU's own ISA; else gfx906, the gfx9 ISA every hipcc knows (Hygon's
         * gfx926/928/936 need DTK's compiler: name them with dcu:gfxNNN) */
        snprintf(c->arch, sizeof c->arch, "%s", c->gpu.arch[0] ? c->gpu.arch : "gfx906");
        if (!c->gpu.arch[0])
            ep__log(c, "info", hk_tr(HK_MSG_EP_DCU_ARCH_KNOWN_HERE),
                    c->arch);
    }
    if (!c->arch[0]) {
        device_info cached;
        char *cache = NULL;
        (void)device_cache_path(&cache);
        if (c->has_gpu && device_cache_load(cache, c->gpu.name, c->gpu.uuid, &cached) == HK_OK)
            snprintf(c->arch, sizeof c->arch, "%s", cached.arch);
        else if (!c->has_gpu || !smi_arch(c->arch, sizeof c->arch))
            snprintf(c->arch, sizeof c->arch, "sm_90");
        hk_free(cache);
    }
    if ((rc = make_work_dir(c)) || (rc = make_scratch(c))) {
        ep__fail_early(c, rc, hk_tr(HK_MSG_EP_CANNOT_CREATE_WORK_DIRECTORY), hk_strerror(rc));
        goto early;
    }
    if ((rc = create_episode(c)))
        goto early;

    /* the stages; each returns HK_ECHILD after ep__fail (the episode failed), HK_ECANCELED
     * when stopped, other codes for infrastructure errors */
    rc = stage_init(c);
    if (!rc)
        rc = c->is_cmd ? cmd_stage_baseline(c) : stage_baseline(c);
    /* DCU without a GPU: the baseline's hipcc build proved the spec and the source build
     * for the target; candidates could be built but never judged, so it stops here. */
    if (!rc && c->backend == CC_DCU && !c->has_gpu && !stopped(c))
        rc = ep__fail(c, true, hk_tr(HK_MSG_EP_BUILT_BASELINE_HIPCC_OPTIMIZED), c->no_gpu_why, c->arch);
    if (!rc)
        rc = c->is_cmd ? cmd_stage_optimize(c) : ep__stage_optimize(c);
    if (!rc && c->has_gpu && !stopped(c))
        rc = c->is_cmd ? cmd_stage_accuracy(c) : stage_accuracy(c);
    if (!rc && c->has_gpu && c->best && !stopped(c))
        rc = stage_verify(c);
    if (!rc && stopped(c))
        rc = HK_ECANCELED;
    if (!rc && !c->has_gpu)
        rc = ep__fail(c, true, hk_tr(HK_MSG_EP_BUILT_BASELINE_CANDIDATES_MEASURED),
                      c->no_gpu_why, c->n_proposed);

    enum store_episode_status st = STORE_EP_COMPLETED;
    if (rc == HK_ECANCELED || stopped(c)) {
        st = STORE_EP_STOPPED;
        if (!out->error)
            out->error = hk_strdup(EN(LSP_END_STOPPED));
        if (c->stage)
            ep__log(c, "warn", "%s", hk_tr(HK_MSG_EP_STOPPED_VERSIONS_FOUND_SO));
    } else if (rc == HK_ECHILD || c->failed) {
        st = STORE_EP_FAILED;
    } else if (rc) {
        st = STORE_EP_FAILED;
        if (!out->error)
            out->error = hk_trf(HK_MSG_EP_INTERNAL_ERROR, hk_strerror(rc));
        ep__log(c, "error", "%s", out->error);
    }
    /* A report is written whatever the ending: a stopped or failed episode still shows
     * what it found and why it ended. Evidence only runs programs when not stopped. */
    int rrc = stage_report(c);
    out->status = st;
    ep__save_info(c);
    if (store_episode_finish(c->db, c->episode_id, st, out->error))
        HK_WARN("episode: finish: %s", store_errmsg(c->db));
    /* written after the ending is recorded, so the report shows the final status */
    if (rrc == HK_OK)
        (void)write_report(c);
    emit_done(c);
    ctx_free(c);
    return HK_OK;
early:
    out->status = STORE_EP_FAILED;
    emit_done(c);
    ctx_free(c);
    return rc;
}

/* The episode speaks English on this thread (it is single-threaded: compiles and runs are
 * child processes): its events, what it stores and its result are read by programs as
 * well as people, and each face says them in its user's language where it shows them
 * (hk_tr_said). The report's Markdown and HTML are written in the caller's language. */
int ep_run(const ep_options *o, ep_result *out)
{
    enum hk_lang lang = hk_i18n_lang();
    int was = hk_i18n_thread_lang(HK_LANG_EN);
    int rc = episode_run(o, out, lang);
    hk_i18n_thread_lang(was);
    return rc;
}

/* ---- stage 3: optimize ---- */

static enum search_status search_status_of(enum measure_reason r)
{
    switch (r) {
    case MEASURE_OK: return SEARCH_OK;
    case MEASURE_COMPILE_ERROR: return SEARCH_COMPILE_ERROR;
    case MEASURE_WRONG_ANSWER:
    case MEASURE_UNWRITTEN_OUTPUT:
    case MEASURE_OUT_OF_BOUNDS:
    case MEASURE_INPUT_MODIFIED: return SEARCH_WRONG;
    case MEASURE_TIMEOUT: return SEARCH_TIMEOUT;
    case MEASURE_BELOW_FLOOR:
    case MEASURE_HOST_CODE: return SEARCH_REJECTED;
    default: return SEARCH_CRASH;
    }
}

/* The version number the store gave vid. */
static int version_number(ep_ctx *c, int64_t vid)
{
    store_version v;
    memset(&v, 0, sizeof v);
    int n = 0;
    if (store_version_get(c->db, vid, &v) == HK_OK)
        n = v.number;
    store_version_clear(&v);
    return n;
}

static void version_event(ep_ctx *c, const ep_rec *r, const char *status, const char *reason,
                          const char *details)
{
    json_t *ev = json_object();
    if (!ev)
        return;
    char msg[512];
    if (r->accepted)
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_EP_VER_ACCEPTED), r->number, r->median_ms,
                 r->speedup, r->flagged ? hk_tr(HK_MSG_EP_VER_FLAGGED) : "", r->produced_by);
    else if (r->uncredited && r->credit_why) /* its memory-safety check (sanitize_rec) */
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_EP_VER_UNCREDITED_WHY), r->number, r->median_ms,
                 r->speedup, r->credit_why, r->produced_by);
    else if (r->uncredited)
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_EP_VER_UNCREDITED),
                 r->number, r->median_ms, r->speedup, r->produced_by);
    else if (r->behind)
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_EP_VER_BEHIND), r->number, r->median_ms, r->speedup, r->produced_by);
    else if (reason) /* no adjacent %s in either: a face reads the line back in a few tries */
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_EP_VER_REASON), r->number, status, reason,
                 r->produced_by);
    else
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_EP_VER_OTHER), r->number, status, r->produced_by);
    json_object_set_new(ev, "event", json_string("version"));
    json_object_set_new(ev, "stage", json_string(c->stage));
    json_object_set_new(ev, "message", ep__text(msg));
    json_object_set_new(ev, "id", json_integer((json_int_t)r->vid));
    json_object_set_new(ev, "number", json_integer(r->number));
    json_object_set_new(ev, "status", json_string(status));
    json_object_set_new(ev, "reason", reason ? json_string(reason) : json_null());
    json_object_set_new(ev, "details", ep__text(details));
    json_object_set_new(ev, "median_ms", num_or_null(r->median_ms));
    json_object_set_new(ev, "speedup", num_or_null(r->speedup));
    json_object_set_new(ev, "max_abs_err", num_or_null(r->max_abs));
    json_object_set_new(ev, "max_rel_err", num_or_null(r->max_rel));
    json_object_set_new(ev, "flagged", json_boolean(r->flagged));
    json_object_set_new(ev, "produced_by", ep__text(r->produced_by));
    json_object_set_new(ev, "launch", r->launch ? json_incref(r->launch) : json_null());
    ep__emit(c, ev);
}

static double best_speedup(const ep_ctx *c)
{
    double b = NAN;
    for (size_t i = 0; i < c->n_recs; i++) {
        const ep_rec *r = c->recs[i];
        if (r != c->base_rec && r->accepted && (isnan(b) || r->speedup > b))
            b = r->speedup;
    }
    return b;
}

/* The optimize stage's budget is the episode's own work: time its runs spent waiting for
 * the GPU while another episode's program held it moves the deadline (and the search's)
 * later. *seen: the lock waits already accounted for. */
static void budget_skip_lock_wait(ep_ctx *c, search *s, double *deadline, double *seen)
{
    double d = c->lock_wait_s - *seen;
    if (d <= 0)
        return;
    *seen = c->lock_wait_s;
    *deadline += d;
    c->opt_wait_s += d;
    search_extend_time(s, d);
}

/* Says how long the optimize stage waited for the GPU, when it did. */
static void note_lock_wait(ep_ctx *c)
{
    if (c->opt_wait_s < 0.5)
        return;
    ep__log(c, "info", hk_tr(HK_MSG_EP_WAITING_GPU_ANOTHER_EPISODE), c->opt_wait_s);
    json_object_set_new(c->info, "gpu_wait_s", json_real(c->opt_wait_s));
    ep__save_info(c);
}

static void optimize_progress(ep_ctx *c)
{
    double done = (double)c->n_evaluated / (double)(c->budget > 0 ? c->budget : 1);
    double t = (hk_now_s() - c->t_opt - c->opt_wait_s) / (c->minutes * 60.0);
    double f = fmin(1.0, fmax(done, t));
    double b = best_speedup(c);
    json_t *x = json_pack("{s:I, s:I, s:o}", "candidate", (json_int_t)c->n_evaluated, "budget",
                          (json_int_t)c->budget, "best_speedup", num_or_null(b));
    if (isnan(b))
        progress(c, 15 + (int)(65 * f), x, hk_tr(HK_MSG_EPW_CANDIDATE), c->n_evaluated, c->budget);
    else
        progress(c, 15 + (int)(65 * f), x, hk_tr(HK_MSG_EPW_CANDIDATE_BEST), c->n_evaluated,
                 c->budget, b);
}

/* The spec a candidate is built with: the episode's, with the candidate's grid mode and
 * template arguments (a shallow copy: only the replaced members are the caller's). */
typedef struct {
    spec sp;
    expr *grid[3];
} cand_spec;

/* Parses text (owned, freed here; NULL: out of memory) as the candidate's grid expression
 * along axis. */
static int cand_grid_set(cand_spec *cs, unsigned axis, char *text)
{
    if (!text)
        return HK_ENOMEM;
    char err[128];
    int rc = expr_parse(text, &cs->grid[axis], err, sizeof err);
    hk_free(text);
    if (!rc)
        cs->sp.grid[axis] = cs->grid[axis];
    return rc;
}

/* SEARCH_GRID_DIVIDED: the spec's grid with the axis's expression g replaced by
 * ceil_div(g, K) (a stencil_window body: each thread computes K rows), the other two the
 * spec's own (borrowed). The baseline's checked launches keep the spec's grid
 * (--ref-launch: measure.c passes the baseline's own launch). */
static int cand_grid_divided(const spec *sp, const search_candidate *k, cand_spec *cs)
{
    if (k->grid_divisor < 2 || k->grid_axis > 2)
        return HK_EINVAL;
    const expr *g = sp->grid[k->grid_axis];
    return cand_grid_set(cs, k->grid_axis,
                         hk_asprintf("ceil_div(%s, %u)", g ? expr_text(g) : "1", k->grid_divisor));
}

/* SEARCH_GRID_MULTIPLIED: the spec's grid with the axis's expression g replaced by
 * (g) * K (split_topk_scan: K lanes per query), the other two the spec's own. */
static int cand_grid_multiplied(const spec *sp, const search_candidate *k, cand_spec *cs)
{
    if (k->grid_multiplier < 2 || k->grid_multiplier > 64 || k->grid_axis > 2)
        return HK_EINVAL;
    const expr *g = sp->grid[k->grid_axis];
    return cand_grid_set(cs, k->grid_axis,
                         hk_asprintf("(%s) * %u", g ? expr_text(g) : "1", k->grid_multiplier));
}

static int cand_spec_make(const ep_ctx *c, const search_candidate *k, cand_spec *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->sp = *c->sp;
    if (k->n_template_args && k->template_args) {
        cs->sp.template_args = k->template_args;
        cs->sp.n_template_args = k->n_template_args;
    }
    if (k->grid_mode == SEARCH_GRID_DIVIDED)
        return cand_grid_divided(c->sp, k, cs);
    if (k->grid_mode == SEARCH_GRID_MULTIPLIED)
        return cand_grid_multiplied(c->sp, k, cs);
    if (k->grid_mode != SEARCH_GRID_SM_MULTIPLE)
        return HK_OK;
    char text[64], err[128];
    snprintf(text, sizeof text, "sm_count * %u", k->grid_per_sm ? k->grid_per_sm : 1);
    int rc = expr_parse(text, &cs->grid[0], err, sizeof err);
    if (!rc)
        rc = expr_parse("1", &cs->grid[1], err, sizeof err);
    if (!rc)
        rc = expr_parse("1", &cs->grid[2], err, sizeof err);
    for (int d = 0; d < 3 && !rc; d++)
        cs->sp.grid[d] = cs->grid[d];
    return rc;
}

static void cand_spec_clear(cand_spec *cs)
{
    for (int d = 0; d < 3; d++)
        expr_free(cs->grid[d]);
    memset(cs, 0, sizeof *cs);
}

static json_t *cand_launch_json(const search_candidate *k)
{
    long long b[3] = {k->block[0], k->block[1], k->block[2]};
    json_t *j = launch_json(b, k->flags);
    if (!j)
        return NULL;
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)k->hash);
    static const char *const modes[] = {[SEARCH_GRID_SPEC] = "spec",
                                        [SEARCH_GRID_SM_MULTIPLE] = "sm_multiple",
                                        [SEARCH_GRID_DIVIDED] = "divided",
                                        [SEARCH_GRID_MULTIPLIED] = "multiplied"};
    json_object_set_new(j, "grid_mode", json_string(modes[k->grid_mode]));
    if (k->grid_mode == SEARCH_GRID_SM_MULTIPLE)
        json_object_set_new(j, "grid_per_sm", json_integer(k->grid_per_sm));
    if (k->grid_mode == SEARCH_GRID_DIVIDED) {
        /* rw_launch_from_json reads these back for apply */
        char axis[2] = {"xyz"[k->grid_axis % 3], '\0'};
        json_object_set_new(j, "grid_divisor", json_integer(k->grid_divisor));
        json_object_set_new(j, "grid_axis", json_string(axis));
    }
    if (k->grid_mode == SEARCH_GRID_MULTIPLIED) {
        char axis[2] = {"xyz"[k->grid_axis % 3], '\0'};
        json_object_set_new(j, "grid_multiplier", json_integer(k->grid_multiplier));
        json_object_set_new(j, "grid_axis", json_string(axis));
    }
    json_object_set_new(j, "fast_math", json_boolean(k->fast_math));
    json_object_set_new(j, "launch_bounds", json_integer(k->launch_bounds));
    json_object_set_new(j, "restrict", json_boolean(k->restrict_ptrs));
    json_object_set_new(j, "grid_stride", json_boolean(k->grid_stride));
    json_t *t = json_object();
    for (size_t i = 0; t && i < k->n_tunables; i++)
        json_object_set_new(t, k->tunables[i].name, ep__text(k->tunables[i].value));
    json_object_set_new(j, "tunables", t ? t : json_null());
    json_t *ta = json_array();
    for (size_t i = 0; ta && i < k->n_template_args; i++)
        json_array_append_new(ta, ep__text(k->template_args[i]));
    json_object_set_new(j, "template_args", ta ? ta : json_null());
    json_object_set_new(j, "search_id", json_integer(k->id));
    json_object_set_new(j, "phase", json_integer(k->phase));
    json_object_set_new(j, "hash", json_string(hash));
    return j;
}

/* Built candidates waiting for the GPU (taken in proposal order: rq_take). */
typedef struct {
    ep_rec **v;
    size_t head, n, cap;
} rec_queue;

static int rq_push(rec_queue *q, ep_rec *r)
{
    if (q->head + q->n == q->cap) {
        if (q->head) { /* compact before growing */
            memmove(q->v, q->v + q->head, q->n * sizeof *q->v);
            q->head = 0;
        }
        if (q->n == q->cap) {
            size_t cap = q->cap ? q->cap * 2 : 16;
            ep_rec **v = hk_realloc(q->v, cap * sizeof *v);
            if (!v)
                return HK_ENOMEM;
            q->v = v;
            q->cap = cap;
        }
    }
    q->v[q->head + q->n++] = r;
    return HK_OK;
}

/* The next built record to time: the earliest proposal among those built, and none while
 * an earlier proposal is still compiling (when may_wait). The search proposes the
 * bottleneck's skills first; timing in build order let launch-only candidates, which need
 * no compile, spend a short time budget before any rewrite was timed (seen on an H200). */
static ep_rec *rq_take(const ep_ctx *c, rec_queue *q, bool may_wait)
{
    if (!q->n)
        return NULL;
    size_t at = q->head;
    for (size_t i = q->head + 1; i < q->head + q->n; i++)
        if (q->v[i]->search_id < q->v[at]->search_id)
            at = i;
    ep_rec *r = q->v[at];
    for (size_t i = 0; may_wait && i < c->n_recs; i++) {
        const ep_rec *o = c->recs[i];
        if (o->from_search && !o->build_done && !o->rejected && o->search_id < r->search_id)
            return NULL;
    }
    memmove(q->v + at, q->v + at + 1, (q->head + q->n - at - 1) * sizeof *q->v);
    q->n--;
    return r;
}

/* The identity of a built program: candidates that differ only in their launch block
 * (a run-time option of the program) share one build. */
static int program_key(const char *text, size_t len, const char *const *flags,
                       char *const *targs, size_t n_targs, int grid_mode, unsigned grid_arg,
                       char out[STORE_HASH_HEX])
{
    struct hk_buf b;
    hk_buf_init(&b, SOURCE_MAX + 65536);
    int rc = hk_buf_append(&b, text, len);
    for (size_t i = 0; !rc && flags && flags[i]; i++)
        rc = hk_buf_printf(&b, "%cflag:%s", 0, flags[i]);
    for (size_t i = 0; !rc && i < n_targs; i++)
        rc = hk_buf_printf(&b, "%ctarg:%s", 0, targs[i]);
    if (!rc)
        rc = hk_buf_printf(&b, "%cgrid:%d:%u", 0, grid_mode, grid_arg);
    if (!rc)
        store_content_hash(b.data, b.len, out);
    hk_buf_free(&b);
    return rc;
}

static int settle(ep_ctx *c, ep_rec *r, search *s, rec_queue *ready);

/* A new record for a proposal with its program written and its compile queued in pool.
 * *queued false: it was recorded as rejected at once (its program could not be written). */
static int queue_candidate(ep_ctx *c, runner_pool *pool, const search_candidate *k,
                           bool is_start, search *s, rec_queue *ready, bool *queued)
{
    *queued = false;
    int rc = HK_OK;
    ep_rec *r = hk_calloc(1, sizeof *r);
    if (!r)
        return HK_ENOMEM;
    r->median_ms = r->speedup = r->max_abs = r->max_rel = NAN;
    r->search_id = k->id;
    r->from_search = true;
    r->is_start = is_start;
    for (int d = 0; d < 3; d++)
        r->block[d] = k->block[d];
    /* only a block the candidate chose is passed (--block); the spec's own is evaluated by
     * the program at each size, as the baseline's is */
    r->block_set = k->block_own;
    r->text = hk_strndup(k->text, k->len);
    r->len = k->len;
    r->produced_by = is_start ? hk_strdup(EN(EPS_START_BEST))
                              : hk_asprintf("builtin: %s", k->description);
    r->launch = cand_launch_json(k);
    r->dir = hk_asprintf("%s/c%03u", c->work, k->id);
    r->skill = k->skill && !is_start ? hk_strdup(k->skill) : NULL;
    if (!r->text || !r->produced_by || !r->launch || !r->dir || (k->skill && !is_start && !r->skill)) {
        rec_free(r);
        return HK_ENOMEM;
    }
    if ((rc = rec_push(c, r))) {
        rec_free(r);
        return rc;
    }
    if (is_start) {
        c->start_rec = r;
        r->vid = c->start_vid;
        r->number = c->start_number;
    }
    c->n_proposed++;
    char *const *targs = k->n_template_args ? k->template_args : c->sp->template_args;
    size_t n_targs = k->n_template_args ? k->n_template_args : c->sp->n_template_args;
    /* the grid's own parameter: blocks per SM, or a divided grid's divisor and axis */
    unsigned grid_arg = k->grid_mode == SEARCH_GRID_DIVIDED      ? k->grid_divisor * 4 + k->grid_axis
                        : k->grid_mode == SEARCH_GRID_MULTIPLIED ? k->grid_multiplier * 4 + k->grid_axis
                                                                 : k->grid_per_sm;
    if ((rc = program_key(r->text, r->len, k->flags, targs, n_targs, (int)k->grid_mode,
                          grid_arg, r->build_key)))
        return rc;
    for (size_t i = 0; i + 1 < c->n_recs; i++) {
        ep_rec *owner = c->recs[i];
        if (owner->follows || !owner->build_key[0] || strcmp(owner->build_key, r->build_key))
            continue;
        /* the same program was built (or is building): share it */
        r->follows = owner;
        *queued = true;
        if (!owner->build_done)
            return HK_OK; /* settled when the owner's compile ends */
        r->build_done = true;
        r->build_ok = owner->build_ok;
        r->exe = owner->exe ? hk_strdup(owner->exe) : NULL;
        r->module = owner->module ? hk_strdup(owner->module) : NULL;
        r->ptxas = json_incref(owner->ptxas);
        if (owner->compile_details && !(r->compile_details = hk_strdup(owner->compile_details)))
            return HK_ENOMEM;
        if (r->ptxas)
            json_object_set(r->launch, "ptxas", r->ptxas);
        return settle(c, r, s, ready);
    }
    bool library_call = k->structural && !strncmp(k->structural, "blas_substitution", 17);
    if (!library_call && !r->is_start) {
        /* the engine's candidates are untrusted like any other: device code only */
        char *why = NULL;
        if ((rc = host_code_details(c->text, c->text_len, r->text, r->len, &why)))
            return rc;
        if (why) {
            rc = ep__add_version(c, r->text, c->start_vid ? c->start_vid : c->base_vid, r->launch,
                                 STORE_V_CANDIDATE, r->produced_by, &r->vid);
            if (rc == HK_OK) {
                r->number = version_number(c, r->vid);
                record_rejection(c, r, MEASURE_HOST_CODE, why, s);
            }
            hk_free(why);
            return rc;
        }
    }
    cand_spec cs;
    rc = cand_spec_make(c, k, &cs);
    if (rc == HK_OK) {
        measure_opts mo = c->mo;
        mo.spec = &cs.sp;
        /* the engine's own library call (host code it generated) is built as a program;
         * every other candidate is a device-only image */
        mo.library_call = library_call;
        rc = measure_build_prepare(&mo, r->dir, r->text, r->len, k->flags, &r->build);
        const char *slash = strrchr(c->file_abs, '/');
        if (rc == HK_OK && !(r->build.name = hk_strdup(slash ? slash + 1 : c->file_abs)))
            rc = HK_ENOMEM;
    }
    cand_spec_clear(&cs);
    if (rc == HK_ENOMEM)
        return rc;
    if (rc) {
        char why[256];
        snprintf(why, sizeof why, EN(EP_CANNOT_WRITE_BENCHMARK_PROGRAM), hk_strerror(rc));
        if (!r->is_start && (rc = ep__add_version(c, r->text, c->start_vid ? c->start_vid : c->base_vid,
                                                  r->launch, STORE_V_CANDIDATE, r->produced_by,
                                                  &r->vid)))
            return rc;
        r->number = r->number ? r->number : version_number(c, r->vid);
        record_rejection(c, r, MEASURE_HARNESS_ERROR, why, s);
        return HK_OK;
    }
    runner_spec rs;
    measure_build_runner_spec(&c->mo, &r->build, &rs);
    if ((rc = runner_pool_submit(pool, &rs, r)))
        return rc;
    *queued = true;
    return HK_OK;
}

static void record_rejection(ep_ctx *c, ep_rec *r, enum measure_reason reason,
                             const char *details, search *s)
{
    r->rejected = true;
    if (r->vid && store_version_set_status(c->db, r->vid, STORE_V_REJECTED,
                                           measure_reason_name(reason), details))
        ep__log_store(c);
    if (r->from_search && s && search_report(s, r->search_id, search_status_of(reason), 0) != HK_OK)
        HK_DEBUG("episode: search_report %u refused", r->search_id);
    version_event(c, r, "rejected", measure_reason_name(reason), details);
}

/* A record whose program is settled (built, shared or failed): record its version, then
 * reject it (compile error) or queue it for the GPU (without a GPU: built, never measured). */
static int settle(ep_ctx *c, ep_rec *r, search *s, rec_queue *ready)
{
    int rc = HK_OK;
    if (!r->is_start) {
        rc = ep__add_version(c, r->text, c->start_vid ? c->start_vid : c->base_vid, r->launch,
                             STORE_V_CANDIDATE, r->produced_by, &r->vid);
        if (rc)
            return rc;
        r->number = version_number(c, r->vid);
    }
    if (!r->build_ok) {
        record_rejection(c, r, MEASURE_COMPILE_ERROR, r->compile_details, s);
        return HK_OK;
    }
    /* one line per version: built, or sharing the device image of an earlier one (a
     * launch-only change), never both */
    if (r->follows && r->ptxas)
        ep__log(c, "info", hk_tr(HK_MSG_EP_V_DEVICE_CODE_V), r->number, r->follows->number,
                json_integer_value(json_object_get(r->ptxas, "registers")),
                json_integer_value(json_object_get(r->ptxas, "spill_stores")), r->produced_by);
    else if (r->follows)
        ep__log(c, "info", hk_tr(HK_MSG_EP_V_DEVICE_CODE_V_2), r->number,
                r->follows->number, r->produced_by);
    else if (r->ptxas)
        ep__log(c, "info", hk_tr(HK_MSG_EP_V_BUILT_REGISTERS_BYTES), r->number,
                json_integer_value(json_object_get(r->ptxas, "registers")),
                json_integer_value(json_object_get(r->ptxas, "spill_stores")), r->produced_by);
    else   /* never silent: its report lacks the ptxas evidence (compiled() logged why) */
        ep__log(c, "info", hk_tr(HK_MSG_EP_V_BUILT_RESOURCE_FIGURES), r->number, r->produced_by);
    if (c->has_gpu)
        return rq_push(ready, r);
    search_report(s, r->search_id, SEARCH_REJECTED, 0); /* not measured: no GPU */
    version_event(c, r, "candidate", EN(EPS_NOT_MEASURED_NO_GPU), NULL);
    return HK_OK;
}

/* A compile ended: the record and every record sharing its program are settled. */
static int compiled(ep_ctx *c, ep_rec *r, const runner_result *res, search *s,
                    rec_queue *ready)
{
    measure_compile mc;
    int rc = measure_build_finish(&c->mo, &r->build, res, &mc);
    if (rc)
        return rc;
    r->build_done = true;
    r->build_ok = mc.ok;
    r->ptxas = measure_resources_json(&mc, c->o->kernel);
    if (r->ptxas)
        json_object_set(r->launch, "ptxas", r->ptxas);
    else if (mc.ok) {   /* what the compiler said instead (the last of it) */
        const char *e = res && res->err ? res->err : "";
        size_t el = strlen(e);
        ep__log(c, "warn", hk_tr(HK_MSG_EP_BUILD_GAVE_PTXAS_RESOURCES),
                r->produced_by ? r->produced_by : "a candidate", c->o->kernel,
                el > 400 ? e + el - 400 : (el ? e : "(empty)"));
    }
    if (!mc.ok && !(r->compile_details = hk_strdup(mc.details ? mc.details : "compile failed")))
        rc = HK_ENOMEM;
    measure_compile_clear(&mc);
    hk_free(r->exe);
    hk_free(r->module);
    r->module = NULL;
    if (!rc && (!(r->exe = hk_strdup(r->build.exe)) ||
                (r->build.module && !(r->module = hk_strdup(r->build.module)))))
        rc = HK_ENOMEM;
    if (!rc)
        rc = settle(c, r, s, ready);
    for (size_t i = 0; !rc && i < c->n_recs; i++) {
        ep_rec *f = c->recs[i];
        if (f->follows != r || f->build_done)
            continue;
        f->build_done = true;
        f->build_ok = r->build_ok;
        f->exe = hk_strdup(r->exe);
        f->module = r->module ? hk_strdup(r->module) : NULL;
        f->ptxas = json_incref(r->ptxas);
        if (f->ptxas)
            json_object_set(f->launch, "ptxas", f->ptxas);
        if (!f->exe || (r->compile_details && !(f->compile_details = hk_strdup(r->compile_details))))
            rc = HK_ENOMEM;
        else
            rc = settle(c, f, s, ready);
    }
    return rc;
}

/* ---- engine v2: the skills that fit the kernel, and what they earned ---- */

/* Loads the skills and orders them by their record on this arch. Without skills the
 * search still runs its v1 axes; the log says why. The queries are compiled when the
 * plan needs them (sk_load_dir_lazy; plan_skills). */
static void load_skills(ep_ctx *c)
{
    char *dir = NULL, err[1024] = "";
    if (sk_default_dir(&dir) != HK_OK)
        return;
    int rc = sk_load_dir_lazy(dir, &c->skills, err, sizeof err);
    if (rc) {
        ep__log(c, "warn", hk_tr(HK_MSG_EP_SKILLS_NOT_LOADED_FROM), dir,
                hk_strerror(rc), err[0] ? ": " : "", err);
        hk_free(dir);
        return;
    }
    hk_free(dir);
    store_skill_stat *st = NULL;
    size_t n = 0;
    if (store_skill_stats(c->db, c->arch, &st, &n) == HK_OK) {
        if (sk_order_by_record(c->skills, st, n) != HK_OK)
            ep__log(c, "warn", "%s", hk_tr(HK_MSG_EP_SKILLS_KEPT_THEIR_LOAD));
    }
    store_skill_stats_free(st, n);
}

/* The device's resident warps per SM (max threads per SM over the warp size); 0 unknown. */
static int ep__warps_per_sm(const ep_ctx *c)
{
    if (!c->has_dev || c->dev.max_threads_per_sm <= 0)
        return 0;
    return c->dev.max_threads_per_sm / (c->dev.warp_size > 0 ? c->dev.warp_size : 32);
}

/* The baseline's roofline position: its class and the metrics skills test. */
static enum sk_class baseline_class(ep_ctx *c, sk_metrics *mt, double *pct_out)
{
    sk_metrics_init(mt);
    *pct_out = NAN;
    if (!c->have_base || c->o->gpu == EP_GPU_SIMULATED)
        return SK_CLASS_COUNT;
    double ms = c->base.times[c->base.primary_size].median_ms;
    double bps, fps, pct;
    measure_rates(&c->mo, c->base.primary_size, ms, &bps, &fps, &pct);
    evidence_roofline rl;
    if (!(isfinite(ms) && ms > 0) ||
        evidence_roofline_compute(bps * ms / 1e3, fps * ms / 1e3, ms, c->mo.peak_bytes_per_s,
                                  c->mo.peak_flops, &rl) != HK_OK)
        return SK_CLASS_COUNT;
    mt->v[SK_M_ROOFLINE_PCT] = rl.pct_of_bound;
    mt->v[SK_M_ARITHMETIC_INTENSITY] = rl.intensity;
    mt->v[SK_M_DRAM_PCT_OF_PEAK] = rl.pct_of_peak_bandwidth;
    mt->v[SK_M_SM_PCT_OF_PEAK] = rl.pct_of_peak_flops;
    /* the baseline's registers from its ptxas -v (session 52): occupancy_regs' skills ask
     * for more than their cap (a kernel under it would get the same code back) */
    json_t *regs = c->base_rec && c->base_rec->ptxas ? json_object_get(c->base_rec->ptxas, "registers") : NULL;
    if (json_is_integer(regs) && json_integer_value(regs) > 0)
        mt->v[SK_M_REGISTERS_PER_THREAD] = (double)json_integer_value(regs);
    *pct_out = rl.pct_of_bound;
    return skillplan_class(rl.compute_bound, rl.pct_of_bound);
}

/* Every skill that fit (plan->used), and whether its rewrite applies to kernel k of the
 * start text at the skill's first choice: the episode info's "skills_tried" ({skill,
 * rewrite, applied, construct, line, reason}) and one log line per refusal, so a report
 * says why a fitting skill was never proposed. HK_OK or HK_ENOMEM. */
static int note_skills_tried(ep_ctx *c, const an_model *m, size_t k, const skillplan *plan)
{
    json_t *tried = json_array();
    if (!tried)
        return HK_ENOMEM;
    rw_context ctx = {.text = c->start_text, .len = c->start_len, .m = m, .kernel = k,
                      .spec = c->sp, .hip = !strncmp(c->arch, "gfx", 3),
                      .sm_count = c->has_dev ? c->dev.sm_count : 0, .warps_per_sm = ep__warps_per_sm(c)};
    int rc = HK_OK;
    for (size_t i = 0; i < plan->n_used && rc == HK_OK; i++) {
        const sk_skill *sk = plan->used[i];
        /* applied: at one of the skill's choices (float4 may apply where float8 does not);
         * a refusal is the first choice's */
        rw_refusal why, first_why;
        bool any = false, seen = false;
        memset(&first_why, 0, sizeof first_why);
        for (size_t j = 0; j < plan->n && !any && rc == HK_OK; j++) {
            if (!plan->v[j].skill || strcmp(plan->v[j].skill, sk->id))
                continue;
            rc = rw_applies(sk->rewrite, &ctx, plan->v[j].params, &why);
            if (rc == HK_EINVAL) {   /* the skill's parameters are not the rewrite's */
                rc = HK_OK;
                if (!why.reason[0])
                    snprintf(why.reason, sizeof why.reason, "%s", hk_tr_in(HK_LANG_EN, HK_MSG_RW_PARAMS_REFUSED));
                snprintf(why.construct, sizeof why.construct, "%s", hk_tr_in(HK_LANG_EN, HK_MSG_RW_C_PARAMETERS));
            }
            any = rc == HK_OK && !why.reason[0];
            if (!seen)
                first_why = why;
            seen = true;
        }
        why = any ? (rw_refusal){.line = 0} : first_why;
        if (!seen && rc == HK_OK)
            snprintf(why.reason, sizeof why.reason, "%s",
                     hk_tr_in(HK_LANG_EN, HK_MSG_RW_NO_CHOICE_PLANNED));
        if (rc)
            break;
        bool applied = why.reason[0] == '\0';
        json_t *e = json_pack("{s:s, s:s, s:b}", "skill", sk->id, "rewrite", sk->rewrite->name,
                              "applied", applied);
        if (e && !applied) {
            json_object_set_new(e, "construct", json_string(why.construct));
            json_object_set_new(e, "line", json_integer(why.line));
            json_object_set_new(e, "reason", ep__text(why.reason));
            ep__log(c, "info", hk_tr(HK_MSG_EP_SKILL_FITS_BUT_REWRITE), sk->id,
                    sk->rewrite->name, why.reason);
        }
        if (!e || json_array_append_new(tried, e))
            rc = HK_ENOMEM;
    }
    if (rc) {
        json_decref(tried);
        return rc;
    }
    json_object_set_new(c->info, "skills_tried", tried);
    return HK_OK;
}

/* The structural rewrites to try on kernel k of the start text (model m): the plan from
 * the skills, logged and kept in the episode info with whether each fitting skill's
 * rewrite applies. */
static int plan_skills(ep_ctx *c, const an_model *m, size_t k, skillplan *plan)
{
    memset(plan, 0, sizeof *plan);
    load_skills(c);
    if (!c->skills)
        return HK_OK;
    const an_span *sp = &m->funcs[k].span;
    char err[1024] = "";
    int prc = skillplan_prepare(c->skills, c->arch, c->start_text + sp->start_byte,
                                sp->end_byte - sp->start_byte, err, sizeof err);
    if (prc == HK_EINVAL) {
        /* a query this plan needs does not compile: the eager load's report (every bad
         * query of the set), as when the skills were compiled at load */
        char *dir = NULL, all_err[1024] = "";
        if (sk_default_dir(&dir) == HK_OK) {
            sk_set *all = NULL;
            int lrc = sk_load_dir(dir, &all, all_err, sizeof all_err);
            const char *why = lrc ? all_err : err;
            ep__log(c, "warn", hk_tr(HK_MSG_EP_SKILLS_NOT_LOADED_FROM), dir,
                    hk_strerror(lrc ? lrc : prc), why[0] ? ": " : "", why);
            sk_set_free(all);
        }
        hk_free(dir);
        sk_set_free(c->skills);
        c->skills = NULL;
        return HK_OK;
    }
    if (prc)
        return prc;
    sk_metrics mt;
    double pct;
    enum sk_class cls = baseline_class(c, &mt, &pct);
    rw_context ctx = {.text = c->start_text, .len = c->start_len, .m = m, .kernel = k,
                      .spec = c->sp, .hip = !strncmp(c->arch, "gfx", 3),
                      .sm_count = c->has_dev ? c->dev.sm_count : 0, .warps_per_sm = ep__warps_per_sm(c)};
    int rc = skillplan_build_for(c->skills, c->arch, cls, &mt, c->start_text + sp->start_byte,
                                 sp->end_byte - sp->start_byte, &ctx, plan);
    if (rc)
        return rc;
    struct hk_buf b;
    hk_buf_init(&b, 4096);
    json_t *names = json_array();
    for (size_t i = 0; i < plan->n_used && !rc; i++) {
        rc = hk_buf_printf(&b, "%s%s", i ? ", " : "", plan->used[i]->id);
        json_array_append_new(names, json_string(plan->used[i]->id));
    }
    /* Nothing measured (no GPU; a simulated GPU's times are not physical): the spec's
     * bytes and FLOP say as much as a static estimate can, and the name says it is one. */
    char cname_buf[96];
    const char *cname = cls == SK_CLASS_COUNT ? EN(EPS_UNKNOWN_CLASS) : sk_class_name(cls);
    if (cls == SK_CLASS_COUNT) {
        double bps, fps, pct_static;
        measure_rates(&c->mo, c->base.primary_size, 1.0, &bps, &fps, &pct_static);
        double intensity = isfinite(bps) && bps > 0 && isfinite(fps) ? fps / bps : NAN;
        enum sk_class st = skillplan_static_class(intensity);
        if (st != SK_CLASS_COUNT)
            snprintf(cname_buf, sizeof cname_buf, EN(EPS_CLASS_STATIC),
                     sk_class_name(st), intensity);
        else if (isfinite(intensity))
            snprintf(cname_buf, sizeof cname_buf, EN(EPS_NOT_MEASURED_SPEC),
                     intensity);
        else
            snprintf(cname_buf, sizeof cname_buf, "%s", EN(EPS_NOT_MEASURED_NO_BYTES));
        cname = cname_buf;
    }
    if (isfinite(pct))
        ep__log(c, "info", hk_tr(HK_MSG_EP_BASELINE_F_ROOFLINE_BOUND),
                cname, pct, b.len ? b.data : "none");
    else
        ep__log(c, "info", hk_tr(HK_MSG_EP_BASELINE_SKILLS_THAT_FIT), cname, b.len ? b.data : "none");
    json_object_set_new(c->info, "bottleneck", json_string(cname));
    json_object_set_new(c->info, "skills", names ? names : json_null());
    hk_buf_free(&b);
    return note_skills_tried(c, m, k, plan);
}

/* A search measurement is one timed run against the baseline's: gains below this are
 * within its noise (the H200 showed read-only loads at 1.00-1.02x on kernels they did not
 * change), and counting them as help ranked such skills above untried ones. */
#define SKILL_HELPED_MIN 1.03

/* Each skill tried gets its record: helped when one of its candidates was verified
 * faster than the baseline by at least SKILL_HELPED_MIN (by its best speedup). The episode's winner is credited to
 * its skill in the report only when the skill's evidence shows (skill_credit). */
static void learn_skills(ep_ctx *c)
{
    if (!c->skills || !c->have_base)
        return;
    for (size_t i = 0; i < c->n_recs; i++) {
        const ep_rec *r = c->recs[i];
        if (!r->skill || !r->evaluated)
            continue;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(c->recs[j]->skill && c->recs[j]->evaluated &&
                      !strcmp(c->recs[j]->skill, r->skill));
        if (!first)
            continue;
        double best = 0;
        for (size_t j = i; j < c->n_recs; j++) {
            const ep_rec *q = c->recs[j];
            if (q->skill && q->evaluated && q->accepted && !strcmp(q->skill, r->skill) &&
                q->speedup > best)
                best = q->speedup;
        }
        if (store_skill_record(c->db, r->skill, c->o->kernel, c->kernel_hash, c->arch,
                               best >= SKILL_HELPED_MIN, best) != HK_OK)
            ep__log(c, "warn", hk_tr(HK_MSG_EP_STORE_SKILL_RECORD), store_errmsg(c->db));
    }
}

/* Correctness, timing and sanity for one built candidate (blocking, on the GPU). */
/* A correct, timed candidate that stays a candidate (not credited, or behind the leader):
 * its accuracy and measurement stored, its time reported to the search, its version event
 * with reason and e's credit note. Clears e. */
static void keep_candidate(ep_ctx *c, ep_rec *r, search *s, measure_eval *e, const char *reason)
{
    if (store_version_set_accuracy(c->db, r->vid, r->max_abs, r->max_rel))
        ep__log_store(c);
    ep__add_measurement(c, r->vid, STORE_M_CANDIDATE, e->timing.size, e->timing.median_ms,
                        e->timing.p10_ms, e->timing.p90_ms, e->timing.reps, measure_eval_json(e));
    if (r->from_search && s && search_report(s, r->search_id, SEARCH_OK, r->median_ms) != HK_OK)
        HK_DEBUG("episode: search_report %u refused", r->search_id);
    version_event(c, r, "candidate", reason, e->credit_note);
    measure_eval_clear(e);
}

/* The time a candidate must come near to be worth every check: the fastest credited
 * version so far, else the baseline's at the primary size (NAN: none, check in full). */
static double lead_ms(const ep_ctx *c)
{
    double lead = c->have_base ? c->base.times[c->base.primary_size].median_ms : NAN;
    for (size_t i = 0; i < c->n_recs; i++) {
        const ep_rec *x = c->recs[i];
        if (x->accepted && isfinite(x->median_ms) && x->median_ms > 0 &&
            !(x->median_ms >= lead))
            lead = x->median_ms;
    }
    return lead;
}

/* lead: the time a candidate must come near (lead_ms) in the search; NAN: judged in full
 * (the accuracy stage's recheck_behind, s NULL). */
static int evaluate(ep_ctx *c, ep_rec *r, search *s, double lead)
{
    measure_eval e;
    measure_prog bp = rec_prog(c->base_rec), p = rec_prog(r);
    char *dir = rec_out_dir(c, r, "out");
    if (!dir)
        return HK_ENOMEM;
    /* the search keeps the fastest: one that cannot lead is timed and ranked, not judged in
     * full (its GPU minutes go to the next candidate) */
    int rc = measure_evaluate_ranked(&c->mo, &c->base, &bp, &p, dir, lead, &e);
    (void)measure_rmtree(dir); /* accepted or rejected, its outputs are done with */
    hk_free(dir);
    if (rc) {
        measure_eval_clear(&e);
        return rc;
    }
    if (!r->evaluated) /* a recheck is not another candidate of the budget */
        c->n_evaluated++;
    r->evaluated = true;
    r->max_abs = e.verdict.max_abs_err;
    r->max_rel = e.verdict.max_rel_err;
    r->flagged = e.flagged;
    if (e.verdict.reason != MEASURE_OK) {
        if ((!isnan(r->max_abs) || !isnan(r->max_rel)) &&
            store_version_set_accuracy(c->db, r->vid, r->max_abs, r->max_rel))
            ep__log_store(c);
        record_rejection(c, r, e.verdict.reason, e.verdict.details, s);
        measure_eval_clear(&e);
        return HK_OK;
    }
    if (e.behind) {
        /* timed behind the leader: the search learns its time; never a start, a best or
         * an edit (no full check ran) */
        r->median_ms = e.timing.median_ms;
        r->speedup = e.speedup;
        r->behind = true;
        keep_candidate(c, r, s, &e, "behind");
        return HK_OK;
    }
    if (sanitize_wanted(false, false, e.speedup, r->sanitize_note != NULL)) {
        /* a claim over 2x is checked now: a race or an over-read must not steer the search */
        measure_verdict sv;
        measure_verdict_init(&sv);
        if ((rc = sanitize_rec(c, r, false, e.speedup, &sv)) == HK_OK && sv.reason != MEASURE_OK)
            record_rejection(c, r, sv.reason, sv.details, s);
        bool unsafe = sv.reason != MEASURE_OK;
        measure_verdict_clear(&sv);
        /* a claim the tools could not check is measured, not credited (sanitize.h) */
        if (!rc && !unsafe && r->credit_why)
            rc = measure_eval_uncredit(&e, "memory_safety", r->credit_why);
        if (rc || unsafe) {
            measure_eval_clear(&e);
            return rc;
        }
    }
    if (e.speedup > SANITIZE_CLAIM_SPEEDUP) {
        /* a claim over 2x follows a change of its inputs, or does not steer the search */
        measure_verdict sv;
        measure_verdict_init(&sv);
        if ((rc = sens_rec(c, r, &sv)) == HK_OK && sv.reason != MEASURE_OK)
            record_rejection(c, r, sv.reason, sv.details, s);
        bool insensitive = sv.reason != MEASURE_OK;
        measure_verdict_clear(&sv);
        if (rc || insensitive) {
            measure_eval_clear(&e);
            return rc;
        }
    }
    r->median_ms = e.timing.median_ms;
    r->speedup = e.speedup;
    if (!e.credited) {
        /* Correct and timed, but nothing bounded the time from below: the version stays a
         * candidate (never applied, never a start or a best), its time is recorded and the
         * search still learns from it. */
        r->uncredited = true;
        keep_candidate(c, r, s, &e, "not_credited");
        return HK_OK;
    }
    r->accepted = true;
    if (store_version_set_status(c->db, r->vid, STORE_V_VERIFIED, NULL, NULL) ||
        store_version_set_accuracy(c->db, r->vid, r->max_abs, r->max_rel))
        ep__log_store(c);
    ep__add_measurement(c, r->vid, STORE_M_CANDIDATE, e.timing.size, e.timing.median_ms,
                        e.timing.p10_ms, e.timing.p90_ms, e.timing.reps, measure_eval_json(&e));
    if (e.flagged)
        record_evidence(c, r->vid, "flag",
                        json_pack("{s:s, s:f}", "note", e.flag_note ? e.flag_note : "",
                                  "speedup", e.speedup));
    if (r->from_search && s && search_report(s, r->search_id, SEARCH_OK, r->median_ms) != HK_OK)
        HK_DEBUG("episode: search_report %u refused", r->search_id);
    version_event(c, r, "verified", NULL, e.flag_note);
    measure_eval_clear(&e);
    double bps, fps, pct;
    measure_rates(&c->mo, c->base.primary_size, r->median_ms, &bps, &fps, &pct);
    if (s && !c->at_roof && isfinite(pct) && pct >= EP_ROOF_PCT && c->o->gpu != EP_GPU_SIMULATED) {
        c->at_roof = true;
        ep__log(c, "info", hk_tr(HK_MSG_EP_V_RUNS_AT_F),
                r->number, pct);
        json_object_set_new(c->info, "stopped_at_roof",
                            json_pack("{s:i, s:f}", "version", r->number, "roofline_pct", pct));
    }
    return HK_OK;
}

/* Whether a version's launch JSON text (may be NULL) names a divided or multiplied grid:
 * "divided", "multiplied" or NULL. */
static const char *launch_is_divided(const char *launch_json)
{
    json_t *lj = launch_json ? json_loads(launch_json, 0, NULL) : NULL;
    const char *mode = json_string_value(json_object_get(lj, "grid_mode"));
    const char *r = !mode ? NULL : !strcmp(mode, "divided") ? "divided" : !strcmp(mode, "multiplied") ? "multiplied" : NULL;
    json_decref(lj);
    return r;
}

/* The text the search starts from: the best verified version of earlier episodes (for this
 * arch) unless told to start from the original, or when that version needs a divided grid. */
static int choose_start(ep_ctx *c)
{
    store_version v;
    memset(&v, 0, sizeof v);
    if (!c->o->from_original &&
        store_kernel_best_verified(c->db, c->kernel_id, c->arch, &v) == HK_OK &&
        v.id != c->base_vid && v.source) {
        an_model *m = NULL;
        bool has_kernel = an_analyze(v.source, strlen(v.source), &m) == HK_OK &&
                          an_model_find_kernel(m, c->o->kernel) >= 0;
        an_model_free(m);
        if (has_kernel && c->is_cmd) {
            /* a version an earlier engine accepted with a line changed outside the kernel is
             * no start for the command form, where only the kernel may change */
            unsigned line = 0;
            char *why = NULL;
            int rc = cmdform_check_outside_kernel(c->text, c->text_len, v.source,
                                                  strlen(v.source), c->o->kernel, &line, &why);
            if (rc == HK_ENOMEM) {
                store_version_clear(&v);
                return rc;
            }
            if (rc || line) {
                ep__log(c, "warn", hk_tr(HK_MSG_EP_BEST_EARLIER_VERSION_V), v.number,
                        why ? why : hk_strerror(rc));
                hk_free(why);
                store_version_clear(&v);
                goto original;
            }
        }
        const char *how = has_kernel ? launch_is_divided(v.launch_json) : NULL;
        if (how) {
            /* its text gains only under its divided (multiplied) grid, and the search starts
             * from the spec's: every candidate from it would be timed under the wrong grid */
            ep__log(c, "info", hk_tr(HK_MSG_EP_BEST_EARLIER_VERSION_V_2), v.number, how);
            store_version_clear(&v);
            goto original;
        }
        if (has_kernel) {
            c->start_len = strlen(v.source);
            c->start_text = v.source;
            v.source = NULL;
            c->start_vid = v.id;
            c->start_number = v.number;
            ep__log(c, "info",
                    hk_tr(HK_MSG_EP_STARTING_FROM_V_BEST),
                    v.number);
            json_object_set_new(c->info, "started_from",
                                json_pack("{s:I, s:i}", "version_id", (json_int_t)v.id, "number",
                                          v.number));
            store_version_clear(&v);
            return HK_OK;
        }
        ep__log(c, "warn", hk_tr(HK_MSG_EP_BEST_EARLIER_VERSION_V_3), v.number, c->o->kernel);
    }
    store_version_clear(&v);
original:
    json_object_set_new(c->info, "started_from", json_string("original"));
    c->start_text = hk_strndup(c->text, c->text_len);
    c->start_len = c->text_len;
    return c->start_text ? HK_OK : HK_ENOMEM;
}

/* Logs each line of why[n] and keeps them as the episode info's array key (for the report). */
static void note_lines(ep_ctx *c, const char *key, const char *const *why, size_t n)
{
    if (!n)
        return;
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        ep__log(c, "info", "%s", why[i]);
        if (a)
            json_array_append_new(a, ep__text(why[i]));
    }
    if (a)
        json_object_set_new(c->info, key, a);
    ep__save_info(c);
}

/* Says which tunables the search left out and why (the log, and the episode info's
 * "tunables_not_searched" for the report): a constant that decides what the kernel
 * computes is refused, and the user should see that it was not forgotten. */
static void note_refused_tunables(ep_ctx *c, const search *s)
{
    size_t n = 0;
    const char *const *why = search_refused_tunables(s, &n);
    note_lines(c, "tunables_not_searched", why, n);
}

/* Says which second rewrites (registry.h RW_STACKS) the search could not stack on a leading
 * candidate and why (the log, and the episode info's "stacks_not_applied" for the report):
 * "why was the jam never tried on the tiles?" has its construct and line. */
static void note_stack_refusals(ep_ctx *c, const search *s)
{
    size_t n = 0;
    const char *const *why = search_stack_refusals(s, &n);
    note_lines(c, "stacks_not_applied", why, n);
}

/* Proposals -> parallel compiles (all cores, ahead of the GPU) -> one GPU evaluation at a
 * time -> reports back to the search, until the candidate or time budget is spent, the
 * space is exhausted, or a stop. Without a GPU the compiles still run and are recorded. */
static int ep__stage_optimize(ep_ctx *c)
{
    int rc = HK_OK;
    search *s = NULL;
    runner_pool *pool = NULL;
    an_model *m = NULL;
    rec_queue ready = {0};
    skillplan plan = {0};
    char err[256] = "";
    stage_begin(c, "optimize", 15, hk_tr(HK_MSG_EPW_SEARCH),
                c->budget, c->minutes);
    c->t_opt = hk_now_s();
    TRY(choose_start(c));
    ep__save_info(c);
    TRY(an_analyze(c->start_text, c->start_len, &m));
    long k = an_model_find_kernel(m, c->o->kernel);
    if (k < 0) {
        rc = ep__fail(c, false, hk_tr(HK_MSG_EP_KERNEL_NOT_FOUND_START), c->o->kernel);
        goto out;
    }
    search_launch sl;
    if (search_launch_from_spec(c->sp, c->has_dev ? c->dev.sm_count : 0, &sl, err,
                                sizeof err) != HK_OK) {
        rc = ep__fail(c, false, hk_tr(HK_MSG_EP_SPEC_LAUNCH_CANNOT_BE), err);
        goto out;
    }
    /* the budget counts candidates besides the baseline the search proposes first */
    search_budget sb = {.max_candidates = (unsigned)c->budget + 1,
                        .max_seconds = c->minutes * 60.0};
    TRY(plan_skills(c, m, (size_t)k, &plan));
    sl.structs = plan.v;
    sl.n_structs = plan.n;
    sl.hip_target = !strncmp(c->arch, "gfx", 3);
    sl.warps_per_sm = ep__warps_per_sm(c);
    TRY(search_new(c->start_text, c->start_len, m, (size_t)k, &sl, c->o->seed, &sb, &s));
    char *axes = search_describe_axes(s);
    if (axes) {
        ep__log(c, "info", hk_tr(HK_MSG_EP_SEARCH_AXES), axes);
        json_object_set_new(c->info, "search_axes", ep__text(axes));
        ep__save_info(c);
    }
    hk_free(axes);
    note_refused_tunables(c, s);
    unsigned jobs = c->o->jobs;
    if (!jobs) {
        /* leave two cores to the benchmark process: its host side (launches, event
         * records) must not queue behind compilers while it is timed */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 3 && c->has_gpu ? (unsigned)(n - 2) : n > 0 ? (unsigned)n : 1;
    }
    TRY(runner_pool_new(jobs, &pool));
    double deadline = c->t_opt + c->minutes * 60.0, waited = c->lock_wait_s;
    bool exhausted = false, blocked = false;
    for (;;) {
        if (stopped(c)) {
            rc = HK_ECANCELED;
            break;
        }
        budget_skip_lock_wait(c, s, &deadline, &waited);
        bool out_of_time = hk_now_s() >= deadline;
        if (c->at_roof)
            exhausted = true;   /* at the roof: what is built is measured, nothing more */
        /* keep every core compiling, a little ahead of the GPU */
        while (!exhausted && !blocked && !out_of_time &&
               runner_pool_pending(pool) + ready.n < (size_t)jobs + 1) {
            const search_candidate *cand = NULL;
            int sr = search_next(s, &cand);
            if (sr == HK_ESTATE) {
                blocked = true;
                break;
            }
            if (sr == HK_ENOENT || sr == HK_ETIMEDOUT) {
                exhausted = true;
                break;
            }
            if (sr) {
                rc = sr;
                goto out;
            }
            if (cand->phase == 0 && !c->start_vid) {
                /* the unchanged original: it is the baseline, measured already */
                if (c->have_base)
                    search_report(s, cand->id, SEARCH_OK,
                                  c->base.times[c->base.primary_size].median_ms);
                else
                    search_report(s, cand->id, SEARCH_REJECTED, 0); /* not measured: no GPU */
                continue;
            }
            bool queued = false;
            TRY(queue_candidate(c, pool, cand, cand->phase == 0, s, &ready, &queued));
        }
        /* collect the compiles that ended, without waiting; any report to the search may
         * unblock it, so it is asked again on the next turn */
        for (;;) {
            void *tag = NULL;
            runner_result res;
            int wr = runner_pool_wait(pool, 0, &tag, &res);
            if (wr == HK_OK)
                rc = compiled(c, (ep_rec *)tag, &res, s, &ready);
            runner_result_free(&res);
            if (wr == HK_ETIMEDOUT || wr == HK_ENOENT)
                break;
            if (wr || rc) {
                rc = wr ? wr : rc;
                goto out;
            }
            blocked = false;
        }
        ep_rec *next = ready.n && !out_of_time
                           ? rq_take(c, &ready, runner_pool_pending(pool) > 0)
                           : NULL;
        if (next) {
            rc = evaluate(c, next, s, lead_ms(c));
            if (rc)
                goto out;
            blocked = false;
            optimize_progress(c);
            continue;
        }
        if (runner_pool_pending(pool) && !(out_of_time && c->has_gpu)) {
            void *tag = NULL;
            runner_result res;
            int wr = runner_pool_wait(pool, 100, &tag, &res);
            if (wr == HK_OK)
                rc = compiled(c, (ep_rec *)tag, &res, s, &ready);
            runner_result_free(&res);
            if ((wr && wr != HK_ETIMEDOUT) || rc) {
                rc = wr && wr != HK_ETIMEDOUT ? wr : rc;
                goto out;
            }
            if (wr == HK_OK)
                blocked = false;
            continue;
        }
        if (!blocked && !exhausted && !out_of_time)
            continue; /* settled records may have been reported: ask the search again */
        if (out_of_time) {
            ep__log(c, "info", hk_tr(HK_MSG_EP_TIME_BUDGET_MIN_SPENT), c->minutes);
            break;
        }
        if (exhausted || blocked)
            break; /* nothing in flight: the search has nothing more to propose */
    }
    if (rc == HK_OK && (ready.n || runner_pool_pending(pool)))
        ep__log(c, "info", hk_tr(HK_MSG_EP_BUILT_CANDIDATES_WERE_NOT),
                ready.n + runner_pool_pending(pool));
    if (rc == HK_OK)
        ep__log(c, "info", hk_tr(HK_MSG_EP_CANDIDATES_PROPOSED_MEASURED), c->n_proposed,
                c->n_evaluated);
    if (rc == HK_OK)
        note_lock_wait(c);
    if (rc == HK_OK)
        note_stack_refusals(c, s);
    if (rc == HK_OK)
        learn_skills(c);
out:
    runner_pool_free(pool); /* kills compiles still running (whole process groups) */
    hk_free(ready.v);
    search_free(s);
    skillplan_free(&plan);
    an_model_free(m);
    return rc;
}

/* ---- command-form specs: the user's own build and run commands (cmdform.h) ---- */

/* The candidate text handed to cmdform: the whole file when FILE is the spec's source
 * (tunables outside the kernel come along), else its kernel definition is swapped in. */
static void cmd_options_for(const ep_ctx *c, cmdform_options *co)
{
    *co = c->co;
    char *src = c->sp->source_path ? realpath(c->sp->source_path, NULL) : NULL;
    co->candidate_is_file = src && !strcmp(src, c->file_abs);
    free(src);
}

/* The baseline time of a command-form episode lives in c->base like the harness's, as one
 * "size" (the program decides its own sizes). */
static int cmd_set_base_time(ep_ctx *c, const measure_timing *t)
{
    measure_baseline_clear(&c->base);
    if (!(c->base.times = hk_calloc(1, sizeof *c->base.times)))
        return HK_ENOMEM;
    c->base.n_times = 1;
    c->base.primary_size = 0;
    c->base.times[0] = *t;
    c->base.times[0].raw = t->raw ? hk_strdup(t->raw) : NULL;
    return HK_OK;
}

static int cmd_stage_baseline(ep_ctx *c)
{
    int rc = HK_OK;
    cmdform_result res;
    memset(&res, 0, sizeof res);
    stage_begin(c, "baseline", 5, "%s",
                hk_tr(c->has_gpu ? HK_MSG_EPW_CMD_BASELINE_GPU : HK_MSG_EPW_CMD_BASELINE_NO_GPU));
    if ((rc = baseline_version(c, "command")))
        return rc;
    ep_rec *b = c->base_rec;
    cmdform_options co;
    cmd_options_for(c, &co);
    if (!c->has_gpu) { /* what needs no GPU: the copy, the swap and the build */
        cmdform_ws *ws = NULL;
        rc = cmdform_prepare(c->sp, NULL, 0, &co, &ws, &res);
        cmdform_ws_free(ws);
        if (rc == HK_OK && res.status != CMDFORM_OK)
            rc = ep__fail(c, false, hk_tr(HK_MSG_EP_ORIGINAL_PROGRAM_DOES_NOT),
                          cmdform_status_name(res.status), res.details ? res.details : "");
        else if (rc == HK_OK)
            ep__log(c, "info", hk_tr(HK_MSG_EP_BUILD_COMMAND_WORKS_MS),
                    res.build_ms);
        goto out;
    }
    progress(c, 8, NULL, hk_tr(HK_MSG_EPW_CMD_RUNNING),
             co.runs ? co.runs : CMDFORM_DEFAULT_RUNS);
    TRY(cmdform_measure(c->sp, NULL, 0, &co, &res));
    json_object_set_new(c->info, "isolation", ep__text(res.isolation_words));
    if (res.status != CMDFORM_OK) {
        enum measure_reason why = cmdform_status_reason(res.status);
        rc = ep__fail(c, why == MEASURE_NO_GPU, hk_tr(HK_MSG_EP_ORIGINAL_PROGRAM_FAILED),
                      cmdform_status_name(res.status), res.details ? res.details : "");
        goto out;
    }
    TRY(cmd_set_base_time(c, &res.timing));
    baseline_measured(c);
    const measure_timing *t = &c->base.times[0];
    progress(c, 12, NULL, hk_tr(HK_MSG_EPW_CMD_BASELINE), t->median_ms, c->sp->kernel, t->p10_ms, t->p90_ms,
             t->reps, res.build_ms);
    ep__add_measurement(c, c->base_vid, STORE_M_BASELINE, 0, t->median_ms, t->p10_ms, t->p90_ms,
                        t->reps, cmdform_result_json(&res));
    b->median_ms = t->median_ms;
    b->speedup = 1.0;
    b->accepted = b->evaluated = true;
out:
    cmdform_result_clear(&res);
    return rc;
}

/* A candidate only the kernel text tells apart: the launch configuration and the compiler
 * flags are the user's build and run commands' business in the command form. */
static bool cmd_applies(const ep_ctx *c, const search_candidate *k)
{
    (void)c;
    return k->grid_mode == SEARCH_GRID_SPEC && !k->fast_math && !k->flags[0] &&
           !k->launch_bounds && !k->grid_stride && !k->n_template_args;
}

/* Measures one candidate text through the user's commands. A rejection is res->status, or
 * *unstable (new string: the >10x second look did not reproduce the speedup). */
static int cmd_judge(ep_ctx *c, ep_rec *r, cmdform_result *res, char **unstable)
{
    *unstable = NULL;
    cmdform_options co;
    cmd_options_for(c, &co);
    int rc = cmdform_measure(c->sp, r->text, r->len, &co, res);
    if (rc || res->status != CMDFORM_OK)
        return rc;
    r->median_ms = res->timing.median_ms;
    r->speedup = c->base.times[0].median_ms / r->median_ms;
    double limit = c->mo.suspicious_speedup > 0 ? c->mo.suspicious_speedup
                                                : MEASURE_SUSPICIOUS_SPEEDUP;
    if (!(r->speedup > limit))
        return HK_OK;
    /* a second look: both again, in fresh copies */
    cmdform_result again, base;
    double first = r->speedup;
    rc = cmdform_measure(c->sp, NULL, 0, &co, &base);
    if (rc == HK_OK && base.status == CMDFORM_OK)
        rc = cmdform_measure(c->sp, r->text, r->len, &co, &again);
    else
        memset(&again, 0, sizeof again);
    if (rc == HK_OK && base.status == CMDFORM_OK && again.status == CMDFORM_OK) {
        r->flagged = true;
        r->median_ms = again.timing.median_ms;
        r->speedup = base.timing.median_ms / again.timing.median_ms;
        ep__log(c, "warn", hk_tr(HK_MSG_EP_V_X_OVER_LIMIT),
                r->number, first, limit, r->speedup);
        /* The user's program chooses its inputs, so fresh seeds cannot be had here; the
         * speedup must at least come back in fresh copies. */
        double tol = c->mo.reproduce_tolerance > 0 ? c->mo.reproduce_tolerance
                                                   : MEASURE_REPRODUCE_TOLERANCE;
        if (!(r->speedup <= first * (1 + tol) && r->speedup >= first / (1 + tol)) &&
            !(*unstable = hk_asprintf(EN(EPS_NOT_REPRODUCED),
                                      first, limit, r->speedup, base.timing.median_ms,
                                      again.timing.median_ms, 100 * tol)))
            rc = HK_ENOMEM;
    } else if (rc == HK_OK) { /* the second look failed: that is the verdict */
        cmdform_result *bad = base.status != CMDFORM_OK ? &base : &again;
        cmdform_result_clear(res);
        *res = *bad;
        memset(bad, 0, sizeof *bad);
    }
    cmdform_result_clear(&again);
    cmdform_result_clear(&base);
    return rc;
}

static int cmd_stage_optimize(ep_ctx *c)
{
    int rc = HK_OK;
    search *s = NULL;
    an_model *m = NULL;
    stage_begin(c, "optimize", 15, hk_tr(HK_MSG_EPW_CMD_SEARCH), c->budget, c->minutes);
    c->t_opt = hk_now_s();
    TRY(choose_start(c));
    ep__save_info(c);
    if (!c->has_gpu) {
        ep__log(c, "info", "%s", hk_tr(HK_MSG_EP_COMMAND_FORM_CANDIDATES_ARE));
        goto out;
    }
    TRY(an_analyze(c->start_text, c->start_len, &m));
    long k = an_model_find_kernel(m, c->o->kernel);
    if (k < 0) {
        rc = ep__fail(c, false, hk_tr(HK_MSG_EP_KERNEL_NOT_FOUND_START), c->o->kernel);
        goto out;
    }
    /* No launch to vary: block 1 and no SM count leave only the text rewrites; fast-math
     * is off (the user's build decides the flags). */
    search_launch sl = {.block = {1, 1, 1}, .block_free = false, .exact_tolerance = true,
                        .kernel_only = true};
    /* the candidate budget is counted here: skipped proposals must not spend it */
    search_budget sb = {.max_candidates = 0, .max_seconds = c->minutes * 60.0};
    TRY(search_new(c->start_text, c->start_len, m, (size_t)k, &sl, c->o->seed, &sb, &s));
    char *axes = search_describe_axes(s);
    if (axes) {
        ep__log(c, "info", hk_tr(HK_MSG_EP_SEARCH_AXES_COMMAND_FORM), axes);
        json_object_set_new(c->info, "search_axes", ep__text(axes));
        ep__save_info(c);
    }
    hk_free(axes);
    note_refused_tunables(c, s);
    double deadline = c->t_opt + c->minutes * 60.0, waited = c->lock_wait_s;
    for (;;) {
        if (stopped(c)) {
            rc = HK_ECANCELED;
            break;
        }
        budget_skip_lock_wait(c, s, &deadline, &waited);
        if (hk_now_s() >= deadline) {
            ep__log(c, "info", hk_tr(HK_MSG_EP_TIME_BUDGET_MIN_SPENT), c->minutes);
            break;
        }
        if ((long)c->n_evaluated >= c->budget)
            break;
        const search_candidate *cand = NULL;
        int sr = search_next(s, &cand);
        if (sr == HK_ENOENT || sr == HK_ETIMEDOUT || sr == HK_ESTATE)
            break; /* one at a time: nothing is pending, so ESTATE means nothing to try */
        if (sr) {
            rc = sr;
            goto out;
        }
        if (cand->phase == 0 && !c->start_vid) {
            search_report(s, cand->id, SEARCH_OK, c->base.times[0].median_ms);
            continue;
        }
        if (!cmd_applies(c, cand)) {
            ep__log(c, "info", hk_tr(HK_MSG_EP_SKIPPED_LAUNCH_CONFIGURATION_COMPILER), cand->description);
            search_report(s, cand->id, SEARCH_REJECTED, 0);
            continue;
        }
        ep_rec *r = hk_calloc(1, sizeof *r);
        if (!r) {
            rc = HK_ENOMEM;
            goto out;
        }
        r->median_ms = r->speedup = r->max_abs = r->max_rel = NAN;
        r->search_id = cand->id;
        r->from_search = true;
        r->is_start = cand->phase == 0;
        r->text = hk_strndup(cand->text, cand->len);
        r->len = cand->len;
        r->produced_by = r->is_start ? hk_strdup(EN(EPS_START_BEST))
                                     : hk_asprintf("builtin: %s", cand->description);
        r->launch = cand_launch_json(cand);
        if (!r->text || !r->produced_by || !r->launch || (rc = rec_push(c, r))) {
            rec_free(r);
            rc = rc ? rc : HK_ENOMEM;
            goto out;
        }
        json_object_set_new(r->launch, "form", json_string("command"));
        c->n_proposed++;
        if (r->is_start) {
            c->start_rec = r;
            r->vid = c->start_vid;
            r->number = c->start_number;
        } else {
            TRY(ep__add_version(c, r->text, c->start_vid ? c->start_vid : c->base_vid, r->launch,
                                STORE_V_CANDIDATE, r->produced_by, &r->vid));
            r->number = version_number(c, r->vid);
        }
        /* only the kernel's definition may change: a constant outside it (a radius, a size)
         * can change what the program computes and what its own check expects alike */
        unsigned line = 0;
        char *why = NULL;
        rc = cmdform_check_outside_kernel(c->text, c->text_len, r->text, r->len, c->o->kernel,
                                          &line, &why);
        if (rc == HK_ENOMEM)
            goto out;
        if (rc || line) { /* nothing ran: it does not spend the candidate budget */
            char *details = hk_asprintf("%s: %s", rc ? "swap_error" : "host_code",
                                        why ? why : hk_strerror(rc));
            record_rejection(c, r, rc ? MEASURE_HARNESS_ERROR : MEASURE_HOST_CODE,
                             details ? details : "host_code", s);
            hk_free(details);
            hk_free(why);
            rc = HK_OK;
            optimize_progress(c);
            continue;
        }
        cmdform_result res;
        char *unstable = NULL;
        rc = cmd_judge(c, r, &res, &unstable);
        if (rc) {
            cmdform_result_clear(&res);
            hk_free(unstable);
            goto out;
        }
        c->n_evaluated++;
        r->evaluated = true;
        if (unstable) {
            record_rejection(c, r, MEASURE_UNSTABLE, unstable, s);
            hk_free(unstable);
        } else if (res.status != CMDFORM_OK) {
            char details[CMDFORM_MAX_DETAILS + 64];
            snprintf(details, sizeof details, "%s: %s", cmdform_status_name(res.status),
                     res.details ? res.details : "");
            record_rejection(c, r, cmdform_status_reason(res.status), details, s);
        } else if (!c->mo.allow_no_floor) {
            /* no floor can bound a command-form time: measured, kept, not credited */
            r->uncredited = true;
            json_t *mj = cmdform_result_json(&res);
            if (mj) {
                json_object_set_new(mj, "credited", json_false());
                json_object_set_new(mj, "credit_note", ep__text(credit_missing(c)));
            }
            ep__add_measurement(c, r->vid, STORE_M_CANDIDATE, 0, r->median_ms, res.timing.p10_ms,
                                res.timing.p90_ms, res.timing.reps, mj);
            if (search_report(s, r->search_id, SEARCH_OK, r->median_ms) != HK_OK)
                HK_DEBUG("episode: search_report %u refused", r->search_id);
            version_event(c, r, "candidate", "not_credited", credit_missing(c));
        } else {
            r->accepted = true;
            if (store_version_set_status(c->db, r->vid, STORE_V_VERIFIED, NULL, NULL))
                ep__log_store(c);
            ep__add_measurement(c, r->vid, STORE_M_CANDIDATE, 0, r->median_ms, res.timing.p10_ms,
                                res.timing.p90_ms, res.timing.reps, cmdform_result_json(&res));
            if (r->flagged)
                record_evidence(c, r->vid, "flag",
                                json_pack("{s:s, s:f}", "note",
                                          EN(EPS_SPEEDUP_OVER_LIMIT),
                                          "speedup", r->speedup));
            if (search_report(s, r->search_id, SEARCH_OK, r->median_ms) != HK_OK)
                HK_DEBUG("episode: search_report %u refused", r->search_id);
            version_event(c, r, "verified", NULL, NULL);
        }
        cmdform_result_clear(&res);
        optimize_progress(c);
    }
    if (rc == HK_OK)
        ep__log(c, "info", hk_tr(HK_MSG_EP_CANDIDATES_PROPOSED_MEASURED), c->n_proposed,
                c->n_evaluated);
    if (rc == HK_OK)
        note_lock_wait(c);
out:
    search_free(s);
    an_model_free(m);
    return rc;
}

/* In the command form every run is gated by the program's own exit status and PASS/FAIL
 * output, so the candidates were checked on each of their runs; the best is the fastest,
 * and verify re-runs it interleaved. */
static int cmd_stage_accuracy(ep_ctx *c)
{
    stage_begin(c, "accuracy", 80, "%s", hk_tr(HK_MSG_EPW_CMD_ACCURACY));
    note_uncredited(c);
    for (size_t i = 0; i < c->n_recs; i++) {
        ep_rec *r = c->recs[i];
        if (r != c->base_rec && r->accepted && r->speedup > 1.0 &&
            (!c->best || r->speedup > c->best->speedup))
            c->best = r;
    }
    if (!c->best)
        ep__log(c, "info", "%s", hk_tr(HK_MSG_EP_CANDIDATE_WAS_FASTER_THAN));
    return HK_OK;
}

/* The command form's next best in place of those dropped in verify: the fastest accepted
 * version over 1x not among dropped[0..n) (its runs were checked: cmd_stage_accuracy),
 * or NULL. */
static ep_rec *cmd_next_best(ep_ctx *c, ep_rec *const *dropped, size_t n)
{
    ep_rec *best = NULL;
    for (size_t i = 0; i < c->n_recs; i++) {
        ep_rec *r = c->recs[i];
        bool was = false;
        for (size_t k = 0; k < n; k++)
            was |= dropped[k] == r;
        if (!was && r != c->base_rec && r->accepted && r->speedup > 1.0 &&
            (!best || r->speedup > best->speedup))
            best = r;
    }
    return best;
}

/* c->best's runs interleaved with the original program's, each built once, into t (as
 * verify_time). */
static int cmd_verify_time(ep_ctx *c, verify_try *t)
{
    int rc = HK_OK;
    ep_rec *r = t->r = c->best;
    t->timed = false;
    measure_verdict_init(&t->vb);
    cmdform_options co;
    cmd_options_for(c, &co);
    cmdform_ws *wa = NULL, *wb = NULL;
    cmdform_result ra, rb;
    memset(&ra, 0, sizeof ra);
    memset(&rb, 0, sizeof rb);
    TRY(cmdform_prepare(c->sp, NULL, 0, &co, &wa, &ra));
    if (ra.status != CMDFORM_OK) {
        rc = ep__fail(c, false, hk_tr(HK_MSG_EP_ORIGINAL_PROGRAM_FAILED_WHILE),
                      cmdform_status_name(ra.status), ra.details ? ra.details : "");
        goto out;
    }
    TRY(cmdform_prepare(c->sp, r->text, r->len, &co, &wb, &rb));
    for (size_t i = 0; i < t->pairs && rb.status == CMDFORM_OK; i++) {
        TRY(cmdform_run_once(wa, &ra));
        if (ra.status != CMDFORM_OK) {
            rc = ep__fail(c, false, hk_tr(HK_MSG_EP_ORIGINAL_PROGRAM_FAILED_WHILE),
                          cmdform_status_name(ra.status), ra.details ? ra.details : "");
            goto out;
        }
        TRY(cmdform_run_once(wb, &rb));
        if (rb.status == CMDFORM_OK) {
            t->a[i] = ra.runs[ra.n_runs - 1].kernel_ms;
            t->b[i] = rb.runs[rb.n_runs - 1].kernel_ms;
        }
    }
    if (rb.status != CMDFORM_OK) {
        rc = measure_verdict_set(&t->vb, cmdform_status_reason(rb.status), "%s: %s",
                                 cmdform_status_name(rb.status), rb.details ? rb.details : "");
        goto out;
    }
    TRY(measure_speedup_compute(t->a, t->b, t->pairs, &t->sp));
    t->timed = true;
    progress(c, 94, NULL, hk_tr(HK_MSG_EPW_CMD_INTERLEAVED), t->sp.a_median, r->number,
             t->sp.b_median, t->sp.speedup, t->sp.lo, t->sp.hi);
out:
    cmdform_ws_free(wa);
    cmdform_ws_free(wb);
    cmdform_result_clear(&ra);
    cmdform_result_clear(&rb);
    return rc;
}

/* ---- evidence: SASS, Nsight Compute, roofline (parsed by evidence.h) ---- */

static int run_tool(ep_ctx *c, const char *const *argv, const char *cwd, unsigned timeout_ms,
                    size_t out_max, runner_result *r)
{
    runner_spec rs = {.argv = argv, .cwd = cwd, .timeout_ms = timeout_ms, .output_max = out_max,
                      .gpu = true, .isolation = RUNNER_ISO_NONE};
    /* the GPU lock exclusive for the whole process: Nsight Compute replays and times the
     * kernel under its own control, from anywhere in the program */
    return measure_run_argv(&c->mo, &rs, r);
}

/* The first of names found (cc_find_tool's search, then ROCm's and DTK's llvm/bin, where
 * their LLVM tools live). New path or NULL. */
static char *find_llvm_tool(const char *const *names)
{
    char *p = NULL;
    for (size_t i = 0; names[i]; i++) {
        if (cc_find_tool(CC_DCU, names[i], &p) == HK_OK)
            return p;
        static const char *const dirs[] = {"/opt/rocm/llvm/bin", "/opt/dtk/llvm/bin"};
        for (size_t d = 0; d < HK_ARRAY_LEN(dirs); d++) {
            char *q = hk_asprintf("%s/%s", dirs[d], names[i]);
            if (q && access(q, X_OK) == 0)
                return q;
            hk_free(q);
        }
    }
    return NULL;
}

/* Instructions of the kernel's function in llvm-objdump -d text: its lines from its label
 * ("<mangled>:" whose base name is kernel) to the next label. Counts of the patterns
 * in pats into counts; total instructions into *total. */
static void isa_count(const char *text, const char *kernel, const char *const *pats,
                      size_t n_pats, long *counts, long *total)
{
    bool in = false;
    *total = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *lt = memchr(p, '<', n), *gt = lt ? memchr(lt, '>', n - (size_t)(lt - p)) : NULL;
        if (lt && gt && gt + 1 < p + n && gt[1] == ':') { /* "0000000000001700 <_Z5saxpyifPKfPf>:" */
            char *m = hk_strndup(lt + 1, (size_t)(gt - lt - 1)), *base = NULL;
            in = m && cc_demangle(m, NULL, &base) == HK_OK && base && !strcmp(base, kernel);
            hk_free(base);
            hk_free(m);
        } else if (in && n > 1 && (*p == '\t' || *p == ' ')) {
            (*total)++;
            for (size_t k = 0; k < n_pats; k++)
                if (memmem(p, n, pats[k], strlen(pats[k])))
                    counts[k]++;
        }
        p = nl ? nl + 1 : p + n;
    }
}

/* DCU: the code object of r for c->arch, disassembled (its device-only image kernel.co, a
 * clang offload bundle; for a program, the .hip_fatbin section objcopy'd out of it; then
 * clang-offload-bundler --unbundle, llvm-objdump -d), kept as r->sass for the skills' gfx9
 * evidence, and summarized as "isa" evidence. Missing tools: a log line. */
static void isa_evidence(ep_ctx *c, ep_rec *r)
{
    static const char *const objcopy_n[] = {"llvm-objcopy", "llvm-objcopy-15", "llvm-objcopy-17",
                                            "llvm-objcopy-19", "objcopy", NULL};
    static const char *const bundler_n[] = {"clang-offload-bundler", "clang-offload-bundler-15",
                                            "clang-offload-bundler-17",
                                            "clang-offload-bundler-19", NULL};
    static const char *const objdump_n[] = {"llvm-objdump", "llvm-objdump-15", "llvm-objdump-17",
                                            "llvm-objdump-19", NULL};
    char *objcopy = find_llvm_tool(objcopy_n), *bundler = find_llvm_tool(bundler_n);
    char *objdump = find_llvm_tool(objdump_n);
    /* the unbundled ELF gets a name of its own: kernel.co is the candidate's image */
    char *fat = hk_asprintf("%s/hip_fatbin.bin", r->dir), *co = hk_asprintf("%s/isa.o", r->dir);
    char *sect = fat ? hk_asprintf(".hip_fatbin=%s", fat) : NULL;
    char *in = fat ? hk_asprintf("--input=%s", r->module ? r->module : fat) : NULL;
    char *outp = co ? hk_asprintf("--output=%s", co) : NULL;
    char *tgt = hk_asprintf("--targets=hipv4-amdgcn-amd-amdhsa--%s", c->arch);
    char *mcpu = hk_asprintf("--mcpu=%s", c->arch);
    runner_result res;
    memset(&res, 0, sizeof res);
    if (!objcopy || !bundler || !objdump) {
        ep__log(c, "info", hk_tr(HK_MSG_EP_ISA_EVIDENCE_V_NOT),
                r->number, c->arch, !objcopy ? "objcopy" : !bundler ? "clang-offload-bundler"
                                                                    : "llvm-objdump");
        goto out;
    }
    if (!sect || !in || !outp || !tgt || !mcpu)
        goto out;
    const char *a1[] = {objcopy, "--dump-section", sect, r->exe, NULL};
    const char *a2[] = {bundler, "--unbundle", "--type=o", tgt, in, outp, NULL};
    const char *a3[] = {objdump, "-d", mcpu, co, NULL};
    const char *const *steps[] = {a1, a2, a3};
    for (size_t i = r->module ? 1 : 0; i < HK_ARRAY_LEN(steps); i++) {
        runner_result_free(&res);
        memset(&res, 0, sizeof res);
        if (run_tool(c, steps[i], r->dir, 120000, (size_t)64 << 20, &res) != HK_OK ||
            res.exit_code != 0) {
            if (!stopped(c))
                ep__log(c, "warn", hk_tr(HK_MSG_EP_FAILED_V_EXIT_ISA), steps[i][0],
                        r->number, res.exit_code);
            goto out;
        }
    }
    static const char *const pats[] = {"global_load_dwordx4", "global_store_dwordx4",
                                       "global_load", "global_store", "ds_read", "ds_write",
                                       "scratch_", "buffer_store", "v_mfma", "ds_swizzle",
                                       "_dpp", "global_atomic"};
    long counts[HK_ARRAY_LEN(pats)] = {0}, total = 0;
    isa_count(res.out, c->o->kernel, pats, HK_ARRAY_LEN(pats), counts, &total);
    if (total == 0) {
        ep__log(c, "warn", hk_tr(HK_MSG_EP_LLVM_OBJDUMP_FUNCTION_V), c->o->kernel, r->number);
        goto out;
    }
    if (!r->sass) /* for the skill's evidence (skill_credit) */
        r->sass = hk_strndup(res.out, res.out_len);
    json_t *j = json_pack("{s:s, s:s, s:s, s:I}", "kernel", c->o->kernel, "arch", c->arch,
                          "tool", "llvm-objdump", "instructions", (json_int_t)total);
    json_t *cj = json_object();
    for (size_t k = 0; j && cj && k < HK_ARRAY_LEN(pats); k++)
        json_object_set_new(cj, pats[k], json_integer(counts[k]));
    if (j && cj) {
        json_object_set_new(j, "counts", cj);
        record_evidence(c, r->vid, "isa", j);
    } else {
        json_decref(j);
        json_decref(cj);
    }
    ep__log(c, "info", hk_tr(HK_MSG_EP_V_ISA_INSTRUCTIONS_16),
            r->number, c->arch, total, counts[0], counts[6]);
out:
    runner_result_free(&res);
    if (fat)
        unlink(fat);
    if (co)
        unlink(co);
    hk_free(objcopy);
    hk_free(bundler);
    hk_free(objdump);
    hk_free(fat);
    hk_free(co);
    hk_free(sect);
    hk_free(in);
    hk_free(outp);
    hk_free(tgt);
    hk_free(mcpu);
}

static void sass_evidence(ep_ctx *c, ep_rec *r)
{
    char *tool = NULL, **argv = NULL;
    runner_result res;
    memset(&res, 0, sizeof res);
    if (c->backend == CC_DCU) { /* cuobjdump reads NVIDIA binaries only: AMD ISA instead */
        isa_evidence(c, r);
        return;
    }
    if (cc_find_tool(CC_NVIDIA, "cuobjdump", &tool) != HK_OK) {
        ep__log(c, "info", hk_tr(HK_MSG_EP_CUOBJDUMP_HERE_SASS_SUMMARY), r->number);
        return;
    }
    evidence_sass_list l;
    memset(&l, 0, sizeof l);
    /* the kernel's SASS is in its image (the launcher holds none) */
    if (evidence_cuobjdump_argv(tool, r->module ? r->module : r->exe, &argv) == HK_OK &&
        run_tool(c, (const char *const *)argv, r->dir, 120000, (size_t)64 << 20, &res) == HK_OK &&
        res.exit_code == 0 && evidence_sass_parse(res.out, res.out_len, &l) == HK_OK) {
        const evidence_sass *k = evidence_sass_find(&l, c->o->kernel, c->arch);
        if (!k)
            k = evidence_sass_find(&l, c->o->kernel, NULL);
        if (!r->sass)   /* for the skill's evidence (skill_credit) */
            r->sass = hk_strndup(res.out, res.out_len);
        json_t *j = NULL;
        if (k && evidence_sass_json(k, &j) == HK_OK)
            record_evidence(c, r->vid, "sass", j);
        else
            ep__log(c, "warn", hk_tr(HK_MSG_EP_CUOBJDUMP_FUNCTION_V), c->o->kernel, r->number);
    } else if (!stopped(c)) {
        ep__log(c, "warn", hk_tr(HK_MSG_EP_CUOBJDUMP_DUMP_SASS_GAVE), r->number,
                res.exit_code);
    }
    evidence_sass_list_free(&l);
    runner_result_free(&res);
    evidence_argv_free(argv);
    hk_free(tool);
}

static void ncu_evidence(ep_ctx *c, ep_rec *r)
{
    char *tool = NULL, **pargv = NULL, **argv = NULL, *out = NULL, *why = NULL;
    runner_result res;
    memset(&res, 0, sizeof res);
    if (c->backend == CC_DCU || cc_find_tool(CC_NVIDIA, "ncu", &tool) != HK_OK)
        return; /* Nsight Compute profiles NVIDIA GPUs only */
    out = hk_asprintf("%s/ncu.out", r->dir);
    harness_run hr = {.mode = "run", .size = c->base.primary_size, .seed = c->base.time_seed,
                      .dist = c->base.time_dist, .check_seed = -1, .out = out,
                      .block = r->block_set ? r->block : NULL};
    char *fn = NULL;
    if (r->module && measure_read_entry(r->module, &fn) == HK_OK) {
        hr.module = r->module;
        hr.function = fn;
    }
    evidence_ncu n;
    memset(&n, 0, sizeof n);
    int rc = out ? harness_run_argv(r->exe, &hr, &pargv) : HK_ENOMEM;
    if (!rc)
        rc = evidence_ncu_argv(tool, c->o->kernel, 1, (const char *const *)pargv, &argv);
    if (!rc)
        rc = run_tool(c, (const char *const *)argv, r->dir, 300000, (size_t)4 << 20, &res);
    if (!rc)
        rc = evidence_ncu_parse(res.out, res.out_len, c->o->kernel, &n, &why);
    json_t *j = NULL;
    if (!rc && evidence_ncu_json(&n, &j) == HK_OK)
        record_evidence(c, r->vid, "ncu", j);
    else if (!stopped(c))
        ep__log(c, "warn", hk_tr(HK_MSG_EP_NCU_GAVE_METRICS_V), r->number, hk_strerror(rc),
                why ? ": " : "", why ? why : "");
    evidence_ncu_clear(&n);
    hk_free(fn);
    runner_result_free(&res);
    harness_argv_free(pargv);
    evidence_argv_free(argv);
    if (out)
        unlink(out);
    hk_free(out);
    hk_free(why);
    hk_free(tool);
}

static void roofline_evidence(ep_ctx *c, ep_rec *r)
{
    double ms = r == c->base_rec ? c->verified_speedup.a_median : c->verified_speedup.b_median;
    if (!(isfinite(ms) && ms > 0))
        ms = r->median_ms;
    if (!(isfinite(ms) && ms > 0))
        return;
    double bps, fps, pct;
    measure_rates(&c->mo, c->base.primary_size, ms, &bps, &fps, &pct);
    evidence_roofline rl;
    json_t *j = NULL;
    if (evidence_roofline_compute(bps * ms / 1e3, fps * ms / 1e3, ms, c->mo.peak_bytes_per_s,
                                  c->mo.peak_flops, &rl) == HK_OK &&
        evidence_roofline_json(&rl, &j) == HK_OK)
        record_evidence(c, r->vid, "roofline", j);
}

static void ep__evidence(ep_ctx *c, ep_rec *r)
{
    if (stopped(c))
        return; /* a stopped episode gets its report, without running more programs */
    sass_evidence(c, r);
    if (!c->has_gpu || !c->have_base || !(r == c->base_rec || r->evaluated))
        return;
    if (c->o->gpu != EP_GPU_SIMULATED && !stopped(c))
        ncu_evidence(c, r);
    roofline_evidence(c, r);
}

/* The winner's gain is credited to the skill whose rewrite it carries only when the
 * skill's expected evidence shows in its SASS against the baseline's; otherwise the
 * report says the gain is unexplained. */
static void skill_credit(ep_ctx *c)
{
    ep_rec *b = c->best;
    if (!b || b == c->base_rec || !b->skill)
        return;
    const sk_skill *sk = c->skills ? sk_get(c->skills, b->skill) : NULL;
    json_t *j = json_pack("{s:s}", "skill", b->skill);
    if (!j)
        return;
    bool found = false;
    const char *what = NULL;
    if (!sk) {
        json_object_set_new(j, "explained", json_false());
        json_object_set_new(j, "why", json_string(EN(EPS_SKILL_NOT_LOADED)));
    } else if (sk->rewrite->flags & RW_LIBRARY_CALL) {
        /* the library's kernels live in libcublas/libhipblas, not in the program's SASS:
         * the evidence is that the measured program calls the library (host-call mode) */
        char routine[64];
        const char *lib = b->text ? rw_blas_library_of(b->text, routine, sizeof routine) : NULL;
        bool calls = lib && strstr(b->text, "HK_HOST_CALL_") != NULL;
        json_object_set_new(j, "explained", json_boolean(calls));
        json_object_set_new(j, "evidence", json_string(EN(EPS_LIBRARY_CREDITED)));
        if (lib) { /* the report names it (issue 12) */
            json_object_set_new(j, "library", json_string(lib));
            json_object_set_new(j, "routine", json_string(routine));
        }
        if (calls)
            ep__log(c, "info", hk_tr(HK_MSG_EP_V_GAIN_CREDITED_SKILL),
                    b->number, sk->id, routine, lib);
        else
            ep__log(c, "warn", hk_tr(HK_MSG_EP_V_GAIN_UNEXPLAINED_SKILL), b->number, sk->id);
    } else if (!b->sass || !c->base_rec || !c->base_rec->sass) {
        json_object_set_new(j, "explained", json_null());
        json_object_set_new(j, "why", json_string(hk_tr(HK_MSG_EP_CREDIT_NO_SASS)));
    } else if (sk_evidence_found(sk, c->base_rec->sass, b->sass, NULL, NULL, &found, &what) ==
               HK_OK) {
        size_t nb = 0, na = 0;
        sk_evidence_sass_count(sk, c->base_rec->sass, &nb);
        sk_evidence_sass_count(sk, b->sass, &na);
        json_object_set_new(j, "explained", json_boolean(found));
        json_object_set_new(j, "evidence", sk->evidence_sass ? json_string(sk->evidence_sass)
                                                             : json_null());
        json_object_set_new(j, "lines_before", json_integer((json_int_t)nb));
        json_object_set_new(j, "lines_after", json_integer((json_int_t)na));
        if (found)
            ep__log(c, "info", hk_tr(HK_MSG_EP_V_GAIN_CREDITED_SKILL_2), b->number, sk->id,
                    sk->evidence_sass ? sk->evidence_sass : "", na, nb);
        else
            ep__log(c, "warn", hk_tr(HK_MSG_EP_V_GAIN_UNEXPLAINED_SKILL_2), b->number, sk->id,
                    sk->evidence_sass ? sk->evidence_sass : "(a metric change)", na, nb);
    }
    json_object_set_new(c->info, "credit", j);
}

/* ---- hkls verify-candidate: one candidate through the episode's pipeline ---- */

/* Memory safety for verify-candidate: compute-sanitizer when the accepted candidate claims
 * more than 2x, always with --sanitize, and (best) once it is faster interleaved: a faster
 * verdict is verify-candidate's accepted best, which the episode never reports unchecked
 * either. A rejection replaces e's verdict. *safety: new reference {"note", and
 * "sanitizer": the tools' outcome when they ran}. HK_OK, HK_ECANCELED, HK_ENOMEM. */
static int verify_sanitize(ep_ctx *c, const ep_verify_options *vo, bool best,
                           const measure_prog *bp, const measure_prog *cp, const char *cand_text,
                           size_t cand_len, measure_eval *e, json_t **safety)
{
    *safety = NULL;
    if (e->verdict.reason != MEASURE_OK)
        return HK_OK; /* rejected already */
    if (!sanitize_wanted(best, vo->sanitize, e->speedup, false)) {
        char *body = hk_trf(HK_MSG_SAN_NOT_CLAIMED, e->speedup, SANITIZE_CLAIM_SPEEDUP);
        *safety = body ? json_pack("{s:o}", "note", json_sprintf(hk_tr(HK_MSG_SAN_NOTE), body))
                       : NULL;
        hk_free(body);
        return *safety ? HK_OK : HK_ENOMEM;
    }
    sanitize_opts so = {0};
    if (c->backend == CC_DCU)
        so.unchecked = hk_tr(HK_MSG_SAN_DCU);
    ep__log(c, "info", hk_tr(HK_MSG_EP_MEMORY_SAFETY_COMPUTE_SANITIZER_4),
            vo->sanitize                              ? "--sanitize"
            : e->speedup > SANITIZE_CLAIM_SPEEDUP ? EN(EPS_CLAIMS_OVER_2X)
                                                      : EN(EPS_FASTER_INTERLEAVED));
    sanitize_result sr;
    int rc = sanitize_sizes(c, &so, bp, hk_tr(HK_MSG_EP_WHAT_CANDIDATE), cp, cand_text, cand_len,
                            &sr);
    if (!rc && sr.outcome == SANITIZE_REJECTED) {
        /* where: the pass that rejected (the timed size's when the smallest passed) */
        const sanitize_result *at = sr.at_timed && sr.at_timed->outcome == SANITIZE_REJECTED
                                        ? sr.at_timed : &sr;
        rc = measure_verdict_set(&e->verdict, sr.reason, "%s", sr.details ? sr.details : "");
        e->verdict.where = (measure_combo){at->size, at->dist, at->seed};
    }
    /* a claim over 2x that the tools could not check, or any claim whose check the
     * candidate left incomplete where the original's completed: correct and timed, not
     * credited */
    char *why = NULL;
    if (!rc && !sanitize_credit_allowed(&sr, e->speedup))
        rc = (why = sanitize_credit_note(&sr, e->speedup)) ? HK_OK : HK_ENOMEM;
    else if (!rc)
        rc = sanitize_incomplete_judged(c, &so, bp, hk_tr(HK_MSG_EP_WHAT_CANDIDATE), &sr, &why);
    if (!rc && why) {
        rc = measure_eval_uncredit(e, "memory_safety", why);
        ep__log(c, "warn", "%s", why);
    }
    hk_free(why);
    if (!rc) {
        ep__log(c, sr.outcome == SANITIZE_PASSED ? "info" : "warn", "%s", sr.note);
        *safety = json_pack("{s:s, s:o}", "note", sr.note, "sanitizer", sanitize_result_json(&sr));
        rc = *safety ? HK_OK : HK_ENOMEM;
    }
    sanitize_result_clear(&sr);
    return rc;
}

static json_t *verdict_new(bool accepted, const char *reason, const char *details)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    bool measured = strcmp(reason, measure_reason_name(MEASURE_NO_GPU)) != 0;
    json_object_set_new(j, "verdict", json_string(!measured ? "not_measured" : "rejected"));
    json_object_set_new(j, "accepted", json_boolean(accepted));
    json_object_set_new(j, "measured", json_boolean(measured));
    json_object_set_new(j, "faster", json_false());
    json_object_set_new(j, "credited", json_false());
    json_object_set_new(j, "reason", json_string(reason));
    json_object_set_new(j, "details", ep__text(details));
    return j;
}

/* verify-candidate's memory-safety outcome into verdict: "memory_safety" (the note) and
 * "sanitizer" (the tools' outcome) when they ran; takes safety's reference. */
static void verify_set_safety(json_t *verdict, json_t *safety)
{
    if (!safety)
        return;
    json_object_set(verdict, "memory_safety", json_object_get(safety, "note"));
    if (json_object_get(safety, "sanitizer"))
        json_object_set(verdict, "sanitizer", json_object_get(safety, "sanitizer"));
    json_decref(safety);
}

/* A candidate found faster interleaved that its claim did not send to compute-sanitizer
 * (2x or less, no --sanitize) is checked now, as the episode checks its best: a race or an
 * out-of-bounds read that is right on every checked launch and claims 1.5x is no faster
 * version (session 45: the cheats' runner passed --sanitize, so this path had no cheat).
 * A finding rejects it: verdict, accepted, faster, credited, reason, details and where are
 * replaced, a "memory_safety" check ends the checks, the interleaved timing (its own
 * "faster" included) stays as measured. */
static int verify_sanitize_faster(ep_ctx *c, const ep_verify_options *vo, const measure_prog *bp,
                                  const measure_prog *cp, const char *cand_text, size_t cand_len,
                                  measure_eval *e, json_t *verdict)
{
    json_t *safety = NULL;
    bool credited = e->credited; /* a floor's uncredit is the verdict's already */
    int rc = verify_sanitize(c, vo, true, bp, cp, cand_text, cand_len, e, &safety);
    if (rc)
        return rc;
    verify_set_safety(verdict, safety);
    if (e->verdict.reason == MEASURE_OK && credited && !e->credited) {
        /* its check left incomplete (sanitize_incomplete_judged): not credited, the
         * interleaved timing stays as measured */
        json_object_set_new(verdict, "credited", json_false());
        json_object_set_new(verdict, "credit_note", ep__text(e->credit_note));
        json_object_set_new(verdict, "verdict", json_string("not_credited"));
        json_t *checks = json_object_get(verdict, "checks");
        if (json_is_array(checks))
            json_array_append_new(checks, json_pack("{s:s, s:s, s:s, s:s?}", "check", "credit",
                                                    "result", "not_credited", "by",
                                                    "memory_safety", "why", e->credit_note));
        return HK_OK;
    }
    if (e->verdict.reason == MEASURE_OK)
        return HK_OK;
    json_t *rej = measure_eval_json(e);
    if (!rej)
        return HK_ENOMEM;
    static const char *const keys[] = {"reason", "details", "where"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        json_t *v = json_object_get(rej, keys[i]);
        if (v)
            json_object_set(verdict, keys[i], v);
    }
    json_decref(rej);
    /* the checks end with the rule that decided: the pairs' "faster" stays as timed */
    json_t *checks = json_object_get(verdict, "checks");
    if (json_is_array(checks))
        json_array_append_new(checks, json_pack("{s:s, s:s, s:s}", "check", "memory_safety",
                                                "result", "rejected", "reason",
                                                measure_reason_name(e->verdict.reason)));
    json_object_set_new(verdict, "verdict", json_string("rejected"));
    json_object_set_new(verdict, "accepted", json_false());
    json_object_set_new(verdict, "faster", json_false());
    json_object_set_new(verdict, "credited", json_false());
    return HK_OK;
}

/* verify-candidate's interleaved look at an accepted candidate: the verify stage's A B A B
 * in separate processes, into j's "interleaved", "faster" and "verdict". A failure of the
 * candidate there rejects it (reason and details replaced); the baseline's is HK_ECHILD. */
static int verify_interleaved(ep_ctx *c, const measure_prog *bp, const measure_prog *cp,
                              size_t pairs, bool credited, json_t *j)
{
    int rc = HK_OK;
    double a[MEASURE_MAX_PAIRS], b[MEASURE_MAX_PAIRS];
    measure_verdict va, vb;
    measure_verdict_init(&va);
    measure_verdict_init(&vb);
    char *da = hk_asprintf("%s/verify-baseline", c->scratch);
    char *db = hk_asprintf("%s/verify-candidate", c->scratch);
    if (!da || !db) {
        rc = HK_ENOMEM;
        goto out;
    }
    ep__log(c, "info", hk_tr(HK_MSG_EP_BASELINE_CANDIDATE_INTERLEAVED_PAIRS),
            pairs);
    TRY(measure_interleave(&c->mo, bp, da, cp, db, c->base.ref_dir, c->base.primary_size,
                           c->base.time_seed, c->base.time_dist, c->base.check_seed, pairs, a, b,
                           &va, &vb));
    if (va.reason != MEASURE_OK) {
        ep__log(c, "error", hk_tr(HK_MSG_EP_BASELINE_FAILED_WHILE_INTERLEAVED),
                measure_reason_name(va.reason), va.details ? va.details : "");
        rc = va.reason == MEASURE_NO_GPU ? HK_ENOGPU : HK_ECHILD;
        goto out;
    }
    if (vb.reason != MEASURE_OK) {
        json_object_set_new(j, "verdict", json_string("rejected"));
        json_object_set_new(j, "accepted", json_false());
        json_object_set_new(j, "credited", json_false());
        json_object_set_new(j, "reason", json_string(measure_reason_name(vb.reason)));
        char *d = hk_asprintf(EN(EPS_INTERLEAVED), vb.details ? vb.details : "");
        json_object_set_new(j, "details", ep__text(d));
        hk_free(d);
        goto out;
    }
    measure_speedup sp;
    TRY(measure_speedup_compute(a, b, pairs, &sp));
    bool faster = measure_speedup_faster(&sp);
    json_t *x = json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:b}", "pairs", (int)pairs,
                          "speedup", sp.speedup, "p10", sp.lo, "p90", sp.hi, "baseline_ms",
                          sp.a_median, "candidate_ms", sp.b_median, "baseline_samples",
                          samples_json(a, pairs), "candidate_samples", samples_json(b, pairs),
                          "faster", faster);
    if (!x) {
        rc = HK_ENOMEM;
        goto out;
    }
    json_object_set_new(j, "interleaved", x);
    json_object_set_new(j, "faster", json_boolean(faster));
    json_t *checks = json_object_get(j, "checks");
    if (json_is_array(checks))
        json_array_append_new(checks,
                              json_pack("{s:s, s:i, s:f, s:f, s:f, s:s}", "check",
                                        "interleaved", "pairs", (int)pairs, "speedup",
                                        sp.speedup, "p10", sp.lo, "p90", sp.hi, "result",
                                        faster ? "faster" : "not_faster"));
    json_object_set_new(j, "verdict", json_string(!credited ? "not_credited"
                                                  : faster  ? "faster"
                                                            : "not_faster"));
out:
    measure_verdict_clear(&va);
    measure_verdict_clear(&vb);
    hk_free(da);
    hk_free(db);
    return rc;
}

/* A source that is not text (a binary file renamed to .cu) is refused before any compiler
 * sees it: HK_OK, or HK_EINVAL with the reason logged. what: "the baseline", ... */
static int require_text(ep_ctx *c, const char *what, const char *path, const char *text,
                        size_t len)
{
    const char *why = "";
    size_t at = 0;
    if (cc_source_is_text(text, len, &why, &at))
        return HK_OK;
    ep__log(c, "error", hk_tr(HK_MSG_EP_NOT_TEXT_FILE_AT), what, path, why, at);
    return HK_EINVAL;
}

static int verify_candidate(const ep_verify_options *vo, json_t **verdict);

/* In English, as ep_run: the verdict and its events are read by programs too. */
int ep_verify_candidate(const ep_verify_options *vo, json_t **verdict)
{
    int was = hk_i18n_thread_lang(HK_LANG_EN);
    int rc = verify_candidate(vo, verdict);
    hk_i18n_thread_lang(was);
    return rc;
}

static int verify_candidate(const ep_verify_options *vo, json_t **verdict)
{
    *verdict = NULL;
    if (!vo || !vo->spec_path || !vo->candidate)
        return HK_EINVAL;
    ep_options o;
    memset(&o, 0, sizeof o);
    o.spec_path = vo->spec_path;
    o.target = vo->target;
    o.gpu = vo->gpu;
    o.sim_device = vo->sim_device;
    o.measure = vo->measure;
    o.stop = vo->stop;
    o.on_event = vo->on_event;
    o.event_data = vo->event_data;
    o.work_dir = vo->work_dir;
    o.keep_work = vo->keep_work;
    ep_result res;
    memset(&res, 0, sizeof res);
    ep_ctx ctx, *c = &ctx;
    memset(c, 0, sizeof *c);
    c->o = &o;
    c->res = &res;
    c->mo = vo->measure;
    c->stage = "verify";
    int rc = HK_OK;
    char *cand_text = NULL, *spec_src = NULL, *cout = NULL, *sens_note = NULL;
    size_t cand_len = 0;
    runner_pool *pool = NULL;
    measure_build bb, cb;
    measure_compile bc, cc;
    measure_eval e;
    measure_verdict v;
    memset(&bb, 0, sizeof bb);
    memset(&cb, 0, sizeof cb);
    memset(&bc, 0, sizeof bc);
    memset(&cc, 0, sizeof cc);
    memset(&e, 0, sizeof e);
    measure_verdict_init(&v);

    rc = load_spec(c, vo->spec_path);
    if (rc) {
        rc = rc == HK_ENOMEM ? rc : HK_EPARSE;
        goto out;
    }
    if (c->sp->form != SPEC_FORM_HARNESS || !c->sp->source_path) {
        ep__log(c, "error", hk_tr(HK_MSG_EP_VERIFY_CANDIDATE_NEEDS_HARNESS),
                vo->spec_path);
        rc = HK_EUNSUPPORTED;
        goto out;
    }
    if ((rc = hk_read_file(c->sp->source_path, SOURCE_MAX, &c->text, &c->text_len))) {
        ep__log(c, "error", hk_tr(HK_MSG_EP_CANNOT_READ_BASELINE), c->sp->source_path,
                hk_strerror(rc));
        goto out;
    }
    if ((rc = require_text(c, hk_tr(HK_MSG_EP_WHAT_BASELINE), c->sp->source_path, c->text, c->text_len)))
        goto out;
    if ((rc = hk_read_file(vo->candidate, SOURCE_MAX, &cand_text, &cand_len))) {
        ep__log(c, "error", hk_tr(HK_MSG_EP_CANNOT_READ_CANDIDATE), vo->candidate, hk_strerror(rc));
        goto out;
    }
    if ((rc = require_text(c, hk_tr(HK_MSG_EP_WHAT_CANDIDATE), vo->candidate, cand_text, cand_len)))
        goto out;
    /* Before anything is compiled or a GPU looked for: a candidate adds device code only. */
    {
        char *why = NULL;
        if ((rc = host_code_details(c->text, c->text_len, cand_text, cand_len, &why)))
            goto out;
        if (why) {
            *verdict = verdict_new(false, measure_reason_name(MEASURE_HOST_CODE), why);
            hk_free(why);
            rc = *verdict ? HK_OK : HK_ENOMEM;
            goto out;
        }
    }
    if ((rc = parse_target(c)))
        goto out;
    if (!find_compiler(c, false)) {
        rc = HK_ENOENT;
        goto out;
    }
    if (vo->gpu == EP_GPU_SIMULATED) { /* CI only: the episode's simulated GPU */
        if (!vo->sim_device || !vo->measure.wrapper) {
            ep__log(c, "error", "%s", hk_tr(HK_MSG_EP_SIMULATED_GPU_NEEDS_SIM));
            rc = HK_EINVAL;
            goto out;
        }
        c->has_gpu = true;
        snprintf(c->gpu.name, sizeof c->gpu.name, "%s", vo->sim_device->name);
        snprintf(c->gpu.how, sizeof c->gpu.how, "simulated");
        if (!c->arch[0])
            snprintf(c->arch, sizeof c->arch, "%.*s", (int)sizeof c->arch - 1,
                     vo->sim_device->arch);
    } else {
        detect_gpu(c, vo->gpu == EP_GPU_NONE ? EP_GPU_NONE : EP_GPU_DETECT);
    }
    if (!c->arch[0] && c->backend == CC_DCU)
        snprintf(c->arch, sizeof c->arch, "%s", c->gpu.arch[0] ? c->gpu.arch : "gfx906");
    if (!c->arch[0] && (!c->has_gpu || vo->gpu == EP_GPU_SIMULATED ||
                        !smi_arch(c->arch, sizeof c->arch)))
        snprintf(c->arch, sizeof c->arch, "sm_90");
    if ((rc = make_work_dir(c)) || (rc = make_scratch(c)))
        goto out;
    c->info = json_object();
    if (!c->info) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (c->has_gpu && c->backend != CC_DCU) /* the probe is CUDA: DCU peaks stay unknown */
        TRY(init_device(c));
    else if (c->has_gpu && c->gpu.cu_count > 0) /* the spec's sm_count is the CU count */
        c->mo.sm_count = c->gpu.cu_count;
    c->mo.spec = c->sp;
    c->mo.nvcc = c->nvcc;
    c->mo.arch = c->arch;
    c->mo.stop = vo->stop;

    /* both programs compile at once */
    char *bdir = hk_asprintf("%s/baseline", c->work), *cdir = hk_asprintf("%s/candidate", c->work);
    if (!bdir || !cdir) {
        hk_free(bdir);
        hk_free(cdir);
        rc = HK_ENOMEM;
        goto out;
    }
    rc = measure_build_prepare(&c->mo, bdir, c->text, c->text_len, NULL, &bb);
    if (!rc)
        rc = measure_build_prepare(&c->mo, cdir, cand_text, cand_len, NULL, &cb);
    hk_free(bdir);
    hk_free(cdir);
    if (rc)
        goto out;
    {
        const char *slash = strrchr(vo->candidate, '/');
        cb.name = hk_strdup(slash ? slash + 1 : vo->candidate);
        slash = strrchr(c->sp->source_path, '/');
        bb.name = hk_strdup(slash ? slash + 1 : c->sp->source_path);
    }
    ep__log(c, "info", hk_tr(HK_MSG_EP_COMPILING_BASELINE_CANDIDATE), c->arch);
    TRY(runner_pool_new(2, &pool));
    runner_spec rs;
    measure_build_runner_spec(&c->mo, &bb, &rs);
    TRY(runner_pool_submit(pool, &rs, &bb));
    measure_build_runner_spec(&c->mo, &cb, &rs);
    TRY(runner_pool_submit(pool, &rs, &cb));
    for (int done = 0; done < 2;) {
        if (stopped(c)) {
            rc = HK_ECANCELED;
            goto out;
        }
        void *tag = NULL;
        runner_result r;
        int wr = runner_pool_wait(pool, 100, &tag, &r);
        if (wr == HK_OK)
            rc = measure_build_finish(&c->mo, tag, &r, tag == &bb ? &bc : &cc);
        runner_result_free(&r);
        if (wr == HK_ETIMEDOUT)
            continue;
        if (wr)
            rc = wr;
        if (rc)
            goto out;
        done++;
    }
    if (!bc.ok) {
        ep__log(c, "error", hk_tr(HK_MSG_EP_BASELINE_DOES_NOT_BUILD), c->sp->source_path,
                bc.details ? bc.details : "");
        rc = HK_ECHILD;
        goto out;
    }
    if (!cc.ok) {
        *verdict = verdict_new(false, measure_reason_name(MEASURE_COMPILE_ERROR), cc.details);
        goto out;
    }
    /* judged from the two images, so before a GPU is needed (measure_evaluate repeats them) */
    {
        const char *result[MEASURE_IMAGE_CHECKS];
        char *why[MEASURE_IMAGE_CHECKS];
        measure_shapes sh; /* the spec's launches (no --block here): the race check's shapes */
        measure_launch_shapes(c->sp, NULL, &sh);
        if ((rc = measure_image_checks_judge_shapes(bb.module, &sh, cb.module, &sh, result, why)))
            goto out;
        bool failed = false;
        for (size_t i = 0; i < MEASURE_IMAGE_CHECKS && !failed; i++)
            if (!strcmp(result[i], "fail")) {
                failed = true;
                *verdict = verdict_new(false, measure_reason_name(measure_image_checks[i].reason),
                                       why[i]);
                rc = *verdict ? HK_OK : HK_ENOMEM;
            }
        for (size_t i = 0; i < MEASURE_IMAGE_CHECKS; i++)
            hk_free(why[i]);
        if (failed)
            goto out;
    }
    if (!c->has_gpu) {
        *verdict = verdict_new(false, measure_reason_name(MEASURE_NO_GPU), c->no_gpu_why);
        goto out;
    }
    char *ref = hk_asprintf("%s/ref", c->scratch);
    if (!ref) {
        rc = HK_ENOMEM;
        goto out;
    }
    ep__log(c, "info", hk_tr(HK_MSG_EP_RUNNING_BASELINE_SET_INPUT),
            c->mo.quick_check ? "quick" : "full", c->sp->n_sizes, c->scratch);
    measure_prog bp = {.exe = bb.exe, .module = bb.module}, cp = {.exe = cb.exe, .module = cb.module};
    {
        char *sdir = hk_asprintf("%s/fp64", c->work);
        rc = sdir ? build_shadow(c, sdir) : HK_ENOMEM;
        hk_free(sdir);
        if (rc) {
            hk_free(ref);
            goto out;
        }
    }
    rc = measure_baseline_run(&c->mo, &bp, ref, &c->base, &v);
    hk_free(ref);
    if (rc)
        goto out;
    if (v.reason == MEASURE_OK)
        shadow_ran(c);
    if (v.reason != MEASURE_OK) {
        ep__log(c, "error", hk_tr(HK_MSG_EP_BASELINE_FAILED), measure_reason_name(v.reason),
                v.details ? v.details : "");
        rc = v.reason == MEASURE_NO_GPU ? HK_ENOGPU : HK_ECHILD;
        goto out;
    }
    size_timeouts(c, &v);
    ep__log(c, "info", hk_tr(HK_MSG_EP_JUDGING_CANDIDATE_RUN_TIMEOUT), c->mo.run_timeout_ms);
    if (!(cout = hk_asprintf("%s/candidate-out", c->scratch))) {
        rc = HK_ENOMEM;
        goto out;
    }
    TRY(measure_evaluate(&c->mo, &c->base, &bp, &cp, cout, &e));
    if (e.verdict.reason == MEASURE_OK) { /* every candidate it accepts follows its inputs */
        char *sdir = hk_asprintf("%s/sensitivity", c->scratch);
        int runs = 0;
        ep__log(c, "info", hk_tr(HK_MSG_EP_SENSITIVITY), 1);
        rc = sdir ? measure_sensitivity(&c->mo, &bp, &cp, sdir, c->base.primary_size,
                                        measure_fresh_seed(), &sens_note, &runs, &e.verdict)
                  : HK_ENOMEM;
        if (sdir)
            (void)measure_rmtree(sdir);
        hk_free(sdir);
        if (rc)
            goto out;
        ep__log(c, e.verdict.reason == MEASURE_OK ? "info" : "warn", "%s", sens_note);
    }
    json_t *safety = NULL;
    bool sanitized = e.verdict.reason == MEASURE_OK &&
                     sanitize_wanted(false, vo->sanitize, e.speedup, false);
    TRY(verify_sanitize(c, vo, false, &bp, &cp, cand_text, cand_len, &e, &safety));
    *verdict = measure_eval_json(&e);
    if (!*verdict) {
        json_decref(safety);
        rc = HK_ENOMEM;
        goto out;
    }
    verify_set_safety(*verdict, safety);
    if (sens_note)
        json_object_set_new(*verdict, "sensitivity", ep__text(sens_note));
    bool ok = e.verdict.reason == MEASURE_OK;
    json_object_set_new(*verdict, "verdict", json_string("rejected"));
    json_object_set_new(*verdict, "accepted", json_boolean(ok));
    json_object_set_new(*verdict, "measured", json_true());
    json_object_set_new(*verdict, "faster", json_false());
    json_object_set_new(*verdict, "baseline_ms",
                        num_or_null(c->base.times[c->base.primary_size].median_ms));
    if (c->base.checks)
        json_object_set_new(*verdict, "baseline_checks", json_deep_copy(c->base.checks));
    json_object_set_new(*verdict, "isolation", json_incref(json_object_get(c->info, "isolation")));
    if (ok) {
        size_t pairs = vo->pairs > 0 ? (size_t)vo->pairs : 5;
        if (pairs > MEASURE_MAX_PAIRS)
            pairs = MEASURE_MAX_PAIRS;
        TRY(verify_interleaved(c, &bp, &cp, pairs, e.credited, *verdict));
        if (!sanitized && json_is_true(json_object_get(*verdict, "faster")))
            TRY(verify_sanitize_faster(c, vo, &bp, &cp, cand_text, cand_len, &e, *verdict));
    }
out:
    if (*verdict) {
        json_object_set_new(*verdict, "candidate", ep__text(vo->candidate));
        json_object_set_new(*verdict, "spec", ep__text(vo->spec_path));
        json_object_set_new(*verdict, "arch", ep__text(c->arch));
        json_t *iso = json_object_get(*verdict, "isolation");
        if (!iso || json_is_null(iso)) {
            enum runner_isolation i = c->mo.isolation == RUNNER_ISO_AUTO
                                          ? runner_isolation_available()
                                          : c->mo.isolation;
            json_object_set_new(*verdict, "isolation", ep__text(runner_isolation_name(i)));
        }
        /* the compiles of candidate text (and of the baseline) run in the same sandbox
         * (measure_build_runner_spec) */
        json_object_set(*verdict, "compile_isolation", json_object_get(*verdict, "isolation"));
    }
    runner_pool_free(pool);
    measure_build_free(&bb);
    measure_build_free(&cb);
    measure_compile_clear(&bc);
    measure_compile_clear(&cc);
    measure_eval_clear(&e);
    measure_verdict_clear(&v);
    hk_free(cand_text);
    hk_free(spec_src);
    hk_free(cout);
    hk_free(sens_note);
    ep_result_clear(&res);
    ctx_free(c);
    return rc;
}
