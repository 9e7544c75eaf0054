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
 * Consistency rules kept by the edits:
 *   - removing VSWITCH k removes its grants, uncouples its NICs (lan "", vswitch -1) and
 *     renumbers grant[].vswitch and nic[].vswitch above k; its port group stays defined;
 *   - a user's NICs are cfg->nic[first_nic .. first_nic + nnic): DEFINE NIC inserts at the
 *     end of the owner's run and moves the later runs up by one (first_nic + 1), DETACH
 *     NIC removes and moves them down; users are never reordered, so nic[].user holds;
 *   - group_join_line[g][p] moves with group[g].port[p]; devices JOINed by command get 0.
 *   - objects created by command carry line 0 (grant, group, switch, NIC): "not from a
 *     file"; names are stored upper case.
 *
 * Decisions (the lead's, and ours where marked):
 *   - Privilege classes are the parser's check (zvs_cmd_parse); here only NIC ownership:
 *     an issuer without class B naming another user's NIC gets HCP1134E. The owner must be
 *     a directory user (HCP1126E).
 *   - GRANT of an already granted user modifies the grant as z/VM does: PORTTYPE replaced
 *     when given, VLANs added to the set; the VLAN aware rule (HCP1129E) and the ACCESS
 *     one-VLAN rule (HCP1130E, on the resulting set and PORTTYPE) are checked as for
 *     MODIFY VSWITCH in SYSTEM CONFIG. Any valid userid may be granted (not logged on or
 *     not in the directory is fine, as in z/VM). More than ZVS_VIDSET_MAX ranges after the
 *     merge: HCP1133E (ours).
 *   - REVOKE uncouples the user's NICs on that switch that have no directory
 *     authorization (NICDEF PORTTYPE or VLAN), listing each before "Command complete".
 *   - An RDEV (DEFINE VSWITCH, SET VSWITCH RDEV) needs an RDEVICE mapping and may be
 *     neither another switch's RDEV nor a member of any port group (its own switch's group
 *     included: the RDEVs are the group's fallback uplink, config.c). A JOINed device needs
 *     a mapping and may be in no group and no switch's RDEV.
 *   - SET VSWITCH RDEV / GROUP / CONNECT / DISCONNECT on a NOUPLINK switch: HCP1135E.
 *     NOGROUP is always accepted (a NOUPLINK switch has no group to clear).
 *   - LEAVE may empty a group a switch uses (validate only warns about that in files).
 *   - DEFINE NIC: cmd.devices 0 means the default 3 (ours). A range passing FFFF is
 *     HCP1105E (ours): "Invalid DEVICES value - n; valid: 3-m" when some count fits at
 *     that vdev, else "Invalid vdev value - FFFE; valid: 0000-FFFD" (the highest vdev
 *     that holds n devices). The NIC is TYPE QDIO but carries type_line 0 (line 0, no
 *     statement): zvs_cfg_dump prints TYPE NONE for it (reported to the lead).
 *   - DEFINE NIC MACID: the lowest of VMLAN MACIDRANGE SYSTEM (system_lo..system_hi; the
 *     defaults 000001-FFFFFF when no MACIDRANGE) used by no NIC (USER or SYSTEM source);
 *     MAC = MACPREFIX ++ MACID.
 *   - COUPLE: besides the lead's checks, a NICDEF VLAN set of more than one id on an
 *     ACCESS port (NICDEF PORTTYPE, else the switch's) is refused with HCP1130E, the rule
 *     validate applies to a NICDEF LAN SYSTEM (ours, for consistency).
 *   - A command that is not a configuration command (zvs_cfg_cmd_is_config false) is a
 *     caller bug: HCP1119S and -EINVAL.
 * Return codes: -ENOENT (something named does not exist), -EEXIST, -ENOSPC (a limit),
 * -EBUSY (in use, already coupled), -ENOTCONN (not coupled), -EPERM (not the owner),
 * -EACCES (not authorized to couple), -EINVAL (anything else).
 */
#include "cfg_apply.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_NIC_DEVICES 3
#define MIN_NIC_DEVICES     3
#define MAX_NIC_DEVICES     3072
#define MAX_INTERVAL_S      9990

/* zvs_cp_error, then the errno: handlers end with `return REFUSE(r, -E.., id, args)`. */
#define REFUSE(r, err, ...) (zvs_cp_error((r), __VA_ARGS__), (err))

/* ---- small helpers ------------------------------------------------------------------- */

static void copy_upper(char *dst, size_t size, const char *src)
{
    size_t i = 0;

    for (; i + 1 < size && src[i] != '\0'; i++)
        dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 'a' + 'A' : src[i]);
    dst[i] = '\0';
}

static void vdev_fmt(uint16_t vdev, char buf[8])
{
    snprintf(buf, 8, "%04X", (unsigned)vdev);
}

static void num_fmt(unsigned v, char buf[12])
{
    snprintf(buf, 12, "%u", v);
}

static void dev_fmt(struct zvs_rdev d, char buf[12])
{
    zvs_rdev_format(d, buf, 12);
}

static unsigned nic_last(const struct zvs_cfg_nic *n)
{
    return (unsigned)n->vdev + n->devices - 1u;
}

static bool nic_coupled(const struct zvs_cfg_nic *n)
{
    return n->lan[0] != '\0' || n->vswitch >= 0;
}

static bool nic_dir_authorized(const struct zvs_cfg_nic *n)
{
    return n->has_vlan || n->porttype != ZVS_PORTTYPE_UNSPEC;
}

static void nic_uncouple(struct zvs_cfg_nic *n)
{
    memset(n->lan, 0, sizeof n->lan);
    n->vswitch = -1;
}

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
        if (vdev >= cfg->nic[i].vdev && vdev <= nic_last(&cfg->nic[i]))
            return (int)i;
    return -1;
}

