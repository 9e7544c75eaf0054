/* The CP command message catalogue: every error and notice a CP command (or the operator
 * console) answers with, as "ID text", each with the CP return code the command ends with.
 *
 * Ids (cp-commands/README.md, "Message ids", has the rule and every id with its source):
 *   - IBM's messages keep IBM's id: "HCP" + the CP module + the number (3 digits) + the
 *     severity. Where a real system's id is known the module is fixed in the table
 *     (HCPCMD001E, HCPCFC026E, HCPNDQ040E, HCPSWU2830I); otherwise it is the module of
 *     the command that answers (zvs_cmd_module, command_grammar.c: HCPSWQ003E from QUERY
 *     VSWITCH, HCPCQV003E from a QUERY that names no command), as CP's ids are.
 *     Sources: HCPCMD001E, HCPCQV003E, HCPCFC026E, HCPCQU045E as real systems printed
 *     them (quoted in Feilong's zvmsdk/utils.py and z/VM course material); HCPNDQ040E
 *     (networking-zvm's tests, a real QUERY VIRTUAL NIC answer); HCPSWU2830I and
 *     HCPSWU2832E as a real z/VM 6.4 wrote them on the operator console (captured in
 *     SDL-Hercules-390/hyperion issue 229: "HCPSWU2830I VSWITCH SYSTEM VMINTRA1 status is
 *     disconnected following error.", "HCPSWU2832E Connection for VSWITCH SYSTEM VMINTRA1
 *     is not active." and its second line; the status word "ready" is our reading,
 *     UNCONFIRMED). CP's convention holds: the return code is the message number.
 *   - Messages that exist only in zvswitch are OURS and never carry an HCP id (an IBM
 *     number names another message: HCP1010W is a disabled wait): "ZVS" + a component of
 *     ours + 4 digits + the severity, e.g. ZVSLAG1172E. Components: CMD (the command
 *     parser and responses), CON (the operator console), VSW (switches and uplinks), NIC
 *     (guest NICs), LAG (port groups), GST (guests and machines), CFG (the configuration
 *     files, messages.c), RES (the name resolver, names/); IVL and VXL are reserved for
 *     multi-system and overlays. The numbers are unique across components and never
 *     reused, so that rc = the number tells every message apart: CFG 1000-1099 (messages.c),
 *     the components of 1100-1199 as numbered so far, then a block of 1200-1299 for each
 *     new component: RES 1200-1219, VXL 1220-1259, IVL 1260-1299.
 *
 * Texts hold only "%s" placeholders and every argument is a string (as in messages.c):
 * the formatter substitutes, it is not printf. Each argument is shown upper-cased, with
 * control characters and bytes above 0x7E replaced by '?', and cut to ZVS_CPMSG_ARG_MAX
 * characters (then "..."), so no response line carries what a hostile command line typed.
 */
#ifndef ZVS_CP_MESSAGES_H
#define ZVS_CP_MESSAGES_H

#include <stddef.h>
#include <stdint.h>

