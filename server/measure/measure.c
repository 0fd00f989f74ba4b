/* The referee's pipeline for one candidate: build the generated benchmark program, run it
 * in separate processes (runner: limits, sandbox, stoppable), compare outputs with the
 * baseline's through the oracle, time it, and enforce the sanity rules (L2 flush, spread,
 * floor and credit, >10x second look), each recorded in the verdict's checks. Shared by the
 * episode and `hkls verify-candidate` so both judge alike. */
#include "measure/measure.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/strv.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "core/log.h"
#include "hk_gpulock.h"
#include "measure/kimage.h"
#include "measure/ptxrace.h"
#include "measure/oracle.h"

#define OUTPUT_MAX ((size_t)1 << 20)
#define STOP_POLL_MS 100

#define TRY(x)                   \
    do {                         \
        if ((rc = (x)) != HK_OK) \
            goto out;            \
    } while (0)

static const char *const reason_names[] = {
    [MEASURE_OK] = "ok",
    [MEASURE_COMPILE_ERROR] = "compile_error",
    [MEASURE_WRONG_ANSWER] = "wrong_answer",
    [MEASURE_CRASH] = "crash",
    [MEASURE_CUDA_ERROR] = "cuda_error",
    [MEASURE_TIMEOUT] = "timeout",
    [MEASURE_UNWRITTEN_OUTPUT] = "unwritten_output",
    [MEASURE_OUT_OF_BOUNDS] = "out_of_bounds",
    [MEASURE_INPUT_MODIFIED] = "input_modified",
    [MEASURE_BELOW_FLOOR] = "below_floor",
    [MEASURE_SPEC_MISMATCH] = "spec_mismatch",
    [MEASURE_NO_GPU] = "no_gpu",
    [MEASURE_HARNESS_ERROR] = "harness_error",
    [MEASURE_RESOURCE_LIMIT] = "resource_limit",
    [MEASURE_HOST_CODE] = "host_code",
    [MEASURE_STRAY_WORK] = "stray_work",
    [MEASURE_UNSTABLE] = "unstable",
    [MEASURE_RACE] = "race",
    [MEASURE_UNINITIALIZED] = "uninitialized",
    [MEASURE_UNFLUSHED] = "unflushed",
    [MEASURE_READS_CLOCK] = "reads_clock",
    [MEASURE_LAUNCH_STATE] = "launch_state",
    [MEASURE_LOCAL_STATE] = "local_state",
    [MEASURE_DEVICE_HEAP] = "device_heap",
    [MEASURE_INSENSITIVE] = "insensitive",
};

const char *measure_reason_name(enum measure_reason r)
{
    if ((unsigned)r < HK_ARRAY_LEN(reason_names) && reason_names[r])
        return reason_names[r];
    return "unknown";
}

static char *dir_of(const char *path);

/* The clock reads of a DCU code object's assembly: clang's .s beside it (hipcc
 * -save-temps=obj, prepare_image), every one there (one per offload arch) ORed.
 * HK_OK, HK_ENOENT (none there), HK_EIO, HK_ENOMEM. */
static int asm_clocks(const char *module, kimage_clocks *out)
{
    memset(out, 0, sizeof *out);
    char *dir = dir_of(module), *pat = NULL;
    glob_t g;
    memset(&g, 0, sizeof g);
    int rc = HK_ENOENT;
    if (!dir || !(pat = hk_asprintf("%s/module-hip-amdgcn-amd-amdhsa-*.s", dir))) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (glob(pat, 0, NULL, &g) != 0)
        goto out;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        kimage_clocks one;
        if ((rc = kimage_asm_clocks_file(g.gl_pathv[i], &one)) != HK_OK)
            goto out;
        for (int k = 0; k < KIMAGE_CLOCK_KINDS; k++)
            if ((one.reads & (1u << k)) && !(out->reads & (1u << k))) {
                out->line[k] = one.line[k];
                memcpy(out->what[k], one.what[k], sizeof out->what[k]);
                memcpy(out->text[k], one.text[k], sizeof out->text[k]);
            }
        out->reads |= one.reads;
    }
out:
    globfree(&g);
    hk_free(dir);
    hk_free(pat);
    return rc;
}

/* The sentence per kind of finding (kimage_clocks' order), in PTX and in DCU assembly. DCU
 * assembly has no launch number to read and is not read for local memory: its scan never
 * sets those bits (measure_local_check does not judge a DCU image). It is read for the
 * device heap since session 38 (ockl's __ockl_dm_alloc / __ockl_dm_dealloc). */
static const enum hk_msg image_says[2][KIMAGE_CLOCK_KINDS] = {
    {HK_MSG_MEAS_CLK_PTX_0, HK_MSG_MEAS_CLK_PTX_1, HK_MSG_MEAS_CLK_PTX_2, HK_MSG_MEAS_CLK_PTX_3,
     HK_MSG_MEAS_CLK_PTX_4, HK_MSG_MEAS_LOCAL_PTX_0, HK_MSG_MEAS_LOCAL_PTX_1,
     HK_MSG_MEAS_LOCAL_PTX_2, HK_MSG_MEAS_LOCAL_PTX_3, HK_MSG_MEAS_HEAP_PTX},
    {HK_MSG_MEAS_CLK_ASM_0, HK_MSG_MEAS_CLK_ASM_1, HK_MSG_MEAS_CLK_ASM_2, HK_MSG_MEAS_CLK_ASM_3,
     HK_MSG_MEAS_CLK_PTX_4, HK_MSG_MEAS_LOCAL_PTX_0, HK_MSG_MEAS_LOCAL_PTX_1,
     HK_MSG_MEAS_LOCAL_PTX_2, HK_MSG_MEAS_LOCAL_PTX_3, HK_MSG_MEAS_HEAP_ASM}};

/* The two images as read for the image checks: each file is read once for all of them (a
 * PTX can be hundreds of MB: an initialised table of 375 MB took 6.9 s to scan). */
typedef struct {
    bool dcu;             /* a DCU code object (read in its assembly, for clocks and the device heap) */
    bool asm_read;        /* dcu: its assembly was read */
    enum hk_msg not_read; /* 0, or why the images could not be judged at all */
    char *not_read_path;  /* the PTX that could not be read (HK_MSG_MEAS_CLK_NO_PTX) */
    kimage_clocks base, cand;
    ptxrace_result race_base, race_cand; /* PTX only (a DCU image: not read for races) */
    const measure_shapes *base_shapes, *cand_shapes; /* judged at (NULL: no known shape) */
    int base_at, cand_at; /* the shape index that gave the finding, -1: none or no shape */
} image_pair;

void measure_launch_shapes(const spec *s, const long long *block, measure_shapes *out)
{
    memset(out, 0, sizeof *out);
    size_t sizes = s ? (s->n_sizes ? s->n_sizes : 1) : block ? 1 : 0;
    out->nargs = s ? (int)(s->n_args < MEASURE_ARGS ? s->n_args : MEASURE_ARGS) : 0;
    for (size_t k = 0; k < sizes; k++) {
        long d[3];
        bool ok = true;
        for (int i = 0; i < 3; i++) {
            long long v = 1;
            if (block)
                v = block[i];
            else if (s->block[i]) {
                expr_value ev;
                char err[128];
                if (spec_eval(s, s->block[i], k, 0, &ev, err, sizeof err) || ev.is_float)
                    ok = false;
                else
                    v = ev.i;
            }
            if (v < 1 || v > 1024)
                ok = false;
            d[i] = (long)v;
        }
        /* the scalar arguments at this size set, as the harness computes them (with the
         * launch's block); one that needs the device (sm_count) is not known here */
        bool known[MEASURE_ARGS] = {false};
        long long arg[MEASURE_ARGS] = {0};
        expr_var stack[40];
        size_t nv = 0;
        if (s && s->n_sizes && s->n_size_names + 4 <= sizeof stack / sizeof stack[0])
            nv = spec_size_vars(s, k, block, 0, stack);
        for (int a = 0; nv && a < out->nargs; a++) {
            const spec_arg *sa = &s->args[a];
            expr_value ev;
            if (sa->kind != HK_ARG_SCALAR || !sa->value || hk_dtype_is_float(sa->dtype) ||
                expr_uses(sa->value, "sm_count") ||
                expr_eval(sa->value, stack, nv, &ev, NULL, 0) != HK_OK || ev.is_float)
                continue;
            known[a] = true;
            arg[a] = ev.i;
        }
        bool seen = false;
        for (int j = 0; ok && j < out->n; j++)
            seen |= !memcmp(out->dim[j], d, sizeof d) &&
                    !memcmp(out->arg_known[j], known, sizeof known) &&
                    !memcmp(out->arg[j], arg, sizeof arg);
        if (!ok || (!seen && out->n == MEASURE_SHAPES))
            out->unknown = true;
        else if (!seen) {
            memcpy(out->dim[out->n], d, sizeof d);
            memcpy(out->arg_known[out->n], known, sizeof known);
            memcpy(out->arg[out->n], arg, sizeof arg);
            out->n++;
        }
    }
    if (!out->n)
        out->unknown = true;
    /* module data: a harness-form spec's image runs under the launcher alone */
    out->module_data = s && !s->run && !s->build && s->n_consts <= MEASURE_FILLED;
    for (size_t c = 0; out->module_data && c < s->n_consts; c++) {
        const char *nm = s->consts[c].name;
        if (!nm || hk_constant_symbol(nm, out->filled[out->nfilled], sizeof out->filled[0]))
            out->module_data = false; /* a name not kept: which variable it fills is not known */
        else
            out->nfilled++;
    }
    if (!out->module_data)
        out->nfilled = 0;
}

void measure_module_data(const measure_shapes *sh, ptxrace_launch *l)
{
    _Static_assert((int)MEASURE_FILLED <= (int)PTXRACE_FILLED, "a launch keeps every name"); /* i18n: not for people */
    l->module_data = sh->module_data && sh->nfilled <= PTXRACE_FILLED;
    l->nfilled = 0;
    for (int i = 0; l->module_data && i < sh->nfilled; i++)
        memcpy(l->filled[l->nfilled++], sh->filled[i], sizeof l->filled[0]);
}

/* The PTX at path (the image module's) judged at each shape (and at none when the shapes are
 * unknown), the shape applied to the kernel the module launches (its MODULE.fn; every entry
 * when that is not there): the first finding, *at its shape's index (-1: none, or found at no
 * shape). */
static int race_read(const char *module, const char *path, const measure_shapes *sh,
                     ptxrace_result *r, int *at)
{
    *at = -1;
    int n = sh ? sh->n : 0, rc = HK_OK;
    bool none = !sh || sh->unknown || !n;
    memset(r, 0, sizeof *r);
    char *entry = NULL;
    if (n && measure_read_entry(module, &entry) == HK_ENOMEM)
        return HK_ENOMEM;
    for (int k = none ? -1 : 0; k < n && rc == HK_OK; k++) {
        ptxrace_result one;
        ptxrace_launch l; /* the launch's shape and its known scalar arguments */
        memset(&l, 0, sizeof l);
        if (k >= 0) {
            memcpy(l.shape, sh->dim[k], sizeof l.shape);
            l.nargs = sh->nargs < PTXRACE_ARGS ? sh->nargs : PTXRACE_ARGS;
            for (int a = 0; a < l.nargs; a++) {
                l.known[a] = sh->arg_known[k][a];
                l.arg[a] = (int64_t)sh->arg[k][a];
            }
            measure_module_data(sh, &l);
        }
        rc = ptxrace_file_launch(path, k < 0 ? NULL : &l, entry, &one);
        if (rc == HK_OK && (k == (none ? -1 : 0) || (one.found && !r->found))) {
            *r = one;
            *at = one.found ? k : -1;
        }
        if (r->found)
            break;
    }
    hk_free(entry);
    return rc;
}

static int image_read_shapes(const char *base_module, const measure_shapes *base_shapes,
                             const char *cand_module, const measure_shapes *cand_shapes,
                             image_pair *ip);

static int image_read(const char *base_module, const char *cand_module, image_pair *ip)
{
    return image_read_shapes(base_module, NULL, cand_module, NULL, ip);
}

static int image_read_shapes(const char *base_module, const measure_shapes *base_shapes,
                             const char *cand_module, const measure_shapes *cand_shapes,
                             image_pair *ip)
{
    memset(ip, 0, sizeof *ip);
    ip->base_shapes = base_shapes;
    ip->cand_shapes = cand_shapes;
    ip->base_at = ip->cand_at = -1;
    if (!cand_module) {
        ip->not_read = HK_MSG_MEAS_CLK_NO_IMAGE;
        return HK_OK;
    }
    size_t ml = strlen(cand_module);
    int rc;
    if (ml >= 3 && !strcmp(cand_module + ml - 3, ".co")) {
        /* a DCU code object: read in the assembly it was assembled from */
        ip->dcu = true;
        if ((rc = asm_clocks(cand_module, &ip->cand)) == HK_ENOMEM)
            return rc;
        if (rc)
            return HK_OK; /* asm_read stays false */
        ip->asm_read = true;
        if (base_module && (rc = asm_clocks(base_module, &ip->base)) == HK_ENOMEM)
            return rc;
        if (rc)
            memset(&ip->base, 0, sizeof ip->base);
        return HK_OK;
    }
    char *path = hk_asprintf("%s.ptx", cand_module);
    if (!path)
        return HK_ENOMEM;
    if (kimage_ptx_clocks_file(path, &ip->cand) != HK_OK) {
        ip->not_read = HK_MSG_MEAS_CLK_NO_PTX;
        ip->not_read_path = path;
        return HK_OK;
    }
    /* a second pass over the same file: the race scan keeps one function body at a time */
    rc = race_read(cand_module, path, cand_shapes, &ip->race_cand, &ip->cand_at);
    hk_free(path);
    if (rc == HK_ENOMEM)
        return rc;
    if (rc)
        memset(&ip->race_cand, 0, sizeof ip->race_cand);
    if (base_module) {
        if (!(path = hk_asprintf("%s.ptx", base_module)))
            return HK_ENOMEM;
        if (kimage_ptx_clocks_file(path, &ip->base) != HK_OK)
            memset(&ip->base, 0, sizeof ip->base);
        rc = race_read(base_module, path, base_shapes, &ip->race_base, &ip->base_at);
        hk_free(path);
        if (rc == HK_ENOMEM)
            return rc;
        if (rc)
            memset(&ip->race_base, 0, sizeof ip->race_base);
    }
    return HK_OK;
}

/* The findings of kinds `bits` in the candidate's image that the baseline's lacks. dcu_why:
 * the why of a DCU code object (the local kinds are not read there), or 0 to judge
 * its assembly. */
static int image_judge(const image_pair *ip, unsigned bits, enum hk_msg dcu_why,
                       const char **result, char **why)
{
    *result = "not_run";
    *why = NULL;
    if (ip->not_read == HK_MSG_MEAS_CLK_NO_PTX)
        *why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CLK_NO_PTX), ip->not_read_path);
    else if (ip->not_read)
        *why = hk_strdup(hk_tr_in(HK_LANG_EN, ip->not_read));
    else if (ip->dcu && dcu_why)
        *why = hk_strdup(hk_tr_in(HK_LANG_EN, dcu_why));
    else if (ip->dcu && !ip->asm_read)
        *why = hk_strdup(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CLK_DCU_NO_ASM));
    else {
        unsigned extra = ip->cand.reads & ~ip->base.reads & bits;
        int k = kimage_clocks_first(extra);
        if (k < 0) {
            *result = "pass";
            return HK_OK;
        }
        *result = "fail";
        *why = hk_asprintf(hk_tr_in(HK_LANG_EN, image_says[ip->dcu][k]), ip->cand.what[k],
                           ip->cand.line[k], ip->cand.text[k]); /* stored in English, said where shown */
    }
    return *why ? HK_OK : HK_ENOMEM;
}

/* The race check's verdict from the two images read (measure_race_check). */
static int race_judge(const image_pair *ip, const char **result, char **why)
{
    *result = "not_run";
    *why = NULL;
    const ptxrace_result *c = &ip->race_cand, *b = &ip->race_base;
    if (ip->not_read == HK_MSG_MEAS_CLK_NO_PTX)
        *why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CLK_NO_PTX), ip->not_read_path);
    else if (ip->not_read)
        *why = hk_strdup(hk_tr_in(HK_LANG_EN, ip->not_read));
    else if (ip->dcu)
        *why = hk_strdup(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RACE_DCU));
    else if (!c->found) {
        *result = "pass";
        const measure_shapes *sh = ip->cand_shapes;
        if (!sh || !sh->n)
            return HK_OK;
        char list[MEASURE_SHAPES * 24 + 16] = "";
        for (int k = 0; k < sh->n; k++) {
            bool again = false; /* the same shape at another size set's arguments */
            for (int j = 0; j < k; j++)
                again |= !memcmp(sh->dim[j], sh->dim[k], sizeof sh->dim[k]);
            if (!again)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%ldx%ldx%ld",
                         list[0] ? ", " : "", sh->dim[k][0], sh->dim[k][1], sh->dim[k][2]);
        }
        *why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RACE_SHAPES), list);
    } else if (b->found) {
        /* the user's own code has such a read: not the candidate's doing (racecheck judges) */
        *result = "pass";
        *why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RACE_BASE), b->ld_line, b->ld_text,
                           c->ld_line, c->ld_text);
    } else {
        *result = "fail";
        if (c->barrier && c->ld_src > 0 && c->st_src > 0)
            *why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RACE_BAR_SRC), c->st_line,
                               c->st_text, c->ld_line, c->ld_text, c->src_file, c->st_src,
                               c->ld_src);
        else if (c->barrier)
            *why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RACE_BAR), c->st_line,
                               c->st_text, c->ld_line, c->ld_text);
        else if (c->ld_src > 0 && c->st_src > 0)
            *why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RACE_PTX_SRC), c->k, c->ld_line,
                               c->ld_text, c->st_line, c->st_text, c->src_file, c->ld_src,
                               c->st_src);
        else
            *why = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RACE_PTX), c->k, c->ld_line,
                               c->ld_text, c->st_line, c->st_text);
        if (*why && ip->cand_at >= 0) { /* the shape that showed it */
            const long *d = ip->cand_shapes->dim[ip->cand_at];
            char shape[64];
            snprintf(shape, sizeof shape, "%ldx%ldx%ld", d[0], d[1], d[2]);
            char *w = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RACE_AT), *why, shape);
            hk_free(*why);
            *why = w;
        }
    }
    return *why ? HK_OK : HK_ENOMEM;
}

int measure_race_check(const char *base_module, const char *cand_module, const char **result,
                       char **why)
{
    return measure_race_check_shapes(base_module, NULL, cand_module, NULL, result, why);
}

int measure_race_check_shapes(const char *base_module, const measure_shapes *base_shapes,
                              const char *cand_module, const measure_shapes *cand_shapes,
                              const char **result, char **why)
{
    image_pair ip;
    *result = "not_run";
    *why = NULL;
    int rc = image_read_shapes(base_module, base_shapes, cand_module, cand_shapes, &ip);
    if (rc == HK_OK)
        rc = race_judge(&ip, result, why);
    hk_free(ip.not_read_path);
    return rc;
}

static int image_check(const char *base_module, const char *cand_module, unsigned bits,
                       enum hk_msg dcu_why, const char **result, char **why)
{
    image_pair ip;
    *result = "not_run";
    *why = NULL;
    int rc = image_read(base_module, cand_module, &ip);
    if (rc == HK_OK)
        rc = image_judge(&ip, bits, dcu_why, result, why);
    hk_free(ip.not_read_path);
    return rc;
}

int measure_clock_check(const char *base_module, const char *cand_module, const char **result,
                        char **why)
{
    return image_check(base_module, cand_module, KIMAGE_CLOCK_BITS, 0, result, why);
}

int measure_local_check(const char *base_module, const char *cand_module, const char **result,
                        char **why)
{
    return image_check(base_module, cand_module, KIMAGE_LOCAL_BITS, HK_MSG_MEAS_LOCAL_DCU, result,
                       why);
}

int measure_heap_check(const char *base_module, const char *cand_module, const char **result,
                       char **why)
{
    return image_check(base_module, cand_module, KIMAGE_HEAP_BITS, 0, result, why);
}

/* a clock first: a kernel that reads one could tell every later check apart; then local
 * memory the scrub before each launch does not cover, and the device heap, which nothing
 * resets between launches (the same PTX); then a shared-memory race in the image, taken or
 * not (the PTX read a second time, one function body at a time: ptxrace.h) */
const measure_image_check measure_image_checks[MEASURE_IMAGE_CHECKS] = {
    {"clock", MEASURE_READS_CLOCK},
    {"local", MEASURE_LOCAL_STATE},
    {"heap", MEASURE_DEVICE_HEAP},
    {"race", MEASURE_RACE},
};
static const struct {
    unsigned bits;
    enum hk_msg dcu_why;
} image_check_kinds[MEASURE_IMAGE_CHECKS] = {
    {KIMAGE_CLOCK_BITS, 0},
    {KIMAGE_LOCAL_BITS, HK_MSG_MEAS_LOCAL_DCU},
    {KIMAGE_HEAP_BITS, 0}, /* a DCU image's assembly is read for it too */
    {0, 0},                /* race: race_judge */
};

int measure_image_checks_judge(const char *base_module, const char *cand_module,
                               const char *result[MEASURE_IMAGE_CHECKS],
                               char *why[MEASURE_IMAGE_CHECKS])
{
    return measure_image_checks_judge_shapes(base_module, NULL, cand_module, NULL, result, why);
}

