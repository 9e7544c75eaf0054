/* Tokenizer, lexer, operand engine and statement dispatcher for CP statement files.
 *
 * Owns: what a blank and a token are (zvs_is_blank, zvs_token_cut: the files' lexer and
 * the CP command parser split text with them), the CP comment and continuation rules and
 * the generic walk over an operand table (see tokens.h for the rules). It knows no
 * statement: SYSTEM CONFIG and USER DIRECT (sysconfig.c, userdirect.c) are tables on top;
 * the CP command parser (command.c) has its own grammar table and borrows the tokenizer,
 * the value parsers (names, hex, decimal) and, through sysconfig.c, the DEFINE VSWITCH and
 * GRANT operand tables.
 *
 * How the lexer works: it keeps a private copy of the text and processes one physical
 * line at a time. Comments and invalid characters are overwritten with blanks in the
 * copy, then tokens are cut out by writing a NUL after each, so a token is a plain C
 * string that lives as long as the lexer. Only bytes of the current line are written,
 * so tokens of earlier (continued) lines stay intact.
 *
 * Hazards: a line whose first non-blank is '*' is a comment even in the middle of a
 * continued statement (write `CONTROLLER *` on one line); a slash-star comment does not
 * continue a statement, only a trailing comma does; bytes outside 0x20-0x7E (other than
 * blanks) are reported once per line and act as blanks, inside comments they are allowed;
 * form feed and vertical tab are blanks in a file but not in a command line (where they
 * stay part of a token, as the console has always read them), so the lexer turns them into
 * spaces first instead of zvs_is_blank knowing them.
 */
#include "cp-commands/tokens.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names/resolver.h"

bool zvs_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

char *zvs_token_cut(char **pos, char *end)
{
    char *q = *pos, *start;

    while (q < end && zvs_is_blank(*q))
        q++;
    if (q == end) {
        *pos = q;
        return NULL;
    }
    start = q;
    while (q < end && !zvs_is_blank(*q))
        q++;
    *q = '\0';                          /* the blank that ended it, or end */
    *pos = q < end ? q + 1 : q;
    return start;
}

int zvs_lexer_init(struct zvs_lexer *lx, const char *text, size_t len,
                   struct zvs_msg_sink *sink)
{
    memset(lx, 0, sizeof *lx);
    lx->buf = malloc(len + 1);
    if (lx->buf == NULL)
        return -ENOMEM;
    if (len > 0)
        memcpy(lx->buf, text, len);
    lx->buf[len] = '\0';
    lx->len = len;
    lx->line = 1;
    lx->sink = sink;
    return 0;
}

void zvs_lexer_fini(struct zvs_lexer *lx)
{
    free(lx->buf);
    lx->buf = NULL;
}

/* Blanks out comments and invalid characters of the line p..eol. Form feeds and
 * vertical tabs are page layout in a file: spaces, before anything else is looked at. */
static void clean_line(struct zvs_lexer *lx, char *p, char *eol)
{
    bool bad_seen = false;

    for (char *q = p; q < eol; q++)
        if (*q == '\f' || *q == '\v')
            *q = ' ';
    if (!lx->in_comment) {
        char *q = p;
        while (q < eol && zvs_is_blank(*q))
            q++;
        if (q < eol && *q == '*') {
            memset(p, ' ', (size_t)(eol - p));
            return;
        }
    }
    for (char *q = p; q < eol; q++) {
        bool two = q + 1 < eol;
        if (lx->in_comment) {
            if (two && q[0] == '*' && q[1] == '/') {
                q[0] = q[1] = ' ';
                q++;
                lx->in_comment = false;
            } else {
                q[0] = ' ';
            }
        } else if (two && q[0] == '/' && q[1] == '*') {
            q[0] = q[1] = ' ';
            q++;
            lx->in_comment = true;
            lx->comment_line = lx->line;
        } else if (two && q[0] == '*' && q[1] == '/') {
            ZVS_REPORT(lx->sink, lx->line, ZVS_MSG_COMMENT_STRAY_END, "*/");
            q[0] = q[1] = ' ';
            q++;
        } else {
            unsigned char c = (unsigned char)*q;
            if ((c < 0x20 && !zvs_is_blank((char)c)) || c > 0x7e) {
                if (!bad_seen) {
                    char hex[8];
                    snprintf(hex, sizeof hex, "X'%02X'", c);
                    ZVS_REPORT(lx->sink, lx->line, ZVS_MSG_CHAR_INVALID, hex);
                }
                bad_seen = true;
                *q = ' ';
            }
        }
    }
}

