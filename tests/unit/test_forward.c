/* Forwarding decisions of the switch core, with recording fake ports: exact frames on
 * exact ports, exact counters and drop reasons. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fake_port.h"
#include "dataplane/distribution.h"
#include "dataplane/mac_table.h"
#include "dataplane/switch.h"
#include "dataplane/vnet.h"

#define NS 1000000000ull

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x01 };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x02 };
static const uint8_t MAC_C[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x03 };
static const uint8_t MAC_LAN[6] = { 0x00, 0x1B, 0x21, 0x00, 0x00, 0x01 };
static const uint8_t MAC_BCAST[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

struct lab {
    struct zvs_switch *sw;
    struct fake_port  *up, *a, *b, *c;
};

/* A frame: dst, src, optional tag, ethertype 0x0800, payload of `plen` bytes 0..plen-1. */
static uint32_t build(uint8_t *buf, const uint8_t *dst, const uint8_t *src, int vid, uint32_t plen)
{
    uint32_t o = 0;
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    o = 12;
    if (vid >= 0) {
        buf[o++] = 0x81; buf[o++] = 0x00;
        buf[o++] = (uint8_t)(vid >> 8); buf[o++] = (uint8_t)vid;
    }
    buf[o++] = 0x08; buf[o++] = 0x00;
    for (uint32_t i = 0; i < plen; i++)
        buf[o++] = (uint8_t)i;
    return o;
}

static void send1(struct lab *l, struct fake_port *from, const uint8_t *bytes, uint32_t len, uint64_t now)
{
    struct zvs_frame f = { .data = bytes, .len = len };
    zvs_switch_input(l->sw, &from->port, &f, 1, now);
}

static struct zvs_guest guest(const char *owner, const uint8_t *mac, bool macprotect,
                              enum zvs_vlan_porttype pt, uint16_t vid)
{
    struct zvs_guest g = { .macprotect = macprotect, .vdev = 0xF000 };
    strcpy(g.owner, owner);
    memcpy(g.mac, mac, 6);
    zvs_vlan_port_init(&g.vlan, pt, vid);
    return g;
}

static void lab_setup(struct lab *l, bool aware, uint16_t vid_a, uint16_t vid_b, uint16_t vid_c)
{
    struct zvs_switch_params p = { .name = "CCBVSW1",
                                   .vlan = { .aware = aware, .native_vid = 1 } };
    l->sw = zvs_switch_create(&p);
    assert_non_null(l->sw);
    l->up = fake_port_new("28BA", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    l->a = fake_port_new("LNXA.F000", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    l->b = fake_port_new("LNXB.F000", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    l->c = fake_port_new("LNXC.F000", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    assert_int_equal(zvs_switch_add_uplink(l->sw, &l->up->port), 0);
    struct zvs_guest ga = guest("LNXA", MAC_A, true, ZVS_VLAN_ACCESS, vid_a);
    struct zvs_guest gb = guest("LNXB", MAC_B, true, ZVS_VLAN_ACCESS, vid_b);
    struct zvs_guest gc = guest("LNXC", MAC_C, true, ZVS_VLAN_ACCESS, vid_c);
    assert_int_equal(zvs_switch_add_guest(l->sw, &l->a->port, &ga), 0);
    assert_int_equal(zvs_switch_add_guest(l->sw, &l->b->port, &gb), 0);
    assert_int_equal(zvs_switch_add_guest(l->sw, &l->c->port, &gc), 0);
}

static void lab_reset(struct lab *l)
{
    fake_port_reset(l->up);
    fake_port_reset(l->a);
    fake_port_reset(l->b);
    fake_port_reset(l->c);
}

static void guest_to_guest_unicast_is_local(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 1, 1);
    uint32_t len = build(fr, MAC_B, MAC_A, -1, 60);
    send1(&l, l.a, fr, len, 1);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.b->frames[0].len, len);
    assert_memory_equal(l.b->frames[0].bytes, fr, len);
    assert_int_equal(l.up->nframes, 0);
    assert_int_equal(l.c->nframes, 0);
    assert_int_equal(l.a->port.ctr.in_packets, 1);
    assert_int_equal(l.a->port.ctr.in_bytes, len);
    assert_int_equal(l.b->port.ctr.out_packets, 1);
    assert_int_equal(l.b->port.ctr.out_bytes, len);
    assert_int_equal(l.b->flushes, 1);
    /* Device view: A's NIC transmitted it, B's NIC received it. */
    struct zvs_device_counters d;
    zvs_port_device_counters(&l.a->port, &d);
    assert_int_equal(d.tx_packets, 1);
    assert_int_equal(d.rx_packets, 0);
    zvs_port_device_counters(&l.b->port, &d);
    assert_int_equal(d.rx_packets, 1);
    assert_int_equal(d.rx_bytes, len);
    zvs_switch_destroy(l.sw);
}

static void unknown_unicast_goes_uplink_only(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 1, 1);
    uint32_t len = build(fr, MAC_LAN, MAC_A, -1, 46);
    send1(&l, l.a, fr, len, 1);
    assert_int_equal(l.up->nframes, 1);
    assert_memory_equal(l.up->frames[0].bytes, fr, len);
    assert_int_equal(l.b->nframes + l.c->nframes, 0);
    struct zvs_device_counters d;
    zvs_port_device_counters(&l.up->port, &d);
    assert_int_equal(d.tx_packets, 1);      /* the OSA transmitted it to the LAN */
    assert_int_equal(d.tx_bytes, len);
    zvs_switch_destroy(l.sw);
}

static void guest_broadcast_floods_all_but_sender(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 1, 1);
    uint32_t len = build(fr, MAC_BCAST, MAC_A, -1, 46);
    send1(&l, l.a, fr, len, 1);
    assert_int_equal(l.a->nframes, 0);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.c->nframes, 1);
    assert_int_equal(l.up->nframes, 1);
    assert_memory_equal(l.c->frames[0].bytes, fr, len);
    zvs_switch_destroy(l.sw);
}

static void uplink_unicast_broadcast_and_filter(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 1, 1);
    uint32_t len = build(fr, MAC_C, MAC_LAN, -1, 46);
    send1(&l, l.up, fr, len, 1);
    assert_int_equal(l.c->nframes, 1);
    assert_int_equal(l.a->nframes + l.b->nframes + l.up->nframes, 0);

    lab_reset(&l);
    len = build(fr, MAC_BCAST, MAC_LAN, -1, 46);
    send1(&l, l.up, fr, len, 2);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.c->nframes, 1);
    assert_int_equal(l.up->nframes, 0);     /* never uplink to uplink */

    /* A unicast for nobody here: dropped as an OSA address filter would, not counted
     * as received. */
    lab_reset(&l);
    uint8_t other[6] = { 0x00, 0x1B, 0x21, 0x00, 0x00, 0x99 };
    len = build(fr, other, MAC_LAN, -1, 46);
    send1(&l, l.up, fr, len, 3);
    assert_int_equal(l.a->nframes + l.b->nframes + l.c->nframes + l.up->nframes, 0);
    assert_int_equal(l.up->port.ctr.in_packets, 2);
    assert_int_equal(l.up->port.ctr.in_discards, 0);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_FILTERED], 1);
    zvs_switch_destroy(l.sw);
}

static void vlan_aware_broadcast_stays_in_vlan(void **state)
{
    struct lab l;
    uint8_t fr[128], want[128];
    lab_setup(&l, true, 10, 10, 20);
    uint32_t len = build(fr, MAC_BCAST, MAC_A, -1, 46);
    send1(&l, l.a, fr, len, 1);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.c->nframes, 0);      /* VLAN 20 */
    assert_int_equal(l.up->nframes, 1);
    /* On the uplink trunk, VLAN 10 is tagged (native is 1). */
    uint32_t wlen = build(want, MAC_BCAST, MAC_A, 10, 46);
    assert_int_equal(l.up->frames[0].len, wlen);
    assert_memory_equal(l.up->frames[0].bytes, want, wlen);

    /* Tagged VLAN 20 from the LAN reaches only C, untagged. */
    lab_reset(&l);
    len = build(fr, MAC_BCAST, MAC_LAN, 20, 46);
    send1(&l, l.up, fr, len, 2);
    assert_int_equal(l.a->nframes + l.b->nframes, 0);
    assert_int_equal(l.c->nframes, 1);
    wlen = build(want, MAC_BCAST, MAC_LAN, -1, 46);
    assert_int_equal(l.c->frames[0].len, wlen);
    assert_memory_equal(l.c->frames[0].bytes, want, wlen);

    /* A unicast to C's MAC on VLAN 10 does not reach C: its MAC is registered on 20. */
    lab_reset(&l);
    len = build(fr, MAC_C, MAC_LAN, 10, 46);
    send1(&l, l.up, fr, len, 3);
    assert_int_equal(l.c->nframes, 0);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_FILTERED], 1);
    zvs_switch_destroy(l.sw);
}

