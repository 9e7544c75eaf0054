/* Tests of the operator console (cp-commands/console.c) on a real Unix socket in a
 * temporary directory. The peer credentials are the test's own, so the tests need root
 * (the default map admits uid 0 only) and are skipped otherwise. Other identities come
 * from connect_as: a child process takes the uid and gid and connects a socket the test
 * made, so the kernel records the child's credentials and the test talks on the socket.
 * The identities from USER DIRECT (console_users.c) are tested the same way, with numeric
 * uids (no passwd entries needed) and root, which every system has.
 *
 * Unsolicited messages (zvs_console_notify) are tested on the wire: the subscription
 * request and its answer, the message lines byte for byte, who gets what by class, the
 * per-kind rate limit and its "not shown" report at the end of the window.
 *
 * The exec callback records what it got and answers "ECHO <line>" with rc 0, or a chosen
 * rc for lines "RC <n>", or a 4 MiB response for "FLOOD" (to find a client that does not
 * read).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp-commands/config.h"
#include "daemon/console.h"
#include "daemon/console_users.h"

#define MAX_CALLS 8

struct rec {
    unsigned calls;
    char     userid[MAX_CALLS][16];
    uint32_t privclass[MAX_CALLS];
    char     line[MAX_CALLS][ZVS_CMD_LINE_MAX + 1];
};

struct fixture {
    char                dir[48];
    char                path[96];
    struct zvs_console *con;
    struct rec          rec;
};

static uint32_t classes(const char *letters)
{
    uint32_t m = 0;
    for (; *letters != '\0'; letters++)
        m |= ZVS_PRIVCLASS(*letters);
    return m;
}

static void exec_cb(void *arg, const char *userid, uint32_t privclass, const char *line,
                    struct zvs_cp_response *r)
{
    struct rec *rec = arg;
    int rc;

    if (rec->calls < MAX_CALLS) {
        snprintf(rec->userid[rec->calls], sizeof rec->userid[0], "%s", userid);
        rec->privclass[rec->calls] = privclass;
        snprintf(rec->line[rec->calls], sizeof rec->line[0], "%s", line);
    }
    rec->calls++;
    if (strcmp(line, "FLOOD") == 0) {
        for (unsigned i = 0; i < 4096; i++)
            zvs_cp_printf(r, "%01023d", 0);
        return;
    }
    if (sscanf(line, "RC %d", &rc) == 1) {
        zvs_cp_printf(r, "rc line");
        r->rc = rc;
        return;
    }
    zvs_cp_printf(r, "ECHO %s", line);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    int err = 0;

    if (geteuid() != 0) {
        free(f);
        *state = NULL;
        return 0;
    }
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/zvs_console_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    assert_true((size_t)snprintf(f->path, sizeof f->path, "%s/console.sock", f->dir) < sizeof f->path);
    f->con = zvs_console_open(f->path, exec_cb, &f->rec, &err);
    assert_non_null(f->con);
    assert_int_equal(err, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    if (f == NULL)
        return 0;
    zvs_console_close(f->con);
    unlink(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

#define NEED_ROOT(f) do { if ((f) == NULL) { skip(); } } while (0)

static int client_connect(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

static void client_send(int fd, const char *s, size_t n)
{
    assert_int_equal(send(fd, s, n, MSG_NOSIGNAL), (ssize_t)n);
}

static unsigned count_terms(const char *buf, size_t len)
{
    unsigned n = 0;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == ZVS_CONSOLE_RS;
    return n;
}

/* Reads until nterm terminator lines arrived (complete) or EOF; returns bytes read. */
static size_t client_read(int fd, char *buf, size_t size, unsigned nterm)
{
    size_t len = 0;
    for (;;) {
        if (count_terms(buf, len) >= nterm && len > 0 && buf[len - 1] == '\n')
            break;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        assert_int_equal(poll(&p, 1, 3000), 1);
        ssize_t n = recv(fd, buf + len, size - 1 - len, 0);
        assert_true(n >= 0);
        if (n == 0)
            break;
        len += (size_t)n;
        assert_true(len < size - 1);
    }
    buf[len] = '\0';
    return len;
}

/* Accepts the pending connection of the client just connected. */
static int server_accept(struct fixture *f)
{
    int sfd = zvs_console_accept(f->con);
    assert_true(sfd >= 0);
    return sfd;
}

/* ---- tests --------------------------------------------------------------------------- */

