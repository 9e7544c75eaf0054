/* CP commands typed by an operator or a guest: the grammar (a table of commands and
 * operands with CP's minimum abbreviations), privilege classes, and the parsed form the
 * executor acts on.
 *
 * Split of work: zvs_cmd_parse (command.c) turns one command line into a struct zvs_cmd or
 * a z/VM-style error; it knows nothing of the running system beyond the issuer's privilege
 * classes. The executor (vswitch/daemon_cmd.c, which owns the running switches, port groups
 * and LACP engines) acts on a struct zvs_cmd and writes the response. Responses and errors
 * are lines of text plus a CP return code, collected in struct zvs_cp_response.
 *
 * Commands in this version (more arrive with issue 5):
 *   SET PORT GROUP grp JOIN rdev [rdev ...]        class B
 *   SET PORT GROUP grp LEAVE rdev [rdev ...]       class B
 *   SET PORT GROUP grp LACP ACTIVE | INACTIVE      class B
 *   SET PORT GROUP grp INTERVAL n | OFF            class B   (1-9990)
 *   QUERY PORT GROUP [grp | ALL]                   class B
 *   QUERY LACP [grp | ALL] [DETAILS]               class B   (zvswitch extension)
 *   QUERY VSWITCH [name | ALL] [DETAILS]           class B (G: its own NICs only; later)
 *   SET LACP rdev DROPRX|DROPTX ON|OFF             class A   (zvswitch extension: fault
 *   SET LACP rdev DELAYTX ms                       class A    knobs for tests and drills)
 * Abbreviations: SET stays SET; QUERY may be Q, QU, QUE, QUER; VSWITCH VSW..; PORT, GROUP,
 * LACP, JOIN, LEAVE, INTERVAL (INT), ACTIVE (ACT), INACTIVE (INACT), DETAILS (DET), as CP
 * documents them or, where it does not, the shortest unambiguous prefix listed in the
 * grammar table of command.c.
 */
#ifndef ZVS_COMMAND_H
#define ZVS_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "cp_messages.h"             /* enum zvs_cpmsg_id for zvs_cp_error */

#define ZVS_CMD_LINE_MAX   1024         /* longer command lines are refused */
#define ZVS_CMD_MAX_RDEVS  8

enum zvs_cmd_verb {
    ZVS_CMD_SET_PORT_GROUP,
    ZVS_CMD_QUERY_PORT_GROUP,
    ZVS_CMD_QUERY_LACP,
    ZVS_CMD_QUERY_VSWITCH,
    ZVS_CMD_SET_LACP_FAULT,
};

enum zvs_cmd_pg_op {
    ZVS_CMD_PG_JOIN,
    ZVS_CMD_PG_LEAVE,
    ZVS_CMD_PG_LACP,
    ZVS_CMD_PG_INTERVAL,
};

enum zvs_cmd_fault {
    ZVS_CMD_FAULT_DROPRX,
    ZVS_CMD_FAULT_DROPTX,
    ZVS_CMD_FAULT_DELAYTX,
};

struct zvs_cmd {
    enum zvs_cmd_verb   verb;
    char                name[ZVS_NAME_MAX + 1]; /* group or switch; "" = all / not given */
    bool                details;                /* DETAILS */
    enum zvs_cmd_pg_op  pg_op;                  /* SET PORT GROUP */
    unsigned            nrdev;                  /* JOIN / LEAVE devices, SET LACP: 1 */
    struct zvs_rdev     rdev[ZVS_CMD_MAX_RDEVS];
    bool                lacp_active;            /* LACP ACTIVE (true) / INACTIVE */
    uint32_t            interval_s;             /* INTERVAL n, 0 = OFF */
    enum zvs_cmd_fault  fault;                  /* SET LACP */
    bool                fault_on;               /* DROPRX / DROPTX ON */
    uint32_t            delay_ms;               /* DELAYTX ms (0: off), 0-10000 */
};

/* A response: lines of text ("\n"-terminated) and the CP return code (0 success). */
struct zvs_cp_response {
    char   *text;                       /* NUL-terminated, owned (free with _fini) */
    size_t  len;
    size_t  cap;
    int     rc;
};

void zvs_cp_response_init(struct zvs_cp_response *r);
void zvs_cp_response_fini(struct zvs_cp_response *r);
/* Appends one formatted line (a newline is added). Never fails visibly: on allocation
 * failure the response is marked truncated with a last line saying so. */
void zvs_cp_printf(struct zvs_cp_response *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* An error: "HCPnnnnS text" from the command message catalogue, sets r->rc to the
 * catalogue's return code for it. */
void zvs_cp_error(struct zvs_cp_response *r, int msg, ...);

/* Parses one command line issued by a user with privilege classes `privclass`
 * (ZVS_PRIVCLASS bits). Returns 0 and fills *cmd, or a negative value after writing the
 * error (unknown command, bad operand, missing operand, not authorized) to *r. */
int zvs_cmd_parse(const char *line, uint32_t privclass, struct zvs_cmd *cmd,
                  struct zvs_cp_response *r);

/* ---- additions (command.c) ----------------------------------------------------------- */

/* The canonical text of a parsed command, full keywords, e.g. "SET PORT GROUP CCBGROUP
 * JOIN 28BA 2902" or "QUERY LACP ALL DETAILS"; parsing it gives the same struct. Returns
 * the length it needed (like snprintf); buf gets "" for an unknown verb. */
size_t zvs_cmd_format(const struct zvs_cmd *cmd, char *buf, size_t size);

/* Checks the grammar table: sane keywords and abbreviations, no command path a prefix of
 * another, no token accepted by two alternatives at one position. 0 or -EINVAL. */
int zvs_cmd_grammar_check(void);

#endif