static void trunk_guest_only_granted_vlans(void **state)
{
    struct zvs_switch_params p = { .name = "VSW", .vlan = { .aware = true, .native_vid = 1 } };
    struct zvs_switch *sw = zvs_switch_create(&p);
    struct fake_port *up = fake_port_new("28BA", 3, 1500), *t = fake_port_new("TRK.F000", 3, 1500);
    struct zvs_guest g = guest("TRK", MAC_A, true, ZVS_VLAN_TRUNK, 0);
    assert_int_equal(zvs_vlan_parse_set("10 20", &g.vlan), 0);
    assert_int_equal(zvs_switch_add_uplink(sw, &up->port), 0);
    assert_int_equal(zvs_switch_add_guest(sw, &t->port, &g), 0);
    uint8_t fr[128];
    struct zvs_frame f;

    uint32_t len = build(fr, MAC_LAN, MAC_A, 30, 46);   /* VLAN 30: not granted */
    f = (struct zvs_frame){ .data = fr, .len = len };
    zvs_switch_input(sw, &t->port, &f, 1, 1);
    assert_int_equal(up->nframes, 0);
    assert_int_equal(t->port.ctr.drops[ZVS_DROP_VLAN_DENIED], 1);
    assert_int_equal(t->port.ctr.in_discards, 1);

    len = build(fr, MAC_LAN, MAC_A, 20, 46);            /* granted: passes tagged */
    f = (struct zvs_frame){ .data = fr, .len = len };
    zvs_switch_input(sw, &t->port, &f, 1, 2);
    assert_int_equal(up->nframes, 1);
    assert_memory_equal(up->frames[0].bytes, fr, len);

    len = build(fr, MAC_A, MAC_LAN, 10, 46);            /* LAN to trunk guest: keeps tag */
    f = (struct zvs_frame){ .data = fr, .len = len };
    zvs_switch_input(sw, &up->port, &f, 1, 3);
    assert_int_equal(t->nframes, 1);
    assert_memory_equal(t->frames[0].bytes, fr, len);
    zvs_switch_destroy(sw);
}

static void macprotect_and_learning(void **state)
{
    struct lab l;
    uint8_t fr[128];
    uint8_t spoof[6] = { 0x02, 0x00, 0x0C, 0x00, 0x09, 0x09 };
    lab_setup(&l, false, 1, 1, 1);
    uint32_t len = build(fr, MAC_LAN, spoof, -1, 46);
    send1(&l, l.a, fr, len, 1);
    assert_int_equal(l.up->nframes, 0);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_MACPROTECT], 1);
    assert_int_equal(l.a->port.ctr.in_discards, 1);
    assert_int_equal(l.a->port.ctr.in_packets, 1);

    /* Protection off: the extra MAC is learned and the LAN can reach it. */
    zvs_switch_set_macprotect(l.sw, &l.a->port, false);
    send1(&l, l.a, fr, len, 2 * NS);
    assert_int_equal(l.up->nframes, 1);
    assert_int_equal(zvs_mac_table_lookup(zvs_switch_mac_table(l.sw), spoof, 0), l.a->port.index);
    len = build(fr, spoof, MAC_LAN, -1, 46);
    send1(&l, l.up, fr, len, 3 * NS);
    assert_int_equal(l.a->nframes, 1);

    /* Protection back on: the learned entry is forgotten at once. */
    zvs_switch_set_macprotect(l.sw, &l.a->port, true);
    assert_int_equal(zvs_mac_table_lookup(zvs_switch_mac_table(l.sw), spoof, 0), -1);
    zvs_switch_destroy(l.sw);
}

static void bad_input_counted_never_forwarded(void **state)
{
    struct lab l;
    uint8_t fr[2048] = { 0 };
    lab_setup(&l, false, 1, 1, 1);
    send1(&l, l.a, fr, 13, 1);                          /* runt */
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_RUNT], 1);
    assert_int_equal(l.a->port.ctr.in_errors, 1);
    uint32_t len = build(fr, MAC_LAN, MAC_A, -1, 1501); /* 1515 bytes > MTU 1500 */
    send1(&l, l.a, fr, len, 2);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_OVERSIZE], 1);
    uint8_t mcast_src[6] = { 0x03, 0, 0, 0, 0, 1 };
    len = build(fr, MAC_LAN, mcast_src, -1, 46);
    send1(&l, l.up, fr, len, 3);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_BAD_SRC], 1);
    /* Slow Protocols from a guest: discarded. */
    uint8_t slow[6] = { 0x01, 0x80, 0xC2, 0, 0, 2 };
    len = build(fr, slow, MAC_A, -1, 46);
    fr[12] = 0x88; fr[13] = 0x09;
    send1(&l, l.a, fr, len, 4);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_SLOW_PROTO], 1);
    assert_int_equal(l.up->nframes + l.b->nframes + l.c->nframes, 0);
    assert_int_equal(l.a->port.ctr.in_errors, 2);
    assert_int_equal(l.a->port.ctr.in_discards, 1);
    zvs_switch_destroy(l.sw);
}

static int slow_seen;
static void on_slow(void *arg, struct zvs_port *port, const struct zvs_frame *f, uint64_t now)
{
    slow_seen++;
    assert_string_equal(port->name, "28BA");
    assert_int_equal(f->len, 124);
}

static void slow_protocols_from_uplink_go_to_handler(void **state)
{
    struct lab l;
    uint8_t fr[128] = { 0 };
    uint8_t slow[6] = { 0x01, 0x80, 0xC2, 0, 0, 2 };
    lab_setup(&l, false, 1, 1, 1);
    zvs_switch_set_slow_handler(l.sw, on_slow, NULL);
    slow_seen = 0;
    uint32_t len = build(fr, slow, MAC_LAN, -1, 110);
    fr[12] = 0x88; fr[13] = 0x09;
    send1(&l, l.up, fr, len, 1);
    assert_int_equal(slow_seen, 1);
    assert_int_equal(l.a->nframes + l.b->nframes + l.c->nframes, 0);
    assert_int_equal(l.up->port.ctr.in_discards, 0);
    zvs_switch_destroy(l.sw);
}

static void full_input_queue_counts_discards(void **state)
{
    struct lab l;
    uint8_t fr[4][128];
    struct zvs_frame f[4];
    lab_setup(&l, false, 1, 1, 1);
    l.b->accept = 1;                                    /* one empty input buffer */
    for (int i = 0; i < 4; i++) {
        uint32_t len = build(fr[i], MAC_B, MAC_A, -1, 46);
        f[i] = (struct zvs_frame){ .data = fr[i], .len = len };
    }
    zvs_switch_input(l.sw, &l.a->port, f, 4, 1);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.b->tx_calls, 1);                 /* one write for the whole burst */
    assert_int_equal(l.b->port.ctr.out_packets, 1);
    assert_int_equal(l.b->port.ctr.out_discards, 3);
    assert_int_equal(l.b->port.ctr.drops[ZVS_DROP_NO_BUFFER], 3);
    struct zvs_device_counters d;
    zvs_port_device_counters(&l.b->port, &d);
    assert_int_equal(d.rx_discards, 3);                 /* z/VM: inbound discards of B */
    zvs_switch_destroy(l.sw);
}

static void uplink_failover_by_carrier(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 1, 1);
    struct fake_port *backup = fake_port_new("2902", 3, 1500);
    assert_int_equal(zvs_switch_add_uplink(l.sw, &backup->port), 0);
    assert_ptr_equal(zvs_switch_active_uplink(l.sw), &l.up->port);
    zvs_switch_set_carrier(l.sw, &l.up->port, false);
    assert_ptr_equal(zvs_switch_active_uplink(l.sw), &backup->port);
    uint32_t len = build(fr, MAC_LAN, MAC_A, -1, 46);
    send1(&l, l.a, fr, len, 1);
    assert_int_equal(backup->nframes, 1);
    assert_int_equal(l.up->nframes, 0);
    /* Both down: the primary is kept and its discards counted as link down. */
    zvs_switch_set_carrier(l.sw, &backup->port, false);
    assert_ptr_equal(zvs_switch_active_uplink(l.sw), &l.up->port);
    send1(&l, l.a, fr, len, 2);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_LINK_DOWN], 1);
    assert_int_equal(l.up->port.ctr.out_discards, 1);
    /* The primary returns and takes the traffic back. */
    zvs_switch_set_carrier(l.sw, &l.up->port, true);
    send1(&l, l.a, fr, len, 3);
    assert_int_equal(l.up->nframes, 1);
    zvs_switch_destroy(l.sw);
}

static void isolation_blocks_guest_to_guest(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 1, 1);
    zvs_switch_set_isolation(l.sw, true);
    uint32_t len = build(fr, MAC_B, MAC_A, -1, 46);
    send1(&l, l.a, fr, len, 1);
    assert_int_equal(l.b->nframes, 0);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_ISOLATION], 1);
    len = build(fr, MAC_BCAST, MAC_A, -1, 46);
    send1(&l, l.a, fr, len, 2);
    assert_int_equal(l.b->nframes + l.c->nframes, 0);
    assert_int_equal(l.up->nframes, 1);                 /* the LAN still gets it */
    zvs_switch_destroy(l.sw);
}

