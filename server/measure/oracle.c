/* Output comparison for the oracle: decodes the harness's output files and compares
 * element by element in double precision, keeping the statistics a report needs (max
 * absolute and relative error, relative L2 error, first bad index). */
#include "measure/oracle.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hk.h"
#include "core/i18n.h"
#include "hk_harness.h"

/* an output file's or a call's fault, the referee's own distribution: stored in English (a
 * rejection's details, the worker's log), said again where shown (hk_tr_said) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    double v;
    if (exp == 0)
        v = ldexp(man, -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexp(man | 0x400, exp - 25);
    return sign ? -v : v;
}

static double bf16_to_double(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

double oracle_element(int dtype, const void *data, size_t i)
{
    const unsigned char *p = (const unsigned char *)data + i * hk_dtype_size(dtype);
    union {
        float f; double d; uint16_t u16; int8_t i8; int16_t i16; int32_t i32; int64_t i64;
        uint8_t u8; uint32_t u32; uint64_t u64;
    } u;
    memcpy(&u, p, hk_dtype_size(dtype));
    switch (dtype) {
    case HK_DT_F32: return u.f;
    case HK_DT_F64: return u.d;
    case HK_DT_F16: return half_to_double(u.u16);
    case HK_DT_BF16: return bf16_to_double(u.u16);
    case HK_DT_I8: return u.i8;
    case HK_DT_I16: return u.i16;
    case HK_DT_I32: return u.i32;
    case HK_DT_I64: return (double)u.i64;
    case HK_DT_U8: return u.u8;
    case HK_DT_U16: return u.u16;
    case HK_DT_U32: return u.u32;
    case HK_DT_U64: return (double)u.u64;
    default: return NAN;
    }
}

void oracle_file_free(oracle_file *f)
{
    if (!f)
        return;
    hk_free(f->outputs);
    hk_free(f->blob);
    memset(f, 0, sizeof *f);
}

static uint32_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

int oracle_parse(unsigned char *blob, size_t len, oracle_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->blob = blob;
    if (len < 16 || memcmp(blob, HK_OUT_MAGIC, 8) != 0) {
        set_err(err, errlen, "%s", EN(ORACLE_BAD_MAGIC));
        goto bad;
    }
    if (rd32(blob + 8) != HK_OUT_VERSION) {
        set_err(err, errlen, EN(ORACLE_FILE_VERSION), rd32(blob + 8), HK_OUT_VERSION);
        goto bad;
    }
    uint32_t n = rd32(blob + 12);
    if (n > HK_MAX_ARGS) {
        set_err(err, errlen, EN(ORACLE_TOO_MANY), n, HK_MAX_ARGS);
        goto bad;
    }
    out->outputs = hk_calloc(n ? n : 1, sizeof *out->outputs);
    if (!out->outputs) {
        oracle_file_free(out);
        return HK_ENOMEM;
    }
    size_t pos = 16;
    for (uint32_t i = 0; i < n; i++) {
        if (len - pos < 16) {
            set_err(err, errlen, EN(ORACLE_TRUNCATED_AT), i);
            goto bad;
        }
        oracle_output *o = &out->outputs[i];
        o->arg_index = rd32(blob + pos);
        o->dtype = (int)rd32(blob + pos + 4);
        memcpy(&o->count, blob + pos + 8, 8);
        pos += 16;
        size_t es = hk_dtype_size(o->dtype);
        if (es == 0) {
            set_err(err, errlen, EN(ORACLE_UNKNOWN_DTYPE), i, o->dtype);
            goto bad;
        }
        if (o->count > (len - pos) / es) {
            set_err(err, errlen, EN(ORACLE_OUTPUT_TRUNCATED), i,
                    (unsigned long long)o->count);
            goto bad;
        }
        o->data = blob + pos;
        pos += o->count * es;
        out->n++;
    }
    if (pos != len) {
        set_err(err, errlen, EN(ORACLE_TRAILING), len - pos);
        goto bad;
    }
    return HK_OK;
bad:
    oracle_file_free(out);
    return HK_EPARSE;
}

int oracle_read(const char *path, oracle_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        set_err(err, errlen, "cannot open %s: %s", path, strerror(e));
        return e == ENOENT ? HK_ENOENT : HK_EIO;
    }
    struct stat st;
    int rc = HK_OK;
    unsigned char *blob = NULL;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        set_err(err, errlen, "cannot stat %s", path);
        rc = HK_EIO;
        goto out;
    }
    if ((unsigned long long)st.st_size > ORACLE_MAX_FILE) {
        set_err(err, errlen, EN(ORACLE_OVER_CAP), path);
        rc = HK_ETOOBIG;
        goto out;
    }
    size_t len = (size_t)st.st_size;
    if (!(blob = hk_malloc(len ? len : 1))) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (fread(blob, 1, len, f) != len) {
        set_err(err, errlen, "cannot read %s", path);
        rc = HK_EIO;
        goto out;
    }
    rc = oracle_parse(blob, len, out, err, errlen);
    blob = NULL; /* owned by out (or freed) now */
out:
    hk_free(blob);
    fclose(f);
    return rc;
}

/* ---- blocked, threaded passes ----
 * A 268 MB output took 1.5-3 s of one core per comparison, element by element through
 * oracle_element; an episode compares dozens. Both passes below convert a block of
 * ORACLE_BLOCK elements at a time with the type switch outside the loop, keep one partial
 * result per block, and merge the partials in block order: the result does not depend on
 * how many threads ran (a fixed block size, sums added in the same order). */
#define ORACLE_BLOCK 4096u
#define ORACLE_PAR_MIN ((size_t)1 << 21) /* fewer elements: one thread */
#define ORACLE_THREADS_MAX 16

/* Elements [i0, i0 + n) of data as doubles, n <= ORACLE_BLOCK. */
static void load_block(int dtype, const void *data, size_t i0, size_t n, double *out)
{
    const unsigned char *p = (const unsigned char *)data + i0 * hk_dtype_size(dtype);
    switch (dtype) {
    case HK_DT_F32:
        for (size_t i = 0; i < n; i++) {
            float f;
            memcpy(&f, p + 4 * i, 4);
            out[i] = f;
        }
        return;
    case HK_DT_F64:
        memcpy(out, p, n * sizeof *out);
        return;
    default:
        for (size_t i = 0; i < n; i++)
            out[i] = oracle_element(dtype, data, i0 + i);
        return;
    }
}

/* Runs fn(arg, t, n_threads) on up to ORACLE_THREADS_MAX threads (the caller's is one) when
 * count is large, else once on the caller's; each call takes blocks t, t + n_threads, ... */
typedef void (*block_fn)(void *arg, unsigned t, unsigned n_threads);
struct block_job {
    block_fn fn;
    void *arg;
    unsigned t, n;
};
static void *block_thread(void *p)
{
    struct block_job *j = p;
    j->fn(j->arg, j->t, j->n);
    return NULL;
}
static void run_blocks(size_t count, block_fn fn, void *arg)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned n = count >= ORACLE_PAR_MIN && cores > 1 ? (unsigned)(cores < ORACLE_THREADS_MAX ? cores : ORACLE_THREADS_MAX) : 1;
    pthread_t th[ORACLE_THREADS_MAX];
    struct block_job jobs[ORACLE_THREADS_MAX];
    unsigned started = 0;
    for (unsigned t = 1; t < n; t++) {
        jobs[t] = (struct block_job){fn, arg, t, n};
        if (pthread_create(&th[t], NULL, block_thread, &jobs[t]) != 0)
            break;
        started = t;
    }
    /* the threads that did not start: their blocks run here */
    for (unsigned t = started + 1; t < n; t++)
        fn(arg, t, n);
    fn(arg, 0, n);
    for (unsigned t = 1; t <= started; t++)
        pthread_join(th[t], NULL);
}

/* One block's share of compare_buffer. */
typedef struct {
    size_t n_bad, n_nonfinite, n_widened;
    long long first_bad;
    double bad_b, bad_c, max_abs, max_rel, sum_d2, sum_b2;
} cmp_part;

static void cmp_block(int dtype, const void *base, const void *cand, size_t i0, size_t n,
                      spec_tolerance tol, oracle_widen widen, cmp_part *r)
{
    double bb[ORACLE_BLOCK], cc[ORACLE_BLOCK];
    load_block(dtype, base, i0, n, bb);
    load_block(dtype, cand, i0, n, cc);
    memset(r, 0, sizeof *r);
    r->first_bad = -1;
    for (size_t k = 0; k < n; k++) {
        double b = bb[k], c = cc[k];
        bool ok;
        if (isnan(b)) {
            ok = isnan(c);
        } else if (isinf(b)) {
            ok = c == b;
        } else if (!isfinite(c)) {
            ok = false;
            r->n_nonfinite++;
        } else {
            /* rtol * |b| only where b is not 0: an infinite rtol (a referee distribution's
             * "the fp64 rule decides", oracle_compare_precision) times 0 is NaN, and no d
             * is <= NaN */
            double d = fabs(c - b), limit = tol.atol + (b != 0 ? tol.rtol * fabs(b) : 0);
            ok = d <= limit + widen.atol;
            if (ok && d > limit)
                r->n_widened++;
            if (d > r->max_abs)
                r->max_abs = d;
            if (b != 0 && d / fabs(b) > r->max_rel)
                r->max_rel = d / fabs(b);
            r->sum_d2 += d * d;
            r->sum_b2 += b * b;
        }
        if (!ok && r->n_bad++ == 0) {
            r->first_bad = (long long)(i0 + k);
            r->bad_b = b;
            r->bad_c = c;
        }
    }
}