int measure_image_checks_judge_shapes(const char *base_module, const measure_shapes *base_shapes,
                                      const char *cand_module, const measure_shapes *cand_shapes,
                                      const char *result[MEASURE_IMAGE_CHECKS],
                                      char *why[MEASURE_IMAGE_CHECKS])
{
    image_pair ip;
    for (size_t i = 0; i < MEASURE_IMAGE_CHECKS; i++) {
        result[i] = "not_run";
        why[i] = NULL;
    }
    int rc = image_read_shapes(base_module, base_shapes, cand_module, cand_shapes, &ip);
    for (size_t i = 0; rc == HK_OK && i < MEASURE_IMAGE_CHECKS; i++)
        rc = measure_image_checks[i].reason == MEASURE_RACE
                 ? race_judge(&ip, &result[i], &why[i])
                 : image_judge(&ip, image_check_kinds[i].bits, image_check_kinds[i].dcu_why,
                               &result[i], &why[i]);
    hk_free(ip.not_read_path);
    if (rc)
        for (size_t i = 0; i < MEASURE_IMAGE_CHECKS; i++) {
            hk_free(why[i]);
            why[i] = NULL;
        }
    return rc;
}

enum measure_reason measure_reason_from_exit(int code)
{
    switch (code) {
    case HK_EXIT_OK: return MEASURE_OK;
    case HK_EXIT_USAGE: return MEASURE_SPEC_MISMATCH;
    case HK_EXIT_CUDA: return MEASURE_CUDA_ERROR;
    case HK_EXIT_UNWRITTEN: return MEASURE_UNWRITTEN_OUTPUT;
    case HK_EXIT_INPUT_MODIFIED: return MEASURE_INPUT_MODIFIED;
    case HK_EXIT_OUT_OF_BOUNDS: return MEASURE_OUT_OF_BOUNDS;
    case HK_EXIT_NO_GPU: return MEASURE_NO_GPU;
    case HK_EXIT_STRAY: return MEASURE_STRAY_WORK;
    case HK_EXIT_WRONG: return MEASURE_WRONG_ANSWER;
    case HK_EXIT_LAUNCH_STATE: return MEASURE_LAUNCH_STATE;
    case HK_EXIT_INTERNAL:
    case HK_EXIT_IO: return MEASURE_HARNESS_ERROR;
    case 124:
    case 137: return MEASURE_TIMEOUT; /* timeout(1) wrapping the program */
    default: return MEASURE_CRASH;
    }
}

bool measure_stopped(const measure_opts *o)
{
    return o && o->stop && *o->stop;
}

/* ---- files and directories ---- */

int measure_mkdirs(const char *dir)
{
    if (!dir || !*dir)
        return HK_EINVAL;
    char *p = hk_strdup(dir);
    if (!p)
        return HK_ENOMEM;
    int rc = HK_OK;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s)
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            rc = HK_EIO;
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    struct stat st;
    if (rc == HK_OK && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        rc = HK_EIO;
    hk_free(p);
    return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int r = (flag == FTW_DP) ? rmdir(path) : unlink(path);
    return r != 0 && errno != ENOENT ? -1 : 0;
}

int measure_rmtree(const char *dir)
{
    struct stat st;
    if (!dir || lstat(dir, &st) != 0)
        return HK_OK;
    return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? HK_OK : HK_EIO;
}

static int write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return HK_EIO;
    bool ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    return ok ? HK_OK : HK_EIO;
}

/* Whether the file at path holds exactly text (len bytes). */
static bool file_equals(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    bool same = true;
    char buf[8192];
    size_t off = 0, n;
    while (same && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        same = off + n <= len && memcmp(buf, text + off, n) == 0;
        off += n;
    }
    same = same && !ferror(f) && off == len;
    fclose(f);
    return same;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return hk_strdup(".");
    if (slash == path)
        return hk_strdup("/");
    return hk_strndup(path, (size_t)(slash - path));
}

/* ---- one program on the GPU at a time, across processes ---- */

int measure_gpu_lock_path(char *buf, size_t n)
{
    const char *env = getenv("HK_GPU_LOCK");
    if (env && !strcmp(env, "off"))
        return HK_ENOENT;
    if (env && *env) {
        snprintf(buf, n, "%s", env);
        return HK_OK;
    }
    /* per user and per physical GPU: a benchmark program runs on device 0 of the devices it
     * sees (hk_harness.h), the first of CUDA_VISIBLE_DEVICES (HIP_VISIBLE_DEVICES on ROCm),
     * physical 0 when unset. Keyed so, an episode started with CUDA_VISIBLE_DEVICES=0 and
     * one started with it unset wait for each other on a one-GPU machine (keyed by the
     * whole variable, "0" and "all" were two locks on one GPU, and the H100 run of session
     * 30 timed a wild batch beside the cheats that way); episodes on different GPUs do not
     * wait. An index and that GPU's UUID are still two keys. */
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (!vis)
        vis = getenv("HIP_VISIBLE_DEVICES");
    char dev[64];
    size_t len = vis ? strcspn(vis, ",") : 0;
    if (len == 0)
        snprintf(dev, sizeof dev, "0");
    else
        snprintf(dev, sizeof dev, "%.*s", (int)(len < sizeof dev ? len : sizeof dev - 1), vis);
    for (char *p = dev; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              *p == '-'))
            *p = '_';
    snprintf(buf, n, "/tmp/hyperkernel-gpu-%u-%s.lock", (unsigned)getuid(), dev);
    return HK_OK;
}

/* The GPU lock of one run (hk_gpulock.h has the protocol, docs/episode.md the policy):
 * two episodes (the editor runs several at once; a batch runs kernels in parallel to
 * overlap their compiles) never run a kernel on one GPU while either times there, which
 * would skew the timing. The descriptors are opened for this run alone (a flock belongs to
 * its open file description) and close-on-exec, except for the program a HANDED run
 * starts, which inherits them (runner_spec.keep_fds). The kernel releases the lock of a
 * process that dies; it is released for good when the last copy (ours, closed after the
 * program ends) is closed. */
typedef struct {
    enum measure_gpu_hold how;
    hk_gpulock l;           /* all -1: no lock held (not a GPU run, untimed, off, no file) */
    int note_rd;            /* our end of the program's note socket (HANDED); -1: none */
    int keep[3];
    size_t n_keep;
    char env[64];           /* HK_GPULOCK_ENV=... for a HANDED program */
    const char **env_set;   /* the spec's env_set with env added; NULL: the spec's own */
    double wait_since;      /* the program waits for the exclusive lock since then; 0: not */
    double waited_s;        /* the program's finished waits */
    double delayed_s;       /* of the program's wait, what its timeout was pushed back by */
} gpu_hold;

static void gpu_hold_init(gpu_hold *h)
{
    memset(h, 0, sizeof *h);
    h->l.lock_fd = h->l.turn_fd = h->l.note_fd = h->note_rd = -1;
}

static void gpu_unlock(gpu_hold *h)
{
    int fds[] = {h->l.lock_fd, h->l.turn_fd, h->l.note_fd, h->note_rd};
    for (size_t i = 0; i < HK_ARRAY_LEN(fds); i++)
        if (fds[i] >= 0)
            close(fds[i]); /* the last copy of the lock's description releases it */
    hk_free(h->env_set);
    gpu_hold_init(h);
}

static int open_lock_file(const char *path)
{
    return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
}

/* The env_set of rs with h->env added, and the descriptors the program keeps. */
static int gpu_hand_over(gpu_hold *h, const runner_spec *rs)
{
    int sv[2];
    /* the note socket: without it the program's wait counts against its time limit */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
        h->note_rd = sv[0];
        h->l.note_fd = sv[1];
        (void)fcntl(h->note_rd, F_SETFL, O_NONBLOCK);
    }
    h->keep[h->n_keep++] = h->l.lock_fd;
    h->keep[h->n_keep++] = h->l.turn_fd;
    if (h->l.note_fd >= 0) {
        h->keep[h->n_keep++] = h->l.note_fd;
        snprintf(h->env, sizeof h->env, HK_GPULOCK_ENV "=%d,%d,%d", h->l.lock_fd,
                 h->l.turn_fd, h->l.note_fd);
    } else {
        snprintf(h->env, sizeof h->env, HK_GPULOCK_ENV "=%d,%d", h->l.lock_fd, h->l.turn_fd);
    }
    size_t n = 0;
    while (rs->env_set && rs->env_set[n])
        n++;
    if (!(h->env_set = hk_calloc(n + 2, sizeof *h->env_set)))
        return HK_ENOMEM;
    for (size_t i = 0; i < n; i++)
        h->env_set[i] = rs->env_set[i];
    h->env_set[n] = h->env;
    return HK_OK;
}

/* Takes the GPU lock for a run that uses the GPU (rs->gpu) unless o->untimed, held as
 * `how` says, waiting in turn behind a writer that waits (the turnstile) and counting the
 * wait into o->lock_wait_s. Best effort: a lock file that cannot be opened, or a flock
 * error, runs unlocked. HK_OK (h->l.lock_fd -1 when no lock is held), HK_ECANCELED
 * (stopped while waiting) or HK_ENOMEM; gpu_unlock in every case. */
static int gpu_lock(const measure_opts *o, const runner_spec *rs, enum measure_gpu_hold how,
                    gpu_hold *h)
{
    gpu_hold_init(h);
    h->how = how;
    char path[512], turn[600];
    if (!rs->gpu || (o && o->untimed) || measure_gpu_lock_path(path, sizeof path) != HK_OK)
        return HK_OK;
    snprintf(turn, sizeof turn, "%s" HK_GPULOCK_TURN_SUFFIX, path);
    if ((h->l.lock_fd = open_lock_file(path)) < 0 || (h->l.turn_fd = open_lock_file(turn)) < 0) {
        HK_DEBUG("measure: GPU lock %s: %s; running unlocked", path, strerror(errno));
        gpu_unlock(h);
        return HK_OK;
    }
    double t0 = 0;
    int turn_held = 0, got;
    while ((got = hk_gpulock_try(&h->l, how == MEASURE_GPU_EXCLUSIVE ? LOCK_EX : LOCK_SH,
                                 &turn_held)) == 0) {
        if (!t0)
            t0 = hk_now_s();
        if (measure_stopped(o)) {
            hk_gpulock_abandon(&h->l, &turn_held);
            gpu_unlock(h);
            return HK_ECANCELED;
        }
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (t0 && o && o->lock_wait_s)
        *o->lock_wait_s += hk_now_s() - t0;
    if (got < 0) {
        HK_DEBUG("measure: GPU lock %s: %s; running unlocked", path, strerror(errno));
        gpu_unlock(h);
        return HK_OK;
    }
    return how == MEASURE_GPU_HANDED ? gpu_hand_over(h, rs) : HK_OK;
}

/* The spec the runner gets: rs with the handed-over lock's environment and descriptors. */
static runner_spec gpu_spec(const gpu_hold *h, const runner_spec *rs)
{
    runner_spec s = *rs;
    if (h->env_set) {
        s.env_set = h->env_set;
        s.keep_fds = h->keep;
        s.n_keep_fds = h->n_keep;
    }
    return s;
}

/* Reads the program's notes ('w' waiting for the exclusive lock, 'g' done) and pushes the
 * running job's timeout back by the time it waited since the last call: a program that
 * waits its turn to time is not killed for it. Called every tick, so a wait is seen to
 * within a tick (STOP_POLL_MS). */
static void gpu_hold_poll(gpu_hold *h, runner_pool *p)
{
    if (h->note_rd < 0)
        return;
    char buf[64];
    ssize_t n;
    double now = hk_now_s();
    while ((n = read(h->note_rd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == 'w' && !h->wait_since)
                h->wait_since = now;
            else if (buf[i] == 'g' && h->wait_since) {
                h->waited_s += now - h->wait_since;
                h->wait_since = 0;
            }
        }
    double waited = h->waited_s + (h->wait_since ? now - h->wait_since : 0);
    double more = waited - h->delayed_s;
    if (more >= 0.001) {
        runner_pool_delay_timeouts(p, (unsigned)(more * 1e3));
        h->delayed_s += (double)(unsigned)(more * 1e3) / 1e3;
    }
}

/* After the run: the program's own wait is counted like ours (o->lock_wait_s) and left out
 * of its wall time, which sizes later timeouts. */
static void gpu_hold_finish(gpu_hold *h, runner_pool *p, const measure_opts *o, runner_result *r)
{
    gpu_hold_poll(h, p);
    double waited = h->waited_s + (h->wait_since ? hk_now_s() - h->wait_since : 0);
    if (waited > 0 && o && o->lock_wait_s)
        *o->lock_wait_s += waited;
    if (waited > 0 && r && r->wall_ms > 0) {
        long ms = (long)(waited * 1e3);
        r->wall_ms = r->wall_ms > ms ? r->wall_ms - ms : 0;
    }
}

/* ---- running children, stoppably ---- */

int measure_run_argv(const measure_opts *o, const runner_spec *rs, runner_result *r)
{
    return measure_run_argv_held(o, rs, MEASURE_GPU_EXCLUSIVE, r);
}

int measure_run_argv_held(const measure_opts *o, const runner_spec *rs,
                          enum measure_gpu_hold how, runner_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    if (measure_stopped(o))
        return HK_ECANCELED;
    gpu_hold h;
    int rc = gpu_lock(o, rs, how, &h);
    if (rc) {
        gpu_unlock(&h);
        return rc;
    }
    runner_pool *p = NULL;
    if ((rc = runner_pool_new(1, &p)))
        goto out;
    runner_spec s = gpu_spec(&h, rs);
    if ((rc = runner_pool_submit(p, &s, NULL)))
        goto out;
    /* ticks for the stop and for the program's notes */
    int tick = (o && o->stop) || h.note_rd >= 0 ? STOP_POLL_MS : -1;
    for (;;) {
        /* The pool's poll() wakes on every signal too, so a Ctrl-C is seen within one tick. */
        rc = runner_pool_wait(p, tick, NULL, r);
        if (rc == HK_ETIMEDOUT) {
            if (measure_stopped(o)) {
                runner_pool_cancel(p);
                rc = HK_ECANCELED;
                break;
            }
            gpu_hold_poll(&h, p);
            continue;
        }
        if (rc == HK_OK && measure_stopped(o))
            rc = HK_ECANCELED; /* it ended, but we were asked to stop: do not use it */
        else if (rc == HK_OK)
            rc = r->error;
        break;
    }
    gpu_hold_finish(&h, p, o, rc == HK_OK ? r : NULL);
out:
    runner_pool_free(p); /* kills anything still running (whole groups) */
    gpu_unlock(&h);
    return rc;
}

static double now_ms(void)
{
    return hk_now_s() * 1e3;
}

/* A --combos process's progress: its output files appear one by one, in order. */
typedef struct {
    const char *dir;
    const measure_combo *combos;
    size_t n;
    unsigned progress_ms;   /* longest wait for the next file */
    bool stalled;           /* killed for making no progress */
    size_t done;            /* files seen */
    /* a candidate (measure_check): each file is compared with ref_dir's as soon as it
     * appears, while the program runs the next combination; the first mismatch ends the
     * process (mismatch) */
    const char *ref_dir;
    measure_verdict *v;
    size_t compared;
    bool mismatch;          /* ended early: a wrong answer, or compare_rc */
    int compare_rc;         /* a comparison that could not be made (HK_EIO, HK_ENOMEM) */
} run_watch;

static int compare_one(const measure_opts *o, const char *dir, const char *ref_dir,
                       const measure_combo *c, measure_verdict *v);

static bool watch_file(const run_watch *w, size_t k)
{
    char *path = measure_run_out_path(w->dir, &w->combos[k]);
    bool there = path && access(path, F_OK) == 0;
    hk_free(path);
    return there;
}

/* measure_run_argv with a watchdog: the process is killed (timed out, w->stalled) when no
 * new output file appears for w->progress_ms, so a kernel that never terminates costs one
 * combination's limit, not the whole process's. */
static int run_argv_watch(const measure_opts *o, const runner_spec *rs,
                          enum measure_gpu_hold how, runner_result *r, run_watch *w)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    if (measure_stopped(o))
        return HK_ECANCELED;
    gpu_hold h;
    int rc = gpu_lock(o, rs, how, &h);
    if (rc) {
        gpu_unlock(&h);
        return rc;
    }
    runner_pool *p = NULL;
    if ((rc = runner_pool_new(1, &p)))
        goto out;
    runner_spec s = gpu_spec(&h, rs);
    if ((rc = runner_pool_submit(p, &s, NULL)))
        goto out;
    double t0 = now_ms(), last = t0;
    for (;;) {
        rc = runner_pool_wait(p, STOP_POLL_MS, NULL, r);
        if (rc == HK_ETIMEDOUT) {
            if (measure_stopped(o)) {
                runner_pool_cancel(p);
                rc = HK_ECANCELED;
                break;
            }
            double delayed = h.delayed_s;
            gpu_hold_poll(&h, p);
            last += (h.delayed_s - delayed) * 1e3; /* waiting its turn is no stall */
            double now = now_ms();
            while (w->done < w->n && watch_file(w, w->done)) {
                w->done++;
                last = now;
            }
            bool compared = false;
            while (w->ref_dir && w->compared < w->done && w->v->reason == MEASURE_OK &&
                   !w->compare_rc) {
                w->compare_rc = compare_one(o, w->dir, w->ref_dir, &w->combos[w->compared++],
                                            w->v);
                compared = true;
            }
            if (w->compare_rc || (w->ref_dir && w->v->reason != MEASURE_OK)) {
                /* wrong already: the rest of the process is not worth waiting for */
                runner_pool_cancel(p);
                memset(r, 0, sizeof *r);
                r->exit_code = -1;
                r->wall_ms = (long)(now_ms() - t0);
                w->mismatch = true;
                rc = HK_OK;
                break;
            }
            if (compared)
                last = now_ms(); /* the time spent comparing is ours, not a stall */
            if (now - last > (double)w->progress_ms) {
                runner_pool_cancel(p); /* kills the whole group; no result is delivered */
                memset(r, 0, sizeof *r);
                r->exit_code = -1;
                r->timed_out = true;
                r->wall_ms = (long)(now - t0);
                w->stalled = true;
                rc = HK_OK;
                break;
            }
            continue;
        }
        if (rc == HK_OK && measure_stopped(o))
            rc = HK_ECANCELED;
        else if (rc == HK_OK)
            rc = r->error;
        break;
    }
    gpu_hold_finish(&h, p, o, rc == HK_OK ? r : NULL);
out:
    runner_pool_free(p);
    gpu_unlock(&h);
    return rc;
}

/* ---- building ---- */

void measure_build_free(measure_build *b)
{
    if (!b)
        return;
    hk_free(b->dir);
    hk_free(b->src);
    hk_free(b->prog);
    hk_free(b->exe);
    hk_free(b->module);
    hk_free(b->function);
    hk_free(b->name);
    harness_argv_free(b->argv);
    hk_strv_free(b->sandbox_rw);
    hk_strv_free(b->sandbox_ro);
    memset(b, 0, sizeof *b);
}

/* s as one shell word. New string or NULL. */
static char *sh_quote(const char *s)
{
    struct hk_buf b;
    hk_buf_init(&b, 1u << 16);
    int rc = hk_buf_appends(&b, "'");
    for (; rc == HK_OK && *s; s++)
        rc = *s == '\'' ? hk_buf_appends(&b, "'\\''") : hk_buf_append(&b, s, 1);
    if (rc == HK_OK)
        rc = hk_buf_appends(&b, "'");
    if (rc != HK_OK) {
        hk_buf_free(&b);
        return NULL;
    }
    return hk_buf_steal(&b);
}

/* Appends argv as a shell command line to b; the word equal to placeholder (if any) is
 * written as the quoted path + ".tmp.$$" instead. */
static int sh_command(struct hk_buf *b, char *const *argv, const char *placeholder, const char *path)
{
    int rc = HK_OK;
    for (size_t i = 0; rc == HK_OK && argv[i]; i++) {
        bool ph = placeholder && !strcmp(argv[i], placeholder);
        char *q = sh_quote(ph ? path : argv[i]);
        rc = q ? hk_buf_printf(b, "%s%s%s", i ? " " : "", q, ph ? ".tmp.$$" : "") : HK_ENOMEM;
        hk_free(q);
    }
    return rc == HK_OK ? hk_buf_appends(b, "\n") : rc;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
    return (h ^ 0xFF) * 0x100000001B3ull; /* a separator, so "ab"+"c" != "a"+"bc" */
}

/* Folds a file's bytes into h; a missing file folds its absence. */
static uint64_t fnv1a_file(uint64_t h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fnv1a(h, "(missing)");
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ (unsigned char)buf[i]) * 0x100000001B3ull;
    fclose(f);
    return fnv1a(h, "");
}

/* Folds the compiler's identity into h: the resolved file, its size and mtime, so an
 * upgraded toolkit at the same path builds anew. */
static uint64_t fnv1a_tool(uint64_t h, const char *tool)
{
    char *real = tool && strchr(tool, '/') ? realpath(tool, NULL) : NULL;
    struct stat st;
    char id[128] = "(unresolved)";
    if (real && stat(real, &st) == 0)
        snprintf(id, sizeof id, "%lld:%lld", (long long)st.st_size, (long long)st.st_mtime);
    h = fnv1a(fnv1a(h, real ? real : (tool ? tool : "nvcc")), id);
    free(real);
    return h;
}

/* Where launchers are kept: HK_CACHE_DIR/launchers, else the user's cache
 * ($XDG_CACHE_HOME or ~/.cache)/hyperkernel/launchers, shared by every episode on the
 * machine: a launcher is generated from the spec alone (no candidate text) and named by
 * the hash of everything it is built from. Else, or when that folder cannot be made,
 * next to the candidates (work/launchers). New string (hk_free) or NULL on ENOMEM. */
