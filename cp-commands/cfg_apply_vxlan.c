/* The running configuration: SET VSWITCH name VXLAN REMOTE ADD | DELETE host and
 * SET VSWITCH name VXLAN VNI n (ours: IBM's SET VSWITCH has no VXLAN operand).
 *
 * Owns the change a VXLAN command makes to the switch's VXLAN VSWITCH statement; the
 * daemon's reconcile makes the running VTEP follow it (daemon/daemon_vxlan.c). Atomicity
 * as for every handler (cfg_apply.c): check everything, then write.
 *
 * Rules: the switch must have a VXLAN statement (ZVSVXL1220E); a remote is named as the
 * statement keeps it (canonical: lower case, no trailing dot), so ADD of one it has is
 * ZVSVXL1221E and DELETE of one it lacks ZVSVXL1224E; at most ZVS_CFG_MAX_VXLAN_REMOTES
 * (ZVSVXL1222E); an address literal of the other family than LOCAL is ZVSVXL1223E (a host
 * name resolves in LOCAL's family). VNI replaces the VNI of the switch's untagged VLAN;
 * VLAN v VNI n gives a VLAN AWARE switch's VLAN v its VNI (added, or replaced), VLAN v
 * DELETE takes it away, as VXLAN VSWITCH name VLAN v VNI n statements say: not on a VLAN
 * UNAWARE switch (ZVSVXL1225E), not for the native VLAN (1226E), a VNI once per switch
 * (1227E, VNI too), DELETE of a VLAN without one: 1228E. NEIGHBOR addr MAC mac gives the
 * statement a static neighbour (a NEIGHBOR statement: added, or its MAC replaced), of
 * LOCAL's family (ZVSVXL1230E), a unicast address other than LOCAL's (1232E: not
 * unspecified, multicast or broadcast), at most ZVS_CFG_MAX_VXLAN_NEIGHBORS (1231E);
 * NEIGHBOR addr DELETE takes one away, an address without one being ZVSVXL1229E.
 */
#include "cp-commands/cfg_apply_impl.h"
#include "cp-commands/tokens.h"

#include <errno.h>
#include <string.h>

static struct zvs_cfg_vxlan *vxlan_of(struct zvs_cfg *cfg, const char *vswitch)
{
    for (unsigned i = 0; i < cfg->nvxlan; i++)
        if (strcmp(cfg->vxlan[i].vswitch, vswitch) == 0)
            return &cfg->vxlan[i];
    return NULL;
}

static int remote_index(const struct zvs_cfg_vxlan *vx, const char *name)
{
    for (unsigned i = 0; i < vx->nremote; i++)
        if (strcmp(vx->remote[i], name) == 0)
            return (int)i;
    return -1;
}

static int remote_add(struct zvs_cfg_vxlan *vx, const char *name, struct zvs_cp_response *r)
{
    int fam = zvs_addr_family(name), local = zvs_addr_family(vx->local);
    char num[12];

    if (remote_index(vx, name) >= 0)
        return REFUSE(r, -EEXIST, ZVS_CPMSG_VXL_REMOTE_EXISTS, vx->vswitch, name);
    if (fam && fam != local)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VXL_REMOTE_FAMILY, name, vx->local);
    if (vx->nremote == ZVS_CFG_MAX_VXLAN_REMOTES) {
        zvs_apply_num_fmt(vx->nremote, num);
        return REFUSE(r, -ENOSPC, ZVS_CPMSG_VXL_REMOTE_FULL, vx->vswitch, num, name);
    }
    memset(vx->remote[vx->nremote], 0, sizeof vx->remote[0]);
    strcpy(vx->remote[vx->nremote++], name);   /* canonical, within ZVS_HOSTNAME_MAX */
    return 0;
}

