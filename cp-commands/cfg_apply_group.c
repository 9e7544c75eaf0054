/* The running configuration: SET PORT GROUP (JOIN, LEAVE, LACP, INTERVAL, DELETE, and our
 * POLICY).
 *
 * Owns the port group handler of zvs_cfg_apply (cfg_apply.c dispatches). JOIN, LEAVE,
 * LACP and INTERVAL build the group in a scratch copy on the stack (the group and its join
 * lines) and store it only when every check passed, so a refused command leaves cfg as it
 * was; a missing group is created by JOIN, LACP, INTERVAL or POLICY with the defaults of
 * sysconfig.c (LACP ACTIVE, INTERVAL 300). DELETE is refused while a switch uses the group.
 *
 * Consistency rule kept by the edits:
 *   - group_join_line[g][p] moves with group[g].port[p]; devices JOINed by command get 0.
 *
 * Decisions (the lead's, and ours where marked):
 *   - A JOINed device needs an RDEVICE mapping and may be in no group and no switch's
 *     RDEV.
 *   - LEAVE may empty a group a switch uses (validate only warns about that in files).
 */
#include "cp-commands/cfg_apply_impl.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MAX_INTERVAL_S      9990

/* ---- SET PORT GROUP ------------------------------------------------------------------ */

/* A group as SET PORT GROUP creates it (the defaults of sysconfig.c). */
static void group_defaults(struct zvs_cfg_group *g, const char *name)
{
    memset(g, 0, sizeof *g);
    zvs_apply_copy_upper(g->name, sizeof g->name, name);
    g->lacp = true;
    g->lacp_long_timeout = false;
    g->interval_s = 300;
    g->distribution = ZVS_CFG_DIST_DESTINATION;
    g->policy = ZVS_CFG_POLICY_LOAD;
    g->lbt_percent = 75;
    g->load = ZVS_CFG_LOAD_TOTAL;
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
        zvs_apply_dev_fmt(d, dev);
        if (zvs_cfg_find_rdevice(cfg, d) < 0)
            return REFUSE(r, -ENOENT, ZVS_CPMSG_DEVICE_UNMAPPED, dev);
        if (port_index(g, d) >= 0)
            return REFUSE(r, -EEXIST, ZVS_CPMSG_DEVICE_IN_GROUP, dev, g->name);
        int o = zvs_apply_group_of(cfg, d);
        if (o >= 0 && o != gi)
            return REFUSE(r, -EBUSY, ZVS_CPMSG_DEVICE_IN_GROUP, dev, cfg->group[o].name);
        int s = zvs_apply_rdev_owner(cfg, d, -1);
        if (s >= 0) {
            snprintf(who, sizeof who, "VSWITCH %s", cfg->vswitch[s].name);
            return REFUSE(r, -EBUSY, ZVS_CPMSG_DEVICE_IN_USE, dev, who);
        }
        if (g->nport >= ZVS_CFG_MAX_GROUP_PORTS) {
            zvs_apply_num_fmt(g->nport, num);
            return REFUSE(r, -ENOSPC, ZVS_CPMSG_GROUP_FULL, g->name, num, dev);
        }
        join_line[g->nport] = 0;
        g->port[g->nport].devno = d.devno;     /* fields: d's padding is undefined */
        g->port[g->nport++].port = d.port;
    }
    return 0;
}

/* LEAVE from the scratch copy, keeping the order of the others. */
/* SHARED: zvs_cfg_group_can_share's rule (SYSTEM CONFIG applies the same one), answered
 * as the command's messages. */
static int pg_can_share(const struct zvs_cfg *cfg, const char *group,
                        struct zvs_cp_response *r)
{
    int s = -1;

    switch (zvs_cfg_group_can_share(cfg, group, &s)) {
    case ZVS_SHARE_NO_IVL:
        return REFUSE(r, -EINVAL, ZVS_CPMSG_IVL_NO_IVL_SWITCH, group);
    case ZVS_SHARE_NOT_GLOBAL:
        return REFUSE(r, -EINVAL, ZVS_CPMSG_IVL_NOT_GLOBAL, group, cfg->vswitch[s].name);
    case ZVS_SHARE_OK:
        break;
    }
    return 0;
}

static int pg_leave(struct zvs_cfg_group *g, uint32_t *join_line, const struct zvs_cmd *cmd,
                    struct zvs_cp_response *r)
{
    char dev[12];

    for (unsigned i = 0; i < cmd->nrdev; i++) {
        int p = port_index(g, cmd->rdev[i]);
        if (p < 0) {
            zvs_apply_dev_fmt(cmd->rdev[i], dev);
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
    int s = zvs_apply_group_user(cfg, cfg->group[g].name, -1);
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
int zvs_apply_set_port_group(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
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
        zvs_apply_num_fmt(cmd->nrdev, num);
        zvs_apply_num_fmt(ZVS_CMD_MAX_RDEVS, limit);
        return REFUSE(r, -EINVAL, ZVS_CPMSG_TOO_MANY_DEVICES, num, limit);
    }
    if (gi < 0 && cmd->pg_op == ZVS_CMD_PG_LEAVE)
        return REFUSE(r, -ENOENT, ZVS_CPMSG_GROUP_NOT_FOUND, cmd->name);
    if (gi < 0 && cfg->ngroup >= ZVS_CFG_MAX_GROUPS)
        return zvs_apply_no_room(r, "PORT GROUP", ZVS_CFG_MAX_GROUPS);
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
        if (cmd->lacp_shared && (rc = pg_can_share(cfg, cmd->name, r)) < 0)
            return rc;
        g.lacp = cmd->lacp_active;
        g.shared = cmd->lacp_shared;
        break;
    case ZVS_CMD_PG_INTERVAL:
        if (cmd->interval_s > MAX_INTERVAL_S) {
            zvs_apply_num_fmt(cmd->interval_s, num);
            return REFUSE(r, -EINVAL, ZVS_CPMSG_VALUE_RANGE, "INTERVAL", num, "1-9990 or OFF");
        }
        g.interval_s = cmd->interval_s;
        break;
    case ZVS_CMD_PG_POLICY:             /* ours: the parser gave every part a value */
        g.policy = cmd->policy;
        g.load = cmd->load;
        g.lbt_percent = cmd->lbt_percent;
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