bool zvs_cfg_may_couple(const struct zvs_cfg *cfg, unsigned sw, const char *userid,
                        const struct zvs_cfg_nic *nic)
{
    if (nic != NULL && nic_dir_authorized(nic))
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
        return true;
    default:
        return false;
    }
}

/* ---- device checks shared by DEFINE VSWITCH, SET VSWITCH RDEV and JOIN ---------------- */

/* The switch other than `self` (-1: none) that has `d` as an RDEV, or -1. */
static int rdev_owner(const struct zvs_cfg *cfg, struct zvs_rdev d, int self)
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
static int group_of(const struct zvs_cfg *cfg, struct zvs_rdev d)
{
    for (unsigned g = 0; g < cfg->ngroup; g++)
        for (unsigned p = 0; p < cfg->group[g].nport; p++)
            if (zvs_rdev_equal(cfg->group[g].port[p], d))
                return (int)g;
    return -1;
}

/* The switch other than `self` whose GROUP is `name`, or -1. */
static int group_user(const struct zvs_cfg *cfg, const char *name, int self)
{
    for (unsigned s = 0; s < cfg->nvswitch; s++)
        if ((int)s != self && strcasecmp(cfg->vswitch[s].group, name) == 0)
            return (int)s;
    return -1;
}

/* RDEV devices of switch `self` (-1: a new switch): at most ZVS_CFG_MAX_RDEV, mapped, not
 * repeated, no other switch's RDEV, in no port group. `cap` is the size of the rdev
 * array (for the message naming the first device too many). */
static int check_uplink_rdevs(const struct zvs_cfg *cfg, const struct zvs_rdev *rdev,
                              unsigned nrdev, unsigned cap, int self, struct zvs_cp_response *r)
{
    char dev[12], who[32], limit[12];

    if (nrdev > ZVS_CFG_MAX_RDEV) {
        if (cap > ZVS_CFG_MAX_RDEV)
            dev_fmt(rdev[ZVS_CFG_MAX_RDEV], dev);
        else
            num_fmt(nrdev, dev);
        num_fmt(ZVS_CFG_MAX_RDEV, limit);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_TOO_MANY_DEVICES, dev, limit);
    }
    for (unsigned i = 0; i < nrdev; i++) {
        dev_fmt(rdev[i], dev);
        for (unsigned j = 0; j < i; j++)
            if (zvs_rdev_equal(rdev[j], rdev[i]))
                return REFUSE(r, -EINVAL, ZVS_CPMSG_DEVICE_REPEATED, dev);
        if (zvs_cfg_find_rdevice(cfg, rdev[i]) < 0)
            return REFUSE(r, -ENOENT, ZVS_CPMSG_DEVICE_UNMAPPED, dev);
        int s = rdev_owner(cfg, rdev[i], self);
        if (s >= 0) {
            snprintf(who, sizeof who, "VSWITCH %s", cfg->vswitch[s].name);
            return REFUSE(r, -EBUSY, ZVS_CPMSG_DEVICE_IN_USE, dev, who);
        }
        int g = group_of(cfg, rdev[i]);
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
    int s = group_user(cfg, cfg->group[g].name, self);
    if (s >= 0)
        return REFUSE(r, -EBUSY, ZVS_CPMSG_GROUP_IN_USE, cfg->group[g].name,
                      cfg->vswitch[s].name);
    return g;
}

