/* privatized_histogram (rewrite_pattern.h): a global-atomic histogram, recognized by
 * rwp_match_histogram, becomes a per-block shared histogram merged once per block. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "model/kclass.h"
#include "model/kmodel.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char tpl_hist[] =
    "{\n" /* i18n: not for people (generated code) */
    "    // hk rewrite: privatized histogram. Each block counts into shared memory, then adds\n"
    "    // its non-zero bins to the global histogram (one atomic per bin per block). A bin\n"
    "    // outside [0, HK_BINS) goes to global memory directly.\n"
    PT_MAX_BLOCKS
    "    constexpr int HK_BINS = $BINS;\n"
    "    __shared__ $T hk_hist[HK_BINS];\n"
    PT_THREADS
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)\n" /* i18n: not for people (generated code) */
    "        hk_hist[hk_b] = 0;\n"
    "    __syncthreads();\n"
    "    // several loads in flight per thread: the loop is latency-bound otherwise\n"
    "    #pragma unroll 4\n"
    "    $HEAD\n"
    "        const long long hk_bin = (long long)($BIN);\n"
    "        if (hk_bin >= 0 && hk_bin < HK_BINS)\n"
    "            atomicAdd(&hk_hist[hk_bin], ($T)($VAL));\n"
    "        else\n"
    "            atomicAdd(&$H[hk_bin], ($T)($VAL));\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)\n"
    "        if (hk_hist[hk_b] != ($T)0)\n"
    "            atomicAdd(&$H[hk_b], hk_hist[hk_b]);\n"
    "}";

/* ---- the model path: any histogram the kernel model reads, the body kept ---- */

/* The original body runs unchanged inside a lambda (so its early returns still reach the
 * merge), with the histogram's name bound to a view that sends bins [0, hk_nb) to the
 * block's shared copy and any other bin to global memory. */
static const char tpl_hist_view[] =
    "{\n" /* i18n: not for people (generated code) */
    "    // hk rewrite: privatized histogram. The kernel's own code counts into a shared copy\n"
    "    // of the bins (its $H names a view: bins [0, hk_nb) in shared memory, any other bin\n"
    "    // in global memory); each block then adds its non-zero bins once.\n"
    "    constexpr int HK_BINS = $BINS;\n"
    "    static_assert(HK_BINS >= 1 && HK_BINS * sizeof($T) <= 32768,\n"
    "                  \"the shared bins must fit 32 KiB\");\n"
    "    __shared__ $T hk_hist[HK_BINS];\n"
    PT_THREADS
    "    const long long hk_nb = $NB;\n" /* i18n: not for people (generated code) */
    "    $T *const hk_global = $H;\n"
    "    for (unsigned int hk_b = hk_tid; hk_b < hk_nb; hk_b += hk_nthreads)\n"
    "        hk_hist[hk_b] = 0;\n"
    "    __syncthreads();\n"
    "    struct hk_bins_view {\n"
    "        $T *g, *s;\n"
    "        long long nb;\n"
    "        __device__ $T &operator[](long long b) const { return b >= 0 && b < nb ? s[b] : g[b]; }\n"
    "        __device__ $T *operator+(long long b) const { return b >= 0 && b < nb ? s + b : g + b; }\n"
    "    };\n"
    "    [&]() {\n"
    "        const hk_bins_view $H = {hk_global, hk_hist, hk_nb};\n"
    "$BODY\n"
    "    }();\n"
    "    __syncthreads();\n"
    "    for (unsigned int hk_b = hk_tid; hk_b < hk_nb; hk_b += hk_nthreads)\n"
    "        if (hk_hist[hk_b] != ($T)0)\n"
    "            atomicAdd(&hk_global[hk_b], hk_hist[hk_b]);\n"
    "}";

/* What the model path found. */
typedef struct {
    char hist[128];
    char bins[128];    /* HK_BINS: a value or a constant's name */
    char nb[160];      /* the shared bins in use: HK_BINS, or a parameter capped by it */
    uint32_t line;
} ph_match;

