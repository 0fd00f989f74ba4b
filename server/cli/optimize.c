/* `hkls optimize` and `hkls verify-candidate`: option parsing and the three ways of
 * showing an episode -- a live one-line display on a terminal, plain lines otherwise, or
 * line-delimited JSON events on stdout (--events, for the editor's server that spawns
 * this as a worker). Progress goes to stderr so stdout holds only results. */
#include "cli/cli_engine.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "compile/compile.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "core/log.h"
#include "episode/episode.h"
#include "measure/measure.h"
#include "runners/runner.h"
#include "spec/infer.h"
#include "store/store.h"

/* verify-candidate: EXIT_OK only for a credited candidate that is faster when interleaved
 * with the baseline; EXIT_NOT_FASTER for one that passed every check but is not (or whose
 * speedup is not credited: no physical floor). */
enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_NO_GPU = 3, EXIT_BASELINE = 4,
       EXIT_NOT_FASTER = 5, EXIT_STOPPED = 130 };

typedef struct {
    bool events;   /* JSON lines on stdout */
    bool tty;      /* live line on stderr */
    bool quiet;
    bool line_open;
    enum hk_lang lang; /* the person's: the episode's events come in English (ep_run) */
    int percent;   /* the latest percentage (events without one keep it) */
    /* where a run stopped by a signal was (said on stop, quiet or not): the seconds each
     * stage took ("baseline 41 s, evaluate 300 s") and the last message */
    struct timespec t0, t_stage;
    char stage[32];
    char stages[400];
    char last[240];
} ui;

static double ui_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Keeps the stage's time and the last message of ev for ui_where. */
static void ui_track(ui *u, const char *stage, const char *msg)
{
    if (!u->t0.tv_sec && !u->t0.tv_nsec) {
        clock_gettime(CLOCK_MONOTONIC, &u->t0);
        u->t_stage = u->t0;
    }
    if (stage && strcmp(stage, u->stage) != 0) {
        size_t n = strlen(u->stages);
        if (u->stage[0] && n + 48 < sizeof u->stages)
            snprintf(u->stages + n, sizeof u->stages - n, "%s%s %.0f s", n ? ", " : "",
                     u->stage, ui_since(&u->t_stage));
        snprintf(u->stage, sizeof u->stage, "%s", stage);
        clock_gettime(CLOCK_MONOTONIC, &u->t_stage);
    }
    if (msg)
        snprintf(u->last, sizeof u->last, "%s", msg);
}

/* "after 482 s, in evaluate (300 s so far; before it baseline 41 s): LAST" into buf. */
static void ui_where(const ui *u, char *buf, size_t n)
{
    if (!u->stage[0]) {
        snprintf(buf, n, "%s", hk_tr_in(u->lang, HK_MSG_OPTX_BEFORE_ANY_STAGE));
        return;
    }
    char *said = hk_tr_said(u->lang, u->last); /* an event's message: English */
    snprintf(buf, n, hk_tr_in(u->lang, HK_MSG_OPTX_WHERE), ui_since(&u->t0), u->stage,
             ui_since(&u->t_stage), u->stages[0] ? hk_tr_in(u->lang, HK_MSG_OPTX_BEFORE_IT) : "",
             u->stages, said ? said : u->last);
    hk_free(said);
    hk_utf8_trim(buf);
}

static void ui_clear_line(ui *u)
{
    if (u->line_open) {
        fputs("\r\033[K", stderr);
        u->line_open = false;
    }
}

