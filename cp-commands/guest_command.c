/* Parser of the machine commands (grammar and classes in guest_command.h). Tokens are
 * blank-separated and case-insensitive, keywords take CP's minimum abbreviations, the
 * first problem left to right is reported (as command.c does), and the issuer's class
 * is checked as soon as the command is known, before its operands. */
#include "cp-commands/guest_command.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cp-commands/tokens.h"

#define MAX_TOK 8

struct toks {
    unsigned    n;
    const char *s[MAX_TOK];             /* into buf */
    size_t      off[MAX_TOK];           /* where each starts in the line */
    char        buf[ZVS_CMD_LINE_MAX + 1];
};

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static void split(const char *line, struct toks *t)
{
    size_t len = strnlen(line, ZVS_CMD_LINE_MAX);
    size_t i = 0;

    memcpy(t->buf, line, len);
    t->buf[len] = '\0';
    t->n = 0;
    while (i < len && t->n < MAX_TOK) {
        while (i < len && is_blank(t->buf[i]))
            i++;
        if (i == len)
            break;
        t->off[t->n] = i;
        t->s[t->n++] = &t->buf[i];
        while (i < len && !is_blank(t->buf[i]))
            i++;
        if (i < len)
            t->buf[i++] = '\0';
    }
}

/* tok abbreviates word (upper case) in at least min characters. */
static bool abbrev(const char *tok, const char *word, size_t min)
{
    size_t n = strlen(tok);

    return n >= min && n <= strlen(word) && strncasecmp(tok, word, n) == 0;
}

static bool has_class(uint32_t privclass, const char *classes)
{
    for (const char *c = classes; *c != '\0'; c++)
        if (privclass & ZVS_PRIVCLASS(*c))
            return true;
    return false;
}

static int refuse_class(struct zvs_cp_response *r, const char *title, const char *classes)
{
    size_t n = strlen(classes);
    char first[8], last[2] = { classes[n - 1], '\0' };

    if (n == 1) {
        zvs_cp_error(r, ZVS_CPMSG_NOT_AUTHORIZED, title, classes);
        return -EPERM;
    }
    if (n == 2)
        snprintf(first, sizeof first, "%c", classes[0]);
    else
        snprintf(first, sizeof first, "%c, %c", classes[0], classes[1]);
    zvs_cp_error(r, ZVS_CPMSG_NOT_AUTHORIZED_EITHER, title, first, last);
    return -EPERM;
}

static int userid_at(const struct toks *t, unsigned i, char out[ZVS_USERID_MAX + 1],
                     struct zvs_cp_response *r)
{
    if (i >= t->n) {
        zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
        return -EINVAL;
    }
    if (zvs_parse_name(t->s[i], out) < 0) {
        zvs_cp_error(r, ZVS_CPMSG_INVALID_OPERAND, t->s[i]);
        return -EINVAL;
    }
    return 0;
}

static int extra(const struct toks *t, unsigned i, struct zvs_cp_response *r)
{
    if (i < t->n) {
        zvs_cp_error(r, ZVS_CPMSG_INVALID_OPTION, t->s[i]);
        return -EINVAL;
    }
    return 0;
}

int zvs_gcmd_parse(const char *line, uint32_t privclass, struct zvs_gcmd *out,
                   struct zvs_cp_response *r)
{
    static struct toks t;               /* one thread: the daemon's loop */
    struct zvs_gcmd c;
    const char *classes, *title;
    unsigned i;

    split(line, &t);
    if (t.n == 0)
        return 0;
    memset(&c, 0, sizeof c);
    if (abbrev(t.s[0], "XAUTOLOG", 5)) {
        c.verb = ZVS_GCMD_XAUTOLOG, classes = "AB", title = "XAUTOLOG", i = 1;
    } else if (abbrev(t.s[0], "FORCE", 5)) {
        c.verb = ZVS_GCMD_FORCE, classes = "A", title = "FORCE", i = 1;
    } else if (abbrev(t.s[0], "SIGNAL", 3)) {
        c.verb = ZVS_GCMD_SIGNAL_SHUTDOWN, classes = "AC", title = "SIGNAL", i = 1;
    } else if (abbrev(t.s[0], "SEND", 4)) {
        c.verb = ZVS_GCMD_SEND, classes = "ABC", title = "SEND", i = 1;
    } else if (abbrev(t.s[0], "QUERY", 1) && t.n > 1 && abbrev(t.s[1], "NAMES", 3)) {
        c.verb = ZVS_GCMD_QUERY_NAMES, classes = "G", title = "QUERY NAMES", i = 2;
    } else if (abbrev(t.s[0], "QUERY", 1) && t.n > 1 && abbrev(t.s[1], "USERS", 4)) {
        c.verb = ZVS_GCMD_QUERY_USERS, classes = "G", title = "QUERY USERS", i = 2;
    } else if (abbrev(t.s[0], "QUERY", 1) && t.n > 1 && abbrev(t.s[1], "CONSLOG", 7)) {
        c.verb = ZVS_GCMD_QUERY_CONSLOG, classes = "AB", title = "QUERY CONSLOG", i = 2;
    } else {
        return 0;
    }
    if (!has_class(privclass, classes))
        return refuse_class(r, title, classes);

