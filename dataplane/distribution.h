/* The port group's outbound distribution as the forwarding path sees it: the bucket table,
 * the distribution key, the per-bucket byte counters the path adds to, and which member
 * ports may carry frames. The group (lag/pgroup.c) owns the object and writes it; the data
 * plane only reads it, so the switch never reaches up into the LAG layer.
 *
 * Publication: the group builds a new table beside the live one and publishes it with one
 * release store of `live`; the path acquire-loads `live` once per burst and so sees the old
 * table or the new, never a mix.
 */
#ifndef ZVS_DISTRIBUTION_H
#define ZVS_DISTRIBUTION_H

#include <stdint.h>

#define ZVS_PG_MAX_MEMBERS   8                  /* z/VM: at most 8 OSA ports per group */
#define ZVS_PG_BUCKETS       256                /* one per value of the MAC's last byte */
#define ZVS_PG_NO_PORT       0xFFFF             /* map entry: no distributing member */
#define ZVS_PG_NO_SLOT       0xFF

/* What selects the bucket: a MAC's last byte, or the outer UDP source port. */
enum zvs_pg_hash {
    ZVS_PG_HASH_DST,                    /* destination (default: the report's RR behaviour) */
    ZVS_PG_HASH_SRC,                    /* source */
    ZVS_PG_HASH_SRC_DST,                /* source XOR destination */
    ZVS_PG_HASH_UDP_SPORT,              /* an IPv4/IPv6 UDP frame's source port, its two bytes
                                           XORed (a VXLAN underlay: RFC 7348 section 5 puts
                                           the inner flow's hash there); other frames: the
                                           destination MAC */
};

/* The table the data path reads. Entries are switch port indices. */
struct zvs_pg_map {
    uint16_t bucket_port[ZVS_PG_BUCKETS];   /* ZVS_PG_NO_PORT: nobody distributing */
    uint16_t flood_port;                    /* designated member for bcast/mcast */
    uint8_t  bucket_slot[ZVS_PG_BUCKETS];   /* member slot per bucket, ZVS_PG_NO_SLOT */
    uint32_t generation;                    /* increments with every publish */
};

struct zvs_pg_dist {
    const struct zvs_pg_map *live;                   /* release-stored by the group */
    enum zvs_pg_hash         hash;                   /* which MAC's last byte is the key */
    /* Per member slot: its switch port while it distributes, else ZVS_PG_NO_PORT. Read only
     * on failure paths (a frame whose member just lost its link goes to a survivor). */
    uint16_t                 member_port[ZVS_PG_MAX_MEMBERS];
    _Alignas(64) uint64_t    bucket_bytes[ZVS_PG_BUCKETS];  /* outbound bytes; the path adds */
};

static inline const struct zvs_pg_map *zvs_pg_dist_map(const struct zvs_pg_dist *d)
{
    return __atomic_load_n(&d->live, __ATOMIC_ACQUIRE);
}

static inline unsigned zvs_pg_bucket(enum zvs_pg_hash hash, const uint8_t *dst,
                                     const uint8_t *src)
{
    switch (hash) {
    case ZVS_PG_HASH_SRC:     return src[5];
    case ZVS_PG_HASH_SRC_DST: return (unsigned)(src[5] ^ dst[5]);
    default:                  return dst[5];
    }
}

/* The UDP source port of an IPv4 or IPv6 frame (untagged or one 802.1Q tag, IPv6 without
 * extension headers, not an IPv4 fragment after the first) whose first `avail` bytes are
 * at p; -1 when it is not such a frame or its headers are not all in those bytes. */
static inline int zvs_pg_udp_sport(const uint8_t *p, uint32_t avail)
{
    uint32_t l3 = 14;
    unsigned type;

    if (avail < 18)
        return -1;
    type = (unsigned)(p[12] << 8 | p[13]);
    if (type == 0x8100) {
        type = (unsigned)(p[16] << 8 | p[17]);
        l3 = 18;
    }
    if (type == 0x0800 && avail >= l3 + 20 && p[l3 + 9] == 17 &&
        ((p[l3 + 6] & 0x1F) | p[l3 + 7]) == 0) {
        uint32_t l4 = l3 + (p[l3] & 0x0Fu) * 4;
        return avail >= l4 + 2 ? (int)(p[l4] << 8 | p[l4 + 1]) : -1;
    }
    if (type == 0x86DD && avail >= l3 + 42 && p[l3 + 6] == 17)
        return (int)(p[l3 + 40] << 8 | p[l3 + 41]);
    return -1;
}

/* The bucket of a frame whose first `avail` bytes are at p (at least a MAC header). */
static inline unsigned zvs_pg_frame_bucket(enum zvs_pg_hash hash, const uint8_t *p,
                                           uint32_t avail)
{
    if (hash == ZVS_PG_HASH_UDP_SPORT) {
        int sport = zvs_pg_udp_sport(p, avail);
        if (sport >= 0)
            return (unsigned)((sport ^ (sport >> 8)) & 0xFF);
    }
    return zvs_pg_bucket(hash, p, p + 6);
}


#endif
