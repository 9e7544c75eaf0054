/* The underlay's neighbour table: the MAC of each next hop the VTEP sends to (a remote
 * VTEP on the local subnet, or the gateway), learned with ARP (RFC 826) on the underlay
 * uplink, or configured (static).
 *
 * zvswitch resolves next hops itself, not through the host's neighbour table: the underlay
 * is a zvswitch uplink, not a kernel interface with an address. An entry resolved by ARP
 * is used for the age (default 300 s, Linux's gc_stale_time order; the daemon gives it the
 * switch's IPTIMEOUT), then asked again while still used (the old MAC keeps carrying
 * traffic until a reply comes, so a refresh loses nothing); an entry that never answers
 * sends one request a second and counts the frames it could not send. ARP for IPv4 here;
 * an IPv6 underlay's next hops are found by Neighbor Discovery (underlay_nd.h) in this
 * same table.
 *
 * Fixed size, one writer (the data-path thread), time passed in. The owner forgets a next
 * hop it stops using (a remote deleted, or moved to another address: vtep.c), so 8
 * remotes, a gateway and 16 static entries always fit; should the table still fill up, a
 * new entry takes the place of one nothing has used within the age (reclaim, below).
 */
#ifndef ZVS_UNDERLAY_ARP_H
#define ZVS_UNDERLAY_ARP_H

#include <stdbool.h>
#include <stdint.h>

#include "overlay/vxlan_codec.h"

#define ZVS_UARP_MAX           64               /* next hops: remote VTEPs and a gateway */
#define ZVS_UARP_FRAME_LEN     60               /* an ARP frame padded to Ethernet's minimum */
#define ZVS_UARP_DEFAULT_AGE   (UINT64_C(300) * 1000000000u)
#define ZVS_UARP_RETRY_NS      UINT64_C(1000000000)

enum zvs_uarp_state {
    ZVS_UARP_FREE = 0,
    ZVS_UARP_INCOMPLETE,                /* asked, no answer yet */
    ZVS_UARP_REACHABLE,                 /* answered within the age */
    ZVS_UARP_STALE,                     /* older than the age: used while asked again */
    ZVS_UARP_STATIC,                    /* configured; never asked, never ages */
};

struct zvs_uarp_entry {
    struct zvs_ipaddr ip;
    uint8_t           mac[6];
    uint8_t           state;            /* enum zvs_uarp_state */
    uint64_t          updated;          /* ns of the last answer */
    uint64_t          asked;            /* ns of the last request sent */
    uint32_t          requests;         /* requests sent since the last answer */
    uint64_t          used;             /* ns of the last resolve (a next hop in use
                                           resolves at every frame it carries) */
};

struct zvs_uarp {
    struct zvs_uarp_entry e[ZVS_UARP_MAX];
    uint64_t              age_ns;
    uint64_t              clock;        /* the latest time the table was given */
    uint64_t              replies, requests_answered, ignored, full, reclaimed;
};

void zvs_uarp_init(struct zvs_uarp *u, uint64_t age_ns);
/* A new entry when every one of the ZVS_UARP_MAX is taken reclaims (counted `reclaimed`)
 * the entry that is neither STATIC nor in use, in use meaning resolved within the age
 * before the table's clock (the latest time it was given): a STALE one first (STALE, or
 * REACHABLE past its age), then an INCOMPLETE one, then a REACHABLE one; among those, the
 * one resolved longest ago. None such: the table is full (counted `full`). */
/* A static entry for ip (replaces a learned one): 0, or -ENOSPC (every entry STATIC or
 * in use: not reached with the daemon's 16 statics, 8 remotes and a gateway). */
int zvs_uarp_set_static(struct zvs_uarp *u, const struct zvs_ipaddr *ip, const uint8_t mac[6]);
/* ip's entry, or NULL (the daemon's follow of a statement's static entries). */
const struct zvs_uarp_entry *zvs_uarp_find(const struct zvs_uarp *u, const struct zvs_ipaddr *ip);
/* Stop tracking ip (a remote deleted). */
void zvs_uarp_forget(struct zvs_uarp *u, const struct zvs_ipaddr *ip);
/* ip's static entry taken away (SET VSWITCH ... VXLAN NEIGHBOR addr DELETE): the address
 * is a learned one again, STALE with the MAC it had, so the next frame to it still goes
 * and asks (the answer makes it REACHABLE, none leaves it asking once a second). 0, or
 * -ENOENT when ip has no static entry. */
int zvs_uarp_unset_static(struct zvs_uarp *u, const struct zvs_ipaddr *ip);
/* The age of answered entries from now on (the switch's IPTIMEOUT); 0: the default. An
 * entry already answered ages by the new value at its next use. */
void zvs_uarp_set_age(struct zvs_uarp *u, uint64_t age_ns);

/* The next hop's MAC for sending at `now`. Returns true with mac filled when it can be
 * used (REACHABLE, STALE, STATIC). *ask is set when a request should go out now: no
 * entry (one is made, INCOMPLETE: -ENOSPC leaves ask false and counts `full`), still
 * INCOMPLETE a second after the last request, or STALE. The caller sends the request
 * (zvs_uarp_request) and calls zvs_uarp_asked. */
bool zvs_uarp_resolve(struct zvs_uarp *u, const struct zvs_ipaddr *ip, uint64_t now,
                      uint8_t mac[6], bool *ask);
void zvs_uarp_asked(struct zvs_uarp *u, const struct zvs_ipaddr *ip, uint64_t now);
/* An answer for ip (ARP, or Neighbor Discovery: underlay_nd.h): a tracked, not static
 * entry takes mac, REACHABLE from now. */
void zvs_uarp_learn(struct zvs_uarp *u, const struct zvs_ipaddr *ip, const uint8_t mac[6],
                    uint64_t now);

/* An ARP request from (src_mac, src_ip) for target, broadcast; ZVS_UARP_FRAME_LEN bytes. */
unsigned zvs_uarp_request(uint8_t *buf, const uint8_t src_mac[6], const uint8_t src_ip[4],
                          const uint8_t target_ip[4]);

/* An ARP frame from the underlay. A reply (or a request: its sender is as good) from an
 * address we track updates that entry. A request for local_ip writes the reply into
 * reply (ZVS_UARP_FRAME_LEN bytes) and returns its length; otherwise returns 0. -EINVAL:
 * not a well-formed Ethernet/IPv4 ARP frame (counted as ignored). */
int zvs_uarp_input(struct zvs_uarp *u, const uint8_t *frame, uint32_t len,
                   const uint8_t local_ip[4], const uint8_t local_mac[6], uint64_t now,
                   uint8_t *reply);

const char *zvs_uarp_state_name(enum zvs_uarp_state s);

#endif
