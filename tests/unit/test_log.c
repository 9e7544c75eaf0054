/* Logging: level filtering into a file, reopening after logrotate, and the rate limiter's
 * windows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataplane/log.h"

static void levels_filter_and_format(void **state)
{
    char path[] = "/tmp/zvs-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(zvs_log_open(path), 0);
    zvs_log_set_level(ZVS_LOG_WARN);
    zvs_err("disk %d", 1);
    zvs_info("not shown");
    zvs_warn("carrier down on %s", "osa28ba");
    zvs_log_close();
    zvs_log_set_level(ZVS_LOG_INFO);

    FILE *f = fopen(path, "r");
    char line[256];
    assert_non_null(fgets(line, sizeof(line), f));
    assert_non_null(strstr(line, " vswitchd E disk 1\n"));
    assert_non_null(fgets(line, sizeof(line), f));
    assert_non_null(strstr(line, " vswitchd W carrier down on osa28ba\n"));
    assert_null(fgets(line, sizeof(line), f));
    fclose(f);
    unlink(path);
}

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

/* logrotate renames the file; reopen (SIGHUP) starts a new one at the old path, and the
 * renamed file keeps what was written before. Reopen on stderr is a no-op. */
static void reopen_after_rename(void **state)
{
    char path[] = "/tmp/zvs-log-XXXXXX", moved[64];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    snprintf(moved, sizeof(moved), "%s.1", path);
    assert_int_equal(zvs_log_open(path), 0);
    zvs_log_set_level(ZVS_LOG_INFO);
    zvs_info("before");
    assert_int_equal(rename(path, moved), 0);
    zvs_info("still the old file");
    assert_int_equal(zvs_log_reopen(), 0);
    zvs_info("after");
    zvs_log_close();
    const char *old = slurp(moved);
    assert_non_null(strstr(old, " vswitchd I before\n"));
    assert_non_null(strstr(old, " vswitchd I still the old file\n"));
    assert_null(strstr(old, "after"));
    const char *now = slurp(path);
    assert_non_null(strstr(now, " vswitchd I after\n"));
    assert_null(strstr(now, "before"));
    assert_int_equal(zvs_log_reopen(), 0);     /* closed: stderr, nothing to reopen */
    unlink(path);
    unlink(moved);
}

static void parse_level(void **state)
{
    enum zvs_log_level l;
    assert_int_equal(zvs_log_parse_level("DEBUG", &l), 0);
    assert_int_equal(l, ZVS_LOG_DEBUG);
    assert_int_equal(zvs_log_parse_level("warn", &l), 0);
    assert_int_equal(l, ZVS_LOG_WARN);
    assert_true(zvs_log_parse_level("loud", &l) < 0);
}

static void ratelimit_windows(void **state)
{
    struct zvs_ratelimit rl = { 0 };
    const uint64_t s = 1000000000ull;
    /* 3 per second: the 4th and 5th in the first second are suppressed. */
    for (int i = 0; i < 3; i++)
        assert_true(zvs_ratelimit_ok(&rl, 10 * s + (uint64_t)i, s, 3));
    assert_false(zvs_ratelimit_ok(&rl, 10 * s + 500, s, 3));
    assert_false(zvs_ratelimit_ok(&rl, 11 * s - 1, s, 3));
    assert_int_equal(rl.suppressed, 2);
    /* A new window opens exactly one interval after the first message. */
    assert_true(zvs_ratelimit_ok(&rl, 11 * s, s, 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels_filter_and_format),
        cmocka_unit_test(parse_level),
        cmocka_unit_test(reopen_after_rename),
        cmocka_unit_test(ratelimit_windows),
    };
    return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
