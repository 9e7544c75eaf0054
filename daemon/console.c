/* The operator console (protocol in console.h).
 *
 * Owns: the listening Unix socket (its file's group and mode: 0600, or 0660 for a console
 * group), up to ZVS_CONSOLE_MAX_CLIENTS connected clients with their line buffers, and the
 * uid -> CP userid map (filled from USER DIRECT by console_users.c). It turns bytes into
 * command lines and responses into bytes; what a command does is exec's business.
 *
 * Rules: every fd is non-blocking; input is handled in bounded slices (INPUT_BUDGET per
 * call, level-triggered readiness brings us back); a response is written with poll()
 * under a deadline of ZVS_CONSOLE_WRITE_TIMEOUT_MS, and a client that does not take it
 * in time is dropped, so one stuck client stalls the daemon at most that long. Writes use
 * MSG_NOSIGNAL (a vanished client is an error code, not SIGPIPE). The identity is taken
 * once, at accept, from SO_PEERCRED: the kernel's word, not the client's.
 * Unsolicited messages (zvs_console_notify): written to subscribers between responses
 * (everything runs on the loop's one thread, so never inside one), under the same write
 * deadline; the per-kind rate limit lives here so that the log and every console see the
 * same messages and the same "not shown" reports.
 * Hazards: exec runs inside client_input; it must not close the console. A response is
 * scanned for RS bytes once more before sending (zvs_cp_printf already replaces them),
 * because the terminator is the only framing.
 */
#include "daemon/console.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cp-commands/tokens.h"
#include "dataplane/sockpath.h"
#include "daemon/evloop.h"
#include "dataplane/log.h"

#define INPUT_BUDGET (64u * 1024)       /* bytes read per client_input call */

struct console_user {
    uid_t    uid;
    char     userid[ZVS_USERID_MAX + 1];
    uint32_t privclass;
};

struct console_client {
    int      fd;                        /* -1: slot free */
    char     userid[ZVS_USERID_MAX + 1];
    uint32_t privclass;
    size_t   len;                       /* bytes in line */
    bool     overlong;                  /* discarding up to the next "\n" */
    bool     subscribed;                /* gets unsolicited messages */
    char     line[ZVS_CMD_LINE_MAX + 2];/* the line, a possible "\r", room for the NUL */
};

/* One message kind's rate-limit window. */
struct notify_window {
    uint64_t start;                     /* the window's first message (0: none open) */
    uint32_t shown;                     /* messages that went out in it */
    uint32_t suppressed;                /* messages counted, not shown */
};

struct zvs_console {
    int                   lfd;
    char                  path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    zvs_console_exec_fn   exec;
    void                 *arg;
    zvs_console_forget_fn forget;       /* told before a client's descriptor closes */
    void                 *forget_arg;
    unsigned              nusers;
    struct console_user   user[ZVS_CONSOLE_MAX_USERS];
    unsigned              nclients;
    struct console_client client[ZVS_CONSOLE_MAX_CLIENTS];
    struct notify_window  window[ZVS_CPMSG_COUNT];
};

/* ---- setup --------------------------------------------------------------------------- */

static uint32_t classes_a_to_g(void)
{
    uint32_t m = 0;
    for (char ch = 'A'; ch <= 'G'; ch++)
        m |= ZVS_PRIVCLASS(ch);
    return m;
}

