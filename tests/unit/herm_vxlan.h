/* The remote VTEP the hermetic VXLAN tests play
 * (test_daemon_vxlan_{group,cmd,vlan,neighbor,aging}.c): 10.0.0.2 with MAC
 * 02:bb:00:00:00:02 on a link's far end, the daemon's VTEP 10.0.0.1, UDP port 4789; the
 * set-up of a switch with one guest; and the checks every such test makes of a response. */
#ifndef ZVS_TEST_HERM_VXLAN_H
#define ZVS_TEST_HERM_VXLAN_H

#include <stdint.h>

#include "tests/unit/hermetic.h"

extern const uint8_t herm_vx_remote_mac[6];

/* herm_start on `sysconfig` (a VXLAN VSWITCH VXSW on OSA 28BA, link osa28ba) and
 * tests/unit/hermetic/USER-CCB.DIRECT, then LNXA's F000 coupled to VXSW and attached
 * (*a). */
struct herm *herm_vx_start(const char *sysconfig, struct herm_guest **a);

/* `inner` (len bytes) encapsulated as the remote sends it on `vni` (outer source port
 * 50000), to outer MAC `outer_dst` (NULL: broadcast), on the far end of `link`. */
void herm_vx_send(struct herm *h, const char *link, const uint8_t *outer_dst,
                  const uint8_t *inner, uint32_t len, uint32_t vni);

/* cmocka-fails, showing text, unless text contains want. */
void herm_expect(const char *text, const char *want);
/* `line` as OPERATOR (classes A-G) answers exactly `want` with CP return code want_rc. */
void herm_refused(struct herm *h, const char *line, int want_rc, const char *want);

#endif
