/* Monitor records for unit tests (test_monrec.c, test_monfile.c): one lab's identities
 * (VSWITCH SYSTEM VSW1 with controller DTCVSW1 and port group ETHGRP, guests LINUX01 and
 * LINUX02), each builder a zeroed record with those fields filled in and every counter
 * zero; the tests add the counters they assert on. */
#ifndef ZVS_TEST_MONREC_BUILDERS_H
#define ZVS_TEST_MONREC_BUILDERS_H

#include "monitor/monrec.h"

#include <stdint.h>

#define MONREC_TOD0 0xDE6E75AA78380000ull  /* 2024-01-01 00:00:30 UTC, TOD clock from 1900 */

/* A zeroed record with its header: domain, number, tod. */
struct zvs_mon_record monrec_new(uint8_t domain, uint16_t number, uint64_t tod);

/* D6R21 of VSW1's uplink rdev: controller DTCVSW1, LAN SYSTEM VSW1, group ETHGRP, 8 MB of
 * queue storage, OSA port 0. */
struct zvs_mon_record monrec_vswitch(uint16_t rdev, uint64_t tod);

/* D6R22 or D6R23 (number) of VSW1's uplink 0603: LAN SYSTEM VSW1, controller DTCVSW1,
 * group ETHGRP, OSA port 0, reason ZVS_MON_FAIL_NONE. */
struct zvs_mon_record monrec_vswitch_event(uint16_t number, uint64_t tod);

/* D8R1 of LINUX01's NIC vdev: type 2, transport 2, on a VSWITCH, LAN SYSTEM VSW1, group
 * ETHGRP, MAC zero. */
struct zvs_mon_record monrec_vnic(uint16_t vdev, uint64_t tod);

/* D8R2 or D8R3 (number) of LINUX02's NIC 0700, type 2, on LAN SYSTEM VSW1. */
struct zvs_mon_record monrec_link(uint16_t number, uint64_t tod);

#endif
