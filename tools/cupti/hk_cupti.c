/* libhk_cupti.so: the CUPTI injection library of command-form bench specs
 * (server/measure/cmdform.h). The CUDA driver loads it into the user's unmodified program
 * when CUDA_INJECTION64_PATH names it and calls InitializeInjection() from cuInit. It
 * records every kernel launch with CUPTI activity records (CONCURRENT_KERNEL: device
 * start/end timestamps, no serialization) and appends one JSON line per launch to the
 * file named by HK_CUPTI_OUT, between an "init" line and an "exit" line per process:
 *
 *   {"event":"init","pid":P,"cupti_version":V}
 *   {"event":"kernel","pid":P,"name":"_Z5saxpyifPKfPf","demangled":"saxpy(int, float,
 *    float const*, float*)","start":NS,"end":NS,"duration_ns":NS,"grid":[x,y,z],
 *    "block":[x,y,z],"device":D,"context":C,"stream":S,"correlation":K,"registers":R,
 *    "smem_static":B,"smem_dynamic":B}
 *   {"event":"exit","pid":P,"kernels":N,"dropped":D,"buffers":B}
 *   {"event":"error","pid":P,"message":"..."}     (a CUPTI call failed)
 *
 * With HK_CUPTI_NONCE set (the server draws one per run), every line starts with
 * "nonce":N, and the variable is removed from the environment at init.
 *
 * Lines are written with one write() each on an O_APPEND descriptor, so several processes
 * of one run command (a script running the program twice) can share the file. Plain C
 * with no dependency besides CUPTI, pthreads and libdl; everything but InitializeInjection
 * is hidden (build with -fvisibility=hidden). */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The newest kernel record layout of the headers we build against. CUPTI hands out records
 * of its own newest layout, which only ever appends fields, so the fields read here sit at
 * the same offsets in every later runtime. */
#if defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 hk_kernel_record;
#else
typedef CUpti_ActivityKernel9 hk_kernel_record;
#endif

#define HK_EXPORT __attribute__((visibility("default")))
#define HK_BUFFER_BYTES ((size_t)8 << 20) /* one activity buffer; CUPTI asks for more as needed */
#define HK_BUFFER_ALIGN 8                  /* CUPTI requires 8-byte aligned buffers */

typedef char *(*hk_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static pthread_mutex_t hk_lock = PTHREAD_MUTEX_INITIALIZER;
static int hk_fd = -1;             /* the records file; -1 until InitializeInjection opened it */
static pid_t hk_pid;               /* the process that opened it (a forked child inherits our
                                    * atexit handler and must not write its trailer) */
static int hk_started;
static uint64_t hk_kernels, hk_dropped, hk_buffers;
static hk_demangle_fn hk_demangle; /* libstdc++'s __cxa_demangle when the program has it */

/* Writes all of s (n bytes) with one write() where the kernel allows, retrying short ones. */
static void hk_write_all(const char *s, size_t n)
{
    while (n > 0 && hk_fd >= 0) {
        ssize_t w = write(hk_fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* disk full or closed: the missing exit line tells the reader */
        s += w;
        n -= (size_t)w;
    }
}

/* Appends s to dst (capacity cap, at *len) as a JSON string body. Sizes were reserved by the
 * caller (6 bytes per input byte at most). */
static void hk_json_escape(char *dst, size_t *len, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            dst[(*len)++] = '\\';
            dst[(*len)++] = (char)*p;
        } else if (*p < 0x20) {
            dst[(*len)++] = '\\';
            dst[(*len)++] = 'u';
            dst[(*len)++] = '0';
            dst[(*len)++] = '0';
            dst[(*len)++] = hex[*p >> 4];
            dst[(*len)++] = hex[*p & 15];
        } else {
            dst[(*len)++] = (char)*p;
        }
    }
}

