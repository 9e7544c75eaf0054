/* CP command parser and response buffer.
 *
 * Owns: the grammar of the CP commands in command.h (the table `commands` below: the
 * leading keywords with their minimum abbreviations, the privilege classes, then the
 * operand steps), zvs_cmd_parse, zvs_cmd_format (the canonical text of a parsed command)
 * and the zvs_cp_response helpers.
 *
 * Grammar (upper case = the minimum abbreviation, lower case = letters that may follow):
 *   DEFine VSWitch name [operands]                 B   the SYSTEM CONFIG statement's
 *        operands, parsed by its own table (zvs_cfg_parse_vswitch_def, sysconfig.c)
 *   SET VSWitch name GRANT userid [PORTTYPE ACCESS|TRUNK] [VLAN vidset]    B   the
 *        MODIFY VSWITCH statement's operands (zvs_cfg_parse_grant)
 *   SET VSWitch name REVOKE userid                 B
 *   SET VSWitch name [UPLINK] RDEV dev [dev [dev]] | RDEV NONE              B
 *   SET VSWitch name GROUP grp | NOGROUP           B
 *   SET VSWitch name [UPLINK] CONnect | DISCONnect B
 *   SET VSWitch name QUEUESTorage n | nM           B   1-8
 *   SET VSWitch name ISOLation ON | OFF            B
 *   SET VSWitch name MACPROTect ON | OFF | UNSPECified                      B
 *   SET VSWitch name COUNTers CLEAR [UPLINK | ALL] B   default ALL
 *   SET VSWitch name [UPLINK] SWITCHOVER [AVAILable | RDEV dev]             B
 *   DETach VSWitch name                            B
 *   SET PORT GROUP grp JOIN rdev [rdev ...]        B   1-8 devices, nnnn or nnnn.Pn
 *   SET PORT GROUP grp LEAVE rdev [rdev ...]       B
 *   SET PORT GROUP grp LACP ACTive | INACTive      B
 *   SET PORT GROUP grp INTerval n | OFF            B   1-9990
 *   SET PORT GROUP grp DELETE                      B
 *   DEFine NIC [USERID u] vdev [QDIO] [DEVices n]  G   vdev 1-4 hex digits; n 3-3072
 *   DETach NIC [USERID u] vdev                     G
 *   COUPle [USERID u] vdev [TO] SYSTEM name        G   another owner (a guest LAN) is
 *                                                      refused: HCP002E naming it
 *   UNCOUPle [USERID u] vdev                       G
 *   Query NIC [USERID u] [vdev | ALL] [DETails]    G
 *   Query VMLAN                                    G
 *   Query PORT GROUP [grp | ALL]                   B
 *   Query LACP [grp | ALL] [DETails]               B   zvswitch extension
 *   Query VSWitch [name | ALL] [DETails | ACCesslist | ACTive]              B or G
 *   SET LACP rdev DROPRX | DROPTX ON | OFF         A   zvswitch extension (fault drills)
 *   SET LACP rdev DELAYTX ms                       A   0-10000
 * USERID u also needs class B (HCP1100E "<command> USERID requires privilege class B").
 * Names are zvs_parse_name names (1-8 of A-Z 0-9 @ # $); ALL is not a name. In the
 * optional name position a token that abbreviates a keyword of the (last, optional) step
 * after it and is the last token is taken as that keyword, so `Q LACP DET` shows every
 * group and `Q VSW ACC` every switch's access list; a group called DET is
 * `Q LACP DET DET`. In the optional vdev position of QUERY NIC no such rule is needed:
 * no abbreviation of ALL or DETAILS is hex.
 * UPLINK, QDIO and TO are accepted and dropped (they change nothing), so the canonical
 * text leaves UPLINK and TO out.
 *
 * Rules: tokens are separated by blanks (space, tab, CR, LF; any number), compared without
 * case. The first problem found, left to right, is the one reported, naming the token as
 * typed (upper-cased, sanitised by cp_messages.c). Privilege is checked as soon as the
 * command is known, before its operands (USERID's class B when USERID is met). The
 * operands shared with SYSTEM CONFIG (DEFINE VSWITCH, GRANT) answer with the first
 * message of that parser (messages.c, "HCP10nnE", rc = the number), their tokens
 * upper-cased first and the line sanitised like ours. The parse fills a local,
 * zeroed struct and copies it out only on success, so *cmd is untouched by a failing
 * parse and a parsed struct may be compared with memcmp (padding included).
 * Hazards: keyword alternatives at one position must not share an accepted abbreviation,
 * nor may an optional step's keywords be readable as the value the position after it
 * takes (zvs_cmd_grammar_check proves both for the table; a unit test runs it).
 */
#include "command.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tokens.h"

/* ---- grammar table ------------------------------------------------------------------- */

struct kw {
    const char *word;                   /* upper case, full spelling */
    uint8_t     min;                    /* shortest accepted abbreviation */
};

enum val_kind {
    VAL_NONE,                           /* the keyword alone */
    VAL_RDEVS,                          /* 1..ZVS_CMD_MAX_RDEVS devices to end of line */
    VAL_UPLINK_RDEVS,                   /* 1-3 devices to end of line, or NONE */
    VAL_ACTIVE,                         /* ACTIVE | INACTIVE -> lacp_active */
    VAL_INTERVAL,                       /* 1-9990 | OFF -> interval_s */
    VAL_FAULT_ONOFF,                    /* ON | OFF -> fault_on */
    VAL_MS,                             /* 0-10000 -> delay_ms */
    VAL_GRANT,                          /* userid [PORTTYPE ..] [VLAN ..] (sysconfig.c) */
    VAL_USERID,                         /* userid -> userid */
    VAL_GROUP,                          /* grp -> group */
    VAL_QUEUESTORAGE,                   /* n | nM, 1-8 -> queuestorage_mb */
    VAL_ONOFF,                          /* ON | OFF -> onoff */
    VAL_MACPROTECT,                     /* ON | OFF | UNSPECIFIED -> macprotect */
    VAL_COUNTERS,                       /* CLEAR [UPLINK | ALL] -> counters */
    VAL_SWITCHOVER,                     /* [AVAILABLE | RDEV dev] -> nrdev, rdev[0] */
    VAL_DEVICES,                        /* 3-3072 -> devices */
};

/* Where a STEP_CHOICE puts the chosen alternative's op. */
enum op_field { OP_NONE, OP_PG, OP_FAULT, OP_VS, OP_LEVEL, OP_DETAILS };

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
};

#define MAX_PATH   3
#define MAX_STEPS  4
#define MAX_ALTS   12