int zvs_lexer_next(struct zvs_lexer *lx, struct zvs_stmt *st)
{
    unsigned ntok = 0;
    bool continued = false;
    bool overflow = false;
    uint32_t cont_line = 0;

    while (lx->pos < lx->len) {
        char *p = lx->buf + lx->pos;
        char *eol = memchr(p, '\n', lx->len - lx->pos);
        if (eol == NULL)
            eol = lx->buf + lx->len;        /* last line without newline; buf[len] is NUL */
        uint32_t line = lx->line;

        clean_line(lx, p, eol);
        lx->pos = (size_t)(eol - lx->buf) + 1;
        lx->line++;

        unsigned line_tokens = 0;
        char *end = eol;
        while (end > p && zvs_is_blank(end[-1]))
            end--;
        bool comma = end > p && end[-1] == ',';
        if (comma)
            *--end = ' ';

        /* end is a blank, the comma made one, '\n' or buf[len]: writable. */
        for (char *q = p, *start; (start = zvs_token_cut(&q, end)) != NULL;) {
            if (ntok == ZVS_TOK_MAX) {
                if (!overflow) {
                    char lim[12];
                    snprintf(lim, sizeof lim, "%u", ZVS_TOK_MAX);
                    ZVS_REPORT(lx->sink, line, ZVS_MSG_STMT_TOO_LONG, lx->tok[0].s, lim);
                }
                overflow = true;
                line_tokens++;
                continue;
            }
            lx->tok[ntok++] = (struct zvs_tok){ .s = start, .line = line };
            line_tokens++;
        }

        if (comma) {
            continued = true;
            cont_line = line;
            continue;
        }
        if (continued && line_tokens == 0)
            continue;                       /* blank or comment line inside a continuation */
        continued = false;
        if (overflow) {                     /* reported; drop the statement */
            ntok = 0;
            overflow = false;
            continue;
        }
        if (ntok > 0) {
            st->tok = lx->tok;
            st->ntok = ntok;
            return 1;
        }
    }
    if (lx->in_comment) {
        ZVS_REPORT(lx->sink, lx->comment_line, ZVS_MSG_COMMENT_UNTERMINATED, "/*");
        lx->in_comment = false;
    }
    if (continued)
        ZVS_REPORT(lx->sink, cont_line, ZVS_MSG_CONTINUED_AT_EOF,
                   ntok > 0 ? lx->tok[0].s : ",");
    return 0;
}

bool zvs_tok_is(const struct zvs_tok *t, const char *keyword)
{
    return strcasecmp(t->s, keyword) == 0;
}

bool zvs_tok_abbrev(const struct zvs_tok *t, const char *keyword)
{
    size_t n = strlen(t->s), full = strlen(keyword), min = 0;
    while (min < full && !(keyword[min] >= 'a' && keyword[min] <= 'z'))
        min++;
    return n >= min && n <= full && strncasecmp(t->s, keyword, n) == 0;
}

const char *zvs_kw_upper(const char *keyword, char *buf, size_t size)
{
    size_t k = 0;
    for (; size > 0 && k < size - 1 && keyword[k] != '\0'; k++)
        buf[k] = keyword[k] >= 'a' && keyword[k] <= 'z' ? (char)(keyword[k] - 'a' + 'A')
                                                        : keyword[k];
    if (size > 0)
        buf[k] = '\0';
    return buf;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int zvs_parse_hex(const char *s, unsigned min_digits, unsigned max_digits, uint32_t *out)
{
    size_t n = strnlen(s, max_digits + 1);
    uint32_t v = 0;

    assert(max_digits <= 8);
    if (n < min_digits || n > max_digits || n == 0)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        int d = hex_digit(s[i]);
        if (d < 0)
            return -EINVAL;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

int zvs_parse_unicast_mac(const char *s, uint8_t out[6])
{
    uint8_t mac[6], any = 0;

    if (strnlen(s, 18) != 17)
        return -EINVAL;
    for (unsigned i = 0; i < 6; i++) {
        int hi = hex_digit(s[3 * i]), lo = hex_digit(s[3 * i + 1]);

        if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != '-'))
            return -EINVAL;
        mac[i] = (uint8_t)(hi << 4 | lo);
        any |= mac[i];
    }
    if ((mac[0] & 1) || any == 0)       /* a group address, or none */
        return -EINVAL;
    memcpy(out, mac, 6);
    return 0;
}