struct cmp_job {
    int dtype;
    const void *base, *cand;
    size_t count, n_blocks;
    spec_tolerance tol;
    oracle_widen widen;
    cmp_part *parts;
};
static void cmp_blocks(void *arg, unsigned t, unsigned n_threads)
{
    struct cmp_job *j = arg;
    for (size_t k = t; k < j->n_blocks; k += n_threads) {
        size_t i0 = k * ORACLE_BLOCK, n = j->count - i0 < ORACLE_BLOCK ? j->count - i0 : ORACLE_BLOCK;
        cmp_block(j->dtype, j->base, j->cand, i0, n, j->tol, j->widen, &j->parts[k]);
    }
}
static void cmp_merge(cmp_part *into, const cmp_part *p)
{
    if (p->n_bad && into->n_bad == 0) {
        into->first_bad = p->first_bad;
        into->bad_b = p->bad_b;
        into->bad_c = p->bad_c;
    }
    into->n_bad += p->n_bad;
    into->n_nonfinite += p->n_nonfinite;
    into->n_widened += p->n_widened;
    if (p->max_abs > into->max_abs)
        into->max_abs = p->max_abs;
    if (p->max_rel > into->max_rel)
        into->max_rel = p->max_rel;
    into->sum_d2 += p->sum_d2;
    into->sum_b2 += p->sum_b2;
}

/* widen: added to tol.atol and (when it has one) to tol.l2; elements that pass only with
 * it are counted in r->n_widened */
static void compare_buffer(int dtype, const void *base, const void *cand, size_t count,
                           spec_tolerance tol, oracle_widen widen, oracle_result *r)
{
    memset(r, 0, sizeof *r);
    r->arg_index = -1;
    cmp_part all = {.first_bad = -1};
    struct cmp_job j = {dtype, base, cand, count, (count + ORACLE_BLOCK - 1) / ORACLE_BLOCK, tol,
                        widen, NULL};
    if (j.n_blocks > 1)
        j.parts = hk_malloc(j.n_blocks * sizeof *j.parts);
    if (j.parts) {
        run_blocks(count, cmp_blocks, &j);
        for (size_t k = 0; k < j.n_blocks; k++)
            cmp_merge(&all, &j.parts[k]);
        hk_free(j.parts);
    } else { /* one block, or no memory for the partials: the same blocks in order here */
        for (size_t i0 = 0; i0 < count; i0 += ORACLE_BLOCK) {
            cmp_part p;
            cmp_block(dtype, base, cand, i0, count - i0 < ORACLE_BLOCK ? count - i0 : ORACLE_BLOCK,
                      tol, widen, &p);
            cmp_merge(&all, &p);
        }
    }
    r->n_bad = all.n_bad;
    r->n_nonfinite = all.n_nonfinite;
    r->n_widened = all.n_widened;
    r->first_bad = all.first_bad;
    r->max_abs = all.max_abs;
    r->max_rel = all.max_rel;
    double sum_d2 = all.sum_d2, sum_b2 = all.sum_b2, bad_b = all.bad_b, bad_c = all.bad_c;
    r->rel_l2 = sum_b2 > 0 ? sqrt(sum_d2 / sum_b2) : sqrt(sum_d2);
    if (r->n_nonfinite) {
        r->pass = false;
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_NONFINITE), r->n_nonfinite,
                 r->first_bad, bad_c, bad_b);
    } else if (r->n_bad) {
        r->pass = false;
        char wide[48] = "";
        if (widen.atol > 0)
            snprintf(wide, sizeof wide, hk_tr(HK_MSG_ORACLE_WIDENING), widen.atol);
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_WRONG), r->n_bad, count,
                 r->first_bad, bad_c, bad_b, r->max_abs, r->max_rel, r->rel_l2, tol.rtol,
                 tol.atol, wide);
    } else if (tol.l2 > 0 && r->rel_l2 > tol.l2 + widen.l2) {
        r->pass = false;
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_WRONG_L2), r->rel_l2,
                 tol.l2 + widen.l2, widen.l2 > 0 ? hk_tr(HK_MSG_ORACLE_WIDENED) : "", r->max_abs,
                 r->max_rel);
    } else {
        r->pass = true;
        r->l2_widened = tol.l2 > 0 && r->rel_l2 > tol.l2;
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_OK), r->max_abs, r->max_rel,
                 r->rel_l2);
    }
}

void oracle_compare_buffer_widened(int dtype, const void *base, const void *cand, size_t count,
                                   spec_tolerance tol, oracle_widen widen, oracle_result *r)
{
    compare_buffer(dtype, base, cand, count, tol, widen, r);
}

void oracle_compare_buffer(int dtype, const void *base, const void *cand, size_t count,
                           spec_tolerance tol, oracle_result *r)
{
    compare_buffer(dtype, base, cand, count, tol, (oracle_widen){0, 0}, r);
}

static const spec_arg *arg_of(const spec *s, uint32_t index)
{
    return s && index < s->n_args ? &s->args[index] : NULL;
}

/* precision: on a referee-added distribution a float output's accuracy is the fp64 rule's
 * alone, so only NaN/Inf where the baseline is finite fails it here (infinite tolerances). */
static int compare_impl(const spec *s, const oracle_file *base, const oracle_file *cand,
                        bool precision, const oracle_widen *widen, oracle_result *r)
{
    memset(r, 0, sizeof *r);
    r->arg_index = -1;
    r->first_bad = -1;
    if (base->n != cand->n) {
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_COUNT_MISMATCH), cand->n,
                 base->n);
        return HK_OK;
    }
    r->pass = true;
    oracle_result worst = *r;
    double worst_score = -1;
    size_t widened = 0;
    bool l2_widened = false;
    for (size_t i = 0; i < base->n; i++) {
        const oracle_output *b = &base->outputs[i], *c = &cand->outputs[i];
        const spec_arg *a = arg_of(s, b->arg_index);
        const char *name = a ? a->name : "?";
        if (b->arg_index != c->arg_index || b->dtype != c->dtype || b->count != c->count) {
            r->pass = false;
            r->arg_index = (int)b->arg_index;
            snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_ARG_MISMATCH), i,
                     c->arg_index, hk_dtype_name(c->dtype),
                     (unsigned long long)c->count, b->arg_index, name, hk_dtype_name(b->dtype),
                     (unsigned long long)b->count);
            return HK_OK;
        }
        spec_tolerance tol = a ? a->tol : spec_default_tolerance(b->dtype);
        if (precision && hk_dtype_is_float(b->dtype))
            tol = (spec_tolerance){ .rtol = INFINITY, .atol = INFINITY, .l2 = 0 };
        oracle_widen w = {0, 0};
        if (widen && b->arg_index < HK_MAX_ARGS && hk_dtype_is_float(b->dtype)) {
            const oracle_widen *x = &widen[b->arg_index];
            w.atol = isfinite(x->atol) && x->atol > 0 ? x->atol : 0;
            w.l2 = isfinite(x->l2) && x->l2 > 0 ? x->l2 : 0;
        }
        oracle_result one;
        compare_buffer(b->dtype, b->data, c->data, (size_t)b->count, tol, w, &one);
        one.arg_index = (int)b->arg_index;
        widened += one.n_widened;
        l2_widened |= one.l2_widened;
        if (!one.pass) {
            char why[sizeof one.reason];
            memcpy(why, one.reason, sizeof why);
            snprintf(one.reason, sizeof one.reason, hk_tr(HK_MSG_ORACLE_OUTPUT), name, why);
            *r = one;
            return HK_OK;
        }
        /* For a pass, report the output closest to its limit. */
        double score = tol.l2 > 0 ? one.rel_l2 / tol.l2 : one.max_abs;
        if (score > worst_score) {
            worst_score = score;
            worst.arg_index = one.arg_index;
        }
        if (one.max_abs > worst.max_abs)
            worst.max_abs = one.max_abs;
        if (one.max_rel > worst.max_rel)
            worst.max_rel = one.max_rel;
        if (one.rel_l2 > worst.rel_l2)
            worst.rel_l2 = one.rel_l2;
    }
    *r = worst;
    r->pass = true;
    r->n_widened = widened;
    r->l2_widened = l2_widened;
    char wide[200] = "";
    const char *l2 = l2_widened ? hk_tr(HK_MSG_ORACLE_OK_AND_L2) : "";
    if (widened == 1)
        snprintf(wide, sizeof wide, hk_tr(HK_MSG_ORACLE_OK_WIDENED_ONE), l2);
    else if (widened || l2_widened)
        snprintf(wide, sizeof wide, hk_tr(HK_MSG_ORACLE_OK_WIDENED_MANY), widened, l2);
    if (base->n == 1)
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_OK_ONE), r->max_abs,
                 r->max_rel, r->rel_l2, wide);
    else
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_OK_MANY), base->n, r->max_abs,
                 r->max_rel, r->rel_l2, wide);
    return HK_OK;
}