struct step {
    enum step_kind kind;
    bool           optional;            /* STEP_CHOICE: may be left out */
    enum op_field  field;               /* STEP_CHOICE: where alt.op goes */
    unsigned       nalts;
    struct alt     alts[MAX_ALTS];
};

struct cmddef {
    enum zvs_cmd_verb verb;
    const char       *classes;          /* the issuer needs one of these (1 or 2) */
    const char       *title;            /* the command in messages */
    unsigned          npath;
    struct kw         path[MAX_PATH];
    unsigned          nsteps;
    struct step       steps[MAX_STEPS];
};

static const struct kw KW_ALL = { "ALL", 3 };
static const struct kw KW_ACTIVE = { "ACTIVE", 3 };
static const struct kw KW_INACTIVE = { "INACTIVE", 5 };
static const struct kw KW_ON = { "ON", 2 };
static const struct kw KW_OFF = { "OFF", 3 };
static const struct kw KW_UNSPECIFIED = { "UNSPECIFIED", 6 };
static const struct kw KW_NONE = { "NONE", 4 };
static const struct kw KW_CLEAR = { "CLEAR", 5 };
static const struct kw KW_UPLINK = { "UPLINK", 6 };
static const struct kw KW_AVAILABLE = { "AVAILABLE", 5 };
static const struct kw KW_RDEV = { "RDEV", 4 };
static const struct kw KW_USERID = { "USERID", 6 };
static const struct kw KW_SYSTEM = { "SYSTEM", 6 };

#define SET      { "SET", 3 }
#define QUERY    { "QUERY", 1 }
#define DEFINE   { "DEFINE", 3 }
#define DETACH   { "DETACH", 3 }
#define PORT     { "PORT", 4 }
#define GROUP    { "GROUP", 5 }
#define LACP     { "LACP", 4 }
#define VSWITCH  { "VSWITCH", 3 }
#define NIC      { "NIC", 3 }
#define DETAILS  { "DETAILS", 3 }

/* An optional [DETAILS] that sets cmd.details. */
#define STEP_DETAILS { .kind = STEP_CHOICE, .optional = true, .field = OP_DETAILS, \
                       .nalts = 1, .alts = { { DETAILS, 1, VAL_NONE, false } } }

static const struct cmddef commands[] = {
    { ZVS_CMD_SET_PORT_GROUP, "B", "SET PORT GROUP", 3, { SET, PORT, GROUP }, 2, {
        { .kind = STEP_NAME },
        { .kind = STEP_CHOICE, .field = OP_PG, .nalts = 5, .alts = {
            { { "JOIN", 4 },     ZVS_CMD_PG_JOIN,     VAL_RDEVS, false },
            { { "LEAVE", 5 },    ZVS_CMD_PG_LEAVE,    VAL_RDEVS, false },
            { { "LACP", 4 },     ZVS_CMD_PG_LACP,     VAL_ACTIVE, false },
            { { "INTERVAL", 3 }, ZVS_CMD_PG_INTERVAL, VAL_INTERVAL, false },
            { { "DELETE", 6 },   ZVS_CMD_PG_DELETE,   VAL_NONE, false },
        } },
    } },
    { ZVS_CMD_QUERY_PORT_GROUP, "B", "QUERY PORT GROUP", 3, { QUERY, PORT, GROUP }, 1, {
        { .kind = STEP_NAME_OPT },
    } },
    { ZVS_CMD_QUERY_LACP, "B", "QUERY LACP", 2, { QUERY, LACP }, 2, {
        { .kind = STEP_NAME_OPT },
        STEP_DETAILS,
    } },
    { ZVS_CMD_QUERY_VSWITCH, "BG", "QUERY VSWITCH", 2, { QUERY, VSWITCH }, 2, {
        { .kind = STEP_NAME_OPT },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_LEVEL, .nalts = 3, .alts = {
            { DETAILS,              ZVS_CMD_LEVEL_DETAILS,    VAL_NONE, false },
            { { "ACCESSLIST", 3 },  ZVS_CMD_LEVEL_ACCESSLIST, VAL_NONE, false },
            { { "ACTIVE", 3 },      ZVS_CMD_LEVEL_ACTIVE,     VAL_NONE, false },
        } },
    } },
    { ZVS_CMD_SET_LACP_FAULT, "A", "SET LACP", 2, { SET, LACP }, 2, {
        { .kind = STEP_RDEV },
        { .kind = STEP_CHOICE, .field = OP_FAULT, .nalts = 3, .alts = {
            { { "DROPRX", 6 },  ZVS_CMD_FAULT_DROPRX,  VAL_FAULT_ONOFF, false },
            { { "DROPTX", 6 },  ZVS_CMD_FAULT_DROPTX,  VAL_FAULT_ONOFF, false },
            { { "DELAYTX", 7 }, ZVS_CMD_FAULT_DELAYTX, VAL_MS, false },
        } },
    } },
    { ZVS_CMD_DEFINE_VSWITCH, "B", "DEFINE VSWITCH", 2, { DEFINE, VSWITCH }, 2, {
        { .kind = STEP_NAME },
        { .kind = STEP_VSWITCH_DEF },
    } },
    { ZVS_CMD_SET_VSWITCH, "B", "SET VSWITCH", 2, { SET, VSWITCH }, 2, {
        { .kind = STEP_NAME },
        { .kind = STEP_CHOICE, .field = OP_VS, .nalts = 12, .alts = {
            { { "GRANT", 5 },        ZVS_CMD_VS_GRANT,          VAL_GRANT, false },
            { { "REVOKE", 6 },       ZVS_CMD_VS_REVOKE,         VAL_USERID, false },
            { { "RDEV", 4 },         ZVS_CMD_VS_RDEV,           VAL_UPLINK_RDEVS, true },
            { { "GROUP", 5 },        ZVS_CMD_VS_GROUP,          VAL_GROUP, false },
            { { "NOGROUP", 7 },      ZVS_CMD_VS_NOGROUP,        VAL_NONE, false },
            { { "CONNECT", 3 },      ZVS_CMD_VS_CONNECT,        VAL_NONE, true },
            { { "DISCONNECT", 6 },   ZVS_CMD_VS_DISCONNECT,     VAL_NONE, true },
            { { "QUEUESTORAGE", 7 }, ZVS_CMD_VS_QUEUESTORAGE,   VAL_QUEUESTORAGE, false },
            { { "ISOLATION", 4 },    ZVS_CMD_VS_ISOLATION,      VAL_ONOFF, false },
            { { "MACPROTECT", 7 },   ZVS_CMD_VS_MACPROTECT,     VAL_MACPROTECT, false },
            { { "COUNTERS", 5 },     ZVS_CMD_VS_COUNTERS_CLEAR, VAL_COUNTERS, false },
            { { "SWITCHOVER", 10 },  ZVS_CMD_VS_SWITCHOVER,     VAL_SWITCHOVER, true },
        } },
    } },
    { ZVS_CMD_DETACH_VSWITCH, "B", "DETACH VSWITCH", 2, { DETACH, VSWITCH }, 1, {
        { .kind = STEP_NAME },
    } },
    { ZVS_CMD_DEFINE_NIC, "G", "DEFINE NIC", 2, { DEFINE, NIC }, 4, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "QDIO", 4 }, 0, VAL_NONE, false },
        } },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "DEVICES", 3 }, 0, VAL_DEVICES, false },
        } },
    } },
    { ZVS_CMD_DETACH_NIC, "G", "DETACH NIC", 2, { DETACH, NIC }, 2, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV },
    } },
    { ZVS_CMD_COUPLE, "G", "COUPLE", 1, { { "COUPLE", 4 } }, 4, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "TO", 2 }, 0, VAL_NONE, false },
        } },
        { .kind = STEP_SYSTEM },
    } },
    { ZVS_CMD_UNCOUPLE, "G", "UNCOUPLE", 1, { { "UNCOUPLE", 6 } }, 2, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV },
    } },
    { ZVS_CMD_QUERY_NIC, "G", "QUERY NIC", 2, { QUERY, NIC }, 3, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV_OPT },
        STEP_DETAILS,
    } },
    { .verb = ZVS_CMD_QUERY_VMLAN, .classes = "G", .title = "QUERY VMLAN", .npath = 2,
      .path = { QUERY, { "VMLAN", 5 } } },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

