/* The operator console's wire protocol, shared by the server (daemon/console.c) and its
 * clients (tools/vmcp.c).
 *
 * Protocol (one connection may carry any number of commands, one at a time or pipelined):
 *   client -> server  one command line terminated by "\n" (a "\r" before it is dropped).
 *                     At most ZVS_CMD_LINE_MAX bytes before the "\n"; a longer line is
 *                     discarded up to its "\n" and answered with HCP1102E. A line with a
 *                     NUL byte is answered with HCP1107E. Neither reaches exec.
 *   server -> client  the response lines ("\n"-terminated, never an RS byte), then the
 *                     terminator line "\x1eRC=<n>\n": ASCII RS (0x1E), "RC=", the CP return
 *                     code in decimal. Responses come in the order of the lines.
 *   Identity          at accept, the peer's kernel credentials (SO_PEERCRED) give its uid;
 *                     the uid map gives the CP userid and privilege classes the commands
 *                     run with. Default map: uid 0 -> OPERATOR, classes A-G; more come
 *                     from the USER DIRECT's LINUXUSER statements (console_users.h). An
 *                     unmapped uid gets one line (HCP1101E) and a terminator with rc
 *                     1101, and is closed. When ZVS_CONSOLE_MAX_CLIENTS are connected, a
 *                     newcomer gets HCP1106E (rc 1106) and is closed.
 *   Who may connect   the socket file is mode 0600 (root only), or 0660 with a group
 *                     (zvs_console_set_group): the file mode keeps strangers out before
 *                     they reach the uid map, which still decides for everyone who does.
 *   End               a client closing its side mid-line: the partial line is dropped
 *                     (never executed). A client that does not read its responses for
 *                     ZVS_CONSOLE_WRITE_TIMEOUT_MS is dropped.
 */
#ifndef ZVS_CONSOLE_PROTOCOL_H
#define ZVS_CONSOLE_PROTOCOL_H

#include "cp-commands/command.h"         /* ZVS_CMD_LINE_MAX */

#define ZVS_CONSOLE_RS              '\x1e'  /* first byte of the terminator line */
#define ZVS_CONSOLE_DEFAULT_PATH    "/run/zvswitch/console.sock"

#endif