struct zvs_console *zvs_console_open(const char *path, zvs_console_exec_fn exec, void *arg,
                                     int *err)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct zvs_console *c = NULL;
    int e = 0;

    if (path == NULL || exec == NULL || path[0] == '\0') {
        e = -EINVAL;
        goto fail;
    }
    if (strlen(path) >= sizeof sa.sun_path) {
        e = -ENAMETOOLONG;
        goto fail;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    c = calloc(1, sizeof *c);
    if (c == NULL) {
        e = -ENOMEM;
        goto fail;
    }
    c->lfd = -1;
    c->exec = exec;
    c->arg = arg;
    memcpy(c->path, path, strlen(path) + 1);
    for (unsigned i = 0; i < ZVS_CONSOLE_MAX_CLIENTS; i++)
        c->client[i].fd = -1;
    c->user[0] = (struct console_user){ .uid = 0, .userid = "OPERATOR",
                                        .privclass = classes_a_to_g() };
    c->nusers = 1;
    if ((e = zvs_sockpath_claim(path)) < 0) /* stale: replaced; live: refused */
        goto fail;
    c->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->lfd < 0) {
        e = -errno;
        goto fail;
    }
    /* 0600 from the start: the umask closes the window between bind and chmod. */
    mode_t old = umask(0177);
    int rc = bind(c->lfd, (const struct sockaddr *)&sa, sizeof sa);
    e = -errno;
    umask(old);
    if (rc < 0)
        goto fail;
    if (chmod(path, 0600) < 0 || listen(c->lfd, ZVS_CONSOLE_MAX_CLIENTS) < 0) {
        e = -errno;
        unlink(path);
        goto fail;
    }
    return c;

fail:
    if (c != NULL) {
        if (c->lfd >= 0)
            close(c->lfd);
        free(c);
    }
    if (err != NULL)
        *err = e;
    return NULL;
}

void zvs_console_on_forget(struct zvs_console *c, zvs_console_forget_fn fn, void *arg)
{
    c->forget = fn;
    c->forget_arg = arg;
}

void zvs_console_close(struct zvs_console *c)
{
    if (c == NULL)
        return;
    for (unsigned i = 0; i < ZVS_CONSOLE_MAX_CLIENTS; i++)
        if (c->client[i].fd >= 0)
            close(c->client[i].fd);
    if (c->lfd >= 0) {
        close(c->lfd);
        unlink(c->path);
    }
    free(c);
}

int zvs_console_listen_fd(const struct zvs_console *c)
{
    return c->lfd;
}

unsigned zvs_console_nclients(const struct zvs_console *c)
{
    return c->nclients;
}

unsigned zvs_console_nsubscribers(const struct zvs_console *c)
{
    unsigned n = 0;
    for (unsigned i = 0; i < ZVS_CONSOLE_MAX_CLIENTS; i++)
        n += c->client[i].fd >= 0 && c->client[i].subscribed;
    return n;
}

int zvs_console_set_group(struct zvs_console *c, gid_t gid)
{
    struct stat st;

    if (gid == (gid_t)-1)
        return -EINVAL;
    if (lstat(c->path, &st) < 0)
        return -errno;
    if (!S_ISSOCK(st.st_mode))
        return -ENOTSOCK;
    /* Group first, then the mode: the group never gets rights before it is ours. */
    if (chown(c->path, (uid_t)-1, gid) < 0 || chmod(c->path, 0660) < 0)
        return -errno;
    return 0;
}

int zvs_console_map_user(struct zvs_console *c, uid_t uid, const char *userid,
                         uint32_t privclass)
{
    char name[ZVS_USERID_MAX + 1];
    unsigned i;

    for (i = 0; i < c->nusers && c->user[i].uid != uid; i++)
        ;
    if (privclass == 0) {
        if (i < c->nusers)
            c->user[i] = c->user[--c->nusers];
        return 0;
    }
    if (userid == NULL || zvs_parse_name(userid, name) < 0)
        return -EINVAL;
    if (i == c->nusers) {
        if (c->nusers == ZVS_CONSOLE_MAX_USERS)
            return -ENOSPC;
        c->nusers++;
    }
    c->user[i].uid = uid;
    memcpy(c->user[i].userid, name, sizeof name);
    c->user[i].privclass = privclass;
    return 0;
}

/* ---- output -------------------------------------------------------------------------- */

/* A bound on how long a write to a client may block: real time even on a virtual loop
 * (the client is a real process), read through evloop.h, the daemon's one clock reader. */