#define INTERVAL_MAX     9990u
#define DELAYTX_MAX      10000u
#define UPLINK_RDEVS_MAX 3u             /* SET VSWITCH RDEV (z/VM limit, as ZVS_CFG_MAX_RDEV) */
#define DEVICES_MIN      3u             /* DEFINE NIC DEVICES: read, write, data */
#define DEVICES_MAX      3072u
#define DEVICES_DEFAULT  3u

/* ---- responses ----------------------------------------------------------------------- */

#define RESPONSE_MAX     (1u << 20)     /* a response longer than this is truncated */
#define RESPONSE_RESERVE 64             /* always free: room for the truncation line */

static char empty_text[1];

void zvs_cp_response_init(struct zvs_cp_response *r)
{
    r->text = empty_text;
    r->len = 0;
    r->cap = 0;
    r->rc = 0;
}

void zvs_cp_response_fini(struct zvs_cp_response *r)
{
    if (r->cap > 0)
        free(r->text);
    zvs_cp_response_init(r);
}

static void truncation_line(char *buf, size_t size)
{
    zvs_cpmsg_format(buf, size, ZVS_CPMSG_TRUNCATED, NULL, 0);
}

/* True when the response already ends with the truncation line (nothing more is added). */
static bool response_truncated(const struct zvs_cp_response *r)
{
    char line[64];
    truncation_line(line, sizeof line);
    size_t n = strlen(line);
    return r->len >= n + 1 && r->text[r->len - 1] == '\n' &&
           memcmp(r->text + r->len - 1 - n, line, n) == 0 &&
           (r->len == n + 1 || r->text[r->len - n - 2] == '\n');
}

/* Ends the response with the truncation line, written into the reserve. */
static void response_truncate(struct zvs_cp_response *r)
{
    char line[64];
    truncation_line(line, sizeof line);
    size_t n = strlen(line);
    assert(r->cap == 0 || r->len + 1 + RESPONSE_RESERVE <= r->cap);
    if (r->cap == 0)
        return;                         /* no buffer at all: nothing can be said */
    if (r->len > 0 && r->text[r->len - 1] != '\n')
        r->text[r->len++] = '\n';
    memcpy(r->text + r->len, line, n);
    r->len += n;
    r->text[r->len++] = '\n';
    r->text[r->len] = '\0';
}

/* Makes room for `more` bytes plus the NUL and the reserve; false if it cannot. */
static bool response_reserve(struct zvs_cp_response *r, size_t more)
{
    size_t need = r->len + more + 1 + RESPONSE_RESERVE;
    if (r->len + more > RESPONSE_MAX)
        return false;
    if (need <= r->cap)
        return true;
    size_t cap = r->cap < 256 ? 256 : r->cap;
    while (cap < need)
        cap *= 2;
    if (cap > RESPONSE_MAX + 1 + RESPONSE_RESERVE)
        cap = RESPONSE_MAX + 1 + RESPONSE_RESERVE;     /* need never exceeds it */
    char *text = r->cap > 0 ? realloc(r->text, cap) : malloc(cap);
    if (text == NULL)
        return false;
    if (r->cap == 0)
        text[0] = '\0';
    r->text = text;
    r->cap = cap;
    return true;
}

/* Appends one line (a newline is added); RS bytes, which end a console response, become
 * '?'. */
static void response_line(struct zvs_cp_response *r, const char *line, size_t n)
{
    if (response_truncated(r))
        return;
    if (!response_reserve(r, n + 1)) {
        response_truncate(r);
        return;
    }
    for (size_t i = 0; i < n; i++)
        r->text[r->len + i] = line[i] == '\x1e' || line[i] == '\0' ? '?' : line[i];
    r->len += n;
    r->text[r->len++] = '\n';
    r->text[r->len] = '\0';
}

void zvs_cp_printf(struct zvs_cp_response *r, const char *fmt, ...)
{
    char small[256];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        response_line(r, small, (size_t)n);
        return;
    }
    char *big = (size_t)n <= RESPONSE_MAX ? malloc((size_t)n + 1) : NULL;
    if (big == NULL) {
        if (!response_truncated(r) && response_reserve(r, 0))
            response_truncate(r);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    response_line(r, big, (size_t)n);
    free(big);
}

void zvs_cp_error(struct zvs_cp_response *r, int msg, ...)
{
    enum zvs_cpmsg_id id = (enum zvs_cpmsg_id)msg;
    const char *args[ZVS_CPMSG_ARGS_MAX];
    unsigned nargs = zvs_cpmsg_nargs(id);
    char line[ZVS_CPMSG_TEXT_MAX];
    va_list ap;

    assert(nargs <= ZVS_CPMSG_ARGS_MAX);
    va_start(ap, msg);
    for (unsigned i = 0; i < nargs; i++)
        args[i] = va_arg(ap, const char *);
    va_end(ap);
    zvs_cpmsg_format(line, sizeof line, id, args, nargs);
    response_line(r, line, strlen(line));
    r->rc = zvs_cpmsg_def(id)->rc;
}

