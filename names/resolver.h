/* resolver: one asynchronous name lookup at a time per query, behind an interface of ours
 * with two implementations:
 *
 *   resolver_ares.c  c-ares (libc-ares) on the owner's event loop: its sockets reach the
 *                    owner through the host's watch/unwatch, its timeouts as a deadline
 *                    (next_wakeup) the owner's timer turns into a call of run
 *   resolver_mem.c   an in-memory table the tests fill: answers (or failures) come at an
 *                    instant of the owner's clock, so hermetic tests stay on virtual time
 *
 * A query is started with zvs_resolver_query and ends with exactly one call of the done
 * function given at creation, carrying the query's token: later (from fd_ready or run),
 * or at once from inside zvs_resolver_query when the implementation knows the answer
 * without waiting (c-ares does for some errors). Nothing here keeps names, TTLs or
 * retries: that is name_watch.c's, the layer's user-facing half.
 *
 * Time comes in as an argument (`now`, nanoseconds on the owner's clock), as lacp/'s
 * engines take it. c-ares reads the clock itself; what it decides with it reaches the owner
 * only as next_wakeup, so tests never depend on it.
 *
 * Rules: one thread (the owner's event loop). Free of the daemon: libc and c-ares only.
 */
#ifndef ZVS_RESOLVER_H
#define ZVS_RESOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZVS_RES_MAX_ADDRS   8           /* addresses kept per answer; more: "oversized" */
#define ZVS_RES_ADDR_STR    46          /* INET6_ADDRSTRLEN */

/* Why a lookup failed (ZVS_RES_OK: it did not). */
enum zvs_res_status {
    ZVS_RES_OK,
    ZVS_RES_NXDOMAIN,                   /* the name does not exist */
    ZVS_RES_NODATA,                     /* the name exists, no A/AAAA we can use */
    ZVS_RES_TIMEOUT,                    /* no server answered in time */
    ZVS_RES_SERVFAIL,                   /* the server failed or refused */
    ZVS_RES_NOSERVER,                   /* no server to ask (none configured, unreachable) */
    ZVS_RES_BADANSWER,                  /* truncated, malformed or unparseable answer */
    ZVS_RES_OVERSIZED,                  /* more than ZVS_RES_MAX_ADDRS addresses */
    ZVS_RES_NOMEM,
    ZVS_RES_CANCELLED,                  /* the resolver was destroyed with it in flight */
    ZVS_RES_NSTATUS
};

/* "NXDOMAIN", "timeout", ... (QUERY RESOLVER's words). */
const char *zvs_res_status_name(enum zvs_res_status s);

/* Which address families a query asks for, in the order they are used. */
enum zvs_res_order {
    ZVS_RES_ORDER_V4_V6,                /* A and AAAA, IPv4 first (default) */
    ZVS_RES_ORDER_V6_V4,                /* A and AAAA, IPv6 first */
    ZVS_RES_ORDER_V4,                   /* A only */
    ZVS_RES_ORDER_V6,                   /* AAAA only */
};

struct zvs_res_addr {
    int     family;                     /* AF_INET or AF_INET6 */
    uint8_t bytes[16];                  /* network order; 4 used for AF_INET */
};

struct zvs_res_answer {
    enum zvs_res_status status;
    uint32_t            ttl_s;          /* the smallest TTL of the records used */
    unsigned            naddr;          /* 0 unless status is ZVS_RES_OK */
    struct zvs_res_addr addr[ZVS_RES_MAX_ADDRS];
};

/* The owner's side: c-ares' sockets on its event loop. */
struct zvs_res_host {
    /* Watch fd for reading (and writing when `write`): call zvs_resolver_fd_ready when it
     * is ready. Called again for an fd already watched when the interest changes. 0 or
     * -errno. */
    int  (*watch)(void *arg, int fd, bool write);
    /* Stop watching fd, before it is closed. */
    void (*unwatch)(void *arg, int fd);
    void *arg;
};

/* A query ended (exactly once per query, token as given). */
typedef void (*zvs_res_done_fn)(void *arg, uint64_t token, const struct zvs_res_answer *a,
                                uint64_t now);

struct zvs_resolver;

/* What every implementation provides (the constant table behind a resolver). */
struct zvs_resolver_ops {
    int      (*query)(struct zvs_resolver *r, const char *name, enum zvs_res_order order,
                      uint64_t token, uint64_t now);
    void     (*fd_ready)(struct zvs_resolver *r, int fd, bool readable, bool writable,
                         uint64_t now);
    void     (*run)(struct zvs_resolver *r, uint64_t now);
    uint64_t (*next_wakeup)(struct zvs_resolver *r, uint64_t now);
    /* Where it asks, in QUERY RESOLVER's words ("192.0.2.1:5353,[2001:db8::1]:53"). */
    void     (*servers)(struct zvs_resolver *r, char *buf, size_t len);
    void     (*destroy)(struct zvs_resolver *r);
};

/* The base of every implementation's state (its first member). */
struct zvs_resolver {
    const struct zvs_resolver_ops *ops;
    zvs_res_done_fn                done;
    void                          *done_arg;
};

/* Starts a lookup of `name` (a host name zvs_hostname_check accepted, or an address
 * literal). 0 (done follows, perhaps before this returns) or -errno (done never follows). */
int  zvs_resolver_query(struct zvs_resolver *r, const char *name, enum zvs_res_order order,
                        uint64_t token, uint64_t now);
/* A descriptor the host watches is ready. */
void zvs_resolver_fd_ready(struct zvs_resolver *r, int fd, bool readable, bool writable,
                           uint64_t now);
/* Due work at `now` (timeouts, the in-memory answers whose instant came). */
void zvs_resolver_run(struct zvs_resolver *r, uint64_t now);
/* The earliest instant run has work, 0 when none. */
uint64_t zvs_resolver_next_wakeup(struct zvs_resolver *r, uint64_t now);
void zvs_resolver_servers(struct zvs_resolver *r, char *buf, size_t len);
/* Every query in flight ends with ZVS_RES_CANCELLED, then the resolver is freed. */
void zvs_resolver_destroy(struct zvs_resolver *r);

/* Address text ("192.0.2.1", "2001:db8::1") into buf (ZVS_RES_ADDR_STR bytes). */
void zvs_res_addr_format(const struct zvs_res_addr *a, char *buf, size_t len);
/* An address literal: true with *out. */
bool zvs_res_addr_parse(const char *s, struct zvs_res_addr *out);
bool zvs_res_addr_equal(const struct zvs_res_addr *a, const struct zvs_res_addr *b);
/* A DNS server as configuration gives it: "192.0.2.1", "192.0.2.1:5353", "2001:db8::1",
 * "[2001:db8::1]:5353" (port 1-65535, default 53). Its canonical form, the one c-ares'
 * ares_set_servers_ports_csv takes ("192.0.2.1:53", "[2001:db8::1]:53"), goes to canon
 * (ZVS_RES_SERVER_STR bytes). True when valid. */
#define ZVS_RES_SERVER_STR  (ZVS_RES_ADDR_STR + 8)
bool zvs_res_server_parse(const char *s, char *canon, size_t len);

/* Orders an answer's addresses by `order` (stable within a family) and drops the family a
 * single-family order does not ask for. */
void zvs_res_answer_order(struct zvs_res_answer *a, enum zvs_res_order order);

#endif