static int no_room(struct zvs_cp_response *r, const char *what, unsigned limit)
{
    char num[12];

    num_fmt(limit, num);
    return REFUSE(r, -ENOSPC, ZVS_CPMSG_LIMIT_REACHED, what, num);
}

/* ---- DEFINE VSWITCH / DETACH VSWITCH ------------------------------------------------- */

static int define_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                          struct zvs_cp_response *r)
{
    const struct zvs_cfg_vswitch *v = &cmd->vsw;
    int rc;

    if (zvs_cfg_find_vswitch(cfg, cmd->name) >= 0)
        return REFUSE(r, -EEXIST, ZVS_CPMSG_VSWITCH_EXISTS, cmd->name);
    if (cfg->nvswitch >= ZVS_CFG_MAX_VSWITCHES)
        return no_room(r, "VSWITCH", ZVS_CFG_MAX_VSWITCHES);
    if (v->group[0] != '\0' && (rc = check_switch_group(cfg, v->group, -1, r)) < 0)
        return rc;
    if ((rc = check_uplink_rdevs(cfg, v->rdev, v->nrdev, ZVS_CFG_MAX_RDEV, -1, r)) < 0)
        return rc;

    struct zvs_cfg_vswitch *sw = &cfg->vswitch[cfg->nvswitch++];
    memcpy(sw, v, sizeof *sw);
    memset(sw->name, 0, sizeof sw->name);
    copy_upper(sw->name, sizeof sw->name, cmd->name);
    sw->line = 0;
    if (v->group[0] != '\0') {
        memset(sw->group, 0, sizeof sw->group);
        copy_upper(sw->group, sizeof sw->group, v->group);
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
            vdev_fmt(nic->vdev, vdev);
            nic_uncouple(nic);
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

static int detach_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
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
        return no_room(r, "GRANT", ZVS_CFG_MAX_GRANTS);
    if (gi >= 0) {
        memcpy(&g, &cfg->grant[gi], sizeof g);
    } else {
        memset(&g, 0, sizeof g);
        g.vswitch = (uint16_t)k;
        copy_upper(g.userid, sizeof g.userid, cmd->userid);
    }
    if (cmd->porttype != ZVS_PORTTYPE_UNSPEC)
        g.porttype = cmd->porttype;
    if (cmd->has_vlan) {
        g.has_vlan = true;
        if (vidset_union(&g.vlan, &cmd->vlan) < 0)
            return no_room(r, "VLAN range", ZVS_VIDSET_MAX);
    }
    enum zvs_porttype pt = g.porttype != ZVS_PORTTYPE_UNSPEC ? g.porttype : sw->porttype;
    if (g.has_vlan && pt == ZVS_PORTTYPE_ACCESS && zvs_vidset_count(&g.vlan) > 1) {
        char set[160];
        zvs_vidset_format(&g.vlan, set, sizeof set);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_ACCESS_ONE_VLAN, set);
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
            if (nic->vswitch != (int)k || nic_dir_authorized(nic))
                continue;
            char vdev[8];
            vdev_fmt(nic->vdev, vdev);
            nic_uncouple(nic);
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
            num_fmt(cmd->queuestorage_mb, num);
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
    default:
        assert(!"not a settings operand");
        return REFUSE(r, -EINVAL, ZVS_CPMSG_COMMAND_FAILED, "SET VSWITCH", "unknown operand");
    }
    zvs_cp_printf(r, "Command complete");
    return 0;
}

