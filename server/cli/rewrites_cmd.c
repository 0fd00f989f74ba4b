/* `hkls rewrites`: what the built-in engine sees in one kernel, without a GPU or a compile:
 * the class the kernel model recognises (server/model/kclass.h, with its near miss), then
 * every rewrite of the registry (server/rewrites/registry.h) at its default parameters,
 * with whether it applies and, when it does not, the construct and line that stop it. The
 * same applicability the episode reports for the skills that fit (episode.c
 * note_skills_tried), asked of every rewrite: "why was my kernel never transformed?" has
 * an answer before any GPU time is spent. With --emit NAME it prints the whole source as
 * that rewrite leaves it instead (the text a candidate is built from), to read, compile or
 * run in the block emulator. */
#include "cli/cli.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kclass.h"
#include "model/kmodel.h"
#include "rewrites/registry.h"
#include "search/search.h"
#include "search/skillplan.h"
#include "skills/skills.h"
#include "spec/spec.h"

#include <math.h>
#include <stdlib.h>

/* stored in English (the --json output, read by scripts); said where shown */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
    fputs(hk_tr(HK_MSG_CLI_RW_USAGE), f);
}


/* "algorithm", "search axis", "hint", "library call" or "structural". */
static const char *kind_name(unsigned flags)
{
    if (flags & RW_LIBRARY_CALL)
        return "library call";
    if (flags & RW_ALGORITHM)
        return "algorithm";
    if (flags & RW_SEARCH_AXIS)
        return "search axis";
    if (flags & RW_HINT)
        return "hint";
    return "structural";
}

/* One rewrite's verdict on ctx's kernel as a JSON object; NULL on ENOMEM. */
static json_t *verdict(const rw_descriptor *d, const rw_context *ctx)
{
    rw_refusal why;
    memset(&why, 0, sizeof why);
    int rc = rw_applies(d, ctx, NULL, &why);
    if (rc == HK_ENOMEM)
        return NULL;
    bool applies = rc == HK_OK && !why.reason[0];
    json_t *o = json_pack("{s:s, s:s, s:b}", "name", d->name, "kind", kind_name(d->flags),
                          "applies", applies);
    /* an algorithm that gains only under a divided grid (stencil_window) or a launch of its
     * own (split_k_columns), or a rewrite exact only under a multiplied grid
     * (split_topk_scan), says which: the grid the search launches it with */
    if (o && applies && ((d->flags & RW_ALGORITHM) || d->launch)) {
        rw_result r;
        if (rw_apply(d, ctx, NULL, &r, NULL) == HK_OK && r.applicable && r.grid_divisor > 1)
            json_object_set_new(o, "grid", json_sprintf(EN(RW_CLI_GRID_DIV),
                                                        r.grid_divisor, "xyz"[r.grid_axis % 3]));
        else if (r.applicable && r.grid_multiplier > 1)
            json_object_set_new(o, "grid", json_sprintf(EN(RW_CLI_GRID_MUL),
                                                        r.grid_multiplier, "xyz"[r.grid_axis % 3]));
        else if (r.applicable && d->launch && (d->flags & RW_ALGORITHM))   /* a launch of its own, said by its descriptor */
            json_object_set_new(o, "grid", json_string(d->launch));
        rw_result_free(&r);
    }
    if (o && !applies) {
        if (rc == HK_EINVAL && !why.reason[0]) /* set_tunable: no default to ask with */
            snprintf(why.reason, sizeof why.reason, "%s", EN(RW_CLI_NO_DEFAULTS));
        else if (rc != HK_OK && !why.reason[0])
            snprintf(why.reason, sizeof why.reason, "%s", hk_strerror(rc));
        json_object_set_new(o, "construct", json_string(why.construct));
        json_object_set_new(o, "line", json_integer(why.line));
        json_object_set_new(o, "reason", json_string(why.reason));
    }
    return o;
}

