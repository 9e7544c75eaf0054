/* The underlay's neighbour table and ARP (RFC 826); see underlay_arp.h. */
#include "overlay/underlay_arp.h"

#include <errno.h>
#include <string.h>

#define ARP_HTYPE_ETH   1
#define ARP_OP_REQUEST  1
#define ARP_OP_REPLY    2
#define ARP_LEN         28              /* Ethernet/IPv4 ARP body */

void zvs_uarp_init(struct zvs_uarp *u, uint64_t age_ns)
{
    memset(u, 0, sizeof *u);
    zvs_uarp_set_age(u, age_ns);
}

static struct zvs_uarp_entry *find(struct zvs_uarp *u, const struct zvs_ipaddr *ip)
{
    for (unsigned i = 0; i < ZVS_UARP_MAX; i++)
        if (u->e[i].state != ZVS_UARP_FREE && zvs_ipaddr_equal(&u->e[i].ip, ip))
            return &u->e[i];
    return NULL;
}

const struct zvs_uarp_entry *zvs_uarp_find(const struct zvs_uarp *u, const struct zvs_ipaddr *ip)
{
    return find((struct zvs_uarp *)u, ip);      /* find writes nothing */
}

static void tick(struct zvs_uarp *u, uint64_t now)
{
    if (now > u->clock)
        u->clock = now;
}

/* The reclaim rank of e (underlay_arp.h): 0 never (STATIC, or in use), 1 REACHABLE, 2
 * INCOMPLETE, 3 STALE. */
static unsigned reclaim_rank(const struct zvs_uarp *u, const struct zvs_uarp_entry *e)
{
    if (e->state == ZVS_UARP_STATIC || u->clock - e->used < u->age_ns)
        return 0;
    if (e->state == ZVS_UARP_STALE ||
        (e->state == ZVS_UARP_REACHABLE && u->clock - e->updated >= u->age_ns))
        return 3;
    return e->state == ZVS_UARP_INCOMPLETE ? 2 : 1;
}

/* A full table's entry to reclaim, or NULL. */
static struct zvs_uarp_entry *victim(struct zvs_uarp *u)
{
    struct zvs_uarp_entry *best = NULL;
    unsigned best_rank = 0;

    for (unsigned i = 0; i < ZVS_UARP_MAX; i++) {
        struct zvs_uarp_entry *e = &u->e[i];
        unsigned rank = reclaim_rank(u, e);

        if (rank > best_rank || (rank && rank == best_rank && e->used < best->used)) {
            best = e;
            best_rank = rank;
        }
    }
    return best;
}

static struct zvs_uarp_entry *find_or_add(struct zvs_uarp *u, const struct zvs_ipaddr *ip)
{
    struct zvs_uarp_entry *e = find(u, ip);

    if (e)
        return e;
    for (unsigned i = 0; i < ZVS_UARP_MAX && !e; i++)
        if (u->e[i].state == ZVS_UARP_FREE)
            e = &u->e[i];
    if (!e && (e = victim(u)) != NULL)
        u->reclaimed++;
    if (!e) {
        u->full++;
        return NULL;
    }
    memset(e, 0, sizeof *e);
    e->ip = *ip;
    e->state = ZVS_UARP_INCOMPLETE;
    e->used = u->clock;
    return e;
}

int zvs_uarp_set_static(struct zvs_uarp *u, const struct zvs_ipaddr *ip, const uint8_t mac[6])
{
    struct zvs_uarp_entry *e = find_or_add(u, ip);

    if (!e)
        return -ENOSPC;
    memcpy(e->mac, mac, 6);
    e->state = ZVS_UARP_STATIC;
    return 0;
}

void zvs_uarp_forget(struct zvs_uarp *u, const struct zvs_ipaddr *ip)
{
    struct zvs_uarp_entry *e = find(u, ip);

    if (e)
        memset(e, 0, sizeof *e);
}

int zvs_uarp_unset_static(struct zvs_uarp *u, const struct zvs_ipaddr *ip)
{
    struct zvs_uarp_entry *e = find(u, ip);

    if (!e || e->state != ZVS_UARP_STATIC)
        return -ENOENT;
    e->state = ZVS_UARP_STALE;          /* the MAC kept: traffic goes on while asked */
    e->requests = 0;                    /* asked at the next use, not a second later */
    return 0;
}

void zvs_uarp_set_age(struct zvs_uarp *u, uint64_t age_ns)
{
    u->age_ns = age_ns ? age_ns : ZVS_UARP_DEFAULT_AGE;
}

