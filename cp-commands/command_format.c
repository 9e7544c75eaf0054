/* The canonical text of a parsed CP command (zvs_cmd_format).
 *
 * Owns: zvs_cmd_format, which writes a struct zvs_cmd back as a command line: full
 * keywords (the table's spellings, command_grammar.c), names and devices as stored, every
 * operand of a DEFINE VSWITCH in SYSTEM CONFIG statement syntax, e.g. "SET PORT GROUP
 * CCBGROUP JOIN 28BA 2902" or "QUERY LACP ALL DETAILS".
 *
 * Rules: the text parses back (zvs_cmd_parse) to the identical struct and formats
 * identically again (the command fuzz target and tests/golden/commands/canonical.txt
 * prove it). UPLINK, QDIO and TO are accepted by the parser and not recorded, so the text
 * leaves UPLINK, TO and FORCE's IMMEDIATE out and always writes DEFINE NIC's QDIO and
 * DEVICES, SIGNAL's WITHIN and QUERY CONSLOG's n. Like snprintf,
 * the text is cut to the buffer and the length it needed is returned.
 * Hazards: a keyword or value the parser learns must be written here too, or the round
 * trip breaks (an unknown alternative is written "?", which no parse accepts).
 */
#include "cp-commands/command.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cp-commands/command_impl.h"

/* The keyword of the alternative `op` of the first STEP_CHOICE with that field. */
static const char *alt_word(const struct cmddef *def, enum op_field field, int op)
{
    for (unsigned s = 0; s < def->nsteps; s++) {
        const struct step *st = &def->steps[s];
        if (st->kind != STEP_CHOICE || st->field != field)
            continue;
        for (unsigned a = 0; a < st->nalts; a++)
            if (st->alts[a].op == op)
                return st->alts[a].kw.word;
    }
    return "?";
}

/* snprintf that accumulates: returns the new logical length. */
__attribute__((format(printf, 4, 5)))
static size_t catf(char *buf, size_t size, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(len < size ? buf + len : NULL, len < size ? size - len : 0, fmt, ap);
    va_end(ap);
    return n < 0 ? len : len + (size_t)n;
}

static size_t cat_rdevs(char *buf, size_t size, size_t len, const struct zvs_rdev *rdev,
                        unsigned n, unsigned max)
{
    char dev[16];
    for (unsigned k = 0; k < n && k < max; k++) {
        zvs_rdev_format(rdev[k], dev, sizeof dev);
        len = catf(buf, size, len, " %s", dev);
    }
    return len;
}

static const char *onoff_word(bool on)
{
    return on ? "ON" : "OFF";
}

static const char *macprotect_word(enum zvs_macprotect m)
{
    return m == ZVS_MACPROTECT_ON ? "ON" : m == ZVS_MACPROTECT_OFF ? "OFF" : "UNSPECIFIED";
}

/* Every operand of a DEFINE VSWITCH, in statement syntax. */
static size_t cat_vswitch_def(char *buf, size_t size, size_t len,
                              const struct zvs_cfg_vswitch *v)
{
    if (v->nouplink) {
        len = catf(buf, size, len, " NOUPLINK");
    } else if (v->nrdev == 0) {
        len = catf(buf, size, len, " RDEV NONE");
    } else {
        len = catf(buf, size, len, " RDEV");
        len = cat_rdevs(buf, size, len, v->rdev, v->nrdev, ZVS_CFG_MAX_RDEV);
    }
    if (!v->vlan_aware)
        len = catf(buf, size, len, " VLAN UNAWARE");
    else if (v->default_vid == 1)
        len = catf(buf, size, len, " VLAN AWARE");
    else
        len = catf(buf, size, len, " VLAN %u", (unsigned)v->default_vid);
    if (v->vlan_aware && v->native_vid == 0)
        len = catf(buf, size, len, " NATIVE NONE");
    else if (v->vlan_aware)
        len = catf(buf, size, len, " NATIVE %u", (unsigned)v->native_vid);
    len = catf(buf, size, len, " PORTTYPE %s",
               v->porttype == ZVS_PORTTYPE_TRUNK ? "TRUNK" : "ACCESS");
    len = catf(buf, size, len, " QUEUESTORAGE %uM", (unsigned)v->queuestorage_mb);
    len = catf(buf, size, len, " %s", v->connect ? "CONNECT" : "DISCONNECT");
    len = catf(buf, size, len, " CONTROLLER %s", v->controller);
    if (v->group[0] != '\0')
        len = catf(buf, size, len, " GROUP %s", v->group);
    else
        len = catf(buf, size, len, " NOGROUP");
    len = catf(buf, size, len, " MACPROTECT %s", macprotect_word(v->macprotect));
    len = catf(buf, size, len, " ISOLATION %s", onoff_word(v->isolation));
    /* Only when given, so that the canonical text of a command without them reads as
     * before and parses back to the same switch (iptimeout_min 0: the default). */
    if (v->iptimeout_min != 0)
        len = catf(buf, size, len, " IPTIMEOUT %u", (unsigned)v->iptimeout_min);
    if (v->portbased)
        len = catf(buf, size, len, " PORTBASED");
    if (v->scope == ZVS_VSW_GLOBAL)
        len = catf(buf, size, len, " TYPE QDIO GLOBAL");
    else if (v->scope == ZVS_VSW_IVL)
        len = catf(buf, size, len, " TYPE IVL DOMAIN %c", v->ivl_domain);
    return len;
}

