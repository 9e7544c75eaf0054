/* CP command parser and response buffer.
 *
 * Owns: the grammar of the CP commands in command.h (the table `commands` below: the
 * leading keywords with their minimum abbreviations, the privilege class, then the operand
 * steps), zvs_cmd_parse, zvs_cmd_format (the canonical text of a parsed command) and the
 * zvs_cp_response helpers.
 *
 * Grammar (upper case = the minimum abbreviation, lower case = letters that may follow):
 *   SET PORT GROUP grp JOIN rdev [rdev ...]      B   1-8 devices, nnnn or nnnn.Pn
 *   SET PORT GROUP grp LEAVE rdev [rdev ...]     B
 *   SET PORT GROUP grp LACP ACTive | INACTive    B
 *   SET PORT GROUP grp INTerval n | OFF          B   1-9990
 *   Query PORT GROUP [grp | ALL]                 B
 *   Query LACP [grp | ALL] [DETails]             B   zvswitch extension
 *   Query VSWitch [name | ALL] [DETails]         B
 *   SET LACP rdev DROPRX | DROPTX ON | OFF       A   zvswitch extension (fault drills)
 *   SET LACP rdev DELAYTX ms                     A   0-10000
 * Names are zvs_parse_name names (1-8 of A-Z 0-9 @ # $); ALL is not a name. In the
 * optional name position a token that abbreviates DETAILS and is the last token is taken
 * as DETAILS, so `Q LACP DET` shows every group; a group called DET is `Q LACP DET DET`.
 *
 * Rules: tokens are separated by blanks (space, tab, CR, LF; any number), compared without
 * case. The first problem found, left to right, is the one reported, naming the token as
 * typed (upper-cased, sanitised by cp_messages.c). Privilege is checked as soon as the
 * command is known, before its operands. The parse fills a local struct and copies it out
 * only on success, so *cmd is untouched by a failing parse.
 * Hazards: keyword alternatives at one position must not share an accepted abbreviation
 * (zvs_cmd_grammar_check proves it for the table; a unit test runs it).
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
    VAL_RDEVS,                          /* 1..ZVS_CMD_MAX_RDEVS devices to end of line */
    VAL_ACTIVE,                         /* ACTIVE | INACTIVE -> lacp_active */
    VAL_INTERVAL,                       /* 1-9990 | OFF -> interval_s */
    VAL_ONOFF,                          /* ON | OFF -> fault_on */
    VAL_MS,                             /* 0-10000 -> delay_ms */
};

struct alt {
    struct kw     kw;
    int           op;                   /* enum zvs_cmd_pg_op or enum zvs_cmd_fault */
    enum val_kind val;
};

enum step_kind {
    STEP_NAME,                          /* required name -> cmd.name */
    STEP_NAME_OPT,                      /* [name | ALL] -> cmd.name ("" = all) */
    STEP_RDEV,                          /* one required device -> rdev[0], nrdev 1 */
    STEP_CHOICE,                        /* one keyword of alts, then its value */
    STEP_DETAILS_OPT,                   /* [DETAILS] -> details */
};

enum op_field { OP_PG, OP_FAULT };

#define MAX_PATH   3
#define MAX_STEPS  3
#define MAX_ALTS   4

struct step {
    enum step_kind kind;
    enum op_field  field;               /* STEP_CHOICE: where alt.op goes */
    unsigned       nalts;
    struct alt     alts[MAX_ALTS];
};

struct cmddef {
    enum zvs_cmd_verb verb;
    char              privclass;        /* class letter the issuer needs */
    const char       *title;            /* the command in messages */
    unsigned          npath;
    struct kw         path[MAX_PATH];
    unsigned          nsteps;
    struct step       steps[MAX_STEPS];
};

static const struct kw KW_ALL = { "ALL", 3 };
static const struct kw KW_DETAILS = { "DETAILS", 3 };
static const struct kw KW_ACTIVE = { "ACTIVE", 3 };
static const struct kw KW_INACTIVE = { "INACTIVE", 5 };
static const struct kw KW_ON = { "ON", 2 };
static const struct kw KW_OFF = { "OFF", 3 };