static char *launcher_root(const char *work)
{
    const char *env = getenv("HK_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char *root = NULL;
    if (env && *env == '/')
        root = hk_asprintf("%s/launchers", env);
    else if (xdg && *xdg == '/')
        root = hk_asprintf("%s/hyperkernel/launchers", xdg);
    else if (home && *home == '/')
        root = hk_asprintf("%s/.cache/hyperkernel/launchers", home);
    if (root && measure_mkdirs(root) == HK_OK && access(root, W_OK) == 0)
        return root;
    hk_free(root);
    return hk_asprintf("%s/launchers", work);
}

static enum cc_backend measure_backend(const measure_opts *o);

/* The device-only build of b: module.cu, the shared launcher's source under
 * launcher_root()/HASH, and dir/build.sh building the launcher when it is missing (under
 * a lock, so parallel candidates build it once), then the image: kernel.cubin (nvcc
 * -ptx into kernel.cubin.ptx, then nvcc -cubin of that PTX), or for a DCU kernel.co (hipcc --genco; the
 * launcher is then built with hipcc and loads it with hipModuleLoad). extra: the candidate's own compiler flags (with -Xptxas -v,
 * or clang's resource remarks and the CUDA header shims for a DCU). */
static int prepare_image(const measure_opts *o, measure_build *b, const char *const *extra)
{
    bool dcu = measure_backend(o) == CC_DCU;
    char *launcher = NULL, *ldir = NULL, *parent = NULL, *modsrc = NULL, *modtext = NULL;
    char *script = NULL, **largv = NULL, **rargv = NULL, **cargv = NULL, *qsh = NULL;
    char *root = NULL, *rtdir = NULL, *rt = NULL, *qexe = NULL, *qrt = NULL;
    char *ptx = NULL, *qptx = NULL;
    struct hk_buf sh;
    hk_buf_init(&sh, 1u << 20);
    int rc = HK_OK;
    TRY(harness_generate(o->spec, NULL, &launcher));
    /* The runtime every launcher links (hk_launcher_rt.cu: hk_harness.h's CUDA part, no spec
     * in it), built once per command, header text and compiler: named by the hash of those */
    TRY(harness_launcher_rt_argv(o->nvcc, o->arch, o->include_dir, "@RT@", &rargv));
    const char *idir = o->include_dir ? o->include_dir : harness_include_dir();
    static const char *const headers[] = { "hk_harness.h", "hk_gpulock.h", "hk_hip.h",
                                           "hk_launcher_rt.cu" };
    uint64_t hr = fnv1a(0xCBF29CE484222325ull, "launcher runtime");
    for (size_t i = 0; rargv[i]; i++)
        hr = fnv1a(hr, rargv[i]);
    for (size_t i = 0; i < HK_ARRAY_LEN(headers); i++) {
        char *path = hk_asprintf("%s/%s", idir, headers[i]);
        if (!path) {
            rc = HK_ENOMEM;
            goto out;
        }
        hr = fnv1a_file(hr, path);
        hk_free(path);
    }
    hr = fnv1a_tool(hr, o->nvcc);
    /* everything the launcher is built from: its text, the command, the runtime it links
     * (whose hash covers the harness headers and the compiler) and the compiler itself */
    TRY(harness_launcher_argv(o->nvcc, o->arch, o->include_dir, "bench.cpp", "@RT@", "@OUT@",
                              &largv));
    uint64_t h = fnv1a(0xCBF29CE484222325ull, launcher);
    for (size_t i = 0; largv[i]; i++)
        h = fnv1a(h, largv[i]);
    char hrtext[32];
    snprintf(hrtext, sizeof hrtext, "%016llx", (unsigned long long)hr);
    h = fnv1a_tool(fnv1a(h, hrtext), o->nvcc);
    if (!(parent = dir_of(b->dir)) || !(root = launcher_root(parent)) ||
        !(ldir = hk_asprintf("%s/%016llx", root, (unsigned long long)h)) ||
        !(rtdir = hk_asprintf("%s/rt-%s", root, hrtext)) ||
        !(rt = hk_asprintf("%s/hk_launcher_rt.o", rtdir)) ||
        !(b->prog = hk_asprintf("%s/bench.cpp", ldir)) || !(b->exe = hk_asprintf("%s/bench", ldir)) ||
        !(modsrc = hk_asprintf("%s/module.cu", b->dir)) ||
        !(b->module = hk_asprintf("%s/%s", b->dir, dcu ? "kernel.co" : "kernel.cubin")) ||
        !(script = hk_asprintf("%s/build.sh", b->dir))) {
        rc = HK_ENOMEM;
        goto out;
    }
    /* the cache is the user's alone: other accounts must not plant a launcher in it */
    rc = measure_mkdirs(ldir);
    if (rc == HK_OK)
        rc = measure_mkdirs(rtdir);
    if (rc == HK_OK)
        (void)chmod(root, 0700);
    if (rc)
        goto out;
    struct stat st;
    /* A cached entry must hold exactly the launcher this spec generates (its name is a hash
     * of that text, so anything else was written by someone other than hkls): throw such an
     * entry's source and program away and build them again. */
    if (stat(b->prog, &st) == 0 && !file_equals(b->prog, launcher, strlen(launcher))) {
        HK_WARN("measure: cached launcher %s is not the one this spec generates: rebuilt",
                b->prog);
        if ((unlink(b->prog) != 0 && errno != ENOENT) || (unlink(b->exe) != 0 && errno != ENOENT)) {
            rc = HK_EIO;
            goto out;
        }
    }
    if (stat(b->prog, &st) != 0) {
        /* written under a private name and renamed: a parallel build never reads half */
        char *tmp = hk_asprintf("%s.%d.tmp", b->prog, (int)getpid());
        rc = tmp ? write_file(tmp, launcher, strlen(launcher)) : HK_ENOMEM;
        if (rc == HK_OK && rename(tmp, b->prog) != 0)
            rc = HK_EIO;
        hk_free(tmp);
        if (rc)
            goto out;
    }
    /* the launcher's argv names its source and the runtime's object by their full paths */
    for (size_t i = 0; largv[i]; i++)
        if (!strcmp(largv[i], "bench.cpp") || !strcmp(largv[i], "@RT@")) {
            char *v = hk_strdup(!strcmp(largv[i], "@RT@") ? rt : b->prog);
            if (!v) {
                rc = HK_ENOMEM;
                goto out;
            }
            hk_free(largv[i]);
            largv[i] = v;
        }
    TRY(harness_module_generate(o->spec, b->src, &modtext));
    TRY(write_file(modsrc, modtext, strlen(modtext)));
    TRY(harness_image_argv(o->spec, o->nvcc, o->arch, o->include_dir, extra, modsrc, b->module,
                           &cargv));
    if (!(qexe = sh_quote(b->exe)) || !(qrt = sh_quote(rt))) {
        rc = HK_ENOMEM;
        goto out;
    }
    /* Parallel candidates of one spec wait on the launcher's lock (flock(1), where it is
     * installed) rather than each building it, and launchers of different specs on the
     * runtime's; the renames keep a reader from ever running or linking half a file either
     * way. */
    rc = hk_buf_printf(&sh, "#!/bin/sh\n# Written by hkls: the launcher for this spec (built once, "
                            /* i18n: not for people (a shell script) */
                            "shared) with the launchers' runtime (built once per compiler and "
                            "arch, shared),\n# then the candidate's device-only image.\nset -e\n"
                            "if [ ! -x %s ]; then\n"
                            "  if command -v flock >/dev/null 2>&1; then exec 9>%s.lock && "
                            "flock 9; fi\n"
                            "  if [ ! -x %s ]; then\n"
                            "    if [ ! -f %s ]; then\n"
                            "      if command -v flock >/dev/null 2>&1; then exec 8>%s.lock && "
                            "flock 8; fi\n"
                            "      if [ ! -f %s ]; then\n        ", qexe, qexe, qexe, qrt, qrt, qrt);
    if (rc == HK_OK)
        rc = sh_command(&sh, rargv, "@RT@", rt);
    if (rc == HK_OK)
        rc = hk_buf_printf(&sh, "        mv -f %s.tmp.$$ %s\n      fi\n      exec 8>&-\n    fi\n    ",
                           qrt, qrt); /* i18n: not for people (a shell script) */
    if (rc == HK_OK)
        rc = sh_command(&sh, largv, "@OUT@", b->exe);
    if (rc == HK_OK)
        rc = hk_buf_printf(&sh, "    mv -f %s.tmp.$$ %s\n  fi\n  exec 9>&-\nfi\n", /* i18n: not for people */
                           qexe, qexe);
    if (rc == HK_OK && dcu) {
        /* -save-temps=obj keeps clang's assembly (module-hip-amdgcn-amd-amdhsa-ARCH.s), which
         * the referee reads for clock reads (measure_clock_check): with it the device code
         * is assembled from exactly that file into the code object. The preprocessed text
         * and the bitcode it also keeps (~2 MB) are not needed. */
        for (size_t i = 0; rc == HK_OK && cargv[i]; i++) {
            char *q = sh_quote(cargv[i]);
            rc = q ? hk_buf_printf(&sh, "%s%s%s", i ? " " : "", q, i ? "" : " -save-temps=obj")
                   : HK_ENOMEM;
            hk_free(q);
        }
        if (rc == HK_OK)
            rc = hk_buf_appends(&sh, "\nrm -f module-hip-*.cui module-hip-*.bc module-hip-*.o "
                                     "module-hip-*.out module-hip-*.resolution.txt module-host-*\n");
    } else if (rc == HK_OK) {
        /* in two steps, as nvcc -cubin itself runs them: the PTX (kept as MODULE.ptx, which
         * the referee reads for clock reads: measure_clock_check), then the image assembled
         * from exactly that PTX (the same cubin, byte for byte, as one -cubin call) */
        if (!(ptx = hk_asprintf("%s.ptx", b->module)) || !(qptx = sh_quote(ptx))) {
            rc = HK_ENOMEM;
            goto out;
        }
        rc = hk_buf_printf(&sh, "rm -f %s\n", qptx);
        for (int step = 0; step < 2 && rc == HK_OK; step++) {
            for (size_t i = 0; rc == HK_OK && cargv[i]; i++) {
                const char *arg = cargv[i];
                if (step == 0 && !strcmp(arg, "-cubin"))
                    arg = "-ptx";
                else if (step == 0 && i && !strcmp(cargv[i - 1], "-o"))
                    arg = ptx;
                else if (step == 1 && !strcmp(arg, modsrc))
                    arg = ptx;
                char *q = sh_quote(arg);
                rc = q ? hk_buf_printf(&sh, "%s%s%s", step && !i ? "exec " : "", i ? " " : "", q)
                       : HK_ENOMEM;
                hk_free(q);
            }
            if (rc == HK_OK)
                rc = hk_buf_appends(&sh, "\n");
        }
    }
    if (rc)
        goto out;
    TRY(write_file(script, sh.data, sh.len));
    if (!(b->argv = hk_calloc(3, sizeof *b->argv)) || !(b->argv[0] = hk_strdup("/bin/sh")) ||
        !(b->argv[1] = hk_strdup(script))) {
        rc = HK_ENOMEM;
        goto out;
    }
out:
    hk_buf_free(&sh);
    hk_free(ptx);
    hk_free(qptx);
    hk_free(launcher);
    hk_free(ldir);
    hk_free(parent);
    hk_free(root);
    hk_free(rtdir);
    hk_free(rt);
    hk_free(qexe);
    hk_free(qrt);
    hk_free(modsrc);
    hk_free(modtext);
    hk_free(script);
    hk_free(qsh);
    harness_argv_free(largv);
    harness_argv_free(rargv);
    harness_argv_free(cargv);
    return rc;
}

/* The compiler family of o's arch: a gfx ISA ("gfx906") is built with hipcc for a DCU /
 * AMD GPU (o->nvcc then holds hipcc's path), anything else with nvcc. */
static enum cc_backend measure_backend(const measure_opts *o)
{
    return o && o->arch && !strncmp(o->arch, "gfx", 3) ? CC_DCU : CC_NVIDIA;
}

/* The CUDA headers a candidate written for nvcc may include, answered for a HIP build by
 * one-line files that include hk_hip.h (which maps the CUDA names). */
static const char *const cuda_shims[] = {"cuda_runtime.h", "cuda_runtime_api.h", "cuda_fp16.h",
                                         "cuda_bf16.h", "device_launch_parameters.h"};

/* Writes the shims into dir/hip_compat; *inc: new "dir/hip_compat" for -I. */
static int write_cuda_shims(const char *dir, char **inc)
{
    static const char shim[] = "/* Written by hkls for a HIP (DCU) build of CUDA source: the CUDA "
                               /* i18n: not for people (a C header) */
                               "runtime names\n * come from hk_hip.h (never the harness: a "
                               "candidate's code object holds its own code alone). */\n"
                               "#include \"hk_hip.h\"\n";
    *inc = hk_asprintf("%s/hip_compat", dir);
    if (!*inc)
        return HK_ENOMEM;
    int rc = measure_mkdirs(*inc);
    for (size_t i = 0; rc == HK_OK && i < HK_ARRAY_LEN(cuda_shims); i++) {
        char *p = hk_asprintf("%s/%s", *inc, cuda_shims[i]);
        rc = p ? write_file(p, shim, sizeof shim - 1) : HK_ENOMEM;
        hk_free(p);
    }
    return rc;
}

/* Pushes dir_of(path) and, when it differs, the folder of path's real file. */
static void push_dir_of(struct hk_strv *sv, const char *path)
{
    if (!path || !strchr(path, '/'))
        return;
    hk_strv_push_own(sv, dir_of(path));
    char *real = realpath(path, NULL);
    if (real)
        hk_strv_push_own(sv, dir_of(real));
    free(real);
}

/* May folder p (l bytes, absolute) of HK_COMPILE_WRITABLE be writable in a compile's sandbox?
 * Not "/", not "/tmp" and not a folder above dir (the build's): each would bring back the
 * other builds, references and secrets that the private /tmp hides (a log beside the clone
 * under /tmp made ./hk test pass "/tmp" here in session 34). */
static bool writable_may_open(const char *p, size_t l, const char *dir)
{
    while (l > 1 && p[l - 1] == '/')
        l--;
    if (l == 1 || (l == 4 && !strncmp(p, "/tmp", 4)))
        return false;
    return !(dir && !strncmp(dir, p, l) && dir[l] == '/');
}

/* b->sandbox_rw and b->sandbox_ro (measure_build): what a compile of candidate text may write
 * and the folders it must still read inside the sandbox. HK_OK, HK_ENOMEM. */
static int sandbox_dirs(const measure_opts *o, measure_build *b)
{
    struct hk_strv rw = {0}, ro = {0};
    hk_strv_push(&rw, b->dir);
    if (b->module) { /* build.sh builds a missing launcher and runtime into the cache */
        char *parent = dir_of(b->dir);
        hk_strv_push_own(&rw, parent ? launcher_root(parent) : NULL);
        hk_free(parent);
    }
    /* the user's own extra folders (a compiler wrapper's cache: ./hk test's nvcc_cache) */
    const char *env = getenv("HK_COMPILE_WRITABLE");
    for (const char *p = env; p && *p;) {
        size_t l = strcspn(p, ":");
        if (l && *p == '/') {
            if (writable_may_open(p, l, b->dir))
                hk_strv_push_own(&rw, hk_strndup(p, l));
            else
                HK_WARN("measure: HK_COMPILE_WRITABLE's %.*s left out: it holds /tmp or the build's own "
                        "folder, and would open every other build and reference to the compile",
                        (int)l, p);
        }
        p += l + (p[l] == ':');
    }
    hk_strv_push(&ro, o->include_dir ? o->include_dir : harness_include_dir());
    for (size_t i = 0; i < o->spec->n_include_dirs; i++)
        hk_strv_push(&ro, o->spec->include_dirs[i]);
    push_dir_of(&ro, o->nvcc);
    /* a compiler, or its wrapper, found on PATH; PATH's folders under /tmp are hidden by the
     * private /tmp otherwise */
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t l = strcspn(p, ":");
        if (l > 5 && !strncmp(p, "/tmp/", 5))
            hk_strv_push_own(&ro, hk_strndup(p, l));
        p += l + (p[l] == ':');
    }
    b->sandbox_rw = hk_strv_done(&rw);
    b->sandbox_ro = hk_strv_done(&ro);
    return b->sandbox_rw && b->sandbox_ro ? HK_OK : HK_ENOMEM;
}

int measure_build_prepare(const measure_opts *o, const char *dir, const char *text, size_t len,
                          const char *const *flags, measure_build *b)
{
    char *shim_inc = NULL;
    memset(b, 0, sizeof *b);
    if (!o || !o->spec || !dir || !text)
        return HK_EINVAL;
    const char *extra[64];
    size_t n = 0;
    bool dcu = measure_backend(o) == CC_DCU;
    if (dcu) { /* clang's resource remarks: VGPRs, SGPRs, LDS, spills */
        extra[n++] = "-Rpass-analysis=kernel-resource-usage";
    } else {
        extra[n++] = "-Xptxas";
        extra[n++] = "-v";
    }
    for (size_t i = 0; flags && flags[i]; i++) {
        if (n + 1 >= HK_ARRAY_LEN(extra))
            return HK_ETOOBIG;
        extra[n++] = flags[i];
    }
    extra[n] = NULL;
    int rc = measure_mkdirs(dir);
    if (rc)
        return rc;
    char *abs = realpath(dir, NULL); /* the program #includes the candidate by this path */
    if (!abs)
        return HK_EIO;
    b->dir = hk_strdup(abs);
    free(abs);
    if (!b->dir)
        return HK_ENOMEM;
    if (dcu) {
        if (n + 2 >= HK_ARRAY_LEN(extra)) {
            rc = HK_ETOOBIG;
            goto out;
        }
        TRY(write_cuda_shims(b->dir, &shim_inc));
        extra[n++] = "-I";
        extra[n++] = shim_inc;
        extra[n] = NULL;
    }
    b->src = hk_asprintf("%s/kernel.cu", b->dir);
    b->prog = hk_asprintf("%s/bench.cu", b->dir);
    b->exe = hk_asprintf("%s/bench", b->dir);
    if (!b->src || !b->prog || !b->exe) {
        rc = HK_ENOMEM;
        goto out;
    }
    TRY(write_file(b->src, text, len));
    if (!o->library_call) {
        hk_free(b->prog);
        hk_free(b->exe);
        b->prog = b->exe = NULL;
        TRY(prepare_image(o, b, extra));
        goto out;
    }
    TRY(harness_write(o->spec, b->src, b->prog));
    TRY(harness_nvcc_argv(o->spec, o->nvcc, o->arch, o->include_dir, extra, b->prog, b->exe,
                          &b->argv));
out:
    if (rc == HK_OK)
        rc = sandbox_dirs(o, b);
    hk_free(shim_inc);
    if (rc)
        measure_build_free(b);
    return rc;
}

/* A positive whole number from the environment variable name; 0 when unset or not one. */
static unsigned long long env_count(const char *name)
{
    const char *v = getenv(name);
    char *end = NULL;
    if (!v || !*v)
        return 0;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    return errno || *end || n > (1ull << 40) ? 0 : n;
}

/* The limits of a compile of candidate text: measure_opts.compile_*, else
 * $HK_COMPILE_CPU_S / $HK_COMPILE_FILE_MB / $HK_COMPILE_MEMORY_MB, else MEASURE_COMPILE_*. */
static void compile_limits(const measure_opts *o, unsigned *cpu, uint64_t *file, uint64_t *mem)
{
    unsigned long long e;
    *cpu = o->compile_cpu_seconds ? o->compile_cpu_seconds
           : (e = env_count("HK_COMPILE_CPU_S")) && e < 1000000 ? (unsigned)e
                                                                : MEASURE_COMPILE_CPU_S;
    *file = o->compile_file_max ? o->compile_file_max
            : (e = env_count("HK_COMPILE_FILE_MB")) ? (uint64_t)e << 20 : MEASURE_COMPILE_FILE_MAX;
    *mem = o->compile_memory_max ? o->compile_memory_max
           : (e = env_count("HK_COMPILE_MEMORY_MB")) ? (uint64_t)e << 20 : MEASURE_COMPILE_MEMORY_MAX;
}

void measure_build_runner_spec(const measure_opts *o, const measure_build *b, runner_spec *rs)
{
    memset(rs, 0, sizeof *rs);
    rs->argv = (const char *const *)b->argv;
    rs->cwd = b->dir;
    rs->timeout_ms = o->compile_timeout_ms ? o->compile_timeout_ms : 180000;
    rs->output_max = OUTPUT_MAX;
    /* The compiler is trusted, but the text it reads is not: a bomb in it is stopped by the
     * runner's limits, as a benchmark program's runaway is (MEASURE_COMPILE_*) */
    compile_limits(o, &rs->cpu_seconds, &rs->file_max, &rs->memory_max);
    /* ... and what it reads is not either: an #include or a directive that the host-code
     * rule missed could read another candidate's files, the references or the user's, and
     * quote them back through the image or the compiler's errors. So the compile runs in the
     * benchmark programs' sandbox (o->isolation, AUTO: the strongest here): a read-only
     * root, a private /tmp, no network, only the candidate's directory and the launchers'
     * cache writable (docs/referee.md, "The compile's sandbox"). There TMPDIR is the private
     * /tmp, where the compiler's temporaries go: a TMPDIR elsewhere is read-only or hidden. */
    static const char *const env_set[] = {"TMPDIR=/tmp", NULL};
    rs->isolation = o->isolation;
    rs->writable = (const char *const *)b->sandbox_rw;
    rs->readable = (const char *const *)b->sandbox_ro;
    enum runner_isolation iso =
        o->isolation == RUNNER_ISO_AUTO ? runner_isolation_available() : o->isolation;
    if (iso == RUNNER_ISO_BWRAP || iso == RUNNER_ISO_NAMESPACES)
        rs->env_set = env_set;
}