static void on_event(const json_t *ev, void *data)
{
    ui *u = data;
    if (u->events) {
        char *s = json_dumps(ev, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (s) {
            fputs(s, stdout);
            fputc('\n', stdout);
            fflush(stdout);
            free(s);
        }
        return;
    }
    const char *kind = json_string_value(json_object_get(ev, "event"));
    const char *stage = json_string_value(json_object_get(ev, "stage"));
    const char *msg = json_string_value(json_object_get(ev, "message"));
    const char *level = json_string_value(json_object_get(ev, "level"));
    /* said in the person's language here (the event is English) */
    char *said = hk_tr_said(u->lang, msg);
    if (said)
        msg = said;
    ui_track(u, stage, msg);
    json_t *pj = json_object_get(ev, "percent");
    if (json_is_integer(pj))
        u->percent = (int)json_integer_value(pj);
    if (!kind || !msg || !strcmp(kind, "done"))
        goto out;
    bool loud = !strcmp(kind, "log") && level && strcmp(level, "info") != 0;
    if (u->quiet && !loud)
        goto out;
    if (u->tty && !loud) {
        /* one live line: stage, percent, the latest message */
        char line[200];
        snprintf(line, sizeof line, "%-8s %3d%%  %s", stage ? stage : "", u->percent, msg);
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(stderr, "\r\033[K%.*s", len, line);
        u->line_open = true;
        if (!strcmp(kind, "version")) { /* keep judged versions visible above the line */
            const char *st = json_string_value(json_object_get(ev, "status"));
            if (st && strcmp(st, "candidate") != 0) {
                fputc('\n', stderr);
                u->line_open = false;
            }
        }
        fflush(stderr);
        goto out;
    }
    ui_clear_line(u);
    if (loud) /* called inside the episode, which speaks English on this thread */
        fprintf(stderr, hk_tr_in(u->lang, !strcmp(level, "error") ? HK_MSG_CLI_LOG_ERROR
                                                                  : HK_MSG_CLI_LOG_WARNING),
                msg);
    else
        fprintf(stderr, "[%s] %s\n", stage ? stage : "", msg);
    fflush(stderr);
out:
    hk_free(said);
}

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* What a run that measured nothing built: each version with its registers (ptxas -v), one
 * table, then where the candidates' sources were kept. */
static void print_built(const json_t *s)
{
    const json_t *built = json_object_get(s, "built");
    if (!json_array_size(built))
        return;
    cli_table t;
    cli_table_init(&t, 4);
    const char *head[] = {"version", "registers", "spilled", "produced by"};
    cli_table_row(&t, head);
    /* in version order (the records are in build order) */
    json_int_t top = 0;
    size_t i;
    const json_t *v;
    json_array_foreach(built, i, v)
        if (json_integer_value(json_object_get(v, "version")) > top)
            top = json_integer_value(json_object_get(v, "version"));
    for (json_int_t want = 0; want <= top; want++) {
        const json_t *found = NULL;
        json_array_foreach(built, i, v)
            if (json_integer_value(json_object_get(v, "version")) == want)
                found = v;
        if (!found)
            continue;
        v = found;
        char ver[32], reg[32], spill[32], by[600];
        snprintf(ver, sizeof ver, "v%lld", (long long)json_integer_value(json_object_get(v, "version")));
        const json_t *rj = json_object_get(v, "registers"), *sj = json_object_get(v, "spill_stores");
        snprintf(reg, sizeof reg, "-");
        snprintf(spill, sizeof spill, "-");
        if (json_is_integer(rj))
            snprintf(reg, sizeof reg, "%lld", (long long)json_integer_value(rj));
        if (json_is_integer(sj))
            snprintf(spill, sizeof spill, "%lld B", (long long)json_integer_value(sj));
        const char *pb = json_string_value(json_object_get(v, "produced_by"));
        const json_t *same = json_object_get(v, "same_code_as");
        if (json_is_true(json_object_get(v, "rejected")))
            snprintf(by, sizeof by, hk_tr(HK_MSG_OPTX_REJECTED_BEFORE_RUN), pb ? pb : "-");
        else if (json_is_integer(same))
            snprintf(by, sizeof by, hk_tr(HK_MSG_OPTX_SAME_DEVICE_CODE),
                     pb ? pb : "-", (long long)json_integer_value(same));
        else
            snprintf(by, sizeof by, "%s", pb ? pb : "-");
        hk_utf8_trim(by);
        const char *row[] = {ver, reg, spill, by};
        cli_table_row(&t, row);
    }
    fputs(hk_tr(HK_MSG_CLI_BUILT), stdout);
    cli_table_print(&t, stdout, "    ");
    cli_table_free(&t);
    const char *dir = json_string_value(json_object_get(s, "candidates_dir"));
    if (dir)
        printf(hk_tr(HK_MSG_CLI_SOURCES), dir);
}

/* A GPU report recorded for this very source (bench/results/recorded.json, or its installed
 * copy), printed when this run could measure nothing. Silent when there is none. */
static void print_recorded(const json_t *s)
{
    const char *kernel = json_string_value(json_object_get(s, "kernel"));
    const char *hash = json_string_value(json_object_get(s, "source_hash"));
    char *dir = NULL, *index = NULL;
    json_t *root = NULL;
    if (!kernel || !hash || hk_data_dir("recorded", "bench/results", &dir) != HK_OK)
        goto out;
    if (!(index = hk_asprintf("%s/recorded.json", dir)))
        goto out;
    root = json_load_file(index, 0, NULL);
    size_t i, j;
    const json_t *rep, *h;
    json_array_foreach(json_object_get(root, "reports"), i, rep) {
        const char *k = json_string_value(json_object_get(rep, "kernel"));
        const char *html = json_string_value(json_object_get(rep, "report"));
        bool same = false;
        json_array_foreach(json_object_get(rep, "sources_sha256"), j, h)
            same = same || (json_is_string(h) && !strcmp(json_string_value(h), hash));
        if (!k || !html || strcmp(k, kernel) != 0 || !same)
            continue;
        const char *dev = json_string_value(json_object_get(rep, "device"));
        const char *res = json_string_value(json_object_get(rep, "result"));
        const char *notes = json_string_value(json_object_get(rep, "notes"));
        printf(hk_tr(HK_MSG_CLI_OPT_RECORDED),
               dev ? dev : "GPU", res ? ", " : "", res ? res : "", dir, html);
        if (notes)
            printf(hk_tr(HK_MSG_CLI_OPT_RECORDED_HOW), dir, notes);
        break;
    }
out:
    json_decref(root);
    hk_free(index);
    hk_free(dir);
}

static void print_summary(const ep_result *r)
{
    const json_t *s = json_object_get(r->summary, "summary");
    /* the status is the store's name for it, as --json and the history say it */
    printf(hk_tr(HK_MSG_CLI_EPISODE), (long long)r->episode_id,
           store_episode_status_name(r->status));
    if (r->error) { /* stored in English */
        char *said = hk_tr_said(hk_i18n_lang(), r->error);
        printf(hk_tr(HK_MSG_CLI_ERROR_SUFFIX), said ? said : r->error);
        hk_free(said);
    }
    printf("\n");
    if (json_is_object(s)) {
        printf(hk_tr(HK_MSG_CLI_KERNEL_LINE), json_string_value(json_object_get(s, "kernel")),
               json_string_value(json_object_get(s, "arch")),
               json_is_string(json_object_get(s, "device"))
                   ? json_string_value(json_object_get(s, "device"))
                   : hk_tr(HK_MSG_CLI_NO_GPU));
        printf(hk_tr(HK_MSG_CLI_CANDIDATES),
               (long long)json_integer_value(json_object_get(s, "candidates")),
               (long long)json_integer_value(json_object_get(s, "accepted")),
               (long long)json_integer_value(json_object_get(s, "rejected")),
               (long long)json_integer_value(json_object_get(s, "not_measured")));
        if (json_integer_value(json_object_get(s, "not_credited")) > 0)
            printf(hk_tr(HK_MSG_CLI_NOT_CREDITED_COUNT),
                   (long long)json_integer_value(json_object_get(s, "not_credited")));
        if (json_integer_value(json_object_get(s, "behind")) > 0)
            printf(hk_tr(HK_MSG_CLI_BEHIND_COUNT),
                   (long long)json_integer_value(json_object_get(s, "behind")));
        printf("\n");
        bool sim = json_is_true(json_object_get(s, "simulated"));
        if (sim)
            fputs(hk_tr(HK_MSG_CLI_SIMULATED), stdout);
        double sp = num(s, "speedup");
        if (isfinite(sp)) {
            printf(hk_tr(HK_MSG_CLI_BEST),
                   (long long)json_integer_value(json_object_get(s, "best_version")),
                   num(s, "best_ms"), num(s, "verify_baseline_ms"), sp,
                   sim ? hk_tr(HK_MSG_SIMULATED_WORD) : "", num(s, "speedup_p10"),
                   num(s, "speedup_p90"));
            double roof = num(s, "roofline_pct"), rel = num(s, "max_rel_err");
            if (isfinite(roof))
                printf(hk_tr(HK_MSG_CLI_ROOFLINE), roof);
            if (isfinite(rel)) {
                fputs(isfinite(roof) ? hk_tr(HK_MSG_CLI_COMMA) : "  ", stdout);
                printf(hk_tr(HK_MSG_CLI_MAX_REL_ERR), rel);
            }
            printf(hk_tr(HK_MSG_CLI_PRODUCED_BY),
                   json_string_value(json_object_get(s, "produced_by")));
        } else if (isfinite(num(s, "baseline_ms"))) {
            printf(hk_tr(HK_MSG_CLI_NO_FASTER), num(s, "baseline_ms"));
        }
        const json_t *nc = json_object_get(s, "not_credited_best");
        if (json_is_object(nc)) {
            /* why: the engine's, stored in English (docs/i18n.md) */
            const char *why = json_string_value(json_object_get(nc, "why"));
            char *why_said = hk_tr_said(hk_i18n_lang(), why);
            const char *by = json_string_value(json_object_get(nc, "by"));
            bool one = json_integer_value(json_object_get(s, "not_credited")) == 1;
            bool safety = by && !strcmp(by, "memory_safety");
            printf(hk_tr(safety ? (one ? HK_MSG_CLI_OPT_NOT_CREDITED_SAFETY_ONE
                                       : HK_MSG_CLI_OPT_NOT_CREDITED_SAFETY)
                                : (one ? HK_MSG_CLI_OPT_NOT_CREDITED_ONE
                                       : HK_MSG_CLI_OPT_NOT_CREDITED)),
                   (long long)json_integer_value(json_object_get(s, "not_credited")),
                   (long long)json_integer_value(json_object_get(nc, "version")),
                   num(nc, "speedup"), why_said ? why_said : why ? why : "?");
            hk_free(why_said);
        }
    }
    if (json_is_object(s) && !isfinite(num(s, "baseline_ms")))
        print_built(s);
    if (r->report_html)
        printf(hk_tr(HK_MSG_CLI_REPORT), r->report_html);
    if (json_is_object(s) && r->no_gpu)
        print_recorded(s);
}

static void optimize_usage(FILE *f)
{
    fputs(hk_tr(HK_MSG_CLI_OPT_USAGE), f);
}

/* --simulate-gpu (CI only: issue 4 allows a simulated GPU there and nowhere else): every
 * benchmark program runs through the deterministic simulator of the tests
 * (tests/data/episode/fake_harness.c; it answers for specs shaped like
 * tests/data/episode/tiny.bench.json) on a fixed pretend device. The simulator is
 * $HK_GPU_SIMULATOR, or built once from this source tree into
 * $TMPDIR/hk-gpu-sim-<uid>-<hash of the source tree's path>/sim
 * (rebuilt when the source is newer; renamed into place, so concurrent workers agree). */
static int sim_prepare(char *bin, size_t n)
{
    const char *env = getenv("HK_GPU_SIMULATOR");
    if (env && *env) {
        snprintf(bin, n, "%s", env);
        return access(bin, X_OK) == 0 ? HK_OK : HK_ENOENT;
    }
    const char *src = HK_SOURCE_DIR "/tests/data/episode/fake_harness.c";
    struct stat ss, bs;
    if (stat(src, &ss) != 0)
        return HK_ENOENT;
    const char *tmp = getenv("TMPDIR");
    char dir[512], part[600];
    /* one simulator per source tree: two checkouts' tests must not replace each other's */
    unsigned long h = 5381;
    for (const char *p = HK_SOURCE_DIR; *p; p++)
        h = h * 33 + (unsigned char)*p;
    snprintf(dir, sizeof dir, "%s/hk-gpu-sim-%d-%08lx", tmp && *tmp ? tmp : "/tmp", (int)getuid(),
             h & 0xffffffffUL);
    (void)mkdir(dir, 0700);
    snprintf(bin, n, "%s/sim", dir);
    if (stat(bin, &bs) == 0 && bs.st_mtime >= ss.st_mtime)
        return HK_OK;
    snprintf(part, sizeof part, "%s/sim.%d", dir, (int)getpid());
    const char *argv[] = {"cc", "-O1", "-o", part, src, "-lm", NULL};
    runner_spec rs = {.argv = argv, .timeout_ms = 60000, .isolation = RUNNER_ISO_NONE};
    runner_result r;
    int rc = runner_run(&rs, &r);
    if (rc == HK_OK && r.exit_code != 0)
        rc = HK_ECHILD;
    if (rc)
        fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_SIM_BUILD),
                hk_strerror_tr(rc), r.err ? r.err : "");
    runner_result_free(&r);
    if (rc) {
        unlink(part);
        return rc;
    }
    return rename(part, bin) == 0 ? HK_OK : HK_EIO;
}

