/* The guest NIC kinds through backends/nic_class.h, as the daemon calls them, on a host
 * that records what it is asked (no event loop, no switch, no root):
 *
 * - each kind's words for QUERY NIC DETAILS and the log, whether it is usable (a program
 *   kind only with the attach socket), and an unknown kind refused everywhere;
 * - a program's attachment: refused for no NIC, a kind no program drives and a NIC not
 *   coupled, each with the reply the program reads; granted on a coupled NIC, its session
 *   and SIGA-w watched; refused a second time; the session's end detaches it (both
 *   watches dropped, what it primed delivered);
 * - the per-owner state slots the kinds keep on their env.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/nic_class.h"
#include "backends/nic_tap.h"
#include "guests/nic_lcs.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio.h"

/* ---- a host that records ---------------------------------------------------------------- */

static struct {
    int      watched[8];
    unsigned nwatched;
    unsigned delivered;
} host_seen;

static int rec_watch(struct zvs_nic_side *b, int fd)
{
    host_seen.watched[host_seen.nwatched++] = fd;
    return 0;
}

static void rec_unwatch(struct zvs_nic_side *b, int fd)
{
    for (unsigned i = 0; i < host_seen.nwatched; i++)
        if (host_seen.watched[i] == fd) {
            host_seen.watched[i] = host_seen.watched[--host_seen.nwatched];
            return;
        }
    fail_msg("unwatch of fd %d, never watched", fd);
}

static void rec_deliver(struct zvs_nic_side *b, uint64_t now)
{
    host_seen.delivered++;
}

static const struct zvs_nic_host rec_host = {
    .watch = rec_watch, .unwatch = rec_unwatch, .deliver = rec_deliver,
};

static bool watched(int fd)
{
    for (unsigned i = 0; i < host_seen.nwatched; i++)
        if (host_seen.watched[i] == fd)
            return true;
    return false;
}

static struct zvs_nic_params params(const char *kind, bool attach_socket)
{
    return (struct zvs_nic_params){ .kind = kind, .userid = "LNXA", .vdev = 0xF000,
                                    .mac = { 2, 0, 0x0C, 0, 1, 0x0A },
                                    .ifname = "lnxb-f000", .devno = 0x0600,
                                    .attach_socket = attach_socket };
}

static void words(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                  const char *describe, const char *driver)
{
    char buf[96];
    zvs_nic_describe(p, b, buf, sizeof buf);
    assert_string_equal(buf, describe);
    zvs_nic_driver(p, b, buf, sizeof buf);
    assert_string_equal(buf, driver);
}

static void collect(void *ctx, const char *line)
{
    char *out = ctx;
    strcat(out, line);
    strcat(out, "\n");
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void each_kind_says_what_drives_it(void **state)
{
    assert_int_equal(zvs_nic_lcs_register(), 0);
    struct zvs_nic_params p = params("tap", false);
    assert_true(zvs_nic_usable(&p));
    words(&p, NULL, "tap lnxb-f000", "tap lnxb-f000");

    for (int socket = 0; socket < 2; socket++) {
        const char *kinds[] = { "qdio", "none" };
        for (int k = 0; k < 2; k++) {
            p = params(kinds[k], socket);
            assert_int_equal(zvs_nic_usable(&p), socket);
            words(&p, NULL, socket ? "external QDIO program" : "none", "external QDIO guest");
        }
    }

    p = params("lcs", false);
    assert_true(zvs_nic_usable(&p));
    words(&p, NULL, "LCS 0600-0601 (machine not logged on)", "external QDIO guest");
    char lines[512] = "";
    zvs_nic_details(&p, NULL, collect, lines);
    assert_string_equal(lines, "  LCS carries to the guest IPv4, ARP, RARP and SNA frames "
                               "only, untagged (no IPv6, no VLAN tags)\n");
    lines[0] = '\0';
    p = params("tap", false);
    zvs_nic_details(&p, NULL, collect, lines);
    assert_string_equal(lines, "");

    struct zvs_nic_env env = { .host = &rec_host };
    struct zvs_nic_side dummy, *b = &dummy;
    p = params("bogus", true);
    assert_false(zvs_nic_usable(&p));
    assert_int_equal(zvs_nic_open(&p, &env, NULL, &b), -ENOENT);
    assert_null(b);
    words(&p, NULL, "(unknown kind)", "(unknown kind)");
}

/* The peer's end of an attach connection: the one reply line the daemon sent. */
static const char *reply(int peer)
{
    static char buf[128];
    ssize_t n = recv(peer, buf, sizeof buf - 1, 0);
    assert_true(n > 0);
    buf[n] = '\0';
    return buf;
}

static void attach_pair(int *client, int *peer)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    *client = sv[0];
    *peer = sv[1];
}