/* ---- parser -------------------------------------------------------------------------- */

struct parser {
    char                  **tok;
    unsigned                n;
    unsigned                i;          /* next token */
    uint32_t                privclass;
    const struct cmddef    *def;
    struct zvs_cmd         *cmd;        /* the local struct being filled */
    struct zvs_cp_response *r;
};

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static bool kw_match(const struct kw *k, const char *t)
{
    size_t n = strlen(t);
    return n >= k->min && n <= strlen(k->word) && strncasecmp(t, k->word, n) == 0;
}

static const char *peek(const struct parser *p)
{
    return p->i < p->n ? p->tok[p->i] : NULL;
}

/* The next token, consumed; NULL (after reporting HCP026E) when the line has ended. */
static const char *need(struct parser *p)
{
    const char *t = peek(p);
    if (t == NULL) {
        zvs_cp_error(p->r, ZVS_CPMSG_OPERAND_MISSING);
        return NULL;
    }
    p->i++;
    return t;
}

static int invalid_operand(struct parser *p, const char *t)
{
    zvs_cp_error(p->r, ZVS_CPMSG_INVALID_OPERAND, t);
    return -EINVAL;
}

static int invalid_option(struct parser *p, const char *t)
{
    zvs_cp_error(p->r, ZVS_CPMSG_INVALID_OPTION, t);
    return -EINVAL;
}

static int value_range(struct parser *p, const char *kwname, const char *t, const char *range)
{
    zvs_cp_error(p->r, ZVS_CPMSG_VALUE_RANGE, kwname, t, range);
    return -ERANGE;
}

/* A CP name that is not ALL into dst, or HCP002E. */
static int parse_name_into(struct parser *p, const char *t, char dst[ZVS_NAME_MAX + 1])
{
    if (kw_match(&KW_ALL, t) || zvs_parse_name(t, dst) < 0)
        return invalid_operand(p, t);
    return 0;
}

static int need_name(struct parser *p, char dst[ZVS_NAME_MAX + 1])
{
    const char *t = need(p);
    return t == NULL ? -EINVAL : parse_name_into(p, t, dst);
}

/* 1-4 hex digits. */
static int vdev_parse(const char *t, uint16_t *vdev)
{
    uint32_t v;
    if (zvs_parse_hex(t, 1, 4, &v) < 0)
        return -EINVAL;
    *vdev = (uint16_t)v;
    return 0;
}

/* Devices to the end of the line, at most `max`, none twice. */
static int parse_rdevs(struct parser *p, unsigned max)
{
    struct zvs_cmd *cmd = p->cmd;

    if (peek(p) == NULL) {
        zvs_cp_error(p->r, ZVS_CPMSG_OPERAND_MISSING);
        return -EINVAL;
    }
    for (const char *t; (t = peek(p)) != NULL; p->i++) {
        struct zvs_rdev rdev;
        memset(&rdev, 0, sizeof rdev);  /* padding too: callers may memcmp commands */
        if (zvs_rdev_parse(t, &rdev) < 0)
            return invalid_operand(p, t);
        if (cmd->nrdev == max) {
            char limit[8];
            snprintf(limit, sizeof limit, "%u", max);
            zvs_cp_error(p->r, ZVS_CPMSG_TOO_MANY_DEVICES, t, limit);
            return -E2BIG;
        }
        for (unsigned k = 0; k < cmd->nrdev; k++)
            if (zvs_rdev_equal(cmd->rdev[k], rdev)) {
                zvs_cp_error(p->r, ZVS_CPMSG_DEVICE_REPEATED, t);
                return -EINVAL;
            }
        cmd->rdev[cmd->nrdev++] = rdev;
    }
    return 0;
}

/* One device -> rdev[0], nrdev 1. */
static int parse_one_rdev(struct parser *p)
{
    const char *t = need(p);
    if (t == NULL)
        return -EINVAL;
    memset(&p->cmd->rdev[0], 0, sizeof p->cmd->rdev[0]);
    if (zvs_rdev_parse(t, &p->cmd->rdev[0]) < 0)
        return invalid_operand(p, t);
    p->cmd->nrdev = 1;
    return 0;
}

/* One of n keywords: its index, or -EINVAL (reported). */
static int parse_keyword(struct parser *p, const struct kw *const *kws, unsigned n)
{
    const char *t = need(p);
    if (t == NULL)
        return -EINVAL;
    for (unsigned k = 0; k < n; k++)
        if (kw_match(kws[k], t))
            return (int)k;
    return invalid_option(p, t);
}

/* ON (true) or OFF into *out. */
static int parse_onoff(struct parser *p, bool *out)
{
    static const struct kw *const onoff[] = { &KW_ON, &KW_OFF };
    int k = parse_keyword(p, onoff, 2);
    if (k < 0)
        return k;
    *out = k == 0;
    return 0;
}

/* Upper-cases tokens [from, n) in place: the shared parsers quote them in messages as
 * typed, ours quote them upper-cased, and no operand there is case-sensitive. */
static void upcase_rest(struct parser *p, unsigned from)
{
    for (unsigned k = from; k < p->n; k++)
        for (char *q = p->tok[k]; *q != '\0'; q++)
            if (*q >= 'a' && *q <= 'z')
                *q = (char)(*q - 'a' + 'A');
}

/* Answers with the first message of a shared SYSTEM CONFIG parser, as a response line
 * of printable ASCII, rc = its number. */
static int shared_error(struct parser *p, const struct zvs_msg_list *msgs)
{
    char line[ZVS_MSG_TEXT_MAX];

    if (msgs->n == 0) {                 /* the list could not keep it: out of memory */
        zvs_cp_error(p->r, ZVS_CPMSG_COMMAND_FAILED, p->def->title, "out of storage");
        return -ENOMEM;
    }
    size_t n = strnlen(msgs->msg[0].text, sizeof line - 1);
    for (size_t k = 0; k < n; k++) {
        unsigned char ch = (unsigned char)msgs->msg[0].text[k];
        line[k] = ch < 0x20 || ch > 0x7E ? '?' : (char)ch;
    }
    line[n] = '\0';
    zvs_cp_printf(p->r, "%s", line);
    p->r->rc = msgs->msg[0].number;
    return -EINVAL;
}