static void test_open_socket(void **state)
{
    struct fixture *f = *state;
    struct stat st;
    int err = 0;

    NEED_ROOT(f);
    assert_int_equal(stat(f->path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_true(zvs_console_listen_fd(f->con) >= 0);
    assert_int_equal(zvs_console_nclients(f->con), 0);
    assert_int_equal(zvs_console_accept(f->con), -EAGAIN);
    assert_int_equal(zvs_console_client_input(f->con, 12345), -EBADF);
    /* A live console at the path is not replaced. */
    assert_null(zvs_console_open(f->path, exec_cb, NULL, &err));
    assert_int_equal(err, -EADDRINUSE);
    /* Close unlinks; a stale socket left behind is replaced by the next open. */
    zvs_console_close(f->con);
    f->con = NULL;
    assert_int_equal(stat(f->path, &st), -1);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", f->path);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    close(s);                           /* the file stays, nobody listens */
    f->con = zvs_console_open(f->path, exec_cb, &f->rec, &err);
    assert_non_null(f->con);
    /* A path that is not a socket is left alone. */
    char other[160];
    snprintf(other, sizeof other, "%s/file", f->dir);
    int fd = open(other, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_null(zvs_console_open(other, exec_cb, NULL, &err));
    assert_int_equal(err, -EEXIST);
    assert_int_equal(unlink(other), 0);
    assert_null(zvs_console_open("", exec_cb, NULL, &err));
    assert_int_equal(err, -EINVAL);
}

static void test_two_commands_one_connection(void **state)
{
    struct fixture *f = *state;
    char buf[4096];

    NEED_ROOT(f);
    int cfd = client_connect(f->path);
    int sfd = server_accept(f);
    assert_int_equal(zvs_console_nclients(f->con), 1);
    const char *two = "Q LACP\nRC 1105\n";
    client_send(cfd, two, strlen(two));
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    size_t n = client_read(cfd, buf, sizeof buf, 2);
    const char *want = "ECHO Q LACP\n\x1eRC=0\nrc line\n\x1eRC=1105\n";
    assert_int_equal(n, strlen(want));
    assert_string_equal(buf, want);
    assert_int_equal(f->rec.calls, 2);
    assert_string_equal(f->rec.userid[0], "OPERATOR");
    assert_int_equal(f->rec.privclass[0], classes("ABCDEFG"));
    assert_string_equal(f->rec.line[0], "Q LACP");
    assert_string_equal(f->rec.userid[1], "OPERATOR");
    assert_string_equal(f->rec.line[1], "RC 1105");

    /* A line in two pieces is one command; CR LF ends a line like LF. */
    client_send(cfd, "Q VS", 4);
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    assert_int_equal(f->rec.calls, 2);
    client_send(cfd, "W\r\n", 3);
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    n = client_read(cfd, buf, sizeof buf, 1);
    assert_string_equal(buf, "ECHO Q VSW\n\x1eRC=0\n");
    assert_int_equal(f->rec.calls, 3);
    assert_string_equal(f->rec.line[2], "Q VSW");
    /* An empty line reaches exec too (its answer is the parser's business). */
    client_send(cfd, "\n", 1);
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    client_read(cfd, buf, sizeof buf, 1);
    assert_string_equal(buf, "ECHO \n\x1eRC=0\n");
    assert_string_equal(f->rec.line[3], "");
    /* Orderly close: input returns <0 and the console forgets the client. */
    close(cfd);
    assert_true(zvs_console_client_input(f->con, sfd) < 0);
    assert_int_equal(zvs_console_nclients(f->con), 0);
    assert_int_equal(zvs_console_client_input(f->con, sfd), -EBADF);
}

static void test_overlong_line(void **state)
{
    struct fixture *f = *state;
    static char line[3 * ZVS_CMD_LINE_MAX];
    char buf[4096];

    NEED_ROOT(f);
    int cfd = client_connect(f->path);
    int sfd = server_accept(f);
    /* One byte over the limit, then a good line. */
    memset(line, 'A', ZVS_CMD_LINE_MAX + 1);
    memcpy(line + ZVS_CMD_LINE_MAX + 1, "\nOK\n", 4);
    client_send(cfd, line, ZVS_CMD_LINE_MAX + 5);
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    client_read(cfd, buf, sizeof buf, 2);
    assert_string_equal(buf, "ZVSCMD1102E Command line longer than 1024 characters is ignored\n"
                             "\x1eRC=1102\nECHO OK\n\x1eRC=0\n");
    assert_int_equal(f->rec.calls, 1);
    assert_string_equal(f->rec.line[0], "OK");
    /* Exactly the limit (plus a CR) is a command. */
    memset(line, 'B', ZVS_CMD_LINE_MAX);
    memcpy(line + ZVS_CMD_LINE_MAX, "\r\n", 2);
    client_send(cfd, line, ZVS_CMD_LINE_MAX + 2);
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    client_read(cfd, buf, sizeof buf, 1);
    assert_int_equal(f->rec.calls, 2);
    assert_int_equal(strlen(f->rec.line[1]), ZVS_CMD_LINE_MAX);
    /* A long line in many pieces is discarded up to its newline, in bounded memory. */
    memset(line, 'C', sizeof line);
    for (int i = 0; i < 4; i++) {
        client_send(cfd, line, sizeof line);
        assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    }
    client_send(cfd, "\nNUL\0X\n", 7);
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    client_read(cfd, buf, sizeof buf, 2);
    assert_string_equal(buf, "ZVSCMD1102E Command line longer than 1024 characters is ignored\n"
                             "\x1eRC=1102\n"
                             "ZVSCON1107E Command line contains a character that is not valid"
                             " - X'00'\n\x1eRC=1107\n");
    assert_int_equal(f->rec.calls, 2);
    close(cfd);
    assert_true(zvs_console_client_input(f->con, sfd) < 0);
}

static void test_disconnect_mid_line(void **state)
{
    struct fixture *f = *state;

    NEED_ROOT(f);
    int cfd = client_connect(f->path);
    int sfd = server_accept(f);
    client_send(cfd, "SET PORT GROUP G1 JO", 20);
    close(cfd);
    assert_true(zvs_console_client_input(f->con, sfd) < 0);
    assert_int_equal(f->rec.calls, 0);  /* half a command never runs */
    assert_int_equal(zvs_console_nclients(f->con), 0);
    assert_int_equal(fcntl(sfd, F_GETFD), -1);  /* the console closed it */
}

struct forgotten { int fd; int calls; int open_then; };

static void on_forget(void *arg, int fd)
{
    struct forgotten *g = arg;
    g->fd = fd;
    g->calls++;
    g->open_then = fcntl(fd, F_GETFD) >= 0;
}

/* The owner is told before a leaving client's descriptor closes, while it is still open,
 * so an event loop can remove it from epoll first (after close, epoll may keep reporting
 * the file to a watch that is gone). */
static void test_forget_before_close(void **state)
{
    struct fixture *f = *state;
    struct forgotten g = { .fd = -1 };

    NEED_ROOT(f);
    zvs_console_on_forget(f->con, on_forget, &g);
    int cfd = client_connect(f->path);
    int sfd = server_accept(f);
    close(cfd);
    assert_true(zvs_console_client_input(f->con, sfd) < 0);
    assert_int_equal(g.calls, 1);
    assert_int_equal(g.fd, sfd);
    assert_int_equal(g.open_then, 1);
    assert_int_equal(fcntl(sfd, F_GETFD), -1);  /* and closed after */
}

static void test_unmapped_user(void **state)
{
    struct fixture *f = *state;
    char buf[512];

    NEED_ROOT(f);
    assert_int_equal(zvs_console_map_user(f->con, 0, NULL, 0), 0);  /* remove root */
    int cfd = client_connect(f->path);
    assert_int_equal(zvs_console_accept(f->con), -EACCES);
    client_read(cfd, buf, sizeof buf, 1);
    assert_string_equal(buf, "ZVSCON1101E Console access denied: uid 0 is not mapped to a CP"
                             " userid\n\x1eRC=1101\n");
    assert_int_equal(recv(cfd, buf, sizeof buf, 0), 0);  /* and closed */
    close(cfd);
    assert_int_equal(zvs_console_nclients(f->con), 0);
    assert_int_equal(f->rec.calls, 0);
}

static void test_user_map(void **state)
{
    struct fixture *f = *state;
    char buf[512];

    NEED_ROOT(f);
    assert_int_equal(zvs_console_map_user(f->con, 0, "maint", classes("BG")), 0);
    assert_int_equal(zvs_console_map_user(f->con, 1000, "TOOLONGID", classes("G")), -EINVAL);
    assert_int_equal(zvs_console_map_user(f->con, 1000, "A-B", classes("G")), -EINVAL);
    for (uid_t u = 1; u < ZVS_CONSOLE_MAX_USERS; u++)
        assert_int_equal(zvs_console_map_user(f->con, 1000 + u, "GUEST", classes("G")), 0);
    assert_int_equal(zvs_console_map_user(f->con, 5000, "GUEST", classes("G")), -ENOSPC);
    int cfd = client_connect(f->path);
    int sfd = server_accept(f);
    client_send(cfd, "Q LACP\n", 7);
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    client_read(cfd, buf, sizeof buf, 1);
    assert_int_equal(f->rec.calls, 1);
    assert_string_equal(f->rec.userid[0], "MAINT");
    assert_int_equal(f->rec.privclass[0], classes("BG"));
    close(cfd);
    assert_true(zvs_console_client_input(f->con, sfd) < 0);
}

static void test_console_full(void **state)
{
    struct fixture *f = *state;
    int cfd[ZVS_CONSOLE_MAX_CLIENTS];
    char buf[512];

    NEED_ROOT(f);
    for (int i = 0; i < ZVS_CONSOLE_MAX_CLIENTS; i++) {
        cfd[i] = client_connect(f->path);
        assert_true(zvs_console_accept(f->con) >= 0);
    }
    assert_int_equal(zvs_console_nclients(f->con), ZVS_CONSOLE_MAX_CLIENTS);
    int extra = client_connect(f->path);
    assert_int_equal(zvs_console_accept(f->con), -EBUSY);
    client_read(extra, buf, sizeof buf, 1);
    assert_string_equal(buf, "ZVSCON1106E Console busy: 16 clients are connected\n\x1eRC=1106\n");
    close(extra);
    for (int i = 0; i < ZVS_CONSOLE_MAX_CLIENTS; i++)
        close(cfd[i]);
    /* zvs_console_close (teardown) closes the server ends. */
}

static void test_client_not_reading(void **state)
{
    struct fixture *f = *state;

    NEED_ROOT(f);
    int cfd = client_connect(f->path);
    int sfd = server_accept(f);
    client_send(cfd, "FLOOD\n", 6);
    /* 4 MiB never read: dropped after the write timeout, not blocked forever. */
    assert_int_equal(zvs_console_client_input(f->con, sfd), -ETIMEDOUT);
    assert_int_equal(zvs_console_nclients(f->con), 0);
    assert_int_equal(f->rec.calls, 1);
    close(cfd);
}

/* ---- identities: console group and USER DIRECT LINUXUSER ----------------------------- */

/* Connects to path as uid:gid with no supplementary groups. Returns the connected fd, or
 * -errno of the child's connect. */
static int connect_as(const char *path, uid_t uid, gid_t gid)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int status, fd = socket(AF_UNIX, SOCK_STREAM, 0);

    assert_true(fd >= 0);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int e = 0;
        if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
            setresuid(uid, uid, uid) < 0)
            e = 200;
        else if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
            e = errno;
        _exit(e);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_not_equal(WEXITSTATUS(status), 200);    /* could not become uid:gid */
    if (WEXITSTATUS(status) != 0) {
        close(fd);
        return -WEXITSTATUS(status);
    }
    return fd;
}

/* One command over a connection made by connect_as; the exec record shows the identity. */
static void run_one(struct fixture *f, int cfd, const char *line)
{
    char buf[512];
    int sfd = server_accept(f);
    client_send(cfd, line, strlen(line));
    assert_int_equal(zvs_console_client_input(f->con, sfd), 0);
    client_read(cfd, buf, sizeof buf, 1);
    close(cfd);
    assert_true(zvs_console_client_input(f->con, sfd) < 0);
}

static struct zvs_cfg *directory(const char *text)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_non_null(cfg);
    assert_int_equal(zvs_cfg_parse_userdirect_text(cfg, "USER.DIRECT", text), 0);
    return cfg;
}

