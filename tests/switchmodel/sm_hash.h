/* Port-channel load balancing, Catalyst style.
 *
 * A frame's selected address fields give a 3-bit hash: the XOR of the low 3 bits of the
 * last byte of each selected address (dst-mac: destination MAC; src-mac: source MAC;
 * src-dst-mac: both MACs; src-dst-ip: both IPv4 or IPv6 addresses, or both MACs for a
 * frame that is not IP, as IOS does). The hash is one of 8 buckets; bucket b is carried by
 * bundled member b mod n, the members taken in port order (2 members: 0x55 / 0xAA, 3:
 * 0x49 / 0x92 / 0x24 as the "Load" masks IOS shows).
 */
#ifndef SM_HASH_H
#define SM_HASH_H

#include <stdint.h>

#include "tests/switchmodel/sm_config.h"

#define SM_BUCKETS 8

/* Bucket 0..7 of an Ethernet frame (untagged or with one 802.1Q tag). Reads at most len
 * bytes; a frame too short for the fields asked for hashes as far as it goes (missing
 * bytes count as 0). */
unsigned sm_lb_bucket(enum sm_lb lb, const uint8_t *frame, uint32_t len);

/* The member (0..n-1) that carries bucket b when n members are bundled; n > 0. */
static inline unsigned sm_lb_member(unsigned bucket, unsigned n)
{
    return bucket % n;
}

/* The IOS "Load" mask of member i of n: bit b set when the member carries bucket b. */
uint8_t sm_lb_load_mask(unsigned i, unsigned n);

#endif