enum zvs_cpmsg_id {
    /* Parser (zvs_cmd_parse). */
    ZVS_CPMSG_UNKNOWN_COMMAND,          /* 001E verb */
    ZVS_CPMSG_INVALID_OPERAND,          /* 002E operand */
    ZVS_CPMSG_INVALID_OPTION,           /* 003E option */
    ZVS_CPMSG_OPERAND_MISSING,          /* 026E (no argument) */
    ZVS_CPMSG_DEVICE_NOT_EXIST,         /* NDQ040E vdev (QUERY VIRTUAL NIC) */
    ZVS_CPMSG_NOT_AUTHORIZED,           /* 1100E command, class */
    ZVS_CPMSG_LINE_TOO_LONG,            /* 1102E limit */
    ZVS_CPMSG_TOO_MANY_DEVICES,         /* 1103E device, limit */
    ZVS_CPMSG_DEVICE_REPEATED,          /* 1104E device */
    ZVS_CPMSG_VALUE_RANGE,              /* 1105E operand, value, range */
    ZVS_CPMSG_NOT_AUTHORIZED_EITHER,    /* 1140E command, class, other class */
    ZVS_CPMSG_NOT_SUPPORTED,            /* 1141E operand, reason */
    /* Operator console (console.c). */
    ZVS_CPMSG_CONSOLE_DENIED,           /* 1101E uid */
    ZVS_CPMSG_CONSOLE_BUSY,             /* 1106E limit */
    ZVS_CPMSG_LINE_CHAR_INVALID,        /* 1107E X'nn' */
    /* Responses (zvs_cp_printf). */
    ZVS_CPMSG_TRUNCATED,                /* 1109W (no argument) */
    /* For the executor (daemon/daemon_cmd.c): conditions of the running system. */
    ZVS_CPMSG_GROUP_NOT_FOUND,          /* 1110E group */
    ZVS_CPMSG_VSWITCH_NOT_FOUND,        /* 1111E switch */
    ZVS_CPMSG_DEVICE_IN_GROUP,          /* 1112E device, group */
    ZVS_CPMSG_DEVICE_NOT_IN_GROUP,      /* 1113E device, group */
    ZVS_CPMSG_GROUP_FULL,               /* 1114E group, limit, device */
    ZVS_CPMSG_GROUP_IN_USE,             /* 1115E group, switch */
    ZVS_CPMSG_DEVICE_NOT_PORT,          /* 1116E device */
    ZVS_CPMSG_DEVICE_UNMAPPED,          /* 1117E device */
    ZVS_CPMSG_NO_GROUPS,                /* 1118I (no argument): nothing to show */
    ZVS_CPMSG_COMMAND_FAILED,           /* 1119S command, reason */
    /* The running configuration (cp-commands/cfg_apply.c). */
    ZVS_CPMSG_VSWITCH_EXISTS,           /* 1120E switch */
    ZVS_CPMSG_COUPLE_NOT_AUTHORIZED,    /* 1121E user, switch */
    ZVS_CPMSG_NIC_NOT_FOUND,            /* 1122E vdev, user */
    ZVS_CPMSG_DEVICE_EXISTS,            /* 1123E vdev, user */
    ZVS_CPMSG_NIC_COUPLED,              /* 1124E vdev, switch */
    ZVS_CPMSG_NIC_NOT_COUPLED,          /* 1125E vdev */
    ZVS_CPMSG_USER_NOT_FOUND,           /* 1126E user */
    ZVS_CPMSG_NO_GRANT,                 /* 1127E user, switch */
    ZVS_CPMSG_MACID_EXHAUSTED,          /* 1128E range */
    ZVS_CPMSG_NEEDS_VLAN_AWARE,         /* 1129E operand, switch */
    ZVS_CPMSG_ACCESS_ONE_VLAN,          /* 1130E vidset */
    ZVS_CPMSG_DEVICE_IN_USE,            /* 1131E device, switch */
    ZVS_CPMSG_NO_SWITCHOVER,            /* 1132E switch, reason */
    ZVS_CPMSG_LIMIT_REACHED,            /* 1133E what, limit */
    ZVS_CPMSG_NOT_OWNER,                /* 1134E user, vdev */
    ZVS_CPMSG_NOUPLINK,                 /* 1135E switch, operand */
    ZVS_CPMSG_NO_BACKEND,               /* 1136E vdev, user */
    ZVS_CPMSG_GROUP_EMPTY_USE,          /* 1137E group */
    ZVS_CPMSG_NOTHING_TO_SHOW,          /* 1138I what */
    /* The executor's rollback of a command the data plane could not follow. */
    ZVS_CPMSG_ROLLBACK_INEXACT,         /* 1150W command */
    /* Hercules machines (their commands are in command_grammar.c, executed by
     * daemon/daemon_guests.c). 045 and 053 are the classic CP texts (general z/VM
     * knowledge, as 001-026); 1160-1169 are ours. */
    ZVS_CPMSG_NOT_LOGGED_ON,            /* 045E user */
    ZVS_CPMSG_NOT_IN_DIRECTORY,         /* 053E user */
    ZVS_CPMSG_LCS_TRUNK,                /* 1160E vdev, user */
    ZVS_CPMSG_ALREADY_LOGGED_ON,        /* 1161E user */
    ZVS_CPMSG_NO_IPL,                   /* 1162E user */
    ZVS_CPMSG_IMAGE_MISSING,            /* 1163E image, reason */
    ZVS_CPMSG_START_FAILED,             /* 1164E user, reason */
    ZVS_CPMSG_NOT_A_MACHINE,            /* 1165E user */
    /* Unsolicited: what happens, told to the operator console's subscribers and the log
     * (daemon/daemon_msg.c; lag/lag.c for its group's members and bucket moves). */
    ZVS_CPMSG_SWITCH_STATUS,            /* SWU2830I switch, status */
    ZVS_CPMSG_SWITCH_NOT_ACTIVE,        /* SWU2832E switch (two lines) */
    ZVS_CPMSG_DEVICE_NOT_READY,         /* 1170E device, switch, reason */
    ZVS_CPMSG_DEVICE_READY,             /* 1171I device, switch, reason */
    ZVS_CPMSG_MEMBER_NOT_IN_USE,        /* 1172E group, device, reason */
    ZVS_CPMSG_MEMBER_IN_USE,            /* 1173I group, device */
    ZVS_CPMSG_MEMBER_STATE,             /* 1174I group, device, "is"|"not", "is"|"not" */
    ZVS_CPMSG_BUCKET_MOVED,             /* 1175I group, bucket, from, to, cause, more */
    ZVS_CPMSG_NIC_CONNECTED,            /* 1176I vdev, user, switch */
    ZVS_CPMSG_NIC_DISCONNECTED,         /* 1177I vdev, user, switch */
    ZVS_CPMSG_SUPPRESSED,               /* 1178W count, message id, limit, seconds */
    /* The name layer (names/; component RES, numbered from 0001): the running
     * configuration's RESOLVER commands, then unsolicited messages of the daemon's
     * watched names (daemon/daemon_names.c). */
    ZVS_CPMSG_RES_WATCHED,              /* ZVSRES1200E name */
    ZVS_CPMSG_RES_NOT_WATCHED,          /* ZVSRES1201E name */
    ZVS_CPMSG_RES_CHANGED,              /* ZVSRES1202I name, addresses, previous */
    ZVS_CPMSG_RES_FAILING,              /* ZVSRES1203W name, error, state */
    ZVS_CPMSG_RES_RECOVERED,            /* ZVSRES1204I name, addresses */
    /* Overlays (overlay/): SET VSWITCH ... VXLAN (ours). */
    ZVS_CPMSG_VXL_NO_VXLAN,             /* ZVSVXL1220E switch */
    ZVS_CPMSG_VXL_REMOTE_EXISTS,        /* ZVSVXL1221E switch, remote */
    ZVS_CPMSG_VXL_REMOTE_FULL,          /* ZVSVXL1222E switch, limit, remote */
    ZVS_CPMSG_VXL_REMOTE_FAMILY,        /* ZVSVXL1223E remote, local */
    ZVS_CPMSG_VXL_NO_REMOTE,            /* ZVSVXL1224E switch, remote */
    ZVS_CPMSG_VXL_NOT_AWARE,            /* ZVSVXL1225E switch */
    ZVS_CPMSG_VXL_NATIVE,               /* ZVSVXL1226E vlan, switch */
    ZVS_CPMSG_VXL_VNI_USED,             /* ZVSVXL1227E vni, vlan, switch */
    ZVS_CPMSG_VXL_NO_VLAN,              /* ZVSVXL1228E switch, vlan */
    ZVS_CPMSG_VXL_NO_NEIGHBOR,          /* ZVSVXL1229E switch, address */
    ZVS_CPMSG_VXL_NEIGHBOR_FAMILY,      /* ZVSVXL1230E address, local */
    ZVS_CPMSG_VXL_NEIGHBOR_FULL,        /* ZVSVXL1231E switch, limit, address */
    ZVS_CPMSG_VXL_NEIGHBOR_UNICAST,     /* ZVSVXL1232E address */
    /* The IVL domain (ivl/): SET PORT GROUP ... SHARED; then unsolicited messages of the
     * domain the daemon runs (daemon/daemon_ivl.c). */
    ZVS_CPMSG_IVL_NO_IVL_SWITCH,        /* ZVSIVL1260E group */
    ZVS_CPMSG_IVL_NOT_GLOBAL,           /* ZVSIVL1261E group, switch */
    ZVS_CPMSG_IVL_NOT_IVL_SWITCH,       /* ZVSIVL1262E switch */
    ZVS_CPMSG_IVL_STATUS,               /* ZVSIVL1263I switch, status */
    ZVS_CPMSG_IVL_ALONE,                /* ZVSIVL1264W switch, reason */
    ZVS_CPMSG_IVL_DIFFERS,              /* ZVSIVL1265E group, system, who refuses */
    ZVS_CPMSG_IVL_HEARTBEAT,            /* ZVSIVL1266W seconds, token ms */
    ZVS_CPMSG_IVL_COROSYNC_CONF,        /* ZVSIVL1267W path, differences */
    /* Overlays, unsolicited (daemon/daemon_vxlan_mtu.c): a guest MTU a VXLAN segment
     * cannot carry, told rather than only counted. Numbered from 1240. */
    ZVS_CPMSG_VXL_NIC_MTU,              /* ZVSVXL1240W vdev, user, mtu, switch, segment */
    ZVS_CPMSG_VXL_FRAME_TOO_BIG,        /* ZVSVXL1241W switch, length, vdev, user, mtu,
                                           segment */
    ZVS_CPMSG_COUNT
};

