/* The CP command message catalogue (see cp_messages.h for the id list and provenance).
 *
 * Owns: the table below, the one place that defines the id, severity, return code and
 * text of every message a CP command or the operator console answers with, and the
 * formatter. A new message of IBM's gets IBM's id and its source in cp-commands/README.md;
 * a new message of ours takes the next unused number of its component's block of 1100-1299
 * (cp_messages.h) under its component's prefix, never an HCP id. Either way: an entry here, a line in
 * cp-commands/README.md's message table and a golden line in
 * tests/golden/commands/errors.txt (or a test that compares its text).
 *
 * Real z/VM answers a command outside the issuer's classes as if it did not exist
 * (HCPCMD001E / HCPxxx003E, general z/VM knowledge); we answer ZVSCMD1100E instead so an
 * operator sees a missing directory class at once. Revisit if exact mimicry is wanted.
 * DEFINE VSWITCH operands go through the SYSTEM CONFIG statement's operand table, so their
 * errors are that catalogue's (messages.c, ZVSCFG10nnE, rc = the number): one operand,
 * one message, in the file and on the console.
 *
 * Rules: texts hold only "%s"; arguments are sanitised (upper case, no control bytes, no
 * RS, cut at ZVS_CPMSG_ARG_MAX), so a response line never carries what it must not.
 */
