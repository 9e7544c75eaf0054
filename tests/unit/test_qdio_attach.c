/* The attach socket's protocol: a valid request gets OK and three working descriptors;
 * malformed requests get ERR with a reason and never a descriptor. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qdio/qdio_attach.h"

static char path[108];

static int setup(void **state)
{
    snprintf(path, sizeof(path), "/tmp/zvs-attach-%d.sock", (int)getpid());
    int fd = zvs_qdio_attach_listen(path);
    assert_true(fd >= 0);
    *state = (void *)(intptr_t)fd;
    return 0;
}

static int teardown(void **state)
{
    close((int)(intptr_t)*state);
    unlink(path);
    return 0;
}

/* Connect, send raw bytes, let the daemon side handle it, return the reply line. */
static int raw_request(int lfd, const char *bytes, char *reply, size_t max)
{
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    strcpy(sa.sun_path, path);
    assert_int_equal(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(write(c, bytes, strlen(bytes)), (ssize_t)strlen(bytes));
    char userid[9];
    uint16_t vdev;
    int client = -1;
    int rc = zvs_qdio_attach_accept(lfd, 200, &client, userid, &vdev);
    if (rc == 0)
        zvs_qdio_attach_refuse(client, "test refuses");
    ssize_t n = read(c, reply, max - 1);
    reply[n > 0 ? n : 0] = '\0';
    close(c);
    return rc;
}

static void malformed_requests_are_refused(void **state)
{
    int lfd = (int)(intptr_t)*state;
    char reply[128];
    assert_int_equal(raw_request(lfd, "HELLO\n", reply, sizeof(reply)), -EINVAL);
    assert_string_equal(reply, "ERR expected: ATTACH userid vdev\n");
    assert_int_equal(raw_request(lfd, "ATTACH LNXC ZZZZ\n", reply, sizeof(reply)), -EINVAL);
    assert_string_equal(reply, "ERR vdev must be 1-4 hex digits\n");
    assert_int_equal(raw_request(lfd, "ATTACH TOOLONGUSER F000\n", reply, sizeof(reply)), -EINVAL);
    assert_int_equal(raw_request(lfd, "ATTACH LNXC F000 EXTRA\n", reply, sizeof(reply)), -EINVAL);
    /* No newline within the line limit: refused, the daemon does not wait forever. */
    char big[200];
    memset(big, 'A', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(raw_request(lfd, big, reply, sizeof(reply)), -EINVAL);
    /* No request at all within the timeout. */
    assert_int_equal(raw_request(lfd, "", reply, sizeof(reply)), -EINVAL);
    assert_string_equal(reply, "ERR expected: ATTACH userid vdev\n");
}

static void valid_request_gets_descriptors(void **state)
{
    int lfd = (int)(intptr_t)*state;
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    strcpy(sa.sun_path, path);
    assert_int_equal(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(write(c, "attach lnxc f000\n", 17), 17);
    char userid[9];
    uint16_t vdev;
    int client;
    assert_int_equal(zvs_qdio_attach_accept(lfd, 200, &client, userid, &vdev), 0);
    assert_string_equal(userid, "LNXC");
    assert_int_equal(vdev, 0xF000);
    int e1 = eventfd(0, 0), e2 = eventfd(0, 0), e3 = eventfd(0, 0);
    assert_int_equal(zvs_qdio_attach_grant(client, e1, e2, e3), 0);
    close(c);
    close(client);

    /* The program side through the library: descriptors arrive and work. */
    int memfd, siga, irq, session;
    char err[64];
    /* The daemon side answers from a child so the library's blocking read returns. The
     * listening socket is non-blocking (the daemon polls it): the child waits for the
     * connection first, else an accept before the parent's connect fails with EAGAIN and
     * the parent waits for an answer forever. */
    pid_t pid = fork();
    if (pid == 0) {
        int cl;
        char u[9];
        uint16_t v;
        struct pollfd p = { .fd = lfd, .events = POLLIN };
        if (poll(&p, 1, 2000) == 1 && zvs_qdio_attach_accept(lfd, 2000, &cl, u, &v) == 0)
            zvs_qdio_attach_grant(cl, e1, e2, e3);
        _exit(0);
    }
    assert_int_equal(zvs_qdio_attach_connect(path, "LNXC", 0xF000, &memfd, &siga, &irq,
                                             &session, err, sizeof(err)), 0);
    uint64_t one = 1, got = 0;
    assert_int_equal(write(siga, &one, 8), 8);            /* siga is e2 in another number */
    assert_int_equal(read(e2, &got, 8), 8);
    assert_int_equal(got, 1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(status, 0);
    close(memfd); close(siga); close(irq); close(session);
    close(e1); close(e2); close(e3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(malformed_requests_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(valid_request_gets_descriptors, setup, teardown),
    };
    return cmocka_run_group_tests_name("qdio_attach", tests, NULL, NULL);
}