static void sim_device(device_info *d)
{
    memset(d, 0, sizeof *d);
    d->probe_version = DEVICE_PROBE_VERSION;
    snprintf(d->name, sizeof d->name, "%s", STORE_SIMULATED_DEVICE);
    snprintf(d->uuid, sizeof d->uuid, "GPU-00000000-0000-0000-0000-000000000000");
    snprintf(d->arch, sizeof d->arch, "sm_90");
    d->cc_major = 9;
    d->sm_count = 132;
    d->copy_kernel_gbs = 3000;
    d->memcpy_d2d_gbs = 2900;
    d->fp32_tflops = 60;
    d->tensor_bf16_tflops = -1;
}

/* --simulate-gpu of command cmd: the simulator's path into bin and its pretend device into
 * dev; says why on stderr when there is none. HK_OK or sim_prepare's error. */
static int sim_setup(const char *cmd, char *bin, size_t n, device_info *dev)
{
    int rc = sim_prepare(bin, n);
    if (rc) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_NO_SIM), cmd);
        return rc;
    }
    sim_device(dev);
    return HK_OK;
}

/* "  - ITEM" on stderr, an English note said in the person's language. */
static void say_item(const ui *u, const char *item)
{
    char *said = hk_tr_note(u->lang, item);
    fprintf(stderr, "  - %s\n", said ? said : item);
    hk_free(said);
}

