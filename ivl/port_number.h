/* port_number: 802.1AX port numbers unique across an IVL domain.
 *
 * The partner sees one aggregation with one actor system id, so the Port Numbers of every
 * system's members must differ (802.1AX-2020 6.3.4: a port number identifies a port within
 * the system; 9.3.3 gives DRNI's portal systems disjoint ranges the same way). The scheme:
 * the system's index (1..3) in the high byte, the member's slot in its group plus one
 * (1..8) in the low byte: system 2's third member is 0x0203. Never 0 (a null port), and a
 * number tells the system that owns the port.
 */
#ifndef ZVS_IVL_PORT_NUMBER_H
#define ZVS_IVL_PORT_NUMBER_H

#include <stdint.h>

/* 0 when index or slot is out of range. */
uint16_t zvs_ivl_port_number(unsigned index, unsigned slot);
/* The system index a domain port number belongs to (0: not a domain number). */
unsigned zvs_ivl_port_system(uint16_t port);

#endif
