/* Hyper Kernel core: the one error convention and the one allocation seam.
 * Every fallible function in the project returns int: HK_OK (0) or a negative
 * HK_E* code, with results through out-parameters (STYLE.md 5). */
#ifndef HK_CORE_HK_H
#define HK_CORE_HK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>

enum hk_err {
    HK_OK = 0,
    HK_ENOMEM = -1,       /* allocation failed */
    HK_EINVAL = -2,       /* bad argument or malformed input */
    HK_ERANGE = -3,       /* position/offset out of range */
    HK_ENOENT = -4,       /* no such file, document, kernel, episode */
    HK_ETOOBIG = -5,      /* input over a cap */
    HK_EIO = -6,          /* read/write/spawn failed */
    HK_EPARSE = -7,       /* text could not be parsed (JSON, spec, compiler output) */
    HK_ECANCELED = -8,    /* cancelled by the user or a newer request */
    HK_ETIMEDOUT = -9,    /* a deadline passed */
    HK_ESTALE = -10,      /* input changed since the work began */
    HK_EUNSUPPORTED = -11,/* feature/tool not available here */
    HK_ESTATE = -12,      /* call not valid in the current state */
    HK_ECHILD = -13,      /* a child process failed */
    HK_EDB = -14,         /* SQLite error */
    HK_ENOGPU = -15,      /* the operation needs a GPU and none was found */
};

/* Static string for an HK_E* code (never NULL), in English whatever the language: for
 * stored sentences, EN(...) reasons and JSON; hk_tr_said says it again where shown. */
const char *hk_strerror(int err);
/* The same words in the current language (hk_tr): for a line written for a person now. */
const char *hk_strerror_tr(int err);

/* Seconds on the monotonic clock (CLOCK_MONOTONIC): for durations and deadlines. */
double hk_now_s(void);

/* Called first by every work function the server gives the libuv pool: lowers the
 * calling thread's priority, once per thread (its nice value + HK_POOL_NICE, on Linux),
 * so the event loop's thread takes a core from the pool's work instead of waiting behind
 * it (on 2 cores a parse and a 1 MB write on the pool held the loop 5-9 ms per iteration
 * while its own CPU time was 0.1 ms). Best effort; a no-op elsewhere. Any thread. */
#define HK_POOL_NICE 5
void hk_thread_background(void);

/* Allocation seam (STYLE.md 10): all project memory and jansson's go through these,
 * so tests can count allocations and inject failures. Same contracts as libc. */
void *hk_malloc(size_t n);
void *hk_calloc(size_t count, size_t size);
void *hk_realloc(void *p, size_t n);
void hk_free(void *p);
/* New string (hk_free) or NULL on failure; s must not be NULL. */
char *hk_strdup(const char *s);
/* New NUL-terminated copy of the first n bytes of s (embedded NULs too; s may be NULL when
 * n is 0), or NULL on failure. */
char *hk_strndup(const char *s, size_t n);
/* New string from a printf format, or NULL on failure. */
char *hk_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* hk_asprintf with a va_list (ap is consumed). */
char *hk_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Test hooks. fail_after: the Nth following allocation (1-based) and every one after
 * it fails; 0 disables. hk_alloc_live() is the count of blocks not yet freed. */
void hk_alloc_fail_after(long n);
long hk_alloc_live(void);

/* The calling thread's allocations and frees through the seam so far (jansson's too,
 * after hk_alloc_init_json): a count of heap work that does not depend on the CPU's
 * speed or load. The LSP loop watch reads it per loop iteration. */
unsigned long hk_thread_heap_calls(void);

/* Routes jansson's allocations through the seam; call once at start. */
void hk_alloc_init_json(void);

/* Where a data folder of the project is (the harness header's include/, skills/, the
 * recorded GPU reports): <dir of this executable>/../share/hyperkernel/<installed> when that
 * folder exists (an installed hkls), else HK_SOURCE_DIR/<in_tree> (a build tree, which
 * uses the sources it was built from). *out: new string. HK_OK or HK_ENOMEM. */
int hk_data_dir(const char *installed, const char *in_tree, char **out);

#define HK_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
