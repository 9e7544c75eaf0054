/* qdio_session: an external guest program's attachment that survives a vswitchd restart.
 *
 * The guest library's convenience for a program on the attach socket (qdio_attach.h): it
 * connects, maps the NIC region and establishes the queues (zvs_qdio_session_open), and
 * when vswitchd goes away (killed, restarted) it attaches again by itself, with bounded
 * retries, to whatever vswitchd serves the socket next, as a real guest's qeth driver
 * re-establishes its queues after the device comes back.
 *
 * Use: poll zvs_qdio_session_fd() (the attach connection) beside the irq fd; when it turns
 * readable or hung up, call zvs_qdio_session_check(). It returns 1 when it re-attached:
 * the guest (zvs_qdio_session_guest) and its irq fd are new, frames that were in the old
 * queues are gone (a restart loses what was in flight, as a real device reset does).
 */
#ifndef ZVS_QDIO_SESSION_H
#define ZVS_QDIO_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "qdio/qdio_guest.h"

#define ZVS_QDIO_SESSION_RETRIES   100  /* attach attempts after the daemon went */
#define ZVS_QDIO_SESSION_RETRY_MS  100  /* between attempts: 10 s in all by default */

struct zvs_qdio_session_opts {
    unsigned retries;                   /* 0: ZVS_QDIO_SESSION_RETRIES */
    unsigned retry_ms;                  /* 0: ZVS_QDIO_SESSION_RETRY_MS */
};

struct zvs_qdio_session;

/* Attach (one attempt: a first attach that fails is the caller's to report) and
 * establish the queues. opts NULL: defaults. Returns 0, or -errno with the daemon's
 * refusal (if any) in err. */
int  zvs_qdio_session_open(const char *path, const char *userid, uint16_t vdev,
                           const struct zvs_qdio_session_opts *opts,
                           struct zvs_qdio_session **out, char *err, size_t errlen);
struct zvs_qdio_guest *zvs_qdio_session_guest(const struct zvs_qdio_session *s);
int  zvs_qdio_session_fd(const struct zvs_qdio_session *s);     /* the attach connection */
int  zvs_qdio_session_irq_fd(const struct zvs_qdio_session *s); /* the thin interrupt */
/* 0: still attached; 1: the daemon had gone and the session is attached again (new guest,
 * new fds); -errno: it had gone and no daemon took the attach within the retries (the
 * session is then detached; check again to retry, or close). Never longer than
 * retries x (retry_ms + 5 s for a daemon that accepts and does not answer). */
int  zvs_qdio_session_check(struct zvs_qdio_session *s);
unsigned zvs_qdio_session_reattaches(const struct zvs_qdio_session *s);
void zvs_qdio_session_close(struct zvs_qdio_session *s);

#endif
