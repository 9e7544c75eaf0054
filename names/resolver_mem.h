/* The in-memory resolver: a table of names the test sets, answered at an instant of the
 * owner's clock (the query's `now` plus the table's delay), so a hermetic test on virtual
 * time sees every answer at an exact instant. A name not in the table is NXDOMAIN; a name
 * set to fail answers with that status; while the table is "down" every query times out
 * (after the timeout given, as a server that does not answer). */
#ifndef ZVS_RESOLVER_MEM_H
#define ZVS_RESOLVER_MEM_H

#include "names/resolver.h"

#define ZVS_RES_MEM_NAMES   64
#define ZVS_RES_MEM_QUERIES 512

struct zvs_resolver *zvs_resolver_mem_create(zvs_res_done_fn done, void *arg);
/* The in-memory resolver behind r (NULL when r is another implementation). */
bool zvs_resolver_is_mem(const struct zvs_resolver *r);

/* The answer for name: its addresses (text literals) and TTL. n 0 with ZVS_RES_OK: the
 * name exists with no address (NODATA). Returns 0, -ENOSPC when the table is full, -EINVAL
 * for a bad literal or more than ZVS_RES_MAX_ADDRS * 2 addresses (an oversized answer
 * may be set: up to twice the maximum). */
int  zvs_resolver_mem_set(struct zvs_resolver *r, const char *name, const char *const *addrs,
                          unsigned n, uint32_t ttl_s);
/* name answers with status (NXDOMAIN, SERVFAIL, BADANSWER, ...). */
int  zvs_resolver_mem_fail(struct zvs_resolver *r, const char *name,
                           enum zvs_res_status status);
/* Every answer comes delay_ns after its query (default 1 ms). */
void zvs_resolver_mem_delay(struct zvs_resolver *r, uint64_t delay_ns);
/* down: no server answers; each query ends with ZVS_RES_TIMEOUT timeout_ns after it. */
void zvs_resolver_mem_down(struct zvs_resolver *r, bool down, uint64_t timeout_ns);
/* Queries started so far, and in flight now. */
uint64_t zvs_resolver_mem_queries(const struct zvs_resolver *r);
unsigned zvs_resolver_mem_in_flight(const struct zvs_resolver *r);

#endif
