/* A start refused for its attach socket or its console says why, exactly: the error of the
 * step that failed, read in vswitchd's log. Each socket fails two ways:
 *
 * - it cannot be made (its folder does not exist): the socket's own error;
 * - it is made and listening, but the event loop cannot watch it: epoll_ctl's error. The
 *   loop calls epoll_ctl, which this binary defines (it wins over the C library's at link
 *   time): it refuses EPOLL_CTL_ADD with ENOSPC (what the kernel answers past
 *   fs.epoll.max_user_watches) for the one socket bound to `refuse_path`, and passes
 *   every other call to the kernel.
 *
 * Before the fix the second way printed the descriptor's number as an error ("Unknown
 * error -N" for the attach socket) and the console's unset error ("Success").
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "cp-commands/config.h"
#include "daemon/daemon.h"
#include "dataplane/log.h"

static char refuse_path[108];           /* the socket whose watch is refused; "" none */

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
    struct sockaddr_un sa;
    socklen_t len = sizeof sa;
    if (op == EPOLL_CTL_ADD && refuse_path[0] &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sun_family == AF_UNIX &&
        strcmp(sa.sun_path, refuse_path) == 0) {
        errno = ENOSPC;
        return -1;
    }
    return (int)syscall(SYS_epoll_ctl, epfd, op, fd, ev);
}

struct start {
    char            dir[32];
    char            log[64];
    struct zvs_cfg *cfg;
};

static int setup(void **state)
{
    struct start *s = calloc(1, sizeof *s);
    assert_non_null(s);
    snprintf(s->dir, sizeof s->dir, "/tmp/zvs-start-XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    snprintf(s->log, sizeof s->log, "%s/vswitchd.log", s->dir);
    s->cfg = zvs_cfg_new();
    assert_non_null(s->cfg);
    assert_int_equal(zvs_cfg_load(s->cfg, "configs/lab/SYSTEM-CCB.CONFIG",
                                  "tests/unit/hermetic/USER-CCB.DIRECT"), 0);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    struct start *s = *state;
    refuse_path[0] = '\0';
    zvs_log_close();
    unlink(s->log);
    rmdir(s->dir);
    zvs_cfg_free(s->cfg);
    free(s);
    return 0;
}

/* Starts with opt (virtual time, dummy uplinks), which must be refused; returns what the
 * log says, its time stamps cut: each line from "vswitchd ". */
static const char *refused_start(struct start *s, struct zvsd_options *opt)
{
    static char text[1024];
    opt->uplink_kind = "dummy";
    opt->virtual_start_ns = 1000ull * 1000000000ull;
    opt->virtual_wall_us = 1700000000000000ull;
    unlink(s->log);
    assert_int_equal(zvs_log_open(s->log), 0);
    zvs_log_set_level(ZVS_LOG_ERROR);
    assert_null(zvsd_create(s->cfg, opt));
    zvs_log_close();
    FILE *f = fopen(s->log, "r");
    assert_non_null(f);
    char line[512];
    size_t n = 0;
    text[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        const char *from = strstr(line, "vswitchd ");
        n += (size_t)snprintf(text + n, sizeof text - n, "%s", from ? from : line);
    }
    fclose(f);
    return text;
}

/* The log is the one error line "<what> <path>: <why>". */
static void expect(const char *text, const char *what, const char *path, const char *why)
{
    char want[512];
    snprintf(want, sizeof want, "vswitchd E %s %s: %s\n", what, path, why);
    assert_string_equal(text, want);
}

/* The attach socket (or the console) in a folder that is not there, or in the scratch
 * folder with its watch refused: the start is refused with `why`, and leaves no socket. */
static void refused_for(struct start *s, bool console, bool watch_refused, const char *why)
{
    char path[96];
    snprintf(path, sizeof path, "%s/%s%s.sock", s->dir, watch_refused ? "" : "nothere/",
             console ? "console" : "attach");
    if (watch_refused)
        snprintf(refuse_path, sizeof refuse_path, "%s", path);
    struct zvsd_options opt = { .qdio_socket = console ? NULL : path,
                                .console_path = console ? path : NULL };
    expect(refused_start(s, &opt), console ? "cannot open the console" : "cannot listen on",
           path, why);
    assert_int_equal(access(path, F_OK), -1);
}

static void attach_socket_that_cannot_be_made(void **state)
{
    refused_for(*state, false, false, "No such file or directory");
}

static void attach_socket_the_loop_cannot_watch(void **state)
{
    refused_for(*state, false, true, "No space left on device");
}

static void console_that_cannot_be_made(void **state)
{
    refused_for(*state, true, false, "No such file or directory");
}

static void console_the_loop_cannot_watch(void **state)
{
    refused_for(*state, true, true, "No space left on device");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(attach_socket_that_cannot_be_made, setup, teardown),
        cmocka_unit_test_setup_teardown(attach_socket_the_loop_cannot_watch, setup, teardown),
        cmocka_unit_test_setup_teardown(console_that_cannot_be_made, setup, teardown),
        cmocka_unit_test_setup_teardown(console_the_loop_cannot_watch, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
