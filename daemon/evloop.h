/* The event loop: epoll for file descriptors, one timerfd for every timer.
 *
 * This is the only place in zvswitch that reads the clock. Each iteration reads
 * CLOCK_MONOTONIC once, after epoll_wait returns, and hands that `now` (nanoseconds) to
 * every callback it runs, so engines (LACP, rebalancer, monitor sampler, MAC aging) see
 * one consistent time per iteration and tests can drive them with virtual time instead.
 * Timers are absolute deadlines; the timerfd is armed for the earliest one.
 */
#ifndef ZVS_EVLOOP_H
#define ZVS_EVLOOP_H

#include <stdbool.h>
#include <stdint.h>

struct zvs_evloop;
struct zvs_timer;

typedef void (*zvs_fd_fn)(void *arg, int fd, uint32_t events, uint64_t now);
typedef void (*zvs_timer_fn)(void *arg, struct zvs_timer *t, uint64_t now);
typedef void (*zvs_idle_fn)(void *arg, uint64_t now);

struct zvs_evloop *zvs_evloop_create(void);
void zvs_evloop_destroy(struct zvs_evloop *loop);

/* Watch fd for EPOLLIN/EPOLLOUT (level triggered). */
int zvs_evloop_add_fd(struct zvs_evloop *loop, int fd, uint32_t events, zvs_fd_fn fn, void *arg);
int zvs_evloop_mod_fd(struct zvs_evloop *loop, int fd, uint32_t events);
int zvs_evloop_del_fd(struct zvs_evloop *loop, int fd);

/* Timers: create disarmed; arm at an absolute CLOCK_MONOTONIC deadline in ns. */
struct zvs_timer *zvs_timer_create(struct zvs_evloop *loop, zvs_timer_fn fn, void *arg);
void zvs_timer_arm(struct zvs_timer *t, uint64_t deadline_ns);
void zvs_timer_disarm(struct zvs_timer *t);
void zvs_timer_destroy(struct zvs_timer *t);

/* Run fn at the end of every iteration (after all fd and timer callbacks). */
int zvs_evloop_add_idle(struct zvs_evloop *loop, zvs_idle_fn fn, void *arg);

/* One iteration: wait at most timeout_ms (-1: until something happens). Returns the
 * number of callbacks run, or -errno. */
int zvs_evloop_run_once(struct zvs_evloop *loop, int timeout_ms);
/* Iterate until zvs_evloop_stop. */
int zvs_evloop_run(struct zvs_evloop *loop);
void zvs_evloop_stop(struct zvs_evloop *loop);
bool zvs_evloop_stopped(const struct zvs_evloop *loop);

/* The `now` of the current (or last) iteration. */
uint64_t zvs_evloop_now(const struct zvs_evloop *loop);
/* Read CLOCK_MONOTONIC (for the loop itself and for program start-up only). */
uint64_t zvs_clock_now(void);
/* Wall clock (CLOCK_REALTIME) in microseconds since 1970: only for stamping records that
 * leave the process (monitor records' TOD), never for deadlines. */
uint64_t zvs_clock_wall_us(void);

#endif
