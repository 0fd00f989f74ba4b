/* Unified line diff for reports: Myers' O(ND) greedy algorithm on lines (after trimming
 * the common prefix and suffix), keeping each round's furthest-reaching x so the edit
 * script can be walked back, then hunks with context as `diff -u` prints them.
 * Capped in lines and edit distance so a huge rewrite cannot eat memory (report.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/hk.h"
#include "report/report.h"

struct line {
    const char *p;
    size_t len;      /* including the '\n' when there is one */
    uint64_t hash;
};

enum op_type { OP_EQ, OP_DEL, OP_INS };

struct op {
    enum op_type type;
    int x, y;        /* line indexes in a and b before this op */
};

static int split_lines(const char *t, size_t n, struct line **out, int *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '\n')
            count++;
    if (n && t[n - 1] != '\n')
        count++;
    if (count > REPORT_DIFF_MAX_LINES)
        return HK_ETOOBIG;
    if (count == 0)
        return HK_OK;
    struct line *l = hk_malloc(count * sizeof *l);
    if (!l)
        return HK_ENOMEM;
    size_t k = 0, start = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '\n' || i == n - 1) {
            l[k].p = t + start;
            l[k].len = i + 1 - start;
            uint64_t h = 1469598103934665603ull; /* FNV-1a: cheap pre-check before memcmp */
            for (size_t j = 0; j < l[k].len; j++)
                h = (h ^ (unsigned char)l[k].p[j]) * 1099511628211ull;
            l[k].hash = h;
            k++;
            start = i + 1;
        }
    }
    *out = l;
    *n_out = (int)count;
    return HK_OK;
}

