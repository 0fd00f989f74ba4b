/* JSON-RPC 2.0 endpoint for LSP: decodes messages (with a nesting cap), dispatches
 * requests and notifications to a method table, guarantees exactly one response per
 * request (deferred and cancelled ones included), and sends requests to the client
 * with reply matching, timeouts and a bounded table. Transport-agnostic: bytes go out
 * through a send callback, bytes come in through rpc_feed. Loop thread only, except
 * rpc_decode. */
#ifndef HK_RPC_RPC_H
#define HK_RPC_RPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* JSON-RPC and LSP error codes. */
enum rpc_code {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    RPC_SERVER_NOT_INITIALIZED = -32002,
    RPC_UNKNOWN_ERROR_CODE = -32001,
    RPC_REQUEST_FAILED = -32803,
    RPC_SERVER_CANCELLED = -32802,
    RPC_CONTENT_MODIFIED = -32801,
    RPC_REQUEST_CANCELLED = -32800,
};

#define RPC_MAX_DEPTH 64            /* deepest [ / { nesting accepted from a client */
#define RPC_MAX_PENDING_OUT 64      /* requests to the client awaiting a reply */
#define RPC_MAX_DEFERRED 1024       /* client requests being answered later */
#define RPC_DEFAULT_TIMEOUT_MS 30000

/* The one place where project errors become JSON-RPC codes (STYLE.md 5):
 * HK_EINVAL/HK_ERANGE/HK_ENOENT/HK_ETOOBIG -> InvalidParams, HK_ECANCELED ->
 * RequestCancelled, HK_ESTALE -> ContentModified, HK_ESTATE -> RequestFailed,
 * HK_EPARSE -> ParseError, the rest -> InternalError (or RequestFailed for failures
 * of tools the request needed). */
int rpc_code_from_hk(int hk_err);

typedef struct rpc rpc;
typedef struct rpc_call rpc_call;

/* Sends one complete JSON body (borrowed for the call). Returns HK_OK or an error that
 * rpc logs; rpc never retries. */
typedef int (*rpc_send_fn)(const char *body, size_t len, void *ud);
/* Same, taking the body (hk_malloc'd, NUL after len; stolen, on error too): rpc hands
 * over what it serialised instead of having it copied. Optional (rpc_set_send_owned). */
typedef int (*rpc_send_owned_fn)(char *body, size_t len, void *ud);
/* Same, in parts: head (hk_malloc'd, stolen), then lent (read in place until
 * release(arg) is called, once, on the loop), then tail (static). Optional
 * (rpc_set_send_parts); release is called on error too. */
typedef void (*rpc_release_fn)(void *arg);
typedef int (*rpc_send_parts_fn)(char *head, size_t head_len, const char *lent, size_t lent_len,
                                 const char *tail, size_t tail_len, rpc_release_fn release,
                                 void *arg, void *ud);

/* A method handler. call is valid until it is finished; params is borrowed for the
 * call (NULL when absent). The handler must, before returning, either finish the call
 * (rpc_call_reply / rpc_call_error*) or keep it with rpc_call_defer and finish it
 * later. For a notification finishing is optional and sends nothing; a request that
 * is neither finished nor deferred gets an InternalError reply, so every request is
 * answered exactly once. */
typedef void (*rpc_method_fn)(rpc_call *call, json_t *params, void *ud);

/* Runs before a method handler. Returns 0 to dispatch, or a JSON-RPC code to refuse a
 * request with that code and message (*msg, static string); refused notifications are
 * dropped. */
typedef int (*rpc_filter_fn)(const char *method, bool is_request, const char **msg, void *ud);

/* New endpoint in *out. loop is used for outgoing-request timers (may be NULL: then
 * outgoing requests never time out). HK_OK or HK_ENOMEM. */
int rpc_new(uv_loop_t *loop, rpc_send_fn send, void *send_ud, rpc **out);
/* Frees r. Outgoing requests still pending get their callback with HK_ECANCELED;
 * deferred calls not yet finished are freed (their handlers must not touch them
 * afterwards). Timers are closed through the loop: run it once more to release them
 * (their memory is freed in the close callbacks). */
void rpc_free(rpc *r);

/* Registers fn for method (copied). A later registration of the same name replaces
 * it. HK_OK or HK_ENOMEM. */
int rpc_register(rpc *r, const char *method, rpc_method_fn fn, void *ud);
void rpc_set_filter(rpc *r, rpc_filter_fn fn, void *ud);
/* Messages rpc serialised itself go out through fn (same ud as the send function); the
 * rest, and all when fn is NULL, through the send function. */
void rpc_set_send_owned(rpc *r, rpc_send_owned_fn fn);
void rpc_set_send_parts(rpc *r, rpc_send_parts_fn fn);
/* Called for every message received, for tracing ($/logTrace); may be NULL. */
typedef void (*rpc_trace_fn)(const char *method, bool is_request, double ms, void *ud);
void rpc_set_trace(rpc *r, rpc_trace_fn fn, void *ud);

/* Handles one message body. Errors in the message are answered on the wire (with id
 * null when no id could be read); the return value is HK_OK, or HK_ENOMEM when even the
 * error reply could not be built. */
int rpc_feed(rpc *r, const char *body, size_t len);

/* rpc_feed in two halves, so that a large message can be decoded off the loop.
 * rpc_decode: the depth check and the JSON parse of one body into *out (new reference);
 * touches no endpoint, any thread. HK_OK, or HK_EPARSE with *out NULL and the sentence
 * for the client in why (why_len bytes, RPC_DECODE_WHY_MAX is enough).
 * rpc_feed_decoded: handles what rpc_decode gave: msg (stolen), or NULL and why (the
 * ParseError answered on the wire). Returns what rpc_feed returns. */
