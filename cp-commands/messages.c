/* The message catalogue and the message list.
 *
 * Owns: the one table of message ids (number, severity, text) and the formatter that turns
 * an id plus string arguments into "ZVSCFGnnnnS text". The ids are zvswitch's own, shaped
 * like CP's but never HCP (see messages.h); a new message takes an unused number of
 * 1000-1099 under ZVSCFG (numbers are never reused: a script may match an old id), a line
 * in cp-commands/README.md's message table and a test that compares its exact text.
 *
 * Rules: texts hold only "%s" placeholders (the formatter is not printf, so catalogue and
 * callers cannot disagree on types); an argument longer than ZVS_MSG_ARG_MAX is cut and
 * marked "..."; the list keeps at most ZVS_MSG_LIST_MAX messages and counts the rest, so a
 * hostile file cannot make the list grow without bound.
 */
#include "cp-commands/messages.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct zvs_msg_def catalogue[ZVS_MSG_COUNT] = {
    [ZVS_MSG_FILE_UNREADABLE]      = { 1000, 'E', "File %s cannot be read: %s" },
    [ZVS_MSG_STMT_UNKNOWN]         = { 1001, 'E', "Statement %s is not recognized" },
    [ZVS_MSG_OPERAND_MISSING]      = { 1002, 'E', "Operand %s is missing" },
    [ZVS_MSG_VALUE_INVALID]        = { 1003, 'E', "Operand %s value %s is not valid (%s)" },
    [ZVS_MSG_OPERAND_UNKNOWN]      = { 1004, 'E', "Operand %s is not recognized by %s" },
    [ZVS_MSG_OPERAND_DUPLICATE]    = { 1005, 'E', "Operand %s is specified more than once" },
    [ZVS_MSG_OPERAND_CONFLICT]     = { 1006, 'E', "Operand %s conflicts with %s" },
    [ZVS_MSG_VALUE_MISSING]        = { 1007, 'E', "Operand %s requires a value" },
    [ZVS_MSG_VALUES_TOO_MANY]      = { 1008, 'E',
        "Operand %s accepts at most %s values; %s is one too many" },
    [ZVS_MSG_CONTINUED_AT_EOF]     = { 1009, 'E', "Statement %s is continued at end of file" },
    [ZVS_MSG_COMMENT_UNTERMINATED] = { 1010, 'E', "Comment %s is not terminated at end of file" },
    [ZVS_MSG_COMMENT_STRAY_END]    = { 1011, 'E', "Comment end %s has no comment start" },
    [ZVS_MSG_CHAR_INVALID]         = { 1012, 'E', "Character %s is not valid" },
    [ZVS_MSG_STMT_TOO_LONG]        = { 1013, 'E', "Statement %s has more than %s operands" },
    [ZVS_MSG_ALREADY_DEFINED]      = { 1014, 'E', "%s %s is already defined on line %s" },
    [ZVS_MSG_TOO_MANY]             = { 1015, 'E', "Too many %s definitions (limit %s)" },
    [ZVS_MSG_VSWITCH_UNDEFINED]    = { 1016, 'E', "VSWITCH %s is not defined" },
    [ZVS_MSG_LAYER3_UNSUPPORTED]   = { 1017, 'E',
        "Operand %s is not supported: zvswitch switches are ETHERNET (layer 2) only" },
    [ZVS_MSG_NIC_TYPE_UNSUPPORTED] = { 1018, 'E',
        "NICDEF TYPE %s is not supported: zvswitch emulates QDIO adapters only" },
    [ZVS_MSG_GUEST_LAN_UNSUPPORTED] = { 1019, 'E',
        "Operand LAN %s %s is not supported: use LAN SYSTEM switchname" },
    [ZVS_MSG_NOT_IN_USER]          = { 1020, 'E', "Statement %s is not within a USER entry" },
    [ZVS_MSG_NIC_NEEDS]            = { 1021, 'E', "NICDEF %s requires operand %s" },
    [ZVS_MSG_NICBIND_NO_NIC]       = { 1022, 'E', "NICBIND %s has no preceding NICDEF in USER %s" },
    [ZVS_MSG_MACPREFIX_NOT_LOCAL]  = { 1023, 'E',
        "MACPREFIX %s is not a locally administered unicast prefix"
        " (first byte: X'02' set, X'01' clear)" },
    [ZVS_MSG_MACIDRANGE_OVERLAP]   = { 1024, 'E', "MACIDRANGE SYSTEM %s overlaps USER %s" },
    [ZVS_MSG_VALUE_EXCEEDS]        = { 1025, 'E', "Operand %s value %s exceeds %s %s" },
    [ZVS_MSG_NIC_OVERLAP]          = { 1026, 'E',
        "NICDEF %s (devices %s) overlaps NICDEF %s (devices %s)" },
    [ZVS_MSG_VLAN_UNAWARE]         = { 1027, 'E',
        "Operand %s is not allowed: VSWITCH %s is VLAN UNAWARE" },
    [ZVS_MSG_ACCESS_ONE_VLAN]      = { 1028, 'E',
        "Operand VLAN %s names more than one VLAN ID; PORTTYPE ACCESS allows one" },
    [ZVS_MSG_GRANT_DUPLICATE]      = { 1029, 'E',
        "USER %s is already granted on VSWITCH %s on line %s" },
    [ZVS_MSG_NIC_ONCE]             = { 1030, 'E',
        "NICDEF %s operand %s was already given on line %s" },
    [ZVS_MSG_PORT_NOT_GROUP]       = { 1031, 'E',
        "Operand %s is not valid after SET PORT: the statement is SET PORT GROUP groupname" },
    [ZVS_MSG_GROUP_FULL]           = { 1032, 'E',
        "PORT GROUP %s already has %s devices (the limit); %s cannot join" },
    [ZVS_MSG_GROUP_JOINED]         = { 1033, 'E',
        "Device %s already joined PORT GROUP %s on line %s" },
    /* 1034 (SHARED refused in SYSTEM CONFIG) is retired: SHARED is accepted there now */
    [ZVS_MSG_COMMAND_ONLY]         = { 1035, 'E',
        "Operand %s is not valid in SYSTEM CONFIG: it is a CP command operand" },
    [ZVS_MSG_NIC_VSWITCH_UNDEFINED] = { 1050, 'E',
        "NICDEF %s of USER %s names VSWITCH %s, which is not defined" },
    [ZVS_MSG_RDEV_UNMAPPED]        = { 1051, 'E',
        "RDEV %s of VSWITCH %s has no RDEVICE INTERFACE statement" },
    [ZVS_MSG_MAC_DUPLICATE]        = { 1052, 'E',
        "MAC %s of USER %s NICDEF %s duplicates USER %s NICDEF %s" },
    [ZVS_MSG_MACID_OUTSIDE_USER]   = { 1053, 'E',
        "MACID %s of USER %s NICDEF %s is outside MACIDRANGE USER %s" },
    [ZVS_MSG_MACID_EXHAUSTED]      = { 1054, 'E',
        "MACIDRANGE SYSTEM %s is exhausted at USER %s NICDEF %s" },
    [ZVS_MSG_RDEV_SHARED]          = { 1055, 'E', "RDEV %s is used by VSWITCH %s and VSWITCH %s" },
    [ZVS_MSG_IFNAME_SHARED]        = { 1056, 'E', "Interface %s of %s is already used by %s" },
    [ZVS_MSG_NIC_NOT_AUTHORIZED]   = { 1057, 'W',
        "NICDEF %s of USER %s is not authorized for VSWITCH %s"
        " (no GRANT, no NICDEF PORTTYPE or VLAN)" },
    [ZVS_MSG_GROUP_UNDEFINED]      = { 1058, 'E',
        "VSWITCH %s names PORT GROUP %s, which is not defined by SET PORT GROUP" },
    [ZVS_MSG_GROUP_TWO_SWITCHES]   = { 1059, 'E',
        "PORT GROUP %s is used by VSWITCH %s and VSWITCH %s (a group is EXCLUSIVE)" },
    [ZVS_MSG_GROUP_DEV_UNMAPPED]   = { 1060, 'E',
        "Device %s of PORT GROUP %s has no RDEVICE INTERFACE statement" },
    [ZVS_MSG_GROUP_DEV_IS_RDEV]    = { 1061, 'E',
        "Device %s of PORT GROUP %s is also an RDEV of VSWITCH %s" },
    [ZVS_MSG_GROUP_DEV_TWO_GROUPS] = { 1062, 'E',
        "Device %s is in PORT GROUP %s and PORT GROUP %s" },
    [ZVS_MSG_GROUP_UNUSED]         = { 1063, 'W', "PORT GROUP %s is not used by any VSWITCH" },
    [ZVS_MSG_GROUP_EMPTY]          = { 1064, 'W',
        "PORT GROUP %s of VSWITCH %s has no devices (no JOIN)" },
    [ZVS_MSG_LINUXUSER_MAPPED]     = { 1065, 'E',
        "LINUXUSER %s of USER %s is already mapped to USER %s on line %s" },
    [ZVS_MSG_LINUXUSER_TOO_MANY]   = { 1066, 'E',
        "USER %s maps more than %s Linux users; %s is one too many" },
    [ZVS_MSG_LINUXUSER_UNKNOWN]    = { 1067, 'E',
        "LINUXUSER %s of USER %s is not a Linux user on this system" },
    [ZVS_MSG_LINUXUSER_SAME_UID]   = { 1068, 'E',
        "LINUXUSER %s of USER %s is uid %s, already mapped to USER %s by LINUXUSER %s" },
    [ZVS_MSG_LINUXUSER_LOOKUP]     = { 1069, 'E',
        "LINUXUSER %s of USER %s cannot be looked up: %s" },
    [ZVS_MSG_LCS_TRUNK]            = { 1070, 'E',
        "NICDEF %s of USER %s is bound to LCS, which carries no VLAN tags: it cannot be a "
        "TRUNK port (%s)" },
    [ZVS_MSG_LCS_ONE]              = { 1071, 'E',
        "USER %s binds NIC %s to LCS; NIC %s is bound to LCS already (one per machine)" },
    [ZVS_MSG_LCS_NEEDS]            = { 1072, 'E', "USER %s NICBIND %s LCS needs a %s statement" },
    [ZVS_MSG_LCS_TAP_MAC]          = { 1073, 'E',
        "MAC %s of the LCS tap of USER %s NICDEF %s is the MAC of USER %s NICDEF %s" },
    [ZVS_MSG_STMT_REPEATED]        = { 1074, 'E',
        "%s is given twice in USER %s; the first is on line %s" },
    [ZVS_MSG_GLOBAL_NO_IVL]        = { 1075, 'E',
        "VSWITCH %s is GLOBAL: it needs a TYPE IVL switch on this system" },
    [ZVS_MSG_IVL_TWICE]            = { 1076, 'E',
        "VSWITCH %s is TYPE IVL, as VSWITCH %s is: a system has one IVL switch" },
    [ZVS_MSG_IVL_MEMBER_NO_IVL]    = { 1077, 'E',
        "IVL MEMBER %s: the IVL domain needs a TYPE IVL switch on this system" },
    [ZVS_MSG_SHARED_NO_IVL]        = { 1078, 'E',
        "PORT GROUP %s is SHARED: it needs a TYPE IVL switch on this system" },
    [ZVS_MSG_SHARED_NOT_GLOBAL]    = { 1079, 'E',
        "PORT GROUP %s is SHARED: VSWITCH %s, which uses it, is not GLOBAL" },
    [ZVS_MSG_CHECK_DONE]           = { 1099, 'I', "Configuration check complete: %s error(s)" },
};

