/* The CP command message catalogue (see cp_messages.h for the id list and provenance).
 *
 * Owns: the table below, the one place that defines the number, severity, return code and
 * text of every message a CP command or the operator console answers with, and the
 * formatter. A new message gets the next free number of 1100-1199, an entry here, a line
 * in cp-commands/README.md and a golden line in tests/golden/commands/errors.txt.
 *
 * Catalogue (rc = return code; "z/VM" = the classic CP text, known from general z/VM use
 * but not checked against IBM's "z/VM CP Messages and Codes"; "ours" = zvswitch's,
 * UNCONFIRMED against z/VM):
 *   HCP001E  rc 1     z/VM  Unknown CP command: %s
 *   HCP002E  rc 2     z/VM  Invalid operand - %s
 *   HCP003E  rc 3     z/VM  Invalid option - %s
 *   HCP026E  rc 26    z/VM  Operand missing or invalid
 *   HCP1100E rc 1100  ours  Not authorized: %s requires privilege class %s
 *   HCP1101E rc 1101  ours  Console access denied: uid %s is not mapped to a CP userid
 *   HCP1102E rc 1102  ours  Command line longer than %s characters is ignored
 *   HCP1103E rc 1103  ours  Too many devices - %s; at most %s may be given
 *   HCP1104E rc 1104  ours  Device %s is given more than once
 *   HCP1105E rc 1105  ours  Invalid %s value - %s; valid: %s
 *   HCP1140E rc 1140  ours  Not authorized: %s requires privilege class %s or %s
 *   HCP1106E rc 1106  ours  Console busy: %s clients are connected
 *   HCP1107E rc 1107  ours  Command line contains a character that is not valid - %s
 *   HCP1109W rc 0     ours  Response truncated
 *   HCP1110E rc 1110  ours  Port group %s does not exist
 *   HCP1111E rc 1111  ours  VSWITCH %s does not exist
 *   HCP1112E rc 1112  ours  Device %s is already in port group %s
 *   HCP1113E rc 1113  ours  Device %s is not in port group %s
 *   HCP1114E rc 1114  ours  Port group %s has %s devices; %s cannot join
 *   HCP1115E rc 1115  ours  Port group %s is in use by VSWITCH %s
 *   HCP1116E rc 1116  ours  Device %s is not a port of any port group
 *   HCP1117E rc 1117  ours  Device %s has no RDEVICE INTERFACE mapping
 *   HCP1118I rc 0     ours  No port groups are defined
 *   HCP1119S rc 1119  ours  Command %s failed: %s
 *   HCP1120E rc 1120  ours  VSWITCH %s already exists
 *   HCP1121E rc 1121  ours  User %s is not authorized to couple to VSWITCH %s
 *   HCP1122E rc 1122  ours  NIC %s does not exist for user %s
 *   HCP1123E rc 1123  ours  Device %s already exists for user %s
 *   HCP1124E rc 1124  ours  NIC %s is already coupled to VSWITCH %s
 *   HCP1125E rc 1125  ours  NIC %s is not coupled
 *   HCP1126E rc 1126  ours  User %s is not in the directory
 *   HCP1127E rc 1127  ours  User %s has no GRANT for VSWITCH %s
 *   HCP1128E rc 1128  ours  No MACID is free in range %s
 *   HCP1129E rc 1129  ours  %s requires a VLAN AWARE VSWITCH; %s is VLAN UNAWARE
 *   HCP1130E rc 1130  ours  PORTTYPE ACCESS takes one VLAN; %s given
 *   HCP1131E rc 1131  ours  Device %s is in use by %s
 *   HCP1132E rc 1132  ours  VSWITCH %s cannot switch over: %s
 *   HCP1133E rc 1133  ours  No room for another %s; the limit is %s
 *   HCP1134E rc 1134  ours  User %s may not act on NIC %s of another user
 *   HCP1135E rc 1135  ours  VSWITCH %s is defined NOUPLINK; %s is not allowed
 *   HCP1136E rc 1136  ours  NIC %s of user %s has no backend (NICBIND, or vswitchd -q)
 *   HCP1137E rc 1137  ours  Port group %s has no devices
 *   HCP1138I rc 0     ours  No %s to show
 *   HCP1141E rc 1141  ours  %s is not supported: %s   (a documented operand we do not
 *                           emulate, e.g. SET PORT GROUP ... LACP ACTIVE SHARED)
 * Unsolicited (console subscribers and the log; the rc is never a command's):
 *   HCPSWU2830I       z/VM  VSWITCH SYSTEM %s status is %s.   ("ready": our reading)
 *   HCPSWU2832E       z/VM  Connection for VSWITCH SYSTEM %s is not active.
 *                     z/VM  None of the RDEVs are available working OSA-Express devices.
 *   HCP1170E          ours  Device %s of VSWITCH SYSTEM %s is not ready: %s
 *   HCP1171I          ours  Device %s of VSWITCH SYSTEM %s is ready: %s
 *   HCP1172E          ours  Port group %s member %s is not in use: %s
 *   HCP1173I          ours  Port group %s member %s is in use: collecting and distributing
 *   HCP1174I          ours  Port group %s member %s %s collecting, %s distributing (log)
 *   HCP1175I          ours  Port group %s bucket %s moved from %s to %s (%s)%s     (log)
 *   HCP1176I          ours  NIC %s of user %s is connected to VSWITCH SYSTEM %s
 *   HCP1177I          ours  NIC %s of user %s is disconnected from VSWITCH SYSTEM %s
 *   HCP1178W          ours  %s %s message(s) not shown: more than %s in %s seconds
 * The name layer (ids ZVS + component + 4 digits + severity, zvswitch's own scheme):
 *   ZVSRES0001E rc 1  ours  Name %s is already watched
 *   ZVSRES0002E rc 2  ours  Name %s is not watched
 *   ZVSRES0003I       ours  Name %s resolves to %s (was %s)              (unsolicited)
 *   ZVSRES0004W       ours  Name %s cannot be resolved: %s; %s           (unsolicited)
 *   ZVSRES0005I       ours  Name %s resolves again to %s                 (unsolicited)
 * "z/VM" there: number and text as a real z/VM 6.4 wrote them (cp_messages.h names the
 * capture); IBM's page for them was not found.
 * DEFINE VSWITCH operands go through the SYSTEM CONFIG statement's operand table, so their
 * errors are that catalogue's (messages.c, HCP10nnE, rc = the number): one operand, one
 * message, in the file and on the console.
 * Numbers 1140-1149 are reserved for the parser, 1150-1169 for the running configuration,
 * 1170-1189 for unsolicited messages.
 * Real z/VM answers a command outside the issuer's classes as if it did not exist
 * (HCP001E / HCP003E, general z/VM knowledge); we answer HCP1100E instead so an operator
 * sees a missing directory class at once. Revisit if exact mimicry is wanted.
 *
 * Rules: texts hold only "%s"; arguments are sanitised (upper case, no control bytes, no
 * RS, cut at ZVS_CPMSG_ARG_MAX), so a response line never carries what it must not.
 */