static void mac_table_full_refuses_learning_but_forwards(void **state)
{
    struct zvs_switch_params p = { .name = "VSW", .mac_capacity = 4 };
    struct zvs_switch *sw = zvs_switch_create(&p);
    struct fake_port *up = fake_port_new("28BA", 3, 1500), *a = fake_port_new("A", 3, 1500);
    struct zvs_guest g = guest("A", MAC_A, false, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_add_uplink(sw, &up->port), 0);
    assert_int_equal(zvs_switch_add_guest(sw, &a->port, &g), 0);
    uint8_t fr[128];
    for (int i = 0; i < 6; i++) {
        uint8_t src[6] = { 0x02, 0, 0, 0, 0x7, (uint8_t)i };
        uint32_t len = build(fr, MAC_LAN, src, -1, 46);
        struct zvs_frame f = { .data = fr, .len = len };
        zvs_switch_input(sw, &a->port, &f, 1, 1);
    }
    struct zvs_mac_table_stats st;
    zvs_mac_table_stats(zvs_switch_mac_table(sw), &st);
    assert_int_equal(st.entries, 4);                    /* 1 static + 3 learned */
    assert_int_equal(st.refused_full, 3);
    assert_int_equal(a->port.ctr.drops[ZVS_DROP_MAC_FULL], 3);
    assert_int_equal(a->port.ctr.in_discards, 0);
    assert_int_equal(up->nframes, 6);
    zvs_switch_destroy(sw);
}

static void couple_duplicate_mac_changes_nothing(void **state)
{
    struct lab l;
    int destroyed = 0;
    lab_setup(&l, false, 1, 1, 1);
    struct fake_port *d = fake_port_new("DUP", 3, 1500);
    d->destroyed = &destroyed;
    struct zvs_guest g = guest("DUP", MAC_A, true, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_add_guest(l.sw, &d->port, &g), -EEXIST);
    assert_int_equal(zvs_mac_table_lookup(zvs_switch_mac_table(l.sw), MAC_A, 0), l.a->port.index);
    /* Uncouple B: its MAC is gone and its port destroyed. */
    assert_int_equal(zvs_switch_remove_port(l.sw, &l.b->port), 0);
    assert_int_equal(zvs_mac_table_lookup(zvs_switch_mac_table(l.sw), MAC_B, 0), -1);
    /* D was never attached: the caller still owns it. */
    d->port.ops->destroy(&d->port);
    assert_int_equal(destroyed, 1);
    zvs_switch_destroy(l.sw);
}

/* A TCP/IPv4 super-frame: 3 segments of 1000 bytes, to a port without GSO, MTU 1500. */
static void super_frame_segmented_for_plain_egress(void **state)
{
    struct lab l;
    static uint8_t fr[4096];
    lab_setup(&l, false, 1, 1, 1);
    l.b->port.caps = 0;
    uint32_t plen = 20 + 20 + 3000;
    uint32_t len = build(fr, MAC_B, MAC_A, -1, plen);
    uint8_t *ip = fr + 14;
    memset(ip, 0, 40);
    ip[0] = 0x45; ip[2] = (uint8_t)(plen >> 8); ip[3] = (uint8_t)plen; ip[8] = 64; ip[9] = 6;
    ip[12] = 10; ip[15] = 1; ip[16] = 10; ip[19] = 2;
    uint8_t *tcp = ip + 20;
    tcp[12] = 0x50; tcp[13] = 0x18;                     /* ACK|PSH */
    struct zvs_frame f = { .data = fr, .len = len,
        .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4,
                  .hdr_len = 54, .gso_size = 1000, .csum_start = 34, .csum_offset = 16 } };
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 1);
    assert_int_equal(l.b->nframes, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(l.b->frames[i].len, 14 + 20 + 20 + 1000);
        assert_int_equal(l.b->frames[i].vnet.gso_type, ZVS_VNET_GSO_NONE);
        assert_false(l.b->frames[i].vnet.flags & ZVS_VNET_F_NEEDS_CSUM);
    }
    assert_int_equal(l.b->port.ctr.out_packets, 3);
    assert_int_equal(l.b->port.ctr.out_bytes, 3 * 1054);
    /* A's NIC sent what the wire carries: the same 3 segments (issue 15) */
    assert_int_equal(l.a->port.ctr.in_packets, 3);
    assert_int_equal(l.a->port.ctr.in_bytes, 3 * 1054);
    zvs_switch_destroy(l.sw);
}

/* ---- Counters count frames on the wire (dataplane/wire.h, issue 15) ------------------ */

/* A TCP/IPv4 super-frame from `src` to `dst` (optionally tagged): 14 (+4) + 20 + 32 bytes
 * of headers (TCP timestamps), `payload` bytes, MSS `mss`. */
static struct zvs_frame tcp_super(uint8_t *fr, const uint8_t *dst, const uint8_t *src,
                                  int vid, uint32_t payload, uint16_t mss)
{
    uint32_t iplen = 20 + 32 + payload;
    uint32_t len = build(fr, dst, src, vid, iplen);
    uint32_t l3 = vid >= 0 ? 18 : 14;
    uint8_t *ip = fr + l3;
    memset(ip, 0, 52);
    ip[0] = 0x45; ip[2] = (uint8_t)(iplen >> 8); ip[3] = (uint8_t)iplen; ip[8] = 64; ip[9] = 6;
    ip[20 + 12] = 0x80; ip[20 + 13] = 0x10;             /* 32-byte header, ACK */
    return (struct zvs_frame){ .data = fr, .len = len,
        .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4,
                  .hdr_len = (uint16_t)(l3 + 52), .gso_size = mss,
                  .csum_start = (uint16_t)(l3 + 20), .csum_offset = 16 } };
}

/* A TCP super-frame whose MSS is past a plain egress's MTU (a guest at 1500 doing TSO over
 * a VXLAN segment of 1450): no segment fits, so it is too big, as a frame of a segment's
 * length would be: counted `oversize` (its 3 segments) and recorded by ingress port with
 * the length a segment needed, for the daemon to name the sender. */
static void super_frame_past_egress_mtu_is_oversize(void **state)
{
    struct lab l;
    static uint8_t fr[8192];
    lab_setup(&l, false, 1, 1, 1);
    l.up->port.caps = 0;                                /* no GSO: segmented to its MTU */
    l.up->port.mtu = 1450;
    struct zvs_frame f = tcp_super(fr, MAC_LAN, MAC_A, -1, 3 * 1448, 1448);
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 1);
    assert_int_equal(l.up->nframes, 0);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_OVERSIZE], 3);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_OFFLOAD], 0);
    struct zvs_oversize_rec o[4];
    assert_int_equal(zvs_switch_take_oversize(l.sw, o, 4), 1);
    assert_int_equal(o[0].in_port, l.a->port.index);
    assert_int_equal(o[0].len, 14 + 52 + 1448);         /* one segment: needs MTU 1500 */
    assert_int_equal(o[0].frames, 1);

    /* One that carries less than its MSS needs only its own length. */
    f = tcp_super(fr, MAC_LAN, MAC_A, -1, 1400, 1448);
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 2);
    assert_int_equal(zvs_switch_take_oversize(l.sw, o, 4), 1);
    assert_int_equal(o[0].len, 14 + 52 + 1400);
    zvs_switch_destroy(l.sw);
}

/* Crossing whole to egresses that take super-frames, each port counts the segments. */
static void super_frame_counts_its_segments(void **state)
{
    struct lab l;
    static uint8_t fr[70000];
    lab_setup(&l, false, 1, 1, 1);
    /* 20 * 1448 + 500: 21 segments of 66 bytes of headers each */
    struct zvs_frame f = tcp_super(fr, MAC_LAN, MAC_A, -1, 20 * 1448 + 500, 1448);
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 1);
    assert_int_equal(l.up->nframes, 1);                 /* crossed whole */
    assert_int_equal(l.up->frames[0].len, 66 + 20 * 1448 + 500);
    assert_int_equal(l.a->port.ctr.in_packets, 21);
    assert_int_equal(l.a->port.ctr.in_bytes, 20 * 1448 + 500 + 21 * 66);
    assert_int_equal(l.up->port.ctr.out_packets, 21);
    assert_int_equal(l.up->port.ctr.out_bytes, 20 * 1448 + 500 + 21 * 66);
    struct zvs_device_counters d;
    zvs_port_device_counters(&l.up->port, &d);
    assert_int_equal(d.tx_packets, 21);                 /* the OSA's view */
    assert_int_equal(d.tx_bytes, 20 * 1448 + 500 + 21 * 66);

    /* from the LAN to B, with a plain frame in the same burst: 3 + 1 */
    struct zvs_frame two[2];
    two[0] = tcp_super(fr, MAC_B, MAC_LAN, -1, 3 * 1448, 1448);   /* an exact multiple */
    static uint8_t small[128];
    two[1] = (struct zvs_frame){ .data = small, .len = build(small, MAC_B, MAC_LAN, -1, 86) };
    zvs_switch_input(l.sw, &l.up->port, two, 2, 2);
    assert_int_equal(l.b->nframes, 2);
    assert_int_equal(l.up->port.ctr.in_packets, 3 + 1);
    assert_int_equal(l.up->port.ctr.in_bytes, 3 * (66 + 1448) + 100);
    assert_int_equal(l.b->port.ctr.out_packets, 3 + 1);
    assert_int_equal(l.b->port.ctr.out_bytes, 3 * (66 + 1448) + 100);
    assert_int_equal(l.b->tx_calls, 1);                 /* one write for the burst */
    zvs_switch_destroy(l.sw);
}

