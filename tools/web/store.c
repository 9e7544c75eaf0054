/* perfkit serve's record store and the thread that fills it (store.h). */
#include "tools/web/store.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define FOLLOW_POLL_MS 200              /* a file that stopped growing is looked at again */
#define LIVE_TICK_MS   250              /* a live read returns this often to see *stop */
#define RECONNECT_MS   1000             /* a live stream that ended is tried again */

int store_init(struct store *st)
{
    memset(st, 0, sizeof(*st));
    return -pthread_mutex_init(&st->lock, NULL);
}

void store_destroy(struct store *st)
{
    for (unsigned i = 0; i < st->n; i++)
        free(st->s[i].rec);
    free(st->s);
    free(st->ev);
    pthread_mutex_destroy(&st->lock);
}

static int add_sample(struct store *st, const struct zvs_mon_group *g)
{
    if (st->max_samples && st->n == st->max_samples) {      /* the oldest goes */
        free(st->s[0].rec);
        memmove(st->s, st->s + 1, (st->n - 1) * sizeof(*st->s));
        st->n--;
    }
    if (st->n == st->cap) {
        unsigned cap = st->cap ? st->cap * 2 : 64;
        struct store_sample *s = realloc(st->s, cap * sizeof(*s));
        if (!s)
            return -ENOMEM;
        st->s = s;
        st->cap = cap;
    }
    struct store_sample *s = &st->s[st->n];
    s->rec = malloc((g->nrec ? g->nrec : 1) * sizeof(*s->rec));
    if (!s->rec)
        return -ENOMEM;
    if (g->nrec)
        memcpy(s->rec, g->rec, g->nrec * sizeof(*s->rec));
    s->nrec = g->nrec;
    s->tod = g->tod;
    st->n++;
    if (st->on_sample)
        st->on_sample(st->on_sample_arg, st, st->n > 1 ? &st->s[st->n - 2] : NULL, s);
    return 0;
}

static int add_events(struct store *st, const struct zvs_mon_group *g)
{
    unsigned n = g->nrec;
    if (st->max_events && n > st->max_events - st->nev)
        n = st->max_events - st->nev;   /* past the bound, events are no longer kept */
    if (n > st->evcap - st->nev) {
        unsigned cap = st->evcap ? st->evcap : 64;
        while (cap - st->nev < n)
            cap *= 2;
        struct zvs_mon_record *p = realloc(st->ev, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        st->ev = p;
        st->evcap = cap;
    }
    if (n)
        memcpy(st->ev + st->nev, g->rec, n * sizeof(*g->rec));
    st->nev += n;
    return 0;
}

int store_add(struct store *st, const struct zvs_mon_group *g)
{
    pthread_mutex_lock(&st->lock);
    if (g->system[0])
        memcpy(st->system, g->system, sizeof(st->system));
    int rc = g->sample ? add_sample(st, g) : add_events(st, g);
    pthread_mutex_unlock(&st->lock);
    return rc;
}

void store_add_error(struct store *st, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&st->lock);
    va_start(ap, fmt);
    vsnprintf(st->errors[st->nerrors % STORE_MAX_ERRORS], sizeof(st->errors[0]), fmt, ap);
    va_end(ap);
    st->nerrors++;
    pthread_mutex_unlock(&st->lock);
}

void store_interval(const struct store *st, unsigned i, struct zvs_scr_sample *a,
                    struct zvs_scr_sample *b)
{
    *a = (struct zvs_scr_sample){ st->s[i - 1].tod, st->s[i - 1].rec, st->s[i - 1].nrec };
    *b = (struct zvs_scr_sample){ st->s[i].tod, st->s[i].rec, st->s[i].nrec };
}

static long sod(uint64_t tod)
{
    return (long)(zvs_scr_tod_unix_s(tod) % 86400);
}

unsigned store_find_time(const struct store *st, long t)
{
    for (unsigned i = 1; i < st->n; i++) {
        long a = sod(st->s[i - 1].tod), z = sod(st->s[i].tod);
        bool in = a < z ? (a < t && t <= z) : (t > a || t <= z);   /* across midnight */
        if (in)
            return i;
    }
    return 0;
}

double store_interval_s(const struct store *st)
{
    return st->n < 2 ? 0.0 : zvs_scr_seconds(st->s[st->n - 2].tod, st->s[st->n - 1].tod);
}

static int connect_live(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    return fd;
}

static void nap_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int store_open(struct store_source *src)
{
    int err = 0;
    src->fd = -1;
    if (src->live) {
        src->fd = connect_live(src->live);
        if (src->fd < 0)
            return src->fd;
        /* reads wake up to look at *stop (the reader answers -EAGAIN, nothing lost) */
        struct timeval tv = { 0, LIVE_TICK_MS * 1000 };
        setsockopt(src->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        src->rd = zvs_mon_reader_fdopen(src->fd, &err);
    } else {
        src->rd = zvs_mon_reader_open(src->file, &err);
    }
    if (!src->rd) {
        if (src->fd >= 0)
            close(src->fd);
        src->fd = -1;
        return err ? err : -ENOMEM;
    }
    return 0;
}

static void close_source(struct store_source *src)
{
    zvs_mon_reader_close(src->rd);
    src->rd = NULL;
    if (src->fd >= 0)
        close(src->fd);
    src->fd = -1;
}

static void set_ended(struct store *st, bool ended)
{
    pthread_mutex_lock(&st->lock);
    st->ended = ended;
    pthread_mutex_unlock(&st->lock);
}

/* The live stream ended (vswitchd stopped, restarted, or dropped a reader that fell
 * behind): connect again every RECONNECT_MS until it is back or *stop. */
static void reconnect(struct store *st, struct store_source *src)
{
    close_source(src);
    set_ended(st, true);
    while (!*src->stop) {
        nap_ms(RECONNECT_MS);
        if (!*src->stop && store_open(src) == 0) {
            set_ended(st, false);
            return;
        }
    }
}

void store_follow(struct store *st, struct store_source *src)
{
    while (!*src->stop && src->rd) {
        struct zvs_mon_group g;
        struct zvs_mon_read_error e;
        memset(&e, 0, sizeof(e));
        int rc = zvs_mon_reader_next(src->rd, &g, &e);
        if (rc > 0) {
            if (store_add(st, &g) < 0)
                store_add_error(st, "out of memory: group at offset %llu not kept",
                                (unsigned long long)g.offset);
            continue;
        }
        if (rc == -EAGAIN)              /* a live read's tick: nothing yet */
            continue;
        if (rc < 0 && !*src->stop) {
            store_add_error(st, "offset %llu, record %d: %s", (unsigned long long)e.offset,
                            e.record, e.what[0] ? e.what : strerror(-rc));
            if (rc != -EPROTONOSUPPORT && rc != -ENODATA)
                continue;
        }
        if (src->live)
            reconnect(st, src);
        else
            nap_ms(FOLLOW_POLL_MS);     /* the file may grow: a clean end is not final */
    }
    close_source(src);
}