static int set_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
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
    default:                return vs_settings(cfg, (unsigned)k, cmd, r);
    }
}

/* ---- SET PORT GROUP ------------------------------------------------------------------ */

/* A group as SET PORT GROUP creates it (the defaults of sysconfig.c). */
static void group_defaults(struct zvs_cfg_group *g, const char *name)
{
    memset(g, 0, sizeof *g);
    copy_upper(g->name, sizeof g->name, name);
    g->lacp = true;
    g->lacp_long_timeout = false;
    g->interval_s = 300;
    g->distribution = ZVS_CFG_DIST_DESTINATION;
    g->policy = ZVS_CFG_POLICY_LOAD;
    g->lbt_percent = 75;
}

static int port_index(const struct zvs_cfg_group *g, struct zvs_rdev d)
{
    for (unsigned p = 0; p < g->nport; p++)
        if (zvs_rdev_equal(g->port[p], d))
            return (int)p;
    return -1;
}

/* JOIN into the scratch copy `g` of group gi (-1: new) and its join lines. */
static int pg_join(const struct zvs_cfg *cfg, int gi, struct zvs_cfg_group *g,
                   uint32_t *join_line, const struct zvs_cmd *cmd, struct zvs_cp_response *r)
{
    char dev[12], who[32], num[12];

    for (unsigned i = 0; i < cmd->nrdev; i++) {
        struct zvs_rdev d = cmd->rdev[i];
        dev_fmt(d, dev);
        if (zvs_cfg_find_rdevice(cfg, d) < 0)
            return REFUSE(r, -ENOENT, ZVS_CPMSG_DEVICE_UNMAPPED, dev);
        if (port_index(g, d) >= 0)
            return REFUSE(r, -EEXIST, ZVS_CPMSG_DEVICE_IN_GROUP, dev, g->name);
        int o = group_of(cfg, d);
        if (o >= 0 && o != gi)
            return REFUSE(r, -EBUSY, ZVS_CPMSG_DEVICE_IN_GROUP, dev, cfg->group[o].name);
        int s = rdev_owner(cfg, d, -1);
        if (s >= 0) {
            snprintf(who, sizeof who, "VSWITCH %s", cfg->vswitch[s].name);
            return REFUSE(r, -EBUSY, ZVS_CPMSG_DEVICE_IN_USE, dev, who);
        }
        if (g->nport >= ZVS_CFG_MAX_GROUP_PORTS) {
            num_fmt(g->nport, num);
            return REFUSE(r, -ENOSPC, ZVS_CPMSG_GROUP_FULL, g->name, num, dev);
        }
        join_line[g->nport] = 0;
        g->port[g->nport].devno = d.devno;     /* fields: d's padding is undefined */
        g->port[g->nport++].port = d.port;
    }
    return 0;
}

/* LEAVE from the scratch copy, keeping the order of the others. */
static int pg_leave(struct zvs_cfg_group *g, uint32_t *join_line, const struct zvs_cmd *cmd,
                    struct zvs_cp_response *r)
{
    char dev[12];

    for (unsigned i = 0; i < cmd->nrdev; i++) {
        int p = port_index(g, cmd->rdev[i]);
        if (p < 0) {
            dev_fmt(cmd->rdev[i], dev);
            return REFUSE(r, -ENOENT, ZVS_CPMSG_DEVICE_NOT_IN_GROUP, dev, g->name);
        }
        unsigned rest = g->nport - (unsigned)p - 1;
        memmove(&g->port[p], &g->port[p + 1], rest * sizeof g->port[0]);
        memmove(&join_line[p], &join_line[p + 1], rest * sizeof join_line[0]);
        g->nport--;
        memset(&g->port[g->nport], 0, sizeof g->port[0]);
        join_line[g->nport] = 0;
    }
    return 0;
}

