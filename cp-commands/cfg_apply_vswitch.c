/* The running configuration: DEFINE VSWITCH, SET VSWITCH and DETACH VSWITCH.
 *
 * Owns the VSWITCH handlers of zvs_cfg_apply (cfg_apply.c dispatches): a new switch, the
 * SET VSWITCH operands that are configuration (GRANT, REVOKE, RDEV, GROUP, NOGROUP,
 * CONNECT, DISCONNECT, QUEUESTORAGE, ISOLATION, MACPROTECT; VXLAN in cfg_apply_vxlan.c)
 * and removing a switch.
 * Atomicity as for every handler (cfg_apply.c): check everything, then write; nothing
 * after the first write can fail.
 *
 * Consistency rule kept by the edits:
 *   - removing VSWITCH k removes its grants, uncouples its NICs (lan "", vswitch -1) and
 *     renumbers grant[].vswitch and nic[].vswitch above k; its port group stays defined.
 *
 * Decisions (the lead's, and ours where marked):
 *   - GRANT of an already granted user modifies the grant as z/VM does: PORTTYPE replaced
 *     when given, VLANs added to the set; the VLAN aware rule (ZVSVSW1129E) and the ACCESS
 *     one-VLAN rule (ZVSVSW1130E, on the resulting set and PORTTYPE) are checked as for
 *     MODIFY VSWITCH in SYSTEM CONFIG. Any valid userid may be granted (not logged on or
 *     not in the directory is fine, as in z/VM). More than ZVS_VIDSET_MAX ranges after the
 *     merge: ZVSCMD1133E (ours).
 *   - REVOKE uncouples the user's NICs on that switch that have no directory
 *     authorization (NICDEF PORTTYPE or VLAN), listing each before "Command complete".
 *   - An RDEV (DEFINE VSWITCH, SET VSWITCH RDEV) needs an RDEVICE mapping and may be
 *     neither another switch's RDEV nor a member of any port group (its own switch's group
 *     included: the RDEVs are the group's fallback uplink, config.c).
 *   - SET VSWITCH RDEV / GROUP / CONNECT / DISCONNECT on a NOUPLINK switch: ZVSVSW1135E.
 *     NOGROUP is always accepted (a NOUPLINK switch has no group to clear).
 */
#include "cp-commands/cfg_apply_impl.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- checks shared by DEFINE VSWITCH and SET VSWITCH RDEV / GROUP --------------------- */

/* RDEV devices of switch `self` (-1: a new switch): at most ZVS_CFG_MAX_RDEV, mapped, not
 * repeated, no other switch's RDEV, in no port group. `cap` is the size of the rdev
 * array (for the message naming the first device too many). */
static int check_uplink_rdevs(const struct zvs_cfg *cfg, const struct zvs_rdev *rdev,
                              unsigned nrdev, unsigned cap, int self, struct zvs_cp_response *r)
{
    char dev[12], who[32], limit[12];

    if (nrdev > ZVS_CFG_MAX_RDEV) {
        if (cap > ZVS_CFG_MAX_RDEV)
            zvs_apply_dev_fmt(rdev[ZVS_CFG_MAX_RDEV], dev);
        else
            zvs_apply_num_fmt(nrdev, dev);
        zvs_apply_num_fmt(ZVS_CFG_MAX_RDEV, limit);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_TOO_MANY_DEVICES, dev, limit);
    }
    for (unsigned i = 0; i < nrdev; i++) {
        zvs_apply_dev_fmt(rdev[i], dev);
        for (unsigned j = 0; j < i; j++)
            if (zvs_rdev_equal(rdev[j], rdev[i]))
                return REFUSE(r, -EINVAL, ZVS_CPMSG_DEVICE_REPEATED, dev);
        if (zvs_cfg_find_rdevice(cfg, rdev[i]) < 0)
            return REFUSE(r, -ENOENT, ZVS_CPMSG_DEVICE_UNMAPPED, dev);
        int s = zvs_apply_rdev_owner(cfg, rdev[i], self);
        if (s >= 0) {
            snprintf(who, sizeof who, "VSWITCH %s", cfg->vswitch[s].name);
            return REFUSE(r, -EBUSY, ZVS_CPMSG_DEVICE_IN_USE, dev, who);
        }
        int g = zvs_apply_group_of(cfg, rdev[i]);
        if (g >= 0) {
            snprintf(who, sizeof who, "PORT GROUP %s", cfg->group[g].name);
            return REFUSE(r, -EBUSY, ZVS_CPMSG_DEVICE_IN_USE, dev, who);
        }
    }
    return 0;
}

/* GROUP name for switch `self` (-1: a new switch): defined, not empty, no other switch's.
 * Returns the group's index or a negative errno. */