/* An egress whose largest super-frame is smaller gets smaller super-frames from the
 * fix-up: counted as their segments, the same numbers as crossing whole. */
static void smaller_super_frames_count_the_same(void **state)
{
    struct lab l;
    static uint8_t fr[70000];
    lab_setup(&l, false, 1, 1, 1);
    l.b->port.max_gso = 4000;                           /* 2 segments a piece */
    struct zvs_frame f = tcp_super(fr, MAC_B, MAC_A, -1, 10 * 1448 + 100, 1448);
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 1);
    assert_int_equal(l.b->nframes, 6);                  /* 5 pieces of 2, one of 100 bytes */
    assert_int_equal(l.b->port.ctr.out_packets, 11);
    assert_int_equal(l.b->port.ctr.out_bytes, 10 * 1448 + 100 + 11 * 66);
    assert_int_equal(l.a->port.ctr.in_packets, 11);
    assert_int_equal(l.a->port.ctr.in_bytes, 10 * 1448 + 100 + 11 * 66);
    zvs_switch_destroy(l.sw);
}

/* VLAN AWARE: A on VLAN 10, the uplink a trunk. Outbound every segment gets the tag the
 * switch pushes (70 bytes of headers); inbound the trunk's tagged segments lose it on the
 * way to A (66). */
static void tagged_super_frames_count_their_tags(void **state)
{
    struct lab l;
    static uint8_t fr[70000];
    lab_setup(&l, true, 10, 1, 1);
    struct zvs_frame f = tcp_super(fr, MAC_LAN, MAC_A, -1, 4 * 1448 + 8, 1448);
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 1);
    assert_int_equal(l.up->nframes, 1);
    assert_int_equal(l.up->frames[0].len, 66 + 4 * 1448 + 8 + 4);
    assert_int_equal(l.a->port.ctr.in_packets, 5);
    assert_int_equal(l.a->port.ctr.in_bytes, 4 * 1448 + 8 + 5 * 66);
    assert_int_equal(l.up->port.ctr.out_packets, 5);
    assert_int_equal(l.up->port.ctr.out_bytes, 4 * 1448 + 8 + 5 * 70);

    f = tcp_super(fr, MAC_A, MAC_LAN, 10, 4 * 1448 + 8, 1448);
    zvs_switch_input(l.sw, &l.up->port, &f, 1, 2);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(l.a->frames[0].len, 66 + 4 * 1448 + 8);
    assert_int_equal(l.up->port.ctr.in_packets, 5);
    assert_int_equal(l.up->port.ctr.in_bytes, 4 * 1448 + 8 + 5 * 70);
    assert_int_equal(l.a->port.ctr.out_packets, 5);
    assert_int_equal(l.a->port.ctr.out_bytes, 4 * 1448 + 8 + 5 * 66);
    zvs_switch_destroy(l.sw);
}

/* A super-frame discarded is all of its segments discarded; a filtered one is counted
 * nowhere but in address-filtered, as its segments. */
static void discarded_super_frame_counts_its_segments(void **state)
{
    struct lab l;
    static uint8_t fr[70000];
    lab_setup(&l, false, 1, 1, 1);
    l.b->accept = 0;                                    /* no empty input buffer */
    l.b->refuse_why = ZVS_DROP_NO_BUFFER;
    struct zvs_frame f = tcp_super(fr, MAC_B, MAC_A, -1, 6 * 1448, 1448);
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 1);
    assert_int_equal(l.b->port.ctr.out_packets, 0);
    assert_int_equal(l.b->port.ctr.out_discards, 6);
    assert_int_equal(l.b->port.ctr.drops[ZVS_DROP_NO_BUFFER], 6);
    assert_int_equal(l.a->port.ctr.in_packets, 6);      /* A did send them */

    l.c->port.carrier = false;                          /* C's link is down */
    f = tcp_super(fr, MAC_C, MAC_A, -1, 2 * 1448 + 1, 1448);
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 2);
    assert_int_equal(l.c->port.ctr.out_discards, 3);
    assert_int_equal(l.c->port.ctr.drops[ZVS_DROP_LINK_DOWN], 3);

    f = tcp_super(fr, MAC_B, MAC_A, -1, 2 * 1448, 1448);   /* MACPROTECT: not A's MAC */
    fr[11] = 0x7F;
    zvs_switch_input(l.sw, &l.a->port, &f, 1, 3);
    assert_int_equal(l.a->port.ctr.in_discards, 2);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_MACPROTECT], 2);
    assert_int_equal(l.a->port.ctr.in_packets, 6 + 3 + 2);

    f = tcp_super(fr, MAC_LAN, MAC_LAN, -1, 4 * 1448, 1448);  /* uplink, for no guest */
    uint64_t in_before = l.up->port.ctr.in_packets;
    zvs_switch_input(l.sw, &l.up->port, &f, 1, 4);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_FILTERED], 4);
    assert_int_equal(l.up->port.ctr.in_packets, in_before);
    assert_int_equal(l.up->port.ctr.in_discards, 0);
    zvs_switch_destroy(l.sw);
}

/* ---- The per-burst memo (forward.c): one burst, decisions that must not be reused ---- */

/* A burst of frames through zvs_switch_input at once. */
static void send_burst(struct lab *l, struct fake_port *from, uint8_t bufs[][128],
                       const uint32_t *lens, int n, uint64_t now)
{
    struct zvs_frame f[8];
    assert_true(n <= 8);
    for (int i = 0; i < n; i++)
        f[i] = (struct zvs_frame){ .data = bufs[i], .len = lens[i] };
    zvs_switch_input(l->sw, &from->port, f, n, now);
}

static void burst_mixed_destinations_each_forwarded(void **state)
{
    struct lab l;
    uint8_t fr[6][128];
    uint32_t len[6];
    lab_setup(&l, false, 1, 1, 1);
    /* B, C, B, LAN, B, C in one burst from A: the memo holds one answer at a time */
    const uint8_t *dst[6] = { MAC_B, MAC_C, MAC_B, MAC_LAN, MAC_B, MAC_C };
    for (int i = 0; i < 6; i++)
        len[i] = build(fr[i], dst[i], MAC_A, -1, (uint32_t)(46 + i));
    send_burst(&l, l.a, fr, len, 6, 1);
    assert_int_equal(l.b->nframes, 3);
    assert_int_equal(l.c->nframes, 2);
    assert_int_equal(l.up->nframes, 1);
    assert_memory_equal(l.b->frames[0].bytes, fr[0], len[0]);
    assert_memory_equal(l.b->frames[1].bytes, fr[2], len[2]);
    assert_memory_equal(l.b->frames[2].bytes, fr[4], len[4]);
    assert_memory_equal(l.c->frames[0].bytes, fr[1], len[1]);
    assert_memory_equal(l.c->frames[1].bytes, fr[5], len[5]);
    assert_memory_equal(l.up->frames[0].bytes, fr[3], len[3]);
    assert_int_equal(l.a->port.ctr.in_packets, 6);
    assert_int_equal(l.a->port.ctr.in_bytes, len[0] + len[1] + len[2] + len[3] + len[4] + len[5]);
    assert_int_equal(l.b->port.ctr.out_packets, 3);
    assert_int_equal(l.b->port.ctr.out_bytes, len[0] + len[2] + len[4]);
    assert_int_equal(l.b->tx_calls, 1);                 /* one write per egress per burst */
    zvs_switch_destroy(l.sw);
}

static void burst_learning_forgets_the_memo(void **state)
{
    struct lab l;
    uint8_t fr[3][128];
    uint32_t len[3];
    uint8_t x[6] = { 0x02, 0x00, 0x0C, 0x00, 0x07, 0x07 };
    lab_setup(&l, false, 1, 1, 1);
    zvs_switch_set_macprotect(l.sw, &l.a->port, false);
    /* to X (unknown: uplink), a broadcast from X (X learned on A; a flood looks nothing
     * up), to X again: now A's own MAC, whatever the first lookup said */
    len[0] = build(fr[0], x, MAC_A, -1, 46);
    len[1] = build(fr[1], MAC_BCAST, x, -1, 47);
    len[2] = build(fr[2], x, MAC_A, -1, 48);
    send_burst(&l, l.a, fr, len, 3, 1);
    assert_int_equal(l.up->nframes, 2);
    assert_memory_equal(l.up->frames[0].bytes, fr[0], len[0]);
    assert_memory_equal(l.up->frames[1].bytes, fr[1], len[1]);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.c->nframes, 1);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_SAME_PORT], 1);
    assert_int_equal(l.a->port.ctr.in_discards, 1);
    assert_int_equal(l.a->port.ctr.in_packets, 3);
    zvs_switch_destroy(l.sw);
}

