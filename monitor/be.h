/* be: the big-endian fields of monitor records and of the monitor file (z/Architecture
 * byte order), written and read byte by byte, so nothing depends on the host's order or
 * on a field's alignment inside a record. Shared by monrec.c and monfile.c. */
#ifndef ZVS_MONITOR_BE_H
#define ZVS_MONITOR_BE_H

#include <stdint.h>

static inline void be_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void be_put32(uint8_t *p, uint32_t v)
{
    be_put16(p, (uint16_t)(v >> 16));
    be_put16(p + 2, (uint16_t)v);
}

static inline void be_put64(uint8_t *p, uint64_t v)
{
    be_put32(p, (uint32_t)(v >> 32));
    be_put32(p + 4, (uint32_t)v);
}

static inline uint16_t be_get16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t be_get32(const uint8_t *p)
{
    return ((uint32_t)be_get16(p) << 16) | be_get16(p + 2);
}

static inline uint64_t be_get64(const uint8_t *p)
{
    return ((uint64_t)be_get32(p) << 32) | be_get32(p + 4);
}

#endif
