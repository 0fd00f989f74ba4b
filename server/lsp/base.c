/* The bottom layer of the lsp module (docs/ARCHITECTURE.md, "Inside lsp/"): messages to
 * the user, requests to the client, file URIs, LSP ranges, and the events a module sends
 * to the modules above it (lsp_emit). It calls no other file of server/lsp/. */
#include "lsp/base.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- events ---- */

void lsp_emit(struct lsp_server *s, enum lsp_event ev, doc *d, const char *str)
{
    if (s->on_event)
        s->on_event(s, ev, d, str);
}

/* ---- messages to the user ---- */

static void vmessage(struct lsp_server *s, const char *method, int type, const char *fmt,
                     va_list ap)
{
    char text[2048];
    if (vsnprintf(text, sizeof text, fmt, ap) >= (int)sizeof text)
        hk_utf8_trim(text); /* whole characters: json_pack wants UTF-8 */
    enum hk_log_level lv = type == 1 ? HK_LOG_ERROR : type == 2 ? HK_LOG_WARN : HK_LOG_INFO;
    hk_log(lv, "%s", text);
    if (s->state == LSP_EXITED)
        return;
    rpc_notify(s->rpc, method, json_pack("{s:i, s:s}", "type", type, "message", text));
}

void lsp_log_message(struct lsp_server *s, int type, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(s, "window/logMessage", type, fmt, ap);
    va_end(ap);
}

void lsp_show_message(struct lsp_server *s, int type, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(s, "window/showMessage", type, fmt, ap);
    va_end(ap);
}

/* ---- requests to the client ---- */

int lsp_client_apply_edit(struct lsp_server *s, const char *label, json_t *edit,
                          rpc_reply_fn cb, void *ud)
{
    if (!s->cl_apply_edit || !edit) {
        json_decref(edit);
        return HK_EUNSUPPORTED;
    }
    json_t *p = json_pack("{s:o}", "edit", edit);
    if (p && label)
        json_object_set_new(p, "label", json_string(label));
    return rpc_request(s->rpc, "workspace/applyEdit", p, 0, cb, ud, NULL);
}

int lsp_client_progress_create(struct lsp_server *s, const char *token, rpc_reply_fn cb,
                               void *ud)
{
    if (!s->cl_progress)
        return HK_EUNSUPPORTED;
    return rpc_request(s->rpc, "window/workDoneProgress/create",
                       json_pack("{s:s}", "token", token), 0, cb, ud, NULL);
}

int lsp_client_show_document(struct lsp_server *s, const char *uri, bool take_focus,
                             json_t *selection, rpc_reply_fn cb, void *ud)
{
    if (!s->cl_show_document) {
        char *path = lsp_uri_to_path(uri);
        lsp_show_message(s, 3, hk_tr(HK_MSG_LSP_OPEN_PATH), path ? path : uri);
        hk_free(path);
        json_decref(selection);
        return HK_EUNSUPPORTED;
    }
    json_t *p = json_pack("{s:s, s:b}", "uri", uri, "takeFocus", take_focus);
    if (p && selection)
        json_object_set_new(p, "selection", selection);
    else
        json_decref(selection);
    return rpc_request(s->rpc, "window/showDocument", p, 0, cb, ud, NULL);
}

/* ---- uris ---- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *lsp_uri_to_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) != 0)
        return NULL;
    const char *p = uri + 7;
    if (strncmp(p, "localhost/", 10) == 0)
        p += 9;
    if (*p != '/')
        return NULL; /* a remote host: not a local file */
    size_t n = strlen(p);
    char *out = hk_malloc(n + 1);
    if (!out)
        return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '%' && i + 2 < n && hexval(p[i + 1]) >= 0 && hexval(p[i + 2]) >= 0) {
            int c = hexval(p[i + 1]) * 16 + hexval(p[i + 2]);
            if (c == 0) {
                hk_free(out);
                return NULL;
            }
            out[j++] = (char)c;
            i += 2;
        } else if (p[i] == '?' || p[i] == '#') {
            break;
        } else {
            out[j++] = p[i];
        }
    }
    out[j] = '\0';
    return out;
}

char *lsp_path_to_uri(const char *path)
{
    struct hk_buf b;
    hk_buf_init(&b, 3 * strlen(path) + 16);
    int rc = hk_buf_appends(&b, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && !rc; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/-._~", *p))
            rc = hk_buf_append(&b, p, 1);
        else
            rc = hk_buf_printf(&b, "%%%02X", *p);
    }
    if (rc) {
        hk_buf_free(&b);
        return NULL;
    }
    return hk_buf_steal(&b);
}

/* ---- ranges ---- */

void lsp_clamp_span(size_t len, uint32_t *start, uint32_t *end)
{
    if (*start > len)
        *start = (uint32_t)len;
    if (*end > len)
        *end = (uint32_t)len;
    if (*end < *start)
        *end = *start;
}

json_t *lsp_range_pack(const struct doc_pos *a, const struct doc_pos *b)
{
    return json_pack("{s:{s:i, s:i}, s:{s:i, s:i}}", "start", "line", (json_int_t)a->line,
                     "character", (json_int_t)a->character, "end", "line", (json_int_t)b->line,
                     "character", (json_int_t)b->character);
}

json_t *lsp_range_json(struct lsp_server *s, const doc *d, uint32_t start, uint32_t end)
{
    struct doc_pos a, b;
    lsp_clamp_span(doc_length(d), &start, &end);
    if (doc_position_at(d, s->enc, start, &a) || doc_position_at(d, s->enc, end, &b))
        return NULL;
    return lsp_range_pack(&a, &b);
}