/* DEFINE VSWITCH name operands: the rest of the line, through sysconfig.c's table. */
static int parse_vswitch_def(struct parser *p)
{
    struct zvs_msg_list msgs = { 0 };
    unsigned from = p->i;

    upcase_rest(p, from);
    p->i = p->n;
    int err = zvs_cfg_parse_vswitch_def(p->cmd->name, (const char *const *)p->tok + from,
                                        p->n - from, &p->cmd->vsw, &msgs);
    if (err < 0)
        err = shared_error(p, &msgs);
    zvs_msg_list_free(&msgs);
    return err;
}

/* GRANT userid [PORTTYPE ..] [VLAN ..]: from the GRANT token (just consumed) to the end
 * of the line, through sysconfig.c's MODIFY VSWITCH table. */
static int parse_grant(struct parser *p)
{
    struct zvs_msg_list msgs = { 0 };
    struct zvs_cfg_grant g;
    struct zvs_cmd *cmd = p->cmd;
    unsigned from = p->i - 1;

    upcase_rest(p, from);
    p->i = p->n;
    int err = zvs_cfg_parse_grant(p->def->title, (const char *const *)p->tok + from,
                                  p->n - from, &g, &msgs);
    if (err < 0) {
        err = shared_error(p, &msgs);
    } else {
        memcpy(cmd->userid, g.userid, sizeof cmd->userid);
        cmd->porttype = g.porttype;
        cmd->has_vlan = g.has_vlan;
        /* Only the ranges in use: a merge may leave stale ones behind them. */
        memset(&cmd->vlan, 0, sizeof cmd->vlan);
        cmd->vlan.n = g.vlan.n;
        memcpy(cmd->vlan.r, g.vlan.r, g.vlan.n * sizeof g.vlan.r[0]);
    }
    zvs_msg_list_free(&msgs);
    return err;
}

static int parse_value(struct parser *p, enum val_kind val, const char *kwname)
{
    static const struct kw *const active[] = { &KW_ACTIVE, &KW_INACTIVE };
    static const struct kw *const macprot[] = { &KW_ON, &KW_OFF, &KW_UNSPECIFIED };
    static const enum zvs_macprotect macprot_val[] = {
        ZVS_MACPROTECT_ON, ZVS_MACPROTECT_OFF, ZVS_MACPROTECT_UNSPECIFIED };
    static const struct kw *const clear[] = { &KW_CLEAR };
    struct zvs_cmd *cmd = p->cmd;
    const char *t;
    uint32_t v;
    int k;

    switch (val) {
    case VAL_NONE:
        return 0;
    case VAL_RDEVS:
        return parse_rdevs(p, ZVS_CMD_MAX_RDEVS);
    case VAL_UPLINK_RDEVS:
        if ((t = peek(p)) != NULL && kw_match(&KW_NONE, t)) {
            p->i++;
            return 0;                   /* nrdev 0 */
        }
        return parse_rdevs(p, UPLINK_RDEVS_MAX);
    case VAL_ACTIVE:
        if ((k = parse_keyword(p, active, 2)) < 0)
            return k;
        cmd->lacp_active = k == 0;
        return 0;
    case VAL_FAULT_ONOFF:
        return parse_onoff(p, &cmd->fault_on);
    case VAL_ONOFF:
        return parse_onoff(p, &cmd->onoff);
    case VAL_INTERVAL:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        if (kw_match(&KW_OFF, t)) {
            cmd->interval_s = 0;
            return 0;
        }
        if (zvs_parse_dec(t, 1, INTERVAL_MAX, &cmd->interval_s) == 0)
            return 0;
        return value_range(p, kwname, t, "1-9990, OFF");
    case VAL_MS:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        if (zvs_parse_dec(t, 0, DELAYTX_MAX, &cmd->delay_ms) == 0)
            return 0;
        return value_range(p, kwname, t, "0-10000");
    case VAL_GRANT:
        return parse_grant(p);
    case VAL_USERID:
        return need_name(p, cmd->userid);
    case VAL_GROUP:
        return need_name(p, cmd->group);
    case VAL_QUEUESTORAGE:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        if (zvs_cfg_parse_queuestorage(t, &cmd->queuestorage_mb) == 0)
            return 0;
        return value_range(p, kwname, t, "1M-8M");
    case VAL_MACPROTECT:
        if ((k = parse_keyword(p, macprot, 3)) < 0)
            return k;
        cmd->macprotect = macprot_val[k];
        return 0;
    case VAL_COUNTERS:
        if ((k = parse_keyword(p, clear, 1)) < 0)
            return k;
        if ((t = peek(p)) != NULL && kw_match(&KW_UPLINK, t)) {
            p->i++;
            cmd->counters = ZVS_CMD_COUNTERS_UPLINK;
        } else if (t != NULL && kw_match(&KW_ALL, t)) {
            p->i++;
            cmd->counters = ZVS_CMD_COUNTERS_ALL;
        }
        return 0;
    case VAL_SWITCHOVER:
        if ((t = peek(p)) != NULL && kw_match(&KW_AVAILABLE, t)) {
            p->i++;
        } else if (t != NULL && kw_match(&KW_RDEV, t)) {
            p->i++;
            return parse_one_rdev(p);
        }
        return 0;                       /* nrdev 0: the next ready backup */
    case VAL_DEVICES:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        if (zvs_parse_dec(t, DEVICES_MIN, DEVICES_MAX, &v) < 0)
            return value_range(p, kwname, t, "3-3072");
        cmd->devices = (uint16_t)v;
        return 0;
    }
    assert(!"unknown value kind");
    return -EINVAL;
}

static const struct alt *find_alt(const struct step *st, const char *t, bool uplink_only)
{
    for (unsigned a = 0; a < st->nalts; a++)
        if ((!uplink_only || st->alts[a].uplink) && kw_match(&st->alts[a].kw, t))
            return &st->alts[a];
    return NULL;
}

static bool step_has_uplink(const struct step *st)
{
    for (unsigned a = 0; a < st->nalts; a++)
        if (st->alts[a].uplink)
            return true;
    return false;
}