static int64_t now_ms(void)
{
    return (int64_t)(zvs_clock_now() / 1000000u);
}

/* Writes all of buf before the deadline. 0 or -errno (-ETIMEDOUT: the client does not
 * read). */
static int write_all(int fd, const char *buf, size_t len, int64_t deadline)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -errno;
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        int rc = poll(&pfd, 1, (int)left);
        if (rc < 0 && errno != EINTR)
            return -errno;
    }
    return 0;
}

/* Sends a response: its lines (a missing last newline added, RS bytes made '?') and the
 * terminator. 0 or -errno. */
static int send_response(int fd, struct zvs_cp_response *r)
{
    int64_t deadline = now_ms() + ZVS_CONSOLE_WRITE_TIMEOUT_MS;
    char term[32];
    int rc;

    for (size_t i = 0; i < r->len; i++)
        if (r->text[i] == ZVS_CONSOLE_RS)
            r->text[i] = '?';
    if ((rc = write_all(fd, r->text, r->len, deadline)) < 0)
        return rc;
    int n = snprintf(term, sizeof term, "%s%cRC=%d\n",
                     r->len > 0 && r->text[r->len - 1] != '\n' ? "\n" : "",
                     ZVS_CONSOLE_RS, r->rc);
    assert(n > 0 && (size_t)n < sizeof term);
    return write_all(fd, term, (size_t)n, deadline);
}

/* A one-message response (console errors: no command runs). */
static int send_error(int fd, enum zvs_cpmsg_id id, const char *arg)
{
    struct zvs_cp_response r;
    zvs_cp_response_init(&r);
    if (zvs_cpmsg_nargs(id) == 0)
        zvs_cp_error(&r, id);
    else
        zvs_cp_error(&r, id, arg);
    int rc = send_response(fd, &r);
    zvs_cp_response_fini(&r);
    return rc;
}

/* ---- clients ------------------------------------------------------------------------- */

static struct console_client *find_client(struct zvs_console *c, int fd)
{
    if (fd < 0)
        return NULL;
    for (unsigned i = 0; i < ZVS_CONSOLE_MAX_CLIENTS; i++)
        if (c->client[i].fd == fd)
            return &c->client[i];
    return NULL;
}

static void drop_client(struct zvs_console *c, struct console_client *cl)
{
    assert(cl->fd >= 0 && c->nclients > 0);
    if (c->forget)
        c->forget(c->forget_arg, cl->fd);   /* while the descriptor is still open */
    close(cl->fd);
    cl->fd = -1;
    c->nclients--;
}

