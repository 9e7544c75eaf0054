/* Frame pool: LIFO reuse, exhaustion counted, headroom and alignment, stats. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "dataplane/pool.h"

static void take_put_is_lifo(void **state)
{
    struct zvs_pool *p = zvs_pool_create(4, 2048, 64);
    assert_non_null(p);
    int32_t a = zvs_pool_take(p), b = zvs_pool_take(p);
    assert_int_equal(a, 0);                 /* lowest index first */
    assert_int_equal(b, 1);
    zvs_pool_put(p, a);
    assert_int_equal(zvs_pool_take(p), a);  /* the cache-warm buffer comes back first */
    zvs_pool_put(p, a);
    zvs_pool_put(p, b);
    struct zvs_pool_stats st;
    zvs_pool_stats(p, &st);
    assert_int_equal(st.nbufs, 4);
    assert_int_equal(st.free, 4);
    assert_int_equal(st.low_water, 2);
    assert_int_equal(st.exhausted, 0);
    zvs_pool_destroy(p);
}

static void exhaustion_is_counted(void **state)
{
    struct zvs_pool *p = zvs_pool_create(3, 256, 0);
    int32_t idx[8];
    assert_int_equal(zvs_pool_take_n(p, idx, 2), 2);
    assert_int_equal(zvs_pool_take_n(p, idx + 2, 5), 1);   /* only one left */
    assert_int_equal(zvs_pool_take(p), -1);
    struct zvs_pool_stats st;
    zvs_pool_stats(p, &st);
    assert_int_equal(st.free, 0);
    assert_int_equal(st.low_water, 0);
    assert_int_equal(st.exhausted, 2);
    for (int i = 0; i < 3; i++)
        zvs_pool_put(p, idx[i]);
    zvs_pool_stats(p, &st);
    assert_int_equal(st.free, 3);
    zvs_pool_destroy(p);
}

static void buffers_are_distinct_and_aligned(void **state)
{
    struct zvs_pool *p = zvs_pool_create(16, 1514, 10);
    assert_int_equal(zvs_pool_buf_size(p), 1514);
    assert_int_equal(zvs_pool_headroom(p), 10);
    for (int32_t i = 0; i < 16; i++) {
        uint8_t *d = zvs_pool_data(p, i);
        /* the area before the frame (headroom) starts on a cache line */
        assert_int_equal(((uintptr_t)(d - 10)) % 64, 0);
        memset(d - 10, (int)i, 10 + 1514);  /* headroom + frame: writable, no overlap */
    }
    for (int32_t i = 0; i < 16; i++) {
        uint8_t *d = zvs_pool_data(p, i);
        assert_int_equal(d[-10], i);
        assert_int_equal(d[1513], i);
    }
    zvs_pool_destroy(p);
}

static void zero_buffers_refused(void **state)
{
    assert_null(zvs_pool_create(0, 2048, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(take_put_is_lifo),
        cmocka_unit_test(exhaustion_is_counted),
        cmocka_unit_test(buffers_are_distinct_and_aligned),
        cmocka_unit_test(zero_buffers_refused),
    };
    return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