static int parse_choice(struct parser *p, const struct step *st)
{
    struct zvs_cmd *cmd = p->cmd;
    const char *t = peek(p);
    bool uplink = false;

    if (t == NULL && st->optional)
        return 0;
    if (t != NULL && step_has_uplink(st) && kw_match(&KW_UPLINK, t)) {
        p->i++;                         /* UPLINK: says which port, changes nothing */
        uplink = true;
        t = peek(p);
    }
    if (t == NULL) {
        zvs_cp_error(p->r, ZVS_CPMSG_OPERAND_MISSING);
        return -EINVAL;
    }
    const struct alt *alt = find_alt(st, t, uplink);
    if (alt == NULL)
        return st->optional && !uplink ? 0 : invalid_option(p, t);
    p->i++;
    switch (st->field) {
    case OP_NONE:    break;
    case OP_PG:      cmd->pg_op = (enum zvs_cmd_pg_op)alt->op; break;
    case OP_FAULT:   cmd->fault = (enum zvs_cmd_fault)alt->op; break;
    case OP_VS:      cmd->vs_op = (enum zvs_cmd_vs_op)alt->op; break;
    case OP_LEVEL:   cmd->level = (enum zvs_cmd_level)alt->op; break;
    case OP_DETAILS: cmd->details = true; break;
    }
    return parse_value(p, alt->val, alt->kw.word);
}

/* True when t, the last token, is a keyword of the optional step after s (the rule for
 * the optional name position, see the top). */
static bool keyword_of_next(const struct parser *p, unsigned s, const char *t)
{
    const struct cmddef *def = p->def;
    return s + 1 < def->nsteps && def->steps[s + 1].kind == STEP_CHOICE &&
           def->steps[s + 1].optional && p->i + 1 == p->n &&
           find_alt(&def->steps[s + 1], t, false) != NULL;
}

static int parse_target(struct parser *p)
{
    const char *t = peek(p);

    if (t == NULL || !kw_match(&KW_USERID, t))
        return 0;
    if ((p->privclass & ZVS_PRIVCLASS('B')) == 0) {
        char what[40];
        snprintf(what, sizeof what, "%s USERID", p->def->title);
        zvs_cp_error(p->r, ZVS_CPMSG_NOT_AUTHORIZED, what, "B");
        return -EPERM;
    }
    p->i++;
    return need_name(p, p->cmd->target);
}

static int parse_step(struct parser *p, unsigned s)
{
    const struct step *st = &p->def->steps[s];
    struct zvs_cmd *cmd = p->cmd;
    const char *t = peek(p);

    switch (st->kind) {
    case STEP_NAME:
        return need_name(p, cmd->name);
    case STEP_NAME_OPT:
        if (t == NULL)
            return 0;
        if (kw_match(&KW_ALL, t)) {
            p->i++;
            return 0;
        }
        if (keyword_of_next(p, s, t))
            return 0;
        p->i++;
        return parse_name_into(p, t, cmd->name);
    case STEP_RDEV:
        return parse_one_rdev(p);
    case STEP_VDEV:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        return vdev_parse(t, &cmd->vdev) == 0 ? 0 : invalid_operand(p, t);
    case STEP_VDEV_OPT:
        if (t == NULL)
            return 0;
        if (kw_match(&KW_ALL, t)) {
            p->i++;
            return 0;
        }
        if (s + 1 < p->def->nsteps && p->def->steps[s + 1].kind == STEP_CHOICE &&
            find_alt(&p->def->steps[s + 1], t, false) != NULL)
            return 0;                   /* no vdev: the next step's keyword */
        p->i++;
        if (vdev_parse(t, &cmd->vdev) < 0)
            return invalid_operand(p, t);
        cmd->has_vdev = true;
        return 0;
    case STEP_TARGET_OPT:
        return parse_target(p);
    case STEP_CHOICE:
        return parse_choice(p, st);
    case STEP_SYSTEM:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        if (!kw_match(&KW_SYSTEM, t))
            return invalid_operand(p, t);   /* an owner's guest LAN: not emulated */
        return need_name(p, cmd->name);
    case STEP_VSWITCH_DEF:
        return parse_vswitch_def(p);
    }
    assert(!"unknown step kind");
    return -EINVAL;
}

/* Finds the command named by the leading tokens. Returns it, or NULL after reporting. */
static const struct cmddef *match_command(struct parser *p)
{
    bool cand[NCOMMANDS];

    for (size_t k = 0; k < NCOMMANDS; k++)
        cand[k] = true;
    for (unsigned depth = 0; depth < MAX_PATH; depth++) {
        const char *t = peek(p);
        bool any = false;
        /* A candidate whose path ends here is the command (no path is a prefix of
         * another: zvs_cmd_grammar_check). */
        for (size_t k = 0; k < NCOMMANDS; k++)
            if (cand[k] && commands[k].npath == depth)
                return &commands[k];
        if (t == NULL) {
            zvs_cp_error(p->r, ZVS_CPMSG_OPERAND_MISSING);
            return NULL;
        }
        for (size_t k = 0; k < NCOMMANDS; k++) {
            cand[k] = cand[k] && kw_match(&commands[k].path[depth], t);
            any |= cand[k];
        }
        if (!any) {
            if (depth == 0)
                zvs_cp_error(p->r, ZVS_CPMSG_UNKNOWN_COMMAND, t);
            else
                zvs_cp_error(p->r, ZVS_CPMSG_INVALID_OPTION, t);
            return NULL;
        }
        p->i++;
    }
    for (size_t k = 0; k < NCOMMANDS; k++)
        if (cand[k] && commands[k].npath == MAX_PATH)
            return &commands[k];
    assert(!"grammar path longer than MAX_PATH");
    return NULL;
}

static bool authorized(const struct cmddef *def, uint32_t privclass)
{
    for (const char *c = def->classes; *c != '\0'; c++)
        if (privclass & ZVS_PRIVCLASS(*c))
            return true;
    return false;
}

static void not_authorized(const struct cmddef *def, struct zvs_cp_response *r)
{
    char c0[2] = { def->classes[0], '\0' };
    if (def->classes[1] == '\0') {
        zvs_cp_error(r, ZVS_CPMSG_NOT_AUTHORIZED, def->title, c0);
    } else {
        char c1[2] = { def->classes[1], '\0' };
        zvs_cp_error(r, ZVS_CPMSG_NOT_AUTHORIZED_EITHER, def->title, c0, c1);
    }
}

/* Splits buf (edited in place) into tokens; returns how many. */
static unsigned tokenize(char *buf, char **tok, unsigned max)
{
    unsigned n = 0;
    char *p = buf;

    for (;;) {
        while (is_blank(*p))
            p++;
        if (*p == '\0' || n == max)
            return n;
        tok[n++] = p;
        while (*p != '\0' && !is_blank(*p))
            p++;
        if (*p != '\0')
            *p++ = '\0';
    }
}