bool zvs_uarp_resolve(struct zvs_uarp *u, const struct zvs_ipaddr *ip, uint64_t now,
                      uint8_t mac[6], bool *ask)
{
    struct zvs_uarp_entry *e;

    tick(u, now);
    e = find_or_add(u, ip);
    *ask = false;
    if (!e)
        return false;
    e->used = now;
    if (e->state == ZVS_UARP_REACHABLE && now - e->updated >= u->age_ns)
        e->state = ZVS_UARP_STALE;
    switch (e->state) {
    case ZVS_UARP_STATIC:
    case ZVS_UARP_REACHABLE:
        memcpy(mac, e->mac, 6);
        return true;
    case ZVS_UARP_STALE:
        *ask = e->requests == 0 || now - e->asked >= ZVS_UARP_RETRY_NS;
        memcpy(mac, e->mac, 6);
        return true;
    default:
        *ask = e->requests == 0 || now - e->asked >= ZVS_UARP_RETRY_NS;
        return false;
    }
}

void zvs_uarp_asked(struct zvs_uarp *u, const struct zvs_ipaddr *ip, uint64_t now)
{
    struct zvs_uarp_entry *e = find(u, ip);

    tick(u, now);
    if (e) {
        e->asked = now;
        e->requests++;
    }
}

static unsigned build(uint8_t *buf, uint16_t op, const uint8_t dst_mac[6],
                      const uint8_t src_mac[6], const uint8_t src_ip[4],
                      const uint8_t tha[6], const uint8_t tpa[4])
{
    uint8_t *a = buf + 14;

    memset(buf, 0, ZVS_UARP_FRAME_LEN);
    memcpy(buf, dst_mac, 6);
    memcpy(buf + 6, src_mac, 6);
    zvs_put_be16(buf + 12, ZVS_ETHERTYPE_ARP);
    zvs_put_be16(a, ARP_HTYPE_ETH);
    zvs_put_be16(a + 2, ZVS_ETHERTYPE_IPV4);
    a[4] = 6;
    a[5] = 4;
    zvs_put_be16(a + 6, op);
    memcpy(a + 8, src_mac, 6);
    memcpy(a + 14, src_ip, 4);
    memcpy(a + 18, tha, 6);
    memcpy(a + 24, tpa, 4);
    return ZVS_UARP_FRAME_LEN;
}

unsigned zvs_uarp_request(uint8_t *buf, const uint8_t src_mac[6], const uint8_t src_ip[4],
                          const uint8_t target_ip[4])
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static const uint8_t zero[6];

    return build(buf, ARP_OP_REQUEST, bcast, src_mac, src_ip, zero, target_ip);
}

void zvs_uarp_learn(struct zvs_uarp *u, const struct zvs_ipaddr *ip, const uint8_t mac[6],
                    uint64_t now)
{
    struct zvs_uarp_entry *e = find(u, ip);

    tick(u, now);
    if (e && e->state != ZVS_UARP_STATIC) {
        memcpy(e->mac, mac, 6);
        e->state = ZVS_UARP_REACHABLE;
        e->updated = now;
        e->requests = 0;
        u->replies++;
    }
}

int zvs_uarp_input(struct zvs_uarp *u, const uint8_t *frame, uint32_t len,
                   const uint8_t local_ip[4], const uint8_t local_mac[6], uint64_t now,
                   uint8_t *reply)
{
    const uint8_t *a;
    uint32_t off = 12;
    uint16_t op;
    struct zvs_ipaddr sender = { .family = 4 };

    if (len >= 16 && zvs_be16(frame + 12) == ZVS_ETHERTYPE_VLAN)
        off += 4;
    if (len < off + 2 + ARP_LEN || zvs_be16(frame + off) != ZVS_ETHERTYPE_ARP) {
        u->ignored++;
        return -EINVAL;
    }
    a = frame + off + 2;
    op = zvs_be16(a + 6);
    if (zvs_be16(a) != ARP_HTYPE_ETH || zvs_be16(a + 2) != ZVS_ETHERTYPE_IPV4 || a[4] != 6 ||
        a[5] != 4 || (op != ARP_OP_REQUEST && op != ARP_OP_REPLY) || (a[8] & 1)) {
        u->ignored++;
        return -EINVAL;
    }
    memcpy(sender.a, a + 14, 4);
    zvs_uarp_learn(u, &sender, a + 8, now);
    if (op == ARP_OP_REQUEST && memcmp(a + 24, local_ip, 4) == 0) {
        u->requests_answered++;
        return (int)build(reply, ARP_OP_REPLY, a + 8, local_mac, local_ip, a + 8, a + 14);
    }
    return 0;
}

const char *zvs_uarp_state_name(enum zvs_uarp_state s)
{
    switch (s) {
    case ZVS_UARP_FREE:       return "-";
    case ZVS_UARP_INCOMPLETE: return "INCOMPLETE";
    case ZVS_UARP_REACHABLE:  return "REACHABLE";
    case ZVS_UARP_STALE:      return "STALE";
    case ZVS_UARP_STATIC:     return "STATIC";
    }
    return "?";
}