int zvs_console_accept(struct zvs_console *c)
{
    struct ucred cred;
    socklen_t clen = sizeof cred;
    char num[24];
    int fd;

    do
        fd = accept4(c->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    const struct console_user *u = NULL;
    for (unsigned i = 0; i < c->nusers; i++)
        if (c->user[i].uid == cred.uid)
            u = &c->user[i];
    if (u == NULL) {
        snprintf(num, sizeof num, "%lu", (unsigned long)cred.uid);
        send_error(fd, ZVS_CPMSG_CONSOLE_DENIED, num);
        close(fd);
        return -EACCES;
    }
    struct console_client *cl = NULL;
    for (unsigned i = 0; cl == NULL && i < ZVS_CONSOLE_MAX_CLIENTS; i++)
        if (c->client[i].fd < 0)
            cl = &c->client[i];
    if (cl == NULL) {
        snprintf(num, sizeof num, "%u", (unsigned)ZVS_CONSOLE_MAX_CLIENTS);
        send_error(fd, ZVS_CPMSG_CONSOLE_BUSY, num);
        close(fd);
        return -EBUSY;
    }
    cl->fd = fd;
    memcpy(cl->userid, u->userid, sizeof cl->userid);
    cl->privclass = u->privclass;
    cl->len = 0;
    cl->overlong = false;
    cl->subscribed = false;
    c->nclients++;
    return fd;
}

/* Answers one complete line (without its "\n"). 0 or -errno from the write. */
static int handle_line(struct zvs_console *c, struct console_client *cl)
{
    struct zvs_cp_response r;
    char num[24];
    int rc;

    if (!cl->overlong && cl->len > 0 && cl->line[cl->len - 1] == '\r')
        cl->len--;
    if (cl->overlong || cl->len > ZVS_CMD_LINE_MAX) {
        snprintf(num, sizeof num, "%u", (unsigned)ZVS_CMD_LINE_MAX);
        rc = send_error(cl->fd, ZVS_CPMSG_LINE_TOO_LONG, num);
    } else if (memchr(cl->line, '\0', cl->len) != NULL) {
        rc = send_error(cl->fd, ZVS_CPMSG_LINE_CHAR_INVALID, "X'00'");
    } else if (cl->len > 0 && cl->line[0] == ZVS_CONSOLE_RS) {
        /* A console request, not a CP command. */
        cl->line[cl->len] = '\0';
        if (strcmp(cl->line, ZVS_CONSOLE_REQ_SUBSCRIBE) == 0) {
            zvs_cp_response_init(&r);
            rc = send_response(cl->fd, &r);
            zvs_cp_response_fini(&r);
            cl->subscribed = rc == 0;
        } else {
            rc = send_error(cl->fd, ZVS_CPMSG_UNKNOWN_COMMAND, cl->line);
        }
    } else {
        cl->line[cl->len] = '\0';
        zvs_cp_response_init(&r);
        c->exec(c->arg, cl->userid, cl->privclass, cl->line, &r);
        rc = send_response(cl->fd, &r);
        zvs_cp_response_fini(&r);
    }
    cl->len = 0;
    cl->overlong = false;
    return rc;
}

/* Feeds received bytes into the line buffer, answering each complete line. */
static int feed(struct zvs_console *c, struct console_client *cl, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            int rc = handle_line(c, cl);
            if (rc < 0)
                return rc;
        } else if (cl->overlong) {
            continue;
        } else if (cl->len == ZVS_CMD_LINE_MAX + 1) {
            cl->overlong = true;        /* MAX bytes and a possible "\r" are the most */
        } else {
            cl->line[cl->len++] = p[i];
        }
    }
    return 0;
}

int zvs_console_client_input(struct zvs_console *c, int fd)
{
    struct console_client *cl = find_client(c, fd);
    char buf[4096];
    size_t total = 0;
    int rc = 0;

    if (cl == NULL)
        return -EBADF;
    while (total < INPUT_BUDGET) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0) {
            rc = -errno;
            break;
        }
        if (n == 0) {
            rc = -ECONNRESET;           /* gone; a partial line is dropped unexecuted */
            break;
        }
        total += (size_t)n;
        if ((rc = feed(c, cl, buf, (size_t)n)) < 0)
            break;
    }
    if (rc == 0)
        return 0;                       /* budget used; called again while input waits */
    drop_client(c, cl);
    return rc;
}

/* ---- unsolicited messages ------------------------------------------------------------ */

#define WINDOW_NS ((uint64_t)ZVS_CONSOLE_MSG_WINDOW_S * 1000000000ull)

/* May this client see a message about owner's NICs (owner NULL: the system)? */
static bool may_see(const struct console_client *cl, const char *owner)
{
    if (cl->privclass & (ZVS_PRIVCLASS('A') | ZVS_PRIVCLASS('B')))
        return true;
    return owner != NULL && (cl->privclass & ZVS_PRIVCLASS('G')) &&
           strcmp(cl->userid, owner) == 0;
}

