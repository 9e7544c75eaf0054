/* The VTEP's forwarding table: (inner MAC, VNI) -> the remote VTEP it lives behind.
 *
 * Learned from the inner source address of every decapsulated frame (RFC 7348 section 4:
 * "learning ... by the VTEP"), refreshed by each, moved when a station shows up behind
 * another VTEP, removed by aging. Static entries (configured) never age and are never
 * moved by learning. The table has a fixed capacity, allocated at create: a flood of new
 * source MACs past it is refused and counted, never grown into, so a remote that sends from
 * random addresses cannot make the switch allocate.
 *
 * One writer (the data-path thread); time is passed in (ns). Open addressing with linear
 * probing and backward-shift deletion, slots twice the capacity.
 */
#ifndef ZVS_VTEP_FDB_H
#define ZVS_VTEP_FDB_H

#include <stdbool.h>
#include <stdint.h>

#define ZVS_VTEP_FDB_DEFAULT_CAPACITY  8192u
#define ZVS_VTEP_FDB_MAX_CAPACITY      (1u << 20)

/* What zvs_vtep_fdb_learn did (non-negative results). */
#define ZVS_VTEP_FDB_REFRESHED  0
#define ZVS_VTEP_FDB_ADDED      1
#define ZVS_VTEP_FDB_MOVED      2

struct zvs_vtep_fdb_entry {
    uint8_t  mac[6];
    uint32_t vni;
    uint16_t remote;                    /* index of the remote VTEP */
    bool     is_static;
    uint64_t last_seen;                 /* ns; 0 for static entries */
};

struct zvs_vtep_fdb_stats {
    uint32_t capacity, entries, learned;
    uint64_t refused_full;              /* new addresses refused: the table was full */
    uint64_t moves;                     /* learned entries that moved to another VTEP */
    uint64_t aged_out;
};

struct zvs_vtep_fdb;

/* NULL with errno EINVAL (capacity 0 or above the maximum) or ENOMEM. */
struct zvs_vtep_fdb *zvs_vtep_fdb_create(uint32_t capacity, uint64_t age_ns);
void zvs_vtep_fdb_destroy(struct zvs_vtep_fdb *t);

/* Learn mac (seen behind `remote` on `vni`) at `now`: ZVS_VTEP_FDB_REFRESHED, _ADDED or
 * _MOVED; -ENOSPC when full (counted); -EPERM when a static entry names another remote;
 * -EINVAL for a group or all-zero MAC. */
int zvs_vtep_fdb_learn(struct zvs_vtep_fdb *t, const uint8_t mac[6], uint32_t vni,
                       uint16_t remote, uint64_t now);
/* A configured entry: 0, -ENOSPC, -EINVAL; replaces a learned one. */
int zvs_vtep_fdb_add_static(struct zvs_vtep_fdb *t, const uint8_t mac[6], uint32_t vni,
                            uint16_t remote);
/* The remote for (mac, vni), or -1. */
int zvs_vtep_fdb_lookup(const struct zvs_vtep_fdb *t, const uint8_t mac[6], uint32_t vni);
/* Remove learned entries not refreshed for the age; returns how many. */
uint32_t zvs_vtep_fdb_age(struct zvs_vtep_fdb *t, uint64_t now);
/* Remove every entry (static too) that names `remote` (a remote VTEP deleted); returns
 * how many. */
uint32_t zvs_vtep_fdb_forget_remote(struct zvs_vtep_fdb *t, uint16_t remote);
void zvs_vtep_fdb_stats(const struct zvs_vtep_fdb *t, struct zvs_vtep_fdb_stats *out);
/* Call fn for every entry (QUERY VSWITCH); stops when fn returns non-zero. */
void zvs_vtep_fdb_foreach(const struct zvs_vtep_fdb *t,
                          int (*fn)(void *arg, const struct zvs_vtep_fdb_entry *e), void *arg);

#endif
