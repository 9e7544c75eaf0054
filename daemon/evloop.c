/* Event loop: epoll + a single timerfd. Timers live in a small list scanned for the
 * earliest deadline: a switch has tens of timers, not thousands, and the scan is cheaper
 * than keeping a heap consistent under arm/disarm from callbacks.
 * A virtual loop leaves the timerfd disarmed and polls epoll with timeout 0: its timers
 * are due when zvs_evloop_warp has moved `now` to them. */
#include "daemon/evloop.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS  64
#define MAX_IDLE    16
/* Iterations one settle may run at one virtual instant: an fd that stays readable
 * whatever its callback does would otherwise hang a test instead of failing it. */
#define SETTLE_MAX  100000

struct fd_watch {
    int        fd;
    zvs_fd_fn  fn;
    void      *arg;
    bool       dead;                    /* removed while callbacks may still see it */
    struct fd_watch *next;
};

struct zvs_timer {
    struct zvs_evloop *loop;
    zvs_timer_fn       fn;
    void              *arg;
    uint64_t           deadline;        /* 0: disarmed */
    struct zvs_timer  *next;
};

struct zvs_evloop {
    int               epfd;
    int               tfd;              /* timerfd for the earliest deadline */
    uint64_t          armed_for;        /* deadline the timerfd is set to, 0 none */
    uint64_t          now;
    bool              stop;
    bool              virt;             /* virtual time: only warp moves `now` */
    uint64_t          virt_start;       /* virtual `now` at creation */
    uint64_t          virt_wall_us;     /* wall clock at virt_start */
    struct fd_watch  *watches;
    unsigned          ndead;            /* watches removed, not yet freed */
    struct zvs_timer *timers;
    struct { zvs_idle_fn fn; void *arg; } idle[MAX_IDLE];
    int               nidle;
};

/* Breaches of the remove-before-close contract (evloop.h), every loop of the process:
 * counted, never acted on, so a test can show a path is clean. */
static uint64_t misuse;

uint64_t zvs_evloop_misuse(void)
{
    return __atomic_load_n(&misuse, __ATOMIC_RELAXED);
}

static void count_misuse(void)
{
    __atomic_fetch_add(&misuse, 1, __ATOMIC_RELAXED);
}

uint64_t zvs_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct zvs_evloop *zvs_evloop_create_virtual(uint64_t start_ns, uint64_t wall_us)
{
    if (!start_ns)
        return NULL;
    struct zvs_evloop *l = zvs_evloop_create();
    if (!l)
        return NULL;
    l->virt = true;
    l->now = l->virt_start = start_ns;
    l->virt_wall_us = wall_us;
    return l;
}

struct zvs_evloop *zvs_evloop_create(void)
{
    struct zvs_evloop *l = calloc(1, sizeof(*l));
    if (!l)
        return NULL;
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (l->epfd < 0 || l->tfd < 0)
        goto fail;
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->tfd, &ev) < 0)
        goto fail;
    l->now = zvs_clock_now();
    return l;
fail:
    zvs_evloop_destroy(l);
    return NULL;
}

void zvs_evloop_destroy(struct zvs_evloop *l)
{
    if (!l)
        return;
    while (l->watches) {
        struct fd_watch *w = l->watches;
        /* A watch still in place must still name an open descriptor: one closed first
         * is a path that broke the contract (its owner closed it and never removed it). */
        if (!w->dead && fcntl(w->fd, F_GETFD) < 0 && errno == EBADF)
            count_misuse();
        l->watches = w->next;
        free(w);
    }
    while (l->timers) {
        struct zvs_timer *t = l->timers;
        l->timers = t->next;
        free(t);
    }
    if (l->epfd >= 0)
        close(l->epfd);
    if (l->tfd >= 0)
        close(l->tfd);
    free(l);
}

static struct fd_watch *find_watch(struct zvs_evloop *l, int fd)
{
    for (struct fd_watch *w = l->watches; w; w = w->next)
        if (w->fd == fd && !w->dead)
            return w;
    return NULL;
}

int zvs_evloop_add_fd(struct zvs_evloop *l, int fd, uint32_t events, zvs_fd_fn fn, void *arg)
{
    if (find_watch(l, fd))
        return -EEXIST;
    struct fd_watch *w = calloc(1, sizeof(*w));
    if (!w)
        return -ENOMEM;
    *w = (struct fd_watch){ .fd = fd, .fn = fn, .arg = arg, .next = l->watches };
    struct epoll_event ev = { .events = events, .data.ptr = w };
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        int err = -errno;
        free(w);
        return err;
    }
    l->watches = w;
    return 0;
}

