/* Applying a stored version (apply.h): what `hkls apply` and the editor's Apply share.
 * It was written three times (cli/history.c's splice and launch, lsp/episodes.c's
 * chain entries, lsp/actions.c's plan), each with its own .hip test. */
#include "episode/apply.h"

#include "compile/compile.h"
#include "core/hk.h"

#include <string.h>

static const char *const kind_names[] = {"launch", "kernel", "file"};

const char *ep_change_kind_name(ep_change_kind k)
{
    return (size_t)k < HK_ARRAY_LEN(kind_names) ? kind_names[k] : "file";
}

int ep_change_kind_parse(const char *name, ep_change_kind *out)
{
    for (size_t i = 0; name && i < HK_ARRAY_LEN(kind_names); i++)
        if (!strcmp(name, kind_names[i])) {
            *out = (ep_change_kind)i;
            return HK_OK;
        }
    return HK_EINVAL;
}

int ep_apply_kernel_text(const char *text, size_t len, const char *kernel, char **out,
                         size_t *start)
{
    an_model *m = NULL;
    *out = NULL;
    int rc = an_analyze(text, len, &m);
    if (rc != HK_OK)
        return rc;
    long k = an_model_find_kernel(m, kernel);
    rc = HK_ENOENT;
    if (k >= 0 && (size_t)k < m->n_funcs) {
        const an_span *sp = &m->funcs[k].span;
        rc = HK_EPARSE;
        if (sp->end_byte <= len && sp->start_byte <= sp->end_byte) {
            *out = hk_strndup(text + sp->start_byte, sp->end_byte - sp->start_byte);
            *start = sp->start_byte;
            rc = *out ? HK_OK : HK_ENOMEM;
        }
    }
    an_model_free(m);
    return rc;
}

static int line_at(const char *text, size_t byte)
{
    int line = 1;
    for (size_t i = 0; i < byte; i++)
        line += text[i] == '\n';
    return line;
}

void ep_apply_diff_region(const char *a, size_t a_len, const char *b, size_t b_len, size_t *p,
                          size_t *q)
{
    size_t n = a_len < b_len ? a_len : b_len;
    size_t i = 0, j = 0;
    while (i < n && a[i] == b[i])
        i++;
    while (j < n - i && a[a_len - 1 - j] == b[b_len - 1 - j])
        j++;
    *p = i;
    *q = j;
}

/* The first line of ver that differs from base outside the kernel (for the refusal of a
 * FILE change in a file changed elsewhere): after the kernel when all before it agrees. */
static int outside_line(const char *base, size_t base_len, size_t bk_start, size_t bk_len,
                        const char *ver, size_t ver_len, const char *vk, size_t vk_start)
{
    bool same_before = vk && vk_start == bk_start && memcmp(base, ver, bk_start) == 0;
    size_t p, q;
    if (!same_before) {
        ep_apply_diff_region(ver, ver_len, base, base_len, &p, &q);
        return line_at(ver, p);
    }
    size_t vk_end = vk_start + strlen(vk), bk_end = bk_start + bk_len;
    ep_apply_diff_region(base + bk_end, base_len - bk_end, ver + vk_end, ver_len - vk_end, &p, &q);
    return line_at(ver, vk_end) + line_at(base + bk_end, p) - 1;
}

int ep_change_of(const char *base, size_t base_len, const char *base_k, size_t base_k_start,
                 const char *ver, size_t ver_len, const char *kernel, ep_change *out)
{
    memset(out, 0, sizeof *out);
    size_t vk_start = 0, bk_len = strlen(base_k), p, q;
    char *vk = NULL;
    int rc = ep_apply_kernel_text(ver, ver_len, kernel, &vk, &vk_start);
    if (rc == HK_ENOMEM)
        return rc; /* any other failure: the version has no readable kernel, a FILE change */
    size_t vk_len = vk ? strlen(vk) : 0;
    bool outside_same = vk && vk_start == base_k_start &&
                        base_len - base_k_start - bk_len == ver_len - vk_start - vk_len &&
                        memcmp(ver, base, base_k_start) == 0 &&
                        memcmp(ver + vk_start + vk_len, base + base_k_start + bk_len,
                               base_len - base_k_start - bk_len) == 0;
    out->ver_has_kernel = vk != NULL;
    if (outside_same && strcmp(vk, base_k) == 0) {
        out->kind = EP_CHANGE_LAUNCH;
        out->new_text = hk_strdup("");
    } else if (outside_same) {
        ep_apply_diff_region(base_k, bk_len, vk, vk_len, &p, &q);
        out->kind = EP_CHANGE_KERNEL;
        out->start = p;
        out->end = bk_len - q;
        out->new_text = hk_strndup(vk + p, vk_len - q - p);
    } else {
        ep_apply_diff_region(base, base_len, ver, ver_len, &p, &q);
        out->kind = EP_CHANGE_FILE;
        out->start = p;
        out->end = base_len - q;
        out->new_text = hk_strndup(ver + p, ver_len - q - p);
        out->outside_line = outside_line(base, base_len, base_k_start, bk_len, ver, ver_len,
                                         vk, vk_start);
    }
    out->after = vk ? vk : hk_strndup(ver, ver_len);
    vk = NULL;
    if (!out->new_text || !out->after) {
        ep_change_free(out);
        return HK_ENOMEM;
    }
    return HK_OK;
}

