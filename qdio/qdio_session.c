/* qdio_session: attach, and attach again after vswitchd restarts (see qdio_session.h).
 *
 * The daemon going away is seen on the attach connection: the kernel closes it with the
 * process, so it polls readable (EOF) or hung up. Anything the daemon itself sends on it
 * would also make it readable; the protocol has nothing after OK, so any byte or EOF
 * means the session is over. The retries sleep in the caller's thread: the program has
 * nothing to drive meanwhile (its queues belong to a dead switch).
 */
#include "qdio/qdio_session.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "qdio/qdio_attach.h"

struct zvs_qdio_session {
    char                   path[108];
    char                   userid[9];
    uint16_t               vdev;
    unsigned               retries, retry_ms;
    int                    memfd, siga_fd, irq_fd, conn;   /* -1 while detached */
    struct zvs_qdio_guest *g;
    unsigned               reattaches;
};

static void detach(struct zvs_qdio_session *s)
{
    zvs_qdio_guest_detach(s->g);
    s->g = NULL;
    int *fds[] = { &s->memfd, &s->siga_fd, &s->irq_fd, &s->conn };
    for (unsigned i = 0; i < sizeof fds / sizeof fds[0]; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
}

static int attach(struct zvs_qdio_session *s, char *err, size_t errlen)
{
    int rc = zvs_qdio_attach_connect(s->path, s->userid, s->vdev, &s->memfd, &s->siga_fd,
                                     &s->irq_fd, &s->conn, err, errlen);
    if (rc < 0)
        return rc;
    if ((rc = zvs_qdio_guest_map(s->memfd, s->siga_fd, s->irq_fd, &s->g)) < 0 ||
        (rc = zvs_qdio_guest_init_queues(s->g)) < 0) {
        detach(s);
        return rc;
    }
    return 0;
}

int zvs_qdio_session_open(const char *path, const char *userid, uint16_t vdev,
                          const struct zvs_qdio_session_opts *opts,
                          struct zvs_qdio_session **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!path || !userid || strlen(path) >= sizeof((struct zvs_qdio_session *)0)->path ||
        strlen(userid) > 8)
        return -EINVAL;
    struct zvs_qdio_session *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(s->userid, sizeof s->userid, "%s", userid);
    s->vdev = vdev;
    s->retries = opts && opts->retries ? opts->retries : ZVS_QDIO_SESSION_RETRIES;
    s->retry_ms = opts && opts->retry_ms ? opts->retry_ms : ZVS_QDIO_SESSION_RETRY_MS;
    s->memfd = s->siga_fd = s->irq_fd = s->conn = -1;
    int rc = attach(s, err, errlen);
    if (rc < 0) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

struct zvs_qdio_guest *zvs_qdio_session_guest(const struct zvs_qdio_session *s)
{
    return s->g;
}

int zvs_qdio_session_fd(const struct zvs_qdio_session *s)
{
    return s->conn;
}

int zvs_qdio_session_irq_fd(const struct zvs_qdio_session *s)
{
    return s->irq_fd;
}

unsigned zvs_qdio_session_reattaches(const struct zvs_qdio_session *s)
{
    return s->reattaches;
}

int zvs_qdio_session_check(struct zvs_qdio_session *s)
{
    if (s->conn >= 0) {
        struct pollfd p = { .fd = s->conn, .events = POLLIN };
        if (poll(&p, 1, 0) == 0)
            return 0;                   /* the daemon is still there */
        detach(s);
    }
    int rc = -ECONNREFUSED;
    for (unsigned i = 0; i < s->retries; i++) {
        struct timespec ts = { .tv_sec = s->retry_ms / 1000,
                               .tv_nsec = (long)(s->retry_ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);           /* first: the old daemon's socket may still answer */
        if ((rc = attach(s, NULL, 0)) == 0) {
            s->reattaches++;
            return 1;
        }
    }
    return rc;
}

void zvs_qdio_session_close(struct zvs_qdio_session *s)
{
    if (!s)
        return;
    detach(s);
    free(s);
}
