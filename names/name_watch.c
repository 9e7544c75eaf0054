/* The watched names (name_watch.h): when each is looked up, what its answer does to it,
 * and the bound on lookups in flight.
 *
 * A lookup's token is the slot index and the slot's generation, so an answer for a name
 * that was unwatched (or unwatched and watched again) while its lookup ran is counted and
 * dropped. Addresses are compared as sets: a server that rotates its records is not a
 * change. */
#include "names/name_watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S  1000000000ull
#define NS_PER_MS 1000000ull

struct zvs_names {
    struct zvs_names_params   p;
    struct zvs_resolver      *res;
    bool                      swapping; /* set_resolver: cancelled answers are re-asked */
    unsigned                  nslot;    /* slots ever used */
    struct zvs_name           slot[ZVS_NAMES_MAX];
    struct zvs_names_counters c;
    uint64_t                  last_deferred_at;  /* counted once per instant */
};

static const char *const state_text[] = {
    [ZVS_NAME_RESOLVING] = "resolving",
    [ZVS_NAME_RESOLVED]  = "resolved",
    [ZVS_NAME_RETRYING]  = "retrying",
    [ZVS_NAME_FAILED]    = "failed",
};

const char *zvs_name_state_text(enum zvs_name_state s)
{
    return (unsigned)s < sizeof state_text / sizeof state_text[0] ? state_text[s] : "?";
}

struct zvs_names *zvs_names_create(const struct zvs_names_params *p)
{
    struct zvs_names *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->p = *p;
    if (!t->p.ttl_floor_s)
        t->p.ttl_floor_s = 5;
    if (!t->p.ttl_ceiling_s)
        t->p.ttl_ceiling_s = 3600;
    if (t->p.ttl_ceiling_s < t->p.ttl_floor_s)
        t->p.ttl_ceiling_s = t->p.ttl_floor_s;
    if (!t->p.backoff_first_ms)
        t->p.backoff_first_ms = 1000;
    if (!t->p.backoff_max_ms)
        t->p.backoff_max_ms = 60000;
    if (t->p.backoff_max_ms < t->p.backoff_first_ms)
        t->p.backoff_max_ms = t->p.backoff_first_ms;
    if (!t->p.max_in_flight)
        t->p.max_in_flight = 16;
    return t;
}

void zvs_names_destroy(struct zvs_names *t)
{
    if (!t)
        return;
    t->p.event = NULL;                  /* nothing is told from here on */
    struct zvs_resolver *r = t->res;
    t->res = NULL;
    zvs_resolver_destroy(r);
    free(t);
}

void zvs_names_set_resolver(struct zvs_names *t, struct zvs_resolver *r, uint64_t now)
{
    struct zvs_resolver *old = t->res;
    t->res = r;
    if (old) {
        t->swapping = true;
        zvs_resolver_destroy(old);      /* its lookups come back cancelled: asked again */
        t->swapping = false;
    }
}

struct zvs_resolver *zvs_names_resolver(struct zvs_names *t)
{
    return t->res;
}

void zvs_names_set_order(struct zvs_names *t, enum zvs_res_order order)
{
    t->p.order = order;
}

static struct zvs_name *find(struct zvs_names *t, const char *canon)
{
    for (unsigned i = 0; i < t->nslot; i++)
        if (t->slot[i].used && strcmp(t->slot[i].name, canon) == 0)
            return &t->slot[i];
    return NULL;
}

const struct zvs_name *zvs_names_find(const struct zvs_names *t, const char *name)
{
    char canon[ZVS_HOSTNAME_MAX + 1];
    if (zvs_hostname_check(name, strlen(name), canon) != ZVS_HOSTNAME_OK)
        return NULL;
    return find((struct zvs_names *)t, canon);
}

unsigned zvs_names_slots(const struct zvs_names *t)
{
    return t->nslot;
}

const struct zvs_name *zvs_names_slot(const struct zvs_names *t, unsigned i)
{
    return i < t->nslot ? &t->slot[i] : NULL;
}

static void tell(struct zvs_names *t, const struct zvs_name *n, enum zvs_name_event ev,
                 const struct zvs_res_addr *old, unsigned nold, uint64_t now)
{
    if (t->p.event)
        t->p.event(t->p.arg, n, ev, old, nold, now);
}

