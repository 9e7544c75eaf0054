/* The switch model's layer-2 core: MAC learning with aging, VLAN classification and the
 * forwarding decision, on logical ports (an access or trunk port, or a whole port-channel).
 *
 * Pure logic: no I/O, no clock (now in nanoseconds is passed in), no allocation.
 * VLANs: an access port carries one VLAN untagged (tagged frames arriving on it are
 * dropped); a trunk (every port-channel, and ports with "switchport mode trunk") carries
 * every VLAN tagged and VLAN 1 untagged (native).
 */
#ifndef SM_L2_H
#define SM_L2_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/switchmodel/sm_config.h"

#define SM_MAC_MAX      4096            /* MAC table entries */
#define SM_MAC_HASH     1024            /* hash chains */
#define SM_MAX_LPORTS   (SM_MAX_IFS + SM_MAX_GROUPS)
#define SM_NATIVE_VID   1

struct sm_mac_entry {
    uint8_t  mac[6];
    uint16_t vid;
    uint16_t lport;                     /* where the MAC was last seen */
    int32_t  next;                      /* chain / free list, -1 ends */
    uint64_t last_seen;                 /* now of the last frame from it */
};

struct sm_mac_table {
    int32_t  heads[SM_MAC_HASH];        /* first entry of each chain, -1: empty */
    struct sm_mac_entry e[SM_MAC_MAX];
    int32_t  free_head;                 /* first free entry, -1: full */
    unsigned count;                     /* entries in use */
    uint64_t aging_ns;                  /* 0: never age */
    uint64_t learned;                   /* new entries */
    uint64_t moves;                     /* MAC seen on another logical port */
    uint64_t full;                      /* learning refused: table full */
};

void sm_mac_init(struct sm_mac_table *t, uint64_t aging_ns);
/* Learn mac on lport. Returns 0 new entry, 1 refreshed, 2 moved from another port,
 * -ENOSPC table full. */
int sm_mac_learn(struct sm_mac_table *t, uint16_t vid, const uint8_t mac[6], uint16_t lport,
                 uint64_t now);
/* The logical port of mac, or -1 (unknown, or older than the aging time). */
int sm_mac_lookup(const struct sm_mac_table *t, uint16_t vid, const uint8_t mac[6],
                  uint64_t now);
/* Remove entries older than the aging time; returns how many. */
unsigned sm_mac_age(struct sm_mac_table *t, uint64_t now);
/* Remove every entry on lport (its link went down); returns how many. */
unsigned sm_mac_flush_lport(struct sm_mac_table *t, uint16_t lport);
void sm_mac_flush(struct sm_mac_table *t);
/* Copy the live entries sorted by VLAN then MAC; returns how many were copied. */
unsigned sm_mac_dump(const struct sm_mac_table *t, uint64_t now, struct sm_mac_entry *out,
                     unsigned max);

struct sm_lport {
    bool     up;                        /* may forward (a port-channel: a member bundled) */
    bool     trunk;                     /* all VLANs, native 1 untagged */
    uint16_t access_vid;                /* the VLAN of an access port */
};

struct sm_l2 {
    struct sm_mac_table mac;
    unsigned n_lports;
    struct sm_lport lp[SM_MAX_LPORTS];
};

/* VLAN of a frame entering through lp: 0 and *vid, or -1 if the port does not take it
 * (tagged on an access port, VID 4095). len must be at least 14. */
int sm_l2_classify(const struct sm_lport *lp, const uint8_t *frame, uint32_t len,
                   uint16_t *vid);
/* Learns the source and decides: fills out[] with the logical ports the frame goes to
 * and returns how many (0: filtered or nowhere to go). Unicast to a known MAC goes to
 * its port (nowhere if that is the ingress); anything else floods to every up port of
 * the VLAN except the ingress. */
unsigned sm_l2_forward(struct sm_l2 *l2, uint16_t in_lport, uint16_t vid,
                       const uint8_t *frame, uint64_t now, uint16_t out[SM_MAX_LPORTS]);
/* The tag operation (enum zvs_tag_op) for a frame of `vid` leaving through lp. */
uint8_t sm_l2_egress_op(const struct sm_lport *lp, uint16_t vid, bool frame_tagged);

#endif
