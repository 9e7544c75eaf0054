/* The VXLAN underlay's neighbour table in the hermetic daemon
 * (tests/unit/hermetic/SYSTEM-VXLAN-NEIGHBOR.CONFIG: VXSW, VNI 5000 on OSA 28BA, remote
 * 10.0.0.2 whose MAC 02-BB-00-00-00-02 is a static neighbour, IPTIMEOUT 1). A configured
 * neighbour carries the first frame with no ARP request; SET VSWITCH ... VXLAN NEIGHBOR
 * (ours) changes the statement and the running table together, DELETE turning the
 * address back into a learned one (STALE: still carrying frames while it is asked again,
 * REACHABLE from the answer); QUERY VSWITCH shows every entry; the table's age is the
 * switch's IPTIMEOUT. A remote deleted and added again finds its static neighbour still
 * there. Behind a GATEWAY (SYSTEM-VXLAN-GATEWAY.CONFIG) the gateway is the next hop a
 * deleted static entry stays in the table for, not the remote's address. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_impl.h"          /* the switch's VXLAN uplink, for its table's age */
#include "daemon/step_fault.h"
#include "overlay/underlay_arp.h"
#include "overlay/uplink_vxlan.h"
#include "overlay/vxlan_codec.h"
#include "tests/unit/herm_vxlan.h"

static const char *const links[] = { "osa28ba", NULL };
static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 };   /* LNXA F000 */
static const uint8_t MAC_S[6] = { 0x02, 0x00, 0x0c, 0x00, 0x00, 0x22 };   /* set by command */
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t IP1[4] = { 10, 0, 0, 1 }, IP2[4] = { 10, 0, 0, 2 };

static struct herm *start(struct herm_guest **a)
{
    return herm_vx_start("tests/unit/hermetic/SYSTEM-VXLAN-NEIGHBOR.CONFIG", a);
}

/* The guest broadcasts; the underlay receives `frames` more frames, the last of them the
 * frame encapsulated to outer MAC `to` (NULL: the last one is an ARP request for
 * 10.0.0.2 instead). */
static void broadcast(struct herm *h, struct herm_guest *a, unsigned frames, const uint8_t *to)
{
    struct herm_link *l = herm_link(h, "osa28ba");
    uint64_t before = l->data_rx;
    uint8_t f[100];
    struct zvs_vxlan_decoded d;

    herm_frame(f, sizeof f, BCAST, MAC_A, 1);
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(l->data_rx, before + frames);
    if (!to) {
        assert_int_equal(zvs_be16(l->last + 12), 0x0806);
        assert_memory_equal(l->last, BCAST, 6);
        assert_memory_equal(l->last + 38, IP2, 4);      /* the target's address */
        return;
    }
    assert_int_equal(zvs_vxlan_decode(l->last, l->last_len, 4789, 9216, &d), ZVS_VXLAN_OK);
    assert_int_equal(d.vni, 5000);
    assert_memory_equal(l->last, to, 6);
    assert_memory_equal(l->last + d.inner_off, f, sizeof f);
}

/* ip names its MAC (an ARP request for our address, which we answer). */
static void speaks(struct herm *h, const uint8_t ip[4], const uint8_t mac[6])
{
    struct herm_link *l = herm_link(h, "osa28ba");
    uint64_t before = l->data_rx;
    uint8_t arp[ZVS_UARP_FRAME_LEN];

    zvs_uarp_request(arp, mac, ip, IP1);
    herm_link_send(h, "osa28ba", arp, sizeof arp);
    assert_int_equal(l->data_rx, before + 1);           /* our answer */
    assert_int_equal(zvs_be16(l->last + 20), 2);
}

/* 10.0.0.2 names its MAC. */
static void remote_speaks(struct herm *h, const uint8_t mac[6])
{
    speaks(h, IP2, mac);
}

static void configured_neighbor_asks_nothing(void **state)
{
    struct herm_guest *a;
    struct herm *h = start(&a);
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");

    herm_expect(q, "    Remote 0: 10.0.0.2  address: 10.0.0.2  state: ACTIVE  TX: 0  RX: 0\n"
                   "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: STATIC\n"
                   "    Encapsulated: 0");
    broadcast(h, a, 1, herm_vx_remote_mac);             /* the first frame, no ARP */
    broadcast(h, a, 1, herm_vx_remote_mac);
    q = herm_op(h, "QUERY VSWITCH VXSW DETAILS");
    herm_expect(q, "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: STATIC\n");
    herm_expect(q, "Encapsulated: 2  replicated: 0  decapsulated: 0");
    assert_null(strstr(q, "vxlan-no-neighbour"));
    /* Never aged: still STATIC, still no ARP, an hour later. */
    herm_warp(h, 3600);
    broadcast(h, a, 1, herm_vx_remote_mac);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  "
                "state: STATIC\n");
    herm_stop(h);
}