int oracle_compare(const spec *s, const oracle_file *base, const oracle_file *cand, oracle_result *r)
{
    return compare_impl(s, base, cand, false, NULL, r);
}

int oracle_compare_precision(const spec *s, const oracle_file *base, const oracle_file *cand,
                             oracle_result *r)
{
    return compare_impl(s, base, cand, true, NULL, r);
}

static int compare_files_impl(const spec *s, const char *baseline_path,
                              const char *candidate_path, bool precision,
                              const oracle_widen *widen, oracle_result *r)
{
    oracle_file base = { 0 }, cand = { 0 };
    char err[200];
    memset(r, 0, sizeof *r);
    r->arg_index = -1;
    r->first_bad = -1;
    int rc = oracle_read(baseline_path, &base, err, sizeof err);
    if (rc != HK_OK) {
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_BASE_UNUSABLE), err);
        return rc;
    }
    rc = oracle_read(candidate_path, &cand, err, sizeof err);
    if (rc == HK_ENOMEM) {
        oracle_file_free(&base);
        return rc;
    }
    if (rc != HK_OK)
        snprintf(r->reason, sizeof r->reason, hk_tr(HK_MSG_ORACLE_CAND_UNUSABLE), err);
    else
        compare_impl(s, &base, &cand, precision, precision ? NULL : widen, r);
    oracle_file_free(&base);
    oracle_file_free(&cand);
    return HK_OK;
}

int oracle_compare_files(const spec *s, const char *baseline_path, const char *candidate_path,
                         oracle_result *r)
{
    return compare_files_impl(s, baseline_path, candidate_path, false, NULL, r);
}

int oracle_compare_files_widened(const spec *s, const char *baseline_path,
                                 const char *candidate_path, const oracle_widen *widen,
                                 oracle_result *r)
{
    return compare_files_impl(s, baseline_path, candidate_path, false, widen, r);
}

int oracle_compare_files_precision(const spec *s, const char *baseline_path,
                                   const char *candidate_path, oracle_result *r)
{
    return compare_files_impl(s, baseline_path, candidate_path, true, NULL, r);
}

/* ---- the fp64-reference rule ---- */

oracle_rule oracle_default_rule(int dtype)
{
    /* k = 4: a correct rewrite that sums in another order, or uses fma contraction or a
     * fast intrinsic, has an error of the same order as the baseline's; pooled over the
     * spec's runs (5 seeds at least) the RMS errors of two such orders differ by more
     * than 4x with a probability near 0.4% (an F(5,5) ratio over 16), while a candidate
     * that skips work has an error that grows with what it skipped. The floor, 8 machine
     * epsilons of the output's magnitude, covers baselines that are exact (a copy, a
     * transpose, an elementwise add: error 0 or one rounding), where k times nothing
     * would demand bit-exact results of a candidate allowed to round once more. */
    oracle_rule r = { .k = ORACLE_REF64_K, .floor = 0, .tol = spec_default_tolerance(dtype) };
    switch (dtype) {
    case HK_DT_F32: r.floor = ldexp(1.0, -20); break;
    case HK_DT_F64: r.floor = ldexp(1.0, -49); break;
    case HK_DT_F16: r.floor = ldexp(1.0, -7); break;
    case HK_DT_BF16: r.floor = ldexp(1.0, -4); break;
    default: break;
    }
    return r;
}

const char *oracle_decider_name(int decider)
{
    switch (decider) {
    /* codes: the JSON's "decided_by" (a sentence says them through ORACLE_BY_*) */
    case ORACLE_BY_TOLERANCE: return "tolerance vs baseline"; /* i18n: not for people */
    case ORACLE_BY_REF64: return "fp64 reference, error ratio"; /* i18n: not for people */
    case ORACLE_BY_EXACT: return "exact (integer output)"; /* i18n: not for people */
    case ORACLE_BY_NONFINITE: return "non-finite where the reference is finite"; /* i18n: not for people */
    default: return "none";
    }
}

/* One block's share of oracle_ref64_error (the fields it sums and the worst element). */
static void ref64_block(const double *ref, const void *x, int dtype, size_t i0, size_t n,
                        oracle_ref64_err *out)
{
    double v[ORACLE_BLOCK];
    load_block(dtype, x, i0, n, v);
    memset(out, 0, sizeof *out);
    out->first_nonfinite = -1;
    out->worst = -1;
    for (size_t k = 0; k < n; k++) {
        double r = ref[i0 + k];
        if (!isfinite(r)) {
            out->n_ref_nonfinite++;
            continue;
        }
        if (!isfinite(v[k])) {
            if (out->n_nonfinite++ == 0)
                out->first_nonfinite = (long long)(i0 + k);
            continue;
        }
        double d = fabs(v[k] - r);
        out->n++;
        if (fabs(r) > out->ref_max)
            out->ref_max = fabs(r);
        if (d > out->max_abs || out->worst < 0) {
            if (d > out->max_abs)
                out->max_abs = d;
            out->worst = (long long)(i0 + k);
        }
        out->sum_d2 += d * d;
        out->sum_r2 += r * r;
    }
}

struct ref64_job {
    const double *ref;
    const void *x;
    int dtype;
    size_t count, n_blocks;
    oracle_ref64_err *parts;
};
static void ref64_blocks(void *arg, unsigned t, unsigned n_threads)
{
    struct ref64_job *j = arg;
    for (size_t k = t; k < j->n_blocks; k += n_threads) {
        size_t i0 = k * ORACLE_BLOCK, n = j->count - i0 < ORACLE_BLOCK ? j->count - i0 : ORACLE_BLOCK;
        ref64_block(j->ref, j->x, j->dtype, i0, n, &j->parts[k]);
    }
}
/* In block order, as one pass over the elements gives: the first worst, the first
 * non-finite. */
static void ref64_merge(oracle_ref64_err *into, const oracle_ref64_err *p)
{
    if (p->n_nonfinite && into->n_nonfinite == 0)
        into->first_nonfinite = p->first_nonfinite;
    into->n_nonfinite += p->n_nonfinite;
    into->n_ref_nonfinite += p->n_ref_nonfinite;
    if (p->worst >= 0 && (p->max_abs > into->max_abs || into->worst < 0)) {
        into->max_abs = p->max_abs;
        into->worst = p->worst;
    }
    into->n += p->n;
    if (p->ref_max > into->ref_max)
        into->ref_max = p->ref_max;
    into->sum_d2 += p->sum_d2;
    into->sum_r2 += p->sum_r2;
}

int oracle_ref64_error(const double *ref, const void *x, int dtype, size_t n, oracle_ref64_err *out)
{
    memset(out, 0, sizeof *out);
    out->first_nonfinite = -1;
    out->worst = -1;
    if (hk_dtype_size(dtype) == 0 || (n > 0 && (!ref || !x)))
        return HK_EINVAL;
    struct ref64_job j = {ref, x, dtype, n, (n + ORACLE_BLOCK - 1) / ORACLE_BLOCK, NULL};
    if (j.n_blocks > 1)
        j.parts = hk_malloc(j.n_blocks * sizeof *j.parts);
    if (j.parts) {
        run_blocks(n, ref64_blocks, &j);
        for (size_t k = 0; k < j.n_blocks; k++)
            ref64_merge(out, &j.parts[k]);
        hk_free(j.parts);
        return HK_OK;
    }
    for (size_t i0 = 0; i0 < n; i0 += ORACLE_BLOCK) {
        oracle_ref64_err p;
        ref64_block(ref, x, dtype, i0, n - i0 < ORACLE_BLOCK ? n - i0 : ORACLE_BLOCK, &p);
        ref64_merge(out, &p);
    }
    return HK_OK;
}

void oracle_ref64_rel(const oracle_ref64_err *e, double *rel_max, double *rel_l2)
{
    /* a reference of zeros has no magnitude to be relative to: absolute errors then */
    *rel_max = e->ref_max > 0 ? e->max_abs / e->ref_max : e->max_abs;
    if (e->sum_r2 > 0)
        *rel_l2 = sqrt(e->sum_d2 / e->sum_r2);
    else
        *rel_l2 = e->n ? sqrt(e->sum_d2 / (double)e->n) : 0;
}