static int pg_delete(struct zvs_cfg *cfg, const struct zvs_cmd *cmd, struct zvs_cp_response *r)
{
    int g = zvs_cfg_find_group(cfg, cmd->name);

    if (g < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_GROUP_NOT_FOUND, cmd->name);
    int s = group_user(cfg, cfg->group[g].name, -1);
    if (s >= 0)
        return REFUSE(r, -EBUSY, ZVS_CPMSG_GROUP_IN_USE, cfg->group[g].name,
                      cfg->vswitch[s].name);
    unsigned rest = cfg->ngroup - (unsigned)g - 1;
    memmove(&cfg->group[g], &cfg->group[g + 1], rest * sizeof cfg->group[0]);
    memmove(cfg->group_join_line[g], cfg->group_join_line[g + 1],
            rest * sizeof cfg->group_join_line[0]);
    cfg->ngroup--;
    memset(&cfg->group[cfg->ngroup], 0, sizeof cfg->group[0]);
    memset(cfg->group_join_line[cfg->ngroup], 0, sizeof cfg->group_join_line[0]);
    zvs_cp_printf(r, "Command complete");
    return 0;
}

/* JOIN, LEAVE, LACP, INTERVAL: built in a scratch copy, stored when it all passed. */
static int set_port_group(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                          struct zvs_cp_response *r)
{
    struct zvs_cfg_group g;
    uint32_t join_line[ZVS_CFG_MAX_GROUP_PORTS];
    int gi = zvs_cfg_find_group(cfg, cmd->name);
    int rc = 0;
    char num[12];

    if (cmd->pg_op == ZVS_CMD_PG_DELETE)
        return pg_delete(cfg, cmd, r);
    if (cmd->nrdev > ZVS_CMD_MAX_RDEVS) {       /* never from the parser: do not read past */
        char limit[12];
        num_fmt(cmd->nrdev, num);
        num_fmt(ZVS_CMD_MAX_RDEVS, limit);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_TOO_MANY_DEVICES, num, limit);
    }
    if (gi < 0 && cmd->pg_op == ZVS_CMD_PG_LEAVE)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_GROUP_NOT_FOUND, cmd->name);
    if (gi < 0 && cfg->ngroup >= ZVS_CFG_MAX_GROUPS)
        return no_room(r, "PORT GROUP", ZVS_CFG_MAX_GROUPS);
    if (gi >= 0) {
        memcpy(&g, &cfg->group[gi], sizeof g);
        memcpy(join_line, cfg->group_join_line[gi], sizeof join_line);
    } else {
        group_defaults(&g, cmd->name);
        memset(join_line, 0, sizeof join_line);
    }
    switch (cmd->pg_op) {
    case ZVS_CMD_PG_JOIN:
        rc = pg_join(cfg, gi, &g, join_line, cmd, r);
        break;
    case ZVS_CMD_PG_LEAVE:
        rc = pg_leave(&g, join_line, cmd, r);
        break;
    case ZVS_CMD_PG_LACP:
        g.lacp = cmd->lacp_active;
        break;
    case ZVS_CMD_PG_INTERVAL:
        if (cmd->interval_s > MAX_INTERVAL_S) {
            num_fmt(cmd->interval_s, num);
            return REFUSE(r, -EINVAL, ZVS_CPMSG_VALUE_RANGE, "INTERVAL", num, "1-9990 or OFF");
        }
        g.interval_s = cmd->interval_s;
        break;
    default:                            /* DELETE: above; anything else is not ours */
        assert(cmd->pg_op == ZVS_CMD_PG_DELETE);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_COMMAND_FAILED, "SET PORT GROUP", "unknown operand");
    }
    if (rc < 0)
        return rc;
    unsigned k = gi >= 0 ? (unsigned)gi : cfg->ngroup++;
    memcpy(&cfg->group[k], &g, sizeof g);
    memcpy(cfg->group_join_line[k], join_line, sizeof join_line);
    zvs_cp_printf(r, "Command complete");
    return 0;
}

/* ---- NIC commands -------------------------------------------------------------------- */

/* The owner of the NIC a command names (its user index), after the ownership and
 * directory checks; or a negative errno. */
