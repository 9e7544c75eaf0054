/* sockpath: claiming a Unix socket path at start (console, attach, monitor-live).
 *
 * A daemon killed with SIGKILL leaves its socket files behind. The next one must not be
 * blocked by them, and must not steal the path of one that still runs (two vswitchds on
 * one console would split the operators between them). So: nothing there, or a socket
 * nobody accepts on (connect: ECONNREFUSED), is free (the stale file is removed); a
 * socket that accepts is -EADDRINUSE; anything that is not a socket is -EEXIST.
 */
#ifndef ZVS_SOCKPATH_H
#define ZVS_SOCKPATH_H

/* 0 when path is free for bind(2) now, else -errno (see above). */
int zvs_sockpath_claim(const char *path);

#endif