/* No spec next to FILE: infer one, save it where discovery finds it, and say what was
 * guessed. EXIT_OK with *out (new) when it can run; EXIT_USAGE when it cannot: inference
 * failed, or the saved draft has doubts (the reasons and its path are printed, and sent as
 * a "spec" event for the editor, which opens the draft). */
static int infer_spec(ui *u, const char *file, const char *kernel, char **out)
{
    *out = NULL;
    char err[1024] = "";
    spec_inference inf = {0}; /* freed on every path, also when spec_infer never ran */
    char *path = spec_default_path(file, kernel);
    /* with --events the notes and reasons are sent, so inferred in English (docs/i18n.md)
     * and said in the person's language on stderr (hk_tr_said) */
    int was = u->events ? hk_i18n_thread_lang(HK_LANG_EN) : -1;
    int rc = path ? spec_infer(file, kernel, path, &inf, err, sizeof err) : HK_ENOMEM;
    if (u->events)
        hk_i18n_thread_lang(was);
    json_t *ev = json_pack("{s:s, s:s, s:s}", "event", "spec", "kernel", kernel, "path", path ? path : "");
    json_t *notes = json_array(), *doubts = json_array();
    int code = EXIT_USAGE;
    if (rc != HK_OK) {
        char *said = hk_tr_said(u->lang, err);
        fprintf(stderr, hk_tr(HK_MSG_OPT_SPEC_NONE),
                kernel, file, said ? said : err[0] ? err : hk_strerror_tr(rc));
        hk_free(said);
        json_array_append_new(doubts, json_string(err[0] ? err : hk_strerror(rc)));
        json_object_set_new(ev, "status", json_string("refused"));
        json_object_set_new(ev, "path", json_null());
        goto out;
    }
    if ((rc = spec_infer_save(&inf, path, false)) != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_OPT_SPEC_SAVE_FAILED), path,
                rc == HK_EIO ? strerror(errno) : hk_strerror_tr(rc));
        json_array_append_new(doubts, json_string(hk_tr_in(HK_LANG_EN, HK_MSG_OPTX_CANNOT_SAVE_SPEC)));
        json_object_set_new(ev, "status", json_string("refused"));
        goto out;
    }
    for (size_t i = 0; i < inf.n_notes; i++)
        json_array_append_new(notes, json_string(inf.notes[i]));
    for (size_t i = 0; i < inf.n_doubts; i++)
        json_array_append_new(doubts, json_string(inf.doubts[i]));
    if (inf.n_doubts) {
        fprintf(stderr, hk_tr(HK_MSG_OPT_SPEC_DRAFT), kernel);
        for (size_t i = 0; i < inf.n_doubts; i++)
            say_item(u, inf.doubts[i]);
        fprintf(stderr, hk_tr(HK_MSG_OPT_SPEC_DRAFT_SAVED), path, file);
        json_object_set_new(ev, "status", json_string("draft"));
        json_object_set_new(ev, "message",
                            json_string(hk_tr_in(HK_LANG_EN, HK_MSG_OPTX_SPEC_NEEDS_CHECKING)));
    } else {
        if (!u->quiet) {
            fprintf(stderr, hk_tr(HK_MSG_OPT_SPEC_INFERRED),
                    kernel, path);
            for (size_t i = 0; i < inf.n_notes; i++)
                say_item(u, inf.notes[i]);
        }
        json_object_set_new(ev, "status", json_string("inferred"));
        json_object_set_new(ev, "message", json_string(hk_tr_in(HK_LANG_EN, HK_MSG_OPTX_SPEC_SAVED)));
        *out = path;
        path = NULL;
        code = EXIT_OK;
    }