/* One line from a printf format (short fixed lines only: init, exit, error). */
/* This run's nonce (HK_CUPTI_NONCE, taken out of the environment at init): every line
 * carries it, so the reader can tell this library's lines from lines written by anything
 * else, or left by an earlier run. Hex digits only; empty when none was given. */
static char hk_nonce[65];

static void hk_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void hk_line(const char *fmt, ...)
{
    char line[1200];
    int k = 0;
    if (hk_nonce[0]) /* {"nonce":"N", then the line without its own "{" */
        k = snprintf(line, sizeof line, "{\"nonce\":\"%s\",", hk_nonce);
    char body[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof body)
        n = (int)sizeof body - 1;
    const char *b = body;
    if (k && b[0] == '{') {
        b++;
        n--;
    }
    if ((size_t)(k + n) > sizeof line - 2)
        n = (int)sizeof line - 2 - k;
    memcpy(line + k, b, (size_t)n);
    n += k;
    line[n++] = '\n';
    hk_write_all(line, (size_t)n);
}

static void hk_cupti_error(const char *call, CUptiResult st)
{
    const char *what = NULL;
    if (cuptiGetResultString(st, &what) != CUPTI_SUCCESS || !what)
        what = "unknown CUPTI error";
    char text[300];
    char msg[6 * sizeof text + 1]; /* an escape takes 6 bytes at most */
    size_t len = 0;
    snprintf(text, sizeof text, "%s: %s (%d)", call, what, (int)st);
    hk_json_escape(msg, &len, text);
    msg[len] = 0;
    pthread_mutex_lock(&hk_lock);
    hk_line("{\"event\":\"error\",\"pid\":%ld,\"message\":\"%s\"}", (long)hk_pid, msg);
    pthread_mutex_unlock(&hk_lock);
}

/* One kernel record as a JSON line. Called with hk_lock held. */
static void hk_write_kernel(const hk_kernel_record *k)
{
    const char *name = k->name ? k->name : "";
    char *demangled = NULL;
    if (hk_demangle && name[0] == '_' && name[1] == 'Z') {
        int status = -1;
        demangled = hk_demangle(name, NULL, NULL, &status);
        if (status != 0) {
            free(demangled);
            demangled = NULL;
        }
    }
    size_t need = 600 + 6 * strlen(name) + (demangled ? 6 * strlen(demangled) : 0);
    char *line = malloc(need);
    if (!line) {
        free(demangled);
        return;
    }
    size_t len = 0;
    len += (size_t)snprintf(line + len, need - len, "{\"event\":\"kernel\",\"pid\":%ld,\"name\":\"",
                            (long)hk_pid);
    hk_json_escape(line, &len, name);
    if (demangled) {
        len += (size_t)snprintf(line + len, need - len, "\",\"demangled\":\"");
        hk_json_escape(line, &len, demangled);
    }
    uint64_t dur = k->end >= k->start ? k->end - k->start : 0;
    len += (size_t)snprintf(line + len, need - len,
                            "\",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"duration_ns\":%" PRIu64
                            ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"device\":%u,\"context\":%u"
                            ",\"stream\":%u,\"correlation\":%u,\"registers\":%u,\"smem_static\":%d"
                            ",\"smem_dynamic\":%d}\n",
                            (uint64_t)k->start, (uint64_t)k->end, dur, k->gridX, k->gridY, k->gridZ,
                            k->blockX, k->blockY, k->blockZ, k->deviceId, k->contextId, k->streamId,
                            k->correlationId, (unsigned)k->registersPerThread,
                            k->staticSharedMemory, k->dynamicSharedMemory);
    if (len >= need)
        len = need - 1; /* cannot happen with the reserve above; never write past it */
    hk_write_all(line, len);
    hk_kernels++;
    free(line);
    free(demangled);
}

static void CUPTIAPI hk_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *p = NULL;
    if (posix_memalign(&p, HK_BUFFER_ALIGN, HK_BUFFER_BYTES) != 0)
        p = NULL; /* CUPTI then drops records and counts them: the exit line reports it */
    *buffer = p;
    *size = p ? HK_BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
}