static int check_switch_group(const struct zvs_cfg *cfg, const char *name, int self,
                              struct zvs_cp_response *r)
{
    int g = zvs_cfg_find_group(cfg, name);

    if (g < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_GROUP_NOT_FOUND, name);
    if (cfg->group[g].nport == 0)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_GROUP_EMPTY_USE, cfg->group[g].name);
    int s = zvs_apply_group_user(cfg, cfg->group[g].name, self);
    if (s >= 0)
        return REFUSE(r, -EBUSY, ZVS_CPMSG_GROUP_IN_USE, cfg->group[g].name,
                      cfg->vswitch[s].name);
    return g;
}

/* ---- DEFINE VSWITCH / DETACH VSWITCH ------------------------------------------------- */

int zvs_apply_define_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                             struct zvs_cp_response *r)
{
    const struct zvs_cfg_vswitch *v = &cmd->vsw;
    int rc;

    if (zvs_cfg_find_vswitch(cfg, cmd->name) >= 0)
        return REFUSE(r, -EEXIST, ZVS_CPMSG_VSWITCH_EXISTS, cmd->name);
    if (cfg->nvswitch >= ZVS_CFG_MAX_VSWITCHES)
        return zvs_apply_no_room(r, "VSWITCH", ZVS_CFG_MAX_VSWITCHES);
    if (v->group[0] != '\0' && (rc = check_switch_group(cfg, v->group, -1, r)) < 0)
        return rc;
    if ((rc = check_uplink_rdevs(cfg, v->rdev, v->nrdev, ZVS_CFG_MAX_RDEV, -1, r)) < 0)
        return rc;

    struct zvs_cfg_vswitch *sw = &cfg->vswitch[cfg->nvswitch++];
    memcpy(sw, v, sizeof *sw);
    memset(sw->name, 0, sizeof sw->name);
    zvs_apply_copy_upper(sw->name, sizeof sw->name, cmd->name);
    sw->line = 0;
    if (v->group[0] != '\0') {
        memset(sw->group, 0, sizeof sw->group);
        zvs_apply_copy_upper(sw->group, sizeof sw->group, v->group);
    }
    zvs_cp_printf(r, "VSWITCH SYSTEM %s is created", sw->name);
    return 0;
}

static void remove_vswitch(struct zvs_cfg *cfg, unsigned k, struct zvs_cp_response *r)
{
    unsigned n = 0;

    for (unsigned i = 0; i < cfg->nnic; i++) {
        struct zvs_cfg_nic *nic = &cfg->nic[i];
        if (nic->vswitch == (int)k) {
            char vdev[8];
            zvs_apply_vdev_fmt(nic->vdev, vdev);
            zvs_apply_nic_uncouple(nic);
            zvs_cp_printf(r, "NIC %s of %s is uncoupled", vdev, cfg->user[nic->user].userid);
        } else if (nic->vswitch > (int)k) {
            nic->vswitch--;
        }
    }
    for (unsigned i = 0; i < cfg->ngrant; i++) {
        if (cfg->grant[i].vswitch == k)
            continue;
        if (n != i)
            memcpy(&cfg->grant[n], &cfg->grant[i], sizeof cfg->grant[0]);
        if (cfg->grant[n].vswitch > k)
            cfg->grant[n].vswitch--;
        n++;
    }
    memset(&cfg->grant[n], 0, (cfg->ngrant - n) * sizeof cfg->grant[0]);
    cfg->ngrant = n;
    memmove(&cfg->vswitch[k], &cfg->vswitch[k + 1],
            (cfg->nvswitch - k - 1) * sizeof cfg->vswitch[0]);
    cfg->nvswitch--;
    memset(&cfg->vswitch[cfg->nvswitch], 0, sizeof cfg->vswitch[0]);
}

int zvs_apply_detach_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                             struct zvs_cp_response *r)
{
    int k = zvs_cfg_find_vswitch(cfg, cmd->name);
    char name[ZVS_NAME_MAX + 1];

    if (k < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_VSWITCH_NOT_FOUND, cmd->name);
    memcpy(name, cfg->vswitch[k].name, sizeof name);
    remove_vswitch(cfg, (unsigned)k, r);
    zvs_cp_printf(r, "VSWITCH SYSTEM %s is destroyed", name);
    return 0;
}

/* ---- SET VSWITCH --------------------------------------------------------------------- */

