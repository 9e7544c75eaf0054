/* Logging for vswitchd. Lines carry wall-clock time (for the operator to correlate with
 * other logs; the data path never looks at it) and a severity letter like CP messages. */
#include "dataplane/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static enum zvs_log_level cur_level = ZVS_LOG_INFO;
static FILE *log_file;
static char *log_path;                  /* what zvs_log_reopen opens again */

void zvs_log_set_level(enum zvs_log_level level) { cur_level = level; }

int zvs_log_open(const char *path)
{
    zvs_log_close();
    if (!path)
        return 0;
    log_file = fopen(path, "ae");
    if (!log_file)
        return -errno;
    setvbuf(log_file, NULL, _IOLBF, 0);
    log_path = strdup(path);
    return 0;
}

int zvs_log_reopen(void)
{
    if (!log_path)
        return 0;
    /* Open the new file before closing the old one: if it cannot be opened, the lines
     * keep going to the old file (renamed or not) rather than nowhere. */
    FILE *f = fopen(log_path, "ae");
    if (!f)
        return -errno;
    setvbuf(f, NULL, _IOLBF, 0);
    fclose(log_file);
    log_file = f;
    return 0;
}

void zvs_log_close(void)
{
    if (log_file)
        fclose(log_file);
    log_file = NULL;
    free(log_path);
    log_path = NULL;
}

int zvs_log_parse_level(const char *text, enum zvs_log_level *out)
{
    static const char *names[] = { "error", "warn", "info", "debug" };
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(text, names[i]) == 0) {
            *out = (enum zvs_log_level)i;
            return 0;
        }
    }
    return -EINVAL;
}

void zvs_log(enum zvs_log_level level, const char *fmt, ...)
{
    static const char letter[] = "EWID";
    if (level > cur_level)
        return;
    FILE *out = log_file ? log_file : stderr;
    struct timespec ts;
    struct tm tm;
    char stamp[32];
    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(out, "%s.%03ld vswitchd %c ", stamp, ts.tv_nsec / 1000000, letter[level]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}

int zvs_ratelimit_ok(struct zvs_ratelimit *rl, uint64_t now, uint64_t interval_ns, uint32_t burst)
{
    if (now - rl->window_start >= interval_ns) {
        rl->window_start = now;
        rl->in_window = 0;
    }
    if (rl->in_window < burst) {
        rl->in_window++;
        return 1;
    }
    rl->suppressed++;
    return 0;
}
