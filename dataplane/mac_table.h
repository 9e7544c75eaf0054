/* The switch's MAC address table: (MAC, VID) -> port.
 *
 * Independent VLAN learning (802.1Q IVL): the key is the MAC together with the VID, so the
 * same MAC may live on different ports in different VLANs. A VLAN UNAWARE switch uses
 * VID 0 (ZVS_VID_NONE) for everything.
 *
 * Two kinds of entries:
 *   STATIC   a guest's assigned MAC, registered when its NIC couples; never ages, is never
 *            taken over by learning on another port.
 *   LEARNED  a source MAC seen on a guest port whose NIC does not use MACPROTECT; refreshed
 *            by every frame, moved when seen on another port, removed by aging.
 *
 * The table is owned by the data-path thread (single writer, no locks). Everything is
 * allocated by create; no call allocates afterwards. Time is passed in (ns), never read.
 */
#ifndef ZVS_MAC_TABLE_H
#define ZVS_MAC_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#define ZVS_MAC_TABLE_DEFAULT_CAPACITY  65536u      /* entries */
#define ZVS_MAC_TABLE_MAX_CAPACITY      (1u << 24)  /* entries; slots are twice as many */

enum zvs_mac_kind {
    ZVS_MAC_STATIC,                     /* assigned MAC of a coupled NIC */
    ZVS_MAC_LEARNED,                    /* source address seen on a port */
};

/* What zvs_mac_table_learn did (non-negative results). */
#define ZVS_MAC_REFRESHED  0            /* entry existed on this port; time refreshed */
#define ZVS_MAC_ADDED      1            /* new learned entry */
#define ZVS_MAC_MOVED      2            /* learned entry moved here from another port */

/* One entry as iteration reports it. */
struct zvs_mac_entry {
    uint8_t  mac[6];                    /* station address */
    uint16_t vid;                       /* VLAN (0 when VLAN UNAWARE) */
    uint16_t port;                      /* port index in the switch */
    uint8_t  kind;                      /* enum zvs_mac_kind */
    uint64_t last_seen;                 /* ns of the last refresh (0 for static entries) */
};

struct zvs_mac_table_stats {
    uint32_t capacity;                  /* most entries the table holds */
    uint32_t entries;                   /* entries now (static + learned) */
    uint32_t static_entries;            /* STATIC entries now */
    uint32_t learned;                   /* LEARNED entries now */
    uint64_t refused_full;              /* new entries refused because the table was full */
    uint64_t conflicts;                 /* learning refused: STATIC entry of another port */
    uint64_t moves;                     /* learned entries that moved to another port */
    uint64_t aged_out;                  /* learned entries removed by aging */
};

struct zvs_mac_table;

/* capacity: most entries (1..ZVS_MAC_TABLE_MAX_CAPACITY); slots are the next power of two
 * at or above 2 * capacity, so the load factor stays <= 0.5. age_ns: lifetime of learned
 * entries, 0 = they never age. Returns NULL with errno EINVAL or ENOMEM. */
struct zvs_mac_table *zvs_mac_table_create(uint32_t capacity, uint64_t age_ns);
void zvs_mac_table_destroy(struct zvs_mac_table *t);

/* Change the lifetime of learned entries (e.g. a SET command); applies at the next sweep. */
void zvs_mac_table_set_age(struct zvs_mac_table *t, uint64_t age_ns);

/* Register a guest's assigned MAC. A LEARNED entry with the same key is taken over (the
 * owner of the assigned address wins). Returns 0; -EEXIST if a STATIC entry with this key
 * exists (on any port); -ENOSPC if full (counted); -EINVAL for a group or all-zero MAC or
 * a VID above ZVS_VID_MAX. */
int zvs_mac_table_add_static(struct zvs_mac_table *t, const uint8_t mac[6], uint16_t vid,
                             uint16_t port);

/* Learn a source address seen on `port` at `now`. Returns ZVS_MAC_REFRESHED, ZVS_MAC_ADDED
 * or ZVS_MAC_MOVED; -EPERM if a STATIC entry of another port owns the key (counted as a
 * conflict; a STATIC entry of this port is left as it is and gives ZVS_MAC_REFRESHED);
 * -ENOSPC if full (counted); -EINVAL for a group or all-zero MAC or a VID above
 * ZVS_VID_MAX (never learned). */
int zvs_mac_table_learn(struct zvs_mac_table *t, const uint8_t mac[6], uint16_t vid,
                        uint16_t port, uint64_t now);

/* The port of (mac, vid), or -1. Hot path: one multiply, then a linear probe over a dense
 * key array (1.5 probes on average for a hit at the worst load). */
int zvs_mac_table_lookup(const struct zvs_mac_table *t, const uint8_t mac[6], uint16_t vid);

/* Whether the table has grown past what stays in a core's caches between bursts, so that
 * a burst gains by loading its lookups' slots ahead (zvs_mac_table_prefetch). */
bool zvs_mac_table_is_large(const struct zvs_mac_table *t);

/* Start loading the slots where (macs[k], vids[k]) live or would go, k < n: each key's
 * line and its value's. Each macs[k] must have 8 readable bytes (an address in a frame's
 * header: the destination, or the source before the EtherType): the key is made from one
 * load. A hint: reads the table's geometry, nothing else, and changes nothing. One call
 * for a burst's addresses: a call per address cost a third more. */
void zvs_mac_table_prefetch(const struct zvs_mac_table *t, const uint8_t *const macs[],
                            const uint16_t vids[], unsigned n);

/* Remove one entry of either kind. Returns 0 or -ENOENT. */
int zvs_mac_table_remove(struct zvs_mac_table *t, const uint8_t mac[6], uint16_t vid);

/* Remove every entry (static and learned) of a port, e.g. when its NIC uncouples.
 * Walks the whole table; returns how many were removed. */
uint32_t zvs_mac_table_remove_port(struct zvs_mac_table *t, uint16_t port);
/* Remove only the LEARNED entries of a port (MACPROTECT switched on). */
uint32_t zvs_mac_table_remove_learned_port(struct zvs_mac_table *t, uint16_t port);

/* Incremental aging sweep: examine at most `budget` slots from where the last call stopped
 * and remove LEARNED entries with now - last_seen >= age_ns (the boundary is inclusive: an
 * entry learned at t is present at t + age - 1 ns and removable at t + age). Returns how
 * many were removed. Call it every event-loop iteration with a small budget. */
uint32_t zvs_mac_table_age(struct zvs_mac_table *t, uint64_t now, uint32_t budget);

/* Call fn for every entry, in table order (unsorted). fn must not modify the table. */
void zvs_mac_table_foreach(const struct zvs_mac_table *t,
                           void (*fn)(void *arg, const struct zvs_mac_entry *e), void *arg);

void zvs_mac_table_stats(const struct zvs_mac_table *t, struct zvs_mac_table_stats *out);

#endif
