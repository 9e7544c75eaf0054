/* The attach socket: one request line, an answer line, SCM_RIGHTS for the descriptors.
 * Requests are parsed defensively (length-bounded, one line, known words only); the
 * daemon never blocks on a slow client for longer than the accept timeout. */
#include "qdio/qdio_attach.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "dataplane/sockpath.h"

static int make_addr(const char *path, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa->sun_path))
        return -ENAMETOOLONG;
    strcpy(sa->sun_path, path);
    return 0;
}

int zvs_qdio_attach_listen(const char *path)
{
    struct sockaddr_un sa;
    int rc = make_addr(path, &sa);
    if (rc < 0)
        return rc;
    /* A socket a crashed daemon left is replaced; a live daemon's is not taken over. */
    if ((rc = zvs_sockpath_claim(path)) < 0)
        return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    mode_t old = umask(077);            /* the socket is born 0600 */
    rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (rc < 0 || listen(fd, 16) < 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    return fd;
}

static int send_line(int fd, const char *line, const int *fds, int nfds)
{
    struct iovec iov = { .iov_base = (void *)line, .iov_len = strlen(line) };
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (nfds > 0) {
        memset(&u, 0, sizeof(u));
        msg.msg_control = u.buf;
        msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
    }
    return sendmsg(fd, &msg, MSG_NOSIGNAL) == (ssize_t)iov.iov_len ? 0 : -EIO;
}

/* Read one '\n'-terminated line of at most max-1 bytes within timeout_ms. */
static int read_line(int fd, char *buf, size_t max, int timeout_ms)
{
    size_t n = 0;
    while (n + 1 < max) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int pr = poll(&p, 1, timeout_ms);
        if (pr <= 0)
            return pr == 0 ? -ETIMEDOUT : -errno;
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0)
            return r == 0 ? -ECONNRESET : -errno;
        if (buf[n] == '\n') {
            buf[n] = '\0';
            return (int)n;
        }
        n++;
    }
    return -EMSGSIZE;
}

int zvs_qdio_attach_accept(int listen_fd, int timeout_ms, int *client, char userid[9],
                           uint16_t *vdev)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
        (cred.uid != 0 && cred.uid != geteuid())) {
        zvs_qdio_attach_refuse(fd, "not authorized");
        return -EPERM;
    }
    char line[ZVS_QDIO_ATTACH_LINE_MAX], word[16], user[16], dev[16], extra[2];
    int rc = read_line(fd, line, sizeof(line), timeout_ms);
    if (rc < 0) {
        zvs_qdio_attach_refuse(fd, "expected: ATTACH userid vdev");
        return -EINVAL;
    }
    if (sscanf(line, "%15s %15s %15s %1s", word, user, dev, extra) != 3 ||
        strcasecmp(word, "ATTACH") != 0 || strlen(user) > 8 || strlen(dev) > 4) {
        zvs_qdio_attach_refuse(fd, "expected: ATTACH userid vdev");
        return -EINVAL;
    }
    char *end;
    unsigned long v = strtoul(dev, &end, 16);
    if (*end || v > 0xFFFF) {
        zvs_qdio_attach_refuse(fd, "vdev must be 1-4 hex digits");
        return -EINVAL;
    }
    for (size_t i = 0; user[i]; i++)
        userid[i] = (char)toupper((unsigned char)user[i]);
    userid[strlen(user)] = '\0';
    *vdev = (uint16_t)v;
    *client = fd;
    return 0;
}

int zvs_qdio_attach_grant(int client, int memfd, int siga_fd, int irq_fd)
{
    int fds[3] = { memfd, siga_fd, irq_fd };
    return send_line(client, "OK\n", fds, 3);
}

int zvs_qdio_attach_refuse(int client, const char *why)
{
    char line[128];
    snprintf(line, sizeof(line), "ERR %s\n", why);
    int rc = send_line(client, line, NULL, 0);
    close(client);
    return rc;
}

int zvs_qdio_attach_connect(const char *path, const char *userid, uint16_t vdev,
                            int *memfd, int *siga_fd, int *irq_fd, int *session,
                            char *err, size_t errlen)
{
    struct sockaddr_un sa;
    char req[ZVS_QDIO_ATTACH_LINE_MAX], reply[128];
    int rc = make_addr(path, &sa);
    if (err && errlen)
        err[0] = '\0';
    if (rc < 0)
        return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        rc = -errno;
        goto fail;
    }
    /* A daemon that accepted but never answers (stopped mid-start) is not waited for. */
    struct timeval tmo = { .tv_sec = 5 };
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
    snprintf(req, sizeof(req), "ATTACH %.8s %04X\n", userid, vdev);
    if ((rc = send_line(fd, req, NULL, 0)) < 0)
        goto fail;

    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = { .iov_base = reply, .iov_len = sizeof(reply) - 1 };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                          .msg_controllen = sizeof(u.buf) };
    ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (n <= 0) {
        rc = n == 0 ? -ECONNRESET : -errno;
        goto fail;
    }
    reply[n] = '\0';
    reply[strcspn(reply, "\n")] = '\0';
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (strcmp(reply, "OK") != 0 || !c || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(3 * sizeof(int))) {
        if (err && errlen)
            snprintf(err, errlen, "%s", strncmp(reply, "ERR ", 4) == 0 ? reply + 4 : reply);
        rc = -EPERM;
        goto fail;
    }
    int fds[3];
    memcpy(fds, CMSG_DATA(c), sizeof(fds));
    *memfd = fds[0];
    *siga_fd = fds[1];
    *irq_fd = fds[2];
    *session = fd;
    return 0;
fail:
    close(fd);
    return rc;
}
