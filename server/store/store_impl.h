/* Private to server/store: the handle and the helpers its files share (statement
 * preparation, error mapping, transactions that nest, column copies). Not for other
 * modules: they use store.h only. */
#ifndef HK_STORE_STORE_IMPL_H
#define HK_STORE_STORE_IMPL_H

#include <sqlite3.h>
#include <stdbool.h>

#include "core/i18n.h"
#include "store/store.h"

struct store {
    sqlite3 *db;
    bool user_tx;       /* inside store_tx_begin .. commit/rollback */
    char err[512];      /* last error text (store_errmsg) */
};

/* Records the connection's error for what, returns the HK code for rc (a SQLite code):
 * CONSTRAINT -> HK_EINVAL, NOMEM -> HK_ENOMEM, TOOBIG -> HK_ETOOBIG, else HK_EDB. */
int store__fail(store *s, int rc, const char *what);
/* Records a message of our own and returns code. */
int store__failf(store *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Records the message table's id (a format with its arguments, or plain text) in the
 * thread's language and returns code: the CLI and the editor say it in the user's, the
 * episode worker, which speaks English on its thread, stores it in English after "store: "
 * and hk_tr_said says it again (docs/i18n.md). */
int store__failm(store *s, int code, enum hk_msg id, ...);
/* Prepares sql on the handle; HK_OK or a mapped error with the message recorded. */
int store__prepare(store *s, const char *sql, sqlite3_stmt **out);
/* Runs a prepared statement that returns no rows (SQLITE_DONE expected) and finalizes it. */
int store__exec_stmt(store *s, sqlite3_stmt *st, const char *what);
/* Runs sql text (no parameters). */
int store__exec(store *s, const char *sql);

/* Write units that nest: outside any transaction BEGIN IMMEDIATE (so the write lock is
 * taken up front and the busy timeout applies, instead of failing on upgrade), inside
 * one a SAVEPOINT. *token remembers which. tx_leave commits when rc is HK_OK, else rolls
 * back, and returns rc or the commit's error. */
int store__tx_enter(store *s, int *token);
int store__tx_leave(store *s, int token, int rc);

/* Copies column i as a new string into *out (NULL for SQL NULL). HK_OK or HK_ENOMEM. */
int store__col_str(sqlite3_stmt *st, int i, char **out);
/* Column i as a double, NAN for SQL NULL. */
double store__col_double(sqlite3_stmt *st, int i);
/* Binds a string or NULL / a double or NULL for a non-finite value. */
int store__bind_str(sqlite3_stmt *st, int i, const char *v);
int store__bind_double(sqlite3_stmt *st, int i, double v);
/* Binds v or NULL for 0 (optional foreign keys). */
int store__bind_id(sqlite3_stmt *st, int i, int64_t v);

/* Growth for row arrays: ensures room for one more element of size elem. */
int store__grow(void **arr, size_t *cap, size_t n, size_t elem, size_t max);

#endif