/* Frames with the header of a forwarded one still get every check of their own: the
 * burst's header memo answers only for a frame in one piece, without offload metadata to
 * act on, no longer than both ports take, with the same 14 header bytes. */
static void burst_header_memo_checks_every_frame(void **state)
{
    struct lab l;
    uint8_t fr[7][128];
    struct zvs_frame f[7];
    lab_setup(&l, false, 1, 1, 1);
    l.a->port.mtu = 64;                 /* A sends frames of at most 78 bytes */
    for (int i = 0; i < 7; i++)
        f[i] = (struct zvs_frame){ .data = fr[i], .len = build(fr[i], MAC_B, MAC_A, -1, 60) };
    f[1].len = build(fr[1], MAC_B, MAC_A, -1, 70);        /* 84: longer than A's MTU */
    f[2].len = 12;                                          /* a runt with the same bytes */
    f[3].vnet = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34,
                                   .csum_offset = 16 };    /* B completes checksums itself */
    fr[4][12] = 0x88;                                       /* EtherType 0x8809 from a guest */
    fr[4][13] = 0x09;
    fr[5][0] |= 1;                                          /* B's MAC as a group address */
    zvs_switch_input(l.sw, &l.a->port, f, 7, 1);
    assert_int_equal(l.b->nframes, 4);
    assert_memory_equal(l.b->frames[0].bytes, fr[0], f[0].len);
    assert_memory_equal(l.b->frames[1].bytes, fr[3], f[3].len);
    assert_true(l.b->frames[1].vnet.flags & ZVS_VNET_F_NEEDS_CSUM);
    assert_memory_equal(l.b->frames[2].bytes, fr[5], f[5].len);
    assert_memory_equal(l.b->frames[3].bytes, fr[6], f[6].len);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_OVERSIZE], 1);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_RUNT], 1);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_SLOW_PROTO], 1);
    assert_int_equal(l.c->nframes, 1);                      /* the group frame floods */
    assert_int_equal(l.up->nframes, 1);
    assert_int_equal(l.a->port.ctr.in_packets, 7);
    assert_int_equal(l.b->port.ctr.out_packets, 4);
    assert_int_equal(l.b->port.ctr.out_bytes, f[0].len + f[3].len + f[5].len + f[6].len);
    zvs_switch_destroy(l.sw);
}

/* The Slow Protocols handler drops B's MAC entry, as a management action might. */
static void on_slow_unregister_b(void *arg, struct zvs_port *port, const struct zvs_frame *f,
                                 uint64_t now)
{
    struct zvs_switch *sw = arg;
    assert_int_equal(zvs_mac_table_remove(zvs_switch_mac_table(sw), MAC_B, 0), 0);
}

/* The handler runs after the burst: both frames to B go out on what the table said when
 * the burst began; the next burst sees the change. */
static void burst_slow_handler_runs_after_the_burst(void **state)
{
    struct lab l;
    uint8_t fr[3][128];
    uint32_t len[3];
    uint8_t slow[6] = { 0x01, 0x80, 0xC2, 0, 0, 2 };
    lab_setup(&l, false, 1, 1, 1);
    zvs_switch_set_slow_handler(l.sw, on_slow_unregister_b, l.sw);
    len[0] = build(fr[0], MAC_B, MAC_LAN, -1, 46);
    len[1] = build(fr[1], slow, MAC_LAN, -1, 110);
    fr[1][12] = 0x88;
    fr[1][13] = 0x09;
    len[2] = build(fr[2], MAC_B, MAC_LAN, -1, 47);
    send_burst(&l, l.up, fr, len, 3, 1);
    assert_int_equal(l.b->nframes, 2);
    assert_memory_equal(l.b->frames[0].bytes, fr[0], len[0]);
    assert_memory_equal(l.b->frames[1].bytes, fr[2], len[2]);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_FILTERED], 0);
    assert_int_equal(l.up->port.ctr.in_packets, 3);
    assert_int_equal(l.up->port.ctr.in_bytes, len[0] + len[1] + len[2]);
    assert_int_equal(zvs_mac_table_lookup(zvs_switch_mac_table(l.sw), MAC_B, 0), -1);
    /* the next burst: B's MAC is gone, the frame is for no guest of ours */
    send_burst(&l, l.up, &fr[2], &len[2], 1, 2);
    assert_int_equal(l.b->nframes, 2);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_FILTERED], 1);
    /* filtered frames are not counted as received (the OSA filter drops them first) */
    assert_int_equal(l.up->port.ctr.in_packets, 3);
    zvs_switch_destroy(l.sw);
}

/* ---- Slow Protocols frames are queued during a burst and handed on after it ---------- */

#define SLOW_LACP   1                   /* Slow Protocols subtypes (IEEE 802.1AX) */
#define SLOW_MARKER 2

/* A Slow Protocols frame from the LAN: subtype at byte 14, `serial` at byte 15. */
static uint32_t build_slow(uint8_t *buf, uint8_t subtype, uint8_t serial)
{
    static const uint8_t slow[6] = { 0x01, 0x80, 0xC2, 0, 0, 2 };
    uint32_t len = build(buf, slow, MAC_LAN, -1, 110);
    buf[12] = 0x88;
    buf[13] = 0x09;
    buf[14] = subtype;
    buf[15] = serial;
    return len;
}

/* What the handler saw, call by call: the port, the frame's subtype and serial, and how
 * many frames the guests had been given by then. */
struct slow_log {
    struct lab        *l;
    int                n;
    struct zvs_port   *port[16];
    uint8_t            subtype[16];
    uint8_t            serial[16];
    int                guest_frames[16];
};

static void on_slow_log(void *arg, struct zvs_port *port, const struct zvs_frame *f,
                        uint64_t now)
{
    struct slow_log *g = arg;
    assert_true(g->n < 16);
    g->port[g->n] = port;
    g->subtype[g->n] = f->data[14];
    g->serial[g->n] = f->data[15];
    g->guest_frames[g->n] = g->l->a->nframes + g->l->b->nframes + g->l->c->nframes;
    g->n++;
}