/* "3.1e-04 vs the baseline's 2.0e-07 (k=4, floor 9.5e-07): 1550x the baseline's own error" */
static void describe_ratio(char *buf, size_t len, const char *what, double c, double b,
                           const oracle_rule *rule)
{
    if (b > 0)
        snprintf(buf, len, hk_tr(HK_MSG_ORACLE_RATIO), what, c, b, rule->k, rule->floor, c / b);
    else
        snprintf(buf, len, hk_tr(HK_MSG_ORACLE_RATIO_EXACT), what, c, rule->k, rule->floor);
}

/* A decider's name in a sentence: the table's (English where it is stored; the JSON's
 * "decided_by" keeps oracle_decider_name's, a code). */
static const char *decider_words(int decider)
{
    switch (decider) {
    case ORACLE_BY_TOLERANCE: return hk_tr(HK_MSG_ORACLE_BY_TOLERANCE);
    case ORACLE_BY_REF64: return hk_tr(HK_MSG_ORACLE_BY_REF64);
    case ORACLE_BY_EXACT: return hk_tr(HK_MSG_ORACLE_BY_EXACT);
    case ORACLE_BY_NONFINITE: return hk_tr(HK_MSG_ORACLE_BY_NONFINITE);
    default: return oracle_decider_name(decider);
    }
}

void oracle_ref64_judge(int dtype, const oracle_ref64_err *base, const oracle_ref64_err *cand,
                        size_t runs, const oracle_rule *rule, oracle_ref64_result *out)
{
    oracle_rule def = oracle_default_rule(dtype);
    if (!rule)
        rule = &def;
    memset(out, 0, sizeof *out);
    out->worst = -1;
    out->tol_pass = true;
    out->decided_by = ORACLE_BY_REF64;
    double bm = 0, bl = 0, cm = 0, cl = 0, worst_d = -1;
    size_t base_nonfinite = 0;
    for (size_t i = 0; i < runs; i++) {
        double m, l;
        oracle_ref64_rel(&base[i], &m, &l);
        bm += m * m;
        bl += l * l;
        oracle_ref64_rel(&cand[i], &m, &l);
        cm += m * m;
        cl += l * l;
        out->n_nonfinite += cand[i].n_nonfinite;
        base_nonfinite += base[i].n_nonfinite;
        if (cand[i].worst >= 0 && cand[i].max_abs > worst_d) {
            worst_d = cand[i].max_abs;
            out->worst = cand[i].worst;
        }
    }
    double nr = runs ? (double)runs : 1;
    out->base_max = sqrt(bm / nr);
    out->base_l2 = sqrt(bl / nr);
    out->cand_max = sqrt(cm / nr);
    out->cand_l2 = sqrt(cl / nr);
    bool integer = !hk_dtype_is_float(dtype);
    double k = integer ? 0 : rule->k, fl = integer ? 0 : rule->floor;
    out->limit_max = k * out->base_max + fl;
    out->limit_l2 = k * out->base_l2 + fl;
    double rm = out->limit_max > 0 ? out->cand_max / out->limit_max : out->cand_max > 0 ? INFINITY : 0;
    double rl = out->limit_l2 > 0 ? out->cand_l2 / out->limit_l2 : out->cand_l2 > 0 ? INFINITY : 0;
    out->ratio = rm > rl ? rm : rl;
    char what[240];
    if (out->n_nonfinite) {
        out->ref64_pass = out->pass = false;
        out->decided_by = ORACLE_BY_NONFINITE;
        long long first = -1;
        for (size_t i = 0; i < runs && first < 0; i++)
            first = cand[i].first_nonfinite;
        snprintf(out->reason, sizeof out->reason,
                 hk_tr(out->n_nonfinite == 1 ? HK_MSG_ORACLE_REF64_NONFINITE_ONE
                                             : HK_MSG_ORACLE_REF64_NONFINITE_MANY),
                 decider_words(ORACLE_BY_NONFINITE), out->n_nonfinite, first);
        return;
    }
    out->ref64_pass = out->pass = out->ratio <= 1;
    if (rm >= rl)
        describe_ratio(what, sizeof what, hk_tr(HK_MSG_ORACLE_MAX_ERROR), out->cand_max, out->base_max, rule);
    else
        describe_ratio(what, sizeof what, hk_tr(HK_MSG_ORACLE_REL_L2_ERROR), out->cand_l2, out->base_l2, rule);
    char runs_note[48] = "";
    if (runs > 1)
        snprintf(runs_note, sizeof runs_note, hk_tr(HK_MSG_ORACLE_RMS_RUNS), runs);
    char base_note[128] = "";
    if (base_nonfinite)
        snprintf(base_note, sizeof base_note, hk_tr(HK_MSG_ORACLE_BASE_NONFINITE), base_nonfinite);
    if (out->pass)
        snprintf(out->reason, sizeof out->reason, hk_tr(HK_MSG_ORACLE_REF64_OK),
                 decider_words(ORACLE_BY_REF64), out->ratio, runs_note, out->cand_max,
                 out->base_max, out->cand_l2, out->base_l2, base_note);
    else
        snprintf(out->reason, sizeof out->reason, hk_tr(HK_MSG_ORACLE_REF64_WRONG),
                 decider_words(ORACLE_BY_REF64), what, runs_note, out->worst, base_note);
}

/* Whether run i of an output is a scalar: one element in all. */
static bool ref64_scalar(const oracle_ref64_err *e)
{
    return e->n + e->n_nonfinite + e->n_ref_nonfinite == 1;
}

void oracle_ref64_scalar_scale(oracle_ref64_err *base, oracle_ref64_err *cand, const int *group, size_t runs)
{
    for (size_t i = 0; i < runs; i++) {
        int gid = group ? group[i] : 0;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = (group ? group[j] : 0) == gid && ref64_scalar(&base[j]) && base[j].n == 1;
        if (seen || !ref64_scalar(&base[i]) || base[i].n != 1)
            continue;
        double r2 = 0;
        size_t m = 0;
        for (size_t j = i; j < runs; j++)
            if ((group ? group[j] : 0) == gid && ref64_scalar(&base[j]) && base[j].n == 1) {
                r2 += base[j].sum_r2;
                m++;
            }
        r2 /= (double)m;
        for (size_t j = i; j < runs; j++)
            if ((group ? group[j] : 0) == gid && ref64_scalar(&base[j]) && base[j].n == 1) {
                base[j].sum_r2 = r2;
                base[j].ref_max = sqrt(r2);
                if (cand && cand[j].n == 1) {
                    cand[j].sum_r2 = r2;
                    cand[j].ref_max = sqrt(r2);
                }
            }
    }
}

int oracle_ref64_judge_groups(int dtype, const oracle_ref64_err *base_in, const oracle_ref64_err *cand_in,
                              const int *group, size_t runs, const oracle_rule *rule,
                              oracle_ref64_result *out, int *failed, size_t *failed_runs)
{
    int rc = HK_OK;
    oracle_ref64_err *gb = NULL, *gc = NULL, *base = NULL, *cand = NULL;
    oracle_ref64_result *g = NULL;
    if (failed)
        *failed = -1;
    if (failed_runs)
        *failed_runs = 0;
    /* a scalar's runs relative to their combination's RMS reference (oracle.h) */
    base = hk_calloc(runs ? runs : 1, sizeof *base);
    cand = hk_calloc(runs ? runs : 1, sizeof *cand);
    if (!base || !cand) {
        oracle_ref64_judge(dtype, base_in, cand_in, runs, rule, out);
        rc = HK_ENOMEM;
        goto out;
    }
    if (runs) {
        memcpy(base, base_in, runs * sizeof *base);
        memcpy(cand, cand_in, runs * sizeof *cand);
    }
    oracle_ref64_scalar_scale(base, cand, group, runs);
    oracle_ref64_judge(dtype, base, cand, runs, rule, out);
    if (!out->pass || !group || runs < 2)
        goto out;
    /* Since session 51 scalars are judged one combination at a time too (over at least
     * ORACLE_GROUP_MIN_RUNS_SMALL runs, as small outputs are): pooled only, a candidate
     * that erred at one size or on one distribution had its error diluted by the runs where
     * it was honest (the RMS over every run: reduce_sum's lopsided_sum, 1.1x the limit at
     * 2^24 on uniform(0,1), 0.8 of it pooled); 2026-12-07-judge-cpu-s51.md measures it. */
    gb = hk_calloc(runs, sizeof *gb);
    gc = hk_calloc(runs, sizeof *gc);
    g = hk_calloc(1, sizeof *g);
    if (!gb || !gc || !g) {
        rc = HK_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < runs; i++) {
        bool seen = false; /* each group once, at its first run */
        for (size_t j = 0; j < i && !seen; j++)
            seen = group[j] == group[i];
        if (seen)
            continue;
        size_t n = 0, g_elements = 0;
        for (size_t j = i; j < runs; j++)
            if (group[j] == group[i]) {
                gb[n] = base[j];
                gc[n] = cand[j];
                if (base[j].n > g_elements)
                    g_elements = base[j].n;
                n++;
            }
        if (n == runs)
            break; /* one group: the pool's verdict */
        if (g_elements < ORACLE_GROUP_MIN_ELEMENTS && n < ORACLE_GROUP_MIN_RUNS_SMALL)
            continue; /* a scalar or a small output at this combination (a per-row output at
                       * the small size) over fewer runs than k = 4 assumes (the quick set's
                       * one run a combination): one noisy draw a run, pooled only */
        oracle_ref64_judge(dtype, gb, gc, n, rule, g);
        if (!g->pass) {
            *out = *g;
            if (failed)
                *failed = group[i];
            if (failed_runs)
                *failed_runs = n;
            break;
        }
    }
out:
    hk_free(base);
    hk_free(cand);
    hk_free(gb);
    hk_free(gc);
    hk_free(g);
    return rc;
}