int zvs_evloop_mod_fd(struct zvs_evloop *l, int fd, uint32_t events)
{
    struct fd_watch *w = find_watch(l, fd);
    if (!w)
        return -ENOENT;
    struct epoll_event ev = { .events = events, .data.ptr = w };
    return epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
}

int zvs_evloop_del_fd(struct zvs_evloop *l, int fd)
{
    struct fd_watch *w = find_watch(l, fd);
    if (!w) {
        count_misuse();                 /* removed twice, or never added */
        return -ENOENT;
    }
    /* The descriptor must still be open here: epoll keys a watch on the open file, so a
     * DEL after close() fails, and while another process still holds the file (a child
     * between fork and exec) epoll would go on reporting it with this watch's address. */
    int rc = 0;
    if (epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL) < 0 && errno == EBADF) {
        count_misuse();
        rc = -EBADF;
    }
    /* Freed after the iteration: events already fetched may still point at it. Freed
     * even when the DEL failed (a watch kept forever broke lab_restart once): the breach
     * is counted instead, for the tests to find its caller. */
    w->dead = true;
    l->ndead++;
    return rc;
}

void zvs_evloop_count(const struct zvs_evloop *l, unsigned *watches, unsigned *timers)
{
    *watches = *timers = 0;
    for (const struct fd_watch *w = l->watches; w; w = w->next)
        *watches += !w->dead;
    for (const struct zvs_timer *t = l->timers; t; t = t->next)
        ++*timers;
}

void zvs_evloop_del_all_fds(struct zvs_evloop *l)
{
    for (struct fd_watch *w = l->watches; w; w = w->next)
        if (!w->dead)
            zvs_evloop_del_fd(l, w->fd);
}

/* Only when a watch was removed: the list holds a watch or two per guest NIC (a tap's
 * descriptor and its interrupt), so walking it every iteration would cost every
 * iteration in proportion to the guests. */
static void reap_watches(struct zvs_evloop *l)
{
    if (l->ndead == 0)
        return;
    l->ndead = 0;
    struct fd_watch **pp = &l->watches;
    while (*pp) {
        struct fd_watch *w = *pp;
        if (w->dead) {
            *pp = w->next;
            free(w);
        } else {
            pp = &w->next;
        }
    }
}

uint64_t zvs_evloop_next_deadline(const struct zvs_evloop *l)
{
    uint64_t first = 0;
    for (const struct zvs_timer *t = l->timers; t; t = t->next)
        if (t->deadline && (!first || t->deadline < first))
            first = t->deadline;
    return first;
}

static void rearm(struct zvs_evloop *l)
{
    if (l->virt)
        return;                         /* warp finds the deadlines itself */
    uint64_t first = zvs_evloop_next_deadline(l);
    if (first == l->armed_for)
        return;
    struct itimerspec its = { 0 };
    if (first) {
        its.it_value.tv_sec = (time_t)(first / 1000000000ull);
        its.it_value.tv_nsec = (long)(first % 1000000000ull);
    }
    timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL);
    l->armed_for = first;
}

struct zvs_timer *zvs_timer_create(struct zvs_evloop *l, zvs_timer_fn fn, void *arg)
{
    struct zvs_timer *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    *t = (struct zvs_timer){ .loop = l, .fn = fn, .arg = arg, .next = l->timers };
    l->timers = t;
    return t;
}

void zvs_timer_arm(struct zvs_timer *t, uint64_t deadline_ns)
{
    t->deadline = deadline_ns ? deadline_ns : 1;
    rearm(t->loop);
}

void zvs_timer_disarm(struct zvs_timer *t)
{
    t->deadline = 0;
    rearm(t->loop);
}

void zvs_timer_destroy(struct zvs_timer *t)
{
    if (!t)
        return;
    struct zvs_evloop *l = t->loop;
    for (struct zvs_timer **pp = &l->timers; *pp; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            break;
        }
    }
    free(t);
    rearm(l);
}

int zvs_evloop_add_idle(struct zvs_evloop *l, zvs_idle_fn fn, void *arg)
{
    if (l->nidle >= MAX_IDLE)
        return -ENOSPC;
    l->idle[l->nidle].fn = fn;
    l->idle[l->nidle].arg = arg;
    l->nidle++;
    return 0;
}