#define ZVS_CPMSG_ARGS_MAX  6           /* most "%s" one text has (ZVSLAG1175I) */
#define ZVS_CPMSG_ARG_MAX   64          /* characters of one argument shown */
#define ZVS_CPMSG_TEXT_MAX  512         /* one formatted line, NUL included */

struct zvs_cpmsg_def {
    uint16_t    number;                 /* the digits after the prefix: 3 after HCP,
                                           4 after ZVS (ZVSRES1200E) */
    char        severity;               /* I, W, E, S */
    int         rc;                     /* CP return code the command ends with */
    const char *text;                   /* "%s" placeholders only; "\n" starts a second
                                           line with the same id (as CP writes one) */
    const char *prefix;                 /* the id's letters before the number: IBM's
                                           "HCP" + CP module ("HCPSWU" gives HCPSWU2830I)
                                           or ours, "ZVS" + component ("ZVSLAG1172E");
                                           NULL: "HCP" + the module of the command that
                                           answers (HCPSWQ003E from QUERY VSWITCH) */
    int         asis;                   /* arguments keep their case: Linux interface
                                           names, a cause in words (never typed input) */
};

/* The catalogue entry of `id` (never NULL for a valid id). */
const struct zvs_cpmsg_def *zvs_cpmsg_def(enum zvs_cpmsg_id id);

