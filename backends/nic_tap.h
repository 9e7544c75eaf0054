/* nic_tap: the "tap" NIC kind (NICBIND vdev TAP ifname), registered in backend.c; the
 * ops and its rules are nic_class.h's, the tap's own in nic_tap.c. */
#ifndef ZVS_NIC_TAP_H
#define ZVS_NIC_TAP_H

#include "backends/nic_class.h"

extern const struct zvs_nic_class zvs_nic_tap_class;

/* The MTU a tap the kind makes gets for a switch that carries `segment` bytes of IP (0: no
 * limit known): the smaller of that and ZVS_GUEST_TAP_MTU_DEFAULT, as a Linux bridge's
 * port or libvirt's tap takes the smaller MTU; the default when segment is below IPv4's
 * 68 (no tap can be that small: the tap is left at its MTU and the COUPLE's ZVSVXL1240W
 * says the segment cannot carry it). */
uint32_t zvs_nic_tap_mtu(uint32_t segment);

#endif
