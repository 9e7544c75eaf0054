/* Event loop: fd callbacks, absolute-deadline timers in order, idle hooks, removal from
 * inside a callback. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include "daemon/evloop.h"

struct rec {
    int  order[8];
    int  n;
    uint64_t now[8];
};

struct tagged { struct rec *r; int tag; };

static void on_timer_tag(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct tagged *tg = arg;
    tg->r->now[tg->r->n] = now;
    tg->r->order[tg->r->n++] = tg->tag;
}

static void timers_fire_in_deadline_order(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create();
    struct rec r = { 0 };
    struct tagged a = { &r, 1 }, b = { &r, 2 }, c = { &r, 3 };
    struct zvs_timer *ta = zvs_timer_create(l, on_timer_tag, &a);
    struct zvs_timer *tb = zvs_timer_create(l, on_timer_tag, &b);
    struct zvs_timer *tc = zvs_timer_create(l, on_timer_tag, &c);
    uint64_t t0 = zvs_clock_now();
    zvs_timer_arm(ta, t0 + 30000000);   /* 30 ms */
    zvs_timer_arm(tb, t0 + 10000000);   /* 10 ms */
    zvs_timer_arm(tc, t0 + 20000000);   /* 20 ms, then disarmed */
    zvs_timer_disarm(tc);
    while (r.n < 2)
        assert_true(zvs_evloop_run_once(l, 1000) >= 0);
    assert_int_equal(r.order[0], 2);
    assert_int_equal(r.order[1], 1);
    assert_true(r.now[0] >= t0 + 10000000);
    assert_true(r.now[1] >= t0 + 30000000);
    /* Nothing else is pending: a short wait runs no callback. */
    assert_int_equal(zvs_evloop_run_once(l, 50), 0);
    assert_int_equal(r.n, 2);
    zvs_timer_destroy(tc);
    zvs_evloop_destroy(l);
}

struct fdctx { struct zvs_evloop *l; int fd; int calls; uint64_t value; };

static void on_fd(void *arg, int fd, uint32_t ev, uint64_t now)
{
    struct fdctx *c = arg;
    uint64_t v;
    assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
    c->value += v;
    c->calls++;
    /* Removing ourselves from inside the callback is allowed. */
    assert_int_equal(zvs_evloop_del_fd(c->l, fd), 0);
}

static int idle_calls;
static void on_idle(void *arg, uint64_t now) { idle_calls++; }

static void fd_callback_and_idle(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create();
    struct fdctx c = { .l = l, .fd = eventfd(0, EFD_NONBLOCK) };
    uint64_t one = 5;
    idle_calls = 0;
    assert_int_equal(zvs_evloop_add_fd(l, c.fd, 1 /* EPOLLIN */, on_fd, &c), 0);
    assert_int_equal(zvs_evloop_add_fd(l, c.fd, 1, on_fd, &c), -17 /* -EEXIST */);
    assert_int_equal(zvs_evloop_add_idle(l, on_idle, NULL), 0);
    assert_int_equal(write(c.fd, &one, sizeof(one)), sizeof(one));
    assert_int_equal(zvs_evloop_run_once(l, 1000), 1);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.value, 5);
    assert_int_equal(idle_calls, 1);
    /* Removed: a second write wakes nothing. */
    assert_int_equal(write(c.fd, &one, sizeof(one)), sizeof(one));
    assert_int_equal(zvs_evloop_run_once(l, 20), 0);
    assert_int_equal(c.calls, 1);
    assert_int_equal(zvs_evloop_del_fd(l, c.fd), -2 /* -ENOENT */);
    close(c.fd);
    zvs_evloop_destroy(l);
}

static void stop_ends_run(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create();
    assert_false(zvs_evloop_stopped(l));
    zvs_evloop_stop(l);
    assert_int_equal(zvs_evloop_run(l), 0);
    assert_true(zvs_evloop_stopped(l));
    zvs_evloop_destroy(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timers_fire_in_deadline_order),
        cmocka_unit_test(fd_callback_and_idle),
        cmocka_unit_test(stop_ends_run),
    };
    return cmocka_run_group_tests_name("evloop", tests, NULL, NULL);
}