static void a_program_attaches_to_a_coupled_nic_only(void **state)
{
    struct zvs_nic_env env = { .host = &rec_host };
    struct zvs_nic_params p = params("qdio", true);
    struct zvs_nic_side *b = NULL, *lcs = NULL;
    int client, peer, owner = 0;
    memset(&host_seen, 0, sizeof host_seen);
    assert_int_equal(zvs_nic_lcs_register(), 0);

    attach_pair(&client, &peer);
    zvs_nic_attach(NULL, client, "LNXA", 0xF000);
    assert_string_equal(reply(peer), "ERR no NICBIND QDIO NIC for that userid and vdev\n");
    close(peer);

    struct zvs_nic_params lp = params("lcs", false);
    assert_int_equal(zvs_nic_open(&lp, &env, &owner, &lcs), 0);
    assert_ptr_equal(lcs->owner, &owner);
    attach_pair(&client, &peer);
    zvs_nic_attach(lcs, client, "LNXA", 0xF000);
    assert_string_equal(reply(peer), "ERR no NICBIND QDIO NIC for that userid and vdev\n");
    close(peer);
    zvs_nic_close(lcs);

    assert_int_equal(zvs_nic_open(&p, &env, &owner, &b), 0);
    assert_string_equal(b->userid, "LNXA");
    assert_int_equal(b->vdev, 0xF000);
    assert_string_equal(zvs_nic_coupled_state(b), ", no program attached");
    attach_pair(&client, &peer);
    zvs_nic_attach(b, client, "LNXA", 0xF000);
    assert_string_equal(reply(peer), "ERR NIC not coupled\n");
    close(peer);

    int err = 0;
    struct zvs_port *port = zvs_nic_qdio_create("LNXA.F000", 1u << 20, 1500, &err);
    assert_non_null(port);
    assert_int_equal(zvs_nic_bind(b, port), 0);
    assert_ptr_equal(b->port, port);
    attach_pair(&client, &peer);
    zvs_nic_attach(b, client, "LNXA", 0xF000);
    assert_string_equal(reply(peer), "OK\n");
    assert_string_equal(zvs_nic_coupled_state(b), ", program attached");
    int siga = zvs_qdio_siga_fd(zvs_nic_qdio_queues(port));
    assert_int_equal(host_seen.nwatched, 2);
    assert_true(watched(client) && watched(siga));

    int client2, peer2;
    attach_pair(&client2, &peer2);
    zvs_nic_attach(b, client2, "LNXA", 0xF000);
    assert_string_equal(reply(peer2), "ERR NIC already attached\n");
    close(peer2);

    /* The program leaves: its session ends; what it primed is delivered first. */
    close(peer);
    zvs_nic_wake(b, client, EPOLLIN | EPOLLHUP, 0);
    assert_int_equal(host_seen.nwatched, 0);
    assert_int_equal(host_seen.delivered, 1);
    assert_string_equal(zvs_nic_coupled_state(b), ", no program attached");

    zvs_nic_unbind(b, 0);
    assert_null(b->port);
    zvs_nic_close(b);
    port->ops->destroy(port);
}

static void kinds_keep_per_owner_state_in_their_slot(void **state)
{
    struct zvs_nic_env env = { .host = &rec_host };
    const struct zvs_nic_class *qdio = zvs_nic_class_find("qdio");
    void **tap = zvs_nic_env_state(&env, &zvs_nic_tap_class);
    void **other = zvs_nic_env_state(&env, qdio);
    assert_non_null(tap);
    assert_non_null(other);
    assert_ptr_not_equal(tap, other);
    assert_ptr_equal(zvs_nic_env_state(&env, &zvs_nic_tap_class), tap);
    zvs_nic_env_started(&env);          /* the tap kind kept nothing: nothing to delete */
    zvs_nic_env_fini(&env);
    assert_null(env.kind[0].cls);
    assert_ptr_equal(env.host, &rec_host);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_kind_says_what_drives_it),
        cmocka_unit_test(a_program_attaches_to_a_coupled_nic_only),
        cmocka_unit_test(kinds_keep_per_owner_state_in_their_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