/* Two collecting port-group members besides the lab's RDEV. */
static void add_members(struct lab *l, struct fake_port **m1, struct fake_port **m2)
{
    *m1 = fake_port_new("2C00", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    *m2 = fake_port_new("2D00", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    assert_int_equal(zvs_switch_add_group_port(l->sw, &(*m1)->port), 0);
    assert_int_equal(zvs_switch_add_group_port(l->sw, &(*m2)->port), 0);
    zvs_switch_set_collecting(l->sw, &(*m1)->port, true);
    zvs_switch_set_collecting(l->sw, &(*m2)->port, true);
}

static void slow_frames_after_the_burst_in_order_per_port(void **state)
{
    struct lab l;
    struct fake_port *m1, *m2;
    uint8_t fr[8][128];
    uint32_t len[8];
    lab_setup(&l, false, 1, 1, 1);
    add_members(&l, &m1, &m2);
    struct slow_log g = { .l = &l };
    zvs_switch_set_slow_handler(l.sw, on_slow_log, &g);

    /* member 1: LACPDU, data to A, Marker, data to B, LACPDU */
    len[0] = build_slow(fr[0], SLOW_LACP, 1);
    len[1] = build(fr[1], MAC_A, MAC_LAN, -1, 46);
    len[2] = build_slow(fr[2], SLOW_MARKER, 2);
    len[3] = build(fr[3], MAC_B, MAC_LAN, -1, 47);
    len[4] = build_slow(fr[4], SLOW_LACP, 3);
    send_burst(&l, m1, fr, len, 5, 1);
    assert_int_equal(g.n, 3);
    /* member 2: Marker, data to C, LACPDU */
    len[5] = build_slow(fr[5], SLOW_MARKER, 4);
    len[6] = build(fr[6], MAC_C, MAC_LAN, -1, 48);
    len[7] = build_slow(fr[7], SLOW_LACP, 5);
    send_burst(&l, m2, &fr[5], &len[5], 3, 2);
    assert_int_equal(g.n, 5);
    /* member 1 again: one LACPDU alone */
    send_burst(&l, m1, &fr[0], &len[0], 1, 3);

    static const uint8_t subtype[6] = { SLOW_LACP, SLOW_MARKER, SLOW_LACP,
                                        SLOW_MARKER, SLOW_LACP, SLOW_LACP };
    static const uint8_t serial[6] = { 1, 2, 3, 4, 5, 1 };
    static const int guest_frames[6] = { 2, 2, 2, 3, 3, 3 };   /* the burst's data first */
    assert_int_equal(g.n, 6);
    for (int i = 0; i < 6; i++) {
        assert_ptr_equal(g.port[i], i < 3 || i == 5 ? &m1->port : &m2->port);
        assert_int_equal(g.subtype[i], subtype[i]);
        assert_int_equal(g.serial[i], serial[i]);
        assert_int_equal(g.guest_frames[i], guest_frames[i]);
    }
    assert_int_equal(l.a->nframes, 1);
    assert_memory_equal(l.a->frames[0].bytes, fr[1], len[1]);
    assert_int_equal(l.b->nframes, 1);
    assert_memory_equal(l.b->frames[0].bytes, fr[3], len[3]);
    assert_int_equal(l.c->nframes, 1);
    assert_memory_equal(l.c->frames[0].bytes, fr[6], len[6]);
    assert_int_equal(l.up->nframes + m1->nframes + m2->nframes, 0);
    /* every frame counted as received, none discarded */
    assert_int_equal(m1->port.ctr.in_packets, 6);
    assert_int_equal(m1->port.ctr.in_bytes, len[0] * 2 + len[1] + len[2] + len[3] + len[4]);
    assert_int_equal(m2->port.ctr.in_packets, 3);
    assert_int_equal(m2->port.ctr.in_bytes, len[5] + len[6] + len[7]);
    assert_int_equal(m1->port.ctr.in_discards + m2->port.ctr.in_discards, 0);
    zvs_switch_destroy(l.sw);
}

/* The handler does what a LACPDU may make the group do: the member leaves Collecting and
 * the group publishes a table that sends outbound on the other member. */
struct group_change {
    struct zvs_switch  *sw;
    struct zvs_port    *member;
    struct zvs_pg_dist *dist;
    struct zvs_pg_map  *next;
    int                 calls;
};

static void on_slow_change_group(void *arg, struct zvs_port *port, const struct zvs_frame *f,
                                 uint64_t now)
{
    struct group_change *c = arg;
    c->calls++;
    zvs_switch_set_collecting(c->sw, c->member, false);
    __atomic_store_n(&c->dist->live, c->next, __ATOMIC_RELEASE);
}

static void map_all_to(struct zvs_pg_map *m, uint16_t port)
{
    memset(m, 0, sizeof(*m));
    for (int i = 0; i < ZVS_PG_BUCKETS; i++) {
        m->bucket_port[i] = port;
        m->bucket_slot[i] = 0;
    }
    m->flood_port = port;
}

static void slow_handler_changing_the_group_leaves_the_burst_alone(void **state)
{
    struct lab l;
    struct fake_port *m1, *m2;
    static struct zvs_pg_dist dist;
    struct zvs_pg_map on_m1, on_m2;
    uint8_t fr[4][128];
    uint32_t len[4];
    lab_setup(&l, false, 1, 1, 1);
    add_members(&l, &m1, &m2);
    map_all_to(&on_m1, m1->port.index);
    map_all_to(&on_m2, m2->port.index);
    memset(&dist, 0, sizeof(dist));
    dist.live = &on_m1;
    dist.hash = ZVS_PG_HASH_DST;
    for (int i = 0; i < ZVS_PG_MAX_MEMBERS; i++)
        dist.member_port[i] = ZVS_PG_NO_PORT;
    dist.member_port[0] = m1->port.index;
    dist.member_port[1] = m2->port.index;
    zvs_switch_set_group(l.sw, &dist);
    struct group_change c = { .sw = l.sw, .member = &m1->port, .dist = &dist, .next = &on_m2 };
    zvs_switch_set_slow_handler(l.sw, on_slow_change_group, &c);

    /* a LACPDU first, then data: the data still finds member 1 collecting */
    len[0] = build_slow(fr[0], SLOW_LACP, 1);
    len[1] = build(fr[1], MAC_A, MAC_LAN, -1, 46);
    len[2] = build_slow(fr[2], SLOW_MARKER, 2);
    len[3] = build(fr[3], MAC_B, MAC_LAN, -1, 47);
    send_burst(&l, m1, fr, len, 4, 1);
    assert_int_equal(c.calls, 2);
    assert_int_equal(l.a->nframes, 1);
    assert_memory_equal(l.a->frames[0].bytes, fr[1], len[1]);
    assert_int_equal(l.b->nframes, 1);
    assert_memory_equal(l.b->frames[0].bytes, fr[3], len[3]);
    assert_int_equal(m1->port.ctr.drops[ZVS_DROP_NOT_COLLECTING], 0);
    assert_int_equal(m1->port.ctr.in_discards, 0);
    assert_int_equal(m1->port.ctr.in_packets, 4);

    /* after the burst the change holds: member 1 no longer collects, outbound goes to 2 */
    send_burst(&l, m1, &fr[1], &len[1], 1, 2);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(m1->port.ctr.drops[ZVS_DROP_NOT_COLLECTING], 1);
    len[0] = build(fr[0], MAC_LAN, MAC_A, -1, 48);
    send_burst(&l, l.a, fr, len, 1, 3);
    assert_int_equal(m1->nframes, 0);
    assert_int_equal(m2->nframes, 1);
    assert_memory_equal(m2->frames[0].bytes, fr[0], len[0]);
    zvs_switch_set_group(l.sw, NULL);
    zvs_switch_destroy(l.sw);
}

static int slow_calls;
static void on_slow_count(void *arg, struct zvs_port *port, const struct zvs_frame *f,
                          uint64_t now)
{
    slow_calls++;
}

/* More Slow Protocols frames in one zvs_switch_input than a burst read by
 * zvs_switch_poll can hold (ZVS_BATCH): the handler gets ZVS_BATCH, the rest are
 * discarded and counted. */
static void slow_frames_beyond_a_burst_are_counted(void **state)
{
    struct lab l;
    enum { N = ZVS_BATCH + 3 };
    static uint8_t fr[N][128];
    struct zvs_frame f[N];
    lab_setup(&l, false, 1, 1, 1);
    zvs_switch_set_slow_handler(l.sw, on_slow_count, NULL);
    slow_calls = 0;
    for (int i = 0; i < N; i++) {
        uint32_t len = build_slow(fr[i], i % 2 ? SLOW_MARKER : SLOW_LACP, (uint8_t)i);
        f[i] = (struct zvs_frame){ .data = fr[i], .len = len };
    }
    zvs_switch_input(l.sw, &l.up->port, f, N, 1);
    assert_int_equal(slow_calls, ZVS_BATCH);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_SLOW_PROTO], 3);
    assert_int_equal(l.up->port.ctr.in_discards, 3);
    assert_int_equal(l.up->port.ctr.in_packets, N);
    /* the queue is empty again: the next burst's frames reach the handler */
    zvs_switch_input(l.sw, &l.up->port, f, 2, 2);
    assert_int_equal(slow_calls, ZVS_BATCH + 2);
    assert_int_equal(l.up->port.ctr.in_discards, 3);
    zvs_switch_destroy(l.sw);
}

/* A handler that takes itself away (the group released): the burst's frames after it
 * are discarded and counted, as they would be had they come after it. */
static void on_slow_unset(void *arg, struct zvs_port *port, const struct zvs_frame *f,
                          uint64_t now)
{
    slow_calls++;
    zvs_switch_set_slow_handler(arg, NULL, NULL);
}

static void slow_handler_unset_during_delivery(void **state)
{
    struct lab l;
    uint8_t fr[3][128];
    uint32_t len[3];
    lab_setup(&l, false, 1, 1, 1);
    zvs_switch_set_slow_handler(l.sw, on_slow_unset, l.sw);
    slow_calls = 0;
    len[0] = build_slow(fr[0], SLOW_LACP, 1);
    len[1] = build_slow(fr[1], SLOW_MARKER, 2);
    len[2] = build_slow(fr[2], SLOW_LACP, 3);
    send_burst(&l, l.up, fr, len, 3, 1);
    assert_int_equal(slow_calls, 1);
    assert_int_equal(l.up->port.ctr.drops[ZVS_DROP_SLOW_PROTO], 2);
    assert_int_equal(l.up->port.ctr.in_discards, 2);
    assert_int_equal(l.up->port.ctr.in_packets, 3);
    zvs_switch_destroy(l.sw);
}

static void burst_untagged_and_tagged_on_a_trunk(void **state)
{
    struct zvs_switch_params p = { .name = "VSW", .vlan = { .aware = true, .native_vid = 10 } };
    struct zvs_switch *sw = zvs_switch_create(&p);
    struct fake_port *up = fake_port_new("28BA", 3, 1500), *t = fake_port_new("TRK.F000", 3, 1500);
    struct fake_port *b = fake_port_new("LNXB.F000", 3, 1500);
    struct zvs_guest g = guest("TRK", MAC_A, true, ZVS_VLAN_TRUNK, 0);
    struct zvs_guest gb = guest("LNXB", MAC_B, true, ZVS_VLAN_ACCESS, 20);
    assert_int_equal(zvs_vlan_parse_set("10 20", &g.vlan), 0);
    assert_int_equal(zvs_switch_add_uplink(sw, &up->port), 0);
    assert_int_equal(zvs_switch_add_guest(sw, &t->port, &g), 0);
    assert_int_equal(zvs_switch_add_guest(sw, &b->port, &gb), 0);
    uint8_t fr[4][128];
    struct zvs_frame f[4];
    uint32_t len[4];
    /* untagged (native 10: to the LAN untagged), tagged 20 (to B, tag stripped), untagged
     * again, tagged 30 (not granted) */
    len[0] = build(fr[0], MAC_LAN, MAC_A, -1, 46);
    len[1] = build(fr[1], MAC_B, MAC_A, 20, 46);
    len[2] = build(fr[2], MAC_LAN, MAC_A, -1, 50);
    len[3] = build(fr[3], MAC_LAN, MAC_A, 30, 46);
    for (int i = 0; i < 4; i++)
        f[i] = (struct zvs_frame){ .data = fr[i], .len = len[i] };
    zvs_switch_input(sw, &t->port, f, 4, 1);
    assert_int_equal(up->nframes, 2);
    assert_memory_equal(up->frames[0].bytes, fr[0], len[0]);
    assert_memory_equal(up->frames[1].bytes, fr[2], len[2]);
    assert_int_equal(f[0].vid, 10);
    assert_int_equal(f[2].vid, 10);
    assert_int_equal(f[1].vid, 20);
    assert_int_equal(b->nframes, 1);
    uint8_t want[128];
    uint32_t wlen = build(want, MAC_B, MAC_A, -1, 46);
    assert_int_equal(b->frames[0].len, wlen);
    assert_memory_equal(b->frames[0].bytes, want, wlen);
    assert_int_equal(t->port.ctr.drops[ZVS_DROP_VLAN_DENIED], 1);
    assert_int_equal(t->port.ctr.in_discards, 1);
    assert_int_equal(t->port.ctr.in_packets, 4);
    zvs_switch_destroy(sw);
}

