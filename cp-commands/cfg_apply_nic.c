/* The running configuration: DEFINE NIC, DETACH NIC, COUPLE and UNCOUPLE.
 *
 * Owns the NIC handlers of zvs_cfg_apply (cfg_apply.c dispatches): who owns the NIC a
 * command names, the NIC runs of cfg->nic, the MACID of a new NIC, coupling to a VSWITCH.
 * Atomicity as for every handler (cfg_apply.c): check everything, then write; nothing
 * after the first write can fail (the MACID bitmap lives on the stack).
 *
 * Consistency rule kept by the edits:
 *   - a user's NICs are cfg->nic[first_nic .. first_nic + nnic): DEFINE NIC inserts at the
 *     end of the owner's run and moves the later runs up by one (first_nic + 1), DETACH
 *     NIC removes and moves them down; users are never reordered, so nic[].user holds.
 *
 * Decisions (the lead's, and ours where marked):
 *   - Privilege classes are the parser's check (zvs_cmd_parse); here only NIC ownership:
 *     an issuer without class B naming another user's NIC gets ZVSNIC1134E. The owner must be
 *     a directory user (ZVSGST1126E).
 *   - DEFINE NIC: cmd.devices 0 means the default 3 (ours). A range passing FFFF is
 *     ZVSCMD1105E (ours): "Invalid DEVICES value - n; valid: 3-m" when some count fits at
 *     that vdev, else "Invalid vdev value - FFFE; valid: 0000-FFFD" (the highest vdev
 *     that holds n devices). The NIC is TYPE QDIO with line 0 (no statement), which
 *     zvs_cfg_dump shows as TYPE QDIO.
 *   - DEFINE NIC MACID: the lowest of VMLAN MACIDRANGE SYSTEM (system_lo..system_hi; the
 *     defaults 000001-FFFFFF when no MACIDRANGE) used by no NIC (USER or SYSTEM source);
 *     MAC = MACPREFIX ++ MACID.
 *   - COUPLE: besides the lead's checks, a NICDEF VLAN set of more than one id on an
 *     ACCESS port (NICDEF PORTTYPE, else the switch's) is refused with ZVSVSW1130E, the rule
 *     validate applies to a NICDEF LAN SYSTEM (ours, for consistency).
 */
#include "cp-commands/cfg_apply_impl.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_NIC_DEVICES 3
#define MIN_NIC_DEVICES     3
#define MAX_NIC_DEVICES     3072

/* ---- NIC commands -------------------------------------------------------------------- */

static bool nic_coupled(const struct zvs_cfg_nic *n)
{
    return n->lan[0] != '\0' || n->vswitch >= 0;
}

/* The owner of the NIC a command names (its user index), after the ownership and
 * directory checks; or a negative errno. */
static int nic_owner(const struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                     const struct zvs_issuer *who, struct zvs_cp_response *r)
{
    assert(who != NULL);
    const char *owner = cmd->target[0] != '\0' ? cmd->target : who->userid;

    if (strcasecmp(owner, who->userid) != 0 && !(who->privclass & ZVS_PRIVCLASS('B'))) {
        char vdev[8];
        zvs_apply_vdev_fmt(cmd->vdev, vdev);
        return REFUSE(r, -EPERM, ZVS_CPMSG_NOT_OWNER, who->userid, vdev);
    }
    int u = zvs_cfg_find_user(cfg, owner);
    if (u < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_USER_NOT_FOUND, owner);
    return u;
}

/* The NIC of user u holding cmd->vdev, or a negative errno after ZVSNIC1122E. */
static int owned_nic(const struct zvs_cfg *cfg, unsigned u, const struct zvs_cmd *cmd,
                     struct zvs_cp_response *r)
{
    int i = zvs_cfg_find_nic(cfg, cfg->user[u].userid, cmd->vdev);

    if (i < 0) {
        char vdev[8];
        zvs_apply_vdev_fmt(cmd->vdev, vdev);
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

/* ZVSCMD1105E for a range past FFFF (see the decisions at the top). */
static int past_ffff(uint16_t vdev, unsigned devices, struct zvs_cp_response *r)
{
    unsigned room = 0x10000u - vdev;
    char val[12], valid[24];

    if (room >= MIN_NIC_DEVICES) {
        zvs_apply_num_fmt(devices, val);
        snprintf(valid, sizeof valid, "%u-%u", MIN_NIC_DEVICES,
                 room < MAX_NIC_DEVICES ? room : MAX_NIC_DEVICES);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VALUE_RANGE, "DEVICES", val, valid);
    }
    zvs_apply_vdev_fmt(vdev, val);
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

    zvs_apply_vdev_fmt(cmd->vdev, vdev);
    if (devices < MIN_NIC_DEVICES || devices > MAX_NIC_DEVICES) {
        zvs_apply_num_fmt(devices, num);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VALUE_RANGE, "DEVICES", num, "3-3072");
    }
    if (last > 0xFFFF)
        return past_ffff(cmd->vdev, devices, r);
    for (unsigned i = user->first_nic; i < (unsigned)user->first_nic + user->nnic; i++)
        if (first <= zvs_apply_nic_last(&cfg->nic[i]) && cfg->nic[i].vdev <= last)
            return REFUSE(r, -EEXIST, ZVS_CPMSG_DEVICE_EXISTS, vdev, user->userid);
    if (cfg->nnic >= ZVS_CFG_MAX_NICS)
        return zvs_apply_no_room(r, "NIC", ZVS_CFG_MAX_NICS);
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
    zvs_apply_vdev_fmt((uint16_t)last, lastv);
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
    zvs_apply_vdev_fmt(cfg->nic[i].vdev, vdev);
    zvs_apply_vdev_fmt((uint16_t)zvs_apply_nic_last(&cfg->nic[i]), lastv);
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
    zvs_apply_vdev_fmt(nic->vdev, vdev);
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
    zvs_apply_vdev_fmt(nic->vdev, vdev);
    if (!nic_coupled(nic))
        return REFUSE(r, -ENOTCONN, ZVS_CPMSG_NIC_NOT_COUPLED, vdev);
    snprintf(name, sizeof name, "%s",
             nic->vswitch >= 0 ? cfg->vswitch[nic->vswitch].name : nic->lan);
    zvs_apply_nic_uncouple(nic);
    zvs_cp_printf(r, "NIC %s is disconnected from VSWITCH SYSTEM %s", vdev, name);
    return 0;
}

int zvs_apply_nic_command(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
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