void ep_change_free(ep_change *c)
{
    if (!c)
        return;
    hk_free(c->new_text);
    hk_free(c->after);
    memset(c, 0, sizeof *c);
}

static long find_text(const char *hay, size_t len, const char *needle)
{
    size_t n = needle ? strlen(needle) : 0;
    if (n == 0 || n > len)
        return -1;
    const char *p = memmem(hay, len, needle, n);
    return p ? (long)(p - hay) : -1;
}

/* Whether cur is base with FILE change c made: the version's text itself. */
static bool holds_change(const ep_change *c, const char *base, size_t base_len, const char *cur,
                         size_t cur_len)
{
    size_t ntl = c->new_text ? strlen(c->new_text) : 0;
    return c->new_text && c->start <= c->end && c->end <= base_len &&
           cur_len == base_len - (c->end - c->start) + ntl &&
           memcmp(cur, base, c->start) == 0 && memcmp(cur + c->start, c->new_text, ntl) == 0 &&
           memcmp(cur + c->start + ntl, base + c->end, base_len - c->end) == 0;
}

ep_place ep_change_place(const ep_change *c, const char *base, size_t base_len,
                         const char *base_k, const char *cur, size_t cur_len, uint32_t *a,
                         uint32_t *b)
{
    *a = *b = 0;
    long at = find_text(cur, cur_len, base_k);
    if (c->kind == EP_CHANGE_FILE && base && base_len == cur_len &&
        memcmp(base, cur, cur_len) == 0) {
        *a = (uint32_t)c->start;
        *b = (uint32_t)c->end;
        return EP_PLACE_AT;
    }
    if (c->kind == EP_CHANGE_FILE && base && holds_change(c, base, base_len, cur, cur_len))
        return EP_PLACE_ALREADY; /* the version's whole text, its kernel unchanged or not */
    if (at >= 0 && c->kind == EP_CHANGE_LAUNCH)
        return EP_PLACE_AT; /* the launch was measured on this very kernel */
    if (at >= 0 && c->kind == EP_CHANGE_KERNEL) {
        *a = (uint32_t)at + (uint32_t)c->start;
        *b = (uint32_t)at + (uint32_t)c->end;
        return EP_PLACE_AT;
    }
    /* the version's kernel is there (one that is the starting kernel says nothing) */
    bool differs = c->after && (!base_k || strcmp(c->after, base_k) != 0);
    if (c->kind != EP_CHANGE_LAUNCH && differs && find_text(cur, cur_len, c->after) >= 0)
        return EP_PLACE_ALREADY;
    return at >= 0 ? EP_PLACE_STALE_FILE : EP_PLACE_STALE;
}

bool ep_apply_hip(const char *target, const char *path)
{
    return cc_target_is_dcu(target) || cc_path_is_hip(path);
}

int ep_apply_launch(const char *text, size_t len, const an_model *m, const char *kernel,
                    const json_t *launch, const json_t *base_launch, bool hip, rw_result *r,
                    rw_launch_report *rep, ep_launch_fail *fail, char *err, size_t errlen)
{
    an_model *own = NULL;
    rw_launch w;
    memset(r, 0, sizeof *r);
    memset(rep, 0, sizeof *rep);
    *fail = EP_LAUNCH_JSON;
    int rc = rw_launch_from_json(launch, base_launch, &w, err, errlen);
    if (rc)
        return rc;
    *fail = EP_LAUNCH_ANALYSE;
    if (!m) {
        if ((rc = an_analyze(text, len, &own)))
            return rc;
        m = own;
    }
    *fail = EP_LAUNCH_REWRITE;
    rc = rw_launch_config(text, len, m, kernel, &w, hip, r, rep);
    if (rc == HK_ENOMEM || (rc && !r->description))
        goto out;
    *fail = EP_LAUNCH_OK;
    rc = HK_OK; /* HK_EPARSE with a reason: not applicable, r->description says why */
out:
    an_model_free(own);
    return rc;
}
