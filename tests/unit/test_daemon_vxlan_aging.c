/* The VXLAN uplink's tables age on the daemon's clock (overlay/uplink_vxlan.h's clock,
 * the event loop's: daemon/daemon_vxlan.c), so here they age in virtual time
 * (tests/unit/hermetic/SYSTEM-VXLAN-AGING.CONFIG: VXSW, VNI 5000 on OSA 28BA, remotes
 * 10.0.0.2, whose MAC the underlay's ARP learns, and 10.0.0.3, a static neighbour;
 * IPTIMEOUT 1). A remote MAC learned from a decapsulated frame leaves the table at the
 * first aging pass (once a second, also on an idle segment) at or after the table's age
 * (300 s: overlay/vtep.h), and frames to it are flooded to every remote again. A learned
 * neighbour turns STALE at its first use an IPTIMEOUT after its answer, still carrying
 * that frame while an ARP request asks again, and REACHABLE with the answer; a static
 * one is never asked. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/underlay_arp.h"
#include "tests/unit/herm_vxlan.h"

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 };   /* LNXA F000 */
static const uint8_t MAC_R[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x0a };   /* behind .2 */
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t IP2[4] = { 10, 0, 0, 2 };

#define FDB_AGE (300 * HERM_S)          /* vtep.h: fdb_age_ns 0, the daemon's */
#define IPTIMEOUT (60 * HERM_S)         /* IPTIMEOUT 1 (minutes) */

/* The guest sends a frame to dst; the underlay receives `frames` more, `arps` of them
 * ARP requests. */
static void guest_sends(struct herm *h, struct herm_guest *a, const uint8_t dst[6],
                        unsigned frames, unsigned arps)
{
    struct herm_link *l = herm_link(h, "osa28ba");
    uint64_t before = l->data_rx, arp_before = l->arp_rx;
    uint8_t f[100];

    herm_frame(f, sizeof f, dst, MAC_A, 1);
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(l->data_rx, before + frames);
    assert_int_equal(l->arp_rx, arp_before + arps);
}

/* The last ARP frame on the underlay asks for 10.0.0.2 (broadcast, a request). */
static void asked_for_remote(struct herm *h)
{
    struct herm_link *l = herm_link(h, "osa28ba");

    assert_memory_equal(l->last_arp, BCAST, 6);
    assert_int_equal(zvs_be16(l->last_arp + 20), 1);
    assert_memory_equal(l->last_arp + 38, IP2, 4);
}

/* 10.0.0.2 answers the last request: its reply, as its own table writes it. */
static void remote_answers(struct herm *h)
{
    struct herm_link *l = herm_link(h, "osa28ba");
    uint64_t before = l->data_rx;
    uint8_t reply[ZVS_UARP_FRAME_LEN];
    struct zvs_uarp *remote = calloc(1, sizeof *remote);

    assert_non_null(remote);
    zvs_uarp_init(remote, 0);
    assert_int_equal(zvs_uarp_input(remote, l->last_arp, l->last_arp_len, IP2,
                                     herm_vx_remote_mac, 0, reply), ZVS_UARP_FRAME_LEN);
    free(remote);
    assert_int_equal(zvs_be16(reply + 20), 2);
    herm_link_send(h, "osa28ba", reply, sizeof reply);
    assert_int_equal(l->data_rx, before);               /* a reply asks for nothing */
}

/* The copies beyond the first that head-end replication sent (QUERY VSWITCH). */
static unsigned long replicated(struct herm *h)
{
    const char *q = strstr(herm_op(h, "QUERY VSWITCH VXSW"), "replicated: ");

    assert_non_null(q);
    return strtoul(q + strlen("replicated: "), NULL, 10);
}