static size_t cat_set_vswitch(char *buf, size_t size, size_t len, const struct cmddef *def,
                              const struct zvs_cmd *cmd)
{
    char set[ZVS_VIDSET_MAX * 12];

    len = catf(buf, size, len, " %s %s", cmd->name, alt_word(def, OP_VS, (int)cmd->vs_op));
    switch (cmd->vs_op) {
    case ZVS_CMD_VS_GRANT:
        len = catf(buf, size, len, " %s", cmd->userid);
        if (cmd->porttype != ZVS_PORTTYPE_UNSPEC)
            len = catf(buf, size, len, " PORTTYPE %s",
                       cmd->porttype == ZVS_PORTTYPE_TRUNK ? "TRUNK" : "ACCESS");
        if (cmd->has_vlan) {
            zvs_vidset_format(&cmd->vlan, set, sizeof set);
            len = catf(buf, size, len, " VLAN %s", set);
        }
        return len;
    case ZVS_CMD_VS_REVOKE:
        return catf(buf, size, len, " %s", cmd->userid);
    case ZVS_CMD_VS_RDEV:
        if (cmd->nrdev == 0)
            return catf(buf, size, len, " NONE");
        return cat_rdevs(buf, size, len, cmd->rdev, cmd->nrdev, UPLINK_RDEVS_MAX);
    case ZVS_CMD_VS_GROUP:
        return catf(buf, size, len, " %s", cmd->group);
    case ZVS_CMD_VS_NOGROUP:
    case ZVS_CMD_VS_CONNECT:
    case ZVS_CMD_VS_DISCONNECT:
        return len;
    case ZVS_CMD_VS_QUEUESTORAGE:
        return catf(buf, size, len, " %uM", (unsigned)cmd->queuestorage_mb);
    case ZVS_CMD_VS_ISOLATION:
        return catf(buf, size, len, " %s", onoff_word(cmd->onoff));
    case ZVS_CMD_VS_MACPROTECT:
        return catf(buf, size, len, " %s", macprotect_word(cmd->macprotect));
    case ZVS_CMD_VS_IVLPORT_HEARTBEAT:
        return catf(buf, size, len, " HEARTBEAT TIMEOUT %u", (unsigned)cmd->heartbeat_s);
    case ZVS_CMD_VS_VXLAN:
        if (cmd->vx_op == ZVS_CMD_VX_VNI)
            return catf(buf, size, len, " VNI %u", (unsigned)cmd->vni);
        if (cmd->vx_op == ZVS_CMD_VX_VLAN_VNI)
            return catf(buf, size, len, " VLAN %u VNI %u", (unsigned)cmd->vx_vid,
                        (unsigned)cmd->vni);
        if (cmd->vx_op == ZVS_CMD_VX_VLAN_DELETE)
            return catf(buf, size, len, " VLAN %u DELETE", (unsigned)cmd->vx_vid);
        if (cmd->vx_op == ZVS_CMD_VX_NEIGHBOR_SET) {
            char mac[18];
            zvs_mac_format(cmd->vx_mac, mac, sizeof mac);
            return catf(buf, size, len, " NEIGHBOR %s MAC %s", cmd->vx_addr, mac);
        }
        if (cmd->vx_op == ZVS_CMD_VX_NEIGHBOR_DELETE)
            return catf(buf, size, len, " NEIGHBOR %s DELETE", cmd->vx_addr);
        return catf(buf, size, len, " REMOTE %s %s",
                    cmd->vx_op == ZVS_CMD_VX_REMOTE_ADD ? "ADD" : "DELETE", cmd->hostname);
    case ZVS_CMD_VS_COUNTERS_CLEAR:
        len = catf(buf, size, len, " CLEAR %s",
                   cmd->counters == ZVS_CMD_COUNTERS_UPLINK       ? "UPLINK"
                   : cmd->counters == ZVS_CMD_COUNTERS_BRIDGEPORT ? "BRIDGEPORT"
                                                                  : "ALL");
        if (cmd->counters_kind == ZVS_CMD_CTR_DATA)
            len = catf(buf, size, len, " DATA");
        else if (cmd->counters_kind == ZVS_CMD_CTR_DISCARDED)
            len = catf(buf, size, len, " DISCARDED");
        else if (cmd->counters_kind == ZVS_CMD_CTR_ERRORS)
            len = catf(buf, size, len, " ERRORS");
        return len;
    case ZVS_CMD_VS_SWITCHOVER:
        if (cmd->nrdev == 0)
            return catf(buf, size, len, " AVAILABLE");
        len = catf(buf, size, len, " RDEV");
        return cat_rdevs(buf, size, len, cmd->rdev, 1, 1);
    }
    return len;
}