static void test_group_mode(void **state)
{
    struct fixture *f = *state;
    struct stat st;

    NEED_ROOT(f);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_gid, getegid());
    assert_int_equal(zvs_console_set_group(f->con, 65534), 0);
    assert_int_equal(stat(f->path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0660);
    assert_int_equal(st.st_gid, 65534);
    assert_int_equal(st.st_uid, 0);
    assert_int_equal(zvs_console_set_group(f->con, (gid_t)-1), -EINVAL);
    /* The path is not ours any more: nothing is changed on what is there now. */
    assert_int_equal(unlink(f->path), 0);
    assert_int_equal(zvs_console_set_group(f->con, 65534), -ENOENT);
    int fd = open(f->path, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(zvs_console_set_group(f->con, 65534), -ENOTSOCK);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_gid, getegid());
}

/* LINUX1 (class G) and MAINT (classes B and G) by uid; the group lets them reach the
 * socket; root stays OPERATOR; a group member without a mapping and a stranger outside
 * the group are refused, each at its own gate. */
static void test_directory_map(void **state)
{
    struct fixture *f = *state;
    char buf[512];

    NEED_ROOT(f);
    assert_int_equal(chmod(f->dir, 0711), 0);
    struct zvs_cfg *cfg = directory("USER LINUX1 PW 1G 2G G\n LINUXUSER 65534\n"
                                    "IDENTITY MAINT PW 1G 2G GB\n LINUXUSER 65533 0065532\n"
                                    "USER LINUX2 PW 1G 2G\n");
    /* Without the group the file mode keeps everyone but root out. */
    assert_int_equal(connect_as(f->path, 65534, 65534), -EACCES);
    assert_int_equal(zvs_console_map_directory(f->con, cfg, buf, sizeof buf), 3);
    assert_string_equal(buf, "");
    assert_int_equal(zvs_console_set_group(f->con, 65534), 0);

    int cfd = connect_as(f->path, 65534, 65534);
    assert_true(cfd >= 0);
    run_one(f, cfd, "Q VSWITCH\n");
    assert_int_equal(f->rec.calls, 1);
    assert_string_equal(f->rec.userid[0], "LINUX1");
    assert_int_equal(f->rec.privclass[0], classes("G"));
    assert_string_equal(f->rec.line[0], "Q VSWITCH");

    cfd = connect_as(f->path, 65532, 65534);
    assert_true(cfd >= 0);
    run_one(f, cfd, "Q LACP\n");
    assert_int_equal(f->rec.calls, 2);
    assert_string_equal(f->rec.userid[1], "MAINT");
    assert_int_equal(f->rec.privclass[1], classes("BG"));

    cfd = client_connect(f->path);
    run_one(f, cfd, "Q PORT GROUP\n");
    assert_int_equal(f->rec.calls, 3);
    assert_string_equal(f->rec.userid[2], "OPERATOR");
    assert_int_equal(f->rec.privclass[2], classes("ABCDEFG"));

    /* In the group, not in the directory: the uid map refuses it. */
    cfd = connect_as(f->path, 65531, 65534);
    assert_true(cfd >= 0);
    assert_int_equal(zvs_console_accept(f->con), -EACCES);
    client_read(cfd, buf, sizeof buf, 1);
    assert_string_equal(buf, "ZVSCON1101E Console access denied: uid 65531 is not mapped to a"
                             " CP userid\n\x1eRC=1101\n");
    close(cfd);
    /* Mapped but outside the group: the file mode refuses it before the console sees it. */
    assert_int_equal(connect_as(f->path, 65533, 65533), -EACCES);
    assert_int_equal(zvs_console_accept(f->con), -EAGAIN);
    assert_int_equal(f->rec.calls, 3);
    assert_int_equal(zvs_console_nclients(f->con), 0);
    zvs_cfg_free(cfg);
}

