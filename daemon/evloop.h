/* The event loop: epoll for file descriptors, one timerfd for every timer.
 *
 * This is the only place in the daemon that reads the clock. Each iteration reads its
 * clock after epoll_wait returns and hands that `now` (nanoseconds) to the fd callbacks;
 * when any ran it reads the clock again and hands that later `now` to the timers due by
 * then and to every idle hook, so engines (LACP, rebalancer, monitor sampler, MAC aging)
 * see one consistent time per pass, and a deadline that fell due while the data path's
 * bursts ran is served in the same iteration: after each fd callback the clock is checked
 * against the earliest deadline, and when one is due the timers and idle hooks run there
 * with a `now` read then, which the iteration's remaining fd callbacks get too (every
 * descriptor epoll_wait returned is still served in that iteration).
 * Timers are absolute deadlines; the timerfd is armed for the earliest one.
 *
 * The clock is the loop's: a real loop reads CLOCK_MONOTONIC (and CLOCK_REALTIME for
 * stamps that leave the process); a virtual loop (zvs_evloop_create_virtual) has a time
 * only zvs_evloop_warp moves. A virtual loop never sleeps: epoll_wait polls with timeout
 * 0 and timers are due when the virtual time reaches them, so a test runs 90 s of LACP in
 * milliseconds with every timer fired at its exact deadline, in deadline order. The
 * choice costs one branch per iteration, nothing per frame.
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
/* A loop on virtual time: `now` starts at start_ns (non-zero: 0 means "disarmed" to the
 * timers) and the wall clock at wall_us (microseconds since 1970) for that instant. */
struct zvs_evloop *zvs_evloop_create_virtual(uint64_t start_ns, uint64_t wall_us);
void zvs_evloop_destroy(struct zvs_evloop *loop);

/* Watch fd for EPOLLIN/EPOLLOUT (level triggered). */
int zvs_evloop_add_fd(struct zvs_evloop *loop, int fd, uint32_t events, zvs_fd_fn fn, void *arg);
int zvs_evloop_mod_fd(struct zvs_evloop *loop, int fd, uint32_t events);
/* Call before closing fd: epoll keys a watch on the open file, and a file another process
 * still holds (a child between fork and exec) goes on being reported after close().
 * Returns 0; -ENOENT when fd is not watched (never added, or removed already); -EBADF
 * when fd was already closed: the caller broke the contract (the watch is still freed,
 * after the iteration: keeping it would leave the number taken for the next add). Both
 * errors are counted in zvs_evloop_misuse(). */
int zvs_evloop_del_fd(struct zvs_evloop *loop, int fd);
/* Removes every watch, each while its descriptor is still open: for an owner that is about
 * to close everything it watched (a stop), so no close can come first. */
void zvs_evloop_del_all_fds(struct zvs_evloop *loop);
/* How many descriptors the loop watches and timers it has (armed or not): a caller that
 * undoes what it made (a command's rollback) shows nothing was left behind. */
void zvs_evloop_count(const struct zvs_evloop *loop, unsigned *watches, unsigned *timers);
/* Contract breaches seen by every loop of this process since it started: deletes of an fd
 * not watched or already closed, and watches whose fd was found closed when their loop
 * was destroyed (closed before it was removed). Tests assert it does not move. */
uint64_t zvs_evloop_misuse(void);

/* Timers: create disarmed; arm at an absolute deadline in ns on the loop's clock. */
struct zvs_timer *zvs_timer_create(struct zvs_evloop *loop, zvs_timer_fn fn, void *arg);
void zvs_timer_arm(struct zvs_timer *t, uint64_t deadline_ns);
void zvs_timer_disarm(struct zvs_timer *t);
void zvs_timer_destroy(struct zvs_timer *t);

/* Run fn at the end of every iteration (after all fd and timer callbacks), and also
 * where a deadline that fell due during the fd callbacks is served (after its timers,
 * before the remaining fd callbacks): the work a timer only wakes the loop for (LACP's
 * engines) is as timely as the timer. */
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
/* The loop's clock read outside an iteration (start-up, shutdown): CLOCK_MONOTONIC for a
 * real loop, the virtual time for a virtual one. */
uint64_t zvs_evloop_clock(const struct zvs_evloop *loop);
/* The loop's wall clock in microseconds since 1970, only for stamping records that leave
 * the process (monitor records' TOD), never for deadlines: CLOCK_REALTIME for a real
 * loop; for a virtual one its start wall time plus the virtual time elapsed. */
uint64_t zvs_evloop_wall_us(const struct zvs_evloop *loop);

/* Virtual loops only: move time to `until` (ns), stepping through every armed deadline
 * up to it in order. At each step `now` is the deadline itself, the due timers fire, and
 * iterations run until no fd is ready (what one callback wrote, another reads, all at
 * that instant); the last step is at `until`. Returns the callbacks run, -EINVAL for a
 * real loop or a time in the past, or -errno from an iteration. */
int zvs_evloop_warp(struct zvs_evloop *loop, uint64_t until);
/* Virtual loops only: iterate at the current time until no fd is ready (a settle after a
 * test wrote into the loop's descriptors). Returns the callbacks run or -errno. */
int zvs_evloop_settle(struct zvs_evloop *loop);
bool zvs_evloop_is_virtual(const struct zvs_evloop *loop);
/* The earliest armed deadline, 0 when no timer is armed. */
uint64_t zvs_evloop_next_deadline(const struct zvs_evloop *loop);

/* Read CLOCK_MONOTONIC (the real loop's clock; programs without a loop). */
uint64_t zvs_clock_now(void);
/* CLOCK_REALTIME in microseconds since 1970 (the real loop's wall clock). */
uint64_t zvs_clock_wall_us(void);

#endif