static int nic_owner(const struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                     const struct zvs_issuer *who, struct zvs_cp_response *r)
{
    assert(who != NULL);
    const char *owner = cmd->target[0] != '\0' ? cmd->target : who->userid;

    if (strcasecmp(owner, who->userid) != 0 && !(who->privclass & ZVS_PRIVCLASS('B'))) {
        char vdev[8];
        vdev_fmt(cmd->vdev, vdev);
        return REFUSE(r, -EPERM, ZVS_CPMSG_NOT_OWNER, who->userid, vdev);
    }
    int u = zvs_cfg_find_user(cfg, owner);
    if (u < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_USER_NOT_FOUND, owner);
    return u;
}

/* The NIC of user u holding cmd->vdev, or a negative errno after HCP1122E. */
static int owned_nic(const struct zvs_cfg *cfg, unsigned u, const struct zvs_cmd *cmd,
                     struct zvs_cp_response *r)
{
    int i = zvs_cfg_find_nic(cfg, cfg->user[u].userid, cmd->vdev);

    if (i < 0) {
        char vdev[8];
        vdev_fmt(cmd->vdev, vdev);
        return REFUSE(r, -ENOENT, ZVS_CPMSG_NIC_NOT_FOUND, vdev, cfg->user[u].userid);
    }
    return i;
}

/* The lowest MACID of MACIDRANGE SYSTEM that no NIC uses, or -1. Only lo .. lo + nnic can
 * be the answer (nnic NICs block at most nnic ids), so a bitmap of that window does. */
static int64_t free_macid(const struct zvs_cfg *cfg)
{
    uint8_t used[(ZVS_CFG_MAX_NICS + 1 + 7) / 8];
    uint32_t lo = cfg->vmlan.system_lo, hi = cfg->vmlan.system_hi;

    memset(used, 0, sizeof used);
    for (unsigned i = 0; i < cfg->nnic; i++) {
        const struct zvs_cfg_nic *n = &cfg->nic[i];
        if (n->macid_source == ZVS_MACID_NONE || n->macid < lo || n->macid - lo > cfg->nnic)
            continue;
        uint32_t b = n->macid - lo;
        used[b / 8] |= (uint8_t)(1u << (b % 8));
    }
    for (uint32_t b = 0; b <= cfg->nnic && lo + (uint64_t)b <= hi; b++)
        if (!(used[b / 8] & (1u << (b % 8))))
            return (int64_t)lo + b;
    return -1;
}

/* Inserts nic at the end of user u's run; later runs move up. */
static void nic_insert(struct zvs_cfg *cfg, unsigned u, const struct zvs_cfg_nic *nic)
{
    struct zvs_cfg_user *user = &cfg->user[u];
    unsigned p = (unsigned)user->first_nic + user->nnic;

    assert(p <= cfg->nnic && cfg->nnic < ZVS_CFG_MAX_NICS);
    memmove(&cfg->nic[p + 1], &cfg->nic[p], (cfg->nnic - p) * sizeof cfg->nic[0]);
    memcpy(&cfg->nic[p], nic, sizeof *nic);
    cfg->nnic++;
    for (unsigned i = 0; i < cfg->nuser; i++)
        if (i != u && cfg->user[i].first_nic >= p)
            cfg->user[i].first_nic++;
    user->nnic++;
}

/* Removes nic[i] (of user u); later runs move down. */
static void nic_remove(struct zvs_cfg *cfg, unsigned u, unsigned i)
{
    assert(i >= cfg->user[u].first_nic && i < (unsigned)cfg->user[u].first_nic + cfg->user[u].nnic);
    memmove(&cfg->nic[i], &cfg->nic[i + 1], (cfg->nnic - i - 1) * sizeof cfg->nic[0]);
    cfg->nnic--;
    memset(&cfg->nic[cfg->nnic], 0, sizeof cfg->nic[0]);
    for (unsigned k = 0; k < cfg->nuser; k++)
        if (k != u && cfg->user[k].first_nic > i)
            cfg->user[k].first_nic--;
    cfg->user[u].nnic--;
}

