/* ivl/cluster_corosync.c against a real corosync 3: one system, its engine started by the
 * test from the file ivl/corosync_conf.c writes (so corosync itself accepts what we
 * generate), in a network namespace and a mount namespace of the test's own (libqb's IPC
 * sockets are abstract, so per network namespace; a tmpfs over /run for the fixed
 * /run/corosync.pid, one over /dev/shm for libqb's rings). Joined: the first view holds
 * this system, a message comes back in agreed order, votequorum says quorate, cmap gives
 * the token timeout. The engine killed with SIGKILL: the next dispatch tells `lost`; the
 * engine started again: join works on the same handle. No engine: join says -ENOTCONN.
 * Needs root and corosync; skipped otherwise. Real time, every wait bounded. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ivl/cluster_corosync.h"
#include "ivl/corosync_conf.h"
#include "netns.h"

#define COROSYNC  "/usr/sbin/corosync"
#define TOKEN_MS  1000u
#define WAIT_MS   8000                  /* corosync forms its one-node ring in about 1 s */

struct seen {
    unsigned nconf, nmsg, nquorum, nlost;
    uint32_t members[ZVS_CL_MAX_NODES];
    unsigned nmembers;
    bool     quorate;
    char     msg[64];
};

static void on_confchg(void *arg, const uint32_t *m, unsigned n, const uint32_t *j,
                       unsigned nj, const uint32_t *l, unsigned nl)
{
    struct seen *s = arg;
    s->nconf++;
    memcpy(s->members, m, n * sizeof *m);
    s->nmembers = n;
}

static void on_deliver(void *arg, uint32_t from, const void *msg, size_t len)
{
    struct seen *s = arg;
    s->nmsg++;
    snprintf(s->msg, sizeof s->msg, "%u:%.*s", from, (int)len, (const char *)msg);
}

static void on_quorum(void *arg, bool quorate, const uint32_t *nodes, unsigned n)
{
    struct seen *s = arg;
    s->nquorum++;
    s->quorate = quorate;
}

static void on_lost(void *arg)
{
    ((struct seen *)arg)->nlost++;
}

static char dir[] = "/tmp/zvs-corosync-XXXXXX";
static char conf_path[300];
static pid_t engine = -1;

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void engine_start(void)
{
    engine = fork();
    assert_true(engine >= 0);
    if (engine == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execl(COROSYNC, COROSYNC, "-f", "-c", conf_path, (char *)NULL);
        _exit(127);
    }
}

static void engine_kill(void)
{
    if (engine > 0) {
        kill(engine, SIGKILL);
        waitpid(engine, NULL, 0);
    }
    engine = -1;
}

/* Join, retried while the engine starts (its IPC comes up before the ring is formed). */
static int join_within(struct zvs_cluster *c, int ms)
{
    int64_t end = tnet_now_ms() + ms;
    int rc;
    while ((rc = zvs_cluster_join(c)) == -ENOTCONN && tnet_now_ms() < end)
        usleep(50 * 1000);
    return rc;
}

/* The owner's loop: poll the cluster's descriptors, run it, until `done` or `ms`. */
static bool run_until(struct zvs_cluster *c, struct seen *s, bool (*done)(const struct seen *),
                      int ms)
{
    int64_t end = tnet_now_ms() + ms;
    while (!done(s) && tnet_now_ms() < end) {
        int fds[2];
        unsigned n = zvs_cluster_corosync_fds(c, fds);
        struct pollfd p[2];
        for (unsigned i = 0; i < n; i++)
            p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
        if (n == 0)
            usleep(50 * 1000);          /* not joined: nothing to wait on */
        else if (poll(p, n, 100) > 0)
            zvs_cluster_run(c, 0);
    }
    return done(s);
}

static bool viewed_and_quorate(const struct seen *s)
{
    return s->nconf > 0 && s->nquorum > 0 && s->quorate;
}
static bool got_msg(const struct seen *s) { return s->nmsg > 0; }
static bool got_lost(const struct seen *s) { return s->nlost > 0; }