/* Bins cap when the count is a parameter (known only at run time): 16 KiB of 8-byte counters. */
#define PH_PARAM_CAP 2048

/* The bin count as HK_BINS and hk_nb, from the class's form; false when it is not a value,
 * one named constant or one parameter. */
static bool bin_count(const km_kernel *k, const km_class *c, ph_match *t)
{
    if (!c->bins.known)
        return false;
    km_form f = km_cform_view(&c->bins);
    int64_t v;
    if (km_form_value(k, f, &v)) {
        if (v < 1 || v > PT_HIST_SHARED_MAX / 4)
            return false;
        snprintf(t->bins, sizeof t->bins, "%lld", (long long)v);
        snprintf(t->nb, sizeof t->nb, "HK_BINS");
        return true;
    }
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    if (f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 1)
        return false;
    const km_atom *a = &at[f.t[0].atoms[0]];
    if (!a->name || strlen(a->name) >= 100)
        return false;
    if (a->kind == KM_ATOM_CONST) {
        snprintf(t->bins, sizeof t->bins, "%s", a->name);
        snprintf(t->nb, sizeof t->nb, "HK_BINS");
        return true;
    }
    if (a->kind == KM_ATOM_PARAM) {
        snprintf(t->bins, sizeof t->bins, "%d", PH_PARAM_CAP);
        snprintf(t->nb, sizeof t->nb, "(long long)(%s) < HK_BINS ? (long long)(%s) : HK_BINS", /* i18n: not for people */
                 a->name, a->name);
        return true;
    }
    return false;
}

/* Every access to the histogram is an atomic add: NULL, else the reason in why. */
static const char *only_atomic_adds(const km_kernel *k, const char *hist, char *why, size_t n)
{
    size_t na;
    const km_access *as = km_accesses(k, &na);
    for (size_t i = 0; i < na; i++)
        if (strcmp(as[i].buffer, hist) == 0 && (!as[i].atomic || as[i].op != KM_OP_SUM)) {
            snprintf(why, n, EN(RW_PH_NOT_ATOMIC_ADD), as[i].line, hist);
            return why;
        }
    return NULL;
}

/* The model's reading of kernel f: HK_OK with t filled and why[0] == '\0', or the reason
 * in why (*classed: the model calls it a histogram); HK_ENOMEM. given: the caller gives the
 * bin count, which then need not be known. */
static int model_histogram(const char *text, size_t len, const an_function *f, bool given, ph_match *t,
                           bool *classed, char *why, size_t n)
{
    km_kernel *k = NULL;
    km_class c;
    *classed = false;
    int rc = rw_model_classify(text, len, f->name, &k, &c, why, n);
    if (rc || !k)
        return rc;
    if (c.kind != KM_CLASS_HISTOGRAM)
        goto out;
    *classed = true;
    memset(t, 0, sizeof *t);
    t->line = c.line;
    if (c.privatized) {
        snprintf(why, n, EN(RW_PH_ALREADY_SHARED), c.line);
        goto out;
    }
    if (!c.out || !rwp_copy_fits(t->hist, sizeof t->hist, c.out)) {
        snprintf(why, n, EN(RW_PH_NO_NAME), c.line);
        goto out;
    }
    if (!bin_count(k, &c, t) && !given) {
        snprintf(why, n, EN(RW_PH_BINS_UNKNOWN), c.line);
        goto out;
    }
    only_atomic_adds(k, c.out, why, n);
out:
    km_free(k);
    return rc;
}

/* Every use of hist in the body is `&hist[` or `atomicAdd(hist +`: the view supports no
 * other. */