static void neighbor_set_and_deleted(void **state)
{
    struct herm_guest *a;
    struct herm *h = start(&a);

    /* Another MAC for the remote: the next frame goes there, unasked. */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.2 MAC "
                                   "02-00-0c-00-00-22"), "Command complete");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-00-0C-00-00-22  state: STATIC\n");
    broadcast(h, a, 1, MAC_S);

    /* DELETE: learned again, STALE with the MAC it had, so the next frame still goes
     * and asks; the answer makes it REACHABLE with the remote's own MAC. */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.2 DELETE"),
                        "Command complete");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-00-0C-00-00-22  state: STALE\n");
    broadcast(h, a, 2, MAC_S);                          /* the ARP request, the frame */
    remote_speaks(h, herm_vx_remote_mac);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: REACHABLE\n");
    broadcast(h, a, 1, herm_vx_remote_mac);
    herm_refused(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.2 DELETE", 1229,
                 "ZVSVXL1229E VSWITCH VXSW has no static neighbor 10.0.0.2");

    /* Static again: it replaces the learned entry; the remote's word does not move it. */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.2 MAC "
                                   "02-00-0C-00-00-22"), "Command complete");
    remote_speaks(h, herm_vx_remote_mac);
    broadcast(h, a, 1, MAC_S);

    /* An address that is no next hop: shown while static, gone when deleted. */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.9 MAC "
                                   "02-00-0c-00-00-99"), "Command complete");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-00-0C-00-00-22  state: STATIC\n"
                "    Neighbor 10.0.0.9  MAC 02-00-0C-00-00-99  state: STATIC\n");
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.9 DELETE"),
                        "Command complete");
    assert_null(strstr(herm_op(h, "QUERY VSWITCH VXSW"), "10.0.0.9"));
    herm_stop(h);
}

/* SET ... NEIGHBOR addr refused as no unicast address of another host (the response
 * shows the command's text upper-cased: shown). */
static void not_unicast(struct herm *h, const char *addr, const char *shown)
{
    char line[128], want[128];

    snprintf(line, sizeof line, "SET VSWITCH VXSW VXLAN NEIGHBOR %s MAC 02-00-0c-00-00-22",
             addr);
    snprintf(want, sizeof want, "ZVSVXL1232E Neighbor %s is not a unicast address of "
             "another host", shown);
    herm_refused(h, line, 1232, want);
}

static void neighbor_refused(void **state)
{
    struct herm_guest *a;
    struct herm *h = start(&a);
    char line[96];

    herm_refused(h, "SET VSWITCH NOSUCH VXLAN NEIGHBOR 10.0.0.2 DELETE", 1111,
                 "ZVSVSW1111E VSWITCH NOSUCH does not exist");
    herm_op(h, "DEFINE VSWITCH PLAIN RDEV NONE");
    herm_refused(h, "SET VSWITCH PLAIN VXLAN NEIGHBOR 10.0.0.2 MAC 02-00-0c-00-00-22", 1220,
                 "ZVSVXL1220E VSWITCH PLAIN has no VXLAN uplink");
    herm_refused(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 2001:db8::2 MAC 02-00-0c-00-00-22",
                 1230, "ZVSVXL1230E Neighbor 2001:DB8::2 is not of the address family of "
                 "LOCAL 10.0.0.1");
    not_unicast(h, "0.0.0.0", "0.0.0.0");
    not_unicast(h, "255.255.255.255", "255.255.255.255");
    not_unicast(h, "224.0.0.1", "224.0.0.1");
    not_unicast(h, "10.0.0.1", "10.0.0.1");                 /* LOCAL's own */
    herm_refused(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.3 DELETE", 1229,
                 "ZVSVXL1229E VSWITCH VXSW has no static neighbor 10.0.0.3");
    herm_refused(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.3 MAC 01-00-5e-00-00-01", 1105,
                 "ZVSCMD1105E Invalid MAC value - 01-00-5E-00-00-01; valid: "
                 "XX-XX-XX-XX-XX-XX, A UNICAST MAC");
    int rc;
    herm_cp(h, "LNXA", "G", "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.3 MAC 02-00-0c-00-00-33",
            &rc);
    assert_int_not_equal(rc, 0);
    /* Up to 16 in the statement (the configured one among them). */
    for (int i = 2; i <= 16; i++) {
        snprintf(line, sizeof line, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.1.%d MAC "
                 "02-00-00-00-01-%02X", i, i);
        assert_string_equal(herm_op(h, line), "Command complete");
    }
    herm_refused(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.1.17 MAC 02-00-00-00-01-11", 1231,
                 "ZVSVXL1231E VSWITCH VXSW has 16 static neighbors: no room for 10.0.1.17");
    /* One of them given a new MAC is no new one. */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.1.16 MAC "
                                   "02-00-00-00-01-FF"), "Command complete");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.1.16  MAC 02-00-00-00-01-FF  state: STATIC\n");
    assert_null(strstr(herm_op(h, "QUERY VSWITCH VXSW"), "10.0.0.3"));
    broadcast(h, a, 1, herm_vx_remote_mac);             /* 10.0.0.2 as configured */
    herm_stop(h);
}