/* root named in the directory replaces the default OPERATOR A-G; a bad directory
 * (unknown user, one uid twice) maps nothing and says which statement. */
static void test_directory_root_and_errors(void **state)
{
    struct fixture *f = *state;
    char err[512];

    NEED_ROOT(f);
    struct zvs_cfg *cfg = directory("USER OPS PW 1G 2G B\n LINUXUSER 65534\n"
                                    "USER X PW 1G 2G\n LINUXUSER zvs-no-such-user\n");
    assert_int_equal(zvs_console_map_directory(f->con, cfg, err, sizeof err), -ENOENT);
    assert_string_equal(err, "USER.DIRECT:4: ZVSCFG1067E LINUXUSER zvs-no-such-user of USER X is"
                             " not a Linux user on this system");
    assert_int_equal(zvs_console_check_directory(cfg, err, sizeof err), -ENOENT);
    zvs_cfg_free(cfg);

    cfg = directory("USER OPS PW 1G 2G B\n LINUXUSER 65534 root\n"
                    "USER X PW 1G 2G\n LINUXUSER 0\n");
    assert_int_equal(zvs_console_map_directory(f->con, cfg, err, sizeof err), -EEXIST);
    assert_string_equal(err, "USER.DIRECT:4: ZVSCFG1068E LINUXUSER 0 of USER X is uid 0, already"
                             " mapped to USER OPS by LINUXUSER root");
    zvs_cfg_free(cfg);

    /* Nothing was mapped by the failures: root is still OPERATOR, 65534 unknown. */
    int cfd = client_connect(f->path);
    run_one(f, cfd, "Q LACP\n");
    assert_string_equal(f->rec.userid[0], "OPERATOR");
    assert_int_equal(chmod(f->dir, 0711), 0);
    assert_int_equal(zvs_console_set_group(f->con, 65534), 0);
    cfd = connect_as(f->path, 65534, 65534);
    assert_true(cfd >= 0);
    assert_int_equal(zvs_console_accept(f->con), -EACCES);
    close(cfd);

    cfg = directory("USER OPS PW 1G 2G B\n LINUXUSER root\n");
    assert_int_equal(zvs_console_map_directory(f->con, cfg, err, sizeof err), 1);
    cfd = client_connect(f->path);
    run_one(f, cfd, "Q LACP\n");
    assert_int_equal(f->rec.calls, 2);
    assert_string_equal(f->rec.userid[1], "OPS");
    assert_int_equal(f->rec.privclass[1], classes("B"));
    zvs_cfg_free(cfg);
}