/* "[USERID u] vdev" of the NIC commands. */
static size_t cat_nic(char *buf, size_t size, size_t len, const struct zvs_cmd *cmd)
{
    if (cmd->target[0] != '\0')
        len = catf(buf, size, len, " USERID %s", cmd->target);
    if ((cmd->verb == ZVS_CMD_QUERY_NIC || cmd->verb == ZVS_CMD_QUERY_VIRTUAL_NIC) &&
        !cmd->has_vdev)
        return catf(buf, size, len, " ALL");
    return catf(buf, size, len, " %04X", (unsigned)cmd->vdev);
}

size_t zvs_cmd_format(const struct zvs_cmd *cmd, char *buf, size_t size)
{
    const struct cmddef *def = zvs_cmd_find_def(cmd->verb);
    size_t len = 0;

    if (size > 0)
        buf[0] = '\0';
    if (def == NULL)
        return 0;
    len = catf(buf, size, len, "%s", def->title);
    switch (cmd->verb) {
    case ZVS_CMD_SET_PORT_GROUP:
        len = catf(buf, size, len, " %s %s", cmd->name, alt_word(def, OP_PG, (int)cmd->pg_op));
        if (cmd->pg_op == ZVS_CMD_PG_JOIN || cmd->pg_op == ZVS_CMD_PG_LEAVE)
            len = cat_rdevs(buf, size, len, cmd->rdev, cmd->nrdev, ZVS_CMD_MAX_RDEVS);
        else if (cmd->pg_op == ZVS_CMD_PG_LACP)
            len = catf(buf, size, len, " %s%s", cmd->lacp_active ? "ACTIVE" : "INACTIVE",
                       cmd->lacp_shared ? " SHARED" : "");
        else if (cmd->pg_op == ZVS_CMD_PG_INTERVAL && cmd->interval_s == 0)
            len = catf(buf, size, len, " OFF");
        else if (cmd->pg_op == ZVS_CMD_PG_INTERVAL)
            len = catf(buf, size, len, " %u", (unsigned)cmd->interval_s);
        else if (cmd->pg_op == ZVS_CMD_PG_POLICY && cmd->policy == ZVS_CFG_POLICY_LBT)
            len = catf(buf, size, len, " LBT %u", (unsigned)cmd->lbt_percent);
        else if (cmd->pg_op == ZVS_CMD_PG_POLICY)
            len = catf(buf, size, len, " LOAD %s",
                       cmd->load == ZVS_CFG_LOAD_OUTBOUND ? "OUTBOUND" : "TOTAL");
        break;
    case ZVS_CMD_QUERY_PORT_GROUP:
    case ZVS_CMD_QUERY_LACP:
        len = catf(buf, size, len, " %s", cmd->name[0] != '\0' ? cmd->name : "ALL");
        if (cmd->level == ZVS_CMD_LEVEL_ACTIVE)
            len = catf(buf, size, len, " ACTIVE");
        if (cmd->details)
            len = catf(buf, size, len, " DETAILS");
        break;
    case ZVS_CMD_QUERY_VSWITCH:
        len = catf(buf, size, len, " %s", cmd->name[0] != '\0' ? cmd->name : "ALL");
        if (cmd->level != ZVS_CMD_LEVEL_BRIEF)
            len = catf(buf, size, len, " %s", alt_word(def, OP_LEVEL, (int)cmd->level));
        break;
    case ZVS_CMD_SET_LACP_FAULT:
        len = cat_rdevs(buf, size, len, cmd->rdev, 1, 1);
        len = catf(buf, size, len, " %s", alt_word(def, OP_FAULT, (int)cmd->fault));
        if (cmd->fault == ZVS_CMD_FAULT_DELAYTX)
            len = catf(buf, size, len, " %u", (unsigned)cmd->delay_ms);
        else
            len = catf(buf, size, len, " %s", onoff_word(cmd->fault_on));
        break;
    case ZVS_CMD_DEFINE_VSWITCH:
        len = catf(buf, size, len, " %s", cmd->name);
        len = cat_vswitch_def(buf, size, len, &cmd->vsw);
        break;
    case ZVS_CMD_SET_VSWITCH:
        len = cat_set_vswitch(buf, size, len, def, cmd);
        break;
    case ZVS_CMD_DETACH_VSWITCH:
        len = catf(buf, size, len, " %s", cmd->name);
        break;
    case ZVS_CMD_DEFINE_NIC:
        len = cat_nic(buf, size, len, cmd);
        len = catf(buf, size, len, " QDIO DEVICES %u", (unsigned)cmd->devices);
        break;
    case ZVS_CMD_COUPLE:
        len = cat_nic(buf, size, len, cmd);
        len = catf(buf, size, len, " TO SYSTEM %s", cmd->name);
        break;
    case ZVS_CMD_DETACH_NIC:
    case ZVS_CMD_UNCOUPLE:
        len = cat_nic(buf, size, len, cmd);
        break;
    case ZVS_CMD_QUERY_NIC:
    case ZVS_CMD_QUERY_VIRTUAL_NIC:
        len = cat_nic(buf, size, len, cmd);
        if (cmd->details)
            len = catf(buf, size, len, " DETAILS");
        break;
    case ZVS_CMD_QUERY_VMLAN:
    case ZVS_CMD_QUERY_NAMES:
    case ZVS_CMD_QUERY_RESOLVER:
        break;
    case ZVS_CMD_RESOLVER:
        len = catf(buf, size, len, " %s %s", alt_word(def, OP_RES, (int)cmd->res_op),
                   cmd->hostname);
        break;
    case ZVS_CMD_XAUTOLOG:
    case ZVS_CMD_FORCE:
    case ZVS_CMD_QUERY_USERS:
        len = catf(buf, size, len, " %s", cmd->userid);
        break;
    case ZVS_CMD_SIGNAL_SHUTDOWN:
        /* USER before a userid that would read as the keyword ALL or USER. */
        if (cmd->userid[0] == '\0')
            len = catf(buf, size, len, " SHUTDOWN ALL");
        else if (strcmp(cmd->userid, "ALL") == 0 || strcmp(cmd->userid, "USER") == 0)
            len = catf(buf, size, len, " SHUTDOWN USER %s", cmd->userid);
        else
            len = catf(buf, size, len, " SHUTDOWN %s", cmd->userid);
        len = catf(buf, size, len, " WITHIN %u", (unsigned)cmd->within_s);
        break;
    case ZVS_CMD_SEND:
        len = catf(buf, size, len, " %s", cmd->userid);
        if (cmd->text[0] != '\0')
            len = catf(buf, size, len, " %s", cmd->text);
        break;
    case ZVS_CMD_QUERY_CONSLOG:
        len = catf(buf, size, len, " %s %u", cmd->userid, (unsigned)cmd->lines);
        break;
    case ZVS_CMD_QUERY_USERID:
    case ZVS_CMD_QUERY_CPLEVEL:
        break;
    case ZVS_CMD_QUERY_LAN:
        len = catf(buf, size, len, " %s", cmd->name[0] != '\0' ? cmd->name : "ALL");
        if (cmd->userid[0] != '\0')
            len = catf(buf, size, len, " OWNER %s", cmd->userid);
        if (cmd->level != ZVS_CMD_LEVEL_BRIEF)
            len = catf(buf, size, len, " %s", alt_word(def, OP_LEVEL, (int)cmd->level));
        break;
    }
    return len;
}