out:
    json_object_set_new(ev, "notes", notes);
    json_object_set_new(ev, "reasons", doubts);
    if (u->events && ev)
        on_event(ev, u);
    json_decref(ev);
    spec_inference_free(&inf);
    hk_free(path);
    return code;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* The file to optimize, before its spec is looked for: a missing file is reported as
 * missing (not as a missing spec next to it), and a binary one is refused before any
 * compiler sees it. False with the reason on stderr. */
static bool source_usable(const char *cmd, const char *path)
{
    bool is_text = false;
    const char *why = "";
    size_t at = 0;
    int rc = cc_source_file_is_text(path, &is_text, &why, &at);
    if (rc == HK_ENOENT)
        fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_NO_FILE), cmd, path);
    else if (rc == HK_EINVAL)
        fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_IS_DIR), cmd, path);
    else if (rc == HK_EIO)
        fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_CANNOT_READ), cmd, path, strerror(errno));
    else if (rc)
        fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_CANNOT_READ), cmd, path, hk_strerror_tr(rc));
    else if (!is_text)
        fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_NOT_TEXT), cmd, path, why,
                at);
    return rc == HK_OK && is_text;
}

static int no_gpu_env(void)
{
    const char *e = getenv("HK_NO_GPU");
    return e && *e && strcmp(e, "0") != 0 ? EP_GPU_NONE : EP_GPU_DETECT;
}

