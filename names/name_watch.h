/* name_watch: the names a program keeps resolved, on a resolver of resolver.h. This is the
 * interface the layer's users call (today the daemon's RESOLVER WATCH; the IVL domain's
 * peers and VXLAN's remote tunnel endpoints next): watch a name, learn its addresses and
 * every change of them through the table's event function, read its state for QUERY.
 *
 * Each name is looked up when watched, then again when its answer's TTL ends, clamped to
 * [ttl_floor_s, ttl_ceiling_s] (a TTL of 0, as dnsmasq gives local names, must not make us
 * query in a loop). A failed lookup is retried after a backoff that doubles from
 * backoff_first_ms up to backoff_max_ms, and the failure is kept as the name's last error.
 *
 * States:
 *   resolving  watched, no answer yet
 *   resolved   the last lookup answered with usable addresses
 *   retrying   the last lookup failed for a reason that may pass (timeout, SERVFAIL, no
 *              server, a bad or oversized answer): the last good addresses stay in use
 *   failed     the server said the name has no address (NXDOMAIN, no A/AAAA): the
 *              addresses are dropped (a change); still retried with backoff
 * An address literal is resolved at once and never looked up.
 *
 * At most max_in_flight lookups run at once; due names beyond it wait, earliest due first
 * (a flood of hundreds of peers does not become hundreds of queries at one instant).
 *
 * Time comes in as `now` (ns on the owner's clock); the owner calls zvs_names_run at
 * zvs_names_next_wakeup and passes the resolver's descriptors' readiness to the resolver.
 * One thread. Libc only (the resolver behind it may be c-ares).
 */
#ifndef ZVS_NAME_WATCH_H
#define ZVS_NAME_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "names/name_syntax.h"
#include "names/resolver.h"

#define ZVS_NAMES_MAX 512               /* watched names per table */

enum zvs_name_state {
    ZVS_NAME_RESOLVING,
    ZVS_NAME_RESOLVED,
    ZVS_NAME_RETRYING,
    ZVS_NAME_FAILED,
};

const char *zvs_name_state_text(enum zvs_name_state s);  /* "resolved", ... */

struct zvs_name {
    char                name[ZVS_HOSTNAME_MAX + 1];   /* lower case, no trailing dot */
    bool                used;
    bool                literal;        /* an address literal: never looked up */
    bool                in_flight;      /* a lookup is running */
    uint32_t            gen;            /* answers of an older watch of the slot are stale */
    enum zvs_name_state state;
    unsigned            naddr;          /* the addresses in use (kept while retrying) */
    struct zvs_res_addr addr[ZVS_RES_MAX_ADDRS];
    uint32_t            ttl_s;          /* as the last good answer gave it */
    uint64_t            due;            /* the next lookup (0 while one is in flight) */
    unsigned            failures;       /* consecutive */
    enum zvs_res_status last_error;     /* ZVS_RES_OK: none yet */
    uint64_t            lookups, nfailed, changes;
    void               *user;           /* the watcher's */
};

enum zvs_name_event {
    ZVS_NAME_EV_CHANGED,                /* its addresses changed (first answer included) */
    ZVS_NAME_EV_FAILING,                /* the first failure after an answer or a watch */
    ZVS_NAME_EV_RECOVERED,              /* an answer after failures, addresses unchanged */
};

/* Events of the table (the name as it is now; `old` the addresses before a change). */
typedef void (*zvs_name_event_fn)(void *arg, const struct zvs_name *n,
                                  enum zvs_name_event ev, const struct zvs_res_addr *old,
                                  unsigned nold, uint64_t now);

struct zvs_names_params {
    uint32_t           ttl_floor_s;     /* 0: 5 */
    uint32_t           ttl_ceiling_s;   /* 0: 3600 */
    uint32_t           backoff_first_ms;/* 0: 1000 */
    uint32_t           backoff_max_ms;  /* 0: 60000 */
    unsigned           max_in_flight;   /* 0: 16 */
    enum zvs_res_order order;
    zvs_name_event_fn  event;           /* may be NULL */
    void              *arg;
};

/* Counted over the table's life (QUERY RESOLVER, the counters report). */
struct zvs_names_counters {
    uint64_t lookups;                   /* queries started */
    uint64_t failures;                  /* lookups that failed */
    uint64_t changes;                   /* address changes told */
    uint64_t bad_answers;               /* failures for a truncated, malformed, oversized or
                                           address-less answer (part of failures) */
    uint64_t deferred;                  /* due lookups held back by max_in_flight */
    unsigned in_flight;
    unsigned watched;
};

struct zvs_names;

struct zvs_names *zvs_names_create(const struct zvs_names_params *p);
/* Every lookup in flight is cancelled (the resolver destroyed); nothing is told. */
void zvs_names_destroy(struct zvs_names *t);
/* The resolver the table asks, made with done = zvs_names_answer and arg = the table; the
 * table owns it. A previous one is destroyed, and the names it was looking up are looked
 * up again at once on the new one. */
void zvs_names_set_resolver(struct zvs_names *t, struct zvs_resolver *r, uint64_t now);
struct zvs_resolver *zvs_names_resolver(struct zvs_names *t);
/* The resolver's done function (arg: the table). */
void zvs_names_answer(void *arg, uint64_t token, const struct zvs_res_answer *a, uint64_t now);
void zvs_names_set_order(struct zvs_names *t, enum zvs_res_order order);

/* Watches `name` (zvs_hostname_check's syntax; kept canonical): looked up at the next run.
 * 0, -EINVAL (bad name), -EEXIST (watched already), -ENOSPC (ZVS_NAMES_MAX). */
int  zvs_names_watch(struct zvs_names *t, const char *name, void *user, uint64_t now);
/* 0 or -ENOENT. An answer still in flight for it is ignored when it comes. */
int  zvs_names_unwatch(struct zvs_names *t, const char *name);
const struct zvs_name *zvs_names_find(const struct zvs_names *t, const char *name);
/* Slots 0..zvs_names_slots()-1; unused ones have used false. */
unsigned zvs_names_slots(const struct zvs_names *t);
const struct zvs_name *zvs_names_slot(const struct zvs_names *t, unsigned i);

/* Due work at now: the resolver's, then the lookups that are due (within the bound). */
void zvs_names_run(struct zvs_names *t, uint64_t now);
/* The earliest instant run has work, 0 when none. */
uint64_t zvs_names_next_wakeup(struct zvs_names *t, uint64_t now);
void zvs_names_counters(const struct zvs_names *t, struct zvs_names_counters *out);
/* Seconds until the name's next lookup (its TTL or backoff left), 0 when due or running. */
uint32_t zvs_name_seconds_left(const struct zvs_name *n, uint64_t now);

#endif
