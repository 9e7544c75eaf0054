/* A VXLAN tunnel endpoint (RFC 7348): one VSWITCH's overlay uplink.
 *
 * It owns the remote VTEPs (by address, or by host name with the address given when the
 * name resolves), the VLAN-to-VNI map, the remote-MAC table (vtep_fdb.h), the underlay's
 * neighbour table (underlay_arp.h) and the counters, and turns bursts of frames both ways:
 *
 *   zvs_vtep_encap_burst   frames from the switch (a burst for the uplink) become outer
 *                          headers, one per copy: a known unicast goes to the remote VTEP
 *                          the table names, broadcast, unknown unicast and multicast go
 *                          to every remote VTEP that has an address (head-end
 *                          replication, RFC 7348 section 4.2). The inner frame is not
 *                          copied: each copy is its header plus the inner frame's bytes.
 *   zvs_vtep_decap_burst   frames from the underlay become inner frames for the switch,
 *                          their source MACs learned behind the VTEP they came from; ARP
 *                          on the underlay is answered and learned.
 *
 * Everything is counted by reason (enum zvs_vtep_reason); a frame the VTEP cannot carry
 * is dropped and counted, never sent fragmented or truncated, and the rest of its burst
 * goes on. One writer (the data-path thread), time passed in (ns), no allocation after
 * create.
 */
#ifndef ZVS_VTEP_H
#define ZVS_VTEP_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "dataplane/oversize.h"
#include "overlay/underlay_arp.h"
#include "overlay/underlay_nd.h"
#include "overlay/vtep_fdb.h"
#include "overlay/vxlan_codec.h"

#define ZVS_VTEP_MAX_REMOTES   32
#define ZVS_VTEP_MAX_VNIS      256      /* VLANs mapped to a VNI on one switch */
#define ZVS_VTEP_NAME_LEN      254      /* a host name as configured (RFC 1035: 253), NUL */
#define ZVS_VTEP_CTL_MAX       8        /* ARP / ND frames the VTEP sends per burst */
#define ZVS_VTEP_NO_VNI        UINT32_MAX

/* Why a frame was dropped (or, for RESERVED_BITS, only counted). */
enum zvs_vtep_reason {
    ZVS_VTEP_TRUNCATED,                 /* outer headers cut short */
    ZVS_VTEP_BAD_OUTER,                 /* bad IP/UDP header, an IP fragment */
    ZVS_VTEP_I_FLAG_CLEAR,              /* VXLAN I flag 0 (RFC 7348 section 5) */
    ZVS_VTEP_RESERVED_BITS,             /* reserved bits set: counted, frame forwarded */
    ZVS_VTEP_INNER_RUNT,                /* inner frame shorter than a MAC header */
    ZVS_VTEP_INNER_OVERSIZE,            /* inner frame longer than the VTEP's limit */
    ZVS_VTEP_INNER_TAGGED,              /* inner 802.1Q tag (RFC 7348 section 6.1) */
    ZVS_VTEP_UNKNOWN_VNI,               /* a VNI this switch does not serve */
    ZVS_VTEP_UNKNOWN_VTEP,              /* outer source is no configured remote VTEP */
    ZVS_VTEP_NOT_LOCAL,                 /* outer destination is not our address */
    ZVS_VTEP_NOT_VXLAN,                 /* neither VXLAN to our port nor ARP */
    ZVS_VTEP_BAD_INNER_SOURCE,          /* inner source MAC group or zero */
    ZVS_VTEP_MAC_LIMIT,                 /* a new inner source past the table's capacity */
    ZVS_VTEP_STATIC_CONFLICT,           /* inner source configured behind another VTEP */
    ZVS_VTEP_UNMAPPED_VLAN,             /* outbound on a VLAN with no VNI */
    ZVS_VTEP_MTU_EXCEEDED,              /* inner + overhead above the underlay MTU */
    ZVS_VTEP_NO_NEIGHBOUR,              /* next hop's MAC unknown (ARP asked) */
    ZVS_VTEP_NO_REMOTE,                 /* no remote VTEP with an address to send to */
    ZVS_VTEP_NOT_SEGMENTED,             /* a super-frame the underlay cannot take whole */
    ZVS_VTEP_TX_FULL,                   /* more copies than the caller's room */
    ZVS_VTEP_BAD_TUNNEL_GSO,            /* tunnel GSO offsets disagree with the headers */
    ZVS_VTEP_REASONS
};

