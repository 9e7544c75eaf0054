/* The open-file limit vswitchd raises at start (daemon/fd_limit.h): the soft limit ends at
 * the hard one, and a limit already there is left alone. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/resource.h>

#include "daemon/fd_limit.h"

static void soft_limit_rises_to_the_hard_one(void **state)
{
    struct rlimit rl, saved;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max <= 64)
        skip();                         /* nothing to lower the soft limit to */
    rl = saved;
    rl.rlim_cur = 64;                   /* as low as a strict system could start us */
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);

    uint64_t before = 0, after = 0;
    assert_int_equal(zvsd_raise_fd_limit(&before, &after), 0);
    assert_int_equal(before, 64);
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    assert_int_equal((uint64_t)rl.rlim_cur, after);
    assert_true(after > 64);
    if (saved.rlim_max != RLIM_INFINITY)
        assert_int_equal(after, (uint64_t)saved.rlim_max);
    assert_int_equal(rl.rlim_max, saved.rlim_max);  /* the hard limit is not touched */

    /* Already at the hard limit: nothing changes. */
    assert_int_equal(zvsd_raise_fd_limit(&before, &after), 0);
    assert_int_equal(before, after);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(soft_limit_rises_to_the_hard_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
