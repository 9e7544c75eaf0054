/* Text renderers for one LACP port: what the operator's QUERY LACP and the daemon's stats
 * report print. Fixed layout, one item per line, documented byte for byte in
 * lacp/README.md ("Port report") and pinned by golden strings in tests/unit/test_lacp_show.c.
 * Pure functions of the engine's getters and `now`: no I/O, no allocation.
 */
#ifndef ZVS_LACP_SHOW_H
#define ZVS_LACP_SHOW_H

#include <stddef.h>
#include <stdint.h>

#include "lacp/lacp_port.h"
#include "lacp/marker.h"

/* Buffer for zvs_lacp_state_flags: 8 words of 3 letters and 7 spaces take 31 bytes + NUL. */
#define ZVS_LACP_STATE_FLAGS_LEN 40

/* The state octet as the short names of its set bits, bit 0 first, one space apart:
 *   ACT Activity (Active)    STO Timeout (Short)   AGG Aggregation      SYN Synchronization
 *   COL Collecting           DIS Distributing      DEF Defaulted        EXP Expired
 * e.g. 0x3F -> "ACT STO AGG SYN COL DIS", 0x45 -> "ACT AGG DEF"; "-" for 0. Returns buf. */
const char *zvs_lacp_state_flags(uint8_t state, char buf[ZVS_LACP_STATE_FLAGS_LEN]);

/* The port report (layout in lacp/README.md): 9 lines, each ending in '\n'. m is the
 * port's Marker protocol, or NULL (the Markers line then reads "Markers: -"). Writes at most
 * len bytes including the NUL; always NUL-terminated when len > 0 (buf may be NULL when len
 * is 0). Returns the length of the whole report (snprintf semantics: >= len means it was
 * cut). */
int zvs_lacp_port_format(const struct zvs_lacp_port *p, const struct zvs_lacp_marker *m,
                         uint64_t now, char *buf, size_t len);

#endif
