/* The operator console's wire protocol, shared by the server (daemon/console.c) and its
 * clients (tools/vmcp.c).
 *
 * Protocol (one connection may carry any number of commands, one at a time or pipelined):
 *   client -> server  one command line terminated by "\n" (a "\r" before it is dropped).
 *                     At most ZVS_CMD_LINE_MAX bytes before the "\n"; a longer line is
 *                     discarded up to its "\n" and answered with ZVSCMD1102E. A line with a
 *                     NUL byte is answered with ZVSCON1107E. Neither reaches exec.
 *   server -> client  the response lines ("\n"-terminated, never an RS byte), then the
 *                     terminator line "\x1eRC=<n>\n": ASCII RS (0x1E), "RC=", the CP return
 *                     code in decimal. Responses come in the order of the lines.
 *   Identity          at accept, the peer's kernel credentials (SO_PEERCRED) give its uid;
 *                     the uid map gives the CP userid and privilege classes the commands
 *                     run with. Default map: uid 0 -> OPERATOR, classes A-G; more come
 *                     from the USER DIRECT's LINUXUSER statements (console_users.h). An
 *                     unmapped uid gets one line (ZVSCON1101E) and a terminator with rc
 *                     1101, and is closed. When ZVS_CONSOLE_MAX_CLIENTS are connected, a
 *                     newcomer gets ZVSCON1106E (rc 1106) and is closed.
 *   Who may connect   the socket file is mode 0600 (root only), or 0660 with a group
 *                     (zvs_console_set_group): the file mode keeps strangers out before
 *                     they reach the uid map, which still decides for everyone who does.
 *   Unsolicited       a client that sends the request line "\x1eCONSOLE\n" (RS first: no
 *   messages          CP command begins with it) gets the terminator "\x1eRC=0\n" and is
 *                     from then on a subscriber, like an operator's console: what happens
 *                     (an uplink or a port group member fails or recovers, a VSWITCH
 *                     becomes ready or loses its uplink, a NIC is coupled or uncoupled)
 *                     comes as lines "\x1eMSG <seconds>.<microseconds> <message>\n", the
 *                     time (since 1970, UTC) when it happened, written only between two
 *                     responses, never inside one. A client that never asked never gets
 *                     one, so an old client is unaffected. The messages are the catalogue's
 *                     (cp_messages.h: HCPSWU2830I, HCPSWU2832E, ZVSVSW1170E-ZVSCON1178W); each
 *                     also goes to the daemon's log. Who gets what: a subscriber with
 *                     class A or B every message; one with class G (and neither A nor B)
 *                     only those about its own NICs (ZVSNIC1176I/ZVSNIC1177I of its userid).
 *                     Rate limit, per message kind (catalogue entry) for all subscribers
 *                     and the log alike: at most ZVS_CONSOLE_MSG_BURST in a window of
 *                     ZVS_CONSOLE_MSG_WINDOW_S seconds from the first; the rest are counted
 *                     and, when the window is over, reported to class A/B subscribers and
 *                     the log as "ZVSCON1178W n ID message(s) not shown: more than
 *                     <burst> in <window> seconds". Any other line beginning with RS is
 *                     answered with HCPCMD001E.
 *   End               a client closing its side mid-line: the partial line is dropped
 *                     (never executed). A client that does not read its responses for
 *                     ZVS_CONSOLE_WRITE_TIMEOUT_MS is dropped.
 */
#ifndef ZVS_CONSOLE_PROTOCOL_H
#define ZVS_CONSOLE_PROTOCOL_H

#include "cp-commands/command.h"         /* ZVS_CMD_LINE_MAX */

#define ZVS_CONSOLE_RS              '\x1e'  /* first byte of the terminator line */
#define ZVS_CONSOLE_DEFAULT_PATH    "/run/zvswitch/console.sock"
#define ZVS_CONSOLE_REQ_SUBSCRIBE   "\x1e" "CONSOLE"   /* the request line, without "\n" */
#define ZVS_CONSOLE_MSG_PREFIX      "\x1e" "MSG "      /* an unsolicited message line */
#define ZVS_CONSOLE_MSG_BURST       10      /* messages of one kind per window */
#define ZVS_CONSOLE_MSG_WINDOW_S    60      /* seconds */

#endif