int cli_optimize(int argc, char **argv)
{
    enum { O_TARGET = 256, O_ENGINE, O_BUDGET, O_MINUTES, O_SEED, O_NAME, O_FROM_ORIGINAL,
           O_DB, O_OUT, O_JSON, O_EVENTS, O_JOBS, O_WORK, O_KEEP, O_QUIET, O_CHECK, O_SIM,
           O_NO_FLOOR, O_UNTRUSTED, O_LANG };
    static const struct option opts[] = {
        {"kernel", required_argument, NULL, 'k'},
        {"spec", required_argument, NULL, 's'},
        {"target", required_argument, NULL, O_TARGET},
        {"engine", required_argument, NULL, O_ENGINE},
        {"budget", required_argument, NULL, O_BUDGET},
        {"minutes", required_argument, NULL, O_MINUTES},
        {"seed", required_argument, NULL, O_SEED},
        {"name", required_argument, NULL, O_NAME},
        {"from-original", no_argument, NULL, O_FROM_ORIGINAL},
        {"db", required_argument, NULL, O_DB},
        {"out", required_argument, NULL, O_OUT},
        {"json", no_argument, NULL, O_JSON},
        {"events", no_argument, NULL, O_EVENTS},
        {"jobs", required_argument, NULL, O_JOBS},
        {"work-dir", required_argument, NULL, O_WORK},
        {"keep-work", no_argument, NULL, O_KEEP},
        {"quiet", no_argument, NULL, O_QUIET},
        {"check", required_argument, NULL, O_CHECK},
        {"simulate-gpu", no_argument, NULL, O_SIM},
        {"allow-no-floor", no_argument, NULL, O_NO_FLOOR},
        {"untrusted", no_argument, NULL, O_UNTRUSTED},
        {"lang", required_argument, NULL, O_LANG},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static char sim_bin[700];
    static const char *sim_wrapper[] = {sim_bin, NULL};
    static device_info sim_dev;
    ep_options o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    o.gpu = no_gpu_env();
    o.measure.quick_check = true; /* the search's checks; the accuracy stage runs the full set */
    bool json = false;
    ui u = {0};
    char *db = NULL;
    long v;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "k:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'k': o.kernel = optarg; break;
        case 's': o.spec_path = optarg; break;
        case O_TARGET: o.target = optarg; break;
        case O_ENGINE: o.engine = optarg; break;
        case O_BUDGET:
            if (!parse_long(optarg, 1, 100000, &v))
                goto bad_value;
            o.budget = v;
            break;
        case O_MINUTES: {
            char *end = NULL;
            o.minutes = strtod(optarg, &end);
            if (!*optarg || *end || !(o.minutes > 0) || o.minutes > 24 * 60)
                goto bad_value;
            break;
        }
        case O_SEED:
            if (!parse_long(optarg, 0, 0x7fffffffL, &v))
                goto bad_value;
            o.seed = (uint64_t)v;
            break;
        case O_NAME: o.name = optarg; break;
        case O_FROM_ORIGINAL: o.from_original = true; break;
        case O_UNTRUSTED: o.untrusted = true; break;
        case O_LANG:
            if (strcmp(optarg, "en") && strcmp(optarg, "zh-CN"))
                goto bad_value;
            hk_i18n_set(hk_i18n_parse(optarg));
            break;
        case O_DB: o.db_path = optarg; break;
        case O_OUT: o.out_dir = optarg; break;
        case O_JSON: json = true; break;
        case O_EVENTS: u.events = true; break;
        case O_JOBS:
            if (!parse_long(optarg, 1, 1024, &v))
                goto bad_value;
            o.jobs = (unsigned)v;
            break;
        case O_WORK: o.work_dir = optarg; break;
        case O_KEEP: o.keep_work = true; break;
        case O_QUIET: u.quiet = true; break;
        case O_CHECK:
            if (strcmp(optarg, "full") && strcmp(optarg, "quick"))
                goto bad_value;
            o.measure.quick_check = !strcmp(optarg, "quick");
            break;
        case O_SIM:
            if (sim_setup("optimize", sim_bin, sizeof sim_bin, &sim_dev))
                return EXIT_USAGE;
            o.gpu = EP_GPU_SIMULATED;
            o.sim_device = &sim_dev;
            o.measure.wrapper = sim_wrapper;
            break;
        case O_NO_FLOOR: o.measure.allow_no_floor = true; break;
        case 'h': optimize_usage(stdout); return EXIT_OK;
        default:
            fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_UNKNOWN_OPTION),
                    argv[optind - 1]);
            optimize_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind + 1 != argc || !o.kernel) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_OPT_NEED_FILE));
        optimize_usage(stderr);
        return EXIT_USAGE;
    }
    o.file = argv[optind];
    u.lang = hk_i18n_lang(); /* --lang has been read */
    if (!source_usable("optimize", o.file))
        return EXIT_USAGE;
    char *spec_found = NULL;
    if (!o.spec_path) {
        hk_alloc_init_json();
        spec_found = spec_find(o.file, o.kernel);
        if (!spec_found) {
            int code = infer_spec(&u, o.file, o.kernel, &spec_found);
            if (code != EXIT_OK)
                return code;
        }
        o.spec_path = spec_found;
    }
    if (!o.db_path) {
        if (ep_default_db_path(&db)) {
            fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_OPT_NO_DB_PATH));
            hk_free(spec_found);
            return EXIT_USAGE;
        }
        o.db_path = db;
    }
    hk_alloc_init_json();
    u.tty = !u.events && isatty(2);
    o.stop = ep_stop_on_signals();
    o.measure.stop = o.stop;
    o.on_event = on_event;
    o.event_data = &u;
    ep_result r;
    int rc = ep_run(&o, &r);
    ui_clear_line(&u);
    int code;
    if (rc)
        code = rc == HK_EDB || rc == HK_ENOMEM || rc == HK_EIO ? EXIT_FAILED : EXIT_USAGE;
    else if (r.status == STORE_EP_COMPLETED)
        code = EXIT_OK;
    else if (r.status == STORE_EP_STOPPED)
        code = EXIT_STOPPED;
    else
        code = r.no_gpu ? EXIT_NO_GPU : EXIT_FAILED;
    /* an early failure's reason was already printed as an error event */
    if (!u.events) {
        if (json && r.summary) {
            char *s = json_dumps(r.summary, JSON_INDENT(2) | JSON_ENSURE_ASCII);
            if (s)
                printf("%s\n", s);
            free(s);
        } else if (!rc) {
            print_summary(&r);
        }
    }
    fflush(stdout);
    ep_result_clear(&r);
    hk_free(db);
    hk_free(spec_found);
    return code;