static int setup(void **state)
{
    if (geteuid() != 0 || access(COROSYNC, X_OK) != 0 || !tnet_enter())
        return 0;                       /* each test skips */
    /* our own /run and /dev/shm: corosync's pid file and libqb's rings stay here */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") != 0 ||
        mount("tmpfs", "/dev/shm", "tmpfs", 0, "mode=1777") != 0)
        return -1;
    tnet_sh("ip link set lo up");
    if (!mkdtemp(dir))
        return -1;
    struct zvs_cs_conf cc = { .token_ms = TOKEN_MS, .nnodes = 1 };
    snprintf(cc.cluster_name, sizeof cc.cluster_name, "GLOBVSW");
    cc.node[0] = (struct zvs_cs_node){ .nodeid = 1, .name = "SYSA", .addr = "127.0.0.1" };
    snprintf(cc.keyfile, sizeof cc.keyfile, "%s/authkey", dir);
    snprintf(cc.state_dir, sizeof cc.state_dir, "%s", dir);
    char text[4096];
    int len = zvs_cs_conf_write(&cc, text, sizeof text);
    if (len < 0)
        return -1;
    snprintf(conf_path, sizeof conf_path, "%s/corosync.conf", dir);
    write_file(conf_path, text, (size_t)len, 0644);
    uint8_t key[256];                   /* corosync-keygen's size */
    int ur = open("/dev/urandom", O_RDONLY);
    if (ur < 0 || read(ur, key, sizeof key) != (ssize_t)sizeof key)
        return -1;
    close(ur);
    write_file(cc.keyfile, key, sizeof key, 0400);
    *state = dir;
    return 0;
}

static int teardown(void **state)
{
    engine_kill();
    if (*state) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            return -1;
    }
    return 0;
}

#define NEED_ENGINE() do { if (!*state) skip(); } while (0)

static void test_no_engine(void **state)
{
    NEED_ENGINE();
    struct seen s = {0};
    struct zvs_cluster_cb cb = { .confchg = on_confchg, .arg = &s };
    struct zvs_cluster *c = zvs_cluster_corosync_new("GLOBVSW", &cb);
    assert_non_null(c);
    assert_int_equal(zvs_cluster_send(c, "x", 1), -ENOTCONN);
    assert_int_equal(zvs_cluster_join(c), -ENOTCONN);
    assert_int_equal(zvs_cluster_node_id(c), 0);
    int fds[2];
    assert_int_equal(zvs_cluster_corosync_fds(c, fds), 0);
    zvs_cluster_destroy(c);
    assert_null(zvs_cluster_corosync_new("", &cb));
}

static void test_join_send_quorum_lost_rejoin(void **state)
{
    NEED_ENGINE();
    struct seen s = {0};
    struct zvs_cluster_cb cb = { .confchg = on_confchg, .deliver = on_deliver,
                                 .quorum = on_quorum, .lost = on_lost, .arg = &s };
    struct zvs_cluster *c = zvs_cluster_corosync_new("GLOBVSW", &cb);
    engine_start();
    assert_int_equal(join_within(c, WAIT_MS), 0);
    assert_int_equal(zvs_cluster_node_id(c), 1);
    assert_int_equal(zvs_cluster_token_ms(c), TOKEN_MS);   /* one node: no coefficient */
    assert_true(run_until(c, &s, viewed_and_quorate, WAIT_MS));
    assert_int_equal(s.nmembers, 1);
    assert_int_equal(s.members[0], 1);

    char big[ZVS_CL_MAX_MSG + 1] = {0};
    assert_int_equal(zvs_cluster_send(c, big, sizeof big), -EMSGSIZE);
    int rc;
    int64_t end = tnet_now_ms() + WAIT_MS;
    while ((rc = zvs_cluster_send(c, "hello", 5)) == -EAGAIN && tnet_now_ms() < end)
        run_until(c, &s, got_msg, 50);
    assert_int_equal(rc, 0);
    assert_true(run_until(c, &s, got_msg, WAIT_MS));
    assert_string_equal(s.msg, "1:hello");

    /* SIGKILL: corosync tells nobody, but our IPC to it breaks at once */
    engine_kill();
    assert_true(run_until(c, &s, got_lost, WAIT_MS));
    assert_int_equal(s.nlost, 1);
    assert_int_equal(zvs_cluster_send(c, "x", 1), -ENOTCONN);

    /* back: the same handle joins again and sees itself again */
    s.nconf = s.nquorum = 0;
    s.quorate = false;
    engine_start();
    assert_int_equal(join_within(c, WAIT_MS), 0);
    assert_true(run_until(c, &s, viewed_and_quorate, WAIT_MS));
    assert_int_equal(s.members[0], 1);
    zvs_cluster_leave(c);
    int fds[2];
    assert_int_equal(zvs_cluster_corosync_fds(c, fds), 0);
    zvs_cluster_destroy(c);
    engine_kill();
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_engine),
        cmocka_unit_test(test_join_send_quorum_lost_rejoin),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