bool oracle_ref64_base_exact(int dtype, const oracle_ref64_err *base, size_t runs,
                             const oracle_rule *rule)
{
    oracle_rule def = oracle_default_rule(dtype);
    if (!rule)
        rule = &def;
    if (!runs || !hk_dtype_is_float(dtype) || !(rule->floor > 0))
        return false;
    for (size_t i = 0; i < runs; i++) {
        double m, l;
        if (base[i].n_nonfinite || !base[i].n)
            return false;
        oracle_ref64_rel(&base[i], &m, &l);
        if (!(m <= rule->floor && l <= rule->floor))
            return false;
    }
    return true;
}

/* out's reason behind a prefix (ORACLE_GRID_EXACT or ORACLE_GRID_INEXACT). */
static void exact_prefix(oracle_ref64_result *out, enum hk_msg prefix)
{
    char mine[sizeof out->reason];
    memcpy(mine, out->reason, sizeof mine);
    snprintf(out->reason, sizeof out->reason, hk_tr(prefix), mine);
}

int oracle_ref64_judge_exact(int dtype, const oracle_ref64_err *base, const oracle_ref64_err *cand,
                             const int *group, size_t runs, const oracle_rule *rule,
                             oracle_ref64_result *out, int *failed, size_t *failed_runs,
                             size_t *exact_groups)
{
    oracle_rule def = oracle_default_rule(dtype);
    if (!rule)
        rule = &def;
    int rc = HK_OK;
    if (failed)
        *failed = -1;
    if (failed_runs)
        *failed_runs = 0;
    if (exact_groups)
        *exact_groups = 0;
    memset(out, 0, sizeof *out);
    out->pass = out->ref64_pass = out->tol_pass = true;
    out->decided_by = ORACLE_BY_REF64;
    out->worst = -1;
    oracle_ref64_err *gb = hk_calloc(runs ? runs : 1, sizeof *gb);
    oracle_ref64_err *gc = hk_calloc(runs ? runs : 1, sizeof *gc);
    oracle_ref64_err *rb = hk_calloc(runs ? runs : 1, sizeof *rb);
    oracle_ref64_err *rc_ = hk_calloc(runs ? runs : 1, sizeof *rc_);
    int *rg = hk_calloc(runs ? runs : 1, sizeof *rg);
    oracle_ref64_result *g = hk_calloc(1, sizeof *g);
    if (!gb || !gc || !rb || !rc_ || !rg || !g) {
        rc = HK_ENOMEM;
        goto out;
    }
    /* Where the baseline is exact (its error within the floor in every run of the group),
     * the group is judged on its own, whatever the output's size, and each of its runs by
     * itself: exactness is a property of the inputs, not a noisy draw, so the pooling that a
     * scalar's or a small output's noisy error needs does not apply. The limit stays the
     * usual k x the baseline's error (that run's)
     * plus the floor: the floor alone where the baseline is exact to the bit (reduce_sum's
     * grid sums), while a baseline that rounds a few times, within the floor, leaves an
     * honest candidate that rounds differently k times that room (with k = 0 a candidate at
     * 1.5 floors beside a baseline at 0.9 would be rejected: test_judge_exact). One that skips
     * work is off by its sampling error, hundreds of floors (2026-12-07-exact-cpu-s50.md). */
    const oracle_rule exact_rule = *rule;
    size_t rest = 0;
    bool have = false;
    for (size_t i = 0; i < runs; i++) {
        int gid = group ? group[i] : 0;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = (group ? group[j] : 0) == gid;
        if (seen)
            continue;
        size_t n = 0;
        for (size_t j = i; j < runs; j++)
            if ((group ? group[j] : 0) == gid) {
                gb[n] = base[j];
                gc[n] = cand[j];
                n++;
            }
        if (!oracle_ref64_base_exact(dtype, gb, n, rule)) {
            for (size_t j = 0; j < n; j++) {
                rb[rest] = gb[j];
                rc_[rest] = gc[j];
                rg[rest] = gid;
                rest++;
            }
            continue;
        }
        if (exact_groups)
            (*exact_groups)++;
        /* each run on its own (session 51, issue 12): exactness is a property of each run's
         * inputs, not a noisy draw, so the RMS over the group's runs that smooths a noisy
         * error would only dilute a candidate off in one run of n (up to sqrt(n) floors) */
        for (size_t j = 0; j < n; j++) {
            oracle_ref64_judge(dtype, &gb[j], &gc[j], 1, &exact_rule, g);
            if (!g->pass) {
                char mine[sizeof g->reason];
                memcpy(mine, g->reason, sizeof mine);
                snprintf(g->reason, sizeof g->reason, hk_tr(HK_MSG_ORACLE_GRID_EXACT_WRONG), j + 1, n, mine);
                *out = *g;
                if (failed)
                    *failed = gid;
                if (failed_runs)
                    *failed_runs = n;
                goto out;
            }
            if (!have || g->ratio > out->ratio) {
                exact_prefix(g, HK_MSG_ORACLE_GRID_EXACT);
                *out = *g;
                have = true;
            }
        }
    }
    if (rest) { /* the usual rule where the baseline is not exact */
        int f = -1;
        size_t fr = 0;
        rc = oracle_ref64_judge_groups(dtype, rb, rc_, rg, rest, rule, g, &f, &fr);
        if (rc)
            goto out;
        exact_prefix(g, HK_MSG_ORACLE_GRID_INEXACT);
        if (!g->pass || !have || g->ratio > out->ratio)
            *out = *g;
        if (!g->pass) {
            if (failed)
                *failed = f;
            if (failed_runs)
                *failed_runs = f >= 0 ? fr : rest;
        }
    }
out:
    hk_free(gb);
    hk_free(gc);
    hk_free(rb);
    hk_free(rc_);
    hk_free(rg);
    hk_free(g);
    return rc;
}

int oracle_compare_ref64(const double *ref, const void *base, const void *cand, int dtype, size_t n,
                         const oracle_rule *rule, oracle_ref64_result *out)
{
    oracle_rule def = oracle_default_rule(dtype);
    if (!rule)
        rule = &def;
    memset(out, 0, sizeof *out);
    out->worst = -1;
    out->ref64_pass = out->tol_pass = true;
    size_t es = hk_dtype_size(dtype);
    if (es == 0 || (n > 0 && (!base || !cand))) {
        snprintf(out->reason, sizeof out->reason, EN(ORACLE_BAD_ARGS), dtype, n);
        return HK_EINVAL;
    }
    if (!hk_dtype_is_float(dtype)) {
        /* integers: nothing rounds, so anything but the baseline's values is wrong */
        size_t bad = 0;
        long long first = -1;
        for (size_t i = 0; i < n; i++)
            if (memcmp((const unsigned char *)base + i * es, (const unsigned char *)cand + i * es, es)) {
                if (bad++ == 0)
                    first = (long long)i;
            }
        oracle_compare_buffer(dtype, base, cand, n, rule->tol, &out->tol);
        out->decided_by = ORACLE_BY_EXACT;
        out->pass = out->tol_pass = bad == 0;
        out->worst = first;
        if (bad)
            snprintf(out->reason, sizeof out->reason, hk_tr(HK_MSG_ORACLE_EXACT_DIFFER),
                     decider_words(ORACLE_BY_EXACT),
                     bad, n, first, oracle_element(dtype, cand, (size_t)first),
                     oracle_element(dtype, base, (size_t)first));
        else
            snprintf(out->reason, sizeof out->reason, hk_tr(HK_MSG_ORACLE_EXACT_OK),
                     decider_words(ORACLE_BY_EXACT), n);
        return HK_OK;
    }
    oracle_result tol;
    oracle_compare_buffer(dtype, base, cand, n, rule->tol, &tol);
    if (!ref) {
        out->tol = tol;
        out->pass = out->tol_pass = tol.pass;
        out->decided_by = ORACLE_BY_TOLERANCE;
        out->worst = tol.first_bad;
        snprintf(out->reason, sizeof out->reason, "%s (no fp64 reference): %s",
                 oracle_decider_name(ORACLE_BY_TOLERANCE), tol.reason);
        return HK_OK;
    }
    oracle_ref64_err eb, ec;
    oracle_ref64_error(ref, base, dtype, n, &eb);
    oracle_ref64_error(ref, cand, dtype, n, &ec);
    oracle_ref64_judge(dtype, &eb, &ec, 1, rule, out);
    out->tol = tol;
    out->tol_pass = tol.pass;
    if (out->ref64_pass && !tol.pass) {
        out->pass = false;
        out->decided_by = ORACLE_BY_TOLERANCE;
        char mine[sizeof out->reason];
        memcpy(mine, out->reason, sizeof mine);
        snprintf(out->reason, sizeof out->reason, EN(ORACLE_TOL_FAILED), tol.reason, mine);
    } else if (out->pass) {
        size_t l = strlen(out->reason);
        snprintf(out->reason + l, sizeof out->reason - l, "; and %s",
                 oracle_decider_name(ORACLE_BY_TOLERANCE));
    }
    return HK_OK;
}