/* HCP1105E for a range past FFFF (see the decisions at the top). */
static int past_ffff(uint16_t vdev, unsigned devices, struct zvs_cp_response *r)
{
    unsigned room = 0x10000u - vdev;
    char val[12], valid[24];

    if (room >= MIN_NIC_DEVICES) {
        num_fmt(devices, val);
        snprintf(valid, sizeof valid, "%u-%u", MIN_NIC_DEVICES,
                 room < MAX_NIC_DEVICES ? room : MAX_NIC_DEVICES);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VALUE_RANGE, "DEVICES", val, valid);
    }
    vdev_fmt(vdev, val);
    snprintf(valid, sizeof valid, "0000-%04X", 0x10000u - devices);
    return REFUSE(r, -EINVAL, ZVS_CPMSG_VALUE_RANGE, "vdev", val, valid);
}

static int define_nic(struct zvs_cfg *cfg, unsigned u, const struct zvs_cmd *cmd,
                      struct zvs_cp_response *r)
{
    const struct zvs_cfg_user *user = &cfg->user[u];
    unsigned devices = cmd->devices != 0 ? cmd->devices : DEFAULT_NIC_DEVICES;
    unsigned first = cmd->vdev, last = first + devices - 1;
    char vdev[8], lastv[8], num[12], range[16];

    vdev_fmt(cmd->vdev, vdev);
    if (devices < MIN_NIC_DEVICES || devices > MAX_NIC_DEVICES) {
        num_fmt(devices, num);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VALUE_RANGE, "DEVICES", num, "3-3072");
    }
    if (last > 0xFFFF)
        return past_ffff(cmd->vdev, devices, r);
    for (unsigned i = user->first_nic; i < (unsigned)user->first_nic + user->nnic; i++)
        if (first <= nic_last(&cfg->nic[i]) && cfg->nic[i].vdev <= last)
            return REFUSE(r, -EEXIST, ZVS_CPMSG_DEVICE_EXISTS, vdev, user->userid);
    if (cfg->nnic >= ZVS_CFG_MAX_NICS)
        return no_room(r, "NIC", ZVS_CFG_MAX_NICS);
    int64_t macid = free_macid(cfg);
    if (macid < 0) {
        snprintf(range, sizeof range, "%06X-%06X", (unsigned)cfg->vmlan.system_lo,
                 (unsigned)cfg->vmlan.system_hi);
        return REFUSE(r, -ENOSPC, ZVS_CPMSG_MACID_EXHAUSTED, range);
    }

    struct zvs_cfg_nic nic;
    memset(&nic, 0, sizeof nic);
    nic.user = (uint16_t)u;
    nic.vdev = cmd->vdev;
    nic.devices = (uint16_t)devices;
    nic.vswitch = -1;
    nic.porttype = ZVS_PORTTYPE_UNSPEC;
    nic.macid_source = ZVS_MACID_SYSTEM;
    nic.macid = (uint32_t)macid;
    memcpy(nic.mac, cfg->vmlan.macprefix, 3);
    nic.mac[3] = (uint8_t)(nic.macid >> 16);
    nic.mac[4] = (uint8_t)(nic.macid >> 8);
    nic.mac[5] = (uint8_t)nic.macid;
    nic.backend = ZVS_NIC_BACKEND_NONE;
    nic_insert(cfg, u, &nic);

    char mac[18];
    vdev_fmt((uint16_t)last, lastv);
    zvs_mac_format(nic.mac, mac, sizeof mac);
    zvs_cp_printf(r, "NIC %s is created; devices %s-%s defined", vdev, vdev, lastv);
    zvs_cp_printf(r, "MAC %s", mac);
    return 0;
}

static int detach_nic(struct zvs_cfg *cfg, unsigned u, const struct zvs_cmd *cmd,
                      struct zvs_cp_response *r)
{
    int i = owned_nic(cfg, u, cmd, r);
    char vdev[8], lastv[8];

    if (i < 0)
        return i;
    vdev_fmt(cfg->nic[i].vdev, vdev);
    vdev_fmt((uint16_t)nic_last(&cfg->nic[i]), lastv);
    nic_remove(cfg, u, (unsigned)i);
    zvs_cp_printf(r, "NIC %s is destroyed; devices %s-%s detached", vdev, vdev, lastv);
    return 0;
}