/* The model's class of kernel into *cls ("" / why when the model cannot be built). */
static void classify(const char *text, size_t len, const char *kernel, json_t *out)
{
    km_kernel *km = NULL;
    char why[256] = "";
    if (km_build(text, len, kernel, &km, why, sizeof why) != HK_OK) {
        json_object_set_new(out, "class", json_string("none"));
        json_object_set_new(out, "near", json_sprintf(EN(RW_CLI_NO_MODEL), why));
        km_free(km);
        return;
    }
    km_class c;
    struct hk_buf b;
    hk_buf_init(&b, 4096);
    if (km_classify(km, &c) == HK_OK) {
        json_object_set_new(out, "class", json_string(km_class_name(c.kind)));
        if (km_class_print(km, &c, &b) == HK_OK && b.data)
            json_object_set_new(out, "summary", json_string(b.data));
        if (c.why[0])
            json_object_set_new(out, "near", json_sprintf(EN(RW_CLI_NEAR),
                                                          km_class_name(c.near), c.why_line,
                                                          c.why));
    }
    hk_buf_free(&b);
    km_free(km);
}

static void print_human(const json_t *o, FILE *f)
{
    fprintf(f, hk_tr(HK_MSG_RW_CLI_KERNEL_CLASS), json_string_value(json_object_get(o, "kernel")),
            json_string_value(json_object_get(o, "class")));
    const char *sum = json_string_value(json_object_get(o, "summary"));
    const char *near = json_string_value(json_object_get(o, "near"));
    /* the summary's near miss (after " | ") and the closest class are stored in English
     * (the JSON's), said in the user's language; the summary's head is names and numbers */
    if (sum) {
        const char *bar = strstr(sum, " | ");
        char *said = bar ? hk_tr_said(hk_i18n_lang(), bar + 3) : NULL;
        if (said)
            fprintf(f, "  %.*s | %s\n", (int)(bar - sum), sum, said);
        else
            fprintf(f, "  %s\n", sum);
        hk_free(said);
    }
    if (near && !sum) {
        char *said = hk_tr_said(hk_i18n_lang(), near);
        fprintf(f, hk_tr(HK_MSG_RW_CLI_CLOSEST), said ? said : near);
        hk_free(said);
    }
    cli_table t;
    cli_table_init(&t, 4);
    const char *head[4] = {hk_tr(HK_MSG_RW_CLI_HEAD_REWRITE), hk_tr(HK_MSG_RW_CLI_HEAD_KIND),
                           hk_tr(HK_MSG_RW_CLI_HEAD_APPLIES), hk_tr(HK_MSG_RW_CLI_HEAD_STOPS)};
    (void)cli_table_row(&t, head);
    json_t *rws = json_object_get(o, "rewrites");
    size_t i;
    json_t *r;
    json_array_foreach(rws, i, r) {
        bool ok = json_is_true(json_object_get(r, "applies"));
        /* a refusal's reason starts with its construct and line ("bounds check at
         * line 5: ..."); one without them gets its line here */
        char stop[900] = "";
        if (!ok) {
            long long line = json_integer_value(json_object_get(r, "line"));
            const char *reason = json_string_value(json_object_get(r, "reason"));
            /* stored in English (the JSON's), said in the user's language */
            char *said = hk_tr_said(hk_i18n_lang(), reason);
            if (line > 0 && reason && !strstr(reason, "line "))
                snprintf(stop, sizeof stop, hk_tr(HK_MSG_RW_CLI_STOP_LINE), line,
                         said ? said : reason);
            else
                snprintf(stop, sizeof stop, "%s", said ? said : reason ? reason : "");
            hk_free(said);
            hk_utf8_trim(stop);
        }
        const char *grid = json_string_value(json_object_get(r, "grid"));
        if (ok && grid) {
            char *said = hk_tr_said(hk_i18n_lang(), grid);
            snprintf(stop, sizeof stop, hk_tr(HK_MSG_RW_CLI_LAUNCHED_WITH), said ? said : grid);
            hk_free(said);
            hk_utf8_trim(stop);
        }
        const char *cells[4] = {json_string_value(json_object_get(r, "name")),
                                json_string_value(json_object_get(r, "kind")),
                                hk_tr(ok ? HK_MSG_REP_YES : HK_MSG_REP_NO),
                                stop};
        (void)cli_table_row(&t, cells);
    }
    cli_table_print(&t, f, "  ");
    cli_table_free(&t);
}

