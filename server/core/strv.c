/* strv.c: the growing string vector (strv.h). */
#include "core/strv.h"

#include "core/hk.h"

void hk_strv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        hk_free(*p);
    hk_free(v);
}

void hk_strv_push_own(struct hk_strv *sv, char *s)
{
    if (!s) {
        sv->oom = true;
        return;
    }
    if (sv->n + 2 > sv->cap) {
        size_t cap = sv->cap ? sv->cap * 2 : 16;
        char **nv = hk_realloc(sv->v, cap * sizeof *nv);
        if (!nv) {
            hk_free(s);
            sv->oom = true;
            return;
        }
        sv->v = nv;
        sv->cap = cap;
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
}

void hk_strv_push(struct hk_strv *sv, const char *s)
{
    hk_strv_push_own(sv, s ? hk_strdup(s) : NULL);
}

char **hk_strv_done(struct hk_strv *sv)
{
    if (sv->oom) {
        hk_strv_free(sv->v);
        sv->v = NULL;
        return NULL;
    }
    if (!sv->v)
        sv->v = hk_calloc(1, sizeof *sv->v);
    return sv->v;
}