int zvs_cmd_parse(const char *line, uint32_t privclass, struct zvs_cmd *cmd,
                  struct zvs_cp_response *r)
{
    char buf[ZVS_CMD_LINE_MAX + 1];
    char *tok[ZVS_CMD_LINE_MAX / 2 + 1];
    struct zvs_cmd out;
    struct parser p = { .tok = tok, .privclass = privclass, .cmd = &out, .r = r };
    size_t len = strnlen(line, ZVS_CMD_LINE_MAX + 1);
    int err;

    if (len > ZVS_CMD_LINE_MAX) {
        char limit[12];
        snprintf(limit, sizeof limit, "%u", (unsigned)ZVS_CMD_LINE_MAX);
        zvs_cp_error(r, ZVS_CPMSG_LINE_TOO_LONG, limit);
        return -E2BIG;
    }
    memcpy(buf, line, len + 1);
    p.n = tokenize(buf, tok, sizeof tok / sizeof tok[0]);
    memset(&out, 0, sizeof out);

    p.def = match_command(&p);
    if (p.def == NULL)
        return -EINVAL;
    if (!authorized(p.def, privclass)) {
        not_authorized(p.def, r);
        return -EPERM;
    }
    out.verb = p.def->verb;
    if (out.verb == ZVS_CMD_DEFINE_NIC)
        out.devices = DEVICES_DEFAULT;
    for (unsigned s = 0; s < p.def->nsteps; s++)
        if ((err = parse_step(&p, s)) < 0)
            return err;
    if (peek(&p) != NULL) {
        zvs_cp_error(r, ZVS_CPMSG_INVALID_OPTION, peek(&p));
        return -EINVAL;
    }
    memcpy(cmd, &out, sizeof out);
    return 0;
}

/* ---- canonical text and self-check --------------------------------------------------- */

static const struct cmddef *find_def(enum zvs_cmd_verb verb)
{
    for (size_t k = 0; k < NCOMMANDS; k++)
        if (commands[k].verb == verb)
            return &commands[k];
    return NULL;
}

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
    return catf(buf, size, len, " ISOLATION %s", onoff_word(v->isolation));
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
    case ZVS_CMD_VS_COUNTERS_CLEAR:
        return catf(buf, size, len, " CLEAR %s",
                    cmd->counters == ZVS_CMD_COUNTERS_UPLINK ? "UPLINK" : "ALL");
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
    if (cmd->verb == ZVS_CMD_QUERY_NIC && !cmd->has_vdev)
        return catf(buf, size, len, " ALL");
    return catf(buf, size, len, " %04X", (unsigned)cmd->vdev);
}

size_t zvs_cmd_format(const struct zvs_cmd *cmd, char *buf, size_t size)
{
    const struct cmddef *def = find_def(cmd->verb);
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
            len = catf(buf, size, len, " %s", cmd->lacp_active ? "ACTIVE" : "INACTIVE");
        else if (cmd->pg_op == ZVS_CMD_PG_INTERVAL && cmd->interval_s == 0)
            len = catf(buf, size, len, " OFF");
        else if (cmd->pg_op == ZVS_CMD_PG_INTERVAL)
            len = catf(buf, size, len, " %u", (unsigned)cmd->interval_s);
        break;
    case ZVS_CMD_QUERY_PORT_GROUP:
    case ZVS_CMD_QUERY_LACP:
        len = catf(buf, size, len, " %s", cmd->name[0] != '\0' ? cmd->name : "ALL");
        if (cmd->details && cmd->verb == ZVS_CMD_QUERY_LACP)
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
        len = cat_nic(buf, size, len, cmd);
        if (cmd->details)
            len = catf(buf, size, len, " DETAILS");
        break;
    case ZVS_CMD_QUERY_VMLAN:
        break;
    }
    return len;
}

/* Two keywords clash when some token is accepted by both. */
static bool kw_clash(const struct kw *a, const struct kw *b)
{
    size_t la = strlen(a->word), lb = strlen(b->word);
    size_t lo = a->min > b->min ? a->min : b->min;
    size_t hi = la < lb ? la : lb;
    return lo <= hi && strncmp(a->word, b->word, lo) == 0;
}

static bool kw_sane(const struct kw *k)
{
    size_t n = strlen(k->word);
    if (k->min < 1 || k->min > n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((k->word[i] >= 'A' && k->word[i] <= 'Z') || (k->word[i] >= '0' && k->word[i] <= '9')))
            return false;
    return true;
}

/* Some accepted abbreviation of k is 1-4 hex digits (a vdev or device number). */
static bool kw_hexlike(const struct kw *k)
{
    if (k->min > 4)
        return false;
    for (size_t i = 0; i < k->min; i++)
        if (!((k->word[i] >= 'A' && k->word[i] <= 'F') || (k->word[i] >= '0' && k->word[i] <= '9')))
            return false;
    return true;
}

/* Some accepted abbreviation of k is a CP name (keywords are A-Z 0-9: any of 1-8). */
static bool kw_namelike(const struct kw *k)
{
    return k->min <= ZVS_NAME_MAX;
}

/* What a token at a step's position may be: keywords, and the class of other tokens. */
enum tok_class { CLS_NONE, CLS_HEX, CLS_NAME, CLS_ANY };

struct first {
    unsigned        nkw;
    const struct kw *kw[MAX_ALTS + 1];
    enum tok_class  cls;
};

static void step_first(const struct step *st, struct first *f)
{
    f->nkw = 0;
    f->cls = CLS_NONE;
    switch (st->kind) {
    case STEP_NAME:
        f->cls = CLS_NAME;
        break;
    case STEP_NAME_OPT:
        f->kw[f->nkw++] = &KW_ALL;
        f->cls = CLS_NAME;
        break;
    case STEP_RDEV:
    case STEP_VDEV:
        f->cls = CLS_HEX;
        break;
    case STEP_VDEV_OPT:
        f->kw[f->nkw++] = &KW_ALL;
        f->cls = CLS_HEX;
        break;
    case STEP_TARGET_OPT:
        f->kw[f->nkw++] = &KW_USERID;
        break;
    case STEP_CHOICE:
        for (unsigned a = 0; a < st->nalts; a++)
            f->kw[f->nkw++] = &st->alts[a].kw;
        if (step_has_uplink(st))
            f->kw[f->nkw++] = &KW_UPLINK;
        break;
    case STEP_SYSTEM:
        /* Any other token is an owner's guest LAN, refused whatever it says, so it
         * cannot be misread: no value class. */
        f->kw[f->nkw++] = &KW_SYSTEM;
        break;
    case STEP_VSWITCH_DEF:
        f->cls = CLS_ANY;
        break;
    }
}