/* The map holds ZVS_CONSOLE_MAX_USERS: root's default entry and 255 more, or 256 when
 * the directory maps root itself. */
static void test_directory_capacity(void **state)
{
    struct fixture *f = *state;
    char err[512];
    static char text[ZVS_CONSOLE_MAX_USERS / 8 * 200];

    NEED_ROOT(f);
    size_t n = 0;
    unsigned uid = 10000;
    for (unsigned u = 0; u < ZVS_CONSOLE_MAX_USERS / 8; u++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "USER U%u PW 1G 2G\n LINUXUSER", u);
        for (unsigned k = 0; k < 8; k++)
            n += (size_t)snprintf(text + n, sizeof text - n, " %u", uid++);
        n += (size_t)snprintf(text + n, sizeof text - n, "\n");
        assert_true(n < sizeof text);
    }
    struct zvs_cfg *cfg = directory(text);
    assert_int_equal(zvs_console_check_directory(cfg, err, sizeof err), -ENOSPC);
    assert_string_equal(err, "USER.DIRECT: ZVSCFG1015E Too many LINUXUSER definitions (limit 255)");
    assert_int_equal(zvs_console_map_directory(f->con, cfg, err, sizeof err), -ENOSPC);
    /* One fewer fits beside root; the last mapped uid gets its entry. */
    cfg->user[cfg->nuser - 1].nlinuxuser = 7;
    assert_int_equal(zvs_console_map_directory(f->con, cfg, err, sizeof err),
                     ZVS_CONSOLE_MAX_USERS - 1);
    assert_int_equal(zvs_console_map_user(f->con, 99999, "ONEMORE", classes("G")), -ENOSPC);
    /* Root in the directory takes root's own slot: all 256 fit. */
    snprintf(cfg->user[cfg->nuser - 1].linuxuser[7], ZVS_LINUXUSER_MAX + 1, "0");
    cfg->user[cfg->nuser - 1].nlinuxuser = 8;
    assert_int_equal(zvs_console_check_directory(cfg, err, sizeof err), ZVS_CONSOLE_MAX_USERS);
    assert_int_equal(zvs_console_map_directory(f->con, cfg, err, sizeof err),
                     ZVS_CONSOLE_MAX_USERS);
    int cfd = client_connect(f->path);
    run_one(f, cfd, "Q LACP\n");
    char want[16];
    snprintf(want, sizeof want, "U%u", ZVS_CONSOLE_MAX_USERS / 8 - 1);
    assert_string_equal(f->rec.userid[0], want);
    assert_int_equal(f->rec.privclass[0], classes("G"));
    zvs_cfg_free(cfg);
}

