/* Layer-2 core of the switch model (see sm_l2.h).
 *
 * Design note.
 * - MAC table: SM_MAC_HASH chains over a fixed array of SM_MAC_MAX entries with a free
 *   list; no allocation. An entry older than the aging time is ignored by lookup at once
 *   and removed by the next sm_mac_age (the program runs it every second), so aging is
 *   exact to the nanosecond for forwarding decisions.
 * - Group source addresses are never learned. A port-channel is one logical port, so a
 *   MAC seen on either member is the same entry.
 * - Flooding honours VLAN membership and never returns the ingress port.
 */
#include "tests/switchmodel/sm_l2.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/frame.h"

static unsigned mac_hash(uint16_t vid, const uint8_t mac[6])
{
    uint32_t h = vid;
    for (int i = 0; i < 6; i++)
        h = h * 31u + mac[i];
    return (h ^ (h >> 11)) % SM_MAC_HASH;
}

void sm_mac_init(struct sm_mac_table *t, uint64_t aging_ns)
{
    memset(t, 0, sizeof(*t));
    for (unsigned i = 0; i < SM_MAC_HASH; i++)
        t->heads[i] = -1;
    for (int32_t i = 0; i < SM_MAC_MAX; i++)
        t->e[i].next = i + 1 < SM_MAC_MAX ? i + 1 : -1;
    t->free_head = 0;
    t->aging_ns = aging_ns;
}

static bool expired(const struct sm_mac_table *t, const struct sm_mac_entry *e, uint64_t now)
{
    return t->aging_ns && now >= e->last_seen && now - e->last_seen >= t->aging_ns;
}

static int32_t find(const struct sm_mac_table *t, uint16_t vid, const uint8_t mac[6])
{
    for (int32_t i = t->heads[mac_hash(vid, mac)]; i >= 0; i = t->e[i].next)
        if (t->e[i].vid == vid && memcmp(t->e[i].mac, mac, 6) == 0)
            return i;
    return -1;
}

int sm_mac_learn(struct sm_mac_table *t, uint16_t vid, const uint8_t mac[6], uint16_t lport,
                 uint64_t now)
{
    int32_t i = find(t, vid, mac);
    if (i >= 0) {
        struct sm_mac_entry *e = &t->e[i];
        e->last_seen = now;
        if (e->lport == lport)
            return 1;
        e->lport = lport;
        t->moves++;
        return 2;
    }
    if (t->free_head < 0) {
        t->full++;
        return -ENOSPC;
    }
    i = t->free_head;
    struct sm_mac_entry *e = &t->e[i];
    t->free_head = e->next;
    unsigned h = mac_hash(vid, mac);
    memcpy(e->mac, mac, 6);
    e->vid = vid;
    e->lport = lport;
    e->last_seen = now;
    e->next = t->heads[h];
    t->heads[h] = i;
    t->count++;
    t->learned++;
    return 0;
}

int sm_mac_lookup(const struct sm_mac_table *t, uint16_t vid, const uint8_t mac[6],
                  uint64_t now)
{
    int32_t i = find(t, vid, mac);
    if (i < 0 || expired(t, &t->e[i], now))
        return -1;
    return t->e[i].lport;
}

/* Remove every entry for which drop() is true. */
static unsigned sweep(struct sm_mac_table *t, bool (*drop)(const struct sm_mac_table *,
                      const struct sm_mac_entry *, uint64_t), uint64_t arg)
{
    unsigned n = 0;
    for (unsigned h = 0; h < SM_MAC_HASH; h++) {
        int32_t *link = &t->heads[h];
        while (*link >= 0) {
            int32_t i = *link;
            struct sm_mac_entry *e = &t->e[i];
            if (drop(t, e, arg)) {
                *link = e->next;
                e->next = t->free_head;
                t->free_head = i;
                t->count--;
                n++;
            } else {
                link = &e->next;
            }
        }
    }
    return n;
}

static bool drop_expired(const struct sm_mac_table *t, const struct sm_mac_entry *e,
                         uint64_t now)
{
    return expired(t, e, now);
}