/* Over an IPv6 underlay the same: the unspecified address, a multicast one and LOCAL's
 * own are no neighbour's. */
static void neighbor_not_unicast_ipv6(void **state)
{
    struct herm_guest *a;
    struct herm *h = herm_vx_start("tests/unit/hermetic/SYSTEM-VXLAN6-MTU.CONFIG", &a);

    not_unicast(h, "::", "::");
    not_unicast(h, "ff02::1", "FF02::1");
    not_unicast(h, "2001:db8::1", "2001:DB8::1");           /* LOCAL's own */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 2001:db8::2 MAC "
                                   "02-00-0c-00-00-22"), "Command complete");
    herm_stop(h);
}

/* A neighbour's set failing (the step's fault) refuses the command with every QUERY line
 * as it was and the same command standing after. The fault fires at the pass's only
 * step, before anything changed, so this checks the refusal and the executor's compare,
 * not a reverse pass undoing a set: a SET ... NEIGHBOR changes one neighbour, and no
 * step after it in the pass can fail (daemon_vxlan_follow.c). */
static void neighbor_set_rolled_back(void **state)
{
    struct herm_guest *a;
    struct herm *h = start(&a);
    char *before = strdup(herm_op(h, "QUERY VSWITCH VXSW DETAILS"));
    int rc;

    zvsd_step_fail(h->d, ZVSD_STEP_VXLAN, 1, ENOSPC);
    const char *out = herm_cp(h, "OPERATOR", "ABCDEFG", "SET VSWITCH VXSW VXLAN NEIGHBOR "
                              "10.0.0.2 MAC 02-00-0c-00-00-22", &rc);
    assert_int_equal(rc, 1119);
    herm_expect(out, "Warning: VSWITCH VXSW VXLAN: NEIGHBOR 10.0.0.2: No space left on "
                     "device\n");
    herm_expect(out, "ZVSCMD1119S");
    zvsd_step_fail(h->d, ZVSD_STEP_VXLAN, 0, 0);
    assert_string_equal(herm_op(h, "QUERY VSWITCH VXSW DETAILS"), before);
    free(before);
    broadcast(h, a, 1, herm_vx_remote_mac);             /* still the configured MAC */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.2 MAC "
                                   "02-00-0c-00-00-22"), "Command complete");
    broadcast(h, a, 1, MAC_S);
    herm_stop(h);
}

/* The running table of switch `name`'s VXLAN uplink. */
static const struct zvs_uarp *table_of(struct herm *h, const char *name)
{
    for (unsigned i = 0; i < h->d->nsw; i++) {
        const struct d_switch *ds = &h->d->sw[i];

        if (!ds->sw || strcmp(ds->cfg.name, name) != 0)
            continue;
        for (struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL); p;
             p = zvs_switch_next_port(ds->sw, p))
            if (zvs_uplink_is_vxlan(p))
                return zvs_vtep_uarp(zvs_uplink_vxlan_vtep(p));
    }
    fail_msg("no VXLAN uplink on %s", name);
    return NULL;
}

/* The neighbours' age is the switch's IPTIMEOUT: 1 minute here, 3 (180 s) behind the
 * gateway, the default 5 (300 s, the table's own default) without one. Aging itself, on
 * the daemon loop's clock, is test_daemon_vxlan_aging.c's. */
static void age_is_iptimeout(void **state)
{
    struct herm_guest *a;
    struct herm *h = start(&a);

    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "IPTimeout: 1 ");
    assert_int_equal(table_of(h, "VXSW")->age_ns, UINT64_C(60000000000));
    herm_stop(h);

    struct herm_opts o = {
        .sysconfig = "tests/unit/hermetic/SYSTEM-VXLAN.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links,
    };
    h = herm_start(&o);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "IPTimeout: 5 ");
    assert_int_equal(table_of(h, "VXSW")->age_ns, ZVS_UARP_DEFAULT_AGE);
    herm_stop(h);

    h = herm_vx_start("tests/unit/hermetic/SYSTEM-VXLAN-GATEWAY.CONFIG", &a);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "IPTimeout: 3 ");
    assert_int_equal(table_of(h, "VXSW")->age_ns, UINT64_C(180000000000));
    herm_stop(h);
}

