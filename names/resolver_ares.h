/* The c-ares resolver: lookups with ares_getaddrinfo on a channel whose sockets the owner
 * watches (ARES_OPT_SOCK_STATE_CB -> host watch/unwatch) and whose timeouts reach the
 * owner as next_wakeup (ares_timeout), so no lookup ever blocks the owner's loop. */
#ifndef ZVS_RESOLVER_ARES_H
#define ZVS_RESOLVER_ARES_H

#include "names/resolver.h"

struct zvs_res_ares_params {
    /* The servers, c-ares' CSV form ("192.0.2.1:5353,[2001:db8::1]:53"); NULL or "":
     * the host's resolver configuration (resolv.conf). */
    const char *servers;
    uint32_t    timeout_ms;             /* per try; 0: 2000 */
    unsigned    tries;                  /* per server; 0: 2 */
};

/* NULL with *err (-errno) when c-ares refuses the channel or the servers. */
struct zvs_resolver *zvs_resolver_ares_create(const struct zvs_res_ares_params *p,
                                              const struct zvs_res_host *host,
                                              zvs_res_done_fn done, void *arg, int *err);

/* c-ares' status as ours (ARES_ENOTFOUND -> NXDOMAIN, ...). */
enum zvs_res_status zvs_res_ares_status(int ares_status);

#endif