enum zvs_vtep_remote_state {
    ZVS_VTEP_REMOTE_FREE = 0,
    ZVS_VTEP_REMOTE_RESOLVING,          /* a host name without an address yet */
    ZVS_VTEP_REMOTE_ACTIVE,             /* has an address */
};

struct zvs_vtep_remote {
    char              name[ZVS_VTEP_NAME_LEN];  /* as configured: a name or an address */
    struct zvs_ipaddr addr;
    uint8_t           state;            /* enum zvs_vtep_remote_state */
    uint64_t          tx_frames, tx_bytes, rx_frames, rx_bytes;     /* inner frames */
};

struct zvs_vtep_config {
    struct zvs_ipaddr local;            /* our VTEP address on the underlay */
    uint8_t           local_mac[6];     /* the underlay uplink's MAC */
    struct zvs_ipaddr gateway;          /* family 0: remote VTEPs are on-link */
    uint16_t          udp_port;         /* 0: 4789 */
    uint16_t          underlay_vid;     /* 0: untagged */
    uint16_t          untagged_vid;     /* the VLAN whose inner frames the switch takes
                                           untagged (a VLAN AWARE switch's native; 0:
                                           every frame untagged, VLAN UNAWARE) */
    uint32_t          underlay_mtu;     /* IP MTU of the underlay; 0: 1500 */
    uint32_t          inner_max;        /* longest inner frame accepted; 0: 9216 */
    uint32_t          fdb_capacity;     /* 0: ZVS_VTEP_FDB_DEFAULT_CAPACITY */
    uint64_t          fdb_age_ns;       /* 0: 300 s */
    uint64_t          arp_age_ns;       /* 0: ZVS_UARP_DEFAULT_AGE */
};

/* One encapsulated copy, ready for the underlay: hdr, then the inner frame in[in_index]
 * written with tag_op (an inner tag is removed: the VNI says the VLAN). */
struct zvs_vtep_tx {
    uint8_t          hdr[ZVS_VXLAN_MAX_HDR];
    uint16_t         hdr_len;
    uint16_t         in_index;          /* which frame of the burst */
    uint16_t         remote;
    uint16_t         sport;             /* outer UDP source port: a port group's key */
    uint8_t          tag_op;            /* enum zvs_tag_op for the inner frame */
    struct zvs_vnet  vnet;              /* of the whole encapsulated frame */
    uint32_t         len;               /* hdr_len + the inner frame's bytes */
};

/* Frames the VTEP itself sends on the underlay (ARP requests and replies over IPv4,
 * Neighbor Solicitations and Advertisements over IPv6), len[i] bytes each. */
#define ZVS_VTEP_CTL_FRAME_MAX ZVS_UND_FRAME_LEN        /* the longest of them */
struct zvs_vtep_ctl {
    uint8_t  frame[ZVS_VTEP_CTL_MAX][ZVS_VTEP_CTL_FRAME_MAX];
    uint16_t len[ZVS_VTEP_CTL_MAX];
    unsigned n;
};

struct zvs_vtep_stats {
    uint64_t reason[ZVS_VTEP_REASONS];
    uint64_t encapsulated;              /* copies sent (replicas included) */
    uint64_t replicated;                /* copies beyond the first of a flooded frame */
    uint64_t decapsulated;              /* inner frames given to the switch */
    uint64_t arp_sent;                  /* ARP / ND requests and answers sent */
};

struct zvs_vtep;

/* NULL with errno EINVAL (no local address, a gateway of another family) or ENOMEM. */
struct zvs_vtep *zvs_vtep_create(const struct zvs_vtep_config *cfg);
void zvs_vtep_destroy(struct zvs_vtep *v);
const struct zvs_vtep_config *zvs_vtep_config_of(const struct zvs_vtep *v);

/* The underlay's IP MTU (the uplink port's, when the VTEP is put on it). */
void zvs_vtep_set_underlay_mtu(struct zvs_vtep *v, uint32_t mtu);
/* The largest inner IP MTU the segment carries: the underlay's IP MTU less RFC 7348's
 * overhead (outer IP, UDP, VXLAN and the inner Ethernet header: 50 bytes over IPv4, 70
 * over IPv6), what a guest's interface on the switch should not exceed. */
uint32_t zvs_vtep_inner_mtu(const struct zvs_vtep *v);
/* Does the underlay take UDP tunnel super-frames (ZVS_CAP_UDP_TUNNEL_GSO, vxlan_gso.h)?
 * Then, over IPv4, a TCP super-frame is encapsulated whole, its segments (inner headers
 * + gso_size) held to the underlay's MTU; otherwise it is refused (not-segmented). */