static int run_timers(struct zvs_evloop *l)
{
    int ran = 0;
    uint64_t expirations;
    if (!l->virt && read(l->tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
        return 0;
    l->armed_for = 0;
    /* A callback may arm or destroy timers: restart the scan after each one. */
    for (bool again = true; again;) {
        again = false;
        for (struct zvs_timer *t = l->timers; t; t = t->next) {
            if (t->deadline && t->deadline <= l->now) {
                t->deadline = 0;
                t->fn(t->arg, t, l->now);
                ran++;
                again = true;
                break;
            }
        }
    }
    rearm(l);
    return ran;
}

static void run_idle(struct zvs_evloop *l)
{
    for (int i = 0; i < l->nidle; i++)
        l->idle[i].fn(l->idle[i].arg, l->now);
}

int zvs_evloop_run_once(struct zvs_evloop *l, int timeout_ms)
{
    struct epoll_event ev[MAX_EVENTS];
    /* Virtual time does not pass while waiting: never sleep. */
    int n = epoll_wait(l->epfd, ev, MAX_EVENTS, l->virt ? 0 : timeout_ms);
    if (n < 0)
        return errno == EINTR ? 0 : -errno;
    int ran = 0;
    bool timer_fired = false;
    if (l->virt) {
        uint64_t first = zvs_evloop_next_deadline(l);
        timer_fired = first && first <= l->now;
    } else {
        l->now = zvs_clock_now();
    }
    for (int i = 0; i < n; i++) {
        struct fd_watch *w = ev[i].data.ptr;
        if (!w) {
            timer_fired = true;
            continue;
        }
        if (w->dead)
            continue;
        w->fn(w->arg, w->fd, ev[i].events, l->now);
        ran++;
        /* A deadline due now is served before the rest of the descriptors already
         * returned: the timers and idle hooks run with a `now` read here, then the
         * callbacks go on with ev[i+1..n). A periodic LACPDU waits for one callback's
         * bursts at most, and every ready descriptor is still served this iteration.
         * Ending the callbacks here instead would starve the rest: epoll puts
         * level-triggered items back at the tail of its ready list in the order it
         * returned them, so the same leading descriptor comes first again, and the ones
         * after it were skipped whenever a deadline fell due during its callback. */
        uint64_t t;
        if (!l->virt && l->armed_for && i + 1 < n && (t = zvs_clock_now()) >= l->armed_for) {
            l->now = t;
            ran += run_timers(l);
            run_idle(l);
        }
    }
    /* The callbacks may have run for a while (bursts of a busy data path): read the clock
     * again, so a deadline that fell due meanwhile runs in this iteration with the timers
     * and idle hooks, not after the next iteration's callbacks (a periodic LACPDU was late
     * by two iterations instead of one). */
    if (!l->virt && ran > 0) {
        l->now = zvs_clock_now();
        uint64_t first = zvs_evloop_next_deadline(l);
        timer_fired = timer_fired || (first && first <= l->now);
    }
    if (timer_fired)
        ran += run_timers(l);
    run_idle(l);
    reap_watches(l);
    return ran;
}

int zvs_evloop_run(struct zvs_evloop *l)
{
    while (!l->stop) {
        int rc = zvs_evloop_run_once(l, -1);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void zvs_evloop_stop(struct zvs_evloop *l) { l->stop = true; }
bool zvs_evloop_stopped(const struct zvs_evloop *l) { return l->stop; }
uint64_t zvs_evloop_now(const struct zvs_evloop *l) { return l->now; }
bool zvs_evloop_is_virtual(const struct zvs_evloop *l) { return l->virt; }

uint64_t zvs_evloop_clock(const struct zvs_evloop *l)
{
    return l->virt ? l->now : zvs_clock_now();
}

uint64_t zvs_evloop_wall_us(const struct zvs_evloop *l)
{
    if (!l->virt)
        return zvs_clock_wall_us();
    return l->virt_wall_us + (l->now - l->virt_start) / 1000u;
}

int zvs_evloop_settle(struct zvs_evloop *l)
{
    if (!l->virt)
        return -EINVAL;
    int total = 0;
    for (int i = 0; i < SETTLE_MAX; i++) {
        int rc = zvs_evloop_run_once(l, 0);
        if (rc <= 0)
            return rc < 0 ? rc : total;
        total += rc;
    }
    return -EBUSY;
}

int zvs_evloop_warp(struct zvs_evloop *l, uint64_t until)
{
    if (!l->virt || until < l->now)
        return -EINVAL;
    int total = 0;
    for (;;) {
        uint64_t next = zvs_evloop_next_deadline(l);
        bool last = !next || next > until;
        /* A deadline already past (armed for an earlier instant) fires now. */
        if (last)
            l->now = until;
        else if (next > l->now)
            l->now = next;
        int rc = zvs_evloop_settle(l);
        if (rc < 0)
            return rc;
        total += rc;
        if (last)
            return total;
    }
}

uint64_t zvs_clock_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000u;
}
