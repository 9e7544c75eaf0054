/* Port-channel load balancing (see sm_hash.h).
 *
 * Design note: the low 3 bits of the last address byte are what the report means by "a
 * distribution algorithm based on the last three bits": with dst-mac, servers with
 * sequential MAC suffixes land in consecutive buckets. Nothing here allocates or reads
 * past len; a short frame simply hashes on the bytes it has.
 */
#include "tests/switchmodel/sm_hash.h"

#include <stddef.h>

static uint8_t byte_at(const uint8_t *f, uint32_t len, uint32_t off)
{
    return off < len ? f[off] : 0;
}

/* Offsets of the last bytes of the IP source and destination; 0 if not IP. */
static int ip_last_bytes(const uint8_t *f, uint32_t len, uint32_t *src, uint32_t *dst)
{
    uint32_t off = 12;
    if (len < 14)
        return 0;
    uint16_t et = (uint16_t)(f[12] << 8 | f[13]);
    if (et == 0x8100 || et == 0x88A8) {
        if (len < 18)
            return 0;
        off = 16;
        et = (uint16_t)(f[16] << 8 | f[17]);
    }
    uint32_t l3 = off + 2;
    if (et == 0x0800 && len >= l3 + 20 && (f[l3] >> 4) == 4) {
        *src = l3 + 15;                 /* source address: l3 + 12..15 */
        *dst = l3 + 19;                 /* destination: l3 + 16..19 */
        return 1;
    }
    if (et == 0x86DD && len >= l3 + 40 && (f[l3] >> 4) == 6) {
        *src = l3 + 23;                 /* source address: l3 + 8..23 */
        *dst = l3 + 39;                 /* destination: l3 + 24..39 */
        return 1;
    }
    return 0;
}

unsigned sm_lb_bucket(enum sm_lb lb, const uint8_t *frame, uint32_t len)
{
    uint8_t dmac = byte_at(frame, len, 5), smac = byte_at(frame, len, 11);
    uint32_t s, d;

    switch (lb) {
    case SM_LB_DST_MAC:
        return dmac & 7u;
    case SM_LB_SRC_MAC:
        return smac & 7u;
    case SM_LB_SRC_DST_MAC:
        return (unsigned)(dmac ^ smac) & 7u;
    case SM_LB_SRC_DST_IP:
        if (ip_last_bytes(frame, len, &s, &d))
            return (unsigned)(frame[s] ^ frame[d]) & 7u;
        return (unsigned)(dmac ^ smac) & 7u;
    }
    return 0;
}

uint8_t sm_lb_load_mask(unsigned i, unsigned n)
{
    uint8_t m = 0;
    if (n == 0)
        return 0;
    for (unsigned b = 0; b < SM_BUCKETS; b++)
        if (sm_lb_member(b, n) == i)
            m = (uint8_t)(m | 1u << b);
    return m;
}
