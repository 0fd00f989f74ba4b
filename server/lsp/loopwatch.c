/* The event loop's busy time per iteration (see loopwatch.h). */
#include "lsp/loopwatch.h"

#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/hk.h"

/* Busy-time histogram edges (ms): p99 is read from it, to the bucket's upper edge. */
static const double edges_ms[] = {0.25, 0.5, 1, 2, 3, 4, 5, 7.5, 10, 20, 50, 100, 250, 1000};
#define N_BUCKETS (HK_ARRAY_LEN(edges_ms) + 1)

struct lsp_loopwatch {
    uv_check_t check;
    uv_loop_t *loop;
    uint64_t last_ns, last_idle_ns, last_cpu_ns, last_faults, last_preempted;
    unsigned long last_heap;
    unsigned long heap_max; /* the loop thread's heap calls: most in one iteration */
    char heap_longest[160]; /* what that iteration handled */
    uint64_t iterations, over_limit;
    uint64_t buckets[N_BUCKETS];
    double max_ms, total_ms;
    double cpu_max_ms;   /* the loop thread's own CPU time, longest iteration */
    uint64_t cpu_over_limit;
    char during[160];    /* what this iteration handled so far */
    char longest[160];   /* what the longest iteration handled */
    char cpu_longest[160]; /* same, for the iteration with the most CPU time */
    uint64_t faults_max;   /* the loop thread's page faults: most in one iteration */
    uint64_t faults_total;
    char faults_longest[160]; /* what that iteration handled */
    /* the longest iteration (busy wall) seen from the thread: its own CPU time, page
     * faults and involuntary context switches (preempted: the wall counted a wait for a
     * core, not work) */
    double longest_cpu_ms;
    uint64_t longest_faults, longest_preempted;
    /* the LOOPWATCH_TOP iterations with the most loop-thread CPU time, most first */
    struct {
        double cpu_ms, busy_ms;
        unsigned long heap;
        char during[160];
    } top[LOOPWATCH_TOP];
    size_t n_top;
};

/* Keeps the iteration among the LOOPWATCH_TOP with the most CPU time. */
static void top_add(lsp_loopwatch *w, double cpu_ms, double busy_ms, unsigned long heap)
{
    size_t i = w->n_top;
    if (i == LOOPWATCH_TOP) {
        if (cpu_ms <= w->top[i - 1].cpu_ms)
            return;
        i--;
    } else {
        w->n_top++;
    }
    for (; i > 0 && w->top[i - 1].cpu_ms < cpu_ms; i--)
        w->top[i] = w->top[i - 1];
    w->top[i].cpu_ms = cpu_ms;
    w->top[i].busy_ms = busy_ms;
    w->top[i].heap = heap;
    memcpy(w->top[i].during, w->during, sizeof w->top[i].during);
}

/* The loop thread's page faults so far (minor and major) and the times it was preempted
 * (involuntary context switches). On a VM a fault costs about 20 us, so a few hundred (a
 * large buffer written into fresh pages) are milliseconds of the loop that no profile of
 * the code shows. 0 where there is no per-thread count. */
static void thread_usage(uint64_t *faults, uint64_t *preempted)
{
    *faults = *preempted = 0;
#ifdef RUSAGE_THREAD
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        *faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
        *preempted = (uint64_t)ru.ru_nivcsw;
    }
#endif
}

/* The loop thread's CPU time: busy time less what other processes took of the core
 * (on a loaded machine the wall figure counts preemption; this one does not). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if UV_VERSION_HEX >= 0x012700
static void on_check(uv_check_t *h)
{
    lsp_loopwatch *w = h->data;
    uint64_t now = uv_hrtime(), idle = uv_metrics_idle_time(w->loop), cpu = thread_cpu_ns();
    uint64_t faults, preempted;
    thread_usage(&faults, &preempted);
    unsigned long heap = hk_thread_heap_calls();
    if (w->last_ns) {
        unsigned long nh = heap - w->last_heap;
        if (nh > w->heap_max) {
            w->heap_max = nh;
            memcpy(w->heap_longest, w->during, sizeof w->heap_longest);
        }
        uint64_t nf = faults > w->last_faults ? faults - w->last_faults : 0;
        w->faults_total += nf;
        if (nf > w->faults_max) {
            w->faults_max = nf;
            memcpy(w->faults_longest, w->during, sizeof w->faults_longest);
        }
        double cpu_ms = cpu > w->last_cpu_ns ? (double)(cpu - w->last_cpu_ns) / 1e6 : 0.0;
        if (cpu_ms > LOOPWATCH_LIMIT_MS)
            w->cpu_over_limit++;
        if (cpu_ms > w->cpu_max_ms) {
            w->cpu_max_ms = cpu_ms;
            memcpy(w->cpu_longest, w->during, sizeof w->cpu_longest);
        }
        uint64_t wall = now - w->last_ns, waited = idle - w->last_idle_ns;
        double busy = wall > waited ? (double)(wall - waited) / 1e6 : 0.0;
        w->iterations++;
        w->total_ms += busy;
        size_t b = 0;
        while (b < HK_ARRAY_LEN(edges_ms) && busy > edges_ms[b])
            b++;
        w->buckets[b]++;
        if (busy > LOOPWATCH_LIMIT_MS)
            w->over_limit++;
        top_add(w, cpu_ms, busy, nh);
        if (busy > w->max_ms) {
            w->max_ms = busy;
            memcpy(w->longest, w->during, sizeof w->longest);
            w->longest_cpu_ms = cpu_ms;
            w->longest_faults = nf;
            w->longest_preempted = preempted - w->last_preempted;
        }
    }
    w->during[0] = '\0';
    w->last_ns = now;
    w->last_idle_ns = idle;
    w->last_cpu_ns = cpu;
    w->last_faults = faults;
    w->last_preempted = preempted;
    w->last_heap = heap;
}
#endif

int lsp_loopwatch_start(uv_loop_t *loop, lsp_loopwatch **out)
{
    *out = NULL;
#if UV_VERSION_HEX < 0x012700 /* the idle-time metric came with libuv 1.39 */
    (void)loop;
    return HK_EIO;
