/* Event loop: fd callbacks, absolute-deadline timers in order (one that falls due during
 * the callbacks served in their iteration, before the rest of them, which are served
 * too), idle hooks, removal from inside a callback. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
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

/* A busy data path: the callback runs past a timer's deadline. */
static void on_fd_slow(void *arg, int fd, uint32_t ev, uint64_t now)
{
    struct fdctx *c = arg;
    uint64_t v;
    assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
    c->calls++;
    struct timespec ts = { 0, 5000000 };        /* 5 ms */
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static uint64_t idle_now;
static void on_idle_now(void *arg, uint64_t now) { idle_now = now; }

/* A deadline that falls due while an iteration's fd callbacks run is served in that same
 * iteration, with a `now` read after them (not one iteration of callbacks later), and the
 * idle hooks see that `now` too. */
static void timer_due_during_callbacks_runs_in_that_iteration(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create();
    struct fdctx c = { .l = l, .fd = eventfd(0, EFD_NONBLOCK) };
    struct rec r = { 0 };
    struct tagged a = { &r, 1 };
    struct zvs_timer *t = zvs_timer_create(l, on_timer_tag, &a);
    uint64_t one = 1;
    assert_int_equal(zvs_evloop_add_fd(l, c.fd, EPOLLIN, on_fd_slow, &c), 0);
    assert_int_equal(zvs_evloop_add_idle(l, on_idle_now, NULL), 0);
    assert_int_equal(write(c.fd, &one, sizeof(one)), sizeof(one));
    uint64_t deadline = zvs_clock_now() + 1000000;     /* 1 ms: inside the callback's 5 */
    zvs_timer_arm(t, deadline);
    assert_int_equal(zvs_evloop_run_once(l, 1000), 2);  /* the fd and the timer */
    assert_int_equal(c.calls, 1);
    assert_int_equal(r.n, 1);
    assert_true(r.now[0] >= deadline);
    assert_int_equal(idle_now, r.now[0]);
    assert_int_equal(zvs_evloop_now(l), r.now[0]);
    assert_int_equal(zvs_evloop_del_fd(l, c.fd), 0);
    close(c.fd);
    zvs_timer_destroy(t);
    zvs_evloop_destroy(l);
}

/* The two descriptors and the timer of the tests below, removed before they close. */
static void destroy_two(struct zvs_evloop *l, int fd1, int fd2, struct zvs_timer *t)
{
    assert_int_equal(zvs_evloop_del_fd(l, fd1), 0);
    assert_int_equal(zvs_evloop_del_fd(l, fd2), 0);
    close(fd1);
    close(fd2);
    zvs_timer_destroy(t);
    zvs_evloop_destroy(l);
}

/* Two descriptors ready at once and a deadline that falls due during the first one's
 * callback: the timer does not wait for the second, and the second is still served in
 * that iteration (after the timer: busy_descriptors_served_every_iteration). */
static void timer_due_served_between_the_iterations_callbacks(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create();
    struct fdctx c1 = { .l = l, .fd = eventfd(0, EFD_NONBLOCK) };
    struct fdctx c2 = { .l = l, .fd = eventfd(0, EFD_NONBLOCK) };
    struct rec r = { 0 };
    struct tagged a = { &r, 1 };
    struct zvs_timer *t = zvs_timer_create(l, on_timer_tag, &a);
    uint64_t one = 1;
    assert_int_equal(zvs_evloop_add_fd(l, c1.fd, EPOLLIN, on_fd_slow, &c1), 0);
    assert_int_equal(zvs_evloop_add_fd(l, c2.fd, EPOLLIN, on_fd_slow, &c2), 0);
    assert_int_equal(write(c1.fd, &one, sizeof(one)), sizeof(one));
    assert_int_equal(write(c2.fd, &one, sizeof(one)), sizeof(one));
    uint64_t deadline = zvs_clock_now() + 1000000;     /* 1 ms: inside one callback's 5 */
    zvs_timer_arm(t, deadline);
    assert_int_equal(zvs_evloop_run_once(l, 1000), 3);  /* both descriptors and the timer */
    assert_int_equal(c1.calls, 1);
    assert_int_equal(c2.calls, 1);
    assert_int_equal(r.n, 1);
    assert_true(r.now[0] >= deadline);
    /* Nothing is left for the next iteration. */
    assert_int_equal(zvs_evloop_run_once(l, 50), 0);
    destroy_two(l, c1.fd, c2.fd, t);
}

/* The order of an iteration's callbacks: a descriptor's tag, 0 for the timer. */
static int seq[64], nseq;
static void log_seq(int tag)
{
    if (nseq < (int)(sizeof(seq) / sizeof(seq[0])))
        seq[nseq++] = tag;
}

struct busy { int fd; int tag; int calls; };

/* A descriptor that stays ready (never drained: level-triggered, it is reported by every
 * epoll_wait) and whose callback runs 3 ms, past a deadline 1 ms away. */
static void on_fd_busy(void *arg, int fd, uint32_t ev, uint64_t now)
{
    struct busy *b = arg;
    b->calls++;
    log_seq(b->tag);
    struct timespec ts = { 0, 3000000 };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static void on_timer_seq(void *arg, struct zvs_timer *t, uint64_t now)
{
    (*(int *)arg)++;
    log_seq(0);
}

/* Two busy descriptors and a deadline that falls due during the first one's callback,
 * iteration after iteration: epoll reports them in the same order every time, and both
 * are served every iteration, the timer between them (it does not wait for the second). */
static void busy_descriptors_served_every_iteration(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create();
    struct busy a = { .fd = eventfd(1, EFD_NONBLOCK), .tag = 1 };
    struct busy b = { .fd = eventfd(1, EFD_NONBLOCK), .tag = 2 };
    int fired = 0;
    struct zvs_timer *t = zvs_timer_create(l, on_timer_seq, &fired);
    assert_int_equal(zvs_evloop_add_fd(l, a.fd, EPOLLIN, on_fd_busy, &a), 0);
    assert_int_equal(zvs_evloop_add_fd(l, b.fd, EPOLLIN, on_fd_busy, &b), 0);
    nseq = 0;
    for (int k = 1; k <= 5; k++) {
        int at = nseq;
        zvs_timer_arm(t, zvs_clock_now() + 1000000);   /* 1 ms: inside the first's 3 */
        assert_int_equal(zvs_evloop_run_once(l, 1000), 3);
        assert_int_equal(a.calls, k);
        assert_int_equal(b.calls, k);
        assert_int_equal(fired, k);
        assert_int_equal(nseq - at, 3);
        assert_int_equal(seq[at + 1], 0);
        assert_int_not_equal(seq[at], seq[at + 2]);
    }
    destroy_two(l, a.fd, b.fd, t);
}

static int counted_calls;
static void on_counted(void *arg, int fd, uint32_t ev, uint64_t now)
{
    uint64_t v;
    (void)!read(fd, &v, sizeof v);
    counted_calls++;
}

/* Many watches (a guest NIC's tap and interrupt each): removing some, between iterations
 * and then again after iterations that removed nothing, leaves exactly the others, which
 * go on firing; a removed descriptor's number can be watched again at once. */
static void removals_among_many_watches(void **state)
{
    enum { N = 64 };
    struct zvs_evloop *l = zvs_evloop_create();
    int fds[N];
    uint64_t one = 1;
    unsigned watches, timers;
    for (int i = 0; i < N; i++) {
        fds[i] = eventfd(0, EFD_NONBLOCK);
        assert_int_equal(zvs_evloop_add_fd(l, fds[i], EPOLLIN, on_counted, NULL), 0);
    }
    for (int round = 0; round < 2; round++) {
        for (int i = round; i < N; i += 4)     /* round 0: 0, 4, ...; round 1: 1, 5, ... */
            assert_int_equal(zvs_evloop_del_fd(l, fds[i]), 0);
        counted_calls = 0;
        for (int i = 0; i < N; i++)
            assert_int_equal(write(fds[i], &one, sizeof(one)), sizeof(one));
        while (zvs_evloop_run_once(l, 0) > 0)
            ;
        zvs_evloop_count(l, &watches, &timers);
        assert_int_equal(watches, N - (round + 1) * N / 4);
        assert_int_equal(counted_calls, (int)watches);
        /* Nothing removed in this iteration: the survivors are all still there. */
        for (int i = 0; i < N; i++)
            (void)!write(fds[i], &one, sizeof(one));
        counted_calls = 0;
        while (zvs_evloop_run_once(l, 0) > 0)
            ;
        assert_int_equal(counted_calls, (int)watches);
        for (int i = 0; i < N; i++) {
            uint64_t v;
            (void)!read(fds[i], &v, sizeof v);  /* drain the removed ones' counters */
        }
    }
    assert_int_equal(zvs_evloop_add_fd(l, fds[0], EPOLLIN, on_counted, NULL), 0);
    zvs_evloop_del_all_fds(l);
    for (int i = 0; i < N; i++)
        close(fds[i]);
    zvs_evloop_destroy(l);
}

/* The contract (remove, then close) is checked, never enforced: a delete of a descriptor
 * already closed returns -EBADF, one not watched -ENOENT, a watch whose descriptor is
 * closed when its loop is destroyed is found then; each is counted in zvs_evloop_misuse().
 * The watch is freed all the same (no pinning): the number is free for the next add. */
static void contract_breaches_are_reported(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create();
    uint64_t m0 = zvs_evloop_misuse();
    int a = eventfd(0, EFD_NONBLOCK);

    assert_int_equal(zvs_evloop_add_fd(l, a, EPOLLIN, on_counted, NULL), 0);
    assert_int_equal(zvs_evloop_del_fd(l, a), 0);               /* the right order */
    assert_int_equal(zvs_evloop_misuse(), m0);
    assert_int_equal(zvs_evloop_del_fd(l, a), -ENOENT);         /* twice */
    assert_int_equal(zvs_evloop_misuse(), m0 + 1);
    assert_int_equal(zvs_evloop_add_fd(l, a, EPOLLIN, on_counted, NULL), 0);
    close(a);                                                   /* closed first */
    assert_int_equal(zvs_evloop_del_fd(l, a), -EBADF);
    assert_int_equal(zvs_evloop_misuse(), m0 + 2);
    assert_int_equal(zvs_evloop_run_once(l, 0), 0);             /* reaped */
    int b = eventfd(0, EFD_NONBLOCK);
    assert_int_equal(b, a);                                     /* the same number... */
    assert_int_equal(zvs_evloop_add_fd(l, b, EPOLLIN, on_counted, NULL), 0);  /* free */
    close(b);                                                   /* and never removed */
    zvs_evloop_destroy(l);
    assert_int_equal(zvs_evloop_misuse(), m0 + 3);
}

/* del_all_fds: every watch leaves while its descriptor is open; nothing fires after. */
static void del_all_fds_removes_every_watch(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create();
    uint64_t m0 = zvs_evloop_misuse(), one = 1;
    int fd[3];

    counted_calls = 0;
    for (int i = 0; i < 3; i++) {
        fd[i] = eventfd(0, EFD_NONBLOCK);
        assert_int_equal(zvs_evloop_add_fd(l, fd[i], EPOLLIN, on_counted, NULL), 0);
    }
    zvs_evloop_del_all_fds(l);
    for (int i = 0; i < 3; i++)
        assert_int_equal(write(fd[i], &one, sizeof one), sizeof one);
    assert_int_equal(zvs_evloop_run_once(l, 20), 0);
    assert_int_equal(counted_calls, 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(zvs_evloop_del_fd(l, fd[i]), -ENOENT);
        close(fd[i]);
    }
    zvs_evloop_destroy(l);
    assert_int_equal(zvs_evloop_misuse(), m0 + 3);              /* the three deletes above */
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

/* A periodic timer that re-arms itself every second, like the LACP periodic machine. */
struct periodic { struct rec *r; struct zvs_timer *t; int tag; uint64_t period; };

static void on_periodic(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct periodic *p = arg;
    if (p->r->n < 8) {
        p->r->now[p->r->n] = now;
        p->r->order[p->r->n++] = p->tag;
    }
    zvs_timer_arm(t, now + p->period);
}

#define S 1000000000ull

/* Virtual time: warp fires every deadline at its exact instant, in deadline order, also
 * the ones a callback arms on the way; the wall clock follows the virtual one. */
static void virtual_warp_fires_each_deadline_exactly(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create_virtual(10 * S, 1700000000000000ull);
    struct rec r = { 0 };
    struct periodic fast = { &r, NULL, 1, 1 * S }, slow = { &r, NULL, 2, 3 * S };
    fast.t = zvs_timer_create(l, on_periodic, &fast);
    slow.t = zvs_timer_create(l, on_periodic, &slow);
    assert_true(zvs_evloop_is_virtual(l));
    assert_int_equal(zvs_evloop_now(l), 10 * S);
    zvs_timer_arm(fast.t, 11 * S);
    zvs_timer_arm(slow.t, 12 * S);
    assert_int_equal(zvs_evloop_next_deadline(l), 11 * S);
    /* 4.5 s: fast at 11, 12, 13, 14; slow at 12 (then 15, beyond). */
    assert_int_equal(zvs_evloop_warp(l, 14 * S + S / 2), 5);
    assert_int_equal(r.n, 5);
    uint64_t want_at[5] = { 11 * S, 12 * S, 12 * S, 13 * S, 14 * S };
    for (int i = 0; i < 5; i++)
        assert_int_equal(r.now[i], want_at[i]);
    assert_int_equal(r.order[0], 1);
    assert_int_equal(r.order[3], 1);
    assert_int_equal(r.order[4], 1);
    assert_int_equal(r.order[1] + r.order[2], 3);   /* both at 12 s, one each */
    assert_int_equal(zvs_evloop_now(l), 14 * S + S / 2);
    assert_int_equal(zvs_evloop_clock(l), 14 * S + S / 2);
    assert_int_equal(zvs_evloop_wall_us(l), 1700000000000000ull + 4500000ull);
    /* Time never goes back; a real loop cannot be warped. */
    assert_int_equal(zvs_evloop_warp(l, 14 * S), -22 /* -EINVAL */);
    zvs_timer_destroy(fast.t);
    zvs_timer_destroy(slow.t);
    zvs_evloop_destroy(l);
    struct zvs_evloop *real = zvs_evloop_create();
    assert_false(zvs_evloop_is_virtual(real));
    assert_int_equal(zvs_evloop_warp(real, zvs_clock_now() + S), -22);
    zvs_evloop_destroy(real);
}

/* An fd written during an instant is served at that instant: run_once never sleeps on a
 * virtual loop, and settle iterates until nothing is ready. */
static void virtual_settle_serves_fds_without_waiting(void **state)
{
    struct zvs_evloop *l = zvs_evloop_create_virtual(S, 0);
    struct fdctx c = { .l = l, .fd = eventfd(0, EFD_NONBLOCK) };
    assert_int_equal(zvs_evloop_add_fd(l, c.fd, EPOLLIN, on_fd, &c), 0);
    assert_int_equal(zvs_evloop_run_once(l, 60000), 0);    /* returns at once */
    uint64_t one = 1;
    assert_int_equal(write(c.fd, &one, sizeof(one)), sizeof(one));
    assert_true(zvs_evloop_settle(l) >= 1);
    assert_int_equal(c.calls, 1);
    assert_int_equal(zvs_evloop_now(l), S);
    close(c.fd);
    zvs_evloop_destroy(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timers_fire_in_deadline_order),
        cmocka_unit_test(fd_callback_and_idle),
        cmocka_unit_test(timer_due_during_callbacks_runs_in_that_iteration),
        cmocka_unit_test(timer_due_served_between_the_iterations_callbacks),
        cmocka_unit_test(busy_descriptors_served_every_iteration),
        cmocka_unit_test(stop_ends_run),
        cmocka_unit_test(contract_breaches_are_reported),
        cmocka_unit_test(del_all_fds_removes_every_watch),
        cmocka_unit_test(removals_among_many_watches),
        cmocka_unit_test(virtual_warp_fires_each_deadline_exactly),
        cmocka_unit_test(virtual_settle_serves_fds_without_waiting),
    };
    return cmocka_run_group_tests_name("evloop", tests, NULL, NULL);
}