static void CUPTIAPI hk_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                         size_t valid)
{
    (void)size;
    pthread_mutex_lock(&hk_lock);
    hk_buffers++;
    CUpti_Activity *rec = NULL;
    CUptiResult st = CUPTI_SUCCESS;
    while (buffer && valid > 0) {
        st = cuptiActivityGetNextRecord(buffer, valid, &rec);
        if (st != CUPTI_SUCCESS)
            break;
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL)
            hk_write_kernel((const hk_kernel_record *)rec);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        hk_dropped += dropped;
    pthread_mutex_unlock(&hk_lock);
    if (st != CUPTI_SUCCESS && st != CUPTI_ERROR_MAX_LIMIT_REACHED)
        hk_cupti_error("cuptiActivityGetNextRecord", st);
    free(buffer);
}

/* At exit of the process that initialized: flush what CUPTI still holds (the records of
 * kernels that ended since the last buffer completed), then the trailer. The trailer is
 * how the reader knows the records are complete. */
static void hk_at_exit(void)
{
    if (!hk_started || getpid() != hk_pid)
        return;
    CUptiResult st = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (st != CUPTI_SUCCESS)
        hk_cupti_error("cuptiActivityFlushAll", st);
    pthread_mutex_lock(&hk_lock);
    hk_line("{\"event\":\"exit\",\"pid\":%ld,\"kernels\":%" PRIu64 ",\"dropped\":%" PRIu64
            ",\"buffers\":%" PRIu64 "}",
            (long)hk_pid, hk_kernels, hk_dropped, hk_buffers);
    close(hk_fd);
    hk_fd = -1;
    hk_started = 0;
    pthread_mutex_unlock(&hk_lock);
}

/* Called by the CUDA driver (cuInit) when CUDA_INJECTION64_PATH names this library.
 * Returns 1: a failure here must not stop the user's program; it is written to the records
 * file (or stderr when that cannot be opened) and the reader reports it. */
HK_EXPORT int InitializeInjection(void);
HK_EXPORT int InitializeInjection(void)
{
    if (hk_started)
        return 1;
    const char *path = getenv("HK_CUPTI_OUT");
    if (!path || !path[0]) {
        fprintf(stderr, "hk_cupti: HK_CUPTI_OUT is not set: no kernel records are written\n");
        return 1;
    }
    const char *nonce = getenv("HK_CUPTI_NONCE");
    if (nonce && strlen(nonce) < sizeof hk_nonce && strspn(nonce, "0123456789abcdef") == strlen(nonce))
        strcpy(hk_nonce, nonce);
    unsetenv("HK_CUPTI_NONCE"); /* the program's own later getenv does not see it */
    hk_pid = getpid();
    hk_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (hk_fd < 0) {
        fprintf(stderr, "hk_cupti: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    hk_demangle = (hk_demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    uint32_t version = 0;
    if (cuptiGetVersion(&version) != CUPTI_SUCCESS)
        version = 0;
    /* "init" first: it says the library was loaded, and any error line after it says why
     * no kernel lines follow */
    hk_line("{\"event\":\"init\",\"pid\":%ld,\"cupti_version\":%u}", (long)hk_pid, version);

    CUptiResult st = cuptiActivityRegisterCallbacks(hk_buffer_requested, hk_buffer_completed);
    if (st != CUPTI_SUCCESS) {
        hk_cupti_error("cuptiActivityRegisterCallbacks", st);
        return 1;
    }
    st = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (st != CUPTI_SUCCESS) {
        hk_cupti_error("cuptiActivityEnable(CONCURRENT_KERNEL)", st);
        return 1;
    }
    hk_started = 1;
    if (atexit(hk_at_exit) != 0) {
        hk_started = 0;
        hk_cupti_error("atexit", CUPTI_ERROR_UNKNOWN);
        return 1;
    }
    return 1;
}
