/* Attaching external guest programs to a NIC's QDIO queues.
 *
 * vswitchd listens on a Unix stream socket (mode 0600). A guest program connects and
 * sends one line, `ATTACH userid vdev`; for a NIC bound with `NICBIND vdev QDIO` the
 * daemon answers `OK` and passes three descriptors with SCM_RIGHTS: the NIC region's
 * memfd, the SIGA eventfd (program -> switch) and the thin-interrupt eventfd (switch ->
 * program). The program maps the region with zvs_qdio_guest_map and drives the queues
 * with the qdio_guest library. The connection stays open for the session: when it
 * closes, the program has detached and the daemon resets the queues for the next one.
 * Anything else gets `ERR text` and the connection is closed.
 *
 * Only the daemon's own user (or root) may attach: the peer's credentials are checked
 * with SO_PEERCRED, since a process with the region can write any frame as that guest.
 */
#ifndef ZVS_QDIO_ATTACH_H
#define ZVS_QDIO_ATTACH_H

#include <stddef.h>
#include <stdint.h>

#define ZVS_QDIO_ATTACH_LINE_MAX 64

/* Daemon side. */
int zvs_qdio_attach_listen(const char *path);           /* listening fd, or -errno */
/* Accept one connection and read its request (blocks at most timeout_ms for the line).
 * On success *client is the connection, userid (upper case, NUL-terminated, 8 chars at
 * most) and *vdev are filled. On a bad request the connection is answered and closed
 * and -EINVAL (-EPERM for a peer that is not allowed) is returned. */
int zvs_qdio_attach_accept(int listen_fd, int timeout_ms, int *client, char userid[9],
                           uint16_t *vdev);
/* Answer OK with the three descriptors, or ERR with a message. */
int zvs_qdio_attach_grant(int client, int memfd, int siga_fd, int irq_fd);
int zvs_qdio_attach_refuse(int client, const char *why);

/* Program side: connect, ask for userid/vdev, receive the descriptors. *session is the
 * connection to keep open while attached (close it to detach). Returns 0, or -errno
 * with the daemon's refusal (if any) in err. */
int zvs_qdio_attach_connect(const char *path, const char *userid, uint16_t vdev,
                            int *memfd, int *siga_fd, int *irq_fd, int *session,
                            char *err, size_t errlen);

#endif