static int couple(struct zvs_cfg *cfg, unsigned u, const struct zvs_cmd *cmd,
                  struct zvs_cp_response *r)
{
    int i = owned_nic(cfg, u, cmd, r);
    char vdev[8];

    if (i < 0)
        return i;
    struct zvs_cfg_nic *nic = &cfg->nic[i];
    vdev_fmt(nic->vdev, vdev);
    if (nic_coupled(nic))
        return REFUSE(r, -EBUSY, ZVS_CPMSG_NIC_COUPLED, vdev,
                      nic->vswitch >= 0 ? cfg->vswitch[nic->vswitch].name : nic->lan);
    int k = zvs_cfg_find_vswitch(cfg, cmd->name);
    if (k < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_VSWITCH_NOT_FOUND, cmd->name);
    const struct zvs_cfg_vswitch *sw = &cfg->vswitch[k];
    if (!zvs_cfg_may_couple(cfg, (unsigned)k, cfg->user[u].userid, nic))
        return REFUSE(r, -EACCES, ZVS_CPMSG_COUPLE_NOT_AUTHORIZED, cfg->user[u].userid,
                      sw->name);
    if (nic->has_vlan && !sw->vlan_aware)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_NEEDS_VLAN_AWARE, "VLAN", sw->name);
    enum zvs_porttype pt = nic->porttype != ZVS_PORTTYPE_UNSPEC ? nic->porttype : sw->porttype;
    if (nic->has_vlan && pt == ZVS_PORTTYPE_ACCESS && zvs_vidset_count(&nic->vlan) > 1) {
        char set[160];
        zvs_vidset_format(&nic->vlan, set, sizeof set);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_ACCESS_ONE_VLAN, set);
    }
    memcpy(nic->lan, sw->name, sizeof nic->lan);
    nic->vswitch = (int16_t)k;
    zvs_cp_printf(r, "NIC %s is connected to VSWITCH SYSTEM %s", vdev, sw->name);
    return 0;
}

static int uncouple(struct zvs_cfg *cfg, unsigned u, const struct zvs_cmd *cmd,
                    struct zvs_cp_response *r)
{
    int i = owned_nic(cfg, u, cmd, r);
    char vdev[8], name[ZVS_NAME_MAX + 1];

    if (i < 0)
        return i;
    struct zvs_cfg_nic *nic = &cfg->nic[i];
    vdev_fmt(nic->vdev, vdev);
    if (!nic_coupled(nic))
        return REFUSE(r, -ENOTCONN, ZVS_CPMSG_NIC_NOT_COUPLED, vdev);
    snprintf(name, sizeof name, "%s",
             nic->vswitch >= 0 ? cfg->vswitch[nic->vswitch].name : nic->lan);
    nic_uncouple(nic);
    zvs_cp_printf(r, "NIC %s is disconnected from VSWITCH SYSTEM %s", vdev, name);
    return 0;
}

static int nic_command(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                       const struct zvs_issuer *who, struct zvs_cp_response *r)
{
    int u = nic_owner(cfg, cmd, who, r);

    if (u < 0)
        return u;
    switch (cmd->verb) {
    case ZVS_CMD_DEFINE_NIC: return define_nic(cfg, (unsigned)u, cmd, r);
    case ZVS_CMD_DETACH_NIC: return detach_nic(cfg, (unsigned)u, cmd, r);
    case ZVS_CMD_COUPLE:     return couple(cfg, (unsigned)u, cmd, r);
    case ZVS_CMD_UNCOUPLE:   return uncouple(cfg, (unsigned)u, cmd, r);
    default:
        assert(!"not a NIC command");
        return -EINVAL;
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
    case ZVS_CMD_DEFINE_VSWITCH: rc = define_vswitch(cfg, cmd, r); break;
    case ZVS_CMD_SET_VSWITCH:    rc = set_vswitch(cfg, cmd, r); break;
    case ZVS_CMD_DETACH_VSWITCH: rc = detach_vswitch(cfg, cmd, r); break;
    case ZVS_CMD_SET_PORT_GROUP: rc = set_port_group(cfg, cmd, r); break;
    default:                     rc = nic_command(cfg, cmd, who, r); break;
    }
    if (rc == 0)
        r->rc = 0;
    return rc;
}
