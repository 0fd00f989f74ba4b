/* Logging to stderr or a file, with levels. stdout is the LSP protocol: nothing here
 * ever writes to it. Loop thread only (no locking). */
#ifndef HK_CORE_LOG_H
#define HK_CORE_LOG_H

enum hk_log_level { HK_LOG_ERROR, HK_LOG_WARN, HK_LOG_INFO, HK_LOG_DEBUG, HK_LOG_TRACE };

/* Opens PATH for appending (NULL: stderr). Returns HK_OK or HK_EIO. */
int hk_log_open(const char *path, enum hk_log_level level);
void hk_log_close(void);
void hk_log_set_level(enum hk_log_level level);
enum hk_log_level hk_log_get_level(void);
/* Parses "error|warn|info|debug|trace" into *out; HK_EINVAL when unknown. */
int hk_log_parse_level(const char *s, enum hk_log_level *out);

void hk_log(enum hk_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define HK_ERROR(...) hk_log(HK_LOG_ERROR, __VA_ARGS__)
#define HK_WARN(...) hk_log(HK_LOG_WARN, __VA_ARGS__)
#define HK_INFO(...) hk_log(HK_LOG_INFO, __VA_ARGS__)
#define HK_DEBUG(...) hk_log(HK_LOG_DEBUG, __VA_ARGS__)
#define HK_TRACE(...) hk_log(HK_LOG_TRACE, __VA_ARGS__)

#endif