#define RPC_DECODE_WHY_MAX 256
int rpc_decode(const char *body, size_t len, json_t **out, char *why, size_t why_len);
int rpc_feed_decoded(rpc *r, json_t *msg, const char *why);

/* Checks that text nests [ and { at most max deep (strings and escapes respected),
 * without allocating. HK_OK or HK_ETOOBIG. Exposed for the tests. */
int rpc_check_depth(const char *text, size_t len, int max);

/* ---- calls (client -> server) ---- */

/* Method name (borrowed, valid while the call is). */
const char *rpc_call_method(const rpc_call *call);
/* true for a request, false for a notification. */
bool rpc_call_is_request(const rpc_call *call);
/* The request id (borrowed; NULL for notifications). */
const json_t *rpc_call_id(const rpc_call *call);
/* Keeps the call past the handler's return; it must be finished later. */
void rpc_call_defer(rpc_call *call);
/* Called once if the client cancels a deferred call ($/cancelRequest). rpc has then
 * already answered RequestCancelled; the handler stops its work and still finishes the
 * call (the finishing reply is dropped). */
typedef void (*rpc_cancel_fn)(rpc_call *call, void *ud);
void rpc_call_on_cancel(rpc_call *call, rpc_cancel_fn fn, void *ud);
bool rpc_call_cancelled(const rpc_call *call);
/* The endpoint the call came from (borrowed). */
rpc *rpc_call_endpoint(const rpc_call *call);

/* Finishes the call with a result (stolen; NULL means JSON null). */
void rpc_call_reply(rpc_call *call, json_t *result);
/* Finishes the call with a result given as JSON text (len bytes, borrowed; it must be
 * one valid JSON value). For large results built without jansson objects. */
void rpc_call_reply_raw(rpc_call *call, const char *json_text, size_t len);
/* Same, without copying the result: buf holds room scratch bytes, then the result
 * (len bytes, one valid JSON value), then one scratch byte. The envelope is written
 * into the end of the room and the closing brace into the spare byte, and the whole
 * message is handed to the send function in place; only the scratch bytes change, so
 * the caller may send the same buffer again. When the envelope does not fit the
 * room (a very long id) the result is copied as rpc_call_reply_raw does. */
void rpc_call_reply_inplace(rpc_call *call, char *buf, size_t room, size_t len);
/* Same, without copying the result even once: text (len bytes, one valid JSON value)
 * is written in place, after the envelope, and release(arg) is called when it is no
 * longer read (on the loop; at once when nothing is sent). Without a parts send function
 * (rpc_set_send_parts) it is copied as rpc_call_reply_raw does, then released. */
void rpc_call_reply_lent(rpc_call *call, const char *text, size_t len, rpc_release_fn release,
                         void *arg);
/* Same, for an array result whose elements come in two lists of JSON text, each its
 * elements comma-separated without brackets (either may be empty): head_items (len
 * head_len, copied) then items (len bytes, lent as above). The result is
 * "[" head_items "," items "]", the comma only between two non-empty lists. */
void rpc_call_reply_lent_array(rpc_call *call, const char *head_items, size_t head_len,
                               const char *items, size_t len, rpc_release_fn release,
                               void *arg);
/* Finishes the call with an error: a project error (mapped by rpc_code_from_hk) or a
 * JSON-RPC code. msg is copied; NULL uses hk_strerror. */
void rpc_call_error(rpc_call *call, int hk_err, const char *msg);
void rpc_call_error_code(rpc_call *call, int rpc_code, const char *msg);

/* ---- server -> client ---- */

/* Sends an error response outside any call, e.g. for a framing error: id borrowed,
 * NULL for id null. HK_OK or an error (logged). */
int rpc_send_error(rpc *r, const json_t *id, int rpc_code, const char *msg);

/* Sends a notification; params stolen (may be NULL). HK_OK or an error (logged). */
int rpc_notify(rpc *r, const char *method, json_t *params);
/* Same, with params given as JSON text: the n parts (lens[i] bytes each, borrowed) joined
 * must be one JSON value. Copied once, into the message; for large params made ready
 * off the loop (lsp/diagnostics.c's publish). HK_OK or an error (logged). */
int rpc_notify_raw(rpc *r, const char *method, const char *const *parts, const size_t *lens,
                   size_t n);

/* Reply to an outgoing request, called exactly once on the loop thread:
 * status HK_OK: the client answered; exactly one of result / error is non-NULL (both
 * borrowed for the call). HK_ETIMEDOUT: no answer in time. HK_ECANCELED: the endpoint
 * was freed first. */
typedef void (*rpc_reply_fn)(rpc *r, int status, json_t *result, json_t *error, void *ud);

/* Sends a request to the client; params stolen (may be NULL). timeout_ms 0 means
 * RPC_DEFAULT_TIMEOUT_MS. *id_out (may be NULL) gets the id used. HK_OK (cb will be
 * called), HK_ETOOBIG (RPC_MAX_PENDING_OUT requests already pending), HK_ENOMEM, HK_EIO
 * (could not send); on error cb is never called. */
int rpc_request(rpc *r, const char *method, json_t *params, unsigned timeout_ms,
                rpc_reply_fn cb, void *ud, int64_t *id_out);
/* Ends every pending outgoing request now: callbacks run with HK_ECANCELED and the
 * timers are closed, so the loop can finish (used at exit). */
void rpc_cancel_outgoing(rpc *r);
size_t rpc_pending_out(const rpc *r);
size_t rpc_deferred_count(const rpc *r);

#endif