int zvs_parse_addr_text(const char *s, char *out, size_t size)
{
    struct zvs_res_addr a;

    if (!zvs_res_addr_parse(s, &a) || !inet_ntop(a.family, a.bytes, out, (socklen_t)size))
        return -EINVAL;
    return a.family == AF_INET ? 4 : 6;
}

int zvs_addr_family(const char *s)
{
    char canon[64];
    int fam = zvs_parse_addr_text(s, canon, sizeof canon);

    return fam < 0 ? 0 : fam;
}

bool zvs_addr_is_unicast(const char *s)
{
    static const uint8_t zero[16], bcast[4] = { 255, 255, 255, 255 };
    struct zvs_res_addr a;

    if (!zvs_res_addr_parse(s, &a))
        return false;
    if (a.family == AF_INET)
        return memcmp(a.bytes, zero, 4) != 0 && memcmp(a.bytes, bcast, 4) != 0 &&
               (a.bytes[0] & 0xf0) != 0xe0;
    return memcmp(a.bytes, zero, 16) != 0 && a.bytes[0] != 0xff;
}

int zvs_parse_dec(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
    size_t n = strnlen(s, 11);
    uint64_t v = 0;

    if (n == 0 || n > 10)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -EINVAL;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v < min || v > max)
        return -EINVAL;
    *out = (uint32_t)v;
    return 0;
}

int zvs_parse_name(const char *s, char dst[ZVS_NAME_MAX + 1])
{
    size_t n = strnlen(s, ZVS_NAME_MAX + 1);
    char tmp[ZVS_NAME_MAX + 1];

    if (n == 0 || n > ZVS_NAME_MAX)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '@' || c == '#' ||
              c == '$'))
            return -EINVAL;
        tmp[i] = c;
    }
    tmp[n] = '\0';
    memcpy(dst, tmp, n + 1);
    return 0;
}

/* ---- operand tables ------------------------------------------------------------------ */

static int find_op(const struct zvs_opdef *defs, unsigned ndefs, const struct zvs_tok *t)
{
    for (unsigned i = 0; i < ndefs; i++)
        if (zvs_tok_abbrev(t, defs[i].keyword))
            return (int)i;
    return -1;
}

/* The first accepted operand that `k` may not be combined with, or -1. */
static int find_conflict(const struct zvs_opdef *defs, unsigned ndefs, uint64_t seen, int k)
{
    for (unsigned j = 0; j < ndefs; j++) {
        if (!(seen & ZVS_OPBIT(j)))
            continue;
        if ((defs[k].conflicts & ZVS_OPBIT(j)) || (defs[j].conflicts & ZVS_OPBIT(k)))
            return (int)j;
    }
    return -1;
}

uint64_t zvs_operands_parse(const struct zvs_opdef *defs, unsigned ndefs,
                            const struct zvs_tok *tok, unsigned ntok, const char *stmt,
                            void *ctx, struct zvs_msg_sink *sink)
{
    uint64_t given = 0;                 /* operands met, even with errors */
    uint64_t seen = 0;                  /* operands applied: what conflicts are checked with */
    unsigned i = 0;
    char up1[32], up2[32];              /* operand names for messages, in upper case */
#define UP(kw, buf) zvs_kw_upper((kw), (buf), sizeof (buf))

    assert(ndefs <= ZVS_OPDEF_MAX);
    while (i < ntok) {
        int k = find_op(defs, ndefs, &tok[i]);
        if (k < 0) {
            ZVS_REPORT(sink, tok[i].line, ZVS_MSG_OPERAND_UNKNOWN, tok[i].s, stmt);
            i++;
            continue;
        }
        const struct zvs_opdef *d = &defs[k];
        const struct zvs_tok *kw = &tok[i++];
        unsigned n = 0;
        if (d->list) {
            while (i + n < ntok && find_op(defs, ndefs, &tok[i + n]) < 0)
                n++;
        } else {
            n = ntok - i < d->max_values ? ntok - i : d->max_values;
        }
        const struct zvs_tok *val = &tok[i];
        i += n;

        if (given & ZVS_OPBIT(k)) {
            ZVS_REPORT(sink, kw->line, ZVS_MSG_OPERAND_DUPLICATE, UP(d->keyword, up1));
            continue;
        }
        given |= ZVS_OPBIT(k);
        if (n < d->min_values) {
            ZVS_REPORT(sink, kw->line, ZVS_MSG_VALUE_MISSING, UP(d->keyword, up1));
            continue;
        }
        if (n > d->max_values) {
            char lim[12];
            snprintf(lim, sizeof lim, "%u", (unsigned)d->max_values);
            ZVS_REPORT(sink, val[d->max_values].line, ZVS_MSG_VALUES_TOO_MANY,
                       UP(d->keyword, up1), lim, val[d->max_values].s);
            continue;
        }
        int c = find_conflict(defs, ndefs, seen, k);
        if (c >= 0) {
            ZVS_REPORT(sink, kw->line, ZVS_MSG_OPERAND_CONFLICT, UP(d->keyword, up1),
                       UP(defs[c].keyword, up2));
            continue;
        }
        seen |= ZVS_OPBIT(k);
        if (d->apply != NULL)
            d->apply(ctx, kw, val, n);
    }
    return given;
#undef UP
}