#include "cp-commands/cp_messages.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const struct zvs_cpmsg_def catalogue[ZVS_CPMSG_COUNT] = {
    [ZVS_CPMSG_UNKNOWN_COMMAND]    = { 1, 'E', 1, "Unknown CP command: %s" },
    [ZVS_CPMSG_INVALID_OPERAND]    = { 2, 'E', 2, "Invalid operand - %s" },
    [ZVS_CPMSG_INVALID_OPTION]     = { 3, 'E', 3, "Invalid option - %s" },
    [ZVS_CPMSG_OPERAND_MISSING]    = { 26, 'E', 26, "Operand missing or invalid" },
    [ZVS_CPMSG_NOT_AUTHORIZED]     = { 1100, 'E', 1100,
        "Not authorized: %s requires privilege class %s" },
    [ZVS_CPMSG_CONSOLE_DENIED]     = { 1101, 'E', 1101,
        "Console access denied: uid %s is not mapped to a CP userid" },
    [ZVS_CPMSG_LINE_TOO_LONG]      = { 1102, 'E', 1102,
        "Command line longer than %s characters is ignored" },
    [ZVS_CPMSG_TOO_MANY_DEVICES]   = { 1103, 'E', 1103,
        "Too many devices - %s; at most %s may be given" },
    [ZVS_CPMSG_DEVICE_REPEATED]    = { 1104, 'E', 1104, "Device %s is given more than once" },
    [ZVS_CPMSG_VALUE_RANGE]        = { 1105, 'E', 1105, "Invalid %s value - %s; valid: %s" },
    [ZVS_CPMSG_NOT_AUTHORIZED_EITHER] = { 1140, 'E', 1140,
        "Not authorized: %s requires privilege class %s or %s" },
    [ZVS_CPMSG_NOT_SUPPORTED]      = { 1141, 'E', 1141, "%s is not supported: %s" },
    [ZVS_CPMSG_CONSOLE_BUSY]       = { 1106, 'E', 1106, "Console busy: %s clients are connected" },
    [ZVS_CPMSG_LINE_CHAR_INVALID]  = { 1107, 'E', 1107,
        "Command line contains a character that is not valid - %s" },
    [ZVS_CPMSG_TRUNCATED]          = { 1109, 'W', 0, "Response truncated" },
    [ZVS_CPMSG_GROUP_NOT_FOUND]    = { 1110, 'E', 1110, "Port group %s does not exist" },
    [ZVS_CPMSG_VSWITCH_NOT_FOUND]  = { 1111, 'E', 1111, "VSWITCH %s does not exist" },
    [ZVS_CPMSG_DEVICE_IN_GROUP]    = { 1112, 'E', 1112, "Device %s is already in port group %s" },
    [ZVS_CPMSG_DEVICE_NOT_IN_GROUP] = { 1113, 'E', 1113, "Device %s is not in port group %s" },
    [ZVS_CPMSG_GROUP_FULL]         = { 1114, 'E', 1114, "Port group %s has %s devices; %s cannot join" },
    [ZVS_CPMSG_GROUP_IN_USE]       = { 1115, 'E', 1115, "Port group %s is in use by VSWITCH %s" },
    [ZVS_CPMSG_DEVICE_NOT_PORT]    = { 1116, 'E', 1116, "Device %s is not a port of any port group" },
    [ZVS_CPMSG_DEVICE_UNMAPPED]    = { 1117, 'E', 1117, "Device %s has no RDEVICE INTERFACE mapping" },
    [ZVS_CPMSG_NO_GROUPS]          = { 1118, 'I', 0, "No port groups are defined" },
    [ZVS_CPMSG_COMMAND_FAILED]     = { 1119, 'S', 1119, "Command %s failed: %s" },
    [ZVS_CPMSG_VSWITCH_EXISTS]     = { 1120, 'E', 1120, "VSWITCH %s already exists" },
    [ZVS_CPMSG_COUPLE_NOT_AUTHORIZED] = { 1121, 'E', 1121,
        "User %s is not authorized to couple to VSWITCH %s" },
    [ZVS_CPMSG_NIC_NOT_FOUND]      = { 1122, 'E', 1122, "NIC %s does not exist for user %s" },
    [ZVS_CPMSG_DEVICE_EXISTS]      = { 1123, 'E', 1123, "Device %s already exists for user %s" },
    [ZVS_CPMSG_NIC_COUPLED]        = { 1124, 'E', 1124, "NIC %s is already coupled to VSWITCH %s" },
    [ZVS_CPMSG_NIC_NOT_COUPLED]    = { 1125, 'E', 1125, "NIC %s is not coupled" },
    [ZVS_CPMSG_USER_NOT_FOUND]     = { 1126, 'E', 1126, "User %s is not in the directory" },
    [ZVS_CPMSG_NO_GRANT]           = { 1127, 'E', 1127, "User %s has no GRANT for VSWITCH %s" },
    [ZVS_CPMSG_MACID_EXHAUSTED]    = { 1128, 'E', 1128, "No MACID is free in range %s" },
    [ZVS_CPMSG_NEEDS_VLAN_AWARE]   = { 1129, 'E', 1129,
        "%s requires a VLAN AWARE VSWITCH; %s is VLAN UNAWARE" },
    [ZVS_CPMSG_ACCESS_ONE_VLAN]    = { 1130, 'E', 1130, "PORTTYPE ACCESS takes one VLAN; %s given" },
    [ZVS_CPMSG_DEVICE_IN_USE]      = { 1131, 'E', 1131, "Device %s is in use by %s" },
    [ZVS_CPMSG_NO_SWITCHOVER]      = { 1132, 'E', 1132, "VSWITCH %s cannot switch over: %s" },
    [ZVS_CPMSG_LIMIT_REACHED]      = { 1133, 'E', 1133, "No room for another %s; the limit is %s" },
    [ZVS_CPMSG_NOT_OWNER]          = { 1134, 'E', 1134,
        "User %s may not act on NIC %s of another user" },
    [ZVS_CPMSG_NOUPLINK]           = { 1135, 'E', 1135,
        "VSWITCH %s is defined NOUPLINK; %s is not allowed" },
    [ZVS_CPMSG_NO_BACKEND]         = { 1136, 'E', 1136,
        "NIC %s of user %s has no backend (NICBIND, or vswitchd -q)" },
    [ZVS_CPMSG_GROUP_EMPTY_USE]    = { 1137, 'E', 1137, "Port group %s has no devices" },
    [ZVS_CPMSG_NOTHING_TO_SHOW]    = { 1138, 'I', 0, "No %s to show" },
    [ZVS_CPMSG_NOT_LOGGED_ON]      = { 45, 'E', 45, "%s not logged on" },
    [ZVS_CPMSG_NOT_IN_DIRECTORY]   = { 53, 'E', 53, "%s not in CP directory" },
    [ZVS_CPMSG_LCS_TRUNK]          = { 1160, 'E', 1160,
        "NIC %s of user %s is bound to LCS, which carries no VLAN tags: it cannot be a TRUNK port" },
    [ZVS_CPMSG_ALREADY_LOGGED_ON]  = { 1161, 'E', 1161, "%s is already logged on" },
    [ZVS_CPMSG_NO_IPL]             = { 1162, 'E', 1162, "User %s has no IPL statement in the directory" },
    [ZVS_CPMSG_IMAGE_MISSING]      = { 1163, 'E', 1163, "Guest image %s cannot be IPLed: %s" },
    [ZVS_CPMSG_START_FAILED]       = { 1164, 'E', 1164, "Machine %s did not start: %s" },
    [ZVS_CPMSG_NOT_A_MACHINE]      = { 1165, 'E', 1165,
        "%s is not a virtual machine of this system (no IPL statement)" },
    [ZVS_CPMSG_SWITCH_STATUS]      = { 2830, 'I', 0, "VSWITCH SYSTEM %s status is %s.",
                                       "SWU", 1 },
    [ZVS_CPMSG_SWITCH_NOT_ACTIVE]  = { 2832, 'E', 2832,
        "Connection for VSWITCH SYSTEM %s is not active.\n"
        "None of the RDEVs are available working OSA-Express devices.", "SWU", 0 },
    [ZVS_CPMSG_DEVICE_NOT_READY]   = { 1170, 'E', 1170,
        "Device %s of VSWITCH SYSTEM %s is not ready: %s", NULL, 1 },
    [ZVS_CPMSG_DEVICE_READY]       = { 1171, 'I', 0,
        "Device %s of VSWITCH SYSTEM %s is ready: %s", NULL, 1 },
    [ZVS_CPMSG_MEMBER_NOT_IN_USE]  = { 1172, 'E', 1172,
        "Port group %s member %s is not in use: %s", NULL, 1 },
    [ZVS_CPMSG_MEMBER_IN_USE]      = { 1173, 'I', 0,
        "Port group %s member %s is in use: collecting and distributing" },
    [ZVS_CPMSG_MEMBER_STATE]       = { 1174, 'I', 0,
        "Port group %s member %s %s collecting, %s distributing", NULL, 1 },
    [ZVS_CPMSG_BUCKET_MOVED]       = { 1175, 'I', 0,
        "Port group %s bucket %s moved from %s to %s (%s)%s", NULL, 1 },
    [ZVS_CPMSG_NIC_CONNECTED]      = { 1176, 'I', 0,
        "NIC %s of user %s is connected to VSWITCH SYSTEM %s" },
    [ZVS_CPMSG_NIC_DISCONNECTED]   = { 1177, 'I', 0,
        "NIC %s of user %s is disconnected from VSWITCH SYSTEM %s" },
    [ZVS_CPMSG_SUPPRESSED]         = { 1178, 'W', 0,
        "%s %s message(s) not shown: more than %s in %s seconds" },
    [ZVS_CPMSG_RES_WATCHED]        = { 1, 'E', 1, "Name %s is already watched", "RES", 0, 1 },
    [ZVS_CPMSG_RES_NOT_WATCHED]    = { 2, 'E', 2, "Name %s is not watched", "RES", 0, 1 },
    [ZVS_CPMSG_RES_CHANGED]        = { 3, 'I', 0, "Name %s resolves to %s (was %s)",
                                       "RES", 1, 1 },
    [ZVS_CPMSG_RES_FAILING]        = { 4, 'W', 0, "Name %s cannot be resolved: %s; %s",
                                       "RES", 1, 1 },
    [ZVS_CPMSG_RES_RECOVERED]      = { 5, 'I', 0, "Name %s resolves again to %s", "RES", 1, 1 },
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

size_t zvs_cpmsg_id_text(enum zvs_cpmsg_id id, char *buf, size_t size)
{
    const struct zvs_cpmsg_def *def = zvs_cpmsg_def(id);
    int n = def->zvs ? snprintf(buf, size, "ZVS%s%04u%c", def->module, (unsigned)def->number,
                                def->severity)
                     : snprintf(buf, size, "HCP%s%03u%c", def->module ? def->module : "",
                                (unsigned)def->number, def->severity);
    return n > 0 ? (size_t)n : 0;
}

size_t zvs_cpmsg_format(char *buf, size_t size, enum zvs_cpmsg_id id,
                        const char *const *args, unsigned nargs)
{
    const struct zvs_cpmsg_def *def = zvs_cpmsg_def(id);
    char head[24];
    size_t len = 0;
    unsigned argi = 0;

    if (size > 0)
        buf[0] = '\0';
    int n = (int)zvs_cpmsg_id_text(id, head, sizeof head - 1);
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
