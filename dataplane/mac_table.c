/* MAC table: open addressing with linear probing and backward-shift deletion.
 *
 * Owns: the (MAC, VID) -> port map of one switch, its learning rules and its aging.
 *
 * Layout: two arrays of the same power-of-two length. `keys` holds the packed key only
 * (8 bytes a slot, 8 slots a cache line), so a probe sequence reads as few lines as
 * possible; `vals` holds port, kind and last-seen time and is touched once per hit.
 * A key is MAC (48 bits, big-endian order) | VID << 48 | KEY_USED; 0 marks an empty slot,
 * so the all-zero MAC would still be representable (we refuse it anyway).
 *
 * Hashing: Fibonacci (multiplicative) hashing of the packed key, top bits of the product.
 * MACs of one switch share their prefix and differ in the low bytes; the multiply spreads
 * those low bits over the top bits that select the slot.
 *
 * Rules:
 *  - At most `capacity` entries, slots >= 2 * capacity: load factor <= 0.5, so probe
 *    sequences stay short and an insert always finds an empty slot.
 *  - Deletion shifts later members of the cluster back into the hole (no tombstones), so
 *    lookups never walk over dead slots and the table never needs a rebuild.
 *  - Learning never overrides a STATIC entry of another port (-EPERM, counted); a LEARNED
 *    entry seen on another port moves (counted) — a guest that migrated or a MAC that
 *    moved between NICs.
 *
 * Hazards:
 *  - A deletion moves entries backwards, possibly across the aging cursor. Such an entry
 *    is skipped by the current sweep pass and caught by the next one; an expired learned
 *    entry may therefore live up to two sweep passes past its age. Lookups do not check
 *    age (they have no clock), so an expired entry forwards until the sweep reaches it.
 *  - The table has one writer and no locks; foreach callbacks must not modify it.
 */
#include "dataplane/mac_table.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/frame.h"

#define KEY_USED      (UINT64_C(1) << 63)
#define FIB_MULT      UINT64_C(0x9E3779B97F4A7C15)  /* 2^64 / golden ratio */

struct mac_val {
    uint64_t last_seen;                 /* ns of the last refresh; 0 for STATIC */
    uint16_t port;                      /* port index in the switch */
    uint8_t  kind;                      /* enum zvs_mac_kind */
};

struct zvs_mac_table {
    uint64_t       *keys;               /* packed keys, 0 = empty */
    struct mac_val *vals;               /* values, same index as keys */
    uint32_t        mask;               /* slots - 1 */
    unsigned        shift;              /* 64 - log2(slots): hash takes the top bits */
    uint32_t        capacity;           /* most entries */
    uint32_t        entries;            /* used slots */
    uint32_t        n_static;           /* STATIC entries */
    uint32_t        age_cursor;         /* next slot the aging sweep examines */
    uint64_t        age_ns;             /* lifetime of LEARNED entries, 0 = forever */
    uint64_t        refused_full;
    uint64_t        conflicts;
    uint64_t        moves;
    uint64_t        aged_out;
};

static inline uint64_t mac_key(const uint8_t mac[6], uint16_t vid)
{
    uint64_t m = (uint64_t)mac[0] << 40 | (uint64_t)mac[1] << 32 | (uint64_t)mac[2] << 24 |
                 (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | (uint64_t)mac[5];
    return m | (uint64_t)(vid & 0x0FFFu) << 48 | KEY_USED;
}

static inline uint32_t key_home(const struct zvs_mac_table *t, uint64_t key)
{
    return (uint32_t)((key * FIB_MULT) >> t->shift);
}

/* Slot of key, or the empty slot that ends its probe sequence (where it would go). */
static inline uint32_t find_slot(const struct zvs_mac_table *t, uint64_t key)
{
    uint32_t i = key_home(t, key);

    /* Terminates: at most half the slots are used, so an empty one is always ahead. */
    while (t->keys[i] != 0 && t->keys[i] != key)
        i = (i + 1) & t->mask;
    return i;
}

static bool mac_usable(const uint8_t mac[6], uint16_t vid)
{
    if (vid > ZVS_VID_MAX)
        return false;
    if (mac[0] & 0x01)                  /* group address: never a station's source */
        return false;
    return (mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]) != 0;
}

static void insert_at(struct zvs_mac_table *t, uint32_t i, uint64_t key, uint16_t port,
                      enum zvs_mac_kind kind, uint64_t now)
{
    assert(t->keys[i] == 0 && t->entries < t->capacity);
    t->keys[i] = key;
    t->vals[i].port = port;
    t->vals[i].kind = (uint8_t)kind;
    t->vals[i].last_seen = kind == ZVS_MAC_STATIC ? 0 : now;
    t->entries++;
    if (kind == ZVS_MAC_STATIC)
        t->n_static++;
}

