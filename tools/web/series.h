/* Which device or NIC a chart's or a metric's series belongs to, and the find-or-add both
 * use: an uplink device is its VSWITCH and RDEV, a NIC its VSWITCH, owner and VDEV. */
#ifndef ZVS_WEB_SERIES_H
#define ZVS_WEB_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct series_key {
    bool     nic;                       /* a D8R1 NIC, else a D6R21 uplink device */
    char     vswitch[9];
    char     userid[9];                 /* the NIC's owner; "" for a device */
    uint16_t addr;                      /* RDEV or VDEV */
};

struct series_key series_key(bool nic, const char *vswitch, const char *userid, uint16_t addr);

/* The element of *arr (n elements of `size` bytes, each starting with its struct
 * series_key) with key k, looked for from index hint on (records come in the same order
 * every interval); if none, a zeroed one with that key is appended (*arr grows by
 * doubling, *fresh set). NULL when memory runs out. */
void *series_find(void **arr, unsigned *n, unsigned *cap, size_t size,
                  const struct series_key *k, unsigned hint, bool *fresh);

#endif