void measure_compile_clear(measure_compile *c)
{
    if (!c)
        return;
    hk_free(c->details);
    cc_result_free(&c->cc);
    memset(c, 0, sizeof *c);
}

/* The first error lines of a failed compile: the parsed errors when there are any, else
 * the head of the raw output (a linker or driver failure has no file:line). */
static char *compile_details(const measure_compile *c, const runner_result *r,
                             const char *name)
{
    struct hk_buf b;
    hk_buf_init(&b, MEASURE_MAX_DETAILS);
    int shown = 0;
    for (size_t i = 0; i < c->cc.n_diags && shown < 10; i++) {
        const cc_diag *d = &c->cc.diags[i];
        if (d->severity != CC_ERROR)
            continue;
        const char *base = d->file ? strrchr(d->file, '/') : NULL;
        base = base ? base + 1 : d->file;
        if (base && name && !strcmp(base, "kernel.cu"))
            base = name;
        int rc = d->file ? hk_buf_printf(&b, "%s:%d: error: %s\n", base, d->line, d->message)
                         : hk_buf_printf(&b, "error: %s\n", d->message);
        if (rc)
            break;
        shown++;
    }
    if (!shown) {
        const char *texts[2] = {r->err, r->out};
        int lines = 0;
        for (int t = 0; t < 2 && lines < 20; t++) {
            const char *s = texts[t];
            while (s && *s && lines < 20) {
                const char *nl = strchr(s, '\n');
                size_t l = nl ? (size_t)(nl - s) : strlen(s);
                /* resource reports (ptxas -v, clang's remarks) are not errors */
                if (l && strncmp(s, "ptxas info", 10) != 0 && !memmem(s, l, " remark: ", 9)) {
                    if (hk_buf_append(&b, s, l) || hk_buf_appends(&b, "\n"))
                        break;
                    lines++;
                }
                s = nl ? nl + 1 : s + l;
            }
        }
        if (!lines)
            (void)hk_buf_printf(&b, hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_SILENT), r->exit_code);
    }
    char *s = hk_buf_steal(&b);
    return s ? s : hk_strdup(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_FAILED));
}

/* A built image: its entry for the spec's kernel, kept in b and in MODULE.fn (what
 * measure_run_program passes to the launcher). No entry is a compile error that says which
 * entries the image has. */
static int find_entry(const measure_opts *o, const measure_build *b, measure_compile *out)
{
    char **names = NULL, *fn = NULL, *why = NULL, *path = NULL;
    int rc = kimage_entries(b->module, &names);
    if (rc == HK_ENOMEM)
        return rc;
    if (rc) {
        out->details = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_IMAGE_UNREADABLE),
                                   b->module, hk_strerror(rc));
        return out->details ? HK_OK : HK_ENOMEM;
    }
    rc = kimage_find(names, o->spec->kernel, o->spec->template_args, o->spec->n_template_args,
                     &fn, &why);
    kimage_names_free(names);
    if (rc == HK_ENOMEM)
        goto out;
    if (rc) {
        out->details = why ? why : hk_strdup(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_NO_ENTRY));
        why = NULL;
        rc = out->details ? HK_OK : HK_ENOMEM;
        goto out;
    }
    if (!(path = hk_asprintf("%s.fn", b->module))) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = write_file(path, fn, strlen(fn))))
        goto out;
    /* the build is the caller's const record, but its entry name belongs to it */
    hk_free(((measure_build *)b)->function);
    ((measure_build *)b)->function = fn;
    fn = NULL;
    out->ok = true;
out:
    hk_free(fn);
    hk_free(why);
    hk_free(path);
    return rc;
}

static bool either_has(const runner_result *r, const char *what)
{
    return (r->err && strcasestr(r->err, what)) || (r->out && strcasestr(r->out, what));
}

/* A failed compile that one of its limits stopped (measure_build_runner_spec), in words that
 * name the limit; NULL when no limit explains it (or on ENOMEM: *nomem). The limits apply to
 * every process of the compile, and the one stopped is mostly a compiler's child (cicc,
 * ptxas, cc1plus, clang's cc1), whose end the job sees only in what the driver prints
 * ("CPU time limit exceeded", "signal 25", "out of memory") and in its exit status (128 +
 * the signal); a memory cgroup's OOM kill is seen in the cgroup. A candidate can make a
 * compiler print those words, and gains nothing by it: it is refused either way. */
static char *compile_limit_words(const measure_opts *o, const runner_result *r, bool *nomem)
{
    unsigned cpu;
    uint64_t file, mem;
    compile_limits(o, &cpu, &file, &mem);
    int status = r->term_signal ? 128 + r->term_signal : r->exit_code;
    char *s = NULL;
    /* In bubblewrap's sandbox (and the namespace one) the job's rusage misses what ran
     * inside (its pid namespace's init does not hand it on; the cgroup's count is read where
     * cgroup v2 gives one): a SIGKILL that no memory limit and no timeout explains, after at
     * least the CPU limit's time on the wall clock, is the hard CPU limit */
    bool sandboxed = r->isolation == RUNNER_ISO_BWRAP || r->isolation == RUNNER_ISO_NAMESPACES;
    long cpu_seen = sandboxed && r->cpu_ms < r->wall_ms ? r->wall_ms : r->cpu_ms;
    /* the words below are the compilers' and the C library's, matched in their output */
    if (r->cpu_limit_hit || status == 128 + SIGXCPU ||
        either_has(r, "CPU time limit exceeded") /* i18n: not for people */ ||
        either_has(r, "signal 24") ||
        ((status == 128 + SIGKILL || either_has(r, "signal 9")) && !r->memory_limit_hit &&
         !r->timed_out && cpu_seen >= (long)cpu * 1000))
        s = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_CPU_LIMIT), cpu);
    else if (r->file_limit_hit || status == 128 + SIGXFSZ ||
             either_has(r, "File size limit exceeded") /* i18n: not for people */ ||
             either_has(r, "signal 25") ||
             either_has(r, "File too large") /* i18n: not for people */)
        s = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_FILE_LIMIT),
                        (unsigned long long)(file >> 20));
    else if (r->memory_limit_hit ||
             either_has(r, "out of memory") /* i18n: not for people */ ||
             either_has(r, "memory exhausted") ||
             either_has(r, "Cannot allocate memory") /* i18n: not for people */ ||
             either_has(r, "bad_alloc"))
        s = hk_asprintf(hk_tr_in(HK_LANG_EN, r->memory == RUNNER_MEM_RLIMIT_AS
                                                 ? HK_MSG_MEAS_CC_MEMORY_LIMIT_AS
                                             : r->memory == RUNNER_MEM_NONE
                                                 ? HK_MSG_MEAS_CC_MEMORY_LIMIT_NONE
                                                 : HK_MSG_MEAS_CC_MEMORY_LIMIT),
                        (unsigned long long)(mem >> 20));
    else
        return NULL;
    *nomem = !s;
    return s;
}

int measure_build_finish(const measure_opts *o, const measure_build *b, const runner_result *r,
                         measure_compile *out)
{
    enum cc_backend be = measure_backend(o);
    memset(out, 0, sizeof *out);
    out->wall_ms = r->wall_ms;
    if (r->error) {
        out->details = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_NOT_STARTED),
                                   hk_strerror(r->error));
        return out->details ? HK_OK : HK_ENOMEM;
    }
    int rc = HK_OK;
    if (r->out_len)
        rc = cc_parse_output(be, r->out, r->out_len, &out->cc);
    if (!rc && r->err_len)
        rc = cc_parse_output(be, r->err, r->err_len, &out->cc);
    if (rc)
        return rc;
    /* clang's remarks do not name the arch; the build was for o->arch alone */
    for (size_t i = 0; be == CC_DCU && i < out->cc.n_res; i++)
        if (!out->cc.res[i].arch && !(out->cc.res[i].arch = hk_strdup(o->arch)))
            return HK_ENOMEM;
    out->cc.exit_code = r->exit_code;
    out->cc.timed_out = r->timed_out;
    if (r->timed_out) {
        out->details = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_CC_TOOK_TOO_LONG), r->wall_ms);
    } else if (r->exit_code != 0 || r->term_signal) {
        bool nomem = false;
        char *limit = compile_limit_words(o, r, &nomem), *d = NULL;
        if (nomem)
            return HK_ENOMEM;
        if (!(d = compile_details(out, r, b ? b->name : NULL)) || !limit) {
            out->details = d;
            hk_free(limit);
        } else {
            out->details = hk_asprintf("%s:\n%s", limit, d);
            hk_free(limit);
            hk_free(d);
        }
    } else if (b && b->module) {
        return find_entry(o, b, out);
    } else {
        out->ok = true;
        return HK_OK;
    }
    return out->details ? HK_OK : HK_ENOMEM;
}

int measure_build_compile(const measure_opts *o, const measure_build *b, measure_compile *out)
{
    memset(out, 0, sizeof *out);
    runner_spec rs;
    runner_result r;
    measure_build_runner_spec(o, b, &rs);
    int rc = measure_run_argv(o, &rs, &r);
    if (rc == HK_OK || rc == HK_ENOENT || rc == HK_EIO)
        rc = measure_build_finish(o, b, &r, out); /* a missing compiler is a compile error */
    runner_result_free(&r);
    return rc;
}

json_t *measure_resources_json(const measure_compile *c, const char *kernel)
{
    for (size_t i = 0; c && i < c->cc.n_res; i++) {
        const cc_resource *r = &c->cc.res[i];
        if (kernel && r->base_name && strcmp(r->base_name, kernel) != 0)
            continue;
        return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "kernel",
                         r->kernel ? r->kernel : "", "mangled", r->mangled ? r->mangled : "",
                         "arch", r->arch ? r->arch : "", "registers", r->registers,
                         "spill_stores", r->spill_stores, "spill_loads", r->spill_loads, "stack",
                         r->stack, "smem_static", r->smem_static, "cmem", r->cmem, "barriers",
                         r->barriers, "spills", cc_resource_spills(r));
    }
    return NULL;
}

/* ---- combinations ---- */

int measure_combos(const spec *s, long long seed_offset, measure_combo **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!s || !s->n_sizes || !s->n_seeds || !s->n_dists)
        return HK_EINVAL;
    size_t n = s->n_sizes * s->n_seeds * s->n_dists;
    measure_combo *c = hk_calloc(n, sizeof *c);
    if (!c)
        return HK_ENOMEM;
    size_t k = 0;
    for (size_t z = 0; z < s->n_sizes; z++)
        for (size_t d = 0; d < s->n_dists; d++)
            for (size_t e = 0; e < s->n_seeds; e++)
                c[k++] = (measure_combo){(int)z, (int)d, s->seeds[e] + seed_offset};
    *out = c;
    *n_out = n;
    return HK_OK;
}

/* Elements in all buffers at size k: what a run at that size costs. */
static double size_cost(const spec *s, size_t k)
{
    double total = 0;
    for (size_t i = 0; i < s->n_args; i++) {
        expr_value v;
        char err[64];
        if (s->args[i].count && spec_eval(s, s->args[i].count, k, 132, &v, err, sizeof err) == HK_OK)
            total += expr_value_double(v);
    }
    return total;
}

int measure_combos_quick(const spec *s, long long seed_offset, measure_combo **out,
                         size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!s || !s->n_sizes || !s->n_seeds || !s->n_dists)
        return HK_EINVAL;
    size_t small = 0;
    for (size_t z = 1; z < s->n_sizes; z++)
        if (size_cost(s, z) < size_cost(s, small))
            small = z;
    size_t n = s->n_seeds * s->n_dists + (s->n_sizes - 1) * s->n_dists;
    measure_combo *c = hk_calloc(n, sizeof *c);
    if (!c)
        return HK_ENOMEM;
    size_t k = 0;
    for (size_t d = 0; d < s->n_dists; d++)
        for (size_t e = 0; e < s->n_seeds; e++)
            c[k++] = (measure_combo){(int)small, (int)d, s->seeds[e] + seed_offset};
    for (size_t z = 0; z < s->n_sizes; z++)
        for (size_t d = 0; z != small && d < s->n_dists; d++)
            c[k++] = (measure_combo){(int)z, (int)d, s->seeds[0] + seed_offset};
    *out = c;
    *n_out = k;
    return HK_OK;
}

/* ---- one program run ---- */

void measure_run_clear(measure_run *r)
{
    if (!r)
        return;
    hk_free(r->details);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

/* The program's one JSON line: the last stdout line that parses as an object. */
static json_t *last_json_line(const char *text)
{
    json_t *found = NULL;
    const char *s = text;
    while (s && *s) {
        const char *nl = strchr(s, '\n');
        size_t l = nl ? (size_t)(nl - s) : strlen(s);
        if (l && *s == '{') {
            json_t *j = json_loadb(s, l, 0, NULL);
            if (json_is_object(j)) {
                json_decref(found);
                found = j;
            } else {
                json_decref(j);
            }
        }
        s = nl ? nl + 1 : s + l;
    }
    return found;
}

/* The last few lines of text (for a crash's details). */
static const char *tail_of(const char *text, int lines)
{
    if (!text || !*text)
        return "";
    const char *e = text + strlen(text);
    while (e > text && e[-1] == '\n')
        e--;
    const char *p = e;
    while (p > text && lines > 0) {
        p--;
        if (*p == '\n')
            lines--;
    }
    return p == text ? p : p + 1;
}

/* wrapper + argv as one new argv (harness_argv_free); argv is consumed. */
static int prepend_argv(const char *const *wrapper, char ***argv)
{
    size_t nw = 0, na = 0;
    while (wrapper[nw])
        nw++;
    while ((*argv)[na])
        na++;
    char **v = hk_calloc(nw + na + 1, sizeof *v);
    if (!v)
        return HK_ENOMEM;
    for (size_t i = 0; i < nw; i++)
        if (!(v[i] = hk_strdup(wrapper[i]))) {
            harness_argv_free(v);
            return HK_ENOMEM;
        }
    for (size_t i = 0; i < na; i++)
        v[nw + i] = (*argv)[i];
    hk_free(*argv); /* the strings moved into v */
    *argv = v;
    return HK_OK;
}

static int run_program(const measure_opts *o, const measure_prog *p, const char *cwd,
                       const harness_run *hr, run_watch *watch, measure_run *out);

int measure_run_program(const measure_opts *o, const measure_prog *p, const char *cwd,
                        const harness_run *hr, measure_run *out)
{
    return run_program(o, p, cwd, hr, NULL, out);
}

int measure_read_entry(const char *module, char **out)
{
    char *path = hk_asprintf("%s.fn", module), buf[1024];
    *out = NULL;
    if (!path)
        return HK_ENOMEM;
    FILE *f = fopen(path, "rb");
    hk_free(path);
    if (!f)
        return HK_ENOENT;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (!n || n == sizeof buf - 1)
        return HK_EPARSE;
    return (*out = hk_strdup(buf)) ? HK_OK : HK_ENOMEM;
}

static int run_program(const measure_opts *o, const measure_prog *p, const char *cwd,
                       const harness_run *hr, run_watch *watch, measure_run *out)
{
    /* the verdict of a comparison made while it ran is the caller's; the run itself is
     * only "stopped early" */
    memset(out, 0, sizeof *out);
    int rc;
    harness_run run = *hr;
    run.block = p->block;
    char *fn = NULL, *ref_fn = NULL, *moddir = NULL, *refdir = NULL;
    if (p->module) { /* a launcher: the image and its entry (found when it was built) */
        if ((rc = measure_read_entry(p->module, &fn)))
            return rc;
        run.module = p->module;
        run.function = fn;
        run.promote = p->promote;
        run.shmem_scale = p->shmem_scale;
    }
    if (p->module && p->ref_module && !strcmp(run.mode, "time") &&
        strcmp(p->ref_module, p->module) != 0) {
        if ((rc = measure_read_entry(p->ref_module, &ref_fn))) {
            hk_free(fn);
            return rc;
        }
        run.ref_module = p->ref_module;
        run.ref_function = ref_fn;
    }
    if (!strcmp(run.mode, "time") && run.budget_ms <= 0 && o->time_budget_ms > 0)
        run.budget_ms = o->time_budget_ms;
    char **argv = NULL, *exedir = NULL, *wrapdir = NULL;
    runner_result r;
    memset(&r, 0, sizeof r);
    rc = harness_run_argv(p->exe, &run, &argv);
    if (rc)
        goto out;
    if (o->wrapper && o->wrapper[0] && (rc = prepend_argv(o->wrapper, &argv)))
        goto out;
    if (!(exedir = dir_of(p->exe))) {
        rc = HK_ENOMEM;
        goto out;
    }
    bool timing = !strcmp(run.mode, "time");
    /* a wrapper under /tmp must stay visible under bwrap's private /tmp too */
    if (o->wrapper && o->wrapper[0] && o->wrapper[0][0] == '/' && !(wrapdir = dir_of(o->wrapper[0]))) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((p->module && !(moddir = dir_of(p->module))) ||
        (run.ref_module && !(refdir = dir_of(run.ref_module)))) {
        rc = HK_ENOMEM;
        goto out;
    }
    /* the launcher's directory is shared and read-only to it, and so is the reference
     * kernel's (the baseline's image, timed beside the candidate); the candidate's own
     * directory (its image, its output files) is where it writes. Both lists are packed:
     * a NULL ends them, so an absent wrapper must not hide the directories after it. */
    const char *writable[3] = {0}, *readable[3] = {0};
    size_t nw = 0, nr = 0;
    writable[nw++] = moddir ? moddir : exedir;
    if (wrapdir)
        writable[nw++] = wrapdir;
    if (moddir)
        readable[nr++] = exedir; /* the shared launcher */
    if (refdir)
        readable[nr++] = refdir;
    unsigned per_combo = o->run_timeout_ms ? o->run_timeout_ms : 60000;
    double run_total = (double)per_combo * (double)(run.n_combos > 1 ? run.n_combos : 1);
    runner_spec rs = {
        .argv = (const char *const *)argv,
        .cwd = cwd,
        .timeout_ms = timing ? (o->time_timeout_ms ? o->time_timeout_ms : 120000)
                             : (unsigned)(run_total < 4e9 ? run_total : 4e9),
        .output_max = OUTPUT_MAX,
        .memory_max = o->memory_max,
        .gpu = true,
        .isolation = o->isolation,
        /* the program lives in its build directory: keep it visible under bwrap's /tmp */
        .writable = writable,
        .readable = readable,
    };
    /* The program holds the GPU lock shared for its whole life and exclusively around its
     * timed loop alone (hk_harness.h's hk_time), so other episodes' programs initialize,
     * allocate and check beside it but never run a kernel while it times. */
    if (watch) {
        watch->progress_ms = per_combo;
        rc = run_argv_watch(o, &rs, MEASURE_GPU_HANDED, &r, watch);
    } else {
        rc = measure_run_argv_held(o, &rs, MEASURE_GPU_HANDED, &r);
    }
    out->wall_ms = r.wall_ms;
    out->isolation_words = r.isolation_words;
    if (rc == HK_ENOENT || rc == HK_EIO || rc == HK_EUNSUPPORTED) {
        out->reason = MEASURE_HARNESS_ERROR;
        out->details = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RUN_NOT_STARTED), p->exe,
                                   hk_strerror(rc));
        rc = out->details ? HK_OK : HK_ENOMEM;
        goto out;
    }
    if (rc)
        goto out;
    out->json = last_json_line(r.out);
    if (hk_log_get_level() >= HK_LOG_DEBUG) { /* where an episode's minutes go (HK_LOG_LEVEL) */
        char *ph = json_dumps(json_object_get(out->json, "phase_ms"), JSON_COMPACT | JSON_ENCODE_ANY);
        HK_DEBUG("measure: %s %s, size %d, %zu combination(s)%s: %ld ms, the program's phases %s",
                 p->exe, run.mode, run.size, run.n_combos ? run.n_combos : 1,
                 watch ? ", compared as it ran" : "", r.wall_ms, ph ? ph : "-");
        free(ph);
    }
    const char *msg = json_string_value(json_object_get(out->json, "message"));
    if (watch && watch->mismatch) {
        out->reason = MEASURE_OK; /* ended by us on a wrong answer, see the verdict */
        goto out;
    } else if (watch && watch->stalled) {
        out->reason = MEASURE_TIMEOUT;
        out->details = hk_trf(HK_MSG_MEAS_STALLED, watch->progress_ms / 1e3, watch->done + 1,
                              watch->n);
    } else if (r.timed_out) {
        out->reason = MEASURE_TIMEOUT;
        out->details = hk_trf(HK_MSG_MEAS_NO_RESULT, rs.timeout_ms / 1000);
    } else if (r.cpu_limit_hit || r.file_limit_hit || r.memory_limit_hit) {
        out->reason = MEASURE_RESOURCE_LIMIT;
        out->details = hk_asprintf("%s limit hit", r.cpu_limit_hit    ? "CPU time"
                                                   : r.file_limit_hit ? "file size"
                                                                      : "memory");
    } else if (r.term_signal) {
        out->reason = MEASURE_CRASH;
        out->details = hk_trf(HK_MSG_MEAS_KILLED, r.term_signal, hk_signal_words(r.term_signal),
                              *r.err ? ": " : "", tail_of(r.err, 3));
    } else if (r.exit_code != 0) {
        out->reason = measure_reason_from_exit(r.exit_code);
        if (msg)
            out->details = hk_asprintf("%s", msg);
        else
            out->details = hk_trf(HK_MSG_MEAS_EXIT_STATUS, r.exit_code,
                                  harness_exit_reason(r.exit_code), *r.err ? ": " : "",
                                  tail_of(r.err, 3));
    } else if (!out->json || json_object_get(out->json, "error")) {
        out->reason = MEASURE_HARNESS_ERROR;
        out->details = msg ? hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RUN_NO_RESULT_SAYS),
                                         msg)
                           : hk_strdup(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_RUN_NO_RESULT));
    } else {
        out->reason = MEASURE_OK;
        goto out;
    }
    if (out->details && strlen(out->details) > MEASURE_MAX_DETAILS)
        out->details[MEASURE_MAX_DETAILS] = '\0';
    rc = out->details ? HK_OK : HK_ENOMEM;