static int remote_delete(struct zvs_cfg_vxlan *vx, const char *name, struct zvs_cp_response *r)
{
    int i = remote_index(vx, name);

    if (i < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_VXL_NO_REMOTE, vx->vswitch, name);
    for (unsigned k = (unsigned)i; k + 1 < vx->nremote; k++)
        memcpy(vx->remote[k], vx->remote[k + 1], sizeof vx->remote[k]);
    memset(vx->remote[--vx->nremote], 0, sizeof vx->remote[0]);
    return 0;
}

/* The VLAN whose VNI vni is on this switch (0: the untagged one's, the statement's), -1
 * when none; `except` (a VLAN) is not looked at. */
static int vni_owner(const struct zvs_cfg_vxlan *vx, const struct zvs_cfg_vswitch *sw,
                     uint32_t vni, int except)
{
    int untagged = sw->vlan_aware ? sw->native_vid : 0;

    if (vx->vni == vni && untagged != except)
        return untagged;
    for (unsigned i = 0; i < vx->nvlan; i++)
        if (vx->vlan_vni[i] == vni && vx->vlan_vid[i] != except)
            return vx->vlan_vid[i];
    return -1;
}

static int vlan_index(const struct zvs_cfg_vxlan *vx, uint16_t vid)
{
    for (unsigned i = 0; i < vx->nvlan; i++)
        if (vx->vlan_vid[i] == vid)
            return (int)i;
    return -1;
}

static int vni_set(struct zvs_cfg_vxlan *vx, const struct zvs_cfg_vswitch *sw,
                   const struct zvs_cmd *cmd, struct zvs_cp_response *r)
{
    bool vlan = cmd->vx_op == ZVS_CMD_VX_VLAN_VNI;
    int self = vlan ? cmd->vx_vid : sw->vlan_aware ? sw->native_vid : 0;
    int owner = vni_owner(vx, sw, cmd->vni, self), i;
    char vni[12], vid[12];

    zvs_apply_num_fmt(cmd->vni, vni);
    zvs_apply_num_fmt(cmd->vx_vid, vid);
    if (vlan && !sw->vlan_aware)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VXL_NOT_AWARE, sw->name);
    if (vlan && cmd->vx_vid == sw->native_vid)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VXL_NATIVE, vid, sw->name);
    if (owner >= 0) {
        char who[12];
        zvs_apply_num_fmt((unsigned)owner, who);
        return REFUSE(r, -EEXIST, ZVS_CPMSG_VXL_VNI_USED, vni, who, sw->name);
    }
    if (!vlan) {
        vx->vni = cmd->vni;
        return 0;
    }
    if ((i = vlan_index(vx, cmd->vx_vid)) < 0) {
        if (vx->nvlan == ZVS_CFG_MAX_VXLAN_VLANS)
            return zvs_apply_no_room(r, "VXLAN VLAN", ZVS_CFG_MAX_VXLAN_VLANS);
        i = (int)vx->nvlan++;
        vx->vlan_vid[i] = cmd->vx_vid;
    }
    vx->vlan_vni[i] = cmd->vni;
    return 0;
}

static int vlan_delete(struct zvs_cfg_vxlan *vx, const struct zvs_cfg_vswitch *sw,
                       uint16_t vid, struct zvs_cp_response *r)
{
    int i = vlan_index(vx, vid);
    char num[12];

    if (i < 0) {
        zvs_apply_num_fmt(vid, num);
        return REFUSE(r, -ENOENT, ZVS_CPMSG_VXL_NO_VLAN, sw->name, num);
    }
    for (unsigned k = (unsigned)i; k + 1 < vx->nvlan; k++) {
        vx->vlan_vid[k] = vx->vlan_vid[k + 1];
        vx->vlan_vni[k] = vx->vlan_vni[k + 1];
    }
    vx->nvlan--;
    vx->vlan_vid[vx->nvlan] = 0;
    vx->vlan_vni[vx->nvlan] = 0;
    return 0;
}

