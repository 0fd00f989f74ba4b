/* What an in-process lsp_server writes, collected for the LSP unit tests: a sink for
 * lsp_server's output that parses each message, and lookups of replies and notifications.
 * Include after <cmocka.h>, "core/hk.h" and "lsp/state.h". */
#ifndef HK_TESTS_LSP_OUT_H
#define HK_TESTS_LSP_OUT_H

#include <string.h>

#define MAXOUT 256

struct out {
    json_t *m[MAXOUT];   /* parsed messages, owned; later ones past MAXOUT are dropped */
    int n;
};

/* lsp_server's output callback: ud is a struct out. */
static inline int sink(const char *body, size_t len, void *ud)
{
    struct out *o = ud;
    if (o->n >= MAXOUT)
        return HK_OK;
    json_error_t e;
    o->m[o->n] = json_loadb(body, len, JSON_ALLOW_NUL, &e);
    assert_non_null(o->m[o->n]);
    o->n++;
    return HK_OK;
}

static inline void out_clear(struct out *o)
{
    for (int i = 0; i < o->n; i++)
        json_decref(o->m[i]);
    o->n = 0;
}

/* The reply to request id (borrowed), or NULL. */
static inline json_t *reply(struct out *o, int id)
{
    for (int i = 0; i < o->n; i++)
        if (json_integer_value(json_object_get(o->m[i], "id")) == id &&
            !json_object_get(o->m[i], "method"))
            return o->m[i];
    return NULL;
}

/* The last message with this method (borrowed), or NULL. */
static inline json_t *find(struct out *o, const char *method)
{
    for (int i = o->n - 1; i >= 0; i--) {
        const char *m = json_string_value(json_object_get(o->m[i], "method"));
        if (m && !strcmp(m, method))
            return o->m[i];
    }
    return NULL;
}

/* Feeds one JSON-RPC message body to the server; it must be accepted. */
static inline void feed(lsp_server *s, const char *body)
{
    assert_int_equal(lsp_server_feed(s, body, strlen(body)), HK_OK);
}

#endif /* HK_TESTS_LSP_OUT_H */
