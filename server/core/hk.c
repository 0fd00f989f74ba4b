/* Error strings and the allocation seam. The counters are atomics so the seam stays
 * correct if libuv's thread pool allocates. */
#include "core/hk.h"
#include "core/i18n.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#endif

static atomic_long alloc_live;
static atomic_long alloc_budget; /* 0: unlimited; >0: allocations left before failing */
static atomic_bool alloc_failing;

/* The table's entry of an HK_E* code (HK_MSG_UNKNOWN_ERROR for any other). */
static enum hk_msg err_msg(int err)
{
    switch (err) {
    case HK_OK: return HK_MSG_HKERR_SUCCESS;
    case HK_ENOMEM: return HK_MSG_HKERR_NOMEM;
    case HK_EINVAL: return HK_MSG_HKERR_INVAL;
    case HK_ERANGE: return HK_MSG_HKERR_RANGE;
    case HK_ENOENT: return HK_MSG_HKERR_NOENT;
    case HK_ETOOBIG: return HK_MSG_HKERR_TOOBIG;
    case HK_EIO: return HK_MSG_HKERR_IO;
    case HK_EPARSE: return HK_MSG_HKERR_PARSE;
    case HK_ECANCELED: return HK_MSG_HKERR_CANCELED;
    case HK_ETIMEDOUT: return HK_MSG_HKERR_TIMEDOUT;
    case HK_ESTALE: return HK_MSG_HKERR_STALE;
    case HK_EUNSUPPORTED: return HK_MSG_HKERR_UNSUPPORTED;
    case HK_ESTATE: return HK_MSG_HKERR_STATE;
    case HK_ECHILD: return HK_MSG_HKERR_CHILD;
    case HK_EDB: return HK_MSG_HKERR_DB;
    case HK_ENOGPU: return HK_MSG_HKERR_NOGPU;
    }
    return HK_MSG_UNKNOWN_ERROR;
}

/* English whatever the language: the words are quoted in stored sentences, reasons built
 * with EN(...) and JSON (docs/i18n.md, "Stored in English"), and compared (rewrites'
 * "out of memory"); hk_tr_said says them again where shown (their entries are in its
 * range), hk_strerror_tr says them in the current language. */
const char *hk_strerror(int err)
{
    return hk_tr_in(HK_LANG_EN, err_msg(err));
}

const char *hk_strerror_tr(int err)
{
    return hk_tr(err_msg(err));
}

double hk_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void hk_thread_background(void)
{
#ifdef __linux__
    static _Thread_local bool done;
    if (done)
        return;
    done = true;
    /* Linux applies PRIO_PROCESS with a thread id to that thread alone. */
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (errno == 0)
        (void)setpriority(PRIO_PROCESS, tid, nice + HK_POOL_NICE);
#endif
}

static bool alloc_should_fail(void)
{
    if (atomic_load(&alloc_failing))
        return true;
    long b = atomic_load(&alloc_budget);
    if (b <= 0)
        return false;
    if (atomic_fetch_sub(&alloc_budget, 1) == 1) {
        atomic_store(&alloc_failing, true);
        return true;
    }
    return false;
}

void hk_alloc_fail_after(long n)
{
    atomic_store(&alloc_failing, false);
    atomic_store(&alloc_budget, n > 0 ? n : 0);
}

long hk_alloc_live(void) { return atomic_load(&alloc_live); }

static _Thread_local unsigned long thread_heap_calls;

unsigned long hk_thread_heap_calls(void) { return thread_heap_calls; }

void *hk_malloc(size_t n)
{
    if (alloc_should_fail())
        return NULL;
    void *p = malloc(n ? n : 1);
    if (p)
        atomic_fetch_add(&alloc_live, 1);
    thread_heap_calls++;
    return p;
}

void *hk_calloc(size_t count, size_t size)
{
    if (alloc_should_fail())
        return NULL;
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p)
        atomic_fetch_add(&alloc_live, 1);
    thread_heap_calls++;
    return p;
}

void *hk_realloc(void *p, size_t n)
{
    if (!p)
        return hk_malloc(n);
    if (alloc_should_fail())
        return NULL;
    thread_heap_calls++;
    return realloc(p, n ? n : 1);
}

void hk_free(void *p)
{
    if (!p)
        return;
    atomic_fetch_sub(&alloc_live, 1);
    thread_heap_calls++;
    free(p);
}

char *hk_strndup(const char *s, size_t n)
{
    char *d = hk_malloc(n + 1);
    if (!d)
        return NULL;
    if (n) /* s may be NULL for an empty text */
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *hk_strdup(const char *s) { return hk_strndup(s, strlen(s)); }

char *hk_vasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = hk_malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *hk_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = hk_vasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void hk_alloc_init_json(void) { json_set_alloc_funcs(hk_malloc, hk_free); }

int hk_data_dir(const char *installed, const char *in_tree, char **out)
{
    *out = NULL;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char *cand = hk_asprintf("%s/../share/hyperkernel/%s", exe, installed);
            struct stat st;
            if (!cand)
                return HK_ENOMEM;
            if (stat(cand, &st) == 0 && S_ISDIR(st.st_mode)) {
                /* <prefix>/share/..., not <prefix>/bin/../share/...: paths are shown */
                char *real = realpath(cand, NULL);
                if (real) {
                    hk_free(cand);
                    cand = hk_strdup(real);
                    free(real);
                }
                *out = cand;
                return cand ? HK_OK : HK_ENOMEM;
            }
            hk_free(cand);
        }
    }
#ifdef HK_SOURCE_DIR
    *out = hk_asprintf("%s/%s", HK_SOURCE_DIR, in_tree);
#else
    *out = hk_strdup(in_tree);
#endif
    return *out ? HK_OK : HK_ENOMEM;
}