static void test_resolve(void **state)
{
    uid_t uid = 1;
    gid_t gid = 1;

    assert_int_equal(zvs_linuxuser_resolve("root", &uid), 0);
    assert_int_equal(uid, 0);
    assert_int_equal(zvs_linuxuser_resolve("4294967294", &uid), 0);
    assert_int_equal(uid, (uid_t)4294967294u);
    assert_int_equal(zvs_linuxuser_resolve("00065534", &uid), 0);
    assert_int_equal(uid, 65534);
    uid = 7;
    assert_int_equal(zvs_linuxuser_resolve("4294967295", &uid), -EINVAL);
    assert_int_equal(zvs_linuxuser_resolve("99999999999999999999", &uid), -EINVAL);
    assert_int_equal(zvs_linuxuser_resolve("", &uid), -EINVAL);
    assert_int_equal(zvs_linuxuser_resolve("zvs-no-such-user", &uid), -ENOENT);
    assert_int_equal(uid, 7);
    assert_int_equal(zvs_console_group_resolve("root", &gid), 0);
    assert_int_equal(gid, 0);
    assert_int_equal(zvs_console_group_resolve("65534", &gid), 0);
    assert_int_equal(gid, 65534);
    gid = 7;
    assert_int_equal(zvs_console_group_resolve("zvs-no-such-group", &gid), -ENOENT);
    assert_int_equal(zvs_console_group_resolve("4294967295", &gid), -EINVAL);
    assert_int_equal(gid, 7);
}

/* ---- unsolicited messages ------------------------------------------------------------ */

#define SEC  1000000000ull
#define WALL 1700000000000000ull        /* 2023-11-14 22:13:20 UTC, in microseconds */

/* Everything the client has been sent so far (waits briefly for more after each piece). */
static size_t read_avail(int fd, char *buf, size_t size)
{
    size_t len = 0;
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 100) != 1)
            break;
        ssize_t n = recv(fd, buf + len, size - 1 - len, MSG_DONTWAIT);
        if (n <= 0)
            break;
        len += (size_t)n;
        assert_true(len < size - 1);
    }
    buf[len] = '\0';
    return len;
}

/* A client of the identity root has now (zvs_console_map_user), subscribed or not. */
static int attach(struct fixture *f, const char *userid, const char *cls, bool subscribe,
                  int *sfd)
{
    char buf[256];
    assert_int_equal(zvs_console_map_user(f->con, 0, userid, classes(cls)), 0);
    int cfd = client_connect(f->path);
    *sfd = server_accept(f);
    if (subscribe) {
        client_send(cfd, "\x1e" "CONSOLE\n", 9);
        assert_int_equal(zvs_console_client_input(f->con, *sfd), 0);
        client_read(cfd, buf, sizeof buf, 1);
        assert_string_equal(buf, "\x1eRC=0\n");     /* an empty response: yes */
    }
    return cfd;
}

