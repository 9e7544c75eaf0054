/* Control socket of the switch model (see sm_ctl.h).
 *
 * Design note: at most SM_CTL_CLIENTS connections, each with a bounded line buffer (a
 * longer line is answered with an error and discarded). A response is built in memory
 * (open_memstream) and written with a bounded wait, so a stuck client cannot hold the
 * switch for more than a moment; it is then disconnected.
 */
#include "tests/switchmodel/sm_ctl.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "dataplane/log.h"

#define SM_CTL_CLIENTS 8
#define SM_CTL_LINE    512
#define SM_CTL_WRITE_MS 2000

struct ctl_client {
    int fd;                             /* -1: slot free */
    size_t len;                         /* bytes in line */
    bool overflow;                      /* discarding a line too long */
    char line[SM_CTL_LINE];
};

struct sm_ctl {
    int fd;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    struct sm_switch *sw;
    struct zvs_evloop *loop;
    struct ctl_client c[SM_CTL_CLIENTS];
};

static void client_close(struct sm_ctl *ctl, struct ctl_client *c)
{
    if (c->fd < 0)
        return;
    (void)zvs_evloop_del_fd(ctl->loop, c->fd);
    close(c->fd);
    c->fd = -1;
    c->len = 0;
    c->overflow = false;
}

/* Write all of buf, waiting a bounded time when the socket is full. */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            buf += w;
            len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            if (poll(&p, 1, SM_CTL_WRITE_MS) > 0)
                continue;
        }
        return -EIO;
    }
    return 0;
}

static int respond(struct sm_ctl *ctl, struct ctl_client *c, const char *cmd)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return -ENOMEM;
    if (cmd)
        (void)sm_switch_command(ctl->sw, cmd, m);
    else
        fprintf(m, "%% Command too long\n");
    fprintf(m, ".\n");
    fclose(m);
    int rc = write_all(c->fd, text, len);
    free(text);
    return rc;
}

static void on_client(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct sm_ctl *ctl = arg;
    struct ctl_client *c = NULL;
    for (int i = 0; i < SM_CTL_CLIENTS; i++)
        if (ctl->c[i].fd == fd)
            c = &ctl->c[i];
    if (!c)
        return;
    char buf[512];
    ssize_t r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (r <= 0) {
        client_close(ctl, c);
        return;
    }
    for (ssize_t i = 0; i < r; i++) {
        if (buf[i] != '\n') {
            if (c->len + 1 < sizeof(c->line))
                c->line[c->len++] = buf[i];
            else
                c->overflow = true;
            continue;
        }
        c->line[c->len] = '\0';
        int rc = respond(ctl, c, c->overflow ? NULL : c->line);
        c->len = 0;
        c->overflow = false;
        if (rc < 0) {
            client_close(ctl, c);
            return;
        }
    }
}

static void on_accept(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct sm_ctl *ctl = arg;
    int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0)
        return;
    for (int i = 0; i < SM_CTL_CLIENTS; i++) {
        if (ctl->c[i].fd >= 0)
            continue;
        if (zvs_evloop_add_fd(ctl->loop, cfd, EPOLLIN, on_client, ctl) < 0)
            break;
        ctl->c[i].fd = cfd;
        ctl->c[i].len = 0;
        ctl->c[i].overflow = false;
        return;
    }
    zvs_warn("control: too many connections");
    close(cfd);
}

struct sm_ctl *sm_ctl_open(const char *path, struct sm_switch *sw, struct zvs_evloop *loop,
                           int *err)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int rc = -ENAMETOOLONG;
    struct sm_ctl *ctl = calloc(1, sizeof(*ctl));
    if (!ctl) {
        rc = -ENOMEM;
        goto fail;
    }
    ctl->fd = -1;
    ctl->sw = sw;
    ctl->loop = loop;
    for (int i = 0; i < SM_CTL_CLIENTS; i++)
        ctl->c[i].fd = -1;
    if (strlen(path) >= sizeof(sa.sun_path))
        goto fail;
    snprintf(ctl->path, sizeof(ctl->path), "%s", path);
    memcpy(sa.sun_path, path, strlen(path) + 1);
    ctl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (ctl->fd < 0) {
        rc = -errno;
        goto fail;
    }
    (void)unlink(path);
    if (bind(ctl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ctl->fd, 8) < 0) {
        rc = -errno;
        goto fail;
    }
    if ((rc = zvs_evloop_add_fd(loop, ctl->fd, EPOLLIN, on_accept, ctl)) < 0)
        goto fail;
    return ctl;
fail:
    if (ctl) {
        if (ctl->fd >= 0)
            close(ctl->fd);
        free(ctl);
    }
    if (err)
        *err = rc;
    return NULL;
}

void sm_ctl_close(struct sm_ctl *ctl)
{
    if (!ctl)
        return;
    for (int i = 0; i < SM_CTL_CLIENTS; i++)
        client_close(ctl, &ctl->c[i]);
    (void)zvs_evloop_del_fd(ctl->loop, ctl->fd);
    close(ctl->fd);
    (void)unlink(ctl->path);
    free(ctl);
}

int sm_ctl_client(const char *path, const char *command, FILE *out, int timeout_ms)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int rc = 0, fd = -1;
    char buf[4096], line[1024];
    size_t ll = 0;
    bool refused = false, first = true, done = false;

    if (strlen(path) >= sizeof(sa.sun_path) || strchr(command, '\n'))
        return -EINVAL;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        rc = -errno;
        goto out;
    }
    if ((rc = write_all(fd, command, strlen(command))) < 0 || (rc = write_all(fd, "\n", 1)) < 0)
        goto out;
    while (!done) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int pr = poll(&p, 1, timeout_ms);
        if (pr <= 0) {
            rc = pr == 0 ? -ETIMEDOUT : -errno;
            goto out;
        }
        ssize_t r = recv(fd, buf, sizeof(buf), 0);
        if (r <= 0) {
            rc = r == 0 ? -ECONNRESET : -errno;
            goto out;
        }
        for (ssize_t i = 0; i < r && !done; i++) {
            if (buf[i] != '\n') {
                if (ll + 1 < sizeof(line))
                    line[ll++] = buf[i];
                continue;
            }
            line[ll] = '\0';
            ll = 0;
            if (strcmp(line, ".") == 0) {
                done = true;
                break;
            }
            if (first && line[0] == '%')
                refused = true;
            first = false;
            fprintf(out, "%s\n", line);
        }
    }
    rc = refused ? 1 : 0;
out:
    close(fd);
    return rc;
}