/* An access port without a VLAN refuses untagged frames: the memo keeps the refusal too. */
static void burst_untagged_refusal_repeats(void **state)
{
    struct lab l;
    uint8_t fr[3][128];
    uint32_t len[3];
    lab_setup(&l, true, 0, 1, 1);
    for (int i = 0; i < 3; i++)
        len[i] = build(fr[i], MAC_LAN, MAC_A, -1, 46);
    send_burst(&l, l.a, fr, len, 3, 1);
    assert_int_equal(l.up->nframes, 0);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_VLAN_DENIED], 3);
    assert_int_equal(l.a->port.ctr.in_discards, 3);
    zvs_switch_destroy(l.sw);
}

/* ---- zvs_frame_emit: the one-memcpy path and the piece path agree ---------------------- */

static void frame_emit_contiguous_keep(void **state)
{
    uint8_t fr[128], out[160], want[160];
    uint32_t len = build(fr, MAC_B, MAC_A, -1, 70);
    struct zvs_frame f = { .data = fr, .len = len,
                           .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34,
                                     .csum_offset = 16 } };
    struct zvs_vnet v;

    memset(out, 0xEE, sizeof(out));
    assert_int_equal(zvs_frame_emit(&f, ZVS_TAG_KEEP, 0, out, &v), len);
    assert_memory_equal(out, fr, len);
    assert_int_equal(out[len], 0xEE);                   /* nothing past the frame */
    assert_memory_equal(&v, &f.vnet, sizeof(v));        /* no tag edit: offsets unchanged */
    assert_int_equal(zvs_frame_emit(&f, ZVS_TAG_KEEP, 0, out, NULL), len);

    /* the same frame in two pieces takes the piece path: same bytes */
    struct iovec pieces[2] = { { fr, 20 }, { fr + 20, len - 20 } };
    struct zvs_frame g = f;
    g.nfrags = 2;
    g.frags = pieces;
    memset(want, 0xEE, sizeof(want));
    assert_int_equal(zvs_frame_emit(&g, ZVS_TAG_KEEP, 0, want, &v), len);
    assert_memory_equal(want, out, len + 1);
    assert_int_equal(v.csum_start, 34);
    /* a tag push still shifts the offsets */
    assert_int_equal(zvs_frame_emit(&f, ZVS_TAG_PUSH, 5, out, &v), len + 4);
    assert_int_equal(v.csum_start, 38);
    assert_int_equal(zvs_be16(out + 12), 0x8100);
    assert_int_equal(zvs_be16(out + 14), 5);
    assert_memory_equal(out + 16, fr + 12, len - 12);
}

/* A switch with many guests and stations loads each burst's lookups ahead (forward.c,
 * prefetch_burst): only hints. A burst whose own learning moves a station before a later
 * frame of it looks that station up is still decided on the table as it is then, and
 * every frame lands exactly where a small switch would put it. The ports' load-ahead
 * hook runs for each frame's destination at level 0 (once for consecutive frames to one
 * port) and, for a burst feeding 8 or more egresses, once per egress at levels 1 and 2. */
#define WIDE_GUESTS 70
#define WIDE_MACS   9000                /* learned: with the guests', a large table */

