/* The sample groups and events read from a monitor file or vswitchd's live stream
 * (--monitor-live), and the damaged groups' errors: what perfkit's screens are made from,
 * on the terminal and in perfkit serve. In perfkit serve one thread follows the source
 * (store_follow) and the HTTP threads read under the store's lock, so a page is always
 * made from whole groups.
 *
 * Hazard: everything read is kept unless max_samples / max_events bound it (perfkit serve:
 * STORE_MAX_*; a day at a 60 s interval is 1440 groups); past max_samples the oldest
 * sample goes, and interval numbers shift with it.
 */
#ifndef ZVS_WEB_STORE_H
#define ZVS_WEB_STORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "monitor/monfile.h"
#include "monitor/screens.h"

#define STORE_MAX_SAMPLES 20000u
#define STORE_MAX_EVENTS  100000u
#define STORE_MAX_ERRORS  256u

struct store_sample {
    uint64_t tod;
    unsigned nrec;
    struct zvs_mon_record *rec;
};

struct store {
    pthread_mutex_t lock;
    unsigned max_samples, max_events;   /* 0: no bound */
    struct store_sample *s;
    unsigned n, cap;
    struct zvs_mon_record *ev;          /* every event record, in stream order */
    unsigned nev, evcap;
    char     errors[STORE_MAX_ERRORS][200];     /* "offset N, record R: what", the last ones */
    unsigned nerrors;                   /* all reported (errors[] keeps the last ones) */
    char     system[9];                 /* from the last control record that named it */
    bool     ended;                     /* the live stream is gone (being reconnected) */
    /* Called under the lock for every new sample, with the one before (NULL: the first):
     * the metrics' cumulative counters. */
    void   (*on_sample)(void *arg, const struct store *st, const struct store_sample *prev,
                        const struct store_sample *cur);
    void    *on_sample_arg;
};

int  store_init(struct store *st);
void store_destroy(struct store *st);
/* Adds one group (a sample or events) and takes the system's name; 0 or -ENOMEM. Takes
 * the lock. */
int  store_add(struct store *st, const struct zvs_mon_group *g);
void store_add_error(struct store *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The interval i (1..n-1) as the screens see it: a = sample i-1, b = sample i. Lock held. */
void store_interval(const struct store *st, unsigned i, struct zvs_scr_sample *a,
                    struct zvs_scr_sample *b);
/* The interval containing time of day t (seconds, UTC; start < t <= end), 0 if none. */
unsigned store_find_time(const struct store *st, long t);
/* The last interval's length in seconds (the monitor interval), 0 before two samples. */
double store_interval_s(const struct store *st);

/* Where the records come from. */
struct store_source {
    const char *file;                   /* a monitor file, followed as it grows */
    const char *live;                   /* vswitchd's --monitor-live socket */
    volatile int *stop;                 /* set to leave store_follow */
    struct zvs_mon_reader *rd;          /* store_open's */
    int fd;                             /* the live stream's socket, -1 for a file */
};
/* Opens the source (src->rd, src->fd): 0 or -errno. */
int store_open(struct store_source *src);
/* Reads the source into st until *stop (a live read looks at it every 250 ms) and closes
 * it. A live stream that ends (vswitchd stopped or restarted) is connected again every
 * second, st->ended set meanwhile; its counters going back to zero are a reset to the
 * screens and growth to /metrics (metrics.h). */
void store_follow(struct store *st, struct store_source *src);

#endif
