/* CP-style message catalogue and message lists.
 *
 * Every message an operator reads from the configuration parsers (and from the DEFINE
 * VSWITCH and GRANT operands of CP commands, which share their tables) has an id shaped
 * like CP's: "ZVSCFG" + a 4-digit number + a severity letter, e.g. ZVSCFG1003E. The
 * conditions and texts are OURS (IBM's CPSYNTAX messages for them are not known), so they
 * carry zvswitch's prefix and never an HCP id: an IBM number would name another message
 * (ZVSCFG1010W is a disabled wait). "ZVS" + a 3-letter component is the scheme of every
 * message that exists only in zvswitch (cp-commands/README.md, "Message ids"); CFG is the
 * configuration files'. The catalogue in messages.c is the one place that defines them.
 *
 * Message texts use only "%s" placeholders and every argument is a string: the catalogue is
 * not a printf format (the formatter in messages.c substitutes), so a wrong argument can
 * garble a message but never read a wrong type. Each argument is cut to
 * ZVS_MSG_ARG_MAX characters (then "...") so hostile input cannot make lines huge.
 */
#ifndef ZVS_MESSAGES_H
#define ZVS_MESSAGES_H

#include <stddef.h>
#include <stdint.h>

enum zvs_msg_id {
    /* Files and statement structure. */
    ZVS_MSG_FILE_UNREADABLE,            /* file, reason */
    ZVS_MSG_STMT_UNKNOWN,               /* statement */
    ZVS_MSG_OPERAND_MISSING,            /* operand */
    ZVS_MSG_VALUE_INVALID,              /* operand, value, rule */
    ZVS_MSG_OPERAND_UNKNOWN,            /* operand, statement */
    ZVS_MSG_OPERAND_DUPLICATE,          /* operand */
    ZVS_MSG_OPERAND_CONFLICT,           /* operand, other operand */
    ZVS_MSG_VALUE_MISSING,              /* operand */
    ZVS_MSG_VALUES_TOO_MANY,            /* operand, limit, first excess value */
    ZVS_MSG_CONTINUED_AT_EOF,           /* statement */
    ZVS_MSG_COMMENT_UNTERMINATED,       /* "/ *" */
    ZVS_MSG_COMMENT_STRAY_END,          /* "* /" */
    ZVS_MSG_CHAR_INVALID,               /* X'nn' */
    ZVS_MSG_STMT_TOO_LONG,              /* statement, limit */
    ZVS_MSG_ALREADY_DEFINED,            /* kind, name, line */
    ZVS_MSG_TOO_MANY,                   /* kind, limit */
    ZVS_MSG_VSWITCH_UNDEFINED,          /* switch */
    ZVS_MSG_LAYER3_UNSUPPORTED,         /* operand */
    ZVS_MSG_NIC_TYPE_UNSUPPORTED,       /* type */
    ZVS_MSG_GUEST_LAN_UNSUPPORTED,      /* owner, lan */
    ZVS_MSG_NOT_IN_USER,                /* statement */
    ZVS_MSG_NIC_NEEDS,                  /* vdev, operand */
    ZVS_MSG_NICBIND_NO_NIC,             /* vdev, user */
    ZVS_MSG_MACPREFIX_NOT_LOCAL,        /* prefix */
    ZVS_MSG_MACIDRANGE_OVERLAP,         /* system range, user range */
    ZVS_MSG_VALUE_EXCEEDS,              /* operand, value, other operand, other value */
    ZVS_MSG_NIC_OVERLAP,                /* vdev, range, other vdev, other range */
    ZVS_MSG_VLAN_UNAWARE,               /* operand, switch */
    ZVS_MSG_ACCESS_ONE_VLAN,            /* vidset */
    ZVS_MSG_GRANT_DUPLICATE,            /* user, switch, line */
    ZVS_MSG_NIC_ONCE,                   /* vdev, operand, line */
    ZVS_MSG_PORT_NOT_GROUP,             /* the token after SET PORT */
    ZVS_MSG_GROUP_FULL,                 /* group, limit, rdev */
    ZVS_MSG_GROUP_JOINED,               /* rdev, group, line */
    ZVS_MSG_COMMAND_ONLY,               /* operand */
    /* Cross-checks between SYSTEM CONFIG and USER DIRECT (zvs_cfg_validate). */
    ZVS_MSG_NIC_VSWITCH_UNDEFINED,      /* vdev, user, switch */
    ZVS_MSG_RDEV_UNMAPPED,              /* rdev, switch */
    ZVS_MSG_MAC_DUPLICATE,              /* mac, user, vdev, other user, other vdev */
    ZVS_MSG_MACID_OUTSIDE_USER,         /* macid, user, vdev, range */
    ZVS_MSG_MACID_EXHAUSTED,            /* range, user, vdev */
    ZVS_MSG_RDEV_SHARED,                /* rdev, switch, other switch */
    ZVS_MSG_IFNAME_SHARED,              /* ifname, user, other user */
    ZVS_MSG_NIC_NOT_AUTHORIZED,         /* vdev, user, switch (warning) */
    ZVS_MSG_GROUP_UNDEFINED,            /* switch, group */
    ZVS_MSG_GROUP_TWO_SWITCHES,         /* group, switch, other switch */
    ZVS_MSG_GROUP_DEV_UNMAPPED,         /* rdev, group */
    ZVS_MSG_GROUP_DEV_IS_RDEV,          /* rdev, group, switch */
    ZVS_MSG_GROUP_DEV_TWO_GROUPS,       /* rdev, group, other group */
    ZVS_MSG_GROUP_UNUSED,               /* group (warning) */
    ZVS_MSG_GROUP_EMPTY,                /* group, switch (warning) */
    /* LINUXUSER (USER DIRECT) and its resolution when the console starts. */
    ZVS_MSG_LINUXUSER_MAPPED,           /* linux user, user, other user, line */
    ZVS_MSG_LINUXUSER_TOO_MANY,         /* user, limit, first excess linux user */
    ZVS_MSG_LINUXUSER_UNKNOWN,          /* linux user, user */
    ZVS_MSG_LINUXUSER_SAME_UID,         /* linux user, user, uid, other user, other */
    ZVS_MSG_LINUXUSER_LOOKUP,           /* linux user, user, reason */
    /* Hercules machines (IPL, GUESTIP, NICBIND LCS; zvswitch extensions). */
    ZVS_MSG_LCS_TRUNK,                  /* vdev, user, where the TRUNK comes from */
    ZVS_MSG_LCS_ONE,                    /* user, vdev, other vdev */
    ZVS_MSG_LCS_NEEDS,                  /* user, vdev, statement */
    ZVS_MSG_LCS_TAP_MAC,                /* mac, user, vdev, other user, other vdev */
    ZVS_MSG_STMT_REPEATED,              /* statement, user, line */
    /* The IVL domain (DEFINE VSWITCH ... TYPE QDIO GLOBAL | TYPE IVL). */
    ZVS_MSG_GLOBAL_NO_IVL,              /* switch */
    ZVS_MSG_IVL_TWICE,                  /* switch, other switch */
    ZVS_MSG_IVL_MEMBER_NO_IVL,          /* sysname */
    ZVS_MSG_SHARED_NO_IVL,              /* group */
    ZVS_MSG_SHARED_NOT_GLOBAL,          /* group, switch */
    /* Informational. */
    ZVS_MSG_CHECK_DONE,                 /* error count */
    ZVS_MSG_COUNT
};