static int neighbor_index(const struct zvs_cfg_vxlan *vx, const char *addr)
{
    for (unsigned i = 0; i < vx->nneighbor; i++)
        if (strcmp(vx->neighbor_addr[i], addr) == 0)
            return (int)i;
    return -1;
}

static int neighbor_set(struct zvs_cfg_vxlan *vx, const struct zvs_cmd *cmd,
                        struct zvs_cp_response *r)
{
    int i = neighbor_index(vx, cmd->vx_addr);
    char num[12];

    if (zvs_addr_family(cmd->vx_addr) != zvs_addr_family(vx->local))
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VXL_NEIGHBOR_FAMILY, cmd->vx_addr, vx->local);
    if (!zvs_addr_is_unicast(cmd->vx_addr) || strcmp(cmd->vx_addr, vx->local) == 0)
        return REFUSE(r, -EINVAL, ZVS_CPMSG_VXL_NEIGHBOR_UNICAST, cmd->vx_addr);
    if (i < 0 && vx->nneighbor == ZVS_CFG_MAX_VXLAN_NEIGHBORS) {
        zvs_apply_num_fmt(vx->nneighbor, num);
        return REFUSE(r, -ENOSPC, ZVS_CPMSG_VXL_NEIGHBOR_FULL, vx->vswitch, num, cmd->vx_addr);
    }
    if (i < 0) {
        i = (int)vx->nneighbor++;
        memset(vx->neighbor_addr[i], 0, sizeof vx->neighbor_addr[0]);
        strcpy(vx->neighbor_addr[i], cmd->vx_addr);     /* canonical, within the size */
    }
    memcpy(vx->neighbor_mac[i], cmd->vx_mac, 6);
    return 0;
}

static int neighbor_delete(struct zvs_cfg_vxlan *vx, const char *addr, struct zvs_cp_response *r)
{
    int i = neighbor_index(vx, addr);

    if (i < 0)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_VXL_NO_NEIGHBOR, vx->vswitch, addr);
    for (unsigned k = (unsigned)i; k + 1 < vx->nneighbor; k++) {
        memcpy(vx->neighbor_addr[k], vx->neighbor_addr[k + 1], sizeof vx->neighbor_addr[k]);
        memcpy(vx->neighbor_mac[k], vx->neighbor_mac[k + 1], 6);
    }
    vx->nneighbor--;
    memset(vx->neighbor_addr[vx->nneighbor], 0, sizeof vx->neighbor_addr[0]);
    memset(vx->neighbor_mac[vx->nneighbor], 0, 6);
    return 0;
}

int zvs_apply_set_vxlan(struct zvs_cfg *cfg, unsigned k, const struct zvs_cmd *cmd,
                        struct zvs_cp_response *r)
{
    struct zvs_cfg_vxlan *vx = vxlan_of(cfg, cfg->vswitch[k].name);
    int rc = 0;

    if (!vx)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_VXL_NO_VXLAN, cfg->vswitch[k].name);
    switch (cmd->vx_op) {
    case ZVS_CMD_VX_REMOTE_ADD:
        rc = remote_add(vx, cmd->hostname, r);
        break;
    case ZVS_CMD_VX_REMOTE_DELETE:
        rc = remote_delete(vx, cmd->hostname, r);
        break;
    case ZVS_CMD_VX_VNI:
    case ZVS_CMD_VX_VLAN_VNI:
        rc = vni_set(vx, &cfg->vswitch[k], cmd, r);
        break;
    case ZVS_CMD_VX_VLAN_DELETE:
        rc = vlan_delete(vx, &cfg->vswitch[k], cmd->vx_vid, r);
        break;
    case ZVS_CMD_VX_NEIGHBOR_SET:
        rc = neighbor_set(vx, cmd, r);
        break;
    case ZVS_CMD_VX_NEIGHBOR_DELETE:
        rc = neighbor_delete(vx, cmd->vx_addr, r);
        break;
    }
    if (rc == 0)
        zvs_cp_printf(r, "Command complete");
    return rc;
}