int zvs_names_watch(struct zvs_names *t, const char *name, void *user, uint64_t now)
{
    char canon[ZVS_HOSTNAME_MAX + 1];
    if (zvs_hostname_check(name, strlen(name), canon) != ZVS_HOSTNAME_OK)
        return -EINVAL;
    if (find(t, canon))
        return -EEXIST;
    struct zvs_name *n = NULL;
    for (unsigned i = 0; i < t->nslot && !n; i++)
        if (!t->slot[i].used && !t->slot[i].in_flight)
            n = &t->slot[i];
    if (!n) {
        if (t->nslot == ZVS_NAMES_MAX)
            return -ENOSPC;
        n = &t->slot[t->nslot++];
    }
    uint32_t gen = n->gen + 1;
    memset(n, 0, sizeof *n);
    n->gen = gen;
    n->used = true;
    n->user = user;
    snprintf(n->name, sizeof n->name, "%s", canon);
    struct zvs_res_addr lit;
    if (zvs_res_addr_parse(canon, &lit)) {
        n->literal = true;
        n->state = ZVS_NAME_RESOLVED;
        n->naddr = 1;
        n->addr[0] = lit;
        t->c.changes++;
        n->changes++;
        tell(t, n, ZVS_NAME_EV_CHANGED, NULL, 0, now);
        return 0;
    }
    n->state = ZVS_NAME_RESOLVING;
    n->due = now ? now : 1;
    return 0;
}

int zvs_names_unwatch(struct zvs_names *t, const char *name)
{
    char canon[ZVS_HOSTNAME_MAX + 1];
    if (zvs_hostname_check(name, strlen(name), canon) != ZVS_HOSTNAME_OK)
        return -ENOENT;
    struct zvs_name *n = find(t, canon);
    if (!n)
        return -ENOENT;
    n->used = false;                    /* in_flight stays: the slot waits for its answer */
    n->gen++;
    n->due = 0;
    return 0;
}

static bool same_set(const struct zvs_res_addr *a, unsigned na,
                     const struct zvs_res_addr *b, unsigned nb)
{
    if (na != nb)
        return false;
    for (unsigned i = 0; i < na; i++) {
        bool found = false;
        for (unsigned j = 0; j < nb && !found; j++)
            found = zvs_res_addr_equal(&a[i], &b[j]);
        if (!found)
            return false;
    }
    return true;
}

static uint64_t backoff_ns(const struct zvs_names *t, unsigned failures)
{
    uint64_t ms = t->p.backoff_first_ms;
    for (unsigned i = 1; i < failures && ms < t->p.backoff_max_ms; i++)
        ms *= 2;
    if (ms > t->p.backoff_max_ms)
        ms = t->p.backoff_max_ms;
    return ms * NS_PER_MS;
}

static bool definitive(enum zvs_res_status s)
{
    return s == ZVS_RES_NXDOMAIN || s == ZVS_RES_NODATA;
}

static void answered(struct zvs_names *t, struct zvs_name *n, const struct zvs_res_answer *a,
                     uint64_t now)
{
    struct zvs_res_addr old[ZVS_RES_MAX_ADDRS];
    unsigned nold = n->naddr;
    memcpy(old, n->addr, nold * sizeof old[0]);
    bool was_failing = n->failures > 0;

    if (a->status == ZVS_RES_OK) {
        uint32_t ttl = a->ttl_s;
        if (ttl < t->p.ttl_floor_s)
            ttl = t->p.ttl_floor_s;
        if (ttl > t->p.ttl_ceiling_s)
            ttl = t->p.ttl_ceiling_s;
        n->ttl_s = a->ttl_s;
        n->due = now + ttl * NS_PER_S;
        n->failures = 0;
        n->state = ZVS_NAME_RESOLVED;
        n->naddr = a->naddr;
        memcpy(n->addr, a->addr, a->naddr * sizeof a->addr[0]);
        if (!same_set(old, nold, n->addr, n->naddr)) {
            t->c.changes++;
            n->changes++;
            tell(t, n, ZVS_NAME_EV_CHANGED, old, nold, now);
        } else if (was_failing) {
            tell(t, n, ZVS_NAME_EV_RECOVERED, old, nold, now);
        }
        return;
    }
    t->c.failures++;
    n->nfailed++;
    if (a->status == ZVS_RES_BADANSWER || a->status == ZVS_RES_OVERSIZED ||
        a->status == ZVS_RES_NODATA)
        t->c.bad_answers++;
    n->failures++;
    n->last_error = a->status;
    n->due = now + backoff_ns(t, n->failures);
    if (definitive(a->status)) {
        n->state = ZVS_NAME_FAILED;
        n->naddr = 0;
    } else {
        n->state = ZVS_NAME_RETRYING;
    }
    if (!was_failing)
        tell(t, n, ZVS_NAME_EV_FAILING, old, nold, now);
    if (nold && !n->naddr) {
        t->c.changes++;
        n->changes++;
        tell(t, n, ZVS_NAME_EV_CHANGED, old, nold, now);
    }
}