static bool uses_fit_view(const rw_toks *ts, const char *hist)
{
    for (size_t k = 0; k < ts->n; k++) {
        if (!rwl_tok_is_ident(ts, k, hist) || (k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->"))))
            continue;
        bool addr = k > 0 && rwl_tok_is(ts, k - 1, "&") && rwl_tok_is(ts, k + 1, "[");
        bool plus = k > 1 && rwl_tok_is(ts, k - 1, "(") && rwl_tok_is(ts, k - 2, "atomicAdd") &&
                    rwl_tok_is(ts, k + 1, "+");
        if (!addr && !plus)
            return false;
    }
    return true;
}

/* Bytes of one counter of type ty (4 when the type is a template parameter: the
 * static_assert of the new body then checks the instantiation). */
static size_t counter_size(const char *ty)
{
    return strcmp(ty, "double") == 0 || strcmp(ty, "unsigned long long") == 0 || /* i18n: not for people */
                   strcmp(ty, "long long") == 0
               ? 8
               : 4;
}

/* When rwp_match_histogram refused (why): the model path. bins > 0: the caller's count. */
static int model_path(const char *text, size_t len, const an_model *m, const an_function *f, int bins,
                      const char *why, struct hk_buf *b, rw_result *out)
{
    static const char *const name = "privatized histogram";
    ph_match t;
    bool classed;
    char mwhy[512];
    int rc = model_histogram(text, len, f, bins > 0, &t, &classed, mwhy, sizeof mwhy);
    if (rc)
        return rc;
    if (mwhy[0] || !classed)
        return rwp_not_applicable(out, name, f, classed ? mwhy : why);
    const an_param *h = rwp_param_by_name(f, t.hist);
    if (!h || h->pointer_depth != 1) {
        snprintf(mwhy, sizeof mwhy, EN(RW_PH_NOT_POINTER), t.line, t.hist);
        return rwp_not_applicable(out, name, f, mwhy);
    }
    rw_toks ts = {0};
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        return rc == HK_ETOOBIG ? rwp_not_applicable(out, name, f, EN(RW_PH_BODY_TOO_BIG)) : rc;
    bool fits = uses_fit_view(&ts, t.hist);
    rwl_toks_free(&ts);
    if (!fits) {
        snprintf(mwhy, sizeof mwhy, EN(RW_PH_USED_OTHERWISE),
                 t.line, t.hist, t.hist, t.hist);
        return rwp_not_applicable(out, name, f, mwhy);
    }
    char ty[PT_EXPR];
    rwp_pointee_type(h, ty, sizeof ty);
    if (bins > 0) {
        if ((size_t)bins * counter_size(ty) > PT_HIST_SHARED_MAX)
            return rwp_not_applicable(out, name, f, EN(RW_PH_TOO_MANY_BINS));
        snprintf(t.bins, sizeof t.bins, "%d", bins);
        snprintf(t.nb, sizeof t.nb, "HK_BINS");
    }
    char *body = hk_strndup(text + f->body_span.start_byte, f->body_span.end_byte - f->body_span.start_byte);
    if (!body)
        return HK_ENOMEM;
    const char *kv[] = {"BINS", t.bins, "T", ty, "NB", t.nb, "H", t.hist, "BODY", body, NULL};
    rc = rwl_render(b, tpl_hist_view, kv);
    hk_free(body);
    if (rc)
        return rc;
    /* one sentence with the cap by the parameter and one without */
    char *desc = hk_asprintf(strcmp(t.nb, "HK_BINS") ? EN(RW_PH_DESC_VIEW_CAPPED) : EN(RW_PH_DESC_VIEW),
                             f->name, t.hist, t.bins, ty);
    return rwp_replace_body(text, len, m, f, b->data, desc, out);
}

/* The model path where the kernel's body handles one element per thread: on the kernel put
 * on a grid-stride loop first (rwp_over_any_grid), or refused when it cannot loop. The
 * model's own refusals come first, with the lines of the kernel as written. */
static int model_path_any_grid(const char *text, size_t len, const an_model *m, size_t kernel, int bins,
                               const char *why, rw_result *out)
{
    const an_function *f = &m->funcs[kernel];
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    rw_result gs = {0};
    an_model *gm = NULL;
    size_t gk;
    char gwhy[768];
    int rc = model_path(text, len, m, f, bins, why, &b, out);
    if (rc || !out->applicable)
        goto out;
    if ((rc = rwp_over_any_grid(text, len, m, kernel, &gs, &gm, &gk, gwhy, sizeof gwhy)) ||
        (!gs.applicable && !gwhy[0]))
        goto out;   /* strides already: out stands */
    rw_result_free(out);
    if (!gs.applicable) {
        rc = rwp_not_applicable(out, "privatized histogram", f, gwhy);
        goto out;
    }
    hk_buf_free(&b);
    hk_buf_init(&b, PT_TEXT_MAX);
    if ((rc = model_path(gs.text, gs.len, gm, &gm->funcs[gk], bins, why, &b, out)) == HK_OK)
        rc = rwp_note_grid_stride(out);
out:
    if (rc == HK_ENOMEM)
        rw_result_free(out);
    rw_result_free(&gs);
    an_model_free(gm);
    hk_buf_free(&b);
    return rc;
}

int rw_privatized_histogram(const char *text, size_t len, const an_model *m, size_t kernel,
                            int bins, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (bins < 0 || bins > PT_HIST_SHARED_MAX)
        return HK_EINVAL;
    rwp_hist g;
    char reason[256];
    struct hk_buf b;
    char *head = NULL;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    if ((rc = rwp_match_histogram(text, len, m, kernel, bins, &g, reason, sizeof reason)))
        goto out;
    if (reason[0]) {
        why = reason;
        goto na;
    }
    if (strcmp(g.type, "long long") == 0) {
        why = EN(RW_PH_COUNTER_TYPE);
        goto na;
    }
    long nb = g.bins;
    size_t esize = strcmp(g.type, "double") == 0 || strcmp(g.type, "unsigned long long") == 0 /* i18n: not for people */
                       ? 8 : 4;
    if ((size_t)nb * esize > PT_HIST_SHARED_MAX) {
        why = EN(RW_PH_TOO_MANY_BINS);
        goto na;
    }
    char nbs[32];
    snprintf(nbs, sizeof nbs, "%ld", nb);
    pt_index ix;
    memset(&ix, 0, sizeof ix);
    if (!rwp_copy_fits(ix.name, sizeof ix.name, g.index) || !rwp_copy_fits(ix.type, sizeof ix.type, g.index_type) ||
        !rwp_copy_fits(ix.bound, sizeof ix.bound, g.bound)) {
        why = EN(RW_PH_INDEX_TOO_LONG);   /* cannot happen: they came from a pt_index */
        goto na;
    }
    if (!(head = rwp_grid_stride_head(&ix, "hk_blocks", NULL)))
        goto nomem;
    const char *kv[] = {"MAXBLOCKS", "1024", "BINS", nbs, "T", g.type, "HEAD", head, "BIN", g.bin, "VAL", g.value,
                        "H", g.hist->name, NULL};
    if ((rc = rwl_render(&b, tpl_hist, kv)))
        goto out;
    /* one sentence per way the bin count was had: given, guessed, inferred */
    char *desc = hk_asprintf(g.given ? EN(RW_PH_DESC_GIVEN) : g.guessed ? EN(RW_PH_DESC_GUESSED) : EN(RW_PH_DESC_INFERRED),
                             f->name, g.hist->name, nb, g.type, g.index);
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = model_path_any_grid(text, len, m, kernel, bins, why, out);
out:
    hk_free(head);
    hk_buf_free(&b);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static const rw_param privatized_histogram_params[] = {
    {.name = "bins", .type = RW_PARAM_INT, .min = 0, .max = 32768, .def = 0},
};

static int emit_privatized_histogram(const rw_context *c, const int *p, rw_result *out)
{
    return rw_privatized_histogram(c->text, c->len, c->m, c->kernel, p[0], out);
}

const rw_descriptor rw_privatized_histogram_desc = {
    .name = "privatized_histogram",
    .summary = "a global-atomic histogram privatized per block in shared memory", /* i18n: not for people */
    .params = privatized_histogram_params,
    .n_params = HK_ARRAY_LEN(privatized_histogram_params),
    .flags = RW_ALGORITHM,
    .emit = emit_privatized_histogram,
};

