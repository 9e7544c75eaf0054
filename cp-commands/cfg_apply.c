/* The running configuration: one configuration command applied to struct zvs_cfg.
 *
 * Owns the rules a CP configuration command must pass against the running configuration
 * (cfg_apply.h lists the commands) and the edits that keep cfg's arrays consistent. Pure
 * logic: no I/O, no clock; the daemon makes the data plane match the result.
 *
 * Atomicity: every handler checks everything first and changes cfg only after the last
 * check passed; nothing after the first write can fail. So a refused command writes one
 * error line (zvs_cp_error, cp_messages.c catalogue) and leaves cfg identical byte for
 * byte (tests compare zvs_cfg_dump and the whole struct). cfg->msgs is never touched.
 * Temporary state lives on the stack (a group's scratch copy, a MACID bitmap): no
 * allocation, so no out-of-memory path between check and change.
 *
 * This file: zvs_cfg_apply (refuses what is not a configuration command, dispatches the rest
 * to one handler family per file: cfg_apply_vswitch.c for DEFINE / SET / DETACH VSWITCH
 * with GRANT and REVOKE, cfg_apply_group.c for SET PORT GROUP, cfg_apply_nic.c for
 * DEFINE / DETACH NIC, COUPLE and UNCOUPLE, cfg_apply_resolver.c for RESOLVER WATCH and
 * UNWATCH), zvs_cfg_cmd_is_config, the lookups of
 * cfg_apply.h and the small helpers and device lookups the handlers share
 * (cfg_apply_impl.h). Each handler file's note holds the rules and decisions of its
 * commands.
 *
 * Consistency rule kept by every edit: objects created by command carry line 0 (grant,
 * group, switch, NIC): "not from a file"; names are stored upper case.
 * Decision: a command that is not a configuration command (zvs_cfg_cmd_is_config false) is
 * a caller bug: ZVSCMD1119S and -EINVAL.
 * Return codes: -ENOENT (something named does not exist), -EEXIST, -ENOSPC (a limit),
 * -EBUSY (in use, already coupled), -ENOTCONN (not coupled), -EPERM (not the owner),
 * -EACCES (not authorized to couple), -EINVAL (anything else).
 */
#include "cp-commands/cfg_apply.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cp-commands/cfg_apply_impl.h"

/* ---- small helpers ------------------------------------------------------------------- */

void zvs_apply_copy_upper(char *dst, size_t size, const char *src)
{
    size_t i = 0;

    for (; i + 1 < size && src[i] != '\0'; i++)
        dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 'a' + 'A' : src[i]);
    dst[i] = '\0';
}

void zvs_apply_vdev_fmt(uint16_t vdev, char buf[8])
{
    snprintf(buf, 8, "%04X", (unsigned)vdev);
}

void zvs_apply_num_fmt(unsigned v, char buf[12])
{
    snprintf(buf, 12, "%u", v);
}

void zvs_apply_dev_fmt(struct zvs_rdev d, char buf[12])
{
    zvs_rdev_format(d, buf, 12);
}

unsigned zvs_apply_nic_last(const struct zvs_cfg_nic *n)
{
    return (unsigned)n->vdev + n->devices - 1u;
}

bool zvs_apply_nic_dir_authorized(const struct zvs_cfg_nic *n)
{
    return n->has_vlan || n->porttype != ZVS_PORTTYPE_UNSPEC;
}

void zvs_apply_nic_uncouple(struct zvs_cfg_nic *n)
{
    memset(n->lan, 0, sizeof n->lan);
    n->vswitch = -1;
}

int zvs_apply_no_room(struct zvs_cp_response *r, const char *what, unsigned limit)
{
    char num[12];

    zvs_apply_num_fmt(limit, num);
    return REFUSE(r, -ENOSPC, ZVS_CPMSG_LIMIT_REACHED, what, num);
}

/* ---- device checks shared by DEFINE VSWITCH, SET VSWITCH RDEV and JOIN ---------------- */

/* The switch other than `self` (-1: none) that has `d` as an RDEV, or -1. */
int zvs_apply_rdev_owner(const struct zvs_cfg *cfg, struct zvs_rdev d, int self)
{
    for (unsigned s = 0; s < cfg->nvswitch; s++) {
        if ((int)s == self)
            continue;
        for (unsigned q = 0; q < cfg->vswitch[s].nrdev; q++)
            if (zvs_rdev_equal(cfg->vswitch[s].rdev[q], d))
                return (int)s;
    }
    return -1;
}

/* The group that has `d` as a member, or -1. */
int zvs_apply_group_of(const struct zvs_cfg *cfg, struct zvs_rdev d)
{
    for (unsigned g = 0; g < cfg->ngroup; g++)
        for (unsigned p = 0; p < cfg->group[g].nport; p++)
            if (zvs_rdev_equal(cfg->group[g].port[p], d))
                return (int)g;
    return -1;
}

