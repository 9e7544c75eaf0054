/* Tokenizer and table-driven operand parser for CP statements.
 *
 * Three layers, each usable alone:
 *  1. The lexer turns file text into statements (lists of blank-separated tokens with
 *     their line numbers), applying the CP SYSTEM CONFIG rules: a line whose first
 *     non-blank character is '*' is a comment; slash-star ... star-slash comments may
 *     appear anywhere, span lines and do not nest (the first star-slash ends them); a
 *     comma as the last non-blank character of a line (comments removed) continues the
 *     statement on the next non-blank line; blank lines are ignored.
 *  2. zvs_operands_parse() walks the operands of one statement against a table: keyword,
 *     how many values follow, which operands it conflicts with, and a callback that
 *     stores the values. It reports unknown, repeated, conflicting and value-less
 *     operands, and goes on after an error so one pass reports everything (like
 *     CPSYNTAX).
 *  3. zvs_stmt_dispatch() picks the statement's table by its leading keywords, takes the
 *     positional operands, and brackets the operands with begin/end callbacks.
 * Under the lexer, the tokenizer (zvs_is_blank, zvs_token_cut) is the one CP command lines
 * are split with too (command.c): a file and a command agree on what a token is.
 * Keywords match case-insensitively, in full or, where a table spells a keyword as IBM's
 * syntax diagram does ("QUEuestorage"), down to its upper-case part. Messages name
 * operands in upper case, in full.
 * Tokens keep their original spelling: names are upper-cased by whoever stores them,
 * Linux interface names are not.
 */
#ifndef ZVS_TOKENS_H
#define ZVS_TOKENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp-commands/messages.h"

#define ZVS_TOK_MAX        128          /* tokens in one statement (continuations joined) */
#define ZVS_OPDEF_MAX      64           /* operands in one table (bits of a uint64_t) */
#define ZVS_POS_MAX        6            /* positional operands of one statement */

struct zvs_tok {
    const char *s;                      /* NUL-terminated, original spelling */
    uint32_t    line;                   /* 1-based line it was read from */
};

struct zvs_stmt {
    const struct zvs_tok *tok;          /* ntok tokens, valid until the next lexer call */
    unsigned              ntok;         /* >= 1 */
};

struct zvs_lexer {
    char                *buf;           /* private copy of the text, edited in place */
    size_t               len;           /* bytes in buf (a NUL follows) */
    size_t               pos;           /* start of the next unread line */
    uint32_t             line;          /* line number of buf[pos] */
    bool                 in_comment;    /* inside a slash-star comment */
    uint32_t             comment_line;  /* where that comment started */
    struct zvs_msg_sink *sink;          /* where lexical errors go */
    struct zvs_tok       tok[ZVS_TOK_MAX];
};

/* Copies text (len bytes, may contain NULs, which are reported as invalid characters).
 * Returns 0 or -ENOMEM. */
int zvs_lexer_init(struct zvs_lexer *lx, const char *text, size_t len,
                   struct zvs_msg_sink *sink);
void zvs_lexer_fini(struct zvs_lexer *lx);

/* Next statement: 1 and *st filled, or 0 at end of text. Lexical errors are reported to
 * the sink; a statement with such an error is still returned when its tokens are whole
 * (an invalid character acts as a blank), a statement that overflows ZVS_TOK_MAX or is
 * continued at end of file is reported and dropped. */
int zvs_lexer_next(struct zvs_lexer *lx, struct zvs_stmt *st);

/* ---- the tokenizer (files and command lines alike) ------------------------------------ */

/* A blank between tokens: space, tab, CR, LF. A file's form feed and vertical tab are
 * page layout: the lexer turns them into spaces before it splits a line. */
bool zvs_is_blank(char c);

/* Cuts the next token out of the text from *pos to end, in place: skips blanks, writes a
 * NUL on the blank that ends the token (or at end, which must be writable: a blank or the
 * string's NUL) and moves *pos past it. Returns the token, or NULL when only blanks are
 * left. */
char *zvs_token_cut(char **pos, char *end);

/* Case-insensitive full-keyword compare. */
bool zvs_tok_is(const struct zvs_tok *t, const char *keyword);

/* t is keyword, case-insensitively, or an abbreviation of it down to its leading
 * upper-case part: "QUEuestorage" takes QUE to QUEUESTORAGE, "RDEV" only RDEV. */