/* dst gets every VLAN of src (both are sorted, merged sets). 0 or -ENOSPC. */
static int vidset_union(struct zvs_vidset *dst, const struct zvs_vidset *src)
{
    for (unsigned i = 0; i < src->n; i++) {
        char s[16];
        snprintf(s, sizeof s, "%u-%u", (unsigned)src->r[i].lo, (unsigned)src->r[i].hi);
        int rc = zvs_vidset_add(dst, s);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* GRANT: a new grant, or the existing one modified (PORTTYPE replaced, VLANs added). */
static int vs_grant(struct zvs_cfg *cfg, unsigned k, const struct zvs_cmd *cmd,
                    struct zvs_cp_response *r)
{
    const struct zvs_cfg_vswitch *sw = &cfg->vswitch[k];
    int gi = zvs_cfg_find_grant(cfg, k, cmd->userid);
    struct zvs_cfg_grant g;

    if (cmd->userid[0] == '\0')
        return REFUSE(r, -EINVAL, ZVS_CPMSG_OPERAND_MISSING);
    if (cmd->has_vlan && !sw->vlan_aware)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_NEEDS_VLAN_AWARE, "VLAN", sw->name);
    if (gi < 0 && cfg->ngrant >= ZVS_CFG_MAX_GRANTS)
        return zvs_apply_no_room(r, "GRANT", ZVS_CFG_MAX_GRANTS);
    if (gi >= 0) {
        memcpy(&g, &cfg->grant[gi], sizeof g);
    } else {
        memset(&g, 0, sizeof g);
        g.vswitch = (uint16_t)k;
        zvs_apply_copy_upper(g.userid, sizeof g.userid, cmd->userid);
    }
    if (cmd->porttype != ZVS_PORTTYPE_UNSPEC)
        g.porttype = cmd->porttype;
    if (cmd->has_vlan) {
        g.has_vlan = true;
        if (vidset_union(&g.vlan, &cmd->vlan) < 0)
            return zvs_apply_no_room(r, "VLAN range", ZVS_VIDSET_MAX);
    }
    enum zvs_porttype pt = g.porttype != ZVS_PORTTYPE_UNSPEC ? g.porttype : sw->porttype;
    if (g.has_vlan && pt == ZVS_PORTTYPE_ACCESS && zvs_vidset_count(&g.vlan) > 1) {
        char set[160];
        zvs_vidset_format(&g.vlan, set, sizeof set);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_ACCESS_ONE_VLAN, set);
    }
    if (pt == ZVS_PORTTYPE_TRUNK) {
        /* Hercules' LCS carries no VLAN tags (config_machines.c): no TRUNK for its NIC. */
        int u = zvs_cfg_find_user(cfg, g.userid);
        for (unsigned i = 0; u >= 0 && i < cfg->user[u].nnic; i++) {
            const struct zvs_cfg_nic *n = &cfg->nic[cfg->user[u].first_nic + i];
            char vdev[8];
            if (n->backend != ZVS_NIC_BACKEND_LCS || n->porttype != ZVS_PORTTYPE_UNSPEC ||
                n->has_vlan)
                continue;
            snprintf(vdev, sizeof vdev, "%04X", (unsigned)n->vdev);
            return REFUSE(r, -EINVAL, ZVS_CPMSG_LCS_TRUNK, vdev, g.userid);
        }
    }
    if (gi < 0)
        gi = (int)cfg->ngrant++;
    memcpy(&cfg->grant[gi], &g, sizeof g);
    zvs_cp_printf(r, "Command complete");
    return 0;
}

/* REVOKE: the grant goes; the user's NICs on the switch without a directory
 * authorization are uncoupled. */
static int vs_revoke(struct zvs_cfg *cfg, unsigned k, const struct zvs_cmd *cmd,
                     struct zvs_cp_response *r)
{
    int gi = zvs_cfg_find_grant(cfg, k, cmd->userid);

    if (gi < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_NO_GRANT, cmd->userid, cfg->vswitch[k].name);
    memmove(&cfg->grant[gi], &cfg->grant[gi + 1],
            (cfg->ngrant - (unsigned)gi - 1) * sizeof cfg->grant[0]);
    cfg->ngrant--;
    memset(&cfg->grant[cfg->ngrant], 0, sizeof cfg->grant[0]);

    int u = zvs_cfg_find_user(cfg, cmd->userid);
    if (u >= 0) {
        const struct zvs_cfg_user *user = &cfg->user[u];
        for (unsigned i = user->first_nic; i < (unsigned)user->first_nic + user->nnic; i++) {
            struct zvs_cfg_nic *nic = &cfg->nic[i];
            if (nic->vswitch != (int)k || zvs_apply_nic_dir_authorized(nic))
                continue;
            char vdev[8];
            zvs_apply_vdev_fmt(nic->vdev, vdev);
            zvs_apply_nic_uncouple(nic);
            zvs_cp_printf(r, "NIC %s of %s is uncoupled", vdev, user->userid);
        }
    }
    zvs_cp_printf(r, "Command complete");
    return 0;
}