#else
    if (uv_loop_configure(loop, UV_METRICS_IDLE_TIME) != 0)
        return HK_EIO;
    lsp_loopwatch *w = hk_calloc(1, sizeof *w);
    if (!w)
        return HK_ENOMEM;
    w->loop = loop;
    w->check.data = w;
    if (uv_check_init(loop, &w->check) != 0 || uv_check_start(&w->check, on_check) != 0) {
        hk_free(w);
        return HK_EIO;
    }
    uv_unref((uv_handle_t *)&w->check);
    *out = w;
    return HK_OK;
#endif
}

void lsp_loopwatch_note(lsp_loopwatch *w, const char *what)
{
    if (!w || !what)
        return;
    size_t n = strlen(w->during);
    if (n + 3 >= sizeof w->during)
        return;
    if (strstr(w->during, what))   /* a burst of one method: named once */
        return;
    snprintf(w->during + n, sizeof w->during - n, "%s%s", n ? ", " : "", what);
}

json_t *lsp_loopwatch_json(const lsp_loopwatch *w)
{
    double p99 = 0;
    if (w && w->iterations) {
        uint64_t want = w->iterations - w->iterations / 100, seen = 0;
        for (size_t b = 0; b < N_BUCKETS; b++) {
            seen += w->buckets[b];
            if (seen >= want) {
                p99 = b < HK_ARRAY_LEN(edges_ms) ? edges_ms[b] : w->max_ms;
                break;
            }
        }
    }
    json_t *j = json_pack("{s:I, s:f, s:f, s:f, s:I, s:f, s:s, s:f, s:I, s:s, s:I, s:I, s:s}",
                     "iterations",
                     (json_int_t)(w ? w->iterations : 0), "busy_ms_max", w ? w->max_ms : 0.0,
                     "busy_ms_mean", w && w->iterations ? w->total_ms / (double)w->iterations : 0.0,
                     "busy_ms_p99", p99, "over_limit", (json_int_t)(w ? w->over_limit : 0),
                     "limit_ms", LOOPWATCH_LIMIT_MS, "longest_during", w ? w->longest : "",
                     "cpu_ms_max", w ? w->cpu_max_ms : 0.0, "cpu_over_limit",
                     (json_int_t)(w ? w->cpu_over_limit : 0), "cpu_longest_during",
                     w ? w->cpu_longest : "", "faults_max",
                     (json_int_t)(w ? w->faults_max : 0), "faults_total",
                     (json_int_t)(w ? w->faults_total : 0), "faults_longest_during",
                     w ? w->faults_longest : "");
    json_t *longest = json_pack("{s:f, s:I, s:I}", "cpu_ms", w ? w->longest_cpu_ms : 0.0,
                                "faults", (json_int_t)(w ? w->longest_faults : 0), "preempted",
                                (json_int_t)(w ? w->longest_preempted : 0));
    json_t *top = json_array();
    for (size_t i = 0; w && top && i < w->n_top; i++) {
        if (json_array_append_new(top, json_pack("{s:f, s:f, s:I, s:s}", "cpu_ms",
                                                 w->top[i].cpu_ms, "busy_ms", w->top[i].busy_ms,
                                                 "heap_calls", (json_int_t)w->top[i].heap,
                                                 "during", w->top[i].during)) != 0) {
            json_decref(top);
            top = NULL;
        }
    }
    if (!j) {
        json_decref(top);
        json_decref(longest);
        return NULL;
    }
    /* json_object_set_new takes its value also when it fails (a NULL one is a failure) */
    bool bad = json_object_set_new(j, "heap_calls_max",
                                   json_integer((json_int_t)(w ? w->heap_max : 0))) != 0;
    bad |= json_object_set_new(j, "heap_calls_longest_during",
                               json_string(w ? w->heap_longest : "")) != 0;
    bad |= json_object_set_new(j, "top_cpu", top) != 0;
    bad |= json_object_set_new(j, "longest", longest) != 0;
    if (bad) {
        json_decref(j);
        return NULL;
    }
    return j;
}

void lsp_loopwatch_reset(lsp_loopwatch *w)
{
    if (!w)
        return;
    /* the handle, the loop and the readings the next iteration is measured from stay */
    struct lsp_loopwatch keep = *w;
    size_t at = offsetof(struct lsp_loopwatch, heap_max);
    memset((char *)w + at, 0, sizeof *w - at);
    memcpy(w->during, keep.during, sizeof w->during);
}

static void on_closed(uv_handle_t *h) { hk_free(h->data); }

void lsp_loopwatch_stop(lsp_loopwatch *w)
{
    if (!w)
        return;
    uv_check_stop(&w->check);
    uv_close((uv_handle_t *)&w->check, on_closed);
}