out:
    runner_result_free(&r);
    harness_argv_free(argv);
    hk_free(exedir);
    hk_free(wrapdir);
    hk_free(moddir);
    hk_free(refdir);
    hk_free(fn);
    hk_free(ref_fn);
    if (rc && rc != HK_ECANCELED)
        HK_WARN("measure: running %s failed: %s", p->exe, hk_strerror(rc));
    return rc;
}

/* ---- verdicts ---- */

void measure_verdict_init(measure_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->max_abs_err = NAN;
    v->max_rel_err = NAN;
    v->precision_ratio = NAN;
    v->where.size = -1;
}

/* A combination's group in the pool (oracle_ref64_judge_groups): its size and distribution. */
#define REF64_GROUP(size, dist) ((size) * 256 + (dist))
#define REF64_GROUP_SIZE(g) ((g) / 256)
#define REF64_GROUP_DIST(g) ((g) % 256)

/* Errors against the fp64 reference, one list per output argument, a run per
 * combination compared: the spec's distributions in out, the referee's own (spec.h,
 * n_referee_dists) apart in added (its real-valued one for integer-valued specs) and grid
 * (its exact-arithmetic one, oracle_ref64_judge_exact), so that each is judged on its own
 * and a verdict can name the distribution that decided. */
struct measure_ref64_pool {
    struct ref64_output {
        int dtype;
        size_t runs, cap;
        oracle_ref64_err *base, *cand;
        int *group; /* each run's combination, REF64_GROUP(size, dist) */
    } out[HK_MAX_ARGS], added[HK_MAX_ARGS], grid[HK_MAX_ARGS];
};

static void ref64_pool_free(struct measure_ref64_pool *p)
{
    for (size_t i = 0; p && i < HK_MAX_ARGS; i++) {
        hk_free(p->out[i].base);
        hk_free(p->out[i].cand);
        hk_free(p->out[i].group);
        hk_free(p->added[i].base);
        hk_free(p->added[i].cand);
        hk_free(p->added[i].group);
        hk_free(p->grid[i].base);
        hk_free(p->grid[i].cand);
        hk_free(p->grid[i].group);
    }
    hk_free(p);
}

void measure_verdict_clear(measure_verdict *v)
{
    if (!v)
        return;
    hk_free(v->details);
    hk_free(v->launch_changed);
    ref64_pool_free(v->ref64);
    measure_verdict_init(v);
}

int measure_verdict_set(measure_verdict *v, enum measure_reason reason, const char *fmt, ...)
{
    va_list ap;
    char buf[MEASURE_MAX_DETAILS + 1];
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    hk_utf8_trim(buf); /* a Chinese detail cut at its size */
    char *d = hk_strdup(buf);
    if (!d)
        return HK_ENOMEM;
    hk_free(v->details);
    v->details = d;
    v->reason = reason;
    return HK_OK;
}

char *measure_run_out_path(const char *dir, const measure_combo *c)
{
    char *name = harness_run_out_name(c->size, c->dist, c->seed);
    char *path = name ? hk_asprintf("%s/%s", dir, name) : NULL;
    hk_free(name);
    return path;
}

char *measure_time_out_path(const char *dir, int size)
{
    return hk_asprintf("%s/time-s%d.out", dir, size);
}

static void fold_errors(measure_verdict *v, double abs_err, double rel_err)
{
    if (!isnan(abs_err) && (isnan(v->max_abs_err) || abs_err > v->max_abs_err))
        v->max_abs_err = abs_err;
    if (!isnan(rel_err) && (isnan(v->max_rel_err) || rel_err > v->max_rel_err))
        v->max_rel_err = rel_err;
}

/* measure_compare_files; precision: the combination's distribution is the referee's, where
 * float outputs are left to the fp64 rule (oracle_compare_precision). */
static int compare_files(const measure_opts *o, const char *ref_path, const char *cand_path,
                         bool precision, const measure_combo *where, measure_verdict *v)
{
    oracle_result res;
    memset(&res, 0, sizeof res);
    if (access(cand_path, R_OK) != 0) /* exit 0 but no file: the program misbehaved */
        return measure_verdict_set(v, MEASURE_HARNESS_ERROR, hk_tr(HK_MSG_MEAS_NO_OUTPUT), cand_path);
    oracle_widen widen[HK_MAX_ARGS];
    bool wide = !precision && where && measure_widen_fill(o->widen, where->size, where->dist,
                                                          widen);
    int rc = precision ? oracle_compare_files_precision(o->spec, ref_path, cand_path, &res)
                       : oracle_compare_files_widened(o->spec, ref_path, cand_path,
                                                      wide ? widen : NULL, &res);
    v->n_widened += res.n_widened + (res.l2_widened ? 1 : 0);
    if (rc) {
        HK_WARN("measure: reference %s unusable: %s", ref_path, res.reason);
        return rc == HK_ENOMEM ? rc : HK_EIO;
    }
    if (!precision) /* there, errors against the baseline say nothing: it is inaccurate too */
        fold_errors(v, res.max_abs, res.max_rel);
    if (!res.pass) /* the oracle's reason names the output, the first bad element, the errors */
        rc = measure_verdict_set(v, MEASURE_WRONG_ANSWER, hk_tr(HK_MSG_MEAS_WRONG_ANSWER),
                                 res.reason, res.max_abs, res.max_rel);
    return rc;
}

int measure_compare_files(const measure_opts *o, const char *ref_path, const char *cand_path,
                          measure_verdict *v)
{
    return compare_files(o, ref_path, cand_path, false, NULL, v);
}

/* Appends "prefix: " to v's details (which combination failed). */
/* d (new, stolen; NULL: out of memory, the details stay) in place of v->details: a
 * sentence of the table that quotes them, in English like every stored sentence (said
 * again where it is shown: hk_tr_said). */
static void details_set(measure_verdict *v, char *d)
{
    if (d) {
        hk_free(v->details);
        v->details = d;
    }
}

#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)
#define DETAILS(v) ((v)->details ? (v)->details : "")

/* The end of the run of combinations from i0 that share combos[i0]'s size (at most
 * HK_MAX_COMBOS): they go to one process. */
static size_t group_end(const measure_combo *combos, size_t n, size_t i0)
{
    size_t i1 = i0 + 1;
    while (i1 < n && i1 - i0 < HK_MAX_COMBOS && combos[i1].size == combos[i0].size)
        i1++;
    return i1;
}

/* The spec's sizes other than size, into out (HK_MAX_PRIME_SIZES): what a candidate's
 * process for size launches first (--prime-sizes). Their count; 0 for a spec of one size. */
static size_t prime_sizes(const spec *s, int size, int *out)
{
    size_t n = 0;
    for (size_t k = 0; s && k < s->n_sizes && n < HK_MAX_PRIME_SIZES; k++)
        if ((int)k != size)
            out[n++] = (int)k;
    return n;
}

/* The file a reference run leaves in its directory when the baseline's own launches leave
 * a writable global of its image changed (the launcher's sentence in it): a candidate
 * checked against those references then gets its globals restored before every launch but
 * is not rejected for changing them (a kernel that keeps a __device__ scratch array, and
 * every rewrite of it, would be), and its launch_state check says so. */
#define LAUNCH_STATE_FILE "launch-state.txt"

static bool baseline_changes_globals(const char *ref_dir)
{
    char *path = hk_asprintf("%s/" LAUNCH_STATE_FILE, ref_dir);
    bool there = path && access(path, R_OK) == 0;
    hk_free(path);
    return there;
}

/* What a run-mode process said about its image's writable globals ("launch_state" in its
 * result line), into v; a reference run's change is also written to dir/LAUNCH_STATE_FILE.
 * HK_OK, HK_ENOMEM, HK_EIO. */
static int note_launch_state(const measure_run *r, const char *dir, bool reference,
                             measure_verdict *v)
{
    const json_t *ls = json_object_get(r->json, "launch_state");
    const json_t *g = json_object_get(ls, "globals");
    const char *changed = json_string_value(json_object_get(ls, "changed"));
    if (json_is_integer(g) && json_integer_value(g) > v->launch_globals)
        v->launch_globals = (long)json_integer_value(g);
    if (!changed)
        return HK_OK;
    if (!v->launch_changed && !(v->launch_changed = hk_strdup(changed)))
        return HK_ENOMEM;
    if (!reference)
        return HK_OK;
    char *path = hk_asprintf("%s/" LAUNCH_STATE_FILE, dir);
    FILE *f = path ? fopen(path, "w") : NULL;
    int rc = !path ? HK_ENOMEM : f && fprintf(f, "%s\n", changed) >= 0 ? HK_OK : HK_EIO;
    if (f && fclose(f) != 0)
        rc = HK_EIO;
    hk_free(path);
    return rc;
}

/* The record of the launch-state rule (run_group, docs/referee.md "Every launch starts from
 * the same device state"): the image has writable globals, the launcher restored them
 * before every launch, and (a candidate's) no launch left them changed, or (the baseline,
 * or a candidate whose baseline's own launches change theirs) the first change, restored
 * before the next launch. NULL (no entry) for an image without writable globals. New
 * reference. */
static json_t *launch_state_check(const measure_verdict *v, const char *role, bool lenient)
{
    if (v->launch_globals <= 0)
        return NULL;
    json_t *j = json_pack("{s:s, s:s, s:i, s:s}", "check", "launch_state", "role", role,
                          "globals", (int)v->launch_globals, "result",
                          v->launch_changed ? "restored" : "pass");
    if (j && v->launch_changed)
        json_object_set_new(j, "changed", json_string(v->launch_changed));
    if (j && lenient)
        json_object_set_new(j, "why",
                            json_string(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_LAUNCH_LENIENT)));
    return j;
}

/* One run-mode process for combos[i0, i1) (one size), writing every output into dir.
 * A candidate's (ref_dir set: compared with the baseline's) first launches once at every
 * other size of the spec, so that a result depending on what those launches left in
 * device memory is caught here; the baseline's does not (a latent bug there would corrupt
 * the references everything is compared with).
 * *r is the process outcome; when it failed, *fail_at is the failing combination (the
 * program names it in its error line; i0 when it could not say, e.g. a crash, or when a
 * priming launch failed). */
static int run_group(const measure_opts *o, const measure_prog *p, const char *dir,
                     const char *ref_dir, const measure_combo *combos, size_t i0, size_t i1,
                     measure_run *r, size_t *fail_at, size_t *compared, measure_verdict *v)
{
    size_t n = i1 - i0;
    long long *seeds = hk_calloc(n, sizeof *seeds);
    int *dists = hk_calloc(n, sizeof *dists);
    int prime[HK_MAX_PRIME_SIZES];
    int rc = HK_OK;
    memset(r, 0, sizeof *r);
    *fail_at = i1;
    if (!seeds || !dists) {
        rc = HK_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        seeds[i] = combos[i0 + i].seed;
        dists[i] = combos[i0 + i].dist;
    }
    harness_run hr = {.mode = "run", .size = combos[i0].size, .check_seed = -1,
                      .n_combos = n, .combo_seeds = seeds, .combo_dists = dists,
                      .out_dir = dir};
    if (ref_dir) {
        hr.n_prime_sizes = prime_sizes(o->spec, combos[i0].size, prime);
        hr.prime_sizes = prime;
        /* a candidate's launch may not leave its globals changed, unless the baseline's
         * does too (restored either way) */
        hr.launch_state_check = p->module && !baseline_changes_globals(ref_dir);
    }
    run_watch w = {.dir = dir, .combos = combos + i0, .n = n, .ref_dir = ref_dir, .v = v};
    rc = run_program(o, p, dir, &hr, &w, r);
    *compared = i0 + w.compared;
    if (rc == HK_OK && w.compare_rc)
        rc = w.compare_rc;
    if (rc || w.mismatch)
        goto out;
    if (r->wall_ms > v->max_wall_ms)
        v->max_wall_ms = r->wall_ms;
    if (r->reason == MEASURE_OK && (rc = note_launch_state(r, dir, !ref_dir, v)))
        goto out;
    long per = (long)((r->wall_ms + (long)n - 1) / (long)n);
    if (r->reason == MEASURE_OK && per > v->max_combo_wall_ms)
        v->max_combo_wall_ms = per;
    if (r->reason == MEASURE_OK)
        goto out;
    const json_t *js = json_object_get(r->json, "seed"), *jd = json_object_get(r->json, "dist");
    if (json_is_integer(js) && json_is_integer(jd)) {
        *fail_at = i0;
        for (size_t i = i0; i < i1; i++)
            if (combos[i].seed == json_integer_value(js) &&
                combos[i].dist == json_integer_value(jd)) {
                *fail_at = i;
                break;
            }
        goto out;
    }
    /* It could not say (a crash, a timeout): a file is written only after its
     * combination's checks passed, so the first one missing is where it failed. */
    for (*fail_at = i0; *fail_at < i1; (*fail_at)++) {
        char *path = measure_run_out_path(dir, &combos[*fail_at]);
        if (!path) {
            rc = HK_ENOMEM;
            goto out;
        }
        bool there = access(path, R_OK) == 0;
        hk_free(path);
        if (!there)
            break;
    }
    if (*fail_at == i1)
        *fail_at = i1 - 1; /* every file is there, yet it failed: blame the last */
out:
    hk_free(seeds);
    hk_free(dists);
    return rc;
}

/* The verdict for a process that failed at combination c. */
static int group_failure(measure_verdict *v, const measure_run *r, const char *role,
                         const measure_combo *c)
{
    int rc = measure_verdict_set(v, r->reason, hk_tr(HK_MSG_MEAS_FAILED_AT),
                                 role, c->size, c->seed, c->dist,
                                 r->details ? r->details : measure_reason_name(r->reason));
    v->where = *c;
    return rc;
}

/* Compares combination c's output in dir with ref_dir's, folding the verdict into v (the
 * combination named in its details), and deletes the candidate's file. */
/* Adds combination c's errors (the baseline's file ref, the candidate's file cand) against
 * the fp64 shadow's output of the same combination to v's pool. A shadow file that is
 * missing or does not match the baseline's layout adds nothing (the reference does not
 * cover that combination). HK_OK, HK_ENOMEM. */
static int ref64_add(const measure_opts *o, const char *ref, const char *cand,
                     const measure_combo *c, measure_verdict *v)
{
    bool added = spec_dist_is_referee(o->spec, (size_t)c->dist);
    bool grid = spec_dist_is_grid(o->spec, (size_t)c->dist);
    oracle_file fr = {0}, fb = {0}, fc = {0};
    char err[256];
    char *path64 = measure_run_out_path(o->ref64_dir, c);
    int rc = HK_OK;
    if (!path64)
        return HK_ENOMEM;
    if (oracle_read(path64, &fr, err, sizeof err) != HK_OK ||
        oracle_read(ref, &fb, err, sizeof err) != HK_OK ||
        oracle_read(cand, &fc, err, sizeof err) != HK_OK || fr.n != fb.n || fb.n != fc.n)
        goto out;
    if (!v->ref64 && !(v->ref64 = hk_calloc(1, sizeof *v->ref64))) {
        rc = HK_ENOMEM;
        goto out;
    }
    for (size_t k = 0; k < fb.n; k++) {
        const oracle_output *r = &fr.outputs[k], *b = &fb.outputs[k], *x = &fc.outputs[k];
        if (r->dtype != HK_DT_F64 || b->dtype == HK_DT_F64 || r->arg_index != b->arg_index ||
            x->arg_index != b->arg_index || r->count != b->count || x->count != b->count ||
            x->dtype != b->dtype || b->arg_index >= HK_MAX_ARGS)
            continue; /* not a promoted output: the tolerance rule alone */
        struct ref64_output *po = grid ? &v->ref64->grid[b->arg_index]
                                  : added ? &v->ref64->added[b->arg_index]
                                          : &v->ref64->out[b->arg_index];
        if (po->runs == po->cap) {
            size_t nc = po->cap ? 2 * po->cap : 8;
            oracle_ref64_err *nb = hk_realloc(po->base, nc * sizeof *nb);
            if (!nb) {
                rc = HK_ENOMEM;
                goto out;
            }
            po->base = nb;
            oracle_ref64_err *nx = hk_realloc(po->cand, nc * sizeof *nx);
            if (!nx) {
                rc = HK_ENOMEM;
                goto out;
            }
            po->cand = nx;
            int *ng = hk_realloc(po->group, nc * sizeof *ng);
            if (!ng) {
                rc = HK_ENOMEM;
                goto out;
            }
            po->group = ng;
            po->cap = nc;
        }
        /* the reference's elements are doubles at an 8-aligned offset of the file */
        const double *ref64 = (const double *)(const void *)r->data;
        if (oracle_ref64_error(ref64, b->data, b->dtype, b->count, &po->base[po->runs]) ||
            oracle_ref64_error(ref64, x->data, x->dtype, x->count, &po->cand[po->runs]))
            continue;
        po->dtype = b->dtype;
        po->group[po->runs] = REF64_GROUP(c->size, c->dist);
        po->runs++;
    }
out:
    oracle_file_free(&fr);
    oracle_file_free(&fb);
    oracle_file_free(&fc);
    hk_free(path64);
    return rc;
}

/* The fp64 rule over v's pool, once every combination passed the tolerance rule: each
 * output's error may be at most k times the baseline's own plus a floor (oracle.h). The
 * spec's distributions first, then the referee's own on their own pools: there this rule
 * is the only judge of a float output's accuracy (v->precision says what it found); on
 * its grid distribution, each size where the baseline is exact on its own
 * (oracle_ref64_judge_exact). */
static int ref64_judge(const measure_opts *o, measure_verdict *v)
{
    const spec *s = o->spec;
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; v->ref64 && v->reason == MEASURE_OK && i < HK_MAX_ARGS; i++) {
            const struct ref64_output *po = pass == 2 ? &v->ref64->grid[i]
                                          : pass == 1 ? &v->ref64->added[i]
                                                      : &v->ref64->out[i];
            if (!po->runs)
                continue;
            oracle_rule rule = oracle_default_rule(po->dtype);
            oracle_ref64_result res;
            int group = -1;
            size_t group_runs = 0;
            if (pass == 2 ? oracle_ref64_judge_exact(po->dtype, po->base, po->cand, po->group, po->runs,
                                                     &rule, &res, &group, &group_runs, NULL)
                          : oracle_ref64_judge_groups(po->dtype, po->base, po->cand, po->group, po->runs,
                                                      &rule, &res, &group, &group_runs))
                return HK_ENOMEM;
            const char *name = i < s->n_args ? s->args[i].name : "?";
            if (pass) {
                v->precision = res.pass && v->precision != MEASURE_PRECISION_FAIL
                                   ? MEASURE_PRECISION_PASS : MEASURE_PRECISION_FAIL;
                if (isnan(v->precision_ratio) || res.ratio > v->precision_ratio)
                    v->precision_ratio = res.ratio;
            }
            if (res.pass)
                continue;
            if (pass == 2) {
                size_t d = s->n_dists - 1; /* the grid is the referee's last */
                for (size_t k = 0; k < s->n_dists; k++)
                    if (spec_dist_is_grid(s, k))
                        d = k;
                const char *text = d < s->n_dists ? s->dist_texts[d] : "?";
                if (group < 0) /* the sizes where the baseline is not exact, pooled */
                    return measure_verdict_set(v, MEASURE_WRONG_ANSWER, hk_tr(HK_MSG_MEAS_FP64_GRID_POOLED),
                                               name, d, text, group_runs, res.reason);
                return measure_verdict_set(v, MEASURE_WRONG_ANSWER, hk_tr(HK_MSG_MEAS_FP64_GRID), name,
                                           REF64_GROUP_SIZE(group), d, text, group_runs, res.reason);
            }
            if (group >= 0) {
                int d = REF64_GROUP_DIST(group);
                return measure_verdict_set(v, MEASURE_WRONG_ANSWER, hk_tr(HK_MSG_MEAS_FP64_GROUP), name,
                                           REF64_GROUP_SIZE(group), d,
                                           d >= 0 && (size_t)d < s->n_dists ? s->dist_texts[d] : "?", group_runs,
                                           po->runs, res.reason);
            }
            if (pass) { /* the referee's real-valued distribution: its first */
                size_t d = s->n_dists - s->n_referee_dists;
                return measure_verdict_set(v, MEASURE_WRONG_ANSWER,
                                           hk_tr(HK_MSG_MEAS_FP64_ADDED), name, d,
                                           s->dist_texts[d], po->runs, res.reason);
            }
            return measure_verdict_set(v, MEASURE_WRONG_ANSWER,
                                       hk_tr(HK_MSG_MEAS_FP64), name, po->runs, res.reason);
        }
    }
    return HK_OK;
}