void zvs_vtep_set_tunnel_gso(struct zvs_vtep *v, bool on);

/* VLAN vid (0: a VLAN UNAWARE switch) travels as vni. 0, -EINVAL (vni above 24 bits,
 * vid above 4094), -EEXIST (vid or vni mapped already), -ENOSPC. */
int zvs_vtep_map_vni(struct zvs_vtep *v, uint16_t vid, uint32_t vni);
/* VLAN vid travels as no VNI any more (a command changed the map): its outbound frames
 * are counted unmapped-vlan and its VNI's inbound unknown-vni. The MACs learned on that
 * VNI are not looked up again and age out. 0, or -ENOENT. */
int zvs_vtep_unmap_vid(struct zvs_vtep *v, uint16_t vid);
/* The map's pairs: i from 0 below zvs_vtep_nvnis; their order changes with an unmap. */
unsigned zvs_vtep_nvnis(const struct zvs_vtep *v);
uint32_t zvs_vtep_vni_at(const struct zvs_vtep *v, unsigned i, uint16_t *vid);
uint32_t zvs_vtep_vni_of(const struct zvs_vtep *v, uint16_t vid);     /* or ZVS_VTEP_NO_VNI */
int zvs_vtep_vid_of(const struct zvs_vtep *v, uint32_t vni);          /* or -1 */

/* A remote VTEP: name as configured (an address or a host name); addr NULL while the name
 * is not resolved. Returns its index, -EEXIST (same name), -ENOSPC, -EINVAL (name too
 * long, an address of the other family). */
int zvs_vtep_add_remote(struct zvs_vtep *v, const char *name, const struct zvs_ipaddr *addr);
/* A name resolved (again): traffic goes to the new address from the next burst; learned
 * MACs stay with the remote. addr NULL: no address (the name stopped resolving). */
int zvs_vtep_set_remote_addr(struct zvs_vtep *v, unsigned idx, const struct zvs_ipaddr *addr);
/* Forget a remote and every MAC learned behind it. */
int zvs_vtep_del_remote(struct zvs_vtep *v, unsigned idx);
const struct zvs_vtep_remote *zvs_vtep_remote(const struct zvs_vtep *v, unsigned idx);
int zvs_vtep_find_remote(const struct zvs_vtep *v, const char *name);

struct zvs_vtep_fdb *zvs_vtep_fdb(struct zvs_vtep *v);
struct zvs_uarp *zvs_vtep_uarp(struct zvs_vtep *v);

/* Encapsulate a burst of n frames from the switch (classified: vid set). Writes at most
 * out_max copies into out and returns their number; ARP requests to send go to ctl. */
int zvs_vtep_encap_burst(struct zvs_vtep *v, const struct zvs_frame *in, int n, uint64_t now,
                         struct zvs_vtep_tx *out, int out_max, struct zvs_vtep_ctl *ctl);

/* Decapsulate a burst of n underlay frames. out (room for n) gets the inner frames, data
 * pointing into the outer frames' bytes, vid from the VNI, cookie and in_port kept;
 * out_index[i] (may be NULL) says which input frame out[i] came from. Returns their
 * number; ARP replies to send go to ctl. Scattered frames (nfrags > 0) are read through
 * their first fragment only, which must hold the whole frame (uplinks deliver contiguous
 * frames); one that does not is counted as truncated. */
int zvs_vtep_decap_burst(struct zvs_vtep *v, const struct zvs_frame *in, int n, uint64_t now,
                         struct zvs_frame *out, uint16_t *out_index, struct zvs_vtep_ctl *ctl);

/* Age the remote-MAC table (call about once a second). */
void zvs_vtep_tick(struct zvs_vtep *v, uint64_t now);

void zvs_vtep_stats(const struct zvs_vtep *v, struct zvs_vtep_stats *out);
/* Frames from the switch too big for the segment (ZVS_VTEP_MTU_EXCEEDED on the way out),
 * by the switch port they came in on (dataplane/oversize.h; len: their inner Ethernet
 * bytes in one outer datagram, a super-frame's one segment's), since the last take: the
 * daemon names the guest NIC that sent them. Up to room records, as zvs_oversize_take. */
unsigned zvs_vtep_take_oversize(struct zvs_vtep *v, struct zvs_oversize_rec *out,
                                unsigned room);
const char *zvs_vtep_reason_name(enum zvs_vtep_reason r);

#endif