/* Number of "%s" placeholders in the text of `id`. */
unsigned zvs_cpmsg_nargs(enum zvs_cpmsg_id id);

/* The module an IBM message without a fixed module names when no command is known. */
#define ZVS_CPMSG_MODULE_DEFAULT "CMD"

/* The message's id, e.g. "HCPSWQ003E", "ZVSLAG1172E" or "ZVSRES1200E", into buf
 * (snprintf's contract: the number has 3 digits after HCP, 4 after ZVS);
 * `module` (3 letters, NULL: ZVS_CPMSG_MODULE_DEFAULT) is the answering command's CP
 * module, used only by a message whose catalogue entry has no prefix. */
int zvs_cpmsg_id(char *buf, size_t size, enum zvs_cpmsg_id id, const char *module);

/* "ID text" (no newline) with args substituted and sanitised as described above, the id
 * as zvs_cpmsg_id gives it; a missing argument shows as "?". A text with a second line
 * gives "ID line1\nID line2". Returns the length it needed (like snprintf). */
size_t zvs_cpmsg_format_in(char *buf, size_t size, enum zvs_cpmsg_id id, const char *module,
                           const char *const *args, unsigned nargs);
/* zvs_cpmsg_format_in without a command (module NULL). */
size_t zvs_cpmsg_format(char *buf, size_t size, enum zvs_cpmsg_id id,
                        const char *const *args, unsigned nargs);

#endif