static bool drop_lport(const struct sm_mac_table *t, const struct sm_mac_entry *e,
                       uint64_t lport)
{
    (void)t;
    return e->lport == lport;
}

static bool drop_all(const struct sm_mac_table *t, const struct sm_mac_entry *e, uint64_t x)
{
    (void)t, (void)e, (void)x;
    return true;
}

unsigned sm_mac_age(struct sm_mac_table *t, uint64_t now)
{
    return sweep(t, drop_expired, now);
}

unsigned sm_mac_flush_lport(struct sm_mac_table *t, uint16_t lport)
{
    return sweep(t, drop_lport, lport);
}

void sm_mac_flush(struct sm_mac_table *t)
{
    (void)sweep(t, drop_all, 0);
}

static int cmp_entry(const void *a, const void *b)
{
    const struct sm_mac_entry *x = a, *y = b;
    if (x->vid != y->vid)
        return x->vid < y->vid ? -1 : 1;
    return memcmp(x->mac, y->mac, 6);
}

unsigned sm_mac_dump(const struct sm_mac_table *t, uint64_t now, struct sm_mac_entry *out,
                     unsigned max)
{
    unsigned n = 0;
    for (unsigned h = 0; h < SM_MAC_HASH && n < max; h++)
        for (int32_t i = t->heads[h]; i >= 0 && n < max; i = t->e[i].next)
            if (!expired(t, &t->e[i], now))
                out[n++] = t->e[i];
    qsort(out, n, sizeof(*out), cmp_entry);
    return n;
}

/* ---- VLANs and forwarding ------------------------------------------------------------ */

static bool in_vlan(const struct sm_lport *lp, uint16_t vid)
{
    return lp->trunk || lp->access_vid == vid;
}

int sm_l2_classify(const struct sm_lport *lp, const uint8_t *frame, uint32_t len,
                   uint16_t *vid)
{
    uint16_t et = zvs_be16(frame + 12);
    if (et != ZVS_ETHERTYPE_VLAN) {
        *vid = lp->trunk ? SM_NATIVE_VID : lp->access_vid;
        return 0;
    }
    if (!lp->trunk || len < ZVS_ETH_HLEN + ZVS_VLAN_HLEN)
        return -1;
    uint16_t v = zvs_be16(frame + 14) & 0x0fff;
    if (v == 0xfff)
        return -1;
    *vid = v ? v : SM_NATIVE_VID;       /* priority-tagged: the native VLAN */
    return 0;
}

unsigned sm_l2_forward(struct sm_l2 *l2, uint16_t in_lport, uint16_t vid,
                       const uint8_t *frame, uint64_t now, uint16_t out[SM_MAX_LPORTS])
{
    const uint8_t *dst = frame, *src = frame + 6;
    unsigned n = 0;

    if (!(src[0] & 1))
        (void)sm_mac_learn(&l2->mac, vid, src, in_lport, now);
    if (!(dst[0] & 1)) {
        int lp = sm_mac_lookup(&l2->mac, vid, dst, now);
        if (lp >= 0 && (unsigned)lp < l2->n_lports) {
            if (lp == in_lport || !l2->lp[lp].up || !in_vlan(&l2->lp[lp], vid))
                return 0;
            out[0] = (uint16_t)lp;
            return 1;
        }
    }
    for (unsigned i = 0; i < l2->n_lports; i++)
        if (i != in_lport && l2->lp[i].up && in_vlan(&l2->lp[i], vid))
            out[n++] = (uint16_t)i;
    return n;
}

uint8_t sm_l2_egress_op(const struct sm_lport *lp, uint16_t vid, bool frame_tagged)
{
    bool want_tag = lp->trunk && vid != SM_NATIVE_VID;
    if (want_tag)
        return frame_tagged ? ZVS_TAG_REWRITE : ZVS_TAG_PUSH;
    return frame_tagged ? ZVS_TAG_STRIP : ZVS_TAG_KEEP;
}