static int vs_rdev(struct zvs_cfg *cfg, unsigned k, const struct zvs_cmd *cmd,
                   struct zvs_cp_response *r)
{
    struct zvs_cfg_vswitch *sw = &cfg->vswitch[k];
    int rc;

    if (sw->nouplink)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_NOUPLINK, sw->name, "RDEV");
    if ((rc = check_uplink_rdevs(cfg, cmd->rdev, cmd->nrdev, ZVS_CMD_MAX_RDEVS, (int)k, r)) < 0)
        return rc;
    memset(sw->rdev, 0, sizeof sw->rdev);
    for (unsigned i = 0; i < cmd->nrdev; i++) {
        sw->rdev[i].devno = cmd->rdev[i].devno;
        sw->rdev[i].port = cmd->rdev[i].port;
    }
    sw->nrdev = (uint8_t)cmd->nrdev;
    zvs_cp_printf(r, "Command complete");
    return 0;
}

static int vs_group(struct zvs_cfg *cfg, unsigned k, const struct zvs_cmd *cmd,
                    struct zvs_cp_response *r)
{
    struct zvs_cfg_vswitch *sw = &cfg->vswitch[k];

    if (sw->nouplink)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_NOUPLINK, sw->name, "GROUP");
    int g = check_switch_group(cfg, cmd->group, (int)k, r);
    if (g < 0)
        return g;
    memcpy(sw->group, cfg->group[g].name, sizeof sw->group);
    zvs_cp_printf(r, "Command complete");
    return 0;
}

static int vs_settings(struct zvs_cfg *cfg, unsigned k, const struct zvs_cmd *cmd,
                       struct zvs_cp_response *r)
{
    struct zvs_cfg_vswitch *sw = &cfg->vswitch[k];
    char num[12];

    switch (cmd->vs_op) {
    case ZVS_CMD_VS_NOGROUP:
        memset(sw->group, 0, sizeof sw->group);
        break;
    case ZVS_CMD_VS_CONNECT:
    case ZVS_CMD_VS_DISCONNECT:
        if (sw->nouplink)
            return REFUSE(r, -EINVAL, ZVS_CPMSG_NOUPLINK, sw->name,
                          cmd->vs_op == ZVS_CMD_VS_CONNECT ? "CONNECT" : "DISCONNECT");
        sw->connect = cmd->vs_op == ZVS_CMD_VS_CONNECT;
        break;
    case ZVS_CMD_VS_QUEUESTORAGE:
        if (cmd->queuestorage_mb < 1 || cmd->queuestorage_mb > 8) {
            zvs_apply_num_fmt(cmd->queuestorage_mb, num);
            return REFUSE(r, -EINVAL, ZVS_CPMSG_VALUE_RANGE, "QUEUESTORAGE", num, "1-8");
        }
        sw->queuestorage_mb = cmd->queuestorage_mb;
        break;
    case ZVS_CMD_VS_ISOLATION:
        sw->isolation = cmd->onoff;
        break;
    case ZVS_CMD_VS_MACPROTECT:
        sw->macprotect = cmd->macprotect;
        break;
    case ZVS_CMD_VS_IVLPORT_HEARTBEAT:  /* corosync's token timeout (ivl/README.md) */
        if (sw->scope != ZVS_VSW_IVL)
            return REFUSE(r, -EINVAL, ZVS_CPMSG_IVL_NOT_IVL_SWITCH, sw->name);
        cfg->ivl.heartbeat_s = (uint16_t)cmd->heartbeat_s;
        cfg->ivl.heartbeat_line = 0;
        break;
    default:
        assert(!"not a settings operand");
        return REFUSE(r, -EINVAL, ZVS_CPMSG_COMMAND_FAILED, "SET VSWITCH", "unknown operand");
    }
    zvs_cp_printf(r, "Command complete");
    return 0;
}

int zvs_apply_set_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                          struct zvs_cp_response *r)
{
    int k = zvs_cfg_find_vswitch(cfg, cmd->name);

    if (k < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_VSWITCH_NOT_FOUND, cmd->name);
    switch (cmd->vs_op) {
    case ZVS_CMD_VS_GRANT:  return vs_grant(cfg, (unsigned)k, cmd, r);
    case ZVS_CMD_VS_REVOKE: return vs_revoke(cfg, (unsigned)k, cmd, r);
    case ZVS_CMD_VS_RDEV:   return vs_rdev(cfg, (unsigned)k, cmd, r);
    case ZVS_CMD_VS_GROUP:  return vs_group(cfg, (unsigned)k, cmd, r);
    case ZVS_CMD_VS_VXLAN:  return zvs_apply_set_vxlan(cfg, (unsigned)k, cmd, r);
    default:                return vs_settings(cfg, (unsigned)k, cmd, r);
    }
}