bool zvs_tok_abbrev(const struct zvs_tok *t, const char *keyword);

/* keyword in upper case into buf (for messages); returns buf. */
const char *zvs_kw_upper(const char *keyword, char *buf, size_t size);

/* Token value syntax. Each returns 0 or -EINVAL and leaves *out alone on error. */
int zvs_parse_hex(const char *s, unsigned min_digits, unsigned max_digits, uint32_t *out);
int zvs_parse_dec(const char *s, uint32_t min, uint32_t max, uint32_t *out);
/* A MAC in z/VM's form xx-xx-xx-xx-xx-xx (hex digits of either case, as QUERY NIC shows
 * one); only a unicast address that is not all zeros (a neighbour's, a NIC's). */
int zvs_parse_unicast_mac(const char *s, uint8_t out[6]);
/* An IPv4 or IPv6 address literal as canonical text (inet_ntop's: lower case, zeros
 * compressed) into out[size]: its family, 4 or 6, or -EINVAL. */
int zvs_parse_addr_text(const char *s, char *out, size_t size);
/* An address literal's family, 4 or 6; 0 when s is none (a host name). */
int zvs_addr_family(const char *s);
/* Whether address literal s is one a host's interface has: not unspecified (0.0.0.0,
 * ::), not multicast (224.0.0.0/4, ff00::/8), not IPv4's limited broadcast
 * (255.255.255.255). False for no literal. */
bool zvs_addr_is_unicast(const char *s);

/* CP names (switch, user, group): 1-8 of A-Z 0-9 @ # $, any case; dst gets the upper-case
 * form (9 bytes). */
#define ZVS_NAME_MAX 8
int zvs_parse_name(const char *s, char dst[ZVS_NAME_MAX + 1]);

/* ---- operand tables ------------------------------------------------------------------ */

#define ZVS_OPBIT(i) ((uint64_t)1 << (i))

struct zvs_opdef {
    const char *keyword;                /* full spelling; upper case, or IBM's mixed case
                                           (the upper-case part is the minimum) */
    uint8_t     min_values;             /* values that must follow */
    uint8_t     max_values;             /* values that may follow */
    bool        list;                   /* values run to the next keyword of the table;
                                           else exactly max_values tokens are taken */
    uint64_t    conflicts;              /* ZVS_OPBIT() of operands not allowed with it */
    void (*apply)(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                  unsigned nval);       /* store the values (they may still be invalid) */
};

/* Walks tok[0..ntok) against defs; `stmt` names the statement in messages. Returns the
 * ZVS_OPBIT() set of operands that appeared (with or without errors), for checks of
 * required operands. */
uint64_t zvs_operands_parse(const struct zvs_opdef *defs, unsigned ndefs,
                            const struct zvs_tok *tok, unsigned ntok, const char *stmt,
                            void *ctx, struct zvs_msg_sink *sink);

/* ---- statement tables ---------------------------------------------------------------- */

struct zvs_stmtdef {
    const char *words[2];               /* leading keywords (as keyword above, e.g. DEFine);
                                           words[1] may be NULL */
    const char *name;                   /* statement name in messages */
    uint8_t     pos_min;                /* positional operands that must follow */
    uint8_t     pos_max;                /* positional operands that may follow */
    const char *pos_name[ZVS_POS_MAX];  /* their names in messages */
    const struct zvs_opdef *ops;        /* keyword operands after the positionals */
    unsigned    nops;
    /* Called with the positionals before the operands are applied; `stmt` is the whole
     * statement (for line numbers). */
    void (*begin)(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                  unsigned npos);
    /* Called after the operands with the set that appeared. */
    void (*end)(void *ctx, const struct zvs_stmt *stmt, uint64_t given);
};

/* Runs one statement through the first matching table. Returns 0, or -ENOENT when no
 * table matches (reported), or -EINVAL when positionals are missing (reported). */
int zvs_stmt_dispatch(const struct zvs_stmtdef *defs, unsigned ndefs,
                      const struct zvs_stmt *stmt, void *ctx, struct zvs_msg_sink *sink);

/* Lexes all of text and dispatches every statement. Returns 0 or -ENOMEM. */
int zvs_parse_text(const char *text, size_t len, const struct zvs_stmtdef *defs,
                   unsigned ndefs, void *ctx, struct zvs_msg_sink *sink);

#endif
