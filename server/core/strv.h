/* A growing NULL-terminated vector of owned strings (argument lists, include folders): pushes
 * never fail loudly; a failed step marks the vector and hk_strv_done answers NULL. */
#ifndef HK_CORE_STRV_H
#define HK_CORE_STRV_H

#include <stdbool.h>
#include <stddef.h>

struct hk_strv {
    char **v;      /* NULL-terminated once anything was pushed */
    size_t n, cap;
    bool oom;      /* a push failed: hk_strv_done frees the vector and answers NULL */
};

/* Appends s, taken (NULL, an allocation that failed, marks the vector). */
void hk_strv_push_own(struct hk_strv *sv, char *s);
/* Appends a copy of s. */
void hk_strv_push(struct hk_strv *sv, const char *s);
/* The vector (an empty one when nothing was pushed), the caller's (hk_strv_free), or NULL
 * when a push or this allocation failed. */
char **hk_strv_done(struct hk_strv *sv);
/* Frees a NULL-terminated vector and its strings; NULL is fine. */
void hk_strv_free(char **v);

#endif