static void mac_n(uint8_t *mac, uint32_t n)
{
    const uint8_t m[6] = { 0x02, 0x00, 0x0D, (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };
    memcpy(mac, m, 6);
}

static void wide_burst_hints_change_no_decision(void **state)
{
    struct zvs_switch_params p = { .name = "WIDEVSW", .vlan = { .aware = false } };
    struct zvs_switch *sw = zvs_switch_create(&p);
    struct fake_port *g[WIDE_GUESTS];
    static uint8_t fr[ZVS_BATCH][64];
    struct zvs_frame f[ZVS_BATCH];
    uint8_t dst[6], src[6];
    (void)state;

    assert_non_null(sw);
    for (int i = 0; i < WIDE_GUESTS; i++) {
        char name[24];                  /* zvs_port.name's size */
        snprintf(name, sizeof(name), "G%02d.F000", i);
        g[i] = fake_port_new(name, ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
        uint8_t mac[6] = { 0x02, 0x00, 0x0C, 0x00, 0x00, (uint8_t)i };
        struct zvs_guest gd = guest(name, mac, false, ZVS_VLAN_ACCESS, 1);
        assert_int_equal(zvs_switch_add_guest(sw, &g[i]->port, &gd), 0);
    }
    /* learned station n lives on guest n % WIDE_GUESTS */
    for (uint32_t n = 0; n < WIDE_MACS; n++) {
        const uint8_t to[6] = { 0x02, 0x00, 0x0C, 0x00, 0x00, (uint8_t)((n + 1) % WIDE_GUESTS) };
        mac_n(src, n);
        uint8_t one[64];
        uint32_t len = build(one, to, src, -1, 46);
        struct zvs_frame lf = { .data = one, .len = len };
        zvs_switch_input(sw, &g[n % WIDE_GUESTS]->port, &lf, 1, 1);
    }
    struct zvs_mac_table_stats ms;
    zvs_mac_table_stats(zvs_switch_mac_table(sw), &ms);
    assert_int_equal(ms.entries, WIDE_MACS + WIDE_GUESTS);
    assert_true(zvs_mac_table_is_large(zvs_switch_mac_table(sw)));
    for (int i = 0; i < WIDE_GUESTS; i++)
        fake_port_reset(g[i]);

    /* Guest 0 sends 32 frames: 0..29 to station 141 + i (guest (141 + i) % 70 = 1 + i),
     * 30 from station 40 (it lives on guest 40: moves to guest 0) to guest 9, 31 to
     * station 40, now on the sender: the pass ahead saw it on guest 40, the decision
     * must not. */
    uint8_t g0mac[6] = { 0x02, 0x00, 0x0C, 0x00, 0x00, 0x00 };
    for (int i = 0; i < ZVS_BATCH; i++) {
        mac_n(dst, (uint32_t)(141 + i));
        memcpy(src, g0mac, 6);
        if (i == 30) {
            mac_n(src, 40);
            memcpy(dst, (const uint8_t[6]){ 0x02, 0x00, 0x0C, 0x00, 0x00, 0x09 }, 6);
        }
        if (i == 31)
            mac_n(dst, 40);
        f[i] = (struct zvs_frame){ .data = fr[i], .len = build(fr[i], dst, src, -1, 46) };
    }
    uint64_t in_before = g[0]->port.ctr.in_packets;
    zvs_switch_input(sw, &g[0]->port, f, ZVS_BATCH, 2);
    for (int i = 0; i < 30; i++) {
        struct fake_port *to = g[1 + i];
        assert_int_equal(to->nframes, to == g[9] ? 2 : 1);
        assert_memory_equal(to->frames[0].bytes, fr[i], f[i].len);
        assert_int_equal(to->prefetches[0], to == g[9] ? 2 : 1);   /* frames 8 and 30 */
        assert_int_equal(to->prefetches[1], 1);
        assert_int_equal(to->prefetches[2], 1);
    }
    assert_memory_equal(g[9]->frames[1].bytes, fr[30], f[30].len);
    assert_int_equal(g[40]->nframes, 0);
    assert_int_equal(g[40]->prefetches[0], 1);  /* the stale hint, and nothing more */
    assert_int_equal(g[40]->prefetches[1], 0);
    assert_int_equal(g[0]->nframes, 0);
    assert_int_equal(g[0]->port.ctr.drops[ZVS_DROP_SAME_PORT], 1);
    assert_int_equal(g[0]->port.ctr.in_packets - in_before, ZVS_BATCH);
    assert_int_equal(zvs_mac_table_lookup(zvs_switch_mac_table(sw), dst, 0), g[0]->port.index);
    zvs_switch_destroy(sw);
}

/* The pass ahead on a wide, VLAN-aware switch decides nothing: random bursts (untagged,
 * tagged, priority-tagged and QinQ frames, runts, frames whose first piece is short or
 * that come in three pieces, broadcasts, multicasts, unknown destinations, stations
 * that move, group sources) from guests on access and trunk ports, some with
 * MACPROTECT, and from the uplink, sent as bursts to one switch and a frame at a time
 * (no pass ahead: it needs two frames) to a twin, leave every port with the same frames,
 * byte for byte and in order, and the same counters. */
#define TWIN_GUESTS 66

struct twin {
    struct zvs_switch *sw;
    struct fake_port  *up, *g[TWIN_GUESTS];
};

static void twin_open(struct twin *t)
{
    struct zvs_switch_params p = { .name = "TWINVSW", .vlan = { .aware = true, .native_vid = 1 } };
    t->sw = zvs_switch_create(&p);
    assert_non_null(t->sw);
    t->up = fake_port_new("28BA", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    assert_int_equal(zvs_switch_add_uplink(t->sw, &t->up->port), 0);
    for (int i = 0; i < TWIN_GUESTS; i++) {
        char name[24];
        snprintf(name, sizeof(name), "T%02d.F000", i);
        t->g[i] = fake_port_new(name, ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
        uint8_t mac[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, (uint8_t)i };
        struct zvs_guest gd = guest(name, mac, i % 5 == 0,
                                    i % 3 == 0 ? ZVS_VLAN_TRUNK : ZVS_VLAN_ACCESS,
                                    (uint16_t)(1 + i % 3));
        if (i % 3 == 0)
            assert_int_equal(zvs_vlan_grant(&gd.vlan, 1, 3), 0);
        assert_int_equal(zvs_switch_add_guest(t->sw, &t->g[i]->port, &gd), 0);
    }
}

static struct fake_port *twin_port(struct twin *t, int k)
{
    return k < 0 ? t->up : t->g[k];
}

/* Frame k of a random burst into buf (up to 80 bytes); its pieces in iov when split. */
static struct zvs_frame twin_frame(uint64_t *rng, uint8_t *buf, struct iovec *iov)
{
    uint8_t dst[6] = { 0x02, 0x00, 0x0D, 0x00 }, src[6] = { 0x02, 0x00, 0x0D, 0x00 };
    uint64_t r = *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    unsigned kind = (unsigned)(r >> 59);            /* 0..31 */
    unsigned st = (unsigned)(r >> 20) % 9200;       /* a station: learned below 9,000 */

    dst[4] = (uint8_t)(st >> 8);
    dst[5] = (uint8_t)st;
    st = (unsigned)(r >> 40) % 9000;
    src[4] = (uint8_t)(st >> 8);
    src[5] = (uint8_t)st;
    if (kind == 1)
        memset(dst, 0xFF, 6);                       /* broadcast */
    if (kind == 2)
        dst[0] = 0x01;                              /* multicast */
    if (kind == 3)
        src[0] = 0x03;                              /* a group source */
    int vid = kind >= 4 && kind < 10 ? (int)(kind % 4) : -1;   /* 0: priority tag */
    uint32_t len = build(buf, dst, src, vid, 46);
    if (kind == 10) {                               /* QinQ */
        buf[12] = 0x88;
        buf[13] = 0xA8;
    }
    struct zvs_frame f = { .data = buf, .len = kind == 11 ? 17 : len };   /* a runt */
    if (kind == 12 || kind == 13) {
        uint32_t a = kind == 12 ? 10 : 20;          /* short first piece, or a good one */
        iov[0] = (struct iovec){ buf, a };
        iov[1] = (struct iovec){ buf + a, 9 };
        iov[2] = (struct iovec){ buf + a + 9, len - a - 9 };
        f.nfrags = 3;
        f.frags = iov;
    }
    return f;
}

static void wide_burst_pass_ahead_decides_nothing(void **state)
{
    struct twin a, b;
    static uint8_t buf[ZVS_BATCH][80];
    struct iovec iov[ZVS_BATCH][3];
    struct zvs_frame f[ZVS_BATCH];
    uint64_t rng = 42;
    (void)state;

    twin_open(&a);
    twin_open(&b);
    /* 9,000 stations, learned on both alike: a large table */
    for (uint32_t n = 0; n < 9000; n++) {
        int k = 1 + (int)(n % (TWIN_GUESTS - 1));
        if (k % 5 == 0)
            k--;                                    /* MACPROTECT guests learn nothing */
        uint8_t src[6] = { 0x02, 0x00, 0x0D, 0x00, (uint8_t)(n >> 8), (uint8_t)n };
        uint32_t len = build(buf[0], MAC_BCAST, src, k % 3 == 0 ? (int)(1 + n % 3) : -1, 46);
        struct zvs_frame lf = { .data = buf[0], .len = len };
        zvs_switch_input(a.sw, &a.g[k]->port, &lf, 1, 1);
        lf = (struct zvs_frame){ .data = buf[0], .len = len };
        zvs_switch_input(b.sw, &b.g[k]->port, &lf, 1, 1);
    }
    assert_true(zvs_mac_table_is_large(zvs_switch_mac_table(a.sw)));
    for (int round = 0; round < 60; round++) {
        int from = (int)((rng >> 33) % (TWIN_GUESTS + 1)) - 1;     /* -1: the uplink */
        for (int i = 0; i < ZVS_BATCH; i++)
            f[i] = twin_frame(&rng, buf[i], iov[i]);
        struct zvs_frame g[ZVS_BATCH];
        memcpy(g, f, sizeof(g));
        for (int k = -1; k < TWIN_GUESTS; k++) {
            fake_port_reset(twin_port(&a, k));
            fake_port_reset(twin_port(&b, k));
        }
        zvs_switch_input(a.sw, &twin_port(&a, from)->port, f, ZVS_BATCH, 2);
        for (int i = 0; i < ZVS_BATCH; i++)
            zvs_switch_input(b.sw, &twin_port(&b, from)->port, &g[i], 1, 2);
        for (int k = -1; k < TWIN_GUESTS; k++) {
            struct fake_port *pa = twin_port(&a, k), *pb = twin_port(&b, k);
            assert_int_equal(pa->nframes, pb->nframes);
            for (int j = 0; j < pa->nframes; j++) {
                assert_int_equal(pa->frames[j].len, pb->frames[j].len);
                assert_memory_equal(pa->frames[j].bytes, pb->frames[j].bytes, pa->frames[j].len);
            }
            assert_memory_equal(&pa->port.ctr, &pb->port.ctr, sizeof(pa->port.ctr));
        }
        for (int i = 0; i < ZVS_BATCH; i++) {
            assert_int_equal(f[i].vid, g[i].vid);
            assert_int_equal(f[i].pcp, g[i].pcp);
            assert_int_equal(f[i].flags, g[i].flags);
        }
    }
    zvs_switch_destroy(a.sw);
    zvs_switch_destroy(b.sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(guest_to_guest_unicast_is_local),
        cmocka_unit_test(unknown_unicast_goes_uplink_only),
        cmocka_unit_test(guest_broadcast_floods_all_but_sender),
        cmocka_unit_test(uplink_unicast_broadcast_and_filter),
        cmocka_unit_test(vlan_aware_broadcast_stays_in_vlan),
        cmocka_unit_test(trunk_guest_only_granted_vlans),
        cmocka_unit_test(macprotect_and_learning),
        cmocka_unit_test(bad_input_counted_never_forwarded),
        cmocka_unit_test(slow_protocols_from_uplink_go_to_handler),
        cmocka_unit_test(full_input_queue_counts_discards),
        cmocka_unit_test(uplink_failover_by_carrier),
        cmocka_unit_test(isolation_blocks_guest_to_guest),
        cmocka_unit_test(mac_table_full_refuses_learning_but_forwards),
        cmocka_unit_test(couple_duplicate_mac_changes_nothing),
        cmocka_unit_test(super_frame_segmented_for_plain_egress),
        cmocka_unit_test(super_frame_counts_its_segments),
        cmocka_unit_test(super_frame_past_egress_mtu_is_oversize),
        cmocka_unit_test(smaller_super_frames_count_the_same),
        cmocka_unit_test(tagged_super_frames_count_their_tags),
        cmocka_unit_test(discarded_super_frame_counts_its_segments),
        cmocka_unit_test(burst_mixed_destinations_each_forwarded),
        cmocka_unit_test(burst_learning_forgets_the_memo),
        cmocka_unit_test(burst_header_memo_checks_every_frame),
        cmocka_unit_test(burst_slow_handler_runs_after_the_burst),
        cmocka_unit_test(slow_frames_after_the_burst_in_order_per_port),
        cmocka_unit_test(slow_handler_changing_the_group_leaves_the_burst_alone),
        cmocka_unit_test(slow_frames_beyond_a_burst_are_counted),
        cmocka_unit_test(slow_handler_unset_during_delivery),
        cmocka_unit_test(burst_untagged_and_tagged_on_a_trunk),
        cmocka_unit_test(burst_untagged_refusal_repeats),
        cmocka_unit_test(frame_emit_contiguous_keep),
        cmocka_unit_test(wide_burst_hints_change_no_decision),
        cmocka_unit_test(wide_burst_pass_ahead_decides_nothing),
    };
    return cmocka_run_group_tests_name("forward", tests, NULL, NULL);
}