/* Each line of text as "\x1eMSG <time> <line>\n" to every subscriber that may see it. */
static void broadcast(struct zvs_console *c, const char *owner, const char *text,
                      uint64_t wall_us)
{
    char stamp[48];
    int sn = snprintf(stamp, sizeof stamp, "%s%llu.%06llu ", ZVS_CONSOLE_MSG_PREFIX,
                      (unsigned long long)(wall_us / 1000000u),
                      (unsigned long long)(wall_us % 1000000u));
    assert(sn > 0 && (size_t)sn < sizeof stamp);
    for (unsigned i = 0; i < ZVS_CONSOLE_MAX_CLIENTS; i++) {
        struct console_client *cl = &c->client[i];
        if (cl->fd < 0 || !cl->subscribed || !may_see(cl, owner))
            continue;
        int64_t deadline = now_ms() + ZVS_CONSOLE_WRITE_TIMEOUT_MS;
        int rc = 0;
        for (const char *p = text; rc == 0 && *p != '\0'; ) {
            size_t n = strcspn(p, "\n");
            rc = write_all(cl->fd, stamp, (size_t)sn, deadline);
            if (rc == 0)
                rc = write_all(cl->fd, p, n, deadline);
            if (rc == 0)
                rc = write_all(cl->fd, "\n", 1, deadline);
            p += n + (p[n] == '\n');
        }
        if (rc < 0) {
            /* Not dropped here: the loop still watches the fd. Shut down, its next input
             * event reads the end and client_input drops it. */
            cl->subscribed = false;
            shutdown(cl->fd, SHUT_RDWR);
        }
    }
}

static void log_text(char severity, const char *text)
{
    enum zvs_log_level level = severity == 'I' ? ZVS_LOG_INFO : ZVS_LOG_WARN;
    for (const char *p = text; *p != '\0'; ) {
        int n = (int)strcspn(p, "\n");
        zvs_log(level, "%.*s", n, p);
        p += n + (p[n] == '\n');
    }
}

/* The kind's window is over: report what it did not show, and close it. */
static void window_end(struct zvs_console *c, enum zvs_cpmsg_id kind, uint64_t wall_us)
{
    struct notify_window *w = &c->window[kind];
    if (w->suppressed > 0) {
        char count[16], id[24], burst[16], secs[16], text[ZVS_CPMSG_TEXT_MAX];
        snprintf(count, sizeof count, "%u", w->suppressed);
        zvs_cpmsg_id(id, sizeof id, kind, NULL);
        snprintf(burst, sizeof burst, "%u", (unsigned)ZVS_CONSOLE_MSG_BURST);
        snprintf(secs, sizeof secs, "%u", (unsigned)ZVS_CONSOLE_MSG_WINDOW_S);
        const char *args[] = { count, id, burst, secs };
        zvs_cpmsg_format(text, sizeof text, ZVS_CPMSG_SUPPRESSED, args, 4);
        log_text(zvs_cpmsg_def(ZVS_CPMSG_SUPPRESSED)->severity, text);
        broadcast(c, NULL, text, wall_us);
    }
    *w = (struct notify_window){ 0 };
}

int zvs_console_notify(struct zvs_console *c, enum zvs_cpmsg_id kind, const char *owner,
                       const char *text, uint64_t now, uint64_t wall_us)
{
    assert((unsigned)kind < ZVS_CPMSG_COUNT);
    struct notify_window *w = &c->window[kind];
    if (w->start != 0 && now - w->start >= WINDOW_NS)
        window_end(c, kind, wall_us);
    if (w->start == 0)
        w->start = now;
    if (w->shown >= ZVS_CONSOLE_MSG_BURST) {
        w->suppressed++;
        return 0;
    }
    w->shown++;
    log_text(zvs_cpmsg_def(kind)->severity, text);
    broadcast(c, owner, text, wall_us);
    return 1;
}

void zvs_console_notify_flush(struct zvs_console *c, uint64_t now, uint64_t wall_us)
{
    for (unsigned k = 0; k < ZVS_CPMSG_COUNT; k++)
        if (c->window[k].start != 0 && now - c->window[k].start >= WINDOW_NS)
            window_end(c, (enum zvs_cpmsg_id)k, wall_us);
}
