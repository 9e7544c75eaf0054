/* Daemon logging: levels, a destination (stderr or a file), and rate limiting so a
 * flood of bad input cannot flood the log. */
#ifndef ZVS_LOG_H
#define ZVS_LOG_H

#include <stdint.h>
#include <stdio.h>

enum zvs_log_level { ZVS_LOG_ERROR, ZVS_LOG_WARN, ZVS_LOG_INFO, ZVS_LOG_DEBUG };

void zvs_log_set_level(enum zvs_log_level level);
/* NULL: stderr. The file is opened for append; returns -errno. */
int zvs_log_open(const char *path);
void zvs_log_close(void);
/* Opens the log file's path again (after logrotate renamed it: SIGHUP). A no-op on stderr;
 * -errno, with the old file kept, when the path cannot be opened. */
int zvs_log_reopen(void);
int zvs_log_parse_level(const char *text, enum zvs_log_level *out);

void zvs_log(enum zvs_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* At most `burst` messages per `interval_ns` from one call site. Suppressed messages are
 * counted in `suppressed`; the caller mentions and zeroes it with the next one it prints. */
struct zvs_ratelimit {
    uint64_t window_start;              /* start of the current window */
    uint32_t in_window;                 /* messages let through in it */
    uint32_t suppressed;                /* messages dropped since the last one printed */
};
int zvs_ratelimit_ok(struct zvs_ratelimit *rl, uint64_t now, uint64_t interval_ns, uint32_t burst);

#define zvs_err(...)   zvs_log(ZVS_LOG_ERROR, __VA_ARGS__)
#define zvs_warn(...)  zvs_log(ZVS_LOG_WARN, __VA_ARGS__)
#define zvs_info(...)  zvs_log(ZVS_LOG_INFO, __VA_ARGS__)
#define zvs_debug(...) zvs_log(ZVS_LOG_DEBUG, __VA_ARGS__)

#endif