bool oracle_dist_exercises_precision(const hk_dist *d)
{
    switch (d->kind) {
    case HK_DIST_UNIFORM: return d->b > d->a;
    case HK_DIST_NORMAL: return d->b > 0;
    default: return false; /* int, ones_sparse, zeros: integers only; grid: exact sums */
    }
}

size_t oracle_precision_check(const spec *s, bool *exercised, char *warning, size_t wlen)
{
    size_t bad = 0, used = 0;
    if (warning && wlen)
        warning[0] = '\0';
    for (size_t i = 0; s && i < s->n_args; i++) {
        const spec_arg *a = &s->args[i];
        if (exercised)
            exercised[i] = true;
        bool input = a->kind == HK_ARG_INPUT || a->kind == HK_ARG_INOUT;
        if (!input || !hk_dtype_is_float(a->dtype) || a->n_dists == 0)
            continue;
        bool real = false, all_zeros = true;
        for (size_t d = 0; d < a->n_dists; d++) {
            real |= oracle_dist_exercises_precision(&a->dists[d]);
            all_zeros &= a->dists[d].kind == HK_DIST_ZEROS;
        }
        if (real || all_zeros)
            continue; /* an accumulator that starts at zero holds no input values */
        if (exercised)
            exercised[i] = false;
        if (warning && wlen > used + 1) {
            int w = snprintf(warning + used, wlen - used, "%s'%s'", bad ? ", " : "", a->name);
            used = w > 0 && (size_t)w < wlen - used ? used + (size_t)w : wlen - 1;
        }
        bad++;
    }
    if (bad && warning && wlen > used + 1)
        snprintf(warning + used, wlen - used, "%s",
                 bad == 1 ? EN(ORACLE_PREC_WARN_ONE) : EN(ORACLE_PREC_WARN_MANY));
    return bad;
}

/* The integer range [lo, hi] that arg a's distributions draw from (int, ones_sparse, zeros). */
static void integer_range(const spec_arg *a, double *lo, double *hi)
{
    bool any = false;
    for (size_t d = 0; d < a->n_dists; d++) {
        const hk_dist *x = &a->dists[d];
        double l = 0, h = 0;
        if (x->kind == HK_DIST_INT) {
            l = x->a;
            h = x->b;
        } else if (x->kind == HK_DIST_ONES_SPARSE) {
            h = 1;
        } else if (x->kind == HK_DIST_GRID) {
            l = x->a;
            h = x->b;
        }
        if (!any || l < *lo)
            *lo = l;
        if (!any || h > *hi)
            *hi = h;
        any = true;
    }
    if (!any)
        *lo = -1, *hi = 1;
    if (!(*hi > *lo))
        *hi = *lo + 1;
}

/* Grows every distribution array of s (the spec's, each argument's that has them, each
 * __constant__'s) to n entries, counts unchanged: a failure leaves the spec as it was but
 * for larger arrays. HK_OK, HK_ENOMEM. */
static int grow_dists(spec *s, size_t n)
{
    hk_dist *sd = hk_realloc(s->dists, n * sizeof *sd);
    if (!sd)
        return HK_ENOMEM;
    s->dists = sd;
    char **st = hk_realloc(s->dist_texts, n * sizeof *st);
    if (!st)
        return HK_ENOMEM;
    s->dist_texts = st;
    for (size_t i = 0; i < s->n_args; i++) {
        spec_arg *a = &s->args[i];
        if (a->n_dists != s->n_dists)
            continue; /* scalars and outputs have none */
        hk_dist *ad = hk_realloc(a->dists, n * sizeof *ad);
        if (!ad)
            return HK_ENOMEM;
        a->dists = ad;
    }
    for (size_t i = 0; i < s->n_consts; i++) {
        hk_dist *cd = hk_realloc(s->consts[i].dists, n * sizeof *cd);
        if (!cd)
            return HK_ENOMEM;
        s->consts[i].dists = cd;
    }
    return HK_OK;
}

/* The spec's distribution n - 1 that the referee adds, `first` under the spec's word for its
 * kind; every argument that had all of the spec's distributions has it (set beforehand in
 * each such argument's dists[s->n_dists]). HK_OK or HK_ENOMEM. */
static int append_spec_dist(spec *s, hk_dist first, const char *word, size_t n)
{
    char *text = hk_asprintf("%s(%g,%g)", word, first.a, first.b);
    if (!text)
        return HK_ENOMEM;
    s->dists[s->n_dists] = first;
    s->dist_texts[s->n_dists] = text;
    for (size_t i = 0; i < s->n_args; i++)
        if (s->args[i].n_dists == s->n_dists)
            s->args[i].n_dists = n;
    return HK_OK;
}

int oracle_add_precision_dist(spec *s, char *note, size_t len)
{
    bool exercised[HK_MAX_ARGS];
    char names[160] = "";
    if (note && len)
        note[0] = '\0';
    if (!s || s->form != SPEC_FORM_HARNESS || s->n_referee_dists || !s->n_dists ||
        s->n_args > HK_MAX_ARGS || oracle_precision_check(s, exercised, NULL, 0) == 0)
        return HK_OK;
    size_t n = s->n_dists + 1, used = 0;
    if (grow_dists(s, n))
        return HK_ENOMEM;
    /* A float input whose every distribution is integer-valued gets a uniform one over the
     * same range (zero-mean where the range crosses zero: sums then cancel and keep the
     * baseline's own rounding small, while every rounded product or partial sum of a less
     * precise candidate still counts); every other argument keeps a distribution of its
     * own, one that exercises precision where it has one. */
    hk_dist first = { 0 };
    bool have_first = false;
    for (size_t i = 0; i < s->n_args; i++) {
        spec_arg *a = &s->args[i];
        if (a->n_dists != s->n_dists)
            continue;
        hk_dist d = a->dists[0];
        if (!exercised[i]) {
            double lo = 0, hi = 0;
            integer_range(a, &lo, &hi);
            d = (hk_dist){ .kind = HK_DIST_UNIFORM, .a = lo, .b = hi };
            if (!have_first) {
                first = d;
                have_first = true;
            }
            int w = snprintf(names + used, sizeof names - used, "%s'%s': uniform(%g,%g)",
                             used ? ", " : "", a->name, lo, hi);
            used = w > 0 && (size_t)w < sizeof names - used ? used + (size_t)w : sizeof names - 1;
        } else {
            for (size_t k = 0; k < a->n_dists; k++)
                if (oracle_dist_exercises_precision(&a->dists[k])) {
                    d = a->dists[k];
                    break;
                }
        }
        a->dists[s->n_dists] = d;
    }
    if (append_spec_dist(s, first, "uniform", n)) /* i18n: not for people (the spec's word) */
        return HK_ENOMEM;
    /* __constant__ inputs keep a distribution of their own (a table is not what the added
     * one is about): one that exercises precision where they have one */
    for (size_t i = 0; i < s->n_consts; i++) {
        spec_arg *a = &s->consts[i];
        hk_dist d = a->dists[0];
        for (size_t k = 0; k < a->n_dists; k++)
            if (oracle_dist_exercises_precision(&a->dists[k])) {
                d = a->dists[k];
                break;
            }
        a->dists[s->n_dists] = d;
        a->n_dists = n;
    }
    s->n_dists = n;
    s->n_referee_dists = 1;
    if (note && len)
        snprintf(note, len, strchr(names, ',') ? EN(ORACLE_REFEREE_DIST_MANY)
                                               : EN(ORACLE_REFEREE_DIST_ONE), n - 1, names);
    return HK_OK;
}

/* Whether float argument a (an input, inout or __constant__ of a floating dtype) has a
 * real-valued distribution among its first n (oracle_dist_exercises_precision). */
static bool real_valued(const spec_arg *a, size_t n)
{
    for (size_t d = 0; d < n && d < a->n_dists; d++)
        if (oracle_dist_exercises_precision(&a->dists[d]))
            return true;
    return false;
}

/* The range [lo, hi] that the first n distributions of a cover: uniform's and grid's
 * bounds, normal's mu -+ 2 sigma, int's bounds, ones_sparse 0..1, zeros 0. */