#define SET     { "SET", 3 }
#define QUERY   { "QUERY", 1 }
#define PORT    { "PORT", 4 }
#define GROUP   { "GROUP", 5 }
#define LACP    { "LACP", 4 }
#define VSWITCH { "VSWITCH", 3 }

static const struct cmddef commands[] = {
    { ZVS_CMD_SET_PORT_GROUP, 'B', "SET PORT GROUP", 3, { SET, PORT, GROUP }, 2, {
        { .kind = STEP_NAME },
        { .kind = STEP_CHOICE, .field = OP_PG, .nalts = 4, .alts = {
            { { "JOIN", 4 },     ZVS_CMD_PG_JOIN,     VAL_RDEVS },
            { { "LEAVE", 5 },    ZVS_CMD_PG_LEAVE,    VAL_RDEVS },
            { { "LACP", 4 },     ZVS_CMD_PG_LACP,     VAL_ACTIVE },
            { { "INTERVAL", 3 }, ZVS_CMD_PG_INTERVAL, VAL_INTERVAL },
        } },
    } },
    { ZVS_CMD_QUERY_PORT_GROUP, 'B', "QUERY PORT GROUP", 3, { QUERY, PORT, GROUP }, 1, {
        { .kind = STEP_NAME_OPT },
    } },
    { ZVS_CMD_QUERY_LACP, 'B', "QUERY LACP", 2, { QUERY, LACP }, 2, {
        { .kind = STEP_NAME_OPT },
        { .kind = STEP_DETAILS_OPT },
    } },
    { ZVS_CMD_QUERY_VSWITCH, 'B', "QUERY VSWITCH", 2, { QUERY, VSWITCH }, 2, {
        { .kind = STEP_NAME_OPT },
        { .kind = STEP_DETAILS_OPT },
    } },
    { ZVS_CMD_SET_LACP_FAULT, 'A', "SET LACP", 2, { SET, LACP }, 2, {
        { .kind = STEP_RDEV },
        { .kind = STEP_CHOICE, .field = OP_FAULT, .nalts = 3, .alts = {
            { { "DROPRX", 6 },  ZVS_CMD_FAULT_DROPRX,  VAL_ONOFF },
            { { "DROPTX", 6 },  ZVS_CMD_FAULT_DROPTX,  VAL_ONOFF },
            { { "DELAYTX", 7 }, ZVS_CMD_FAULT_DELAYTX, VAL_MS },
        } },
    } },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

#define INTERVAL_MAX 9990u
#define DELAYTX_MAX  10000u

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

struct cursor {
    char   **tok;
    unsigned n;
    unsigned i;                         /* next token */
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

static const char *peek(const struct cursor *c)
{
    return c->i < c->n ? c->tok[c->i] : NULL;
}

/* Parses a decimal in [min, max] or returns -EINVAL. */
static int value_dec(const char *t, uint32_t min, uint32_t max, uint32_t *out)
{
    return zvs_parse_dec(t, min, max, out);
}

static int parse_rdevs(struct cursor *c, struct zvs_cmd *cmd, struct zvs_cp_response *r)
{
    if (peek(c) == NULL) {
        zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
        return -EINVAL;
    }
    for (const char *t; (t = peek(c)) != NULL; c->i++) {
        struct zvs_rdev rdev;
        memset(&rdev, 0, sizeof rdev);  /* padding too: callers may memcmp commands */
        if (zvs_rdev_parse(t, &rdev) < 0) {
            zvs_cp_error(r, ZVS_CPMSG_INVALID_OPERAND, t);
            return -EINVAL;
        }
        if (cmd->nrdev == ZVS_CMD_MAX_RDEVS) {
            char limit[8];
            snprintf(limit, sizeof limit, "%u", (unsigned)ZVS_CMD_MAX_RDEVS);
            zvs_cp_error(r, ZVS_CPMSG_TOO_MANY_DEVICES, t, limit);
            return -E2BIG;
        }
        for (unsigned k = 0; k < cmd->nrdev; k++) {
            if (zvs_rdev_equal(cmd->rdev[k], rdev)) {
                zvs_cp_error(r, ZVS_CPMSG_DEVICE_REPEATED, t);
                return -EINVAL;
            }
        }
        cmd->rdev[cmd->nrdev++] = rdev;
    }
    return 0;
}

/* One of two keywords: 1 for `yes`, 0 for `no`, or -EINVAL (reported). */
static int parse_pair(struct cursor *c, const struct kw *yes, const struct kw *no,
                      struct zvs_cp_response *r)
{
    const char *t = peek(c);
    if (t == NULL) {
        zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
        return -EINVAL;
    }
    c->i++;
    if (kw_match(yes, t))
        return 1;
    if (kw_match(no, t))
        return 0;
    zvs_cp_error(r, ZVS_CPMSG_INVALID_OPTION, t);
    return -EINVAL;
}

static int parse_value(struct cursor *c, enum val_kind val, const char *kwname,
                       struct zvs_cmd *cmd, struct zvs_cp_response *r)
{
    const char *t;
    int v;

    switch (val) {
    case VAL_RDEVS:
        return parse_rdevs(c, cmd, r);
    case VAL_ACTIVE:
        if ((v = parse_pair(c, &KW_ACTIVE, &KW_INACTIVE, r)) < 0)
            return v;
        cmd->lacp_active = v == 1;
        return 0;
    case VAL_ONOFF:
        if ((v = parse_pair(c, &KW_ON, &KW_OFF, r)) < 0)
            return v;
        cmd->fault_on = v == 1;
        return 0;
    case VAL_INTERVAL:
    case VAL_MS:
        if ((t = peek(c)) == NULL) {
            zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
            return -EINVAL;
        }
        c->i++;
        if (val == VAL_INTERVAL) {
            if (kw_match(&KW_OFF, t)) {
                cmd->interval_s = 0;
                return 0;
            }
            if (value_dec(t, 1, INTERVAL_MAX, &cmd->interval_s) == 0)
                return 0;
            zvs_cp_error(r, ZVS_CPMSG_VALUE_RANGE, kwname, t, "1-9990, OFF");
            return -ERANGE;
        }
        if (value_dec(t, 0, DELAYTX_MAX, &cmd->delay_ms) == 0)
            return 0;
        zvs_cp_error(r, ZVS_CPMSG_VALUE_RANGE, kwname, t, "0-10000");
        return -ERANGE;
    }
    assert(!"unknown value kind");
    return -EINVAL;
}

static int parse_choice(struct cursor *c, const struct step *st, struct zvs_cmd *cmd,
                        struct zvs_cp_response *r)
{
    const char *t = peek(c);
    if (t == NULL) {
        zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
        return -EINVAL;
    }
    for (unsigned a = 0; a < st->nalts; a++) {
        const struct alt *alt = &st->alts[a];
        if (!kw_match(&alt->kw, t))
            continue;
        c->i++;
        if (st->field == OP_PG)
            cmd->pg_op = (enum zvs_cmd_pg_op)alt->op;
        else
            cmd->fault = (enum zvs_cmd_fault)alt->op;
        return parse_value(c, alt->val, alt->kw.word, cmd, r);
    }
    zvs_cp_error(r, ZVS_CPMSG_INVALID_OPTION, t);
    return -EINVAL;
}

static int parse_name(const char *t, struct zvs_cmd *cmd, struct zvs_cp_response *r)
{
    if (kw_match(&KW_ALL, t) || zvs_parse_name(t, cmd->name) < 0) {
        zvs_cp_error(r, ZVS_CPMSG_INVALID_OPERAND, t);
        return -EINVAL;
    }
    return 0;
}

static int parse_step(struct cursor *c, const struct cmddef *def, unsigned s,
                      struct zvs_cmd *cmd, struct zvs_cp_response *r)
{
    const struct step *st = &def->steps[s];
    const char *t = peek(c);

    switch (st->kind) {
    case STEP_NAME:
        if (t == NULL) {
            zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
            return -EINVAL;
        }
        c->i++;
        return parse_name(t, cmd, r);
    case STEP_NAME_OPT:
        if (t == NULL)
            return 0;
        if (kw_match(&KW_ALL, t)) {
            c->i++;
            return 0;
        }
        /* A last token that abbreviates DETAILS is DETAILS when the command takes it. */
        if (s + 1 < def->nsteps && def->steps[s + 1].kind == STEP_DETAILS_OPT &&
            c->i + 1 == c->n && kw_match(&KW_DETAILS, t))
            return 0;
        c->i++;
        return parse_name(t, cmd, r);
    case STEP_RDEV:
        if (t == NULL) {
            zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
            return -EINVAL;
        }
        c->i++;
        if (zvs_rdev_parse(t, &cmd->rdev[0]) < 0) {
            zvs_cp_error(r, ZVS_CPMSG_INVALID_OPERAND, t);
            return -EINVAL;
        }
        cmd->nrdev = 1;
        return 0;
    case STEP_CHOICE:
        return parse_choice(c, st, cmd, r);
    case STEP_DETAILS_OPT:
        if (t != NULL && kw_match(&KW_DETAILS, t)) {
            c->i++;
            cmd->details = true;
        }
        return 0;
    }
    assert(!"unknown step kind");
    return -EINVAL;
}

/* Finds the command named by the leading tokens. Returns it, or NULL after reporting. */
static const struct cmddef *match_command(struct cursor *c, struct zvs_cp_response *r)
{
    bool cand[NCOMMANDS];

    for (size_t k = 0; k < NCOMMANDS; k++)
        cand[k] = true;
    for (unsigned depth = 0; depth < MAX_PATH; depth++) {
        const char *t = peek(c);
        bool any = false;
        /* A candidate whose path ends here is the command (no path is a prefix of
         * another: zvs_cmd_grammar_check). */
        for (size_t k = 0; k < NCOMMANDS; k++)
            if (cand[k] && commands[k].npath == depth)
                return &commands[k];
        if (t == NULL) {
            zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
            return NULL;
        }
        for (size_t k = 0; k < NCOMMANDS; k++) {
            cand[k] = cand[k] && kw_match(&commands[k].path[depth], t);
            any |= cand[k];
        }
        if (!any) {
            if (depth == 0)
                zvs_cp_error(r, ZVS_CPMSG_UNKNOWN_COMMAND, t);
            else
                zvs_cp_error(r, ZVS_CPMSG_INVALID_OPTION, t);
            return NULL;
        }
        c->i++;
    }
    for (size_t k = 0; k < NCOMMANDS; k++)
        if (cand[k] && commands[k].npath == MAX_PATH)
            return &commands[k];
    assert(!"grammar path longer than MAX_PATH");
    return NULL;
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
    struct cursor c = { .tok = tok };
    struct zvs_cmd out;
    size_t len = strnlen(line, ZVS_CMD_LINE_MAX + 1);
    int err;

    if (len > ZVS_CMD_LINE_MAX) {
        char limit[12];
        snprintf(limit, sizeof limit, "%u", (unsigned)ZVS_CMD_LINE_MAX);
        zvs_cp_error(r, ZVS_CPMSG_LINE_TOO_LONG, limit);
        return -E2BIG;
    }
    memcpy(buf, line, len + 1);
    c.n = tokenize(buf, tok, sizeof tok / sizeof tok[0]);
    memset(&out, 0, sizeof out);

    const struct cmddef *def = match_command(&c, r);
    if (def == NULL)
        return -EINVAL;
    if ((privclass & ZVS_PRIVCLASS(def->privclass)) == 0) {
        char cls[2] = { def->privclass, '\0' };
        zvs_cp_error(r, ZVS_CPMSG_NOT_AUTHORIZED, def->title, cls);
        return -EPERM;
    }
    out.verb = def->verb;
    for (unsigned s = 0; s < def->nsteps; s++)
        if ((err = parse_step(&c, def, s, &out, r)) < 0)
            return err;
    if (peek(&c) != NULL) {
        zvs_cp_error(r, ZVS_CPMSG_INVALID_OPTION, peek(&c));
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

static const char *alt_word(const struct step *st, int op)
{
    for (unsigned a = 0; a < st->nalts; a++)
        if (st->alts[a].op == op)
            return st->alts[a].kw.word;
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

size_t zvs_cmd_format(const struct zvs_cmd *cmd, char *buf, size_t size)
{
    const struct cmddef *def = find_def(cmd->verb);
    size_t len = 0;
    char dev[16];

    if (size > 0)
        buf[0] = '\0';
    if (def == NULL)
        return 0;
    len = catf(buf, size, len, "%s", def->title);
    switch (cmd->verb) {
    case ZVS_CMD_SET_PORT_GROUP:
        len = catf(buf, size, len, " %s %s", cmd->name, alt_word(&def->steps[1], cmd->pg_op));
        if (cmd->pg_op == ZVS_CMD_PG_JOIN || cmd->pg_op == ZVS_CMD_PG_LEAVE) {
            for (unsigned k = 0; k < cmd->nrdev && k < ZVS_CMD_MAX_RDEVS; k++) {
                zvs_rdev_format(cmd->rdev[k], dev, sizeof dev);
                len = catf(buf, size, len, " %s", dev);
            }
        } else if (cmd->pg_op == ZVS_CMD_PG_LACP) {
            len = catf(buf, size, len, " %s", cmd->lacp_active ? "ACTIVE" : "INACTIVE");
        } else if (cmd->interval_s == 0) {
            len = catf(buf, size, len, " OFF");
        } else {
            len = catf(buf, size, len, " %u", (unsigned)cmd->interval_s);
        }
        break;
    case ZVS_CMD_QUERY_PORT_GROUP:
    case ZVS_CMD_QUERY_LACP:
    case ZVS_CMD_QUERY_VSWITCH:
        len = catf(buf, size, len, " %s", cmd->name[0] != '\0' ? cmd->name : "ALL");
        if (cmd->details && cmd->verb != ZVS_CMD_QUERY_PORT_GROUP)
            len = catf(buf, size, len, " DETAILS");
        break;
    case ZVS_CMD_SET_LACP_FAULT:
        zvs_rdev_format(cmd->rdev[0], dev, sizeof dev);
        len = catf(buf, size, len, " %s %s", dev, alt_word(&def->steps[1], cmd->fault));
        if (cmd->fault == ZVS_CMD_FAULT_DELAYTX)
            len = catf(buf, size, len, " %u", (unsigned)cmd->delay_ms);
        else
            len = catf(buf, size, len, " %s", cmd->fault_on ? "ON" : "OFF");
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

int zvs_cmd_grammar_check(void)
{
    const struct kw *fixed[] = { &KW_ALL, &KW_DETAILS, &KW_ACTIVE, &KW_INACTIVE, &KW_ON,
                                 &KW_OFF };
    for (size_t f = 0; f < sizeof fixed / sizeof fixed[0]; f++)
        if (!kw_sane(fixed[f]))
            return -EINVAL;
    if (kw_clash(&KW_ACTIVE, &KW_INACTIVE) || kw_clash(&KW_ON, &KW_OFF))
        return -EINVAL;
    for (size_t k = 0; k < NCOMMANDS; k++) {
        const struct cmddef *d = &commands[k];
        if (d->npath < 1 || d->npath > MAX_PATH || d->nsteps > MAX_STEPS)
            return -EINVAL;
        if (ZVS_PRIVCLASS(d->privclass) == 0 || find_def(d->verb) != d)
            return -EINVAL;
        for (unsigned p = 0; p < d->npath; p++)
            if (!kw_sane(&d->path[p]))
                return -EINVAL;
        for (unsigned s = 0; s < d->nsteps; s++) {
            const struct step *st = &d->steps[s];
            if (st->nalts > MAX_ALTS)
                return -EINVAL;
            for (unsigned a = 0; a < st->nalts; a++) {
                if (!kw_sane(&st->alts[a].kw))
                    return -EINVAL;
                for (unsigned b = a + 1; b < st->nalts; b++)
                    if (kw_clash(&st->alts[a].kw, &st->alts[b].kw))
                        return -EINVAL;
            }
        }
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