/* Remove slot i and close the hole: each later member of the cluster whose home is not
 * in (hole, j] moves back into the hole, which then moves to where it came from. */
static void delete_at(struct zvs_mac_table *t, uint32_t i)
{
    uint32_t hole = i;
    uint32_t j = i;

    assert(t->keys[i] != 0);
    if (t->vals[i].kind == ZVS_MAC_STATIC)
        t->n_static--;
    t->entries--;
    for (;;) {
        j = (j + 1) & t->mask;
        if (t->keys[j] == 0)
            break;
        uint32_t home = key_home(t, t->keys[j]);
        if (((j - home) & t->mask) >= ((j - hole) & t->mask)) {
            t->keys[hole] = t->keys[j];
            t->vals[hole] = t->vals[j];
            hole = j;
        }
    }
    t->keys[hole] = 0;
}

struct zvs_mac_table *zvs_mac_table_create(uint32_t capacity, uint64_t age_ns)
{
    struct zvs_mac_table *t = NULL;
    uint32_t slots = 2;
    unsigned bits = 1;

    if (capacity == 0 || capacity > ZVS_MAC_TABLE_MAX_CAPACITY) {
        errno = EINVAL;
        return NULL;
    }
    while (slots < 2 * capacity) {
        slots <<= 1;
        bits++;
    }
    t = calloc(1, sizeof(*t));
    if (!t)
        goto fail;
    t->keys = calloc(slots, sizeof(*t->keys));
    t->vals = calloc(slots, sizeof(*t->vals));
    if (!t->keys || !t->vals)
        goto fail;
    t->mask = slots - 1;
    t->shift = 64 - bits;
    t->capacity = capacity;
    t->age_ns = age_ns;
    return t;

fail:
    zvs_mac_table_destroy(t);
    errno = ENOMEM;
    return NULL;
}

void zvs_mac_table_destroy(struct zvs_mac_table *t)
{
    if (!t)
        return;
    free(t->keys);
    free(t->vals);
    free(t);
}

void zvs_mac_table_set_age(struct zvs_mac_table *t, uint64_t age_ns)
{
    t->age_ns = age_ns;
}

int zvs_mac_table_add_static(struct zvs_mac_table *t, const uint8_t mac[6], uint16_t vid,
                             uint16_t port)
{
    if (!mac_usable(mac, vid))
        return -EINVAL;
    uint64_t key = mac_key(mac, vid);
    uint32_t i = find_slot(t, key);

    if (t->keys[i] == key) {
        if (t->vals[i].kind == ZVS_MAC_STATIC)
            return -EEXIST;
        /* Learned earlier (maybe on another port): the assigned owner takes it over. */
        t->vals[i].kind = ZVS_MAC_STATIC;
        t->vals[i].port = port;
        t->vals[i].last_seen = 0;
        t->n_static++;
        return 0;
    }
    if (t->entries >= t->capacity) {
        t->refused_full++;
        return -ENOSPC;
    }
    insert_at(t, i, key, port, ZVS_MAC_STATIC, 0);
    return 0;
}

int zvs_mac_table_learn(struct zvs_mac_table *t, const uint8_t mac[6], uint16_t vid,
                        uint16_t port, uint64_t now)
{
    if (!mac_usable(mac, vid))
        return -EINVAL;
    uint64_t key = mac_key(mac, vid);
    uint32_t i = find_slot(t, key);

    if (t->keys[i] == key) {
        struct mac_val *v = &t->vals[i];
        if (v->kind == ZVS_MAC_STATIC) {
            if (v->port == port)
                return ZVS_MAC_REFRESHED;
            t->conflicts++;
            return -EPERM;
        }
        v->last_seen = now;
        if (v->port == port)
            return ZVS_MAC_REFRESHED;
        v->port = port;
        t->moves++;
        return ZVS_MAC_MOVED;
    }
    if (t->entries >= t->capacity) {
        t->refused_full++;
        return -ENOSPC;
    }
    insert_at(t, i, key, port, ZVS_MAC_LEARNED, now);
    return ZVS_MAC_ADDED;
}

int zvs_mac_table_lookup(const struct zvs_mac_table *t, const uint8_t mac[6], uint16_t vid)
{
    uint64_t key = mac_key(mac, vid);
    uint32_t i = find_slot(t, key);

    return t->keys[i] == key ? t->vals[i].port : -1;
}