bad_value:
    fprintf(stderr, hk_tr(HK_MSG_CLI_OPT_BAD_VALUE), optarg ? optarg : "");
    return EXIT_USAGE;
}

static void verify_usage(FILE *f)
{
    fprintf(f, "%s", hk_tr(HK_MSG_CLI_VC_USAGE));
}

/* The verdict in words: the interleaved speedup line first when there is one, then what
 * it means (one line, and the reason's details indented). */
static void print_verdict(const json_t *v, const char *what, const char *reason,
                          const char *details)
{
    const json_t *il = json_object_get(v, "interleaved");
    if (json_is_object(il))
        printf(hk_tr(HK_MSG_VC_INTERLEAVED), num(il, "baseline_ms"), num(il, "candidate_ms"), num(il, "speedup"),
               num(il, "p10"), num(il, "p90"),
               (long long)json_integer_value(json_object_get(il, "pairs")));
    bool flagged = json_is_true(json_object_get(v, "flagged"));
    if (!strcmp(what, "faster")) {
        printf(hk_tr(HK_MSG_VC_FASTER), num(il, "speedup"), num(v, "median_ms"),
               num(v, "speedup"), flagged ? hk_tr(HK_MSG_VC_FLAGGED) : "");
    } else if (!strcmp(what, "not_faster")) {
        printf(hk_tr(HK_MSG_VC_NOT_FASTER), num(il, "speedup"), num(il, "p10"),
               MEASURE_NOISE_SPEEDUP);
    } else if (!strcmp(what, "not_credited")) {
        const char *note = json_string_value(json_object_get(v, "credit_note"));
        printf(hk_tr(HK_MSG_VC_NOT_CREDITED), num(il, "speedup"));
        if (note)
            printf("  %s\n", note);
    } else {
        /* the details are English, as the verdict's JSON says them */
        char *said = hk_tr_said(hk_i18n_lang(), details);
        if (!strcmp(what, "not_measured"))
            printf("%s\n", hk_tr(HK_MSG_VC_NOT_MEASURED));
        else
            printf(hk_tr(HK_MSG_VC_REJECTED), reason ? reason : "?");
        if (details)
            printf("  %s\n", said ? said : details);
        hk_free(said);
    }
}

