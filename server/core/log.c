/* Line-oriented log with a timestamp and level; flushed per line so a crash keeps it. */
#include "core/log.h"
#include "core/hk.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static FILE *log_file;
static enum hk_log_level log_level = HK_LOG_WARN;
static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

int hk_log_open(const char *path, enum hk_log_level level)
{
    hk_log_close();
    log_level = level;
    if (!path)
        return HK_OK;
    FILE *f = fopen(path, "a");
    if (!f)
        return HK_EIO;
    log_file = f;
    return HK_OK;
}

void hk_log_close(void)
{
    if (log_file)
        fclose(log_file);
    log_file = NULL;
}

void hk_log_set_level(enum hk_log_level level) { log_level = level; }
enum hk_log_level hk_log_get_level(void) { return log_level; }

int hk_log_parse_level(const char *s, enum hk_log_level *out)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(level_names); i++) {
        if (strcmp(s, level_names[i]) == 0) {
            *out = (enum hk_log_level)i;
            return HK_OK;
        }
    }
    return HK_EINVAL;
}

void hk_log(enum hk_log_level level, const char *fmt, ...)
{
    if (level > log_level)
        return;
    FILE *f = log_file ? log_file : stderr;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    fprintf(f, "%02d:%02d:%02d.%03ld %-5s ", tm.tm_hour, tm.tm_min, tm.tm_sec,
            ts.tv_nsec / 1000000, level_names[level]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fflush(f);
}