void zvs_names_answer(void *arg, uint64_t token, const struct zvs_res_answer *a, uint64_t now)
{
    struct zvs_names *t = arg;
    unsigned i = (unsigned)(token >> 32);
    uint32_t gen = (uint32_t)token;
    if (i >= t->nslot)
        return;
    struct zvs_name *n = &t->slot[i];
    if (n->in_flight) {
        n->in_flight = false;
        t->c.in_flight--;
    }
    if (!n->used || n->gen != gen)
        return;                         /* unwatched while it ran */
    if (a->status == ZVS_RES_CANCELLED) {
        /* A resolver replaced: due at once on the new one (1 is before any `now`); a
         * table being destroyed asks nothing again. */
        n->due = t->swapping ? 1 : 0;
        return;
    }
    answered(t, n, a, now);
}

/* The idle name due first by now, NULL when none. */
static struct zvs_name *next_due(struct zvs_names *t, uint64_t now)
{
    struct zvs_name *best = NULL;
    for (unsigned i = 0; i < t->nslot; i++) {
        struct zvs_name *n = &t->slot[i];
        if (n->used && !n->in_flight && n->due && n->due <= now &&
            (!best || n->due < best->due))
            best = n;
    }
    return best;
}

void zvs_names_run(struct zvs_names *t, uint64_t now)
{
    if (!t->res)
        return;
    zvs_resolver_run(t->res, now);
    struct zvs_name *n;
    while ((n = next_due(t, now))) {
        if (t->c.in_flight >= t->p.max_in_flight) {
            if (t->last_deferred_at != now)
                t->c.deferred++;
            t->last_deferred_at = now;
            break;
        }
        unsigned i = (unsigned)(n - t->slot);
        n->in_flight = true;
        n->due = 0;
        t->c.in_flight++;
        t->c.lookups++;
        n->lookups++;
        uint64_t token = (uint64_t)i << 32 | n->gen;
        int e = zvs_resolver_query(t->res, n->name, t->p.order, token, now);
        if (e < 0) {                    /* never started: a failure, retried with backoff */
            n->in_flight = false;
            t->c.in_flight--;
            struct zvs_res_answer a = {
                .status = e == -ENOMEM ? ZVS_RES_NOMEM : ZVS_RES_NOSERVER };
            answered(t, n, &a, now);
        }
    }
}

uint64_t zvs_names_next_wakeup(struct zvs_names *t, uint64_t now)
{
    if (!t->res)
        return 0;
    uint64_t best = zvs_resolver_next_wakeup(t->res, now);
    if (t->c.in_flight >= t->p.max_in_flight)
        return best;                    /* due names wait for an answer */
    for (unsigned i = 0; i < t->nslot; i++) {
        const struct zvs_name *n = &t->slot[i];
        if (n->used && !n->in_flight && n->due && (!best || n->due < best))
            best = n->due;
    }
    return best;
}

void zvs_names_counters(const struct zvs_names *t, struct zvs_names_counters *out)
{
    *out = t->c;
    out->watched = 0;
    for (unsigned i = 0; i < t->nslot; i++)
        out->watched += t->slot[i].used;
}

uint32_t zvs_name_seconds_left(const struct zvs_name *n, uint64_t now)
{
    if (!n->due || n->due <= now)
        return 0;
    return (uint32_t)((n->due - now + NS_PER_S - 1) / NS_PER_S);
}