const struct zvs_msg_def *zvs_msg_def(enum zvs_msg_id id)
{
    assert((unsigned)id < ZVS_MSG_COUNT);
    return &catalogue[id];
}

unsigned zvs_msg_nargs(enum zvs_msg_id id)
{
    unsigned n = 0;
    for (const char *p = zvs_msg_def(id)->text; (p = strstr(p, "%s")) != NULL; p += 2)
        n++;
    return n;
}

/* Appends s (at most max chars of it) at buf[len] if room; returns the new logical length. */
static size_t put(char *buf, size_t size, size_t len, const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    if (len < size) {
        size_t room = size - 1 - len;
        memcpy(buf + len, s, n < room ? n : room);
        buf[len + (n < room ? n : room)] = '\0';
    }
    return len + n;
}

size_t zvs_msg_format(char *buf, size_t size, enum zvs_msg_id id,
                      const char *const *args, unsigned nargs)
{
    const struct zvs_msg_def *def = zvs_msg_def(id);
    char head[16];
    size_t len = 0;
    unsigned argi = 0;

    if (size > 0)
        buf[0] = '\0';
    snprintf(head, sizeof head, ZVS_MSG_PREFIX "%04u%c ", (unsigned)def->number,
             def->severity);
    len = put(buf, size, len, head, sizeof head);
    for (const char *p = def->text; *p != '\0'; ) {
        const char *ph = strstr(p, "%s");
        size_t lit = ph != NULL ? (size_t)(ph - p) : strlen(p);
        len = put(buf, size, len, p, lit);
        if (ph == NULL)
            break;
        const char *arg = argi < nargs && args[argi] != NULL ? args[argi] : "?";
        argi++;
        len = put(buf, size, len, arg, ZVS_MSG_ARG_MAX);
        if (strnlen(arg, ZVS_MSG_ARG_MAX + 1) > ZVS_MSG_ARG_MAX)
            len = put(buf, size, len, "...", 3);
        p = ph + 2;
    }
    return len;
}