#include "cp-commands/cp_messages.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const struct zvs_cpmsg_def catalogue[ZVS_CPMSG_COUNT] = {
    [ZVS_CPMSG_UNKNOWN_COMMAND]    = { 1, 'E', 1, "Unknown CP command: %s", "HCPCMD" },
    [ZVS_CPMSG_INVALID_OPERAND]    = { 2, 'E', 2, "Invalid operand - %s", NULL },
    [ZVS_CPMSG_INVALID_OPTION]     = { 3, 'E', 3, "Invalid option - %s", NULL },
    [ZVS_CPMSG_OPERAND_MISSING]    = { 26, 'E', 26, "Operand missing or invalid", "HCPCFC" },
    [ZVS_CPMSG_DEVICE_NOT_EXIST]   = { 40, 'E', 40, "Device %s does not exist", "HCPNDQ" },
    [ZVS_CPMSG_NOT_AUTHORIZED]     = { 1100, 'E', 1100,
        "Not authorized: %s requires privilege class %s", "ZVSCMD" },
    [ZVS_CPMSG_CONSOLE_DENIED]     = { 1101, 'E', 1101,
        "Console access denied: uid %s is not mapped to a CP userid", "ZVSCON" },
    [ZVS_CPMSG_LINE_TOO_LONG]      = { 1102, 'E', 1102,
        "Command line longer than %s characters is ignored", "ZVSCMD" },
    [ZVS_CPMSG_TOO_MANY_DEVICES]   = { 1103, 'E', 1103,
        "Too many devices - %s; at most %s may be given", "ZVSCMD" },
    [ZVS_CPMSG_DEVICE_REPEATED]    = { 1104, 'E', 1104,
        "Device %s is given more than once", "ZVSCMD" },
    [ZVS_CPMSG_VALUE_RANGE]        = { 1105, 'E', 1105,
        "Invalid %s value - %s; valid: %s", "ZVSCMD" },
    [ZVS_CPMSG_NOT_AUTHORIZED_EITHER] = { 1140, 'E', 1140,
        "Not authorized: %s requires privilege class %s or %s", "ZVSCMD" },
    [ZVS_CPMSG_NOT_SUPPORTED]      = { 1141, 'E', 1141, "%s is not supported: %s", "ZVSCMD" },
    [ZVS_CPMSG_CONSOLE_BUSY]       = { 1106, 'E', 1106,
        "Console busy: %s clients are connected", "ZVSCON" },
    [ZVS_CPMSG_LINE_CHAR_INVALID]  = { 1107, 'E', 1107,
        "Command line contains a character that is not valid - %s", "ZVSCON" },
    [ZVS_CPMSG_TRUNCATED]          = { 1109, 'W', 0, "Response truncated", "ZVSCMD" },
    [ZVS_CPMSG_GROUP_NOT_FOUND]    = { 1110, 'E', 1110, "Port group %s does not exist", "ZVSLAG" },
    [ZVS_CPMSG_VSWITCH_NOT_FOUND]  = { 1111, 'E', 1111, "VSWITCH %s does not exist", "ZVSVSW" },
    [ZVS_CPMSG_DEVICE_IN_GROUP]    = { 1112, 'E', 1112,
        "Device %s is already in port group %s", "ZVSLAG" },
    [ZVS_CPMSG_DEVICE_NOT_IN_GROUP] = { 1113, 'E', 1113,
        "Device %s is not in port group %s", "ZVSLAG" },
    [ZVS_CPMSG_GROUP_FULL]         = { 1114, 'E', 1114,
        "Port group %s has %s devices; %s cannot join", "ZVSLAG" },
    [ZVS_CPMSG_GROUP_IN_USE]       = { 1115, 'E', 1115,
        "Port group %s is in use by VSWITCH %s", "ZVSLAG" },
    [ZVS_CPMSG_DEVICE_NOT_PORT]    = { 1116, 'E', 1116,
        "Device %s is not a port of any port group", "ZVSLAG" },
    [ZVS_CPMSG_DEVICE_UNMAPPED]    = { 1117, 'E', 1117,
        "Device %s has no RDEVICE INTERFACE mapping", "ZVSVSW" },
    [ZVS_CPMSG_NO_GROUPS]          = { 1118, 'I', 0, "No port groups are defined", "ZVSLAG" },
    [ZVS_CPMSG_COMMAND_FAILED]     = { 1119, 'S', 1119, "Command %s failed: %s", "ZVSCMD" },
    [ZVS_CPMSG_VSWITCH_EXISTS]     = { 1120, 'E', 1120, "VSWITCH %s already exists", "ZVSVSW" },
    [ZVS_CPMSG_COUPLE_NOT_AUTHORIZED] = { 1121, 'E', 1121,
        "User %s is not authorized to couple to VSWITCH %s", "ZVSVSW" },
    [ZVS_CPMSG_NIC_NOT_FOUND]      = { 1122, 'E', 1122,
        "NIC %s does not exist for user %s", "ZVSNIC" },
    [ZVS_CPMSG_DEVICE_EXISTS]      = { 1123, 'E', 1123,
        "Device %s already exists for user %s", "ZVSNIC" },
    [ZVS_CPMSG_NIC_COUPLED]        = { 1124, 'E', 1124,
        "NIC %s is already coupled to VSWITCH %s", "ZVSNIC" },
    [ZVS_CPMSG_NIC_NOT_COUPLED]    = { 1125, 'E', 1125, "NIC %s is not coupled", "ZVSNIC" },
    [ZVS_CPMSG_USER_NOT_FOUND]     = { 1126, 'E', 1126,
        "User %s is not in the directory", "ZVSGST" },
    [ZVS_CPMSG_NO_GRANT]           = { 1127, 'E', 1127,
        "User %s has no GRANT for VSWITCH %s", "ZVSVSW" },
    [ZVS_CPMSG_MACID_EXHAUSTED]    = { 1128, 'E', 1128, "No MACID is free in range %s", "ZVSNIC" },
    [ZVS_CPMSG_NEEDS_VLAN_AWARE]   = { 1129, 'E', 1129,
        "%s requires a VLAN AWARE VSWITCH; %s is VLAN UNAWARE", "ZVSVSW" },
    [ZVS_CPMSG_ACCESS_ONE_VLAN]    = { 1130, 'E', 1130,
        "PORTTYPE ACCESS takes one VLAN; %s given", "ZVSVSW" },
    [ZVS_CPMSG_DEVICE_IN_USE]      = { 1131, 'E', 1131, "Device %s is in use by %s", "ZVSVSW" },
    [ZVS_CPMSG_NO_SWITCHOVER]      = { 1132, 'E', 1132,
        "VSWITCH %s cannot switch over: %s", "ZVSVSW" },
    [ZVS_CPMSG_LIMIT_REACHED]      = { 1133, 'E', 1133,
        "No room for another %s; the limit is %s", "ZVSCMD" },
    [ZVS_CPMSG_NOT_OWNER]          = { 1134, 'E', 1134,
        "User %s may not act on NIC %s of another user", "ZVSNIC" },
    [ZVS_CPMSG_NOUPLINK]           = { 1135, 'E', 1135,
        "VSWITCH %s is defined NOUPLINK; %s is not allowed", "ZVSVSW" },
    [ZVS_CPMSG_NO_BACKEND]         = { 1136, 'E', 1136,
        "NIC %s of user %s has no backend (NICBIND, or vswitchd -q)", "ZVSNIC" },
    [ZVS_CPMSG_GROUP_EMPTY_USE]    = { 1137, 'E', 1137, "Port group %s has no devices", "ZVSLAG" },
    [ZVS_CPMSG_NOTHING_TO_SHOW]    = { 1138, 'I', 0, "No %s to show", "ZVSCMD" },
    [ZVS_CPMSG_ROLLBACK_INEXACT]   = { 1150, 'W', 0,
        "Command %s was rolled back, but the data plane is not exactly as it was", "ZVSCMD" },
    [ZVS_CPMSG_NOT_LOGGED_ON]      = { 45, 'E', 45, "%s not logged on", NULL },
    [ZVS_CPMSG_NOT_IN_DIRECTORY]   = { 53, 'E', 53, "%s not in CP directory", NULL },
    [ZVS_CPMSG_LCS_TRUNK]          = { 1160, 'E', 1160,
        "NIC %s of user %s is bound to LCS, which carries no VLAN tags: it cannot be a TRUNK port",
        "ZVSGST" },
    [ZVS_CPMSG_ALREADY_LOGGED_ON]  = { 1161, 'E', 1161, "%s is already logged on", "ZVSGST" },
    [ZVS_CPMSG_NO_IPL]             = { 1162, 'E', 1162,
        "User %s has no IPL statement in the directory", "ZVSGST" },
    [ZVS_CPMSG_IMAGE_MISSING]      = { 1163, 'E', 1163,
        "Guest image %s cannot be IPLed: %s", "ZVSGST" },
    [ZVS_CPMSG_START_FAILED]       = { 1164, 'E', 1164, "Machine %s did not start: %s", "ZVSGST" },
    [ZVS_CPMSG_NOT_A_MACHINE]      = { 1165, 'E', 1165,
        "%s is not a virtual machine of this system (no IPL statement)", "ZVSGST" },
    [ZVS_CPMSG_SWITCH_STATUS]      = { 2830, 'I', 0,
        "VSWITCH SYSTEM %s status is %s.", "HCPSWU", 1 },
    [ZVS_CPMSG_SWITCH_NOT_ACTIVE]  = { 2832, 'E', 2832,
        "Connection for VSWITCH SYSTEM %s is not active.\n"
        "None of the RDEVs are available working OSA-Express devices.", "HCPSWU" },
    [ZVS_CPMSG_DEVICE_NOT_READY]   = { 1170, 'E', 1170,
        "Device %s of VSWITCH SYSTEM %s is not ready: %s", "ZVSVSW", 1 },
    [ZVS_CPMSG_DEVICE_READY]       = { 1171, 'I', 0,
        "Device %s of VSWITCH SYSTEM %s is ready: %s", "ZVSVSW", 1 },
    [ZVS_CPMSG_MEMBER_NOT_IN_USE]  = { 1172, 'E', 1172,
        "Port group %s member %s is not in use: %s", "ZVSLAG", 1 },
    [ZVS_CPMSG_MEMBER_IN_USE]      = { 1173, 'I', 0,
        "Port group %s member %s is in use: collecting and distributing", "ZVSLAG" },
    [ZVS_CPMSG_MEMBER_STATE]       = { 1174, 'I', 0,
        "Port group %s member %s %s collecting, %s distributing", "ZVSLAG", 1 },
    [ZVS_CPMSG_BUCKET_MOVED]       = { 1175, 'I', 0,
        "Port group %s bucket %s moved from %s to %s (%s)%s", "ZVSLAG", 1 },
    [ZVS_CPMSG_NIC_CONNECTED]      = { 1176, 'I', 0,
        "NIC %s of user %s is connected to VSWITCH SYSTEM %s", "ZVSNIC" },
    [ZVS_CPMSG_NIC_DISCONNECTED]   = { 1177, 'I', 0,
        "NIC %s of user %s is disconnected from VSWITCH SYSTEM %s", "ZVSNIC" },
    [ZVS_CPMSG_SUPPRESSED]         = { 1178, 'W', 0,
        "%s %s message(s) not shown: more than %s in %s seconds", "ZVSCON" },
    [ZVS_CPMSG_RES_WATCHED]        = { 1200, 'E', 1200, "Name %s is already watched", "ZVSRES" },
    [ZVS_CPMSG_RES_NOT_WATCHED]    = { 1201, 'E', 1201, "Name %s is not watched", "ZVSRES" },
    [ZVS_CPMSG_RES_CHANGED]        = { 1202, 'I', 0,
        "Name %s resolves to %s (was %s)", "ZVSRES", 1 },
    [ZVS_CPMSG_RES_FAILING]        = { 1203, 'W', 0,
        "Name %s cannot be resolved: %s; %s", "ZVSRES", 1 },
    [ZVS_CPMSG_RES_RECOVERED]      = { 1204, 'I', 0, "Name %s resolves again to %s", "ZVSRES", 1 },
    [ZVS_CPMSG_VXL_NO_VXLAN]       = { 1220, 'E', 1220,
        "VSWITCH %s has no VXLAN uplink", "ZVSVXL" },
    [ZVS_CPMSG_VXL_REMOTE_EXISTS]  = { 1221, 'E', 1221,
        "VSWITCH %s already has remote VTEP %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_REMOTE_FULL]    = { 1222, 'E', 1222,
        "VSWITCH %s has %s remote VTEPs: no room for %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_REMOTE_FAMILY]  = { 1223, 'E', 1223,
        "Remote VTEP %s is not of the address family of LOCAL %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_NO_REMOTE]      = { 1224, 'E', 1224,
        "VSWITCH %s has no remote VTEP %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_NOT_AWARE]      = { 1225, 'E', 1225,
        "VSWITCH %s is not VLAN AWARE: a VNI per VLAN needs it", "ZVSVXL" },
    [ZVS_CPMSG_VXL_NATIVE]         = { 1226, 'E', 1226,
        "VLAN %s is the native VLAN of VSWITCH %s: it travels as VXLAN VNI", "ZVSVXL" },
    [ZVS_CPMSG_VXL_VNI_USED]       = { 1227, 'E', 1227,
        "VNI %s is VLAN %s's on VSWITCH %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_NO_VLAN]        = { 1228, 'E', 1228,
        "VSWITCH %s has no VNI for VLAN %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_NO_NEIGHBOR]    = { 1229, 'E', 1229,
        "VSWITCH %s has no static neighbor %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_NEIGHBOR_FAMILY] = { 1230, 'E', 1230,
        "Neighbor %s is not of the address family of LOCAL %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_NEIGHBOR_FULL]  = { 1231, 'E', 1231,
        "VSWITCH %s has %s static neighbors: no room for %s", "ZVSVXL" },
    [ZVS_CPMSG_VXL_NEIGHBOR_UNICAST] = { 1232, 'E', 1232,
        "Neighbor %s is not a unicast address of another host", "ZVSVXL" },
    [ZVS_CPMSG_IVL_NO_IVL_SWITCH]  = { 1260, 'E', 1260,
        "PORT GROUP %s cannot be SHARED: this system has no VSWITCH of TYPE IVL", "ZVSIVL" },
    [ZVS_CPMSG_IVL_NOT_GLOBAL]     = { 1261, 'E', 1261,
        "PORT GROUP %s cannot be SHARED: VSWITCH %s is not GLOBAL", "ZVSIVL" },
    [ZVS_CPMSG_IVL_NOT_IVL_SWITCH] = { 1262, 'E', 1262,
        "VSWITCH %s is not TYPE IVL: IVLPORT belongs to the IVL switch", "ZVSIVL" },
    [ZVS_CPMSG_IVL_STATUS]         = { 1263, 'I', 0,
        "VSWITCH %s IVL domain status is %s", "ZVSIVL" },
    [ZVS_CPMSG_IVL_ALONE]          = { 1264, 'W', 0,
        "VSWITCH %s runs alone: %s", "ZVSIVL", 1 },
    [ZVS_CPMSG_IVL_DIFFERS]        = { 1265, 'E', 1265,
        "Port group %s of system %s differs from the IVL domain's definition: %s", "ZVSIVL",
        1 },
    [ZVS_CPMSG_IVL_HEARTBEAT]      = { 1266, 'W', 0,
        "IVL HEARTBEAT TIMEOUT %s s differs from corosync's token timeout of %s ms", "ZVSIVL" },
    [ZVS_CPMSG_IVL_COROSYNC_CONF]  = { 1267, 'W', 0,
        "Corosync configuration %s differs from SYSTEM CONFIG's IVL domain: %s", "ZVSIVL", 1 },
    [ZVS_CPMSG_VXL_NIC_MTU]        = { 1240, 'W', 0,
        "NIC %s of user %s has MTU %s, but the VXLAN segment of VSWITCH %s carries %s: "
        "larger frames are discarded", "ZVSVXL" },
    [ZVS_CPMSG_VXL_FRAME_TOO_BIG]  = { 1241, 'W', 0,
        "VSWITCH %s discarded a frame of %s bytes from NIC %s of user %s: it needs MTU %s, "
        "the VXLAN segment carries %s", "ZVSVXL" },
};