/* ---- statement tables ---------------------------------------------------------------- */

static bool stmt_matches(const struct zvs_stmtdef *def, const struct zvs_stmt *stmt)
{
    if (!zvs_tok_abbrev(&stmt->tok[0], def->words[0]))
        return false;
    return def->words[1] == NULL ||
           (stmt->ntok >= 2 && zvs_tok_abbrev(&stmt->tok[1], def->words[1]));
}

static void report_unknown(const struct zvs_stmtdef *defs, unsigned ndefs,
                           const struct zvs_stmt *stmt, struct zvs_msg_sink *sink)
{
    char name[2 * ZVS_MSG_ARG_MAX + 2];
    bool two_words = false;

    for (unsigned i = 0; i < ndefs; i++)
        if (defs[i].words[1] != NULL &&
            zvs_tok_abbrev(&stmt->tok[0], defs[i].words[0]))
            two_words = stmt->ntok >= 2;
    if (two_words)
        snprintf(name, sizeof name, "%.*s %.*s", ZVS_MSG_ARG_MAX, stmt->tok[0].s,
                 ZVS_MSG_ARG_MAX, stmt->tok[1].s);
    else
        snprintf(name, sizeof name, "%s", stmt->tok[0].s);
    ZVS_REPORT(sink, stmt->tok[0].line, ZVS_MSG_STMT_UNKNOWN, name);
}

int zvs_stmt_dispatch(const struct zvs_stmtdef *defs, unsigned ndefs,
                      const struct zvs_stmt *stmt, void *ctx, struct zvs_msg_sink *sink)
{
    const struct zvs_stmtdef *def = NULL;

    assert(stmt->ntok >= 1);
    for (unsigned i = 0; i < ndefs && def == NULL; i++)
        if (stmt_matches(&defs[i], stmt))
            def = &defs[i];
    if (def == NULL) {
        report_unknown(defs, ndefs, stmt, sink);
        return -ENOENT;
    }
    unsigned nw = def->words[1] != NULL ? 2 : 1;
    unsigned rest = stmt->ntok - nw;
    unsigned npos = rest < def->pos_max ? rest : def->pos_max;
    assert(def->pos_max <= ZVS_POS_MAX && def->pos_min <= def->pos_max);
    if (npos < def->pos_min) {
        ZVS_REPORT(sink, stmt->tok[stmt->ntok - 1].line, ZVS_MSG_OPERAND_MISSING,
                   def->pos_name[npos]);
        return -EINVAL;
    }
    const struct zvs_tok *pos = &stmt->tok[nw];
    if (def->begin != NULL)
        def->begin(ctx, stmt, pos, npos);
    uint64_t given = zvs_operands_parse(def->ops, def->nops, pos + npos, rest - npos, def->name,
                                        ctx, sink);
    if (def->end != NULL)
        def->end(ctx, stmt, given);
    return 0;
}

int zvs_parse_text(const char *text, size_t len, const struct zvs_stmtdef *defs,
                   unsigned ndefs, void *ctx, struct zvs_msg_sink *sink)
{
    struct zvs_lexer *lx = malloc(sizeof *lx);  /* ~2 KiB of tokens: keep it off the stack */
    struct zvs_stmt st;
    int rc = -ENOMEM;

    if (lx == NULL)
        goto out;
    rc = zvs_lexer_init(lx, text, len, sink);
    if (rc < 0)
        goto out;
    while (zvs_lexer_next(lx, &st) == 1)
        zvs_stmt_dispatch(defs, ndefs, &st, ctx, sink);
    zvs_lexer_fini(lx);
out:
    free(lx);
    return rc;
}