/* The parameters of --param that are part `part` (0-based) of the stack, rewrite d: NAME=V
 * for the first part, REWRITE.NAME=V for the part of that rewrite; each consumed one marked
 * in used. EXIT_OK, or EXIT_USAGE with the reason on stderr. */
static int part_params(const rw_descriptor *d, size_t part, const char *const *params, size_t n_params,
                       bool *used, int *pv)
{
    for (size_t i = 0; i < n_params; i++) {
        const char *p = params[i], *eq = strchr(p, '='), *dot = strchr(p, '.');
        if (dot && eq && dot < eq) {
            if ((size_t)(dot - p) != strlen(d->name) || strncmp(p, d->name, (size_t)(dot - p)))
                continue;
            p = dot + 1;
        } else if (part != 0) {
            continue;
        }
        int slot = -1;
        char pname[64];
        if (eq && (size_t)(eq - p) < sizeof pname) {
            snprintf(pname, sizeof pname, "%.*s", (int)(eq - p), p);
            slot = rw_param_index(d, pname);
        }
        char *end = NULL;
        long v = eq ? strtol(eq + 1, &end, 10) : 0;
        if (slot < 0 || slot >= RW_MAX_PARAMS || !end || *end || end == eq + 1) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_RW_PARAM), params[i],
                    d->name);
            return EXIT_USAGE;
        }
        pv[slot] = (int)v;
        used[i] = true;
    }
    return EXIT_OK;
}

/* --emit: prints the source as rewrite name leaves ctx's kernel. "A+B" applies B to A's
 * output, analysed again, as the search stacks a second rewrite on a leader (search.c
 * stack_on). EXIT_OK, EXIT_FAILED (a part does not apply: the reason on stderr), EXIT_USAGE. */
#define EMIT_MAX_PARTS 4
static int emit(const char *name, const rw_context *ctx, const char *const *params, size_t n_params)
{
    char parts[EMIT_MAX_PARTS][64];
    size_t n_parts = 0;
    bool ok = name[0] != '\0';
    for (const char *p = name; ok && *p;) {
        size_t l = strcspn(p, "+");
        ok = l > 0 && l < sizeof parts[0] && n_parts < EMIT_MAX_PARTS;
        if (ok)
            snprintf(parts[n_parts++], sizeof parts[0], "%.*s", (int)l, p);
        p += l;
        if (*p == '+')
            ok = ok && *++p;   /* no trailing '+' */
    }
    if (!ok) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_RW_EMIT), name,
                EMIT_MAX_PARTS);
        return EXIT_USAGE;
    }
    bool used[RW_MAX_PARAMS] = {false};
    const rw_descriptor *ds[EMIT_MAX_PARTS];
    int pv[EMIT_MAX_PARTS][RW_MAX_PARAMS];
    memset(pv, 0, sizeof pv);
    for (size_t j = 0; j < n_parts; j++) {
        if (!(ds[j] = rw_find(parts[j]))) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_RW_NO_REWRITE), parts[j]);
            return EXIT_USAGE;
        }
        int st = part_params(ds[j], j, params, n_params, used, pv[j]);
        if (st)
            return st;
    }
    for (size_t i = 0; i < n_params; i++)
        if (!used[i]) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_RW_PARAM_NONE), params[i], name);
            return EXIT_USAGE;
        }
    rw_context c = *ctx;
    const char *kname = ctx->m->funcs[ctx->kernel].name;
    char *own = NULL;      /* the previous part's text, when c reads it */
    an_model *m = NULL;    /* its model */
    int status = EXIT_FAILED;
    for (size_t j = 0; j < n_parts; j++) {
        rw_result r;
        rw_refusal why;
        memset(&why, 0, sizeof why);
        int rc = rw_apply(ds[j], &c, pv[j], &r, &why);
        if (rc != HK_OK || !r.applicable) {
            const char *reason = why.reason[0] ? why.reason : r.description ? r.description : hk_strerror(rc);
            if (j)
                fprintf(stderr, hk_tr(HK_MSG_CLI_RW_NOT_APPLY_ON), parts[j], parts[j - 1], reason);
            else
                fprintf(stderr, hk_tr(HK_MSG_CLI_RW_NOT_APPLY), parts[j], reason);
            rw_result_free(&r);
            goto out;
        }
        hk_free(own);
        own = r.text;
        r.text = NULL;
        c.text = own;
        c.len = r.len;
        rw_result_free(&r);
        if (j + 1 == n_parts)
            break;
        an_model_free(m);
        m = NULL;
        long k = -1;
        if ((rc = an_analyze(c.text, c.len, &m)) || (k = an_model_find_kernel(m, kname)) < 0) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_RW_REANALYSE), parts[j],
                    rc ? hk_strerror(rc) : hk_tr(HK_MSG_RW_CLI_KERNEL_GONE));
            goto out;
        }
        c.m = m;
        c.kernel = (size_t)k;
    }
    fwrite(c.text, 1, c.len, stdout);
    status = EXIT_OK;