const struct zvs_cpmsg_def *zvs_cpmsg_def(enum zvs_cpmsg_id id)
{
    assert((unsigned)id < ZVS_CPMSG_COUNT);
    return &catalogue[id];
}

unsigned zvs_cpmsg_nargs(enum zvs_cpmsg_id id)
{
    unsigned n = 0;
    for (const char *p = zvs_cpmsg_def(id)->text; (p = strstr(p, "%s")) != NULL; p += 2)
        n++;
    return n;
}

/* Appends one byte at buf[len] if room; returns the new logical length. */
static size_t put_char(char *buf, size_t size, size_t len, char ch)
{
    if (len + 1 < size) {
        buf[len] = ch;
        buf[len + 1] = '\0';
    }
    return len + 1;
}

static size_t put_lit(char *buf, size_t size, size_t len, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        len = put_char(buf, size, len, s[i]);
    return len;
}

/* An argument as it may appear on a response line: printable ASCII, upper case (unless
 * the message keeps its arguments' case: Linux names). */
static size_t put_arg(char *buf, size_t size, size_t len, const char *arg, int asis)
{
    size_t i;
    for (i = 0; i < ZVS_CPMSG_ARG_MAX && arg[i] != '\0'; i++) {
        unsigned char ch = (unsigned char)arg[i];
        if (ch < 0x20 || ch > 0x7E)
            ch = '?';
        else if (ch >= 'a' && ch <= 'z' && !asis)
            ch = (unsigned char)(ch - 'a' + 'A');
        len = put_char(buf, size, len, (char)ch);
    }
    if (arg[i] != '\0')
        len = put_lit(buf, size, len, "...", 3);
    return len;
}

