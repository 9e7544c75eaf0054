/* nic_tap: the "tap" NIC kind (NICBIND vdev TAP ifname), registered in backend.c; the
 * ops and its rules are nic_class.h's, the tap's own in nic_tap.c. */
#ifndef ZVS_NIC_TAP_H
#define ZVS_NIC_TAP_H

#include "backends/nic_class.h"

extern const struct zvs_nic_class zvs_nic_tap_class;

#endif
