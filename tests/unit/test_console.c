/* Tests of the operator console (cp-commands/console.c) on a real Unix socket in a
 * temporary directory. The peer credentials are the test's own, so the tests need root
 * (the default map admits uid 0 only) and are skipped otherwise.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cp-commands/console.h"

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
    assert_string_equal(buf, "HCP1102E Command line longer than 1024 characters is ignored\n"
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
    assert_string_equal(buf, "HCP1102E Command line longer than 1024 characters is ignored\n"
                             "\x1eRC=1102\n"
                             "HCP1107E Command line contains a character that is not valid"
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

static void test_unmapped_user(void **state)
{
    struct fixture *f = *state;
    char buf[512];

    NEED_ROOT(f);
    assert_int_equal(zvs_console_map_user(f->con, 0, NULL, 0), 0);  /* remove root */
    int cfd = client_connect(f->path);
    assert_int_equal(zvs_console_accept(f->con), -EACCES);
    client_read(cfd, buf, sizeof buf, 1);
    assert_string_equal(buf, "HCP1101E Console access denied: uid 0 is not mapped to a CP"
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
    assert_string_equal(buf, "HCP1106E Console busy: 16 clients are connected\n\x1eRC=1106\n");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_socket, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_commands_one_connection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlong_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disconnect_mid_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unmapped_user, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_map, setup, teardown),
        cmocka_unit_test_setup_teardown(test_console_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_not_reading, setup, teardown),
    };
    return cmocka_run_group_tests_name("console", tests, NULL, NULL);
}
