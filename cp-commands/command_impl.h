/* The CP command grammar's private layout, shared by the files of the command parser:
 * command_grammar.c (the table and its self-check), command.c (zvs_cmd_parse) and
 * command_format.c (zvs_cmd_format). Nothing outside cp-commands/ includes this. */
#ifndef ZVS_COMMAND_IMPL_H
#define ZVS_COMMAND_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp-commands/command.h"

struct kw {
    const char *word;                   /* upper case, full spelling */
    uint8_t     min;                    /* shortest accepted abbreviation */
};

enum val_kind {
    VAL_NONE,                           /* the keyword alone */
    VAL_RDEVS,                          /* 1..ZVS_CMD_MAX_RDEVS devices to end of line */
    VAL_UPLINK_RDEVS,                   /* 1-3 devices to end of line, or NONE */
    VAL_ACTIVE,                         /* ACTIVE | INACTIVE [EXCLUSIVE] -> lacp_active */
    VAL_INTERVAL,                       /* 1-9990 | OFF -> interval_s */
    VAL_FAULT_ONOFF,                    /* ON | OFF -> fault_on */
    VAL_MS,                             /* 0-10000 -> delay_ms */
    VAL_GRANT,                          /* userid [PORTTYPE ..] [VLAN ..] (sysconfig.c) */
    VAL_USERID,                         /* userid -> userid */
    VAL_GROUP,                          /* grp -> group */
    VAL_QUEUESTORAGE,                   /* n | nM, 1-8 -> queuestorage_mb */
    VAL_ONOFF,                          /* ON | OFF -> onoff */
    VAL_MACPROTECT,                     /* ON | OFF | UNSPECIFIED -> macprotect */
    VAL_COUNTERS,                       /* CLEAR [UPLINK|BRIDGEPORT|ALL] [DATA|DISCARDED|
                                           ERRORS] -> counters, counters_kind */
    VAL_SWITCHOVER,                     /* [AVAILABLE | RDEV dev] -> nrdev, rdev[0] */
    VAL_HEARTBEAT,                      /* HEARTbeat TIMEout s -> heartbeat_s */
    VAL_DEVICES,                        /* 3-3072 -> devices */
    VAL_POLICY,                         /* LOAD [TOTAL | OUTBOUND] | LBT [n] -> policy, load,
                                           lbt_percent */
    VAL_WITHIN,                         /* 1-32767 -> within_s */
    VAL_LINES,                          /* 1-500 -> lines */
    VAL_NICTYPE,                        /* DEFINE NIC TYPE QDIO (anything else refused) */
    VAL_HOSTNAME,                       /* a host name or address -> hostname */
    VAL_VXLAN,                          /* REMOTE ADD | DELETE host | VNI n | VLAN v VNI n
                                           | VLAN v DELETE | NEIGHBOR a MAC m | NEIGHBOR a
                                           DELETE -> vx_op, hostname, vni, vx_vid, vx_addr,
                                           vx_mac */
};

/* Where a STEP_CHOICE puts the chosen alternative's op. */
enum op_field { OP_NONE, OP_PG, OP_FAULT, OP_VS, OP_LEVEL, OP_DETAILS, OP_RES };

struct alt {
    struct kw     kw;
    int           op;                   /* the enum of the step's field */
    enum val_kind val;
    bool          uplink;               /* may follow the optional UPLINK keyword */
};

enum step_kind {
    STEP_NAME,                          /* required name -> cmd.name */
    STEP_NAME_OPT,                      /* [name | ALL] -> cmd.name ("" = all) */
    STEP_RDEV,                          /* one required device -> rdev[0], nrdev 1 */
    STEP_VDEV,                          /* required vdev -> vdev */
    STEP_VDEV_OPT,                      /* [vdev | ALL] -> has_vdev, vdev */
    STEP_TARGET_OPT,                    /* [USERID u] -> target (needs class B) */
    STEP_CHOICE,                        /* one keyword of alts, then its value */
    STEP_SYSTEM,                        /* SYSTEM name -> cmd.name */
    STEP_VSWITCH_DEF,                   /* DEFINE VSWITCH operands to end of line -> vsw */
    STEP_USERID,                        /* required userid (ALL is one) -> userid */
    STEP_USERID_ALL,                    /* [USER] userid | ALL -> userid ("" = ALL) */
    STEP_VALUE_OPT,                     /* [value of kind .val] (named in messages by the
                                           command's last keyword) */
    STEP_TEXT,                          /* the rest of the line as typed -> text */
};