static int compare_one(const measure_opts *o, const char *dir, const char *ref_dir,
                       const measure_combo *c, measure_verdict *v)
{
    char *path = measure_run_out_path(dir, c), *ref = measure_run_out_path(ref_dir, c);
    bool added = spec_dist_is_referee(o->spec, (size_t)c->dist);
    int rc = path && ref ? compare_files(o, ref, path, added, c, v) : HK_ENOMEM;
    if (rc == HK_OK && added && v->reason == MEASURE_OK)
        v->precision_runs++;
    if (rc == HK_OK && v->reason != MEASURE_OK) {
        v->where = *c;
        details_set(v, added ? hk_asprintf(EN(MEAS_AT_COMBO_ADDED), c->size, (long long)c->seed,
                                           c->dist, o->spec->dist_texts[c->dist], DETAILS(v))
                             : hk_asprintf(EN(MEAS_AT_COMBO), c->size, (long long)c->seed,
                                           c->dist, DETAILS(v)));
    } else if (rc == HK_OK) {
        v->n_checked++;
        if (o->ref64_dir)
            rc = ref64_add(o, ref, path, c, v);
    }
    if (path)
        unlink(path); /* outputs can be GBs: keep only the references */
    hk_free(path);
    hk_free(ref);
    return rc;
}

int measure_reference(const measure_opts *o, const measure_prog *p, const char *ref_dir,
                      const measure_combo *combos, size_t n, measure_verdict *v)
{
    int rc = measure_mkdirs(ref_dir);
    for (size_t i0 = 0; rc == HK_OK && i0 < n && v->reason == MEASURE_OK;) {
        size_t i1 = group_end(combos, n, i0), fail_at = i1, compared = i0;
        measure_run r;
        rc = run_group(o, p, ref_dir, NULL, combos, i0, i1, &r, &fail_at, &compared, v);
        if (rc == HK_OK && r.reason != MEASURE_OK)
            rc = group_failure(v, &r, hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_BASELINE_FAILED),
                               &combos[fail_at]);
        measure_run_clear(&r);
        for (size_t i = i0; rc == HK_OK && v->reason == MEASURE_OK && i < i1; i++) {
            char *path = measure_run_out_path(ref_dir, &combos[i]);
            if (!path) {
                rc = HK_ENOMEM;
            } else if (access(path, R_OK) != 0) {
                rc = measure_verdict_set(v, MEASURE_HARNESS_ERROR,
                                         hk_tr(HK_MSG_MEAS_BASE_NO_OUTPUT), path);
                v->where = combos[i];
            } else {
                v->n_checked++;
            }
            hk_free(path);
        }
        i0 = i1;
    }
    return rc;
}

int measure_check(const measure_opts *o, const measure_prog *p, const char *dir,
                  const char *ref_dir, const measure_combo *combos, size_t n,
                  measure_verdict *v)
{
    int rc = measure_mkdirs(dir);
    for (size_t i0 = 0; rc == HK_OK && i0 < n && v->reason == MEASURE_OK;) {
        size_t i1 = group_end(combos, n, i0), fail_at = i1, compared = i0;
        measure_run r;
        rc = run_group(o, p, dir, ref_dir, combos, i0, i1, &r, &fail_at, &compared, v);
        /* Files not compared while it ran, up to a failure, are compared now, so the
         * verdict is the first failure in combination order, as one process each gave. */
        for (size_t i = compared; rc == HK_OK && v->reason == MEASURE_OK && i < i1 && i < fail_at; i++)
            rc = compare_one(o, dir, ref_dir, &combos[i], v);
        for (size_t i = i0; i < i1; i++) { /* whatever is left of a stopped or failed run */
            char *path = measure_run_out_path(dir, &combos[i]);
            char *part = path ? hk_asprintf("%s.part", path) : NULL;
            if (path)
                unlink(path);
            if (part)
                unlink(part); /* killed while writing */
            hk_free(path);
            hk_free(part);
        }
        if (rc == HK_OK && v->reason == MEASURE_OK && r.reason != MEASURE_OK)
            rc = group_failure(v, &r, "failed", &combos[fail_at]);
        measure_run_clear(&r);
        i0 = i1;
    }
    if (rc == HK_OK && v->reason == MEASURE_OK && o->ref64_dir)
        rc = ref64_judge(o, v);
    /* the referee's distribution ran, but no reference covered a float output of it */
    if (rc == HK_OK && v->reason == MEASURE_OK && v->precision_runs &&
        v->precision == MEASURE_PRECISION_NONE)
        v->precision = MEASURE_PRECISION_NOT_JUDGED;
    return rc;
}

/* ---- the sensitivity check ---- */

typedef struct {
    const measure_opts *o;
    const measure_prog *bp, *cp;
    const char *dir;
    int size, dist;
    long long seed, perturb_seed;
} sens_ctx;

/* oracle_sens_run_fn: one run-mode process of the baseline or the candidate on (size, seed,
 * dist), perturbed at scale (0: not) by plan kind, its output file read and deleted. */
static int sens_run(void *ctx, bool baseline, double scale, int kind, oracle_file *out, char *why,
                    size_t len)
{
    const sens_ctx *x = ctx;
    measure_prog p = *(baseline ? x->bp : x->cp);
    p.promote = 0; /* the program itself, never its fp64 shadow */
    p.shmem_scale = 0;
    p.ref_module = NULL;
    char *path = hk_asprintf("%s/sens-%c-%d-%d-%g.out", x->dir, baseline ? 'b' : 'c', x->dist, kind, scale);
    if (!path)
        return HK_ENOMEM;
    harness_run hr = {.mode = "run", .size = x->size, .seed = x->seed, .dist = x->dist,
                      .check_seed = -1, .out = path, .perturb = scale > 0.0,
                      .perturb_seed = x->perturb_seed, .perturb_scale = scale, .perturb_kind = kind};
    measure_run r;
    int rc = measure_run_program(x->o, &p, x->dir, &hr, &r);
    if (rc == HK_OK && r.reason != MEASURE_OK) {
        snprintf(why, len, "%s: %s", measure_reason_name(r.reason), r.details ? r.details : "");
        rc = ORACLE_SENS_RUN_FAILED;
    } else if (rc == HK_OK) {
        char err[256];
        if (oracle_read(path, out, err, sizeof err) != HK_OK) {
            snprintf(why, len, "%s", err);
            rc = ORACLE_SENS_RUN_FAILED;
        }
    }
    measure_run_clear(&r);
    unlink(path);
    hk_free(path);
    return rc;
}

size_t measure_sens_dists(const spec *s, long long seed, int dists[MEASURE_SENS_MAX_DISTS])
{
    if (!s || s->form != SPEC_FORM_HARNESS)
        return 0;
    size_t eligible = 0;
    int all[64];
    for (size_t d = 0; d < s->n_dists && eligible < sizeof all / sizeof *all; d++) {
        bool any = false;
        for (size_t i = 0; i < s->n_args && !any; i++) {
            const spec_arg *a = &s->args[i];
            any = (a->kind == HK_ARG_INPUT || a->kind == HK_ARG_INOUT) && d < a->n_dists &&
                  hk_perturb_eligible(a->dtype, a->dists[d]);
        }
        if (any)
            all[eligible++] = (int)d;
    }
    if (eligible <= MEASURE_SENS_MAX_DISTS) {
        memcpy(dists, all, eligible * sizeof *all);
        return eligible;
    }
    uint64_t z = (uint64_t)seed + 0x9E3779B97F4A7C15ull; /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    size_t first = (size_t)((z ^ (z >> 31)) % eligible);
    for (size_t k = 0; k < MEASURE_SENS_MAX_DISTS; k++)
        dists[k] = all[(first + k) % eligible];
    return MEASURE_SENS_MAX_DISTS;
}

int measure_sensitivity(const measure_opts *o, const measure_prog *bp, const measure_prog *cp,
                        const char *dir, int size, long long seed, char **note, int *runs,
                        measure_verdict *v)
{
    const spec *s = o->spec;
    *note = NULL;
    *runs = 0;
    int dists[MEASURE_SENS_MAX_DISTS];
    size_t nd = measure_sens_dists(s, seed, dists);
    if (!nd) {
        *note = hk_asprintf(hk_tr(HK_MSG_SENS_SKIPPED),
                            hk_tr(s->form == SPEC_FORM_HARNESS ? HK_MSG_SENS_NO_INPUT : HK_MSG_SENS_COMMAND),
                            0, seed, size, "-");
        return *note ? HK_OK : HK_ENOMEM;
    }
    int rc = measure_mkdirs(dir);
    if (rc)
        return rc;
    /* every eligible distribution (at most MEASURE_SENS_MAX_DISTS), each on perturbation
     * seed seed + its index; the first failure ends the check */
    struct hk_buf passed, skipped, checked;
    hk_buf_init(&passed, 64);
    hk_buf_init(&skipped, 256);
    hk_buf_init(&checked, 64);
    double scale_max = 0.0, worst = 0.0;
    size_t n_sig = 0;
    oracle_sens_outcome out;
    memset(&out, 0, sizeof out);
    int dist = -1;
    bool failed = false;
    for (size_t k = 0; k < nd && !rc && !failed; k++) {
        dist = dists[k];
        oracle_widen wide[HK_MAX_ARGS];
        bool any = measure_widen_fill(o->widen, size, dist, wide);
        sens_ctx x = {.o = o, .bp = bp, .cp = cp, .dir = dir, .size = size, .dist = dist, .seed = seed,
                      .perturb_seed = seed + dist};
        if ((rc = oracle_sens_check(s, any ? wide : NULL, sens_run, &x, &out)))
            break;
        *runs += out.runs;
        rc = hk_buf_printf(&checked, "%s%d", checked.len ? ", " : "", dist);
        switch (out.verdict) {
        case ORACLE_SENS_PASS:
            scale_max = fmax(scale_max, out.scale);
            worst = fmax(worst, out.worst);
            n_sig += out.n_significant;
            if (!rc)
                rc = hk_buf_printf(&passed, "%s%d", passed.len ? ", " : "", dist);
            break;
        case ORACLE_SENS_SKIPPED:
            if (!rc)
                rc = hk_buf_printf(&skipped, "%s%s", skipped.len ? "; " : "", out.note);
            if (!rc)
                rc = hk_buf_printf(&skipped, hk_tr(HK_MSG_SENS_ON_DIST), dist);
            break;
        case ORACLE_SENS_FAIL:
            failed = true;
            break;
        }
    }
    const char *name = out.arg_index >= 0 && (size_t)out.arg_index < s->n_args
                           ? s->args[out.arg_index].name : "?";
    /* the inputs the check leaves alone on every checked distribution, named in its note */
    struct hk_buf alone;
    hk_buf_init(&alone, 256);
    for (size_t i = 0; !rc && i < s->n_args; i++) {
        const spec_arg *a = &s->args[i];
        bool raised = false;
        for (size_t k = 0; k < nd; k++)
            raised |= (size_t)dists[k] < a->n_dists && hk_perturb_eligible(a->dtype, a->dists[dists[k]]);
        if ((a->kind == HK_ARG_INPUT || a->kind == HK_ARG_INOUT) && !raised)
            rc = hk_buf_printf(&alone, "%s%s", alone.len ? ", " : "", a->name);
    }
    char *left = rc ? NULL : hk_buf_steal(&alone);
    hk_buf_free(&alone);
    if (!rc && failed) {
        if (out.element >= 0) {
            char plan[300];
            if (out.kind == HK_PERTURB_SPREAD_PLAN)
                snprintf(plan, sizeof plan, hk_tr_in(HK_LANG_EN, HK_MSG_SENS_PLAN_SPREAD), HK_PERTURB_SPREAD,
                         out.scale);
            else
                snprintf(plan, sizeof plan, hk_tr_in(HK_LANG_EN, HK_MSG_SENS_PLAN_LADDER), HK_PERTURB_N,
                         out.scale);
            rc = measure_verdict_set(v, MEASURE_INSENSITIVE, hk_tr_in(HK_LANG_EN, HK_MSG_SENS_INSENSITIVE),
                                     name, out.element, out.got, out.expected, out.bound, plan, seed,
                                     seed + dist, size, dist);
        } else {
            rc = measure_verdict_set(v, MEASURE_INSENSITIVE, hk_tr_in(HK_LANG_EN, HK_MSG_SENS_FAILED_RUN),
                                     seed, seed + dist, size, dist, out.note);
        }
        v->where = (measure_combo){.size = size, .dist = dist, .seed = seed};
        if (!rc)
            *note = hk_strdup(v->details ? v->details : "insensitive");
    } else if (!rc && passed.len) {
        *note = hk_asprintf(hk_tr(HK_MSG_SENS_PASSED), scale_max, n_sig, worst, *runs, seed, size,
                            passed.data);
        if (*note && skipped.len) {
            char *both = hk_asprintf(hk_tr(HK_MSG_SENS_PARTLY), *note, skipped.data);
            hk_free(*note);
            *note = both;
        }
    } else if (!rc) {
        *note = hk_asprintf(hk_tr(HK_MSG_SENS_SKIPPED), skipped.len ? skipped.data : "", *runs, seed, size,
                            checked.len ? checked.data : "-");
    }
    hk_buf_free(&passed);
    hk_buf_free(&skipped);
    hk_buf_free(&checked);
    if (!rc && !*note)
        rc = HK_ENOMEM;
    if (!rc && left && *left && !failed) {
        char *both = hk_asprintf(hk_tr(HK_MSG_SENS_NOT_RAISED), *note, left);
        if (!both) {
            rc = HK_ENOMEM;
        } else {
            hk_free(*note);
            *note = both;
        }
    }
    hk_free(left);
    return rc;
}

void measure_timing_clear(measure_timing *t)
{
    if (!t)
        return;
    hk_free(t->raw);
    memset(t, 0, sizeof *t);
    t->median_ms = t->p10_ms = t->p90_ms = t->min_ms = t->spread = NAN;
}

static double jnum(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int time_at(const measure_opts *o, const measure_prog *p, const char *dir,
                   const char *ref_dir, int size, long long seed, int dist, long long check_seed,
                   double budget_ms, measure_timing *t, measure_verdict *v);

int measure_time(const measure_opts *o, const measure_prog *p, const char *dir,
                 const char *ref_dir, int size, long long seed, int dist, long long check_seed,
                 measure_timing *t, measure_verdict *v)
{
    return time_at(o, p, dir, ref_dir, size, seed, dist, check_seed, 0, t, v);
}

/* The baseline's launch at a size, kept beside its time-mode output: "GX GY GZ BX BY BZ
 * SHMEM". A candidate's checked timed launches re-run the baseline's image as their
 * reference, and it must run with its own launch: under a candidate's SM-multiple grid or
 * other block a kernel written for its launch leaves elements unwritten or reads out of
 * bounds (the H200's wild run: cs_transpose_naive's tiled transpose "failed" its timing
 * with an illegal address that was the naive reference's). */
static char *launch_path(const char *dir, int size)
{
    return hk_asprintf("%s/launch-s%d.txt", dir, size);
}

static void save_launch(const char *dir, int size, const json_t *j)
{
    const json_t *g = json_object_get(j, "grid"), *b = json_object_get(j, "block");
    if (json_array_size(g) != 3 || json_array_size(b) != 3)
        return;
    char *path = launch_path(dir, size);
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%lld %lld %lld %lld %lld %lld %lld\n",
                (long long)json_integer_value(json_array_get(g, 0)),
                (long long)json_integer_value(json_array_get(g, 1)),
                (long long)json_integer_value(json_array_get(g, 2)),
                (long long)json_integer_value(json_array_get(b, 0)),
                (long long)json_integer_value(json_array_get(b, 1)),
                (long long)json_integer_value(json_array_get(b, 2)),
                (long long)json_integer_value(json_object_get(j, "shmem")));
        fclose(f);
    }
    hk_free(path);
}

/* The launch save_launch kept in dir for size: true with out filled. */
static bool load_launch(const char *dir, int size, long long out[7])
{
    char *path = launch_path(dir, size);
    FILE *f = path ? fopen(path, "r") : NULL;
    bool ok = f && fscanf(f, "%lld %lld %lld %lld %lld %lld %lld", &out[0], &out[1], &out[2],
                          &out[3], &out[4], &out[5], &out[6]) == 7;
    for (int k = 0; ok && k < 6; k++)
        ok = out[k] >= 1;
    if (f)
        fclose(f);
    hk_free(path);
    return ok && out[6] >= 0;
}

static int time_at(const measure_opts *o, const measure_prog *p, const char *dir,
                   const char *ref_dir, int size, long long seed, int dist, long long check_seed,
                   double budget_ms, measure_timing *t, measure_verdict *v)
{
    measure_timing_clear(t);
    t->size = size;
    measure_run r;
    memset(&r, 0, sizeof r);
    char *path = NULL, *ref = NULL;
    int rc = measure_mkdirs(dir);
    if (rc)
        return rc;
    if (!(path = measure_time_out_path(dir, size))) {
        rc = HK_ENOMEM;
        goto out;
    }
    harness_run hr = {.mode = "time", .size = size, .dist = dist, .seed = seed,
                      .check_seed = check_seed, .out = path, .budget_ms = budget_ms};
    long long base_launch[7];
    if (ref_dir && load_launch(ref_dir, size, base_launch))
        hr.ref_launch = base_launch;
    oracle_widen wide[HK_MAX_ARGS];
    double widen[HK_MAX_ARGS]; /* the checked timed launches compare as the oracle does */
    if (ref_dir && measure_widen_fill(o->widen, size, dist, wide)) {
        for (unsigned a = 0; a < HK_MAX_ARGS; a++)
            widen[a] = wide[a].atol;
        hr.widen = widen;
    }
    measure_combo here = {size, dist, seed};
    TRY(measure_run_program(o, p, dir, &hr, &r));
    if (r.wall_ms > v->max_wall_ms)
        v->max_wall_ms = r.wall_ms;
    if (r.reason != MEASURE_OK) {
        rc = measure_verdict_set(v, r.reason, hk_tr(HK_MSG_MEAS_TIMING), size,
                                 r.details ? r.details : measure_reason_name(r.reason));
        v->where = here;
        goto out;
    }
    t->median_ms = jnum(r.json, "median_ms");
    t->p10_ms = jnum(r.json, "p10");
    t->p90_ms = jnum(r.json, "p90");
    t->min_ms = jnum(r.json, "min");
    t->spread = jnum(r.json, "spread");
    double reps = jnum(r.json, "reps");
    t->reps = isfinite(reps) ? (int)reps : 0;
    /* missing is false: a flush nobody reported is a flush nobody verified */
    t->flushed_l2 = json_is_true(json_object_get(r.json, "flushed_l2"));
    t->raw = json_dumps(r.json, JSON_COMPACT);
    if (!(isfinite(t->median_ms) && t->median_ms > 0)) {
        rc = measure_verdict_set(v, MEASURE_HARNESS_ERROR,
                                 hk_tr(HK_MSG_MEAS_NO_MEDIAN), size);
        v->where = here;
        goto out;
    }
    if (!(isfinite(t->spread) && t->spread >= 0)) {
        rc = measure_verdict_set(v, MEASURE_HARNESS_ERROR,
                                 hk_tr(HK_MSG_MEAS_NO_SPREAD), size);
        v->where = here;
        goto out;
    }
    if (!ref_dir) { /* the baseline: its re-check output is the reference for this size */
        save_launch(dir, size, r.json);
        if (access(path, R_OK) != 0) {
            rc = measure_verdict_set(v, MEASURE_HARNESS_ERROR,
                                     hk_tr(HK_MSG_MEAS_NO_RECHECK), size);
            v->where = here;
        }
        goto flush;
    }
    if (!(ref = measure_time_out_path(ref_dir, size))) {
        rc = HK_ENOMEM;
        goto out;
    }
    measure_combo checked = {size, dist, check_seed};
    TRY(compare_files(o, ref, path, false, &checked, v));
    if (v->reason != MEASURE_OK) {
        v->where = (measure_combo){size, dist, check_seed};
        char *d = hk_trf(HK_MSG_MEAS_RECHECK, size, check_seed, v->details);
        if (d) {
            hk_free(v->details);
            v->details = d;
        }
    }
    unlink(path);
flush:
    /* Without the flush, a timed launch may find its inputs in L2 from the one before: a
     * time the kernel would not have on cold data, so none is credited. A wrong answer
     * found above is the stronger verdict and stays. */
    if (v->reason == MEASURE_OK && !t->flushed_l2) {
        rc = measure_verdict_set(v, MEASURE_UNFLUSHED,
                                 hk_tr(HK_MSG_MEAS_UNFLUSHED),
                                 size, jnum(r.json, "l2_bytes"), t->median_ms);
        v->where = here;
    }
out:
    measure_run_clear(&r);
    hk_free(path);
    hk_free(ref);
    return rc;
}

/* ---- sanity and rates ---- */

int measure_floor_check(const measure_opts *o, int size, double median_ms, double *floor_ms,
                        bool *below)
{
    *floor_ms = NAN;
    *below = false;
    bool has = false;
    double f = 0;
    int rc = spec_floor_ms(o->spec, (size_t)size, o->peak_bytes_per_s, o->peak_flops, &f, &has);
    if (rc)
        return rc;
    if (has) {
        *floor_ms = f;
        *below = median_ms < f;
    }
    return HK_OK;
}

const char *measure_floor_missing(const measure_opts *o)
{
    const spec *s = o->spec;
    bool bw = o->peak_bytes_per_s > 0, fl = o->peak_flops > 0;
    /* stored in English with the episode and the version (docs/i18n.md) */
    if (!s->bytes && !s->flops)
        return hk_tr_in(HK_LANG_EN, HK_MSG_FLOOR_NO_FORMULA);
    if (!bw && !fl)
        return hk_tr_in(HK_LANG_EN, HK_MSG_FLOOR_NO_PEAKS);
    if ((s->bytes && bw) || (s->flops && fl))
        return NULL;
    return hk_tr_in(HK_LANG_EN, s->bytes ? HK_MSG_FLOOR_NO_BANDWIDTH : HK_MSG_FLOOR_NO_FP32);
}