static void value_range(const spec_arg *a, size_t n, double *lo, double *hi)
{
    bool any = false;
    for (size_t d = 0; d < n && d < a->n_dists; d++) {
        const hk_dist *x = &a->dists[d];
        double l = 0, h = 0;
        switch (x->kind) {
        case HK_DIST_UNIFORM: case HK_DIST_INT: case HK_DIST_GRID: l = x->a; h = x->b; break;
        case HK_DIST_NORMAL: l = x->a - 2 * x->b; h = x->a + 2 * x->b; break;
        case HK_DIST_ONES_SPARSE: h = 1; break;
        default: break;
        }
        if (!any || l < *lo)
            *lo = l;
        if (!any || h > *hi)
            *hi = h;
        any = true;
    }
    if (!any)
        *lo = -1, *hi = 1;
    if (!(*hi > *lo))
        *hi = *lo + 1;
}

bool oracle_spec_has_grid(const spec *s)
{
    for (size_t d = 0; s && d < s->n_dists; d++)
        if (spec_dist_is_referee(s, d) && s->dists[d].kind == HK_DIST_GRID)
            return true;
    return false;
}

int oracle_add_grid_dist(spec *s, char *note, size_t len)
{
    char names[160] = "";
    if (note && len)
        note[0] = '\0';
    if (!s || s->form != SPEC_FORM_HARNESS || !s->n_dists || s->n_args > HK_MAX_ARGS ||
        oracle_spec_has_grid(s))
        return HK_OK;
    /* the spec's own distributions (not one the referee added) decide which inputs are
     * real-valued: one whose values are integers only is exact already */
    size_t own = s->n_dists - (s->n_referee_dists <= s->n_dists ? s->n_referee_dists : 0);
    bool grid_arg[HK_MAX_ARGS] = { false }, any = false;
    for (size_t i = 0; i < s->n_args; i++) {
        const spec_arg *a = &s->args[i];
        bool input = a->kind == HK_ARG_INPUT || a->kind == HK_ARG_INOUT;
        grid_arg[i] = input && hk_dtype_is_float(a->dtype) && a->n_dists == s->n_dists &&
                      real_valued(a, own);
        any |= grid_arg[i];
    }
    if (!any)
        return HK_OK;
    size_t n = s->n_dists + 1, used = 0;
    if (grow_dists(s, n))
        return HK_ENOMEM;
    /* Each real-valued float input draws from grid() over the range its distributions
     * cover; every other argument keeps its first distribution (integer-valued float
     * inputs and integer inputs are exact already, an accumulator's zeros too). */
    hk_dist first = { 0 };
    bool have_first = false;
    for (size_t i = 0; i < s->n_args; i++) {
        spec_arg *a = &s->args[i];
        if (a->n_dists != s->n_dists)
            continue;
        hk_dist d = a->dists[0];
        if (grid_arg[i]) {
            double lo = 0, hi = 0;
            value_range(a, own, &lo, &hi);
            d = (hk_dist){ .kind = HK_DIST_GRID, .a = lo, .b = hi };
            if (!have_first) {
                first = d;
                have_first = true;
            }
            int w = snprintf(names + used, sizeof names - used, "%s'%s': grid(%g,%g)",
                             used ? ", " : "", a->name, lo, hi);
            used = w > 0 && (size_t)w < sizeof names - used ? used + (size_t)w : sizeof names - 1;
        }
        a->dists[s->n_dists] = d;
    }
    if (append_spec_dist(s, first, "grid", n)) /* i18n: not for people (the spec's word) */
        return HK_ENOMEM;
    /* a float __constant__ table with real values draws from the grid too (else products
     * with it round and the baseline is not exact); others keep their first */
    for (size_t i = 0; i < s->n_consts; i++) {
        spec_arg *a = &s->consts[i];
        hk_dist d = a->dists[0];
        if (hk_dtype_is_float(a->dtype) && real_valued(a, own)) {
            double lo = 0, hi = 0;
            value_range(a, own, &lo, &hi);
            d = (hk_dist){ .kind = HK_DIST_GRID, .a = lo, .b = hi };
        }
        a->dists[s->n_dists] = d;
        a->n_dists = n;
    }
    s->n_dists = n;
    s->n_referee_dists++;
    if (note && len)
        snprintf(note, len, EN(ORACLE_REFEREE_GRID), n - 1, names);
    return HK_OK;
}

/* ---- the sensitivity check ---- */

oracle_sens_rule oracle_sens_default_rule(int dtype)
{
    /* tau: 2^-10 of the output's magnitude per run, f32: s50's emulation of reduce_sum at
     * 2^24 found every honest order (index, warp and block trees, random atomics,
     * pairwise) within 6e-5 of it and a kernel skipping one warp in two off by the whole
     * change it skipped; the narrower formats' rounding is 2^-11 (f16) and 2^-8 (bf16) per
     * operation. sig = 16: where the check counts, the bound is at most frac + 1/16 = 8.25% of
     * the baseline's change (the rounding allowance a sixteenth of it), and sig 2 tau < 1
     * for every dtype (a change can be significant however large the output). frac 2%
     * (session 52; 5% before): a sampler scaling by k = 16/15 (1/16 skipped) is off by 6.7%
     * wherever it reads, and each spread-plan element is 12.5% of a sum's change; the honest
     * orders' worst stays under 0.02 of the bound on reduce_sum (test_engine_oracle_sens). */
    oracle_sens_rule r = { .tau = 0, .frac = 0.02, .sig = 16.0 };
    switch (dtype) {
    case HK_DT_F32: r.tau = ldexp(1.0, -10); break;
    case HK_DT_F64: r.tau = ldexp(1.0, -26); break;
    case HK_DT_F16: r.tau = ldexp(1.0, -8); break;
    case HK_DT_BF16: r.tau = ldexp(1.0, -6); break;
    default: break;
    }
    return r;
}

void oracle_sens_judge(int dtype, const void *b0, const void *b1, const void *c0, const void *c1,
                       size_t count, const oracle_sens_rule *rule, const spec_tolerance *tol,
                       oracle_sens_result *r)
{
    oracle_sens_rule def = oracle_sens_default_rule(dtype);
    if (!rule)
        rule = &def;
    memset(r, 0, sizeof *r);
    r->pass = true;
    r->element = -1;
    if (!(rule->tau > 0.0))
        return; /* integers: not judged */
    double g = 0.0;
    for (size_t i = 0; i < count; i++) {
        double v = fabs(oracle_element(dtype, b0, i));
        if (isfinite(v) && v > g)
            g = v;
    }
    for (size_t i = 0; i < count; i++) {
        double x0 = oracle_element(dtype, b0, i), x1 = oracle_element(dtype, b1, i);
        if (!isfinite(x0))
            continue; /* the baseline's own non-finite value: the tolerance rule's */
        if (!isfinite(x1)) {
            r->n_nonfinite++;
            continue;
        }
        double s = fmax(g, fmax(fabs(x0), fabs(x1)));
        double db = x1 - x0, noise = 2.0 * rule->tau * s;
        if (tol) /* the two runs' tolerances */
            noise = fmax(noise, 2.0 * tol->atol + tol->rtol * (fabs(x0) + fabs(x1)));
        noise += rule->jitter; /* the baseline's own run-to-run difference */
        if (fabs(db) > rule->sig * noise)
            r->n_significant++;
        if (noise > 0.0 && fabs(db) / noise > r->strongest)
            r->strongest = fabs(db) / noise;
        if (!c0 || !c1)
            continue;
        double y0 = oracle_element(dtype, c0, i), y1 = oracle_element(dtype, c1, i);
        double dc = y1 - y0, bound = rule->frac * fabs(db) + noise;
        double miss = isfinite(dc) ? fabs(dc - db) : INFINITY;
        double ratio = bound > 0.0 ? miss / bound : miss > 0.0 ? INFINITY : 0.0;
        if (ratio > r->worst)
            r->worst = ratio;
        if (!(miss <= bound) && r->pass) {
            r->pass = false;
            r->element = (long long)i;
            r->expected = db;
            r->got = dc;
            r->bound = bound;
        }
    }
}

/* Whether files a and b have the same outputs (argument, dtype, count, in order). */
static bool sens_same_layout(const oracle_file *a, const oracle_file *b)
{
    if (a->n != b->n)
        return false;
    for (size_t k = 0; k < a->n; k++)
        if (a->outputs[k].arg_index != b->outputs[k].arg_index ||
            a->outputs[k].dtype != b->outputs[k].dtype || a->outputs[k].count != b->outputs[k].count)
            return false;
    return true;
}

/* The spec's tolerance of argument arg (dtype's default without one), its absolute part
 * widened as the referee's comparison widens it (compare_buffer: |c - b| <= atol + rtol |b|
 * + widen.atol) */
static spec_tolerance sens_tol(const spec *s, const oracle_widen *widen, uint32_t arg, int dtype)
{
    const spec_arg *a = arg_of(s, arg);
    spec_tolerance t = a ? a->tol : spec_default_tolerance(dtype);
    if (widen && arg < HK_MAX_ARGS && hk_dtype_is_float(dtype) && widen[arg].atol > 0.0)
        t.atol += widen[arg].atol;
    return t;
}