int cli_verify_candidate(int argc, char **argv)
{
    enum { O_CAND = 256, O_TARGET, O_JSON, O_KEEP, O_WORK, O_CHECK, O_PAIRS, O_NO_FLOOR,
           O_SIM, O_SANITIZE };
    static const struct option opts[] = {
        {"spec", required_argument, NULL, 's'},
        {"candidate", required_argument, NULL, O_CAND},
        {"target", required_argument, NULL, O_TARGET},
        {"json", no_argument, NULL, O_JSON},
        {"keep-work", no_argument, NULL, O_KEEP},
        {"work-dir", required_argument, NULL, O_WORK},
        {"check", required_argument, NULL, O_CHECK},
        {"pairs", required_argument, NULL, O_PAIRS},
        {"allow-no-floor", no_argument, NULL, O_NO_FLOOR},
        {"simulate-gpu", no_argument, NULL, O_SIM},
        {"sanitize", no_argument, NULL, O_SANITIZE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static char sim_bin[700];
    static const char *sim_wrapper[] = {sim_bin, NULL};
    static device_info sim_dev;
    long v;
    ep_verify_options o;
    memset(&o, 0, sizeof o);
    o.gpu = no_gpu_env();
    bool json = false;
    ui u = {0};
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
        switch (c) {
        case 's': o.spec_path = optarg; break;
        case O_CAND: o.candidate = optarg; break;
        case O_TARGET: o.target = optarg; break;
        case O_JSON: json = true; break;
        case O_KEEP: o.keep_work = true; break;
        case O_WORK: o.work_dir = optarg; break;
        case O_CHECK:
            if (strcmp(optarg, "full") && strcmp(optarg, "quick")) {
                verify_usage(stderr);
                return EXIT_USAGE;
            }
            o.measure.quick_check = !strcmp(optarg, "quick");
            break;
        case O_PAIRS:
            if (!parse_long(optarg, 1, MEASURE_MAX_PAIRS, &v)) {
                fprintf(stderr, hk_tr(HK_MSG_CLI_VC_PAIRS),
                        MEASURE_MAX_PAIRS);
                return EXIT_USAGE;
            }
            o.pairs = (int)v;
            break;
        case O_NO_FLOOR: o.measure.allow_no_floor = true; break;
        case O_SIM:
            if (sim_setup("verify-candidate", sim_bin, sizeof sim_bin, &sim_dev))
                return EXIT_USAGE;
            o.gpu = EP_GPU_SIMULATED;
            o.sim_device = &sim_dev;
            o.measure.wrapper = sim_wrapper;
            break;
        case O_SANITIZE: o.sanitize = true; break;
        case 'h': verify_usage(stdout); return EXIT_OK;
        default:
            fprintf(stderr, hk_tr(HK_MSG_CLI_VC_UNKNOWN_OPTION),
                    argv[optind - 1]);
            verify_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc || !o.spec_path || !o.candidate) {
        verify_usage(stderr);
        return EXIT_USAGE;
    }
    hk_alloc_init_json();
    u.lang = hk_i18n_lang();
    u.tty = false;
    u.quiet = json;
    o.stop = ep_stop_on_signals();
    o.measure.stop = o.stop;
    o.on_event = on_event;
    o.event_data = &u;
    json_t *verdict = NULL;
    int rc = ep_verify_candidate(&o, &verdict);
    if (rc == HK_ECANCELED) {
        /* a run cut by a time limit says where its time went (tests/gpu/run.sh keeps it) */
        char where[900];
        ui_where(&u, where, sizeof where);
        fprintf(stderr, hk_tr(HK_MSG_CLI_VC_STOPPED), where);
        return EXIT_STOPPED;
    }
    if (rc) {
        fprintf(stderr, "hkls verify-candidate: %s\n",
                rc == HK_ECHILD || rc == HK_ENOGPU ? hk_tr(HK_MSG_OPTX_BASELINE_FAILED)
                                                   : hk_strerror_tr(rc));
        json_decref(verdict);
        return rc == HK_ECHILD || rc == HK_ENOGPU ? EXIT_BASELINE
               : rc == HK_ENOMEM || rc == HK_EIO  ? EXIT_FAILED
                                                  : EXIT_USAGE;
    }
    const char *what = json_string_value(json_object_get(verdict, "verdict"));
    const char *reason = json_string_value(json_object_get(verdict, "reason"));
    const char *details = json_string_value(json_object_get(verdict, "details"));
    what = what ? what : "rejected";
    int code = !strcmp(what, "faster")                                      ? EXIT_OK
               : !strcmp(what, "not_faster") || !strcmp(what, "not_credited") ? EXIT_NOT_FASTER
               : !strcmp(what, "not_measured")                              ? EXIT_NO_GPU
                                                                            : EXIT_FAILED;
    if (json) {
        json_object_set_new(verdict, "exit", json_integer(code));
        char *s = json_dumps(verdict, JSON_INDENT(2) | JSON_ENSURE_ASCII);
        if (s)
            printf("%s\n", s);
        free(s);
    } else {
        print_verdict(verdict, what, reason, details);
        const char *safety = json_string_value(json_object_get(verdict, "memory_safety"));
        if (safety && json_is_true(json_object_get(verdict, "accepted"))) {
            /* the note names itself ("memory safety: ..."), stored in English */
            char *said = hk_tr_said(hk_i18n_lang(), safety);
            printf("%s\n", said ? said : safety);
            hk_free(said);
        }
    }
    json_decref(verdict);
    return code;
}
