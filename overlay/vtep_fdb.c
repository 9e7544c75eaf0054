/* The VTEP's forwarding table; see vtep_fdb.h. */
#include "overlay/vtep_fdb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct slot {
    uint8_t  used;
    uint8_t  is_static;
    uint8_t  mac[6];
    uint32_t vni;
    uint16_t remote;
    uint64_t last_seen;
};

struct zvs_vtep_fdb {
    struct slot *slots;
    uint32_t     mask;                  /* slots - 1 (a power of two) */
    uint32_t     capacity, entries, learned;
    uint64_t     age_ns;
    uint64_t     refused_full, moves, aged_out;
};

static uint32_t hash_key(const uint8_t mac[6], uint32_t vni)
{
    uint64_t k = (uint64_t)mac[0] << 40 | (uint64_t)mac[1] << 32 | (uint64_t)mac[2] << 24 |
                 (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | mac[5];

    k ^= (uint64_t)vni << 24 ^ vni;
    k *= UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(k >> 32);
}

static bool key_eq(const struct slot *s, const uint8_t mac[6], uint32_t vni)
{
    return s->vni == vni && memcmp(s->mac, mac, 6) == 0;
}

static bool mac_ok(const uint8_t mac[6])
{
    static const uint8_t zero[6];

    return !(mac[0] & 1) && memcmp(mac, zero, 6) != 0;
}

struct zvs_vtep_fdb *zvs_vtep_fdb_create(uint32_t capacity, uint64_t age_ns)
{
    struct zvs_vtep_fdb *t;
    uint32_t slots = 2;

    if (capacity == 0 || capacity > ZVS_VTEP_FDB_MAX_CAPACITY) {
        errno = EINVAL;
        return NULL;
    }
    while (slots < 2 * capacity)
        slots <<= 1;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->slots = calloc(slots, sizeof *t->slots);
    if (!t->slots) {
        free(t);
        return NULL;
    }
    t->mask = slots - 1;
    t->capacity = capacity;
    t->age_ns = age_ns;
    return t;
}

void zvs_vtep_fdb_destroy(struct zvs_vtep_fdb *t)
{
    if (t) {
        free(t->slots);
        free(t);
    }
}

/* The slot holding the key, or the empty slot where it would go. */
static uint32_t find(const struct zvs_vtep_fdb *t, const uint8_t mac[6], uint32_t vni)
{
    uint32_t i = hash_key(mac, vni) & t->mask;

    while (t->slots[i].used && !key_eq(&t->slots[i], mac, vni))
        i = (i + 1) & t->mask;
    return i;
}

static int insert(struct zvs_vtep_fdb *t, uint32_t i, const uint8_t mac[6], uint32_t vni,
                  uint16_t remote, bool is_static, uint64_t now)
{
    struct slot *s = &t->slots[i];

    if (t->entries >= t->capacity) {
        t->refused_full++;
        return -ENOSPC;
    }
    s->used = 1;
    s->is_static = is_static;
    memcpy(s->mac, mac, 6);
    s->vni = vni;
    s->remote = remote;
    s->last_seen = is_static ? 0 : now;
    t->entries++;
    if (!is_static)
        t->learned++;
    return 0;
}

/* Backward-shift deletion: entries after the hole that hash at or before it move up, so
 * lookups never stop early at a hole. */
static void remove_at(struct zvs_vtep_fdb *t, uint32_t i)
{
    uint32_t j = i;

    if (!t->slots[i].is_static)
        t->learned--;
    t->entries--;
    for (;;) {
        j = (j + 1) & t->mask;
        if (!t->slots[j].used)
            break;
        uint32_t home = hash_key(t->slots[j].mac, t->slots[j].vni) & t->mask;
        /* j's entry may fill the hole at i unless its home lies cyclically in (i, j]. */
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    memset(&t->slots[i], 0, sizeof t->slots[i]);
}

/* The slot for a key whose MAC may be a station's (*i its index), or NULL. */
static struct slot *slot_for(struct zvs_vtep_fdb *t, const uint8_t mac[6], uint32_t vni,
                             uint32_t *i)
{
    if (!mac_ok(mac))
        return NULL;
    *i = find(t, mac, vni);
    return &t->slots[*i];
}

int zvs_vtep_fdb_learn(struct zvs_vtep_fdb *t, const uint8_t mac[6], uint32_t vni,
                       uint16_t remote, uint64_t now)
{
    uint32_t i;
    struct slot *s = slot_for(t, mac, vni, &i);

    if (!s)
        return -EINVAL;
    if (!s->used) {
        int rc = insert(t, i, mac, vni, remote, false, now);

        return rc < 0 ? rc : ZVS_VTEP_FDB_ADDED;
    }
    if (s->is_static)
        return s->remote == remote ? ZVS_VTEP_FDB_REFRESHED : -EPERM;
    s->last_seen = now;
    if (s->remote == remote)
        return ZVS_VTEP_FDB_REFRESHED;
    s->remote = remote;
    t->moves++;
    return ZVS_VTEP_FDB_MOVED;
}

int zvs_vtep_fdb_add_static(struct zvs_vtep_fdb *t, const uint8_t mac[6], uint32_t vni,
                            uint16_t remote)
{
    uint32_t i;
    struct slot *s = slot_for(t, mac, vni, &i);

    if (!s)
        return -EINVAL;
    if (!s->used)
        return insert(t, i, mac, vni, remote, true, 0);
    if (!s->is_static)
        t->learned--;
    s->is_static = 1;
    s->remote = remote;
    s->last_seen = 0;
    return 0;
}

int zvs_vtep_fdb_lookup(const struct zvs_vtep_fdb *t, const uint8_t mac[6], uint32_t vni)
{
    const struct slot *s = &t->slots[find(t, mac, vni)];

    return s->used ? s->remote : -1;
}

/* Remove entries `drop` selects; a removal shifts later entries back into slot i, so the
 * same slot is looked at again. The scan starts after an empty slot so that no entry is
 * shifted from the end of the array to its start behind the scan. */
static uint32_t remove_if(struct zvs_vtep_fdb *t, bool (*drop)(const struct slot *, const void *),
                          const void *arg)
{
    uint32_t n = 0, start = 0, slots = t->mask + 1;

    if (t->entries == 0)
        return 0;
    while (t->slots[start].used)
        start++;                        /* there is an empty slot: load <= 0.5 */
    for (uint32_t k = 1; k <= slots; k++) {
        uint32_t i = (start + k) & t->mask;

        while (t->slots[i].used && drop(&t->slots[i], arg)) {
            remove_at(t, i);
            n++;
        }
    }
    return n;
}

struct age_arg { uint64_t now, age; };

static bool expired(const struct slot *s, const void *arg)
{
    const struct age_arg *a = arg;

    return !s->is_static && a->now - s->last_seen >= a->age;
}

uint32_t zvs_vtep_fdb_age(struct zvs_vtep_fdb *t, uint64_t now)
{
    struct age_arg a = { now, t->age_ns };
    uint32_t n;

    if (t->age_ns == 0)
        return 0;
    n = remove_if(t, expired, &a);
    t->aged_out += n;
    return n;
}

static bool names_remote(const struct slot *s, const void *arg)
{
    return s->remote == *(const uint16_t *)arg;
}

uint32_t zvs_vtep_fdb_forget_remote(struct zvs_vtep_fdb *t, uint16_t remote)
{
    return remove_if(t, names_remote, &remote);
}

void zvs_vtep_fdb_stats(const struct zvs_vtep_fdb *t, struct zvs_vtep_fdb_stats *out)
{
    out->capacity = t->capacity;
    out->entries = t->entries;
    out->learned = t->learned;
    out->refused_full = t->refused_full;
    out->moves = t->moves;
    out->aged_out = t->aged_out;
}

void zvs_vtep_fdb_foreach(const struct zvs_vtep_fdb *t,
                          int (*fn)(void *arg, const struct zvs_vtep_fdb_entry *e), void *arg)
{
    for (uint32_t i = 0; i <= t->mask; i++) {
        const struct slot *s = &t->slots[i];
        struct zvs_vtep_fdb_entry e;

        if (!s->used)
            continue;
        memcpy(e.mac, s->mac, 6);
        e.vni = s->vni;
        e.remote = s->remote;
        e.is_static = s->is_static;
        e.last_seen = s->last_seen;
        if (fn(arg, &e))
            return;
    }
}