int zvs_cpmsg_id(char *buf, size_t size, enum zvs_cpmsg_id id, const char *module)
{
    const struct zvs_cpmsg_def *def = zvs_cpmsg_def(id);
    char head[8];
    if (def->prefix != NULL)
        snprintf(head, sizeof head, "%s", def->prefix);
    else
        snprintf(head, sizeof head, "HCP%.3s",
                 module != NULL && *module != '\0' ? module : ZVS_CPMSG_MODULE_DEFAULT);
    /* Ours have four digits (ZVSRES1200E), IBM's three (HCPCMD001E). */
    int digits = strncmp(head, "ZVS", 3) == 0 ? 4 : 3;
    return snprintf(buf, size, "%s%0*u%c", head, digits, (unsigned)def->number,
                    def->severity);
}

size_t zvs_cpmsg_format_in(char *buf, size_t size, enum zvs_cpmsg_id id, const char *module,
                           const char *const *args, unsigned nargs)
{
    const struct zvs_cpmsg_def *def = zvs_cpmsg_def(id);
    char head[24];
    size_t len = 0;
    unsigned argi = 0;

    if (size > 0)
        buf[0] = '\0';
    int n = zvs_cpmsg_id(head, sizeof head - 1, id, module);
    assert(n > 0 && (size_t)n < sizeof head - 1);
    head[n++] = ' ';
    head[n] = '\0';
    len = put_lit(buf, size, len, head, (size_t)n);
    for (const char *p = def->text; *p != '\0'; ) {
        const char *ph = strstr(p, "%s");
        const char *nl = strchr(p, '\n');
        if (nl != NULL && (ph == NULL || nl < ph)) {
            /* A second line of the same message carries the same id. */
            len = put_lit(buf, size, len, p, (size_t)(nl - p) + 1);
            len = put_lit(buf, size, len, head, (size_t)n);
            p = nl + 1;
            continue;
        }
        size_t lit = ph != NULL ? (size_t)(ph - p) : strlen(p);
        len = put_lit(buf, size, len, p, lit);
        if (ph == NULL)
            break;
        const char *arg = argi < nargs && args[argi] != NULL ? args[argi] : "?";
        argi++;
        len = put_arg(buf, size, len, arg, def->asis);
        p = ph + 2;
    }
    return len;
}

size_t zvs_cpmsg_format(char *buf, size_t size, enum zvs_cpmsg_id id,
                        const char *const *args, unsigned nargs)
{
    return zvs_cpmsg_format_in(buf, size, id, NULL, args, nargs);
}
