/* The running configuration: what a CP command changes in struct zvs_cfg.
 *
 * vswitchd keeps one struct zvs_cfg as the running configuration: it starts as SYSTEM
 * CONFIG + USER DIRECT (validated) and every configuration command changes it. The
 * executor then makes the data plane match it (daemon/daemon_reconcile.c). This file is
 * the pure half: it checks a parsed command against the configuration and the issuer's
 * rights, and changes the configuration, or refuses with a z/VM-style error and changes
 * nothing at all (zvs_cfg_dump before and after is byte-for-byte equal).
 *
 * Commands handled (cp-commands/command.h):
 *   DEFINE VSWITCH, SET VSWITCH GRANT | REVOKE | RDEV | GROUP | NOGROUP | CONNECT |
 *   DISCONNECT | QUEUESTORAGE | ISOLATION | MACPROTECT, DETACH VSWITCH,
 *   SET PORT GROUP JOIN | LEAVE | LACP | INTERVAL | DELETE, DEFINE NIC, DETACH NIC,
 *   COUPLE, UNCOUPLE, RESOLVER WATCH | UNWATCH (ours).
 * Other verbs (queries, COUNTERS CLEAR, SWITCHOVER, SET LACP) change no configuration:
 * zvs_cfg_apply refuses them with -EINVAL and ZVSCMD1119S (a caller bug).
 */
#ifndef ZVS_CFG_APPLY_H
#define ZVS_CFG_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "cp-commands/command.h"
#include "cp-commands/config.h"

/* The issuer of a command: its CP userid and privilege classes (ZVS_PRIVCLASS bits). */
struct zvs_issuer {
    char     userid[ZVS_USERID_MAX + 1];
    uint32_t privclass;
};

/* True when `cmd` changes the configuration (zvs_cfg_apply handles it). */
bool zvs_cfg_cmd_is_config(const struct zvs_cmd *cmd);

/* Applies `cmd` to the running configuration `cfg` as `who`. Returns 0 after writing the
 * success response to r (e.g. "Command complete", "NIC 0600 is connected to VSWITCH
 * SYSTEM CCBVSW1"), or a negative errno after writing exactly one error line (rc set);
 * on error cfg is unchanged. Allocates nothing that outlives the call; cfg->msgs is not
 * touched. */
int zvs_cfg_apply(struct zvs_cfg *cfg, const struct zvs_cmd *cmd, const struct zvs_issuer *who,
                  struct zvs_cp_response *r);

/* Whether `userid` may couple a NIC to switch index `sw`: a GRANT, or a directory
 * authorization (NICDEF with PORTTYPE or VLAN) on that NIC. */
bool zvs_cfg_may_couple(const struct zvs_cfg *cfg, unsigned sw, const char *userid,
                        const struct zvs_cfg_nic *nic);

/* The NIC of `userid` whose device range holds `vdev` (base or a later device), or -1. */
int zvs_cfg_find_nic(const struct zvs_cfg *cfg, const char *userid, uint16_t vdev);

/* The GRANT of `userid` on switch index `sw`, or -1. */
int zvs_cfg_find_grant(const struct zvs_cfg *cfg, unsigned sw, const char *userid);

#endif