static bool step_optional(const struct step *st)
{
    return st->kind == STEP_NAME_OPT || st->kind == STEP_VDEV_OPT ||
           st->kind == STEP_TARGET_OPT || (st->kind == STEP_CHOICE && st->optional) ||
           st->kind == STEP_VSWITCH_DEF;
}

static bool kw_in_class(const struct kw *k, enum tok_class cls)
{
    return cls == CLS_ANY || (cls == CLS_HEX && kw_hexlike(k)) ||
           (cls == CLS_NAME && kw_namelike(k));
}

/* Tokens of two first-sets that both could take. */
static bool first_clash(const struct first *a, const struct first *b)
{
    if (a->cls != CLS_NONE && b->cls != CLS_NONE)
        return true;                    /* two value classes: each holds 1-4 hex digits */
    for (unsigned i = 0; i < a->nkw; i++) {
        if (kw_in_class(a->kw[i], b->cls))
            return true;
        for (unsigned j = 0; j < b->nkw; j++)
            if (kw_clash(a->kw[i], b->kw[j]))
                return true;
    }
    for (unsigned j = 0; j < b->nkw; j++)
        if (kw_in_class(b->kw[j], a->cls))
            return true;
    return false;
}

/* The optional name position may be followed by one last, optional choice of bare
 * keywords (the last-token rule decides); nothing else may share a name's tokens. */
static bool name_rule_applies(const struct cmddef *d, unsigned s)
{
    const struct step *next = &d->steps[s + 1];
    if (d->steps[s].kind != STEP_NAME_OPT || s + 2 != d->nsteps ||
        next->kind != STEP_CHOICE || !next->optional)
        return false;
    for (unsigned a = 0; a < next->nalts; a++)
        if (next->alts[a].val != VAL_NONE || next->alts[a].uplink)
            return false;
    return true;
}

/* Values that run to the end of the line or end in an optional keyword: only in the last
 * step, or they could swallow or be confused with the next step's tokens. */
static bool val_open_ended(enum val_kind v)
{
    return v == VAL_RDEVS || v == VAL_UPLINK_RDEVS || v == VAL_GRANT || v == VAL_COUNTERS ||
           v == VAL_SWITCHOVER;
}

static int check_steps(const struct cmddef *d)
{
    for (unsigned s = 0; s < d->nsteps; s++) {
        const struct step *st = &d->steps[s];
        struct first fs, fn;
        if (st->nalts > MAX_ALTS || (st->kind == STEP_CHOICE) != (st->nalts > 0))
            return -EINVAL;
        if (st->kind == STEP_VSWITCH_DEF && s + 1 != d->nsteps)
            return -EINVAL;
        for (unsigned a = 0; a < st->nalts; a++) {
            if (!kw_sane(&st->alts[a].kw))
                return -EINVAL;
            if (val_open_ended(st->alts[a].val) && s + 1 != d->nsteps)
                return -EINVAL;
        }
        step_first(st, &fs);
        /* Within the step: no two keywords (UPLINK included) clash. */
        for (unsigned i = 0; i < fs.nkw; i++)
            for (unsigned j = i + 1; j < fs.nkw; j++)
                if (kw_clash(fs.kw[i], fs.kw[j]))
                    return -EINVAL;
        /* A keyword must not read as the step's own hex value (ALL, though a possible
         * name, is refused as one). */
        for (unsigned i = 0; i < fs.nkw; i++)
            if (fs.cls == CLS_HEX && kw_hexlike(fs.kw[i]))
                return -EINVAL;
        /* An optional step shares its position with every step up to the next required
         * one. */
        for (unsigned t = s + 1; step_optional(&d->steps[t - 1]) && t < d->nsteps; t++) {
            step_first(&d->steps[t], &fn);
            if (first_clash(&fs, &fn) && !(t == s + 1 && name_rule_applies(d, s)))
                return -EINVAL;
        }
    }
    return 0;
}

static bool classes_sane(const char *classes)
{
    size_t n = strlen(classes);
    if (n < 1 || n > 2 || (n == 2 && classes[0] == classes[1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (ZVS_PRIVCLASS(classes[i]) == 0)
            return false;
    return true;
}

int zvs_cmd_grammar_check(void)
{
    /* The keyword sets of the values (parse_value), each one position. */
    const struct kw *const sets[][3] = {
        { &KW_ACTIVE, &KW_INACTIVE, NULL },
        { &KW_ON, &KW_OFF, NULL },
        { &KW_ON, &KW_OFF, &KW_UNSPECIFIED },
        { &KW_UPLINK, &KW_ALL, NULL },
        { &KW_AVAILABLE, &KW_RDEV, NULL },
        { &KW_CLEAR, NULL, NULL },
        { &KW_USERID, NULL, NULL },
        { &KW_SYSTEM, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        for (size_t a = 0; a < 3 && sets[i][a] != NULL; a++) {
            if (!kw_sane(sets[i][a]))
                return -EINVAL;
            for (size_t b = a + 1; b < 3 && sets[i][b] != NULL; b++)
                if (kw_clash(sets[i][a], sets[i][b]))
                    return -EINVAL;
        }
    /* RDEV NONE: NONE must not read as a device. */
    if (!kw_sane(&KW_NONE) || kw_hexlike(&KW_NONE) || !kw_sane(&KW_ALL))
        return -EINVAL;
    for (size_t k = 0; k < NCOMMANDS; k++) {
        const struct cmddef *d = &commands[k];
        if (d->npath < 1 || d->npath > MAX_PATH || d->nsteps > MAX_STEPS)
            return -EINVAL;
        if (!classes_sane(d->classes) || find_def(d->verb) != d)
            return -EINVAL;
        for (unsigned p = 0; p < d->npath; p++)
            if (!kw_sane(&d->path[p]))
                return -EINVAL;
        if (check_steps(d) < 0)
            return -EINVAL;
        /* No two commands may share a path prefix up to the shorter one's end, and at
         * each depth where they diverge their keywords must not clash. */
        for (size_t j = k + 1; j < NCOMMANDS; j++) {
            const struct cmddef *e = &commands[j];
            unsigned p = 0;
            while (p < d->npath && p < e->npath && kw_clash(&d->path[p], &e->path[p]) &&
                   strcmp(d->path[p].word, e->path[p].word) == 0 &&
                   d->path[p].min == e->path[p].min)
                p++;
            if (p == d->npath || p == e->npath)
                return -EINVAL;         /* one path is a prefix of the other */
            if (kw_clash(&d->path[p], &e->path[p]))
                return -EINVAL;         /* diverge on keywords one token can match */
        }
    }
    return 0;
}