#define MAX_PATH   3
#define MAX_STEPS  4
#define MAX_ALTS   14

struct step {
    enum step_kind kind;
    bool           optional;            /* STEP_CHOICE: may be left out */
    bool           bad_operand;         /* STEP_CHOICE: a token that is no alternative is
                                           an invalid operand (HCPxxx002E), not option */
    enum op_field  field;               /* STEP_CHOICE: where alt.op goes */
    enum val_kind  val;                 /* STEP_VALUE_OPT: the value */
    unsigned       nalts;
    struct alt     alts[MAX_ALTS];
};

struct cmddef {
    enum zvs_cmd_verb verb;
    const char       *classes;          /* the issuer needs one of these (1 to 3) */
    const char       *title;            /* the command in messages */
    unsigned          npath;
    struct kw         path[MAX_PATH];
    unsigned          nsteps;
    struct step       steps[MAX_STEPS];
};

/* The grammar table (command_grammar.c): one entry per verb, NCOMMANDS of them (the
 * table's definition asserts the count). */
#define NCOMMANDS 27
extern const struct cmddef zvs_cmd_table[];

/* Keywords that are values or markers of a step rather than a table alternative; the
 * parser matches them and the grammar check proves them unambiguous. */
extern const struct kw zvs_kw_all;
extern const struct kw zvs_kw_active;
extern const struct kw zvs_kw_inactive;
extern const struct kw zvs_kw_on;
extern const struct kw zvs_kw_off;
extern const struct kw zvs_kw_unspecified;
extern const struct kw zvs_kw_none;
extern const struct kw zvs_kw_clear;
extern const struct kw zvs_kw_bridgeport;
extern const struct kw zvs_kw_data;
extern const struct kw zvs_kw_discarded;
extern const struct kw zvs_kw_errors;
extern const struct kw zvs_kw_exclusive;
extern const struct kw zvs_kw_shared;
extern const struct kw zvs_kw_heartbeat;
extern const struct kw zvs_kw_timeout;
extern const struct kw zvs_kw_uplink;
extern const struct kw zvs_kw_available;
extern const struct kw zvs_kw_rdev;
extern const struct kw zvs_kw_userid;
extern const struct kw zvs_kw_system;
extern const struct kw zvs_kw_load;
extern const struct kw zvs_kw_lbt;
extern const struct kw zvs_kw_total;
extern const struct kw zvs_kw_outbound;
extern const struct kw zvs_kw_user;
extern const struct kw zvs_kw_qdio;
extern const struct kw zvs_kw_remote, zvs_kw_add, zvs_kw_delete, zvs_kw_vni, zvs_kw_vlan;
extern const struct kw zvs_kw_neighbor, zvs_kw_mac;

/* Value limits of the operands (the parser enforces them, the canonical text relies on
 * them). */
#define INTERVAL_MAX     9990u
#define DELAYTX_MAX      10000u
#define UPLINK_RDEVS_MAX 3u             /* SET VSWITCH RDEV (z/VM limit, as ZVS_CFG_MAX_RDEV) */
#define DEVICES_MIN      3u             /* DEFINE NIC DEVICES: read, write, data */
#define DEVICES_MAX      3072u
#define DEVICES_DEFAULT  3u
#define LBT_PERCENT_DEFAULT 75u         /* POLICY LBT without n (as SYSTEM CONFIG) */
#define WITHIN_MAX       32767u         /* SIGNAL SHUTDOWN WITHIN (IBM's range) */

/* The table entry of a verb, or NULL. */
const struct cmddef *zvs_cmd_find_def(enum zvs_cmd_verb verb);

/* The CP module of a verb's messages (command_grammar.c), and of a QUERY whose operand
 * names no command (HCPCQV003E Invalid option - FOO, as a real CP answers). */
#define ZVS_CMD_MODULE_QUERY "CQV"
const char *zvs_cmd_module(enum zvs_cmd_verb verb);

/* True when some alternative of the step may follow the optional UPLINK keyword. */
bool zvs_cmd_step_has_uplink(const struct step *st);

#endif