static int list_grow(struct zvs_msg_list *list)
{
    unsigned cap = list->cap == 0 ? 16 : list->cap * 2;
    if (cap > ZVS_MSG_LIST_MAX)
        cap = ZVS_MSG_LIST_MAX;
    struct zvs_msg *m = realloc(list->msg, (size_t)cap * sizeof *m);
    if (m == NULL)
        return -1;
    list->msg = m;
    list->cap = cap;
    return 0;
}

void zvs_msg_add(struct zvs_msg_list *list, const char *file, uint32_t line,
                 enum zvs_msg_id id, ...)
{
    const struct zvs_msg_def *def = zvs_msg_def(id);
    const char *args[ZVS_MSG_ARGS_MAX];
    unsigned nargs = 0;
    va_list ap;

    va_start(ap, id);
    for (const char *a; (a = va_arg(ap, const char *)) != NULL; ) {
        assert(nargs < ZVS_MSG_ARGS_MAX);
        if (nargs < ZVS_MSG_ARGS_MAX)
            args[nargs++] = a;
    }
    va_end(ap);
    assert(nargs == zvs_msg_nargs(id));

    if (def->severity == 'E' || def->severity == 'S')
        list->errors++;
    if (list->n == list->cap && (list->cap == ZVS_MSG_LIST_MAX || list_grow(list) < 0)) {
        list->dropped++;
        return;
    }
    struct zvs_msg *m = &list->msg[list->n++];
    m->number = def->number;
    m->severity = def->severity;
    m->line = line;
    size_t len = 0;
    if (file != NULL) {
        char where[24];
        len = put(m->text, sizeof m->text, len, file, 200);
        if (line > 0)
            snprintf(where, sizeof where, ":%u: ", (unsigned)line);
        else
            snprintf(where, sizeof where, ": ");
        len = put(m->text, sizeof m->text, len, where, sizeof where);
    }
    if (len < sizeof m->text)
        zvs_msg_format(m->text + len, sizeof m->text - len, id, args, nargs);
}

void zvs_msg_list_free(struct zvs_msg_list *list)
{
    free(list->msg);
    *list = (struct zvs_msg_list){ 0 };
}