/* A remote deleted while its address has a static neighbour: the delete takes the entry
 * from the table with the remote and the pass sets it again, so QUERY still shows it
 * STATIC, and the remote added again sends to the configured MAC without asking. */
static void remote_deleted_keeps_static(void **state)
{
    struct herm_guest *a;
    struct herm *h = start(&a);
    struct herm_link *l = herm_link(h, "osa28ba");

    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN REMOTE DELETE 10.0.0.2"),
                        "Command complete");
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");
    assert_null(strstr(q, "Remote 0:"));
    herm_expect(q, "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: STATIC\n");
    uint64_t before = l->data_rx;
    uint8_t f[100];
    herm_frame(f, sizeof f, BCAST, MAC_A, 1);
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(l->data_rx, before);               /* no remote: nothing, no ARP */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN REMOTE ADD 10.0.0.2"),
                        "Command complete");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: STATIC\n");
    broadcast(h, a, 1, herm_vx_remote_mac);             /* one frame: no ARP request */
    herm_stop(h);
}

/* Behind a GATEWAY the gateway is the next hop: its static entry deleted stays in the
 * table, STALE, still carrying frames while it is asked (the answer makes it
 * REACHABLE); a static entry for the remote's own address, no next hop there, leaves
 * the table when deleted. */
static void gateway_static_deleted(void **state)
{
    static const uint8_t MAC_GW[6] = { 0x02, 0x00, 0x0c, 0x00, 0x00, 0xfe };
    static const uint8_t MAC_GW2[6] = { 0x02, 0x00, 0x0c, 0x00, 0x00, 0xef };
    static const uint8_t GW[4] = { 10, 0, 0, 254 };
    struct herm_guest *a;
    struct herm *h = herm_vx_start("tests/unit/hermetic/SYSTEM-VXLAN-GATEWAY.CONFIG", &a);

    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.254  MAC 02-00-0C-00-00-FE  state: STATIC\n"
                "    Neighbor 10.0.9.2  MAC 02-00-0C-00-00-92  state: STATIC\n");
    broadcast(h, a, 1, MAC_GW);                         /* to the gateway, unasked */

    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.254 DELETE"),
                        "Command complete");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.254  MAC 02-00-0C-00-00-FE  state: STALE\n");
    broadcast(h, a, 2, MAC_GW);                         /* the ARP request, the frame */
    speaks(h, GW, MAC_GW2);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.254  MAC 02-00-0C-00-00-EF  state: REACHABLE\n");
    broadcast(h, a, 1, MAC_GW2);

    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.9.2 DELETE"),
                        "Command complete");
    assert_null(strstr(herm_op(h, "QUERY VSWITCH VXSW"), "Neighbor 10.0.9.2"));
    broadcast(h, a, 1, MAC_GW2);
    herm_stop(h);
}

/* The first of three static neighbours deleted: the statement keeps the other two in
 * their order (its dump) and QUERY shows just them. */
static void first_of_three_deleted(void **state)
{
    struct herm_guest *a;
    struct herm *h = start(&a);
    char *dump = NULL;
    size_t dumplen = 0;
    FILE *out;

    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.7 MAC "
                                   "02-00-0c-00-00-07"), "Command complete");
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.8 MAC "
                                   "02-00-0c-00-00-08"), "Command complete");
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.2 DELETE"),
                        "Command complete");
    assert_non_null(out = open_memstream(&dump, &dumplen));
    zvs_cfg_dump(h->d->run, out);
    fclose(out);
    herm_expect(dump, "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.7 MAC 02-00-0C-00-00-07\n"
                      "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.8 MAC 02-00-0C-00-00-08\n");
    assert_null(strstr(dump, "NEIGHBOR 10.0.0.2"));
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: STALE\n"
                "    Neighbor 10.0.0.7  MAC 02-00-0C-00-00-07  state: STATIC\n"
                "    Neighbor 10.0.0.8  MAC 02-00-0C-00-00-08  state: STATIC\n");
    free(dump);
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(configured_neighbor_asks_nothing),
        cmocka_unit_test(neighbor_set_and_deleted),
        cmocka_unit_test(neighbor_refused),
        cmocka_unit_test(neighbor_not_unicast_ipv6),
        cmocka_unit_test(neighbor_set_rolled_back),
        cmocka_unit_test(age_is_iptimeout),
        cmocka_unit_test(remote_deleted_keeps_static),
        cmocka_unit_test(gateway_static_deleted),
        cmocka_unit_test(first_of_three_deleted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
