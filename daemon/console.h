/* The operator console: CP commands over a Unix stream socket, driven by the daemon's
 * event loop (no threads; reads never block; writes are bounded in time).
 *
 * The protocol is in cp-commands/console_protocol.h.
 * The caller watches zvs_console_listen_fd() and every fd zvs_console_accept() returns for
 * EPOLLIN, level-triggered (client_input handles a bounded amount of input per call and
 * relies on being called again while more is queued).
 */
#ifndef ZVS_CONSOLE_H
#define ZVS_CONSOLE_H

#include <stdint.h>
#include <sys/types.h>

#include "cp-commands/command.h"
#include "cp-commands/console_protocol.h"

#define ZVS_CONSOLE_MAX_CLIENTS     16
#define ZVS_CONSOLE_MAX_USERS       256 /* uid map entries (root and the LINUXUSERs) */
#define ZVS_CONSOLE_WRITE_TIMEOUT_MS 2000

struct zvs_console;

/* Runs one command line for `userid` with classes `privclass` (ZVS_PRIVCLASS bits) and
 * writes the response and rc into r (initialised by the console, freed after sending).
 * Must not call zvs_console_close. */
typedef void (*zvs_console_exec_fn)(void *arg, const char *userid, uint32_t privclass,
                                    const char *line, struct zvs_cp_response *r);

/* Creates the listening socket at path (mode 0600). A stale socket at path (nobody
 * listening) is replaced; a live one gives -EADDRINUSE, a path that is not a socket
 * -EEXIST. Returns the console, or NULL with *err = -errno. */
struct zvs_console *zvs_console_open(const char *path, zvs_console_exec_fn exec, void *arg,
                                     int *err);

/* Called with a client's descriptor just before the console closes it (the client left or
 * was dropped), so the caller stops watching it while it is still open: an event loop
 * must remove a descriptor from epoll before it is closed. */
typedef void (*zvs_console_forget_fn)(void *arg, int fd);
void zvs_console_on_forget(struct zvs_console *c, zvs_console_forget_fn fn, void *arg);

/* Closes every client and the listening socket, and unlinks the path. NULL is a no-op. */
void zvs_console_close(struct zvs_console *c);

int zvs_console_listen_fd(const struct zvs_console *c);

/* Accepts one pending connection. Returns its fd (non-blocking, close-on-exec) for the
 * caller to watch, or -errno: -EAGAIN nothing pending, -EACCES unmapped uid and -EBUSY
 * console full (both answered and closed here). */
int zvs_console_accept(struct zvs_console *c);

/* Reads what the client sent; runs every complete line through exec and writes its
 * response. Returns 0, or <0 when the client is gone or was dropped: the console has
 * closed fd and the caller stops watching it. -EBADF when fd is not a client. */
int zvs_console_client_input(struct zvs_console *c, int fd);

/* Gives the socket file to group gid, mode 0660, so that the group's members can
 * connect (those the uid map does not know are still refused, with ZVSCON1101E). Without
 * this call the file stays 0600. 0, -EINVAL for gid (gid_t)-1, or -errno of lstat (the
 * path must still be our socket: -ENOTSOCK otherwise), chown or chmod. */
int zvs_console_set_group(struct zvs_console *c, gid_t gid);

/* Maps uid to a CP userid (1-8 of A-Z 0-9 @ # $, upper-cased) with classes privclass,
 * replacing an earlier mapping of uid; privclass 0 removes the mapping. Connected clients
 * keep the identity they got at accept. 0, -EINVAL, or -ENOSPC. */
int zvs_console_map_user(struct zvs_console *c, uid_t uid, const char *userid,
                         uint32_t privclass);

/* Connected clients (for tests and QUERY output). */
unsigned zvs_console_nclients(const struct zvs_console *c);
/* Clients that asked for unsolicited messages ("\x1eCONSOLE"). */
unsigned zvs_console_nsubscribers(const struct zvs_console *c);

/* An unsolicited message (the protocol's "Unsolicited messages"): `text` is the
 * catalogue's formatted text of `kind` (one or more lines), about the NICs of CP userid
 * `owner` (class G subscribers of that userid get it too) or the system (owner NULL:
 * class A/B subscribers only). now is the loop's clock (the rate limit's), wall_us the
 * time the line carries. Within the kind's rate limit, the text is logged (severity E and
 * W as warnings, I as information) and written to every subscriber allowed to see it;
 * beyond it, only counted. Returns 1 when it went out, 0 when it was suppressed. A
 * subscriber that does not take it within ZVS_CONSOLE_WRITE_TIMEOUT_MS is shut down (its
 * next input event drops it). */
int zvs_console_notify(struct zvs_console *c, enum zvs_cpmsg_id kind, const char *owner,
                       const char *text, uint64_t now, uint64_t wall_us);
/* Ends every rate-limit window that is over at now: a kind with messages not shown
 * reports them (ZVSCON1178W to class A/B subscribers and the log). Called every iteration. */
void zvs_console_notify_flush(struct zvs_console *c, uint64_t now, uint64_t wall_us);

#endif