/* The switch other than `self` whose GROUP is `name`, or -1. */
int zvs_apply_group_user(const struct zvs_cfg *cfg, const char *name, int self)
{
    for (unsigned s = 0; s < cfg->nvswitch; s++)
        if ((int)s != self && strcasecmp(cfg->vswitch[s].group, name) == 0)
            return (int)s;
    return -1;
}

/* ---- lookups (cfg_apply.h) ----------------------------------------------------------- */

/* ---- lookups (cfg_apply.h) ----------------------------------------------------------- */

int zvs_cfg_find_grant(const struct zvs_cfg *cfg, unsigned sw, const char *userid)
{
    for (unsigned i = 0; i < cfg->ngrant; i++)
        if (cfg->grant[i].vswitch == sw && strcasecmp(cfg->grant[i].userid, userid) == 0)
            return (int)i;
    return -1;
}

int zvs_cfg_find_nic(const struct zvs_cfg *cfg, const char *userid, uint16_t vdev)
{
    int u = zvs_cfg_find_user(cfg, userid);

    if (u < 0)
        return -1;
    const struct zvs_cfg_user *user = &cfg->user[u];
    for (unsigned i = user->first_nic; i < (unsigned)user->first_nic + user->nnic; i++)
        if (vdev >= cfg->nic[i].vdev && vdev <= zvs_apply_nic_last(&cfg->nic[i]))
            return (int)i;
    return -1;
}

bool zvs_cfg_may_couple(const struct zvs_cfg *cfg, unsigned sw, const char *userid,
                        const struct zvs_cfg_nic *nic)
{
    if (nic != NULL && zvs_apply_nic_dir_authorized(nic))
        return true;
    return zvs_cfg_find_grant(cfg, sw, userid) >= 0;
}

bool zvs_cfg_cmd_is_config(const struct zvs_cmd *cmd)
{
    switch (cmd->verb) {
    case ZVS_CMD_SET_PORT_GROUP:
        switch (cmd->pg_op) {
        case ZVS_CMD_PG_JOIN:
        case ZVS_CMD_PG_LEAVE:
        case ZVS_CMD_PG_LACP:
        case ZVS_CMD_PG_INTERVAL:
        case ZVS_CMD_PG_DELETE:
        case ZVS_CMD_PG_POLICY:
            return true;
        default:
            return false;
        }
    case ZVS_CMD_SET_VSWITCH:
        switch (cmd->vs_op) {
        case ZVS_CMD_VS_GRANT:
        case ZVS_CMD_VS_REVOKE:
        case ZVS_CMD_VS_RDEV:
        case ZVS_CMD_VS_GROUP:
        case ZVS_CMD_VS_NOGROUP:
        case ZVS_CMD_VS_CONNECT:
        case ZVS_CMD_VS_DISCONNECT:
        case ZVS_CMD_VS_QUEUESTORAGE:
        case ZVS_CMD_VS_ISOLATION:
        case ZVS_CMD_VS_MACPROTECT:
        case ZVS_CMD_VS_IVLPORT_HEARTBEAT:
        case ZVS_CMD_VS_VXLAN:
            return true;
        default:                        /* COUNTERS CLEAR, SWITCHOVER: the data plane's */
            return false;
        }
    case ZVS_CMD_DEFINE_VSWITCH:
    case ZVS_CMD_DETACH_VSWITCH:
    case ZVS_CMD_DEFINE_NIC:
    case ZVS_CMD_DETACH_NIC:
    case ZVS_CMD_COUPLE:
    case ZVS_CMD_UNCOUPLE:
    case ZVS_CMD_RESOLVER:
        return true;
    default:
        return false;
    }
}

/* ---- entry --------------------------------------------------------------------------- */

int zvs_cfg_apply(struct zvs_cfg *cfg, const struct zvs_cmd *cmd, const struct zvs_issuer *who,
                  struct zvs_cp_response *r)
{
    int rc;

    if (!zvs_cfg_cmd_is_config(cmd)) {
        char text[256];                 /* the message shows ZVS_CPMSG_ARG_MAX, then "..." */
        zvs_cmd_format(cmd, text, sizeof text);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_COMMAND_FAILED, text[0] != '\0' ? text : "?",
                      "not a configuration command");
    }
    switch (cmd->verb) {
    case ZVS_CMD_DEFINE_VSWITCH: rc = zvs_apply_define_vswitch(cfg, cmd, r); break;
    case ZVS_CMD_SET_VSWITCH:    rc = zvs_apply_set_vswitch(cfg, cmd, r); break;
    case ZVS_CMD_DETACH_VSWITCH: rc = zvs_apply_detach_vswitch(cfg, cmd, r); break;
    case ZVS_CMD_SET_PORT_GROUP: rc = zvs_apply_set_port_group(cfg, cmd, r); break;
    case ZVS_CMD_RESOLVER:       rc = zvs_apply_resolver(cfg, cmd, r); break;
    default:                     rc = zvs_apply_nic_command(cfg, cmd, who, r); break;
    }
    if (rc == 0)
        r->rc = 0;
    return rc;
}