int oracle_sens_check(const spec *s, const oracle_widen *widen, oracle_sens_run_fn run, void *ctx,
                      oracle_sens_outcome *out)
{
    oracle_file b0 = {0}, br = {0}, b1 = {0}, bs = {0}, c0 = {0}, c1 = {0}, cs = {0};
    double *jit = NULL; /* per output: ORACLE_SENS_JITTER x the baseline's run-to-run difference */
    char why[sizeof out->note];
    int rc;
    memset(out, 0, sizeof *out);
    out->arg_index = -1;
    out->element = -1;
    out->verdict = ORACLE_SENS_SKIPPED;
    why[0] = '\0';
    out->runs++;
    if ((rc = run(ctx, true, 0.0, HK_PERTURB_LADDER, &b0, why, sizeof why)) != HK_OK) {
        if (rc == ORACLE_SENS_RUN_FAILED) {
            snprintf(out->note, sizeof out->note, hk_tr(HK_MSG_SENS_BASE_FAILED), why);
            rc = HK_OK;
        }
        goto out;
    }
    /* the baseline again on x: its own run-to-run difference (float atomics in another
     * order), per output, widens n (ORACLE_SENS_JITTER times it); 0 for a deterministic one */
    out->runs++;
    if ((rc = run(ctx, true, 0.0, HK_PERTURB_LADDER, &br, why, sizeof why)) != HK_OK) {
        if (rc == ORACLE_SENS_RUN_FAILED) {
            snprintf(out->note, sizeof out->note, hk_tr(HK_MSG_SENS_BASE_FAILED), why);
            rc = HK_OK;
        }
        goto out;
    }
    if (!sens_same_layout(&b0, &br)) {
        snprintf(out->note, sizeof out->note, "%s", hk_tr(HK_MSG_SENS_LAYOUT));
        goto out;
    }
    if (b0.n && !(jit = hk_calloc(b0.n, sizeof *jit))) {
        rc = HK_ENOMEM;
        goto out;
    }
    for (size_t k = 0; k < b0.n; k++)
        for (size_t i = 0; i < b0.outputs[k].count && hk_dtype_is_float(b0.outputs[k].dtype); i++) {
            double d = fabs(oracle_element(b0.outputs[k].dtype, br.outputs[k].data, i) -
                            oracle_element(b0.outputs[k].dtype, b0.outputs[k].data, i));
            if (isfinite(d) && ORACLE_SENS_JITTER * d > jit[k])
                jit[k] = ORACLE_SENS_JITTER * d;
        }
    /* an amount whose response is significant somewhere and finite everywhere, no larger
     * than it needs to be (a large one can leave the baseline's own accuracy behind) */
    double scale = 1.0;
    for (int t = 0; t < ORACLE_SENS_TRIES && out->scale == 0.0 && scale <= ORACLE_SENS_MAX_SCALE; t++) {
        oracle_file_free(&b1);
        out->runs++;
        out->tried = scale;
        if ((rc = run(ctx, true, scale, HK_PERTURB_LADDER, &b1, why, sizeof why)) != HK_OK) {
            if (rc == ORACLE_SENS_RUN_FAILED) {
                snprintf(out->note, sizeof out->note, hk_tr(HK_MSG_SENS_BASE_FAILED), why);
                rc = HK_OK;
            }
            goto out;
        }
        if (!sens_same_layout(&b0, &b1)) {
            snprintf(out->note, sizeof out->note, "%s", hk_tr(HK_MSG_SENS_LAYOUT));
            goto out;
        }
        size_t sig = 0, nonfinite = 0;
        double need = 0.0; /* how many times the strongest change must grow */
        for (size_t k = 0; k < b0.n; k++) {
            oracle_sens_result res;
            oracle_sens_rule rule = oracle_sens_default_rule(b0.outputs[k].dtype);
            rule.jitter = jit[k];
            spec_tolerance tol = sens_tol(s, widen, b0.outputs[k].arg_index, b0.outputs[k].dtype);
            oracle_sens_judge(b0.outputs[k].dtype, b0.outputs[k].data, b1.outputs[k].data, NULL,
                              NULL, b0.outputs[k].count, &rule, &tol, &res);
            sig += res.n_significant;
            nonfinite += res.n_nonfinite;
            if (res.strongest > 0.0 && (need == 0.0 || rule.sig / res.strongest < need))
                need = rule.sig / res.strongest;
        }
        if (nonfinite) {
            snprintf(out->note, sizeof out->note, hk_tr(HK_MSG_SENS_NONFINITE), scale, nonfinite);
            goto out;
        }
        if (sig) {
            out->scale = scale;
            break;
        }
        double step = need > 0.0 ? ldexp(1.0, (int)ceil(log2(4.0 * need))) : 64.0;
        step = step < 4.0 ? 4.0 : step > 65536.0 ? 65536.0 : step;
        if (scale < ORACLE_SENS_MAX_SCALE && scale * step > ORACLE_SENS_MAX_SCALE)
            step = ORACLE_SENS_MAX_SCALE / scale; /* the largest, once */
        scale *= step;
    }
    if (out->scale == 0.0) {
        snprintf(out->note, sizeof out->note, hk_tr(HK_MSG_SENS_NO_RESPONSE), out->tried);
        goto out;
    }
    /* the spread plan at the same amount: its elements together as much as the ladder's
     * largest (hk_perturb_plan_kind) */
    out->runs++;
    if ((rc = run(ctx, true, out->scale, HK_PERTURB_SPREAD_PLAN, &bs, why, sizeof why)) != HK_OK) {
        if (rc == ORACLE_SENS_RUN_FAILED) {
            snprintf(out->note, sizeof out->note, hk_tr(HK_MSG_SENS_BASE_FAILED), why);
            out->scale = 0.0;
            rc = HK_OK;
        }
        goto out;
    }
    if (!sens_same_layout(&b0, &bs)) {
        snprintf(out->note, sizeof out->note, "%s", hk_tr(HK_MSG_SENS_LAYOUT));
        out->scale = 0.0;
        goto out;
    }
    out->runs += 3;
    if ((rc = run(ctx, false, 0.0, HK_PERTURB_LADDER, &c0, why, sizeof why)) != HK_OK ||
        (rc = run(ctx, false, out->scale, HK_PERTURB_LADDER, &c1, why, sizeof why)) != HK_OK ||
        (rc = run(ctx, false, out->scale, HK_PERTURB_SPREAD_PLAN, &cs, why, sizeof why)) != HK_OK) {
        if (rc == ORACLE_SENS_RUN_FAILED) {
            out->verdict = ORACLE_SENS_FAIL;
            snprintf(out->note, sizeof out->note, hk_tr(HK_MSG_SENS_CAND_FAILED), out->scale, why);
            rc = HK_OK;
        }
        goto out;
    }
    if (!sens_same_layout(&b0, &c0) || !sens_same_layout(&b0, &c1) || !sens_same_layout(&b0, &cs)) {
        out->verdict = ORACLE_SENS_FAIL;
        snprintf(out->note, sizeof out->note, "%s", hk_tr(HK_MSG_SENS_LAYOUT));
        goto out;
    }
    out->verdict = ORACLE_SENS_PASS;
    for (int kind = HK_PERTURB_LADDER; kind <= HK_PERTURB_SPREAD_PLAN; kind++)
        for (size_t k = 0; k < b0.n; k++) {
            const oracle_output *o = &b0.outputs[k];
            const oracle_file *bx = kind == HK_PERTURB_LADDER ? &b1 : &bs;
            const oracle_file *cx = kind == HK_PERTURB_LADDER ? &c1 : &cs;
            oracle_sens_result res;
            oracle_sens_rule rule = oracle_sens_default_rule(o->dtype);
            rule.jitter = jit[k];
            spec_tolerance tol = sens_tol(s, widen, o->arg_index, o->dtype);
            oracle_sens_judge(o->dtype, o->data, bx->outputs[k].data, c0.outputs[k].data,
                              cx->outputs[k].data, o->count, &rule, &tol, &res);
            out->n_significant += res.n_significant;
            if (res.worst > out->worst)
                out->worst = res.worst;
            if (res.worst > out->worst_kind[kind])
                out->worst_kind[kind] = res.worst;
            if (!res.pass && out->verdict == ORACLE_SENS_PASS) {
                out->verdict = ORACLE_SENS_FAIL;
                out->arg_index = (int)o->arg_index;
                out->kind = kind;
                out->element = res.element;
                out->expected = res.expected;
                out->got = res.got;
                out->bound = res.bound;
            }
        }
out:
    hk_free(jit);
    oracle_file_free(&b0);
    oracle_file_free(&br);
    oracle_file_free(&b1);
    oracle_file_free(&bs);
    oracle_file_free(&c0);
    oracle_file_free(&c1);
    oracle_file_free(&cs);
    return rc;
}