static const char *fmt(enum zvs_cpmsg_id id, const char *a0, const char *a1, const char *a2)
{
    static char text[ZVS_CPMSG_TEXT_MAX];
    const char *args[] = { a0, a1, a2 };
    zvs_cpmsg_format(text, sizeof text, id, args, 3);
    return text;
}

static void test_unsolicited_subscription_and_classes(void **state)
{
    struct fixture *f = *state;
    char buf[4096];
    int s_old, s_op, s_a, s_b;

    NEED_ROOT(f);
    int c_old = attach(f, "OPERATOR", "ABCDEFG", false, &s_old);   /* never asks */
    int c_op = attach(f, "OPERATOR", "ABCDEFG", true, &s_op);
    int c_a = attach(f, "LNXA", "G", true, &s_a);
    int c_b = attach(f, "LNXB", "G", true, &s_b);
    assert_int_equal(zvs_console_nsubscribers(f->con), 3);
    assert_int_equal(f->rec.calls, 0);             /* the request is not a CP command */

    /* A system message: operators only. Two lines, one id, one time. */
    const char *t = fmt(ZVS_CPMSG_SWITCH_NOT_ACTIVE, "CCBVSW1", NULL, NULL);
    assert_string_equal(t, "HCPSWU2832E Connection for VSWITCH SYSTEM CCBVSW1 is not active.\n"
                           "HCPSWU2832E None of the RDEVs are available working OSA-Express devices.");
    assert_int_equal(zvs_console_notify(f->con, ZVS_CPMSG_SWITCH_NOT_ACTIVE, NULL, t,
                                        1000 * SEC, WALL + 10500000), 1);
    /* A NIC message of LNXA: operators and LNXA. */
    t = fmt(ZVS_CPMSG_NIC_CONNECTED, "F000", "LNXA", "CCBVSW1");
    assert_int_equal(zvs_console_notify(f->con, ZVS_CPMSG_NIC_CONNECTED, "LNXA", t,
                                        1001 * SEC, WALL + 11000001), 1);

    read_avail(c_op, buf, sizeof buf);
    assert_string_equal(buf,
        "\x1eMSG 1700000010.500000 HCPSWU2832E Connection for VSWITCH SYSTEM CCBVSW1 is not active.\n"
        "\x1eMSG 1700000010.500000 HCPSWU2832E None of the RDEVs are available working OSA-Express devices.\n"
        "\x1eMSG 1700000011.000001 ZVSNIC1176I NIC F000 of user LNXA is connected to VSWITCH SYSTEM CCBVSW1\n");
    read_avail(c_a, buf, sizeof buf);
    assert_string_equal(buf,
        "\x1eMSG 1700000011.000001 ZVSNIC1176I NIC F000 of user LNXA is connected to VSWITCH SYSTEM CCBVSW1\n");
    assert_int_equal(read_avail(c_b, buf, sizeof buf), 0);     /* not its NIC */
    assert_int_equal(read_avail(c_old, buf, sizeof buf), 0);   /* never asked */

    /* The client that never asked still talks the old protocol, nothing in between. */
    client_send(c_old, "Q VSW\n", 6);
    assert_int_equal(zvs_console_client_input(f->con, s_old), 0);
    client_read(c_old, buf, sizeof buf, 1);
    assert_string_equal(buf, "ECHO Q VSW\n\x1eRC=0\n");
    /* A subscriber's commands are answered as before; messages come between responses. */
    client_send(c_a, "Q NIC\n", 6);
    assert_int_equal(zvs_console_client_input(f->con, s_a), 0);
    client_read(c_a, buf, sizeof buf, 1);
    assert_string_equal(buf, "ECHO Q NIC\n\x1eRC=0\n");
    /* Any other request beginning with RS is no CP command either. */
    client_send(c_b, "\x1eNOISE\n", 7);
    assert_int_equal(zvs_console_client_input(f->con, s_b), 0);
    client_read(c_b, buf, sizeof buf, 1);
    assert_string_equal(buf, "HCPCMD001E Unknown CP command: ?NOISE\n\x1eRC=1\n");
    assert_int_equal(f->rec.calls, 2);

    /* A subscriber that leaves is forgotten; the others still hear. */
    close(c_op);
    assert_true(zvs_console_client_input(f->con, s_op) < 0);
    assert_int_equal(zvs_console_nsubscribers(f->con), 2);
    t = fmt(ZVS_CPMSG_NIC_DISCONNECTED, "F000", "LNXA", "CCBVSW1");
    assert_int_equal(zvs_console_notify(f->con, ZVS_CPMSG_NIC_DISCONNECTED, "LNXA", t,
                                        1002 * SEC, WALL + 12000000), 1);
    read_avail(c_a, buf, sizeof buf);
    assert_string_equal(buf, "\x1eMSG 1700000012.000000 ZVSNIC1177I NIC F000 of user LNXA is"
                             " disconnected from VSWITCH SYSTEM CCBVSW1\n");
    close(c_old);
    close(c_a);
    close(c_b);
}

