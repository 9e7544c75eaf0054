/* ivl_probe: one system's client of its corosync, as vswitchd's domain will be
 * (ivl/cluster_corosync.c), for the labs: joins the group, says hello in every new view
 * ("v<members>-<node>"), and prints what Corosync tells it, a line per event, until
 * SIGTERM:
 *
 *   JOINED node        VIEW n1,n2,..        QUORUM 0|1 n1,n2,..
 *   MSG from text      LOST                 TOKEN ms (once, after the join)
 *
 * Usage: ivl_probe GROUP   (the join is retried for 10 s while corosync starts, and
 * again after a LOST). Exit 0 on SIGTERM, 1 when the first join never succeeds. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ivl/cluster_corosync.h"

static volatile sig_atomic_t stop;
static unsigned said_for;               /* the view size we said hello to, 0: none yet */
static unsigned view_n;                 /* members in the view now */
static struct zvs_cluster *cl;

static void on_term(int sig)
{
    stop = 1;
}

static void list(const char *what, const uint32_t *n, unsigned k, const char *pre)
{
    printf("%s%s", what, pre);
    for (unsigned i = 0; i < k; i++)
        printf("%s%u", i ? "," : "", n[i]);
    printf("\n");
}

static void on_confchg(void *arg, const uint32_t *m, unsigned n, const uint32_t *j,
                       unsigned nj, const uint32_t *l, unsigned nl)
{
    list("VIEW", m, n, " ");
    view_n = n;
}

/* "v<members>-<node>" once in every new view: sent in a view, it reaches every member of
 * that view (virtual synchrony), so a lab sees each system heard each other. Tried again
 * from the loop while the engine answers -EAGAIN (its flow control during a sync). */
static void say_hello(void)
{
    if (view_n == 0 || said_for == view_n)
        return;
    char msg[32];
    int len = snprintf(msg, sizeof msg, "v%u-%u", view_n, zvs_cluster_node_id(cl));
    if (zvs_cluster_send(cl, msg, (size_t)len) == 0)
        said_for = view_n;
}

static void on_deliver(void *arg, uint32_t from, const void *msg, size_t len)
{
    printf("MSG %u %.*s\n", from, (int)len, (const char *)msg);
}

static void on_quorum(void *arg, bool quorate, const uint32_t *nodes, unsigned n)
{
    list(quorate ? "QUORUM 1" : "QUORUM 0", nodes, n, " ");
}

static void on_lost(void *arg)
{
    printf("LOST\n");
}

static int join_within(int ms)
{
    for (int waited = 0;; waited += 100) {
        int rc = zvs_cluster_join(cl);
        if (rc == 0 || waited >= ms || stop)
            return rc;
        usleep(100 * 1000);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ivl_probe GROUP\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    struct zvs_cluster_cb cb = { .confchg = on_confchg, .deliver = on_deliver,
                                 .quorum = on_quorum, .lost = on_lost };
    cl = zvs_cluster_corosync_new(argv[1], &cb);
    if (!cl || join_within(10000) != 0) {
        fprintf(stderr, "ivl_probe: cannot join %s\n", argv[1]);
        return 1;
    }
    printf("JOINED %u\nTOKEN %u\n", zvs_cluster_node_id(cl), zvs_cluster_token_ms(cl));
    while (!stop) {
        int fds[2];
        unsigned n = zvs_cluster_corosync_fds(cl, fds);
        if (n == 0) {                   /* lost: join again once the engine is back */
            if (join_within(1000) == 0) {
                said_for = view_n = 0;
                printf("JOINED %u\n", zvs_cluster_node_id(cl));
            }
            continue;
        }
        struct pollfd p[2];
        for (unsigned i = 0; i < n; i++)
            p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
        if (poll(p, n, said_for == view_n ? 200 : 20) > 0)
            zvs_cluster_run(cl, 0);
        say_hello();
    }
    zvs_cluster_leave(cl);
    zvs_cluster_destroy(cl);
    return 0;
}