out:
    an_model_free(m);
    hk_free(own);
    return status;
}


/* The time --time gives a candidate of that description: the first PATTERN it holds, else
 * the baseline's 1. */
static double proposal_ms(const char *desc, const char *const *times, size_t n_times)
{
    for (size_t i = 0; i < n_times; i++) {
        const char *eq = strrchr(times[i], '=');
        size_t l = (size_t)(eq - times[i]);
        for (const char *p = desc; p && *p; p++)
            if (!strncmp(p, times[i], l))
                return strtod(eq + 1, NULL);
    }
    return 1.0;
}

/* --proposals: the first n candidates the built-in search proposes after the baseline, as an
 * episode's optimize stage would with --budget n (episode.c ep__stage_optimize: the shipped
 * skills' plan for class cls, search_new, search_next), each reported at once with the time
 * --time gives it, so what the search orders by results (the second choices by their skills'
 * first results, the stacks on the leaders) shows. The episode asks ahead of the GPU, but the
 * search decides only on reported results (it answers HK_ESTATE until they are in), so the
 * order is the same. EXIT_OK, EXIT_FAILED (no skills, the spec's launch cannot be searched). */
static int proposals(const rw_context *ctx, const spec *sp, enum sk_class cls, unsigned n,
                     const char *const *times, size_t n_times, int registers, bool json)
{
    const char *arch = ctx->hip ? "gfx906" : "sm_90";
    char *dir = NULL, err[1024] = "";
    sk_set *skills = NULL;
    skillplan plan = {0};
    search *s = NULL;
    json_t *arr = NULL;
    int status = EXIT_FAILED;
    if (sk_default_dir(&dir) != HK_OK || sk_load_dir(dir, &skills, err, sizeof err) != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_RW_SKILLS), dir ? dir : "?", err);
        goto out;
    }
    search_launch sl;
    if (search_launch_from_spec(sp, ctx->sm_count, &sl, err, sizeof err) != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_RW_LAUNCH), err);
        goto out;
    }
    sk_metrics mt;
    sk_metrics_init(&mt);
    if (registers > 0)   /* the baseline's ptxas -v, as an episode fills it (baseline_class) */
        mt.v[SK_M_REGISTERS_PER_THREAD] = registers;
    const an_span *span = &ctx->m->funcs[ctx->kernel].span;
    int rc = skillplan_build_for(skills, arch, cls, &mt, ctx->text + span->start_byte,
                                 span->end_byte - span->start_byte, ctx, &plan);
    sl.structs = plan.v;
    sl.n_structs = plan.n;
    sl.hip_target = ctx->hip;
    sl.warps_per_sm = ctx->warps_per_sm;
    search_budget b = {.max_candidates = n + 1};
    if (rc || (rc = search_new(ctx->text, ctx->len, ctx->m, ctx->kernel, &sl, 1, &b, &s))) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_RW_NO_SEARCH), hk_strerror(rc));
        goto out;
    }
    arr = json_array();
    if (!json)
        printf("kernel %s, %s, budget %u:\n", ctx->m->funcs[ctx->kernel].name,
               cls == SK_CLASS_COUNT ? "class unknown" : sk_class_name(cls), n);
    const search_candidate *c;
    while ((rc = search_next(s, &c)) == HK_OK) {
        double ms = c->phase == 0 ? 1.0 : proposal_ms(c->description, times, n_times);
        if (c->phase != 0) {
            if (json)
                json_array_append_new(arr, json_pack("{s:i, s:s, s:s?, s:s?, s:i, s:f}", "id", (int)c->id,
                                                     "description", c->description, "skill", c->skill,
                                                     "structural", c->structural, "phase", c->phase,
                                                     "ms", ms));
            else
                printf("  %u: %s  [%.3g]\n", c->id, c->description, ms);
        }
        if (search_report(s, c->id, SEARCH_OK, ms > 0 ? ms : 1.0) != HK_OK)
            break;
    }
    if (json && json_dumpf(arr, stdout, JSON_INDENT(2)) == 0)
        fputc('\n', stdout);
    status = EXIT_OK;
