/* Output comparison for the oracle: decodes the harness's output files and compares
 * element by element in double precision, keeping the statistics a report needs (max
 * absolute and relative error, relative L2 error, first bad index). */
#include "engine/oracle.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/hk.h"
#include "hk_harness.h"

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
        set_err(err, errlen, "not a harness output file (bad magic)");
        goto bad;
    }
    if (rd32(blob + 8) != HK_OUT_VERSION) {
        set_err(err, errlen, "output file version %u, expected %u", rd32(blob + 8), HK_OUT_VERSION);
        goto bad;
    }
    uint32_t n = rd32(blob + 12);
    if (n > HK_MAX_ARGS) {
        set_err(err, errlen, "%u outputs: more than %d", n, HK_MAX_ARGS);
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
            set_err(err, errlen, "truncated at output %u", i);
            goto bad;
        }
        oracle_output *o = &out->outputs[i];
        o->arg_index = rd32(blob + pos);
        o->dtype = (int)rd32(blob + pos + 4);
        memcpy(&o->count, blob + pos + 8, 8);
        pos += 16;
        size_t es = hk_dtype_size(o->dtype);
        if (es == 0) {
            set_err(err, errlen, "output %u: unknown dtype %d", i, o->dtype);
            goto bad;
        }
        if (o->count > (len - pos) / es) {
            set_err(err, errlen, "output %u: truncated (%llu elements announced)", i,
                    (unsigned long long)o->count);
            goto bad;
        }
        o->data = blob + pos;
        pos += o->count * es;
        out->n++;
    }
    if (pos != len) {
        set_err(err, errlen, "%zu trailing bytes", len - pos);
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
        set_err(err, errlen, "%s is larger than the cap", path);
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

void oracle_compare_buffer(int dtype, const void *base, const void *cand, size_t count,
                           spec_tolerance tol, oracle_result *r)
{
    memset(r, 0, sizeof *r);
    r->arg_index = -1;
    r->first_bad = -1;
    double sum_d2 = 0, sum_b2 = 0;
    double bad_b = 0, bad_c = 0;
    for (size_t i = 0; i < count; i++) {
        double b = oracle_element(dtype, base, i), c = oracle_element(dtype, cand, i);
        bool ok;
        if (isnan(b)) {
            ok = isnan(c);
        } else if (isinf(b)) {
            ok = c == b;
        } else if (!isfinite(c)) {
            ok = false;
            r->n_nonfinite++;
        } else {
            double d = fabs(c - b);
            ok = d <= tol.atol + tol.rtol * fabs(b);
            if (d > r->max_abs)
                r->max_abs = d;
            if (b != 0 && d / fabs(b) > r->max_rel)
                r->max_rel = d / fabs(b);
            sum_d2 += d * d;
            sum_b2 += b * b;
        }
        if (!ok) {
            if (r->n_bad++ == 0) {
                r->first_bad = (long long)i;
                bad_b = b;
                bad_c = c;
            }
        }
    }
    r->rel_l2 = sum_b2 > 0 ? sqrt(sum_d2 / sum_b2) : sqrt(sum_d2);
    if (r->n_nonfinite) {
        r->pass = false;
        snprintf(r->reason, sizeof r->reason,
                 "non-finite output: %zu elements are NaN/Inf where the baseline is finite "
                 "(first at %lld: %g vs baseline %g)", r->n_nonfinite, r->first_bad, bad_c, bad_b);
    } else if (r->n_bad) {
        r->pass = false;
        snprintf(r->reason, sizeof r->reason,
                 "wrong answer: %zu of %zu elements out of tolerance (first at %lld: %.9g vs "
                 "baseline %.9g); max abs err %.3g, max rel err %.3g, rel L2 %.3g "
                 "(rtol %g, atol %g)", r->n_bad, count, r->first_bad, bad_c, bad_b, r->max_abs,
                 r->max_rel, r->rel_l2, tol.rtol, tol.atol);
    } else if (tol.l2 > 0 && r->rel_l2 > tol.l2) {
        r->pass = false;
        snprintf(r->reason, sizeof r->reason,
                 "wrong answer: relative L2 error %.3g over the limit %g (max abs err %.3g, "
                 "max rel err %.3g)", r->rel_l2, tol.l2, r->max_abs, r->max_rel);
    } else {
        r->pass = true;
        snprintf(r->reason, sizeof r->reason, "ok: max abs err %.3g, max rel err %.3g, rel L2 %.3g",
                 r->max_abs, r->max_rel, r->rel_l2);
    }
}

static const spec_arg *arg_of(const spec *s, uint32_t index)
{
    return s && index < s->n_args ? &s->args[index] : NULL;
}

int oracle_compare(const spec *s, const oracle_file *base, const oracle_file *cand, oracle_result *r)
{
    memset(r, 0, sizeof *r);
    r->arg_index = -1;
    r->first_bad = -1;
    if (base->n != cand->n) {
        snprintf(r->reason, sizeof r->reason, "output mismatch: %zu outputs, baseline has %zu",
                 cand->n, base->n);
        return HK_OK;
    }
    r->pass = true;
    oracle_result worst = *r;
    double worst_score = -1;
    for (size_t i = 0; i < base->n; i++) {
        const oracle_output *b = &base->outputs[i], *c = &cand->outputs[i];
        const spec_arg *a = arg_of(s, b->arg_index);
        const char *name = a ? a->name : "?";
        if (b->arg_index != c->arg_index || b->dtype != c->dtype || b->count != c->count) {
            r->pass = false;
            r->arg_index = (int)b->arg_index;
            snprintf(r->reason, sizeof r->reason,
                     "output mismatch: output %zu is argument %u (%s x %llu), baseline has "
                     "argument %u '%s' (%s x %llu)", i, c->arg_index, hk_dtype_name(c->dtype),
                     (unsigned long long)c->count, b->arg_index, name, hk_dtype_name(b->dtype),
                     (unsigned long long)b->count);
            return HK_OK;
        }
        spec_tolerance tol = a ? a->tol : spec_default_tolerance(b->dtype);
        oracle_result one;
        oracle_compare_buffer(b->dtype, b->data, c->data, (size_t)b->count, tol, &one);
        one.arg_index = (int)b->arg_index;
        if (!one.pass) {
            char why[sizeof one.reason];
            memcpy(why, one.reason, sizeof why);
            snprintf(one.reason, sizeof one.reason, "output '%.40s': %.260s", name, why);
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
    snprintf(r->reason, sizeof r->reason, "ok: %zu output%s within tolerance; max abs err %.3g, "
             "max rel err %.3g, rel L2 %.3g", base->n, base->n == 1 ? "" : "s", r->max_abs,
             r->max_rel, r->rel_l2);
    return HK_OK;
}

int oracle_compare_files(const spec *s, const char *baseline_path, const char *candidate_path,
                         oracle_result *r)
{
    oracle_file base = { 0 }, cand = { 0 };
    char err[200];
    memset(r, 0, sizeof *r);
    r->arg_index = -1;
    r->first_bad = -1;
    int rc = oracle_read(baseline_path, &base, err, sizeof err);
    if (rc != HK_OK) {
        snprintf(r->reason, sizeof r->reason, "baseline output unusable: %s", err);
        return rc;
    }
    rc = oracle_read(candidate_path, &cand, err, sizeof err);
    if (rc == HK_ENOMEM) {
        oracle_file_free(&base);
        return rc;
    }
    if (rc != HK_OK)
        snprintf(r->reason, sizeof r->reason, "candidate output unusable: %s", err);
    else
        oracle_compare(s, &base, &cand, r);
    oracle_file_free(&base);
    oracle_file_free(&cand);
    return HK_OK;
}