/* Large: from 8,192 entries, whose slots at the table's most load (one half) would be
 * 16,384 of 24 bytes of key and value, 384 KB: past the share of a core's second-level
 * cache a table keeps while guests' buffers stream through it. Counted in entries, not
 * in the table's slots (131,072 by default, most of them empty and never read): the
 * lookups reach the used ones. Below that they are found in the cache and loading them
 * ahead is work for nothing (bench_core's few stations). */
#define LARGE_ENTRIES 8192u

bool zvs_mac_table_is_large(const struct zvs_mac_table *t)
{
    return t->entries >= LARGE_ENTRIES;
}

void zvs_mac_table_prefetch(const struct zvs_mac_table *t, const uint8_t *const macs[],
                            const uint16_t vids[], unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        uint64_t w;
        memcpy(&w, macs[k], sizeof(w));     /* 8 readable bytes: the caller's promise */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint64_t mac = __builtin_bswap64(w) >> 16;  /* bytes 0..5, big-endian: mac_key's */
#else
        uint64_t mac = w >> 16;
#endif
        uint64_t key = mac | (uint64_t)(vids[k] & 0x0FFFu) << 48 | KEY_USED;
        uint32_t i = key_home(t, key);
        __builtin_prefetch(&t->keys[i], 0, 3);
        __builtin_prefetch(&t->vals[i], 1, 3);
    }
}

int zvs_mac_table_remove(struct zvs_mac_table *t, const uint8_t mac[6], uint16_t vid)
{
    uint64_t key = mac_key(mac, vid);
    uint32_t i = find_slot(t, key);

    if (t->keys[i] != key)
        return -ENOENT;
    delete_at(t, i);
    return 0;
}

/* A deletion at slot i can only pull entries from cyclically later slots into slots at
 * or after i, so re-examining slot i and walking on reaches every entry once. */
static uint32_t remove_port_entries(struct zvs_mac_table *t, uint16_t port, bool learned_only)
{
    uint32_t removed = 0;

    /* After a delete the backward shift may move another entry into slot i: look again. */
    for (uint32_t i = 0; i <= t->mask && t->entries > 0;) {
        if (t->keys[i] != 0 && t->vals[i].port == port &&
            (!learned_only || t->vals[i].kind == ZVS_MAC_LEARNED)) {
            delete_at(t, i);
            removed++;
            continue;
        }
        i++;
    }
    return removed;
}

uint32_t zvs_mac_table_remove_port(struct zvs_mac_table *t, uint16_t port)
{
    return remove_port_entries(t, port, false);
}

uint32_t zvs_mac_table_remove_learned_port(struct zvs_mac_table *t, uint16_t port)
{
    return remove_port_entries(t, port, true);
}

static bool expired(const struct zvs_mac_table *t, const struct mac_val *v, uint64_t now)
{
    return v->kind == ZVS_MAC_LEARNED && now >= v->last_seen && now - v->last_seen >= t->age_ns;
}

uint32_t zvs_mac_table_age(struct zvs_mac_table *t, uint64_t now, uint32_t budget)
{
    uint32_t removed = 0;
    uint32_t i = t->age_cursor;

    if (t->age_ns == 0)
        return 0;
    /* Every examination costs one unit of budget, re-examinations after a delete too,
     * so a call does bounded work; each step either advances or removes an entry. */
    for (; budget > 0 && t->entries > t->n_static; budget--) {
        if (t->keys[i] != 0 && expired(t, &t->vals[i], now)) {
            delete_at(t, i);
            removed++;
            continue;
        }
        i = (i + 1) & t->mask;
    }
    t->age_cursor = i;
    t->aged_out += removed;
    return removed;
}

void zvs_mac_table_foreach(const struct zvs_mac_table *t,
                           void (*fn)(void *arg, const struct zvs_mac_entry *e), void *arg)
{
    for (uint32_t i = 0; i <= t->mask; i++) {
        uint64_t key = t->keys[i];
        if (key == 0)
            continue;
        struct zvs_mac_entry e = {
            .vid = (uint16_t)((key >> 48) & 0x0FFFu),
            .port = t->vals[i].port,
            .kind = t->vals[i].kind,
            .last_seen = t->vals[i].last_seen,
        };
        for (int b = 0; b < 6; b++)
            e.mac[b] = (uint8_t)(key >> (40 - 8 * b));
        fn(arg, &e);
    }
}

void zvs_mac_table_stats(const struct zvs_mac_table *t, struct zvs_mac_table_stats *out)
{
    *out = (struct zvs_mac_table_stats){
        .capacity = t->capacity,
        .entries = t->entries,
        .static_entries = t->n_static,
        .learned = t->entries - t->n_static,
        .refused_full = t->refused_full,
        .conflicts = t->conflicts,
        .moves = t->moves,
        .aged_out = t->aged_out,
    };
}