out:
    json_decref(arr);
    search_free(s);
    skillplan_free(&plan);
    sk_set_free(skills);
    hk_free(dir);
    return status;
}

int cli_rewrites(int argc, char **argv)
{
    const char *file = NULL, *kernel = NULL, *spec_path = NULL, *emit_name = NULL;
    bool json = false, hip = false;
    const char *params[RW_MAX_PARAMS];
    size_t n_params = 0;
    int sms = 0, warps = 0, registers = 0;
    long n_proposals = -1;
    enum sk_class cls = SK_CLASS_COUNT;
    const char *times[32];
    size_t n_times = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--hip")) {
            hip = true;
        } else if ((!strcmp(a, "--kernel") || !strcmp(a, "--spec")) && i + 1 < argc) {
            *(a[2] == 'k' ? &kernel : &spec_path) = argv[++i];
        } else if (!strcmp(a, "--emit") && i + 1 < argc) {
            emit_name = argv[++i];
        } else if (!strcmp(a, "--param") && i + 1 < argc) {
            if (n_params == RW_MAX_PARAMS) {
                fprintf(stderr, hk_tr(HK_MSG_CLI_RW_MAX_PARAMS),
                        RW_MAX_PARAMS);
                return EXIT_USAGE;
            }
            params[n_params++] = argv[++i];
        } else if (!strcmp(a, "--device") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d", &sms, &warps) != 2 || sms <= 0 || warps <= 0) {
                fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_DEVICE));
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--proposals") && i + 1 < argc) {
            char *end;
            n_proposals = strtol(argv[++i], &end, 10);
            if (*end || n_proposals < 1 || n_proposals > 1000) {
                fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_PROPOSALS));
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--registers") && i + 1 < argc) {
            char *end;
            long r = strtol(argv[++i], &end, 10);
            if (*end || r < 1 || r > 255) {
                fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_REGISTERS));
                return EXIT_USAGE;
            }
            registers = (int)r;
        } else if (!strcmp(a, "--class") && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "unknown") && sk_class_parse(v, &cls) != HK_OK) {
                fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_CLASS));
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--time") && i + 1 < argc) {
            const char *v = argv[++i], *eq = strrchr(v, '=');
            char *end = NULL;
            double ms = eq ? strtod(eq + 1, &end) : 0;
            if (!eq || eq == v || !end || *end || end == eq + 1 || !(ms > 0) || !isfinite(ms) ||
                n_times == HK_ARRAY_LEN(times)) {
                fprintf(stderr, hk_tr(HK_MSG_CLI_RW_TIME),
                        HK_ARRAY_LEN(times));
                return EXIT_USAGE;
            }
            times[n_times++] = v;
        } else if (a[0] != '-' && !file) {
            file = a;
        } else {
            fprintf(stderr, hk_tr(HK_MSG_CLI_RW_UNEXPECTED), a);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (!file || !kernel) {
        fprintf(stderr, "hkls rewrites: %s\n", file ? "--kernel NAME is required" : "no FILE");
        usage(stderr);
        return EXIT_USAGE;
    }
    if ((n_times || cls != SK_CLASS_COUNT || registers) && n_proposals < 0) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_NEED_PROPOSALS));
        return EXIT_USAGE;
    }
    if (n_proposals > 0 && (!spec_path || emit_name)) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_PROPOSALS_SPEC));
        return EXIT_USAGE;
    }
    if (n_params && !emit_name) {   /* the listing is at every rewrite's defaults */
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_PARAM_EMIT));
        return EXIT_USAGE;
    }
    const char *gwhy = NULL;
    if (an_grammar_check(&gwhy) != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_RW_GRAMMAR), gwhy ? gwhy : "?");
        return EXIT_FAILED;
    }
    char *text = NULL;
    size_t len = 0;
    an_model *m = NULL;
    spec *sp = NULL;
    json_t *o = NULL;
    int status = EXIT_FAILED;
    int rc = hk_read_file(file, AN_TEXT_MAX_BYTES, &text, &len);
    if (rc) {
        fprintf(stderr, "hkls rewrites: %s: %s\n", file, hk_strerror(rc));
        goto out;
    }
    if (spec_path) {
        spec_diags diags = {0};
        rc = spec_load(spec_path, &sp, &diags);
        for (size_t i = 0; i < diags.n; i++) {
            char *line = spec_diag_format(&diags.items[i], spec_path);
            fprintf(stderr, "%s\n", line ? line : hk_tr(HK_MSG_RW_CLI_OOM));
            hk_free(line);
        }
        spec_diags_free(&diags);
        if (rc) {
            fprintf(stderr, "hkls rewrites: %s: %s\n", spec_path, hk_strerror(rc));
            status = rc == HK_ENOMEM ? EXIT_FAILED : EXIT_USAGE;
            goto out;
        }
    }
    if ((rc = an_analyze(text, len, &m))) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_RW_PARSE), file, hk_strerror(rc));
        goto out;
    }
    long k = an_model_find_kernel(m, kernel);
    if (k < 0) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_RW_NO_KERNEL), file, kernel);
        goto out;
    }
    rw_context ctx = {.text = text, .len = len, .m = m, .kernel = (size_t)k, .spec = sp,
                      .hip = hip, .sm_count = sms, .warps_per_sm = warps};
    if (emit_name) {
        status = emit(emit_name, &ctx, params, n_params);
        goto out;
    }
    if (n_proposals > 0) {
        status = proposals(&ctx, sp, cls, (unsigned)n_proposals, times, n_times, registers, json);
        goto out;
    }
    json_t *rws = json_array();
    o = json_pack("{s:s, s:s, s:o}", "file", file, "kernel", kernel, "rewrites", rws);
    if (!o) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_OOM));
        goto out;
    }
    classify(text, len, kernel, o);
    for (size_t i = 0; i < rw_registry_count(); i++) {
        json_t *v = verdict(rw_registry_at(i), &ctx);
        if (!v || json_array_append_new(rws, v)) {
            fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_RW_OOM));
            goto out;
        }
    }
    if (json) {
        if (json_dumpf(o, stdout, JSON_INDENT(2)) == 0)
            fputc('\n', stdout);
    } else {
        print_human(o, stdout);
    }
    status = EXIT_OK;
out:
    json_decref(o);
    an_model_free(m);
    spec_free(sp);
    hk_free(text);
    return status;
}