    switch (c.verb) {
    case ZVS_GCMD_XAUTOLOG:
        if (userid_at(&t, i, c.userid, r) < 0 || extra(&t, i + 1, r) < 0)
            return -EINVAL;
        break;
    case ZVS_GCMD_FORCE:
        if (userid_at(&t, i, c.userid, r) < 0)
            return -EINVAL;
        i++;
        if (i < t.n && abbrev(t.s[i], "IMMEDIATE", 4))
            i++;                        /* a machine stops at once either way */
        if (extra(&t, i, r) < 0)
            return -EINVAL;
        break;
    case ZVS_GCMD_SIGNAL_SHUTDOWN:
        if (i >= t.n) {
            zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
            return -EINVAL;
        }
        if (!abbrev(t.s[i], "SHUTDOWN", 4)) {
            zvs_cp_error(r, ZVS_CPMSG_INVALID_OPERAND, t.s[i]);
            return -EINVAL;
        }
        i++;
        if (i < t.n && strcasecmp(t.s[i], "USER") == 0)
            i++;                        /* USER names a userid that reads as ALL */
        else if (i < t.n && strcasecmp(t.s[i], "ALL") == 0) {
            i++;
            goto within;
        }
        if (userid_at(&t, i, c.userid, r) < 0)
            return -EINVAL;
        i++;
    within:
        c.within_s = ZVS_GCMD_WITHIN_DEFAULT;
        if (i < t.n && abbrev(t.s[i], "WITHIN", 6)) {
            if (i + 1 >= t.n) {
                zvs_cp_error(r, ZVS_CPMSG_OPERAND_MISSING);
                return -EINVAL;
            }
            if (zvs_parse_dec(t.s[i + 1], 1, 32767, &c.within_s) < 0) {
                zvs_cp_error(r, ZVS_CPMSG_VALUE_RANGE, "WITHIN", t.s[i + 1], "1-32767");
                return -EINVAL;
            }
            i += 2;
        }
        if (extra(&t, i, r) < 0)
            return -EINVAL;
        break;
    case ZVS_GCMD_SEND:
        if (userid_at(&t, i, c.userid, r) < 0)
            return -EINVAL;
        if (i + 1 < t.n) {
            /* The text as typed: from its first character to the end of the line. */
            const char *rest = line + t.off[i + 1];
            size_t n = strnlen(rest, ZVS_CMD_LINE_MAX);
            while (n > 0 && is_blank(rest[n - 1]))
                n--;
            memcpy(c.text, rest, n);
            c.text[n] = '\0';
        }
        break;
    case ZVS_GCMD_QUERY_NAMES:
        if (extra(&t, i, r) < 0)
            return -EINVAL;
        break;
    case ZVS_GCMD_QUERY_USERS:
        if (userid_at(&t, i, c.userid, r) < 0 || extra(&t, i + 1, r) < 0)
            return -EINVAL;
        break;
    case ZVS_GCMD_QUERY_CONSLOG:
        if (userid_at(&t, i, c.userid, r) < 0)
            return -EINVAL;
        c.lines = ZVS_GCMD_CONSLOG_DEFAULT;
        i++;
        if (i < t.n) {
            if (zvs_parse_dec(t.s[i], 1, ZVS_GCMD_CONSLOG_MAX, &c.lines) < 0) {
                zvs_cp_error(r, ZVS_CPMSG_VALUE_RANGE, "CONSLOG", t.s[i], "1-500");
                return -EINVAL;
            }
            i++;
        }
        if (extra(&t, i, r) < 0)
            return -EINVAL;
        break;
    }
    memcpy(out, &c, sizeof c);
    return 1;
}