static int line_eq(const struct line *a, const struct line *b)
{
    return a->hash == b->hash && a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* Edit script of a[0..n) -> b[0..m) appended to ops (reverse order), positions offset by
 * (ox, oy). ops has room for n + m entries. */
static int myers(const struct line *a, int n, const struct line *b, int m, int ox, int oy,
                 struct op *ops, size_t *n_ops)
{
    int max = n + m;
    int *v = hk_malloc(((size_t)2 * max + 3) * sizeof *v);
    /* trace[d] holds v[-d..d] after round d: sum over d of 2d+1 entries. */
    size_t trace_cap = 0, trace_len = 0;
    int *trace = NULL;
    int rc = HK_OK, d_end = -1;
    if (!v)
        return HK_ENOMEM;
    int off = max + 1;
    v[off + 1] = 0;
    for (int d = 0; d <= max; d++) {
        if (d > REPORT_DIFF_MAX_EDITS) {
            rc = HK_ETOOBIG;
            goto out;
        }
        size_t need = trace_len + (size_t)(2 * d + 1);
        if (need > trace_cap) {
            size_t ncap = trace_cap ? trace_cap * 2 : 256;
            while (ncap < need)
                ncap *= 2;
            int *t = hk_realloc(trace, ncap * sizeof *t);
            if (!t) {
                rc = HK_ENOMEM;
                goto out;
            }
            trace = t;
            trace_cap = ncap;
        }
        bool done = false;
        for (int k = -d; k <= d; k += 2) {
            int x;
            if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
                x = v[off + k + 1];      /* down: insert b[y] */
            else
                x = v[off + k - 1] + 1;  /* right: delete a[x] */
            int y = x - k;
            while (x < n && y < m && line_eq(&a[x], &b[y])) {
                x++;
                y++;
            }
            v[off + k] = x;
            if (x >= n && y >= m) {
                done = true;
                break;
            }
        }
        /* Round d is kept even when it ends early: the walk back reads only rounds < d. */
        memcpy(trace + trace_len, v + off - d, (size_t)(2 * d + 1) * sizeof *v);
        trace_len += (size_t)(2 * d + 1);
        if (done) {
            d_end = d;
            break;
        }
    }
    /* Walk back from (n, m), emitting ops in reverse. */
    int x = n, y = m;
    size_t base = trace_len;
    for (int d = d_end; d > 0; d--) {
        base -= (size_t)(2 * d + 1);
        const int *prev = trace + base - (size_t)(2 * d - 1); /* round d-1: v[-(d-1)..d-1] */
        int k = x - y;
        int pk;
        if (k == -d || (k != d && prev[k - 1 + (d - 1)] < prev[k + 1 + (d - 1)]))
            pk = k + 1;
        else
            pk = k - 1;
        int px = prev[pk + (d - 1)];
        int py = px - pk;
        while (x > px && y > py) {
            x--;
            y--;
            ops[(*n_ops)++] = (struct op){OP_EQ, ox + x, oy + y};
        }
        if (x == px) {
            y--;
            ops[(*n_ops)++] = (struct op){OP_INS, ox + x, oy + y};
        } else {
            x--;
            ops[(*n_ops)++] = (struct op){OP_DEL, ox + x, oy + y};
        }
    }
    while (x > 0 && y > 0) {
        x--;
        y--;
        ops[(*n_ops)++] = (struct op){OP_EQ, ox + x, oy + y};
    }
out:
    hk_free(v);
    hk_free(trace);
    return rc;
}

static int emit_line(struct hk_buf *out, char tag, const struct line *l)
{
    int rc = hk_buf_append(out, &tag, 1);
    if (!rc)
        rc = hk_buf_append(out, l->p, l->len);
    if (!rc && (l->len == 0 || l->p[l->len - 1] != '\n'))
        rc = hk_buf_appends(out, "\n\\ No newline at end of file\n"); /* i18n: not for people (diff -u: patch reads it) */
    return rc;
}

static int emit_range(struct hk_buf *out, char sign, int first, int count)
{
    /* diff -u: "l,c"; "l" alone when c is 1; for an empty range, the line before it. */
    if (count == 1)
        return hk_buf_printf(out, " %c%d", sign, first + 1);
    return hk_buf_printf(out, " %c%d,%d", sign, count ? first + 1 : first, count);
}

int report_diff_unified(const char *a, size_t alen, const char *b, size_t blen,
                        const char *label_a, const char *label_b, int context,
                        struct hk_buf *out)
{
    struct line *la = NULL, *lb = NULL;
    struct op *ops = NULL;
    int na = 0, nb = 0;
    size_t n_ops = 0;
    if (context < 0)
        context = 3;
    int rc = split_lines(a ? a : "", a ? alen : 0, &la, &na);
    if (!rc)
        rc = split_lines(b ? b : "", b ? blen : 0, &lb, &nb);
    if (rc)
        goto out;
    ops = hk_malloc(((size_t)na + (size_t)nb + 1) * sizeof *ops);
    if (!ops) {
        rc = HK_ENOMEM;
        goto out;
    }
    /* Common prefix and suffix never take part in the search. */
    int pre = 0, suf = 0;
    while (pre < na && pre < nb && line_eq(&la[pre], &lb[pre]))
        pre++;
    while (suf < na - pre && suf < nb - pre && line_eq(&la[na - 1 - suf], &lb[nb - 1 - suf]))
        suf++;
    if (pre == na && pre == nb)
        goto out; /* equal texts: an empty diff */
    /* Built in reverse: suffix, middle, prefix; reversed afterwards. */
    for (int i = 0; i < suf; i++)
        ops[n_ops++] = (struct op){OP_EQ, na - 1 - i, nb - 1 - i};
    rc = myers(la + pre, na - pre - suf, lb + pre, nb - pre - suf, pre, pre, ops, &n_ops);
    if (rc)
        goto out;
    for (int i = pre - 1; i >= 0; i--)
        ops[n_ops++] = (struct op){OP_EQ, i, i};
    for (size_t i = 0, j = n_ops ? n_ops - 1 : 0; i < j; i++, j--) {
        struct op t = ops[i];
        ops[i] = ops[j];
        ops[j] = t;
    }

    rc = hk_buf_printf(out, "--- %s\n+++ %s\n", label_a ? label_a : "a", label_b ? label_b : "b");
    size_t i = 0;
    while (rc == HK_OK && i < n_ops) {
        size_t c = i;
        while (c < n_ops && ops[c].type == OP_EQ)
            c++;
        if (c == n_ops)
            break;
        size_t start = c > i + (size_t)context ? c - (size_t)context : i;
        size_t end = c;
        for (;;) {
            while (end < n_ops && ops[end].type != OP_EQ)
                end++;
            size_t eq = end;
            while (eq < n_ops && ops[eq].type == OP_EQ)
                eq++;
            /* Join the next change when the equal run between is at most 2 * context. */
            if (eq < n_ops && eq - end <= (size_t)(2 * context)) {
                end = eq;
                continue;
            }
            end = end + (size_t)context < n_ops ? end + (size_t)context : n_ops;
            if (end > eq)
                end = eq;
            break;
        }
        int ca = 0, cb = 0;
        for (size_t k = start; k < end; k++) {
            ca += ops[k].type != OP_INS;
            cb += ops[k].type != OP_DEL;
        }
        rc = hk_buf_appends(out, "@@");
        if (!rc)
            rc = emit_range(out, '-', ops[start].x, ca);
        if (!rc)
            rc = emit_range(out, '+', ops[start].y, cb);
        if (!rc)
            rc = hk_buf_appends(out, " @@\n");
        for (size_t k = start; rc == HK_OK && k < end; k++) {
            const struct op *o = &ops[k];
            if (o->type == OP_EQ)
                rc = emit_line(out, ' ', &la[o->x]);
            else if (o->type == OP_DEL)
                rc = emit_line(out, '-', &la[o->x]);
            else
                rc = emit_line(out, '+', &lb[o->y]);
        }
        i = end;
    }
out:
    hk_free(la);
    hk_free(lb);
    hk_free(ops);
    return rc;
}
