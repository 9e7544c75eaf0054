/* CP commands that run virtual machines (issue 13: Hercules machines as z/VM guests).
 * A grammar of its own beside command.h's table, because SEND takes free text and these
 * verbs act on logged-on machines, not on the switch configuration; the executor tries
 * zvs_gcmd_parse first and hands every other line to zvs_cmd_parse.
 *
 *   XAUTOLOG userid                              A, B   (XAUTO)
 *   FORCE userid [IMMED]                         A      (FORCE in full)
 *   SIGNAL SHUTDOWN [USER] userid|ALL [WITHIN s] A, C   (SIG SHUT; s 1-32767)
 *   SEND userid text                             A, B, C
 *   QUERY NAMES                                  G      (Q NAM)
 *   QUERY USERS userid                           G      (Q USER)
 *   QUERY CONSLOG userid [n]                     A, B   (ours: the last n lines of the
 *                                                        machine's console log, 1-500,
 *                                                        default 20)
 * Classes as IBM's CP Commands and Utilities Reference gives them for XAUTOLOG, FORCE,
 * SIGNAL (A, C; class G's own-machine form is not offered) and SEND; QUERY NAMES and
 * QUERY USERS are class G here (UNCONFIRMED). SIGNAL's BY time and XAUTOLOG's options
 * (ASYNCH, PASSWORD, ...) are refused as invalid options.
 */
#ifndef ZVS_GUEST_COMMAND_H
#define ZVS_GUEST_COMMAND_H

#include <stdbool.h>
#include <stdint.h>

#include "cp-commands/command.h"

enum zvs_gcmd_verb {
    ZVS_GCMD_XAUTOLOG,
    ZVS_GCMD_FORCE,
    ZVS_GCMD_SIGNAL_SHUTDOWN,           /* userid ("" = ALL), within_s */
    ZVS_GCMD_SEND,                      /* userid, text */
    ZVS_GCMD_QUERY_NAMES,
    ZVS_GCMD_QUERY_USERS,               /* userid */
    ZVS_GCMD_QUERY_CONSLOG,             /* userid, lines */
};

#define ZVS_GCMD_WITHIN_DEFAULT 300     /* SIGNAL SHUTDOWN without WITHIN (our default) */
#define ZVS_GCMD_CONSLOG_DEFAULT 20
#define ZVS_GCMD_CONSLOG_MAX    500

struct zvs_gcmd {
    enum zvs_gcmd_verb verb;
    char               userid[ZVS_USERID_MAX + 1];
    uint32_t           within_s;        /* SIGNAL SHUTDOWN */
    uint32_t           lines;           /* QUERY CONSLOG */
    char               text[ZVS_CMD_LINE_MAX + 1]; /* SEND: the rest of the line, as typed */
};

/* 1: a machine command, *out filled (every byte); 0: not one of these verbs (nothing
 * written); <0: one of these verbs with an error, written to r, *out untouched. */
int zvs_gcmd_parse(const char *line, uint32_t privclass, struct zvs_gcmd *out,
                   struct zvs_cp_response *r);

#endif