#define ZVS_MSG_PREFIX     "ZVSCFG"     /* every id of this catalogue starts so */
#define ZVS_MSG_ARGS_MAX   5            /* most "%s" one catalogue text has */
#define ZVS_MSG_ARG_MAX    64           /* characters of one argument shown */
#define ZVS_MSG_TEXT_MAX   512          /* one formatted line, NUL included */
#define ZVS_MSG_LIST_MAX   1000         /* messages kept; later ones only counted */

struct zvs_msg_def {
    uint16_t    number;                 /* the 4 digits after ZVSCFG */
    char        severity;               /* I, W, E, S (severe) */
    const char *text;                   /* "%s" placeholders only */
};

struct zvs_msg {
    uint16_t number;                    /* catalogue number */
    char     severity;                  /* catalogue severity letter */
    uint32_t line;                      /* 1-based line, 0: whole file / no line */
    char     text[ZVS_MSG_TEXT_MAX];    /* "file:line: ZVSCFGnnnnS text" */
};

struct zvs_msg_list {
    struct zvs_msg *msg;                /* allocated, n used of cap */
    unsigned        n;                  /* messages kept */
    unsigned        cap;                /* allocated slots */
    unsigned        errors;             /* messages of severity E or S, kept or not */
    unsigned        dropped;            /* messages not kept (list full or no memory) */
};

/* The catalogue entry of `id` (never NULL for a valid id). */
const struct zvs_msg_def *zvs_msg_def(enum zvs_msg_id id);

/* Number of "%s" placeholders in the text of `id`. */
unsigned zvs_msg_nargs(enum zvs_msg_id id);

/* "ZVSCFGnnnnS text" with args substituted; returns the length it needed (like snprintf). */
size_t zvs_msg_format(char *buf, size_t size, enum zvs_msg_id id,
                      const char *const *args, unsigned nargs);

/* Append "file:line: ZVSCFGnnnnS text" (no "file:" part when file is NULL, no "line:" part
 * when line is 0). The variable arguments are const char * and end with NULL; their count
 * must equal zvs_msg_nargs(id). Use ZVS_MSG(). */
void zvs_msg_add(struct zvs_msg_list *list, const char *file, uint32_t line,
                 enum zvs_msg_id id, ...);
#define ZVS_MSG(list, file, line, id, ...) \
    zvs_msg_add((list), (file), (line), (id), __VA_ARGS__, (const char *)NULL)

void zvs_msg_list_free(struct zvs_msg_list *list);

/* Where one parse pass reports: a list plus the file name that prefixes every line. */
struct zvs_msg_sink {
    struct zvs_msg_list *list;          /* messages go here */
    const char          *file;          /* "file" in "file:line:" */
};
#define ZVS_REPORT(sink, line, id, ...) \
    ZVS_MSG((sink)->list, (sink)->file, (line), (id), __VA_ARGS__)

#endif