static double spread_bound(const measure_opts *o)
{
    return o->spread_bound > 0 ? o->spread_bound : MEASURE_SPREAD_BOUND;
}

static void check_add(json_t *checks, json_t *entry)
{
    if (checks && entry)
        json_array_append_new(checks, entry);
    else
        json_decref(entry);
}

int measure_eval_uncredit(measure_eval *e, const char *rule, const char *why)
{
    char *note = hk_strdup(why ? why : "");
    if (!note)
        return HK_ENOMEM;
    e->credited = false;
    hk_free(e->credit_note);
    e->credit_note = note;
    json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "check", "credit", "result", "not_credited",
                          "by", rule ? rule : "", "why", note);
    if (!j)
        return HK_ENOMEM;
    check_add(e->checks, j);
    return HK_OK;
}

static json_t *spread_entry(const char *role, const measure_timing *t, double bound,
                            const char *result)
{
    return json_pack("{s:s, s:s, s:i, s:f, s:f, s:i, s:s}", "check", "spread", "role", role,
                     "size", t->size, "spread", t->spread, "bound", bound, "reps", t->reps,
                     "result", result);
}

/* t was just timed (verdict OK): when its spread is above the bound, once more in a fresh
 * process -- a noisy neighbour or a clock change passes -- and still above is the verdict
 * "unstable". A single noisy process is the GPU's state, not the kernel's; two in a row
 * mean the time cannot be trusted either way. */
static int spread_recheck(const measure_opts *o, const measure_prog *p, const char *dir,
                          const char *ref_dir, int size, long long seed, int dist,
                          long long check_seed, const char *role, bool allow_drift,
                          json_t *checks, measure_timing *t, measure_verdict *v)
{
    double bound = spread_bound(o);
    t->drift = 0;
    if (!(t->spread > bound)) {
        check_add(checks, spread_entry(role, t, bound, "pass"));
        return HK_OK;
    }
    check_add(checks, spread_entry(role, t, bound, "remeasure"));
    double first = t->spread, first_median = t->median_ms;
    int rc = measure_time(o, p, dir, ref_dir, size, seed, dist, check_seed, t, v);
    if (rc || v->reason != MEASURE_OK)
        return rc;
    if (!(t->spread > bound)) {
        check_add(checks, spread_entry(role, t, bound, "pass"));
        return HK_OK;
    }
    /* A kernel whose time depends on its data (an early exit once enough neighbours are
     * found) spreads widely under inputs drawn afresh per launch, yet its median holds from
     * one process to the next: that median is trusted. Skipping work on some launches does
     * not get through this way: a random quarter of the timed launches is checked. */
    double drift = first_median > 0 ? fabs(t->median_ms - first_median) / first_median : 1;
    if (drift <= MEASURE_MEDIAN_AGREE) {
        json_t *e = spread_entry(role, t, bound, "pass");
        if (e) {
            json_object_set_new(e, "median_drift", json_real(drift));
            json_object_set_new(e, "note", json_string(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_NOTE_MEDIAN_AGREES)));
        }
        check_add(checks, e);
        return HK_OK;
    }
    if (allow_drift) {
        /* A third process: medians that stay within MEASURE_DRIFT_MAX of each other are the
         * kernel's own drift between processes (its TLB misses follow the page layout each
         * process gets), kept as the middle median and paid for by the credit rule; medians
         * that keep moving (a clock, a neighbour, a kernel that paces itself) are not. */
        double second_median = t->median_ms;
        check_add(checks, spread_entry(role, t, bound, "remeasure"));
        rc = measure_time(o, p, dir, ref_dir, size, seed, dist, check_seed, t, v);
        if (rc || v->reason != MEASURE_OK)
            return rc;
        double third_median = t->median_ms;
        double lo = fmin(fmin(first_median, second_median), third_median);
        double hi = fmax(fmax(first_median, second_median), third_median);
        double drift3 = lo > 0 ? (hi - lo) / lo : 1;
        if (!(t->spread > bound) || drift3 <= MEASURE_DRIFT_MAX) {
            json_t *e = spread_entry(role, t, bound, "pass");
            if (!(t->spread > bound)) {
                check_add(checks, e);
                return HK_OK;
            }
            t->median_ms = first_median + second_median + third_median - lo - hi;
            t->drift = drift3;
            if (e) {
                json_object_set_new(e, "medians", json_pack("[f, f, f]", first_median,
                                                             second_median, third_median));
                json_object_set_new(e, "drift", json_real(drift3));
                json_object_set_new(e, "note", json_string(hk_tr_in(
                    HK_LANG_EN, HK_MSG_MEAS_NOTE_THREE_MEDIANS)));
            }
            check_add(checks, e);
            return HK_OK;
        }
    }
    check_add(checks, spread_entry(role, t, bound, "fail"));
    rc = measure_verdict_set(v, MEASURE_UNSTABLE,
                             hk_tr(HK_MSG_MEAS_UNSTABLE),
                             size, first, t->spread, first_median, t->median_ms, t->reps,
                             bound);
    v->where = (measure_combo){size, dist, seed};
    return rc;
}

int measure_time_stable(const measure_opts *o, const measure_prog *p, const char *dir,
                        const char *ref_dir, int size, long long seed, int dist,
                        long long check_seed, const char *role, bool allow_drift,
                        json_t *checks, measure_timing *t, measure_verdict *v)
{
    int rc = measure_time(o, p, dir, ref_dir, size, seed, dist, check_seed, t, v);
    if (rc || v->reason != MEASURE_OK)
        return rc;
    return spread_recheck(o, p, dir, ref_dir, size, seed, dist, check_seed, role, allow_drift,
                          checks, t, v);
}

static double eval_formula(const measure_opts *o, const expr *e, int size)
{
    if (!e)
        return NAN;
    expr_value val;
    char err[128];
    long long sm = o->sm_count > 0 ? o->sm_count : 132;
    if (spec_eval(o->spec, e, (size_t)size, sm, &val, err, sizeof err))
        return NAN;
    return expr_value_double(val);
}

void measure_rates(const measure_opts *o, int size, double ms, double *bytes_per_s,
                   double *flop_per_s, double *roofline_pct)
{
    double bytes = eval_formula(o, o->spec->bytes, size);
    double flops = eval_formula(o, o->spec->flops, size);
    double sec = ms / 1e3;
    *bytes_per_s = isfinite(bytes) && sec > 0 ? bytes / sec : NAN;
    *flop_per_s = isfinite(flops) && sec > 0 ? flops / sec : NAN;
    *roofline_pct = NAN;
    bool bw = o->peak_bytes_per_s > 0 && isfinite(*bytes_per_s);
    bool fl = o->peak_flops > 0 && isfinite(*flop_per_s);
    if (bw && fl && bytes > 0) {
        /* The roofline bound at this arithmetic intensity, in FLOP/s. */
        double bound = fmin(o->peak_bytes_per_s * (flops / bytes), o->peak_flops);
        if (bound > 0)
            *roofline_pct = 100.0 * *flop_per_s / bound;
        if (flops == 0)
            *roofline_pct = 100.0 * *bytes_per_s / o->peak_bytes_per_s;
    } else if (bw) {
        *roofline_pct = 100.0 * *bytes_per_s / o->peak_bytes_per_s;
    } else if (fl) {
        *roofline_pct = 100.0 * *flop_per_s / o->peak_flops;
    }
}

/* ---- speedup ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double measure_quantile(const double *sorted, size_t n, double q)
{
    if (!n)
        return NAN;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - (double)lo);
}

bool measure_speedup_faster(const measure_speedup *sp)
{
    return sp->n > 0 && sp->lo > 1.0 && sp->mid >= MEASURE_NOISE_SPEEDUP;
}

int measure_speedup_compute(const double *a, const double *b, size_t n, measure_speedup *out)
{
    memset(out, 0, sizeof *out);
    out->speedup = out->lo = out->hi = out->mid = out->a_median = out->b_median = NAN;
    if (!a || !b || n == 0 || n > 100000)
        return HK_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(isfinite(a[i]) && a[i] > 0 && isfinite(b[i]) && b[i] > 0))
            return HK_EINVAL;
    double *sa = hk_calloc(n, sizeof *sa), *sb = hk_calloc(n, sizeof *sb),
           *ratio = hk_calloc(n, sizeof *ratio);
    int rc = HK_OK;
    if (!sa || !sb || !ratio) {
        rc = HK_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        sa[i] = a[i];
        sb[i] = b[i];
        ratio[i] = a[i] / b[i];
    }
    qsort(sa, n, sizeof *sa, cmp_double);
    qsort(sb, n, sizeof *sb, cmp_double);
    qsort(ratio, n, sizeof *ratio, cmp_double);
    out->a_median = measure_quantile(sa, n, 0.5);
    out->b_median = measure_quantile(sb, n, 0.5);
    out->speedup = out->a_median / out->b_median;
    out->lo = measure_quantile(ratio, n, 0.1);
    out->hi = measure_quantile(ratio, n, 0.9);
    out->mid = measure_quantile(ratio, n, 0.5);
    out->n = n;
out:
    hk_free(sa);
    hk_free(sb);
    hk_free(ratio);
    return rc;
}

int measure_interleave(const measure_opts *o, const measure_prog *pa, const char *dir_a,
                       const measure_prog *pb, const char *dir_b, const char *ref_dir, int size,
                       long long seed, int dist, long long check_seed, size_t pairs,
                       double *a_ms, double *b_ms, measure_verdict *va, measure_verdict *vb)
{
    if (!pairs || pairs > MEASURE_MAX_PAIRS || !strcmp(dir_a, ref_dir))
        return HK_EINVAL; /* A must not overwrite the reference it is compared against */
    measure_prog pbc = *pb; /* B's checked timed launches are compared with A's kernel */
    if (!pbc.ref_module)
        pbc.ref_module = pa->module;
    pb = &pbc;
    int rc = HK_OK;
    measure_timing t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < pairs && rc == HK_OK; i++) {
        rc = measure_time(o, pa, dir_a, NULL, size, seed, dist, check_seed, &t, va);
        a_ms[i] = t.median_ms;
        if (rc || va->reason != MEASURE_OK)
            break;
        rc = measure_time(o, pb, dir_b, ref_dir, size, seed, dist, check_seed, &t, vb);
        b_ms[i] = t.median_ms;
        if (rc || vb->reason != MEASURE_OK)
            break;
    }
    measure_timing_clear(&t);
    return rc;
}

/* ---- the pipeline ---- */

void measure_baseline_clear(measure_baseline *b)
{
    if (!b)
        return;
    hk_free(b->ref_dir);
    if (b->ref64_dir)
        (void)measure_rmtree(b->ref64_dir);
    hk_free(b->ref64_dir);
    hk_free(b->ref64_note);
    hk_free(b->widen.err);
    hk_free(b->combos);
    for (size_t i = 0; i < b->n_times; i++)
        measure_timing_clear(&b->times[i]);
    hk_free(b->times);
    json_decref(b->checks);
    memset(b, 0, sizeof *b);
}

/* ---- the widened tolerance (measure.h: measure_widen) ---- */

static size_t widen_index(const measure_widen *w, int size, int dist, unsigned arg)
{
    return ((size_t)size * w->n_dists + (size_t)dist) * HK_MAX_ARGS + arg;
}

oracle_widen measure_widen_at(const measure_widen *w, int size, int dist, unsigned arg)
{
    if (!w || !w->err || size < 0 || dist < 0 || (size_t)size >= w->n_sizes ||
        (size_t)dist >= w->n_dists || arg >= HK_MAX_ARGS)
        return (oracle_widen){0, 0};
    const oracle_widen *e = &w->err[widen_index(w, size, dist, arg)];
    return (oracle_widen){2 * e->atol, 2 * e->l2};
}

bool measure_widen_fill(const measure_widen *w, int size, int dist, oracle_widen *out)
{
    bool any = false;
    for (unsigned a = 0; a < HK_MAX_ARGS; a++) {
        out[a] = measure_widen_at(w, size, dist, a);
        any |= out[a].atol > 0 || out[a].l2 > 0;
    }
    return any;
}

/* Folds combination c's baseline error against the shadow into w, output by output.
 * Best effort: files that cannot be read (or an output the shadow did not promote) leave
 * that output unwidened. The referee's own distributions are judged by the fp64 rule alone
 * and get nothing. */
static int widen_add(const spec *s, const char *ref_dir, const char *ref64_dir,
                     const measure_combo *c, measure_widen *w)
{
    if (spec_dist_is_referee(s, (size_t)c->dist))
        return HK_OK;
    char *pb = measure_run_out_path(ref_dir, c), *pr = measure_run_out_path(ref64_dir, c);
    oracle_file fb = {0}, fr = {0};
    char err[256];
    int rc = pb && pr ? HK_OK : HK_ENOMEM;
    if (rc == HK_OK && oracle_read(pr, &fr, err, sizeof err) == HK_OK &&
        oracle_read(pb, &fb, err, sizeof err) == HK_OK && fr.n == fb.n) {
        for (size_t k = 0; k < fb.n; k++) {
            const oracle_output *r = &fr.outputs[k], *b = &fb.outputs[k];
            if (r->dtype != HK_DT_F64 || b->dtype == HK_DT_F64 || !hk_dtype_is_float(b->dtype) ||
                r->arg_index != b->arg_index || r->count != b->count ||
                b->arg_index >= HK_MAX_ARGS)
                continue;
            oracle_ref64_err e;
            if (oracle_ref64_error((const double *)(const void *)r->data, b->data, b->dtype,
                                   (size_t)b->count, &e) != HK_OK ||
                e.n_nonfinite)
                continue;
            double rel_max, rel_l2;
            oracle_ref64_rel(&e, &rel_max, &rel_l2);
            /* at most the spec's own room at the output's scale (and 1% of it): the
             * widening can at most double what the tolerance already lets through */
            spec_tolerance tol = b->arg_index < s->n_args ? s->args[b->arg_index].tol
                                                          : spec_default_tolerance(b->dtype);
            double room = fmin(MEASURE_WIDEN_CAP * e.ref_max,
                               fmax(tol.atol, tol.rtol * e.ref_max));
            oracle_widen *slot = &w->err[widen_index(w, c->size, c->dist, b->arg_index)];
            slot->atol = fmax(slot->atol, fmin(e.max_abs, room));
            slot->l2 = fmax(slot->l2, fmin(rel_l2, tol.l2 > 0 ? fmin(tol.l2, MEASURE_WIDEN_CAP)
                                                              : MEASURE_WIDEN_CAP));
        }
    }
    oracle_file_free(&fb);
    oracle_file_free(&fr);
    hk_free(pb);
    hk_free(pr);
    return rc;
}

/* The baseline's own error against its fp64 shadow on every checked combination. */
static int widen_measure(const spec *s, measure_baseline *b)
{
    measure_widen *w = &b->widen;
    w->n_sizes = s->n_sizes;
    w->n_dists = s->n_dists;
    if (!(w->err = hk_calloc(w->n_sizes * w->n_dists * HK_MAX_ARGS, sizeof *w->err)))
        return HK_ENOMEM;
    for (size_t i = 0; i < b->n_combos; i++) {
        int rc = widen_add(s, b->ref_dir, b->ref64_dir, &b->combos[i], w);
        if (rc)
            return rc;
    }
    return HK_OK;
}

long long measure_fresh_seed(void)
{
    const char *env = getenv("HK_SEED");
    if (env && *env) {
        char *end = NULL;
        long long v = strtoll(env, &end, 10);
        if (end && !*end && v >= 0)
            return v;
    }
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 32;
    }
    return (long long)(r % ((1ull << 40) - 1)) + 1;
}

int measure_baseline_run(const measure_opts *o, const measure_prog *p, const char *ref_dir,
                         measure_baseline *out, measure_verdict *v)
{
    memset(out, 0, sizeof *out);
    const spec *s = o->spec;
    int rc = HK_OK;
    if (!(out->ref_dir = hk_strdup(ref_dir)))
        return HK_ENOMEM;
    /* The spec's seeds are public: every run adds a fresh offset, so no table of answers
     * for them can exist before the run. */
    out->seed_offset = measure_fresh_seed();
    TRY(o->quick_check ? measure_combos_quick(s, out->seed_offset, &out->combos, &out->n_combos)
                       : measure_combos(s, out->seed_offset, &out->combos, &out->n_combos));
    out->time_seed = s->seeds[0] + out->seed_offset;
    out->time_dist = 0;
    /* the harness's own default re-check seed: one no combination uses */
    out->check_seed = out->time_seed + 1000003;
    TRY(measure_reference(o, p, ref_dir, out->combos, out->n_combos, v));
    if (v->reason != MEASURE_OK)
        goto out;
    if (o->ref64) { /* the fp64 shadow on the same inputs; if it fails, it is only absent */
        measure_verdict sv;
        measure_verdict_init(&sv);
        if (!(out->ref64_dir = hk_asprintf("%s-fp64", ref_dir))) {
            rc = HK_ENOMEM;
            goto out;
        }
        rc = measure_reference(o, o->ref64, out->ref64_dir, out->combos, out->n_combos, &sv);
        if (rc == HK_OK && sv.reason != MEASURE_OK) {
            out->ref64_note = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_FP64_SHADOW_FAILED),
                                          measure_reason_name(sv.reason),
                                          sv.details ? sv.details : "");
            (void)measure_rmtree(out->ref64_dir);
            hk_free(out->ref64_dir);
            out->ref64_dir = NULL;
            if (!out->ref64_note)
                rc = HK_ENOMEM;
        }
        measure_verdict_clear(&sv);
        if (rc)
            goto out;
        if (out->ref64_dir)
            TRY(widen_measure(s, out));
    }

    if (!(out->times = hk_calloc(s->n_sizes, sizeof *out->times))) {
        rc = HK_ENOMEM;
        goto out;
    }
    out->n_times = s->n_sizes;
    for (size_t k = 0; k < s->n_sizes; k++)
        measure_timing_clear(&out->times[k]);
    double slowest = -1;
    for (size_t k = 0; k < s->n_sizes && v->reason == MEASURE_OK; k++) {
        TRY(measure_time(o, p, ref_dir, NULL, (int)k, out->time_seed, out->time_dist,
                         out->check_seed, &out->times[k], v));
        if (v->reason == MEASURE_OK && out->times[k].median_ms > slowest) {
            slowest = out->times[k].median_ms;
            out->primary_size = (int)k;
        }
    }
    /* Every speedup divides by the primary time: it must be as trustworthy as the
     * candidates' (the flush was checked above, per size). */
    if (v->reason == MEASURE_OK) {
        int k = out->primary_size;
        if (!(out->checks = json_array())) {
            rc = HK_ENOMEM;
            goto out;
        }
        check_add(out->checks, launch_state_check(v, "baseline", false));
        check_add(out->checks, json_pack("{s:s, s:s, s:i, s:s}", "check", "l2_flush", "role",
                                         "baseline", "size", k, "result", "pass"));
        TRY(spread_recheck(o, p, ref_dir, NULL, k, out->time_seed, out->time_dist,
                           out->check_seed, "baseline", true, out->checks, &out->times[k], v));
        if (v->reason != MEASURE_OK)
            details_set(v, hk_asprintf(EN(MEAS_BASE_UNRELIABLE), DETAILS(v)));
    }
out:
    if (rc)
        measure_baseline_clear(out);
    return rc;
}

void measure_eval_clear(measure_eval *e)
{
    if (!e)
        return;
    measure_verdict_clear(&e->verdict);
    measure_timing_clear(&e->timing);
    hk_free(e->flag_note);
    hk_free(e->credit_note);
    json_decref(e->checks);
    memset(e, 0, sizeof *e);
}

static void eval_init(measure_eval *e)
{
    memset(e, 0, sizeof *e);
    measure_verdict_init(&e->verdict);
    measure_timing_clear(&e->timing);
    e->floor_ms = NAN;
    e->speedup = NAN;
}

/* The floor at size for t's median: a below_floor verdict, or a pass, or "missing" (no
 * floor applies: the caller decides what that means for the credit). */
static int floor_verdict(const measure_opts *o, int size, const measure_timing *t,
                         double *floor_ms, measure_verdict *v, json_t *checks)
{
    bool below = false;
    int rc = measure_floor_check(o, size, t->median_ms, floor_ms, &below);
    if (rc)
        return rc;
    if (isnan(*floor_ms)) {
        const char *why = measure_floor_missing(o);
        check_add(checks, json_pack("{s:s, s:i, s:f, s:s, s:s}", "check", "floor", "size", size,
                                    "median_ms", t->median_ms, "result", "missing", "why",
                                    why ? why : hk_tr_in(HK_LANG_EN, HK_MSG_FLOOR_NONE_APPLIES)));
        return HK_OK;
    }
    check_add(checks, json_pack("{s:s, s:i, s:f, s:f, s:s}", "check", "floor", "size", size,
                                "median_ms", t->median_ms, "floor_ms", *floor_ms, "result",
                                below ? "below" : "pass"));
    if (below)
        rc = measure_verdict_set(v, MEASURE_BELOW_FLOOR,
                                 hk_tr(HK_MSG_MEAS_BELOW_FLOOR),
                                 t->median_ms, size, *floor_ms, o->peak_bytes_per_s / 1e9,
                                 o->peak_flops / 1e12);
    return rc;
}

/* Seeds nobody could have prepared for: an offset read from /dev/urandom (the clock and the
 * pid when that fails), far above the spec's seeds and every fixed offset the pipeline
 * uses (+1000 accuracy, +1000003 re-check). */
static long long fresh_seed_offset(void)
{
    uint64_t x = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &x, sizeof x) != (ssize_t)sizeof x)
            x = 0;
        close(fd);
    }
    if (!x) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        x = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40);
        x *= 0x9E3779B97F4A7C15ULL;
    }
    return 100000000LL + (long long)(x % 1000000000000ULL);
}