static void remote_mac_ages_out(void **state)
{
    struct herm_guest *a;
    struct herm *h = herm_vx_start("tests/unit/hermetic/SYSTEM-VXLAN-AGING.CONFIG", &a);
    struct herm_link *l = herm_link(h, "osa28ba");
    uint8_t inner[100];
    const char *q;

    /* 10.0.0.2's MAC configured too: no ARP in the counts below. */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN NEIGHBOR 10.0.0.2 MAC "
                                   "02-BB-00-00-00-02"), "Command complete");
    uint64_t t = herm_now_ns(h);
    herm_frame(inner, sizeof inner, MAC_A, MAC_R, 1);
    herm_vx_send(h, "osa28ba", NULL, inner, sizeof inner, 5000);
    assert_int_equal(herm_guest_receive(h, a), 1);
    q = herm_op(h, "QUERY VSWITCH VXSW DETAILS");
    herm_expect(q, "learned MACs: 1 of 8192");
    herm_expect(q, "    MAC 02-00-00-00-0A-0A VNI 5000  remote 0\n");
    guest_sends(h, a, MAC_R, 1, 0);                     /* to 10.0.0.2 only */
    assert_memory_equal(l->last, herm_vx_remote_mac, 6);
    assert_int_equal(replicated(h), 0);

    /* Just before the age: still there. */
    herm_warp_ns(h, t + FDB_AGE - 1);
    q = herm_op(h, "QUERY VSWITCH VXSW DETAILS");
    herm_expect(q, "learned MACs: 1 of 8192");
    herm_expect(q, "    MAC 02-00-00-00-0A-0A VNI 5000  remote 0\n");

    /* Past it by the aging pass's second, with no frame in between: gone. */
    herm_warp_ns(h, t + FDB_AGE + HERM_S);
    q = herm_op(h, "QUERY VSWITCH VXSW DETAILS");
    herm_expect(q, "learned MACs: 0 of 8192");
    assert_null(strstr(q, "MAC 02-00-00-00-0A-0A"));
    guest_sends(h, a, MAC_R, 2, 0);                     /* unknown: to both remotes */
    assert_int_equal(replicated(h), 1);
    herm_stop(h);
}

static void neighbor_ages_to_stale(void **state)
{
    struct herm_guest *a;
    struct herm *h = herm_vx_start("tests/unit/hermetic/SYSTEM-VXLAN-AGING.CONFIG", &a);

    /* The first broadcast asks for 10.0.0.2 and reaches 10.0.0.3 only. */
    guest_sends(h, a, BCAST, 2, 1);
    asked_for_remote(h);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC -  state: INCOMPLETE\n");
    uint64_t t = herm_now_ns(h);
    remote_answers(h);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.3  MAC 02-BB-00-00-00-03  state: STATIC\n"
                "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: REACHABLE\n");
    guest_sends(h, a, BCAST, 2, 0);

    /* Just before IPTIMEOUT: still REACHABLE, nothing asked. */
    herm_warp_ns(h, t + IPTIMEOUT - 1);
    guest_sends(h, a, BCAST, 2, 0);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: REACHABLE\n");

    /* At IPTIMEOUT: STALE at its next use, that frame still carried to it, asked again;
     * the static neighbour is neither. */
    herm_warp_ns(h, t + IPTIMEOUT);
    guest_sends(h, a, BCAST, 3, 1);
    asked_for_remote(h);
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");
    herm_expect(q, "    Remote 0: 10.0.0.2  address: 10.0.0.2  state: ACTIVE  TX: 3  RX: 0\n");
    herm_expect(q, "    Neighbor 10.0.0.3  MAC 02-BB-00-00-00-03  state: STATIC\n"
                   "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: STALE\n");

    /* The answer: REACHABLE again, frames go unasked. */
    remote_answers(h);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: REACHABLE\n");
    guest_sends(h, a, BCAST, 2, 0);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Remote 0: 10.0.0.2  address: 10.0.0.2  state: ACTIVE  TX: 4  RX: 0\n");
    herm_stop(h);
}

/* A static neighbour (tests/unit/hermetic/SYSTEM-VXLAN-NEIGHBOR.CONFIG: 10.0.0.2's MAC
 * configured, IPTIMEOUT 1) after the same warp and past it: STATIC, never asked. */
static void static_neighbor_never_ages(void **state)
{
    struct herm_guest *a;
    struct herm *h = herm_vx_start("tests/unit/hermetic/SYSTEM-VXLAN-NEIGHBOR.CONFIG", &a);
    uint64_t t = herm_now_ns(h);

    guest_sends(h, a, BCAST, 1, 0);
    herm_warp_ns(h, t + IPTIMEOUT);
    guest_sends(h, a, BCAST, 1, 0);
    herm_warp_ns(h, t + IPTIMEOUT + 2 * HERM_S);
    guest_sends(h, a, BCAST, 1, 0);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "    Neighbor 10.0.0.2  MAC 02-BB-00-00-00-02  state: STATIC\n");
    assert_int_equal(herm_link(h, "osa28ba")->arp_rx, 0);
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(remote_mac_ages_out),
        cmocka_unit_test(neighbor_ages_to_stale),
        cmocka_unit_test(static_neighbor_never_ages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