static void test_unsolicited_rate_limit(void **state)
{
    struct fixture *f = *state;
    char buf[8192], want[8192];
    int sfd;

    NEED_ROOT(f);
    int cfd = attach(f, "OPERATOR", "AB", true, &sfd);
    char down[ZVS_CPMSG_TEXT_MAX];      /* fmt's buffer is reused below */
    snprintf(down, sizeof down, "%s", fmt(ZVS_CPMSG_DEVICE_NOT_READY, "2902", "CCBVSW1",
                                          "carrier down on interface osa2902"));
    assert_string_equal(down, "ZVSVSW1170E Device 2902 of VSWITCH SYSTEM CCBVSW1 is not ready:"
                              " carrier down on interface osa2902");   /* its case kept */
    /* A flapping link: 13 in the first second. 10 go out, 3 are counted. */
    size_t wl = 0;
    for (unsigned i = 0; i < 13; i++) {
        int out = zvs_console_notify(f->con, ZVS_CPMSG_DEVICE_NOT_READY, NULL, down,
                                     1000 * SEC + i * (SEC / 16), WALL);
        assert_int_equal(out, i < ZVS_CONSOLE_MSG_BURST);
        if (out)
            wl += (size_t)snprintf(want + wl, sizeof want - wl, "\x1eMSG 1700000000.000000 %s\n",
                                   down);
    }
    /* Another kind has its own budget. */
    const char *up = fmt(ZVS_CPMSG_DEVICE_READY, "2902", "CCBVSW1",
                         "carrier up on interface osa2902");
    assert_int_equal(zvs_console_notify(f->con, ZVS_CPMSG_DEVICE_READY, NULL, up,
                                        1001 * SEC, WALL + 1000000), 1);
    wl += (size_t)snprintf(want + wl, sizeof want - wl, "\x1eMSG 1700000001.000000 %s\n", up);
    read_avail(cfd, buf, sizeof buf);
    assert_string_equal(buf, want);
    /* The window is 60 s from its first message: not over at 59.999 s ... */
    zvs_console_notify_flush(f->con, 1000 * SEC + 60 * SEC - 1, WALL + 59999999);
    assert_int_equal(read_avail(cfd, buf, sizeof buf), 0);
    /* ... over at 60 s: what it did not show is reported, once. */
    zvs_console_notify_flush(f->con, 1060 * SEC, WALL + 60000000);
    zvs_console_notify_flush(f->con, 1061 * SEC, WALL + 61000000);
    read_avail(cfd, buf, sizeof buf);
    assert_string_equal(buf, "\x1eMSG 1700000060.000000 ZVSCON1178W 3 ZVSVSW1170E message(s) not"
                             " shown: more than 10 in 60 seconds\n");
    /* A new window: shown again. The kind that was never over its budget reports nothing. */
    assert_int_equal(zvs_console_notify(f->con, ZVS_CPMSG_DEVICE_NOT_READY, NULL, down,
                                        1062 * SEC, WALL + 62000000), 1);
    read_avail(cfd, buf, sizeof buf);
    snprintf(want, sizeof want, "\x1eMSG 1700000062.000000 %s\n", down);
    assert_string_equal(buf, want);
    /* Without a flush, the next message after the window reports first. */
    for (unsigned i = 0; i < 10; i++)
        zvs_console_notify(f->con, ZVS_CPMSG_DEVICE_NOT_READY, NULL, down, 1063 * SEC, WALL);
    read_avail(cfd, buf, sizeof buf);
    assert_int_equal(zvs_console_notify(f->con, ZVS_CPMSG_DEVICE_NOT_READY, NULL, down,
                                        1200 * SEC, WALL + 200000000), 1);
    read_avail(cfd, buf, sizeof buf);
    snprintf(want, sizeof want, "\x1eMSG 1700000200.000000 ZVSCON1178W 1 ZVSVSW1170E message(s) not"
             " shown: more than 10 in 60 seconds\n\x1eMSG 1700000200.000000 %s\n", down);
    assert_string_equal(buf, want);
    close(cfd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_socket, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_commands_one_connection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlong_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disconnect_mid_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forget_before_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unmapped_user, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_map, setup, teardown),
        cmocka_unit_test_setup_teardown(test_console_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_not_reading, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_map, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_root_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_capacity, setup, teardown),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test_setup_teardown(test_unsolicited_subscription_and_classes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unsolicited_rate_limit, setup, teardown),
    };
    return cmocka_run_group_tests_name("console", tests, NULL, NULL);
}