/* The drift rule's price (spread_recheck): a time kept as the middle of three drifting
 * processes credits only a speedup beyond that drift, the baseline's and the candidate's
 * together; within it, the ratio could be the page layouts' alone. */
static double drift_of(const measure_baseline *base, int size)
{
    return (size_t)size < base->n_times ? base->times[size].drift : 0;
}

static bool beyond_drift(const measure_baseline *base, int size, const measure_eval *e)
{
    double bd = drift_of(base, size), cd = e->timing.drift;
    return (bd <= 0 && cd <= 0) || e->speedup > (1 + bd) * (1 + cd);
}

static int uncredit_drift(const measure_baseline *base, int size, measure_eval *e)
{
    double bd = drift_of(base, size), cd = e->timing.drift;
    char why[300];
    snprintf(why, sizeof why, EN(CREDIT_DRIFT), e->speedup, 100 * bd, 100 * cd,
             (1 + bd) * (1 + cd));
    return measure_eval_uncredit(e, "drift", why);
}

/* The second look at a speedup over the suspicious limit: an independent verification on
 * inputs no earlier check used. Correctness on every size and distribution (the quick set)
 * with fresh seeds against new baseline outputs, then baseline and candidate timed again in
 * fresh processes on fresh inputs and a fresh re-check seed. A speedup that exists only for
 * the inputs already seen (answers prepared for the spec's seeds, or a measurement that
 * happened once) does not survive it. */
static int second_look(const measure_opts *o, const measure_baseline *base,
                       const measure_prog *base_prog, const measure_prog *p, const char *dir,
                       measure_eval *out)
{
    measure_verdict *v = &out->verdict;
    measure_verdict bv;
    measure_verdict_init(&bv);
    measure_timing bt;
    memset(&bt, 0, sizeof bt);
    measure_timing_clear(&bt);
    measure_combo *combos = NULL;
    size_t n = 0;
    int size = base->primary_size;
    double limit = o->suspicious_speedup > 0 ? o->suspicious_speedup : MEASURE_SUSPICIOUS_SPEEDUP;
    double tol = o->reproduce_tolerance > 0 ? o->reproduce_tolerance : MEASURE_REPRODUCE_TOLERANCE;
    double first = out->speedup;
    long long offset = fresh_seed_offset();
    long long seed = base->time_seed + offset, check_seed = base->check_seed + offset;
    char *root = hk_asprintf("%s/second-look", dir);
    char *ref = root ? hk_asprintf("%s/ref", root) : NULL;
    char *cand = root ? hk_asprintf("%s/candidate", root) : NULL;
    const char *result = "fail";
    int rc = HK_OK;
    if (!root || !ref || !cand) {
        rc = HK_ENOMEM;
        goto out;
    }
    out->flagged = true;
    TRY(measure_combos_quick(o->spec, offset, &combos, &n));
    TRY(measure_reference(o, base_prog, ref, combos, n, &bv));
    if (bv.reason == MEASURE_OK)
        TRY(measure_time_stable(o, base_prog, ref, NULL, size, seed, base->time_dist,
                                check_seed, "baseline (second look)", /* i18n: not for people (a JSON role) */
                                true, out->checks, &bt, &bv));
    if (bv.reason != MEASURE_OK) {
        rc = measure_verdict_set(v, MEASURE_HARNESS_ERROR,
                                 hk_tr(HK_MSG_MEAS_SECOND_LOOK_BASE),
                                 first, offset, bv.details ? bv.details : "",
                                 measure_reason_name(bv.reason));
        goto out;
    }
    TRY(measure_check(o, p, cand, ref, combos, n, v));
    if (v->reason == MEASURE_OK)
        TRY(measure_time_stable(o, p, cand, ref, size, seed, base->time_dist, check_seed,
                                "candidate (second look)", /* i18n: not for people (a JSON role) */
                                bt.drift > 0, out->checks, &out->timing, v));
    if (v->reason == MEASURE_OK)
        TRY(floor_verdict(o, size, &out->timing, &out->floor_ms, v, out->checks));
    if (v->reason != MEASURE_OK) {
        details_set(v, hk_asprintf(EN(MEAS_SECOND_LOOK_AT), first, offset, DETAILS(v)));
        goto out;
    }
    double again = bt.median_ms / out->timing.median_ms;
    bool same = again <= first * (1 + tol) && again >= first / (1 + tol);
    result = same ? "pass" : "not_reproduced";
    check_add(out->checks,
              json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:i, s:s}", "check",
                        "second_look", "limit", limit, "first", first, "second", again,
                        "baseline_ms", bt.median_ms, "candidate_ms", out->timing.median_ms,
                        "seed_offset", (json_int_t)offset, "seed", (json_int_t)seed,
                        "check_seed", (json_int_t)check_seed, "combinations", (int)n,
                        "result", result));
    if (!same) {
        rc = measure_verdict_set(v, MEASURE_UNSTABLE,
                                 hk_tr(HK_MSG_MEAS_NOT_REPRODUCED),
                                 first, limit, again, seed, check_seed, bt.median_ms,
                                 out->timing.median_ms, 100 * tol);
        goto out;
    }
    /* HOOK(measure_sanitize): when the sanitizer stage exists, a flagged candidate also
     * passes compute-sanitizer (memcheck, racecheck, initcheck) here, before its speedup
     * stands; a finding is its verdict (MEASURE_RACE, MEASURE_UNINITIALIZED, ...). Not run
     * yet: nothing is recorded for it. */
    out->speedup = again;
    out->flag_note = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_FLAG_NOTE),
                                 limit, n, (long long)offset, first, again, bt.median_ms,
                                 out->timing.median_ms);
    if (!out->flag_note)
        rc = HK_ENOMEM;
out:
    if (root)
        (void)measure_rmtree(root);
    hk_free(root);
    hk_free(ref);
    hk_free(cand);
    hk_free(combos);
    measure_timing_clear(&bt);
    measure_verdict_clear(&bv);
    return rc;
}

/* New reference: the "precision" check entry for the referee-added distribution of spec s
 * (docs/referee.md): which distribution, which rule decided, and, when none could, why. */
static json_t *precision_check(const spec *s, const measure_baseline *base,
                               const measure_verdict *v, const char *result)
{
    /* the referee's first distribution; "distribution" names each of them */
    size_t d = s->n_dists ? s->n_dists - (s->n_referee_dists && s->n_referee_dists <= s->n_dists
                                              ? s->n_referee_dists : 1) : 0;
    char texts[256] = "";
    for (size_t k = d, used = 0; k < s->n_dists && used < sizeof texts - 1; k++) {
        int w = snprintf(texts + used, sizeof texts - used, "%s%s", k > d ? ", " : "", s->dist_texts[k]);
        used = w > 0 && (size_t)w < sizeof texts - used ? used + (size_t)w : sizeof texts - 1;
    }
    bool judged = v->precision == MEASURE_PRECISION_PASS || v->precision == MEASURE_PRECISION_FAIL;
    const char *why = NULL;
    if (!judged)
        why = base->ref64_note ? base->ref64_note
            : hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_WHY_NO_FP64_SHADOW);
    json_t *j = json_pack("{s:s, s:s, s:i, s:s, s:i, s:s, s:s}", "check", "precision",
                          "distribution", texts, "dist", (int)d,
                          "added_by", "referee", "combinations", (int)v->precision_runs,
                          "decided_by", judged ? oracle_decider_name(ORACLE_BY_REF64) : "none",
                          "result", judged ? result : "not_judged");
    if (j && why)
        json_object_set_new(j, "why", json_string(why));
    if (j && judged && isfinite(v->precision_ratio))
        json_object_set_new(j, "ratio", json_real(v->precision_ratio));
    return j;
}

/* The record of the priming launches measure_check's processes made (run_group): the
 * correctness check passed with every size's process launching first at the spec's other
 * sizes. A spec of one size leaves nothing to prime with, and says so. New reference. */
static json_t *stale_state_check(const spec *s)
{
    size_t n = s && s->n_sizes > 1 ? s->n_sizes - 1 : 0; /* each process primes with */
    if (n == 0)
        return json_pack("{s:s, s:i, s:s, s:s}", "check", "stale_state", "primed_sizes", 0,
                         "result", "not_run", "why",
                         hk_tr_in(HK_LANG_EN, HK_MSG_MEAS_WHY_ONE_SIZE));
    return json_pack("{s:s, s:i, s:s}", "check", "stale_state", "primed_sizes", (int)n,
                     "result", "pass");
}

static int check_set(const measure_opts *o, const measure_baseline *base,
                     const measure_prog *p, const char *dir, measure_eval *out)
{
    measure_verdict *v = &out->verdict;
    measure_opts oc = *o; /* the fp64 rule applies to these combinations: its outputs exist */
    oc.ref64_dir = base->ref64_dir;
    int rc = measure_check(&oc, p, dir, base->ref_dir, base->combos, base->n_combos, v);
    if (rc || v->reason != MEASURE_OK)
        return rc;
    json_t *correct = json_pack("{s:s, s:i, s:s}", "check", "correctness", "combinations",
                                (int)v->n_checked, "result", "pass");
    if (correct && v->n_widened)
        json_object_set_new(correct, "widened_elements", json_integer((json_int_t)v->n_widened));
    check_add(out->checks, correct);
    check_add(out->checks, stale_state_check(o->spec));
    check_add(out->checks,
              launch_state_check(v, "candidate", baseline_changes_globals(base->ref_dir)));
    if (v->precision != MEASURE_PRECISION_NONE)
        check_add(out->checks, precision_check(o->spec, base, v, "pass"));
    return HK_OK;
}

int measure_evaluate(const measure_opts *o, const measure_baseline *base,
                     const measure_prog *base_prog, const measure_prog *p, const char *dir,
                     measure_eval *out)
{
    return measure_evaluate_ranked(o, base, base_prog, p, dir, NAN, out);
}

int measure_evaluate_ranked(const measure_opts *o, const measure_baseline *base,
                            const measure_prog *base_prog, const measure_prog *p,
                            const char *dir, double lead_ms, measure_eval *out)
{
    eval_init(out);
    measure_opts ow = *o; /* every comparison with the baseline widens as its shadow says */
    if (base->widen.err)
        ow.widen = &base->widen;
    o = &ow;
    measure_prog pc = *p; /* checked timed launches are compared with the baseline's kernel */
    if (!pc.ref_module && base_prog)
        pc.ref_module = base_prog->module;
    p = &pc;
    measure_verdict *v = &out->verdict;
    int size = base->primary_size;
    const char *rule = "correctness";
    int rc = HK_OK;
    const bool ranked = isfinite(lead_ms) && lead_ms > 0;
    if (!(out->checks = json_array()))
        return HK_ENOMEM;
    /* before anything runs, from the two images (measure_image_checks; a program -- the
     * engine's own library call -- has no image to read) */
    if (p->module) {
        const char *result[MEASURE_IMAGE_CHECKS];
        char *why[MEASURE_IMAGE_CHECKS];
        rule = measure_image_checks[0].check;
        measure_shapes bsh, csh; /* the launches' block shapes: the race check judges at them */
        measure_launch_shapes(o->spec, base_prog ? base_prog->block : NULL, &bsh);
        measure_launch_shapes(o->spec, p->block, &csh);
        TRY(measure_image_checks_judge_shapes(p->ref_module, &bsh, p->module, &csh, result, why));
        size_t failed = MEASURE_IMAGE_CHECKS;
        for (size_t i = 0; i < MEASURE_IMAGE_CHECKS && failed == MEASURE_IMAGE_CHECKS; i++) {
            if (!strcmp(result[i], "fail")) {
                failed = i;
                v->reason = measure_image_checks[i].reason;
                v->details = why[i];
                why[i] = NULL;
            } else {
                check_add(out->checks, json_pack("{s:s, s:s, s:s?}", "check",
                                                 measure_image_checks[i].check, "result",
                                                 result[i], "why", why[i]));
            }
        }
        for (size_t i = 0; i < MEASURE_IMAGE_CHECKS; i++)
            hk_free(why[i]);
        if (failed < MEASURE_IMAGE_CHECKS) {
            rule = measure_image_checks[failed].check;
            goto out;
        }
    }
    rule = "correctness";
    if (!ranked) {
        TRY(check_set(o, base, p, dir, out));
        if (v->reason != MEASURE_OK)
            goto out;
    }
    rule = "timing";
    TRY(measure_time_stable(o, p, dir, base->ref_dir, size, base->time_seed, base->time_dist,
                            base->check_seed, "candidate", drift_of(base, size) > 0, out->checks,
                            &out->timing, v));
    if (v->reason != MEASURE_OK)
        goto out;
    check_add(out->checks, json_pack("{s:s, s:s, s:i, s:s}", "check", "l2_flush", "role",
                                     "candidate", "size", size, "result", "pass"));
    rule = "floor";
    TRY(floor_verdict(o, size, &out->timing, &out->floor_ms, v, out->checks));
    if (v->reason != MEASURE_OK)
        goto out;
    if (ranked) {
        double base_ms0 = (size_t)size < base->n_times ? base->times[size].median_ms : NAN;
        if (out->timing.median_ms >= lead_ms * MEASURE_LEAD_MARGIN) {
            out->behind = true;
            out->speedup = base_ms0 / out->timing.median_ms;
            out->credit_note = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_CREDIT_BEHIND),
                                           out->timing.median_ms, lead_ms);
            if (!out->credit_note) {
                rc = HK_ENOMEM;
                goto out;
            }
            check_add(out->checks,
                      json_pack("{s:s, s:s, s:s, s:f}", "check", "correctness", "result",
                                "not_run", "why", "behind the leader", /* i18n: not for people (the check's JSON) */
                                "lead_ms", lead_ms));
            goto out;
        }
        rule = "correctness";
        TRY(check_set(o, base, p, dir, out));
        if (v->reason != MEASURE_OK)
            goto out;
    }
    /* Every other size gets a short timed run too: its re-check after repeated launches
     * catches answers cached between launches (a cache may only fit some sizes), and its
     * time must also clear the floor (its spread is not judged: a 100 ms budget is for the
     * re-check, and its time is only compared with the floor). */
    rule = "other_sizes";
    for (size_t k = 0; k < base->n_times && v->reason == MEASURE_OK; k++) {
        if ((int)k == size)
            continue;
        measure_timing t;
        memset(&t, 0, sizeof t);
        double floor_ms = NAN;
        rc = time_at(o, p, dir, base->ref_dir, (int)k, base->time_seed, base->time_dist,
                     base->check_seed, 100, &t, v);
        if (rc == HK_OK && v->reason == MEASURE_OK)
            rc = floor_verdict(o, (int)k, &t, &floor_ms, v, out->checks);
        measure_timing_clear(&t);
        if (rc)
            goto out;
    }
    if (v->reason != MEASURE_OK)
        goto out;
    double base_ms = (size_t)size < base->n_times ? base->times[size].median_ms : NAN;
    out->speedup = base_ms / out->timing.median_ms;
    double limit = o->suspicious_speedup > 0 ? o->suspicious_speedup : MEASURE_SUSPICIOUS_SPEEDUP;
    if (out->speedup > limit) {
        rule = "second_look";
        TRY(second_look(o, base, base_prog, p, dir, out));
        if (v->reason != MEASURE_OK)
            goto out;
    }
    /* The credit: a time no floor could check may be a kernel that skipped its work in a
     * way the oracle missed; without the floor nothing bounds it from below. */
    const char *missing = isnan(out->floor_ms) ? measure_floor_missing(o) : NULL;
    if (isnan(out->floor_ms) && !missing)
        missing = hk_tr_in(HK_LANG_EN, HK_MSG_FLOOR_NONE_APPLIES);
    out->credited = !missing || o->allow_no_floor;
    if (missing)
        out->credit_note =
            o->allow_no_floor
                ? hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_CREDIT_NO_FLOOR_ALLOWED), missing)
                : hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_CREDIT_NO_FLOOR), missing);
    if (missing && !out->credit_note)
        rc = HK_ENOMEM;
    check_add(out->checks, json_pack("{s:s, s:s, s:b, s:s?}", "check", "credit", "result",
                                     out->credited ? "credited" : "not_credited", "floor",
                                     !missing, "why", missing));
    /* The drift rule's price (spread_recheck): a time kept as the middle of three drifting
     * processes credits only a speedup beyond that drift, the baseline's and the
     * candidate's together; within it, the ratio could be the page layouts' alone. */
    if (rc == HK_OK && out->credited && !beyond_drift(base, size, out))
        rc = uncredit_drift(base, size, out);
out:
    if (v->reason == MEASURE_UNFLUSHED)
        rule = "l2_flush";
    if (rc == HK_OK && v->precision == MEASURE_PRECISION_FAIL) {
        /* the rejection's entry names the distribution and the rule, as a pass's does */
        json_t *j = precision_check(o->spec, base, v, "fail");
        if (j) {
            json_object_set_new(j, "reason", json_string(measure_reason_name(v->reason)));
            if (v->details)
                json_object_set_new(j, "details", json_string(v->details));
        }
        check_add(out->checks, j);
    } else if (rc == HK_OK && v->reason != MEASURE_OK)
        check_add(out->checks,
                  json_pack("{s:s, s:s, s:s, s:s?}", "check", rule, "result", "fail", "reason",
                            measure_reason_name(v->reason), "details", v->details));
    return rc;
}

json_t *measure_eval_json(const measure_eval *e)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    const measure_verdict *v = &e->verdict;
    int bad = json_object_set_new(j, "reason", json_string(measure_reason_name(v->reason)));
    if (v->details)
        bad |= json_object_set_new(j, "details", json_string(v->details));
    if (!isnan(v->max_abs_err))
        bad |= json_object_set_new(j, "max_abs_err", json_real(v->max_abs_err));
    if (!isnan(v->max_rel_err))
        bad |= json_object_set_new(j, "max_rel_err", json_real(v->max_rel_err));
    bad |= json_object_set_new(j, "checked", json_integer((json_int_t)v->n_checked));
    if (e->behind)
        bad |= json_object_set_new(j, "behind", json_true());
    if (v->reason != MEASURE_OK && v->where.size >= 0)
        bad |= json_object_set_new(j, "where",
                                   json_pack("{s:i, s:I, s:i}", "size", v->where.size, "seed",
                                             (json_int_t)v->where.seed, "dist", v->where.dist));
    if (isfinite(e->timing.median_ms)) {
        bad |= json_object_set_new(j, "size", json_integer(e->timing.size));
        bad |= json_object_set_new(j, "median_ms", json_real(e->timing.median_ms));
        if (isfinite(e->timing.p10_ms))
            bad |= json_object_set_new(j, "p10_ms", json_real(e->timing.p10_ms));
        if (isfinite(e->timing.p90_ms))
            bad |= json_object_set_new(j, "p90_ms", json_real(e->timing.p90_ms));
        if (isfinite(e->timing.spread))
            bad |= json_object_set_new(j, "spread", json_real(e->timing.spread));
        bad |= json_object_set_new(j, "flushed_l2", json_boolean(e->timing.flushed_l2));
        bad |= json_object_set_new(j, "reps", json_integer(e->timing.reps));
    }
    if (isfinite(e->floor_ms))
        bad |= json_object_set_new(j, "floor_ms", json_real(e->floor_ms));
    if (isfinite(e->speedup))
        bad |= json_object_set_new(j, "speedup", json_real(e->speedup));
    bad |= json_object_set_new(j, "flagged", json_boolean(e->flagged));
    if (e->flag_note)
        bad |= json_object_set_new(j, "flag_note", json_string(e->flag_note));
    bad |= json_object_set_new(j, "credited", json_boolean(e->credited));
    if (e->credit_note)
        bad |= json_object_set_new(j, "credit_note", json_string(e->credit_note));
    if (e->checks)
        bad |= json_object_set_new(j, "checks", json_deep_copy(e->checks));
    if (bad) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* ---- where output files go ---- */

int measure_output_bytes(const spec *s, int size, uint64_t *out)
{
    *out = 0;
    if (!s || size < 0 || (size_t)size >= s->n_sizes)
        return HK_EINVAL;
    uint64_t total = 16; /* magic, version, n_outputs */
    for (size_t i = 0; i < s->n_args; i++) {
        const spec_arg *a = &s->args[i];
        if (a->kind != HK_ARG_OUTPUT && a->kind != HK_ARG_INOUT)
            continue;
        expr_value v;
        char err[128];
        if (!a->count || spec_eval(s, a->count, (size_t)size, 132, &v, err, sizeof err) != HK_OK)
            return HK_EINVAL;
        double n = expr_value_double(v);
        if (!(n >= 0))
            return HK_EINVAL;
        total += 16 + (uint64_t)n * hk_dtype_size(a->dtype);
    }
    *out = total;
    return HK_OK;
}

/* A writable directory with room for need bytes and a quarter more. */
static bool roomy_dir(const char *dir, uint64_t need)
{
    struct stat st;
    struct statvfs vfs;
    if (!dir || !*dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
        access(dir, W_OK | X_OK) != 0 || statvfs(dir, &vfs) != 0)
        return false;
    uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
    return avail >= need + need / 4;
}

int measure_scratch_parent(uint64_t need, const char *fallback, char **out)
{
    const char *cands[] = {getenv("HK_SCRATCH_DIR"), getenv("XDG_RUNTIME_DIR"), "/dev/shm"};
    const char *pick = fallback;
    for (size_t i = 0; i < HK_ARRAY_LEN(cands); i++)
        if (roomy_dir(cands[i], need)) {
            pick = cands[i];
            break;
        }
    *out = hk_strdup(pick ? pick : ".");
    return *out ? HK_OK : HK_ENOMEM;
}
